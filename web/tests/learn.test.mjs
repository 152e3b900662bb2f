// Lessons (/learn): tasks solved on the board and judged by the server's
// rules, a legal move that misses the task, a call chosen or not, the
// forced answer, a drop (by mouse and by keyboard), Focus's reserve and
// captured counts, progress kept in the browser, both languages.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, clickSquare, destinations, englishWords, screenshot, arrowsBetween } from './helpers.mjs';

const env = serverAndBrowser();

async function feedback(page, kind) {
  const box = page.locator(`.feedback.${kind}`);
  await box.waitFor();
  return box.innerText();
}

test('Salta lessons: steps solved and missed, progress kept, the call and the forced answer', async () => {
  const page = await openPage(env.browser);
  await page.goto(env.server.url);
  await page.locator('.topbar nav a[data-nav="learn"]').click();
  await page.waitForURL(/\/learn\?lesson=salta-steps$/);
  await page.locator('.task-card h1', { hasText: 'Steps' }).waitFor();
  assert.equal(await page.locator('.topbar nav a.on').getAttribute('data-nav'), 'learn');
  await page.locator('.task-text', { hasText: 'Step your Sun 3 from e3 to f4' }).waitFor();

  // The legal destinations come from the server; the move is judged there too.
  await clickSquare(page, 'e3');
  assert.deepEqual(await destinations(page), ['d4', 'f4']);
  await clickSquare(page, 'f4');
  assert.match(await feedback(page, 'solved'), /Well done/);
  assert.deepEqual(await page.evaluate(() => JSON.parse(localStorage.getItem('monte.learn'))), { 'salta-steps/0': true });

  // The second task: a legal move by the wrong piece is told what it misses.
  await page.locator('[data-action="next"]').click();
  await page.locator('.task-text', { hasText: 'back to f4' }).waitFor();
  await clickSquare(page, 'g3');
  await clickSquare(page, 'f4');
  assert.match(await feedback(page, 'missed'), /not the task: move the piece on g5/);
  // The board shows the move made; nothing more can be moved until tried again.
  assert.equal(await page.locator('.board-wrap .sq.last').count(), 2);
  await page.locator('[data-action="again"]').click();
  await page.locator('.feedback').waitFor({ state: 'detached' });
  await clickSquare(page, 'g5');
  await clickSquare(page, 'f4');
  await feedback(page, 'solved');
  await page.locator('.lesson-list li[data-lesson="salta-steps"].done .tick').waitFor();
  await screenshot(page, 'learn-salta-steps');

  // The call: the same step with or without it; without, the task is missed.
  await page.locator('.lesson-list li[data-lesson="salta-call"] a').click();
  await page.waitForURL(/lesson=salta-call$/);
  await page.locator('.task-side', { hasText: 'You play Black' }).waitFor();
  await clickSquare(page, 'e7');
  await clickSquare(page, 'f6');
  await page.locator('.choices button[data-move="e7-f6"]').click();
  assert.match(await feedback(page, 'missed'), /call Salta with the move/);
  await page.locator('[data-action="again"]').click();
  await clickSquare(page, 'e7');
  await clickSquare(page, 'f6');
  await page.locator('.choices button[data-move="e7-f6+"]').click();
  await feedback(page, 'solved');

  // The forced answer: only the sun that can jump the called piece moves.
  await page.locator('[data-action="next"]').click();
  await page.waitForURL(/lesson=salta-call&task=1$/);
  await page.locator('.task-text', { hasText: 'Answer the call' }).waitFor();
  const movable = await page.locator('.board-wrap .sq.movable').evaluateAll((nodes) => nodes.map((n) => n.dataset.square));
  assert.deepEqual(movable, ['g5']);
  await clickSquare(page, 'c3');
  assert.deepEqual(await destinations(page), []);
  await clickSquare(page, 'g5');
  await clickSquare(page, 'e7');
  await page.locator('.choices button[data-move="g5:e7"]').click();
  await feedback(page, 'solved');

  // A reload keeps the progress; /learn opens the first lesson not done.
  await page.goto(`${env.server.url}/learn`);
  await page.waitForURL(/lesson=salta-jumps$/);
  await page.locator('.lesson-list li[data-lesson="salta-steps"].done').waitFor();
  await page.locator('.lesson-list li[data-lesson="salta-call"].done').waitFor();
  assert.equal(await page.locator('.lesson-list li.done').count(), 2);
  noErrors(page);
});

/** The reserve and captured counts a lesson's bar shows for a side. */
async function counts(page, side) {
  const count = (kind) => page.locator(`.learn-page .player-bar [data-${kind}="${side}"] .count`).innerText();
  return { reserve: await count('reserve'), captured: await count('captured') };
}

