// Salta on one screen: the Salta call is offered, the forced reply is made
// obvious, and a jump's path is shown.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, clickSquare, history, waitForPly, destinations, newGame, clickMove } from './helpers.mjs';

const env = serverAndBrowser();


test('a Salta call and the forced reply', async () => {
  const page = await openPage(env.browser);
  await newGame(page, env.server.url, { game: 'salta', opponent: 'local' });
  await page.locator('.status', { hasText: 'White to move' }).waitFor();
  await clickMove(page, 'e3', 'f4', 1);
  await clickMove(page, 'd8', 'e7', 2);
  await clickMove(page, 'f4', 'g5', 3);

  // e7-f6 may carry a call: the destination is marked, and the page asks.
  await clickSquare(page, 'e7');
  await page.locator('.dest[data-square="f6"] .dest-call').waitFor();
  await clickSquare(page, 'f6');
  const popover = page.locator('.popover');
  await popover.waitFor();
  assert.deepEqual(await popover.locator('[data-move]').evaluateAll((b) => b.map((x) => x.dataset.move)), ['e7-f6', 'e7-f6+']);
  await screenshot(page, 'salta-call-offer', '.board-col');
  await popover.locator('button.salta').click();
  await waitForPly(page, 4);
  assert.equal((await history(page))[3], 'e7-f6+');

  // The forced reply: the called piece is ringed, the notice says what must happen.
  await page.locator('.notice.salta-call', { hasText: 'must jump over the piece on f6' }).waitFor();
  await page.locator('.board-wrap .called').waitFor();
  // Only the sun on g5 can answer: other White pieces do not even select.
  await clickSquare(page, 'c3');
  assert.equal(await page.locator('rect.sq.selected').count(), 0);
  assert.deepEqual(await page.locator('rect.sq.movable').evaluateAll((r) => r.map((x) => x.dataset.square)), ['g5']);
  await clickSquare(page, 'g5');
  assert.deepEqual(await destinations(page), ['e7']);
  // Hovering the destination shows the jump's path.
  const box = await page.locator('.board-wrap rect[data-square="e7"]').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.locator('.board-wrap polyline.path:not(.last-path)').waitFor();
  await screenshot(page, 'salta-forced-reply', '.game-page');
  await clickSquare(page, 'e7');
  await popover.waitFor();
  await popover.locator('[data-move="g5:e7"]').click();
  await waitForPly(page, 5);
  assert.deepEqual(await history(page), ['e3-f4', 'd8-e7', 'f4-g5', 'e7-f6+', 'g5:e7']);
  assert.equal(await page.locator('.board-wrap .called').count(), 0);
  // The jump just made is drawn as a path.
  await page.locator('.board-wrap polyline.last-path').waitFor();

  // Step back through the moves and forward again.
  await page.locator('.moves .mv[data-ply="2"]').click();
  await page.locator('.notice.history-note').waitFor();
  assert.equal(await page.locator('.board-wrap .layer-pieces g.at[data-square="e7"]').count(), 1);
  assert.equal(await page.locator('.board-wrap .layer-pieces g.at[data-square="g5"]').count(), 0);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await page.locator('.board-wrap .called').waitFor();
  await page.keyboard.press('End');
  await page.locator('.notice.history-note').waitFor({ state: 'detached' });

  // Targets: the selected piece's target is ringed; the switch shows them all.
  await page.locator('[data-action="targets"]').click();
  await page.locator('.board-wrap .target-ghost').first().waitFor();
  await screenshot(page, 'salta-targets', '.board-col');
  noErrors(page);
});
