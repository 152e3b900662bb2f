// Going from page to page without reloading. The pages link here, and
// app.js tells it how to draw the page of a path, so that no page module
// needs app.js.

let show = () => {};

/** Sets what draws the page of the current path (app.js, once). */
export function setRouter(route) {
  show = route;
}

/** Goes to a page of this site without reloading. */
export function navigate(path, replace = false) {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  show();
}