test('Focus lessons show each side’s reserve and captured pieces, as the game page does', async () => {
  const page = await openPage(env.browser);
  await page.goto(`${env.server.url}/learn?lesson=focus-overflow`);
  await page.locator('.task-text', { hasText: 'Sweep from c3 to f3' }).waitFor();
  // The learner (White) at the bottom, Black at the top, each side's bar as in a game.
  const bars = await page.locator('.learn-page .board-col .player-bar').evaluateAll((nodes) => nodes.map((n) => n.dataset.side));
  assert.deepEqual(bars, ['black', 'white']);
  await page.locator('.learn-page .player-bar.white .tag', { hasText: 'You' }).waitFor();
  // Five pieces of each side on the board, none in reserve: 13 captured each (18 a side).
  assert.deepEqual(await counts(page, 'white'), { reserve: '0', captured: '13' });
  assert.deepEqual(await counts(page, 'black'), { reserve: '0', captured: '13' });
  assert.equal(await page.locator('button.reserve[data-reserve="white"]').isEnabled(), false);
  // The tower of seven overflows: one White piece into the reserve, one Black piece captured.
  await clickSquare(page, 'c3');
  await clickSquare(page, 'f3');
  assert.match(await feedback(page, 'solved'), /Well done/);
  assert.deepEqual(await counts(page, 'white'), { reserve: '1', captured: '13' });
  assert.deepEqual(await counts(page, 'black'), { reserve: '0', captured: '14' });
  await screenshot(page, 'learn-focus-overflow', '.learn-page');

  // The drops lesson: one in White's reserve, which its button picks (as the game page's does).
  await page.goto(`${env.server.url}/learn?lesson=focus-drops`);
  await page.locator('.task-text', { hasText: 'Drop your reserve piece on d5' }).waitFor();
  assert.deepEqual(await counts(page, 'white'), { reserve: '1', captured: '15' });
  assert.deepEqual(await counts(page, 'black'), { reserve: '0', captured: '16' });
  await page.locator('button.reserve[data-reserve="white"]').click();
  await page.locator('[data-action="drop"].on').waitFor();
  assert.ok((await destinations(page)).includes('d5'));
  await clickSquare(page, 'd5');
  await feedback(page, 'solved');
  assert.deepEqual(await counts(page, 'white'), { reserve: '0', captured: '15' });
  // Salta lessons have no reserves: no bars.
  await page.goto(`${env.server.url}/learn?lesson=salta-steps`);
  await page.locator('.task-text').waitFor();
  assert.equal(await page.locator('.learn-page .player-bar').count(), 0);
  noErrors(page);
});

test('Focus lessons: a sweep and a drop, and the page in Russian', async () => {
  const page = await openPage(env.browser, { lang: 'ru' });
  await page.goto(`${env.server.url}/learn?lesson=focus-sweep`);
  await page.locator('.task-card h1', { hasText: 'Сметание' }).waitFor();
  await clickSquare(page, 'c3');
  // The stack of three offers its groups, labelled by size.
  assert.ok((await destinations(page)).includes('f3'));
  await clickSquare(page, 'f3');
  assert.match(await feedback(page, 'solved'), /Отлично/);

  await page.goto(`${env.server.url}/learn?lesson=focus-drops`);
  await page.locator('.task-text', { hasText: 'из запаса' }).waitFor();
  // A drop on an empty square is legal but not the task.
  await page.locator('[data-action="drop"]').click();
  assert.ok((await destinations(page)).length > 10);
  await clickSquare(page, 'e6');
  assert.match(await feedback(page, 'missed'), /завладеть стопкой на d5/);
  await page.locator('[data-action="again"]').click();
  await page.locator('[data-action="drop"]').click();
  await clickSquare(page, 'd5');
  await feedback(page, 'solved');
  assert.deepEqual((await englishWords(page)).words, []);
  await screenshot(page, 'learn-focus-drops-ru');

  // The end: the drop that leaves Black nothing to move wins, made with the keyboard (R, the cursor, Enter).
  await page.goto(`${env.server.url}/learn?lesson=focus-end`);
  const board = page.locator('.board-wrap svg.board');
  await board.focus();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('r');
  await page.locator('button.reserve.selected[data-reserve="white"]').waitFor();
  assert.match(await page.locator('.board-wrap .board-live').innerText(), /^Выбран резерв \(шашек в нём: 1\)/);
  const at = await page.locator('.board-wrap .cursor').getAttribute('data-square');
  for (const key of arrowsBetween(at, 'd7')) await page.keyboard.press(key);
  assert.equal(await page.locator('.board-wrap .board-live').innerText(), 'd7: сюда можно выставить шашку (клавиша ввода)');
  await page.keyboard.press('Enter');
  await feedback(page, 'solved');
  assert.deepEqual((await englishWords(page)).words, []);
  // The last lesson leads back to playing.
  await page.locator('.task-actions button.primary', { hasText: 'Играть' }).waitFor();
  noErrors(page);
});
