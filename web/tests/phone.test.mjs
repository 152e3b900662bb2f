// On a phone-sized touch screen: the board fits, a move is made by tapping,
// another by dragging a piece with a finger; the AI answers each.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, history, waitForPly, destinations, newGame, touchDrag } from './helpers.mjs';

const env = serverAndBrowser();

const tap = (page, square) => page.locator(`.board-wrap rect[data-square="${square}"]`).tap();

/** The board's box and the page's width, in CSS pixels. */
async function fit(page) {
  return page.evaluate(() => {
    const box = document.querySelector('.board-wrap svg.board').getBoundingClientRect();
    return { left: box.left, right: box.right, width: box.width, height: box.height, page: document.documentElement.scrollWidth, screen: innerWidth, tall: innerHeight };
  });
}

test('Salta on a phone: the board fits the screen, a move by tapping, one by dragging', async () => {
  const page = await openPage(env.browser, { phone: true });
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white' });
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  const box = await fit(page);
  assert.ok(box.left >= 0 && box.right <= box.screen, `the board spans ${box.left}..${box.right} on a ${box.screen}px screen`);
  assert.ok(box.width >= box.screen - 24, `the board is only ${box.width}px wide on a ${box.screen}px screen`);
  assert.ok(box.height <= box.tall, `the board is ${box.height}px tall on a ${box.tall}px screen`);
  assert.ok(box.page <= box.screen, `the page is ${box.page}px wide on a ${box.screen}px screen`);
  // A square is big enough for a finger (at least 34 CSS pixels).
  const square = await page.locator('.board-wrap rect[data-square="e3"]').boundingBox();
  assert.ok(square.width >= 34, `a square is ${square.width}px`);

  await tap(page, 'e3');
  assert.deepEqual(await destinations(page), ['d4', 'f4']);
  await tap(page, 'f4');
  await waitForPly(page, 2);
  assert.equal((await history(page))[0], 'e3-f4');
  await page.locator('.status', { hasText: 'Your move' }).waitFor();

  // A finger drags c3 to d4 (the page must not scroll instead).
  const scrolled = await page.evaluate(() => scrollY);
  let ghost = null;
  await touchDrag(page, 'c3', 'd4', {
    beforeLifting: async () => {
      ghost = await page.locator('.board-wrap .layer-drag g.ghost').getAttribute('transform');
      assert.deepEqual(await page.locator('.board-wrap .dest.hover').evaluateAll((n) => n.map((x) => x.dataset.square)), ['d4']);
    },
  });
  // The dragged piece is drawn lifted above the finger, larger.
  assert.match(ghost, /scale\(1\.3\)/);
  await waitForPly(page, 4);
  assert.equal((await history(page))[2], 'c3-d4');
  assert.equal(await page.evaluate(() => scrollY), scrolled);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  await page.evaluate(() => scrollTo(0, 0));
  await screenshot(page, 'salta-phone', null, { fullPage: false });
  noErrors(page);
});

test('Focus on a phone: the board fits, a tower chosen by tapping, the reserve beside the board', async () => {
  const page = await openPage(env.browser, { phone: true });
  await newGame(page, env.server.url, { game: 'focus', opponent: 'ai', level: 1, side: 'white' });
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  const box = await fit(page);
  assert.ok(box.left >= 0 && box.right <= box.screen && box.page <= box.screen, JSON.stringify(box));
  await page.locator('[data-reserve="white"]').waitFor();
  // A touch drag of a single piece: b6 to a6.
  await touchDrag(page, 'b6', 'a6');
  await waitForPly(page, 2);
  assert.equal((await history(page))[0], 'b6-a6');
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  // Tapping one of my towers (the AI's answer decides which are mine) selects it.
  const mine = await page.locator('.board-wrap rect.sq.movable').first().getAttribute('data-square');
  await tap(page, mine);
  await page.locator(`.board-wrap rect.sq.selected[data-square="${mine}"]`).waitFor();
  assert.ok((await destinations(page)).length > 0);
  await page.evaluate(() => scrollTo(0, 0));
  await screenshot(page, 'focus-phone', null, { fullPage: false });
  noErrors(page);
});
