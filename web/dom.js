// Small helpers to build HTML and SVG without a framework.

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(node, attrs, children) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') node.setAttribute('class', value);
    else if (key === 'text') node.textContent = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
    else if (key.startsWith('on') && typeof value === 'function') node.addEventListener(key.slice(2), value);
    else if (key === 'dataset') Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

/** Appends children: nodes, strings, arrays of them; null/false are skipped. */
export function append(node, children) {
  if (children === undefined || children === null || children === false) return node;
  if (Array.isArray(children)) {
    for (const c of children) append(node, c);
  } else if (children instanceof Node) {
    node.appendChild(children);
  } else {
    node.appendChild(document.createTextNode(String(children)));
  }
  return node;
}

/** An HTML element: h('button', {class: 'x', onclick}, ['text']). */
export function h(tag, attrs, children) {
  return fill(document.createElement(tag), attrs, children);
}

/** An SVG element. */
export function s(tag, attrs, children) {
  return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(node) {
  while (node.firstChild) node.removeChild(node.firstChild);
  return node;
}

/** A brief message at the bottom of the screen. */
export function toast(message, kind = 'info') {
  const box = document.getElementById('toast');
  if (!box) return;
  const item = h('div', { class: `toast ${kind}`, role: kind === 'error' ? 'alert' : 'status' }, message);
  box.appendChild(item);
  setTimeout(() => item.classList.add('gone'), 3800);
  setTimeout(() => item.remove(), 4300);
}
