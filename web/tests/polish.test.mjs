// Sounds (a move, a jump, a Salta call, low time, the game's end) and the
// remembered mute switch; moves by keyboard on the game page and the
// analysis board, and Focus drops by keyboard; the two board themes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, clickSquare, waitForPly, newGame, history, screenshot, clickMove, destinations, arrowsBetween } from './helpers.mjs';

const env = serverAndBrowser();

/** Records the names of the sounds the page plays (its `monte-sound` events), across reloads. */
async function listen(page) {
  await page.addInitScript(() => {
    window.monteHeard = [];
    window.addEventListener('monte-sound', (e) => window.monteHeard.push(e.detail));
  });
}

const heard = (page) => page.evaluate(() => window.monteHeard);


test('sounds: a move, a call, a jump, the end; muted and remembered', async () => {
  const page = await openPage(env.browser);
  await listen(page);
  await newGame(page, env.server.url, { game: 'salta', opponent: 'local' });
  await page.locator('[data-pref="sound"][aria-pressed="true"]').waitFor();
  await clickMove(page, 'e3', 'f4', 1);
  await clickMove(page, 'd8', 'e7', 2);
  await clickMove(page, 'f4', 'g5', 3);
  assert.deepEqual(await heard(page), ['move', 'move', 'move']);
  // The call, then the forced jump.
  await clickSquare(page, 'e7');
  await clickSquare(page, 'f6');
  await page.locator('.popover button.salta').click();
  await waitForPly(page, 4);
  await clickSquare(page, 'g5');
  await clickSquare(page, 'e7');
  await page.locator('.popover [data-move="g5:e7"]').click();
  await waitForPly(page, 5);
  assert.deepEqual((await heard(page)).slice(3), ['call', 'capture']);

  // Muted: remembered across a reload, and nothing sounds.
  await page.locator('[data-pref="sound"]').click();
  await page.locator('[data-pref="sound"][aria-pressed="false"]').waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem('monte.sound')), 'off');
  await page.reload();
  await page.locator('.board-wrap svg.board').waitFor();
  assert.equal(await page.locator('[data-pref="sound"]').getAttribute('aria-pressed'), 'false');
  await clickMove(page, 'f8', 'g7', 6);
  assert.deepEqual(await heard(page), []);

  // On again: the game's end (a resignation) sounds.
  await page.locator('[data-pref="sound"]').click();
  await page.locator('[data-action="resign"]').click();
  await page.locator('[data-action="resign-confirm"]').click();
  await page.locator('.banner', { hasText: 'by resignation' }).waitFor();
  await page.waitForFunction(() => window.monteHeard.includes('end'));
  noErrors(page);
});

test('low time: one warning when one’s own clock falls under ten seconds', async () => {
  const page = await openPage(env.browser);
  await listen(page);
  await page.clock.install();
  await newGame(page, env.server.url, { game: 'salta', opponent: 'local', clock: 1 });
  await clickMove(page, 'e3', 'f4', 1);
  await clickMove(page, 'd8', 'e7', 2);
  // White's clock (3 minutes) runs from its second move: 171 s later 9 s are left.
  await page.locator('.clock.running[data-clock="white"], [data-clock="white"]').first().waitFor();
  await page.clock.runFor(165000);
  assert.deepEqual((await heard(page)).filter((s) => s === 'lowTime'), []);
  await page.clock.runFor(6000);
  assert.ok((await heard(page)).includes('lowTime'), JSON.stringify(await heard(page)));
  await page.clock.runFor(2000);
  assert.equal((await heard(page)).filter((s) => s === 'lowTime').length, 1);
  noErrors(page);
});

test('keyboard: the cursor moves with the arrows, Enter picks and puts, on the game page and the analysis board', async () => {
  const page = await openPage(env.browser);
  await newGame(page, env.server.url, { game: 'salta', opponent: 'local' });
  const board = page.locator('.board-wrap svg.board');
  await board.focus();
  // The cursor starts on the first piece that may move (a3), and steps square by square.
  await page.keyboard.press('ArrowRight');
  const cursor = () => page.locator('.board-wrap .cursor').getAttribute('data-square');
  assert.equal(await cursor(), 'a3');
  for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
  assert.equal(await cursor(), 'e3');
  await page.keyboard.press('Enter');
  await page.locator('rect.sq.selected[data-square="e3"]').waitFor();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowRight');
  assert.equal(await cursor(), 'f4');
  await page.keyboard.press('Enter');
  await waitForPly(page, 1);
  assert.deepEqual(await history(page), ['e3-f4']);
  // Arrows on the board move the cursor, not through the moves.
  await page.keyboard.press('ArrowLeft');
  assert.equal(await cursor(), 'e4');
  assert.equal(await page.locator('.moves .mv.current').count() <= 1, true);
  await screenshot(page, 'keyboard-cursor', '.board-col');
  // Black, with the board not flipped (one screen): d8 to e7.
  for (const key of ['ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowUp', 'ArrowLeft']) await page.keyboard.press(key);
  assert.equal(await cursor(), 'd8');
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('Enter');
  await waitForPly(page, 2);
  assert.deepEqual(await history(page), ['e3-f4', 'd8-e7']);
  // A click hides the cursor.
  await clickSquare(page, 'c3');
  assert.equal(await page.locator('.board-wrap .cursor').count(), 0);

  // The analysis board takes the keyboard the same way.
  await page.goto(`${env.server.url}/analysis?kind=focus`);
  await page.locator('.engine-line').first().waitFor();
  await page.locator('.board-wrap svg.board').focus();
  await page.keyboard.press('ArrowUp');
  const first = await cursor();
  assert.ok(first, 'a cursor on the analysis board');
  await page.keyboard.press('Enter');
  await page.locator(`rect.sq.selected[data-square="${first}"]`).waitFor();
  assert.ok((await page.locator('.board-wrap .dest').count()) > 0);
  noErrors(page);
});

