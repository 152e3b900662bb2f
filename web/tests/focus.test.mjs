// Focus on one screen: a jump, a sweep, a split (choosing how many pieces
// of a tower move), then a game from a position: overflow into the reserve,
// and a drop from it that wins.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, clickSquare, history, waitForPly, destinations, newGame, recordAnimations, animatedSquares } from './helpers.mjs';

const env = serverAndBrowser();

const tower = (page, sq) => page.locator(`.board-wrap .layer-pieces g.at[data-square="${sq}"] .disc`).evaluateAll((d) => d.map((x) => (x.classList.contains('white') ? 'w' : 'b')).join(''));

test('a jump, a sweep and a split move with the group size chosen', async () => {
  const page = await openPage(env.browser);
  await newGame(page, env.server.url, { game: 'focus', opponent: 'local' });
  // 1. c6xc8: the only move of c6, a jump.
  await clickSquare(page, 'c6');
  assert.deepEqual(await destinations(page), ['c8']);
  await clickSquare(page, 'c8');
  await waitForPly(page, 1);
  assert.equal(await tower(page, 'c8'), 'bw');
  // 1... b7-c7
  await clickSquare(page, 'b7');
  await clickSquare(page, 'c7');
  await waitForPly(page, 2);
  // 2. c8-c6: the tower of two offers a choice of size; with 2 chosen, the jump to c6 is not offered.
  await clickSquare(page, 'c8');
  await page.locator('.size-picker').waitFor();
  assert.deepEqual(await page.locator('.size-picker .chip').evaluateAll((c) => c.map((x) => x.dataset.size)), ['all', '1', '2']);
  assert.deepEqual(await destinations(page), ['c6', 'd8', 'e8']);
  await page.locator('.size-picker .chip[data-size="2"]').click();
  assert.deepEqual(await destinations(page), ['c6', 'e8']);
  await screenshot(page, 'focus-size-choice', '.game-page');
  await clickSquare(page, 'c6');
  await waitForPly(page, 3);
  assert.equal((await history(page))[2], 'c8-c6');
  assert.equal(await tower(page, 'c6'), 'bbw');
  // 2... f7-f8
  await clickSquare(page, 'f7');
  await clickSquare(page, 'f8');
  await waitForPly(page, 4);
  // 3. c6-c7: split the tower of three, one piece moves; Black's two are free again.
  await clickSquare(page, 'c6');
  await page.locator('.size-picker .chip[data-size="1"]').click();
  assert.deepEqual(await destinations(page), ['c7']);
  await clickSquare(page, 'c7');
  await waitForPly(page, 5);
  assert.equal((await history(page))[4], 'c6-c7');
  assert.equal(await tower(page, 'c6'), 'bb');
  assert.equal(await tower(page, 'c7'), 'w');
  await page.locator('.status', { hasText: 'Black to move' }).waitFor();
  await screenshot(page, 'focus-split', '.board-col');
  noErrors(page);
});

test('overflow into the reserve, and a drop from it', async () => {
  const page = await openPage(env.browser);
  await recordAnimations(page);
  const fen = '.,.,.,./.,.,.,.,.,./.,.,.,wb,.,w,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,bww,b,bwb,.,.,./.,.,.,.,.,./.,.,.,. w 0 0 60';
  await newGame(page, env.server.url, { game: 'focus', opponent: 'local', fen });
  const count = (kind, side) => page.locator(`[data-${kind}="${side}"] .count`).innerText();
  assert.equal(await count('reserve', 'white'), '0');
  assert.equal(await count('captured', 'black'), '13');
  // c3-f3 sweeps d3 and e3: a tower of seven loses two from the bottom.
  await clickSquare(page, 'c3');
  await page.locator('.size-picker .chip[data-size="3"]').click();
  await clickSquare(page, 'f3');
  await waitForPly(page, 1);
  assert.equal(await tower(page, 'f3'), 'bbbww');
  assert.equal(await count('reserve', 'white'), '1');
  assert.equal(await count('captured', 'black'), '14');
  // Black: d6-d7 (the top of the tower of two).
  await clickSquare(page, 'd6');
  await clickSquare(page, 'd7');
  await waitForPly(page, 2);
  // White drops from the reserve onto Black's piece on d7: Black has nothing left.
  const reserve = page.locator('button.reserve[data-reserve="white"]');
  assert.equal(await reserve.isEnabled(), true);
  assert.equal(await page.locator('button.reserve[data-reserve="black"]').isEnabled(), false);
  await reserve.click();
  await page.locator('.hint', { hasText: 'drop a piece' }).waitFor();
  assert.ok((await destinations(page)).includes('d7'));
  await screenshot(page, 'focus-drop', '.game-page');
  await clickSquare(page, 'd7');
  await waitForPly(page, 3);
  assert.equal((await history(page))[2], '@d7');
  // Each move was shown moving: the sweep, the step, the drop coming in from the reserve.
  assert.deepEqual(await animatedSquares(page), ['f3', 'd7', 'd7']);
  const drop = await page.evaluate(() => window.monteAnimations.at(-1));
  assert.equal(drop.frames, 2);
  await page.locator('.banner', { hasText: 'White wins' }).waitFor();
  await page.locator('.banner', { hasText: 'no pieces left to move' }).waitFor();
  await screenshot(page, 'focus-result', '.board-col');
  // The record of the game.
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('.banner a[download]').click()]);
  const path = await download.path();
  const { readFileSync } = await import('node:fs');
  const record = readFileSync(path, 'utf8');
  assert.match(record, /\[Game "focus"\]/);
  assert.match(record, /c3-f3 d6-d7 2\. @d7/);
  assert.match(record, /1-0\s*$/);
  noErrors(page);
});
