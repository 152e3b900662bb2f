// The game column (the opponent's bar, the board, the player's own bar)
// fits the screen: on laptop screens from 720 px high and on a phone held
// sideways, nothing of it falls below the fold.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, newGame, screenshot } from './helpers.mjs';

const env = serverAndBrowser();

const SCREENS = [
  [1280, 800],
  [1366, 768],
  [1440, 900],
  [1280, 720],
  [1920, 1080],
  [844, 390],
];

/** Each element of the game column whose box is not wholly on the screen. */
async function outside(page) {
  return page.evaluate(() => {
    const parts = [...document.querySelectorAll('.board-col > *, .board-col svg.board, .board-col .player-bar > *')];
    const out = [];
    for (const el of parts) {
      const b = el.getBoundingClientRect();
      if (b.left < 0 || b.top < 0 || b.right > innerWidth + 0.5 || b.bottom > innerHeight + 0.5) {
        out.push(`${el.className.baseVal ?? el.className} at ${Math.round(b.left)},${Math.round(b.top)}..${Math.round(b.right)},${Math.round(b.bottom)}`);
      }
    }
    if (document.documentElement.scrollWidth > innerWidth) out.push(`the page is ${document.documentElement.scrollWidth}px wide`);
    return out;
  });
}

for (const game of ['salta', 'focus']) {
  test(`${game}: the whole game column is on the screen at every size`, async () => {
    const page = await openPage(env.browser);
    // A clock and a long name: the fullest bars.
    await newGame(page, env.server.url, { game, opponent: 'ai', level: 1, side: 'white', clock: 3, name: 'Alexandra Konstantinopolskaya' });
    await page.locator('.status', { hasText: 'Your move' }).waitFor();
    for (const [width, height] of SCREENS) {
      await page.setViewportSize({ width, height });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      assert.deepEqual(await outside(page), [], `${width}x${height}`);
      const board = await page.locator('.board-wrap svg.board').boundingBox();
      assert.ok(board.height >= Math.min(240, height / 2), `${width}x${height}: the board is only ${board.height}px tall`);
    }
    await screenshot(page, `${game}-844x390`, null, { fullPage: false });

    // A phone held sideways, as a touch screen.
    const phone = await env.browser.newContext({ viewport: { width: 844, height: 390 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
    const sideways = await phone.newPage();
    await sideways.goto(page.url());
    await sideways.locator('.board-wrap svg.board').waitFor();
    assert.deepEqual(await outside(sideways), [], 'a phone held sideways');
    await phone.close();
    noErrors(page);
  });
}