test('keyboard: a Focus drop by R, or by the reserve’s button, then the cursor and Enter; Escape cancels', async () => {
  const page = await openPage(env.browser);
  // White has one piece in reserve; Black's d5 (White's prisoner under it) and g6.
  const fen = '.,.,.,./.,.,.,.,.,./.,.,.,.,.,.,b,./.,.,.,wb,.,.,.,./.,.,.,.,.,.,.,./.,.,.,w,.,.,.,./.,.,.,.,.,./.,.,.,. w 1 0 30';
  await newGame(page, env.server.url, { game: 'focus', opponent: 'local', fen });
  const board = page.locator('.board-wrap svg.board');
  const reserve = page.locator('button.reserve[data-reserve="white"]');
  const said = () => page.locator('.board-wrap .board-live').innerText();
  const cursor = () => page.locator('.board-wrap .cursor').getAttribute('data-square');
  assert.match(await board.getAttribute('aria-label'), /R picks your reserve/);
  assert.match(await reserve.getAttribute('aria-label'), /Reserve \(White\): 1/);
  assert.equal(await reserve.getAttribute('aria-pressed'), 'false');

  // R on the board: the reserve picked, the drops' squares (the server's) lit, the cursor where it was.
  await board.focus();
  await page.keyboard.press('ArrowUp');
  const before = await cursor();
  await page.keyboard.press('r');
  await page.locator('button.reserve.selected[data-reserve="white"]').waitFor();
  assert.equal(await reserve.getAttribute('aria-pressed'), 'true');
  const drops = await destinations(page);
  assert.ok(drops.length > 40 && drops.includes('d5') && drops.includes('d3'), drops.join(' '));
  assert.equal(await cursor(), before);
  assert.match(await said(), /^Reserve picked \(1 in it\).*Esc cancels\. /);
  // Escape puts it back: nothing lit, nothing sent.
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('button.reserve.selected').count(), 0);
  assert.deepEqual(await destinations(page), []);
  assert.match(await said(), /^Drop cancelled/);
  assert.deepEqual(await history(page), []);

  // The reserve's button pressed with the keyboard: the board takes the keys, its cursor on the first square to drop on.
  await reserve.focus();
  await page.keyboard.press('Enter');
  await page.locator('button.reserve.selected[data-reserve="white"]').waitFor();
  assert.equal(await page.evaluate(() => document.activeElement.classList.contains('board')), true);
  const start = await cursor();
  assert.ok(drops.includes(start), start);
  assert.match(await said(), new RegExp(`^Reserve picked .*${start}: drop here \\(Enter\\)$`));
  for (const key of arrowsBetween(start, 'd5')) await page.keyboard.press(key);
  assert.equal(await cursor(), 'd5');
  assert.equal(await said(), 'd5: drop here (Enter)');
  await page.keyboard.press('Enter');
  await waitForPly(page, 1);
  // Sent and shown: the drop in the move list, White's piece on top of d5, the reserve empty.
  assert.deepEqual(await history(page), ['@d5']);
  const d5 = await page.locator('.board-wrap .layer-pieces g.at[data-square="d5"] .disc').evaluateAll((d) => d.map((x) => (x.classList.contains('white') ? 'w' : 'b')).join(''));
  assert.equal(d5, 'wbw');
  assert.equal(await page.locator('[data-reserve="white"] .count').innerText(), '0');
  await screenshot(page, 'keyboard-drop', '.board-col');
  // Black has no reserve: R says no drop can be made, and nothing is picked.
  await board.focus();
  await page.keyboard.press('r');
  await page.locator('.toast', { hasText: 'You cannot drop a piece now' }).waitFor();
  assert.match(await said(), /^You cannot drop a piece now/);
  assert.equal(await page.locator('button.reserve.selected').count(), 0);
  noErrors(page);
});

test('two board themes, chosen in the header and remembered', async () => {
  const page = await openPage(env.browser, { lang: 'ru' });
  await page.goto(`${env.server.url}/rules`);
  await page.locator('svg.board').first().waitFor();
  const fill = () => page.locator('svg.board .sq.dark').first().evaluate((r) => getComputedStyle(r).fill);
  const wood = await fill();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.board), 'wood');
  await page.locator('[data-pref="theme"]').click();
  assert.equal(await page.evaluate(() => document.documentElement.dataset.board), 'green');
  const green = await fill();
  assert.notEqual(green, wood);
  assert.match(await page.locator('[data-pref="theme"]').getAttribute('title'), /зелёная/);
  await page.reload();
  await page.locator('svg.board').first().waitFor();
  assert.equal(await fill(), green);
  await screenshot(page, 'theme-green', 'svg.board');
  await page.locator('[data-pref="theme"]').click();
  assert.equal(await fill(), wood);
  noErrors(page);
});
