// Against the AI: moves by clicking, the AI answers; an illegal click
// changes nothing; keyboard entry; take-back; "AI is thinking".

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, clickSquare, history, waitForPly, destinations, newGame, recordAnimations, animatedSquares } from './helpers.mjs';

const env = serverAndBrowser();

const lastSquare = (move) => move.replace(/\+$/, '').split(/[-:x@]/).pop();

test('Salta against the AI: click a piece, its destinations light up, click one; the AI answers', async () => {
  const page = await openPage(env.browser);
  await recordAnimations(page);
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white' });
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  await screenshot(page, 'salta-start', '.board-col');

  await clickSquare(page, 'e3');
  assert.deepEqual(await destinations(page), ['d4', 'f4']);
  await page.locator('rect.sq.selected[data-square="e3"]').waitFor();
  await clickSquare(page, 'f4');
  await waitForPly(page, 2);
  const moves = await history(page);
  assert.equal(moves[0], 'e3-f4');
  assert.match(moves[1], /^[a-j]\d+[-:][a-j]\d+/);
  // The AI's move is the last move, highlighted.
  assert.equal(await page.locator('rect.sq.last').count(), 2);
  // Both moves slid into place.
  assert.deepEqual(await animatedSquares(page), ['f4', lastSquare(moves[1])]);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  // The tab's title tells a player in another tab that it is his move.
  assert.equal(await page.title(), '● Your move · Salta — Monte');
  await screenshot(page, 'salta-after-ai', '.board-col');
  noErrors(page);
});

test('an illegal click changes nothing', async () => {
  const page = await openPage(env.browser);
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white' });
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  const requests = [];
  page.on('request', (r) => r.method() === 'POST' && requests.push(r.url()));
  const board = async () => page.locator('.board-wrap .layer-pieces').innerHTML();
  const before = await board();
  // A Black piece, an empty square nothing can reach, a White piece that cannot move.
  for (const sq of ['h8', 'e5', 'a1']) {
    await clickSquare(page, sq);
    assert.equal(await page.locator('rect.sq.selected').count(), 0, sq);
    assert.deepEqual(await destinations(page), [], sq);
  }
  // A piece, then a square it cannot reach: deselected, no move sent.
  await clickSquare(page, 'c3');
  assert.deepEqual(await destinations(page), ['b4', 'd4']);
  await clickSquare(page, 'c5');
  assert.deepEqual(await destinations(page), []);
  // Dragging a piece to a square it cannot reach.
  const from = await page.locator('.board-wrap rect[data-square="g3"]').boundingBox();
  const to = await page.locator('.board-wrap rect[data-square="g7"]').boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 6 });
  await page.mouse.up();
  assert.equal(await board(), before);
  assert.deepEqual(requests, []);
  assert.deepEqual(await history(page), []);
  noErrors(page);
});

test('Focus against the AI: a move by dragging, one typed in notation, and a take-back', async () => {
  const page = await openPage(env.browser);
  await recordAnimations(page);
  await newGame(page, env.server.url, { game: 'focus', opponent: 'ai', level: 1, side: 'white' });
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  // Drag the single piece on b6 to a6.
  const from = await page.locator('.board-wrap rect[data-square="b6"]').boundingBox();
  const to = await page.locator('.board-wrap rect[data-square="a6"]').boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 8 });
  // While dragged, the piece follows the pointer and its destinations show.
  await page.locator('.board-wrap .layer-drag g.ghost').waitFor();
  assert.ok((await destinations(page)).includes('a6'));
  await page.mouse.up();
  await waitForPly(page, 2);
  assert.equal((await history(page))[0], 'b6-a6');
  // The dragged piece is not slid again; the AI's answer is.
  assert.deepEqual(await animatedSquares(page), [lastSquare((await history(page))[1])]);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();

  // A typed move the rules refuse: the server's reason is shown, nothing changes.
  await page.locator('.entry-input').fill('c2-c9');
  await page.keyboard.press('Enter');
  await page.locator('.toast.error').first().waitFor();
  assert.equal((await history(page)).length, 2);
  // A legal one, from the list the entry box suggests (the server's legal moves).
  const typed = await page.locator('#legal-list option').first().getAttribute('value');
  await page.locator('.entry-input').fill(typed);
  await page.keyboard.press('Enter');
  await waitForPly(page, 4);
  assert.equal((await history(page))[2], typed);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  await screenshot(page, 'focus-vs-ai', '.game-page');

  // Take back: my move and the AI's reply.
  await page.locator('[data-action="takeback"]').click();
  await waitForPly(page, 2);
  assert.deepEqual((await history(page))[0], 'b6-a6');
  noErrors(page);
});

test('the AI is thinking: a sign while it searches', async () => {
  const page = await openPage(env.browser);
  // Level 7 thinks about 1.5 s for its first move as White.
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 7, side: 'black' });
  await page.locator('.player-bar .thinking').waitFor({ timeout: 5000 });
  await page.locator('.status', { hasText: 'AI is thinking' }).waitFor();
  // Black plays from the top: the board is flipped for the Black player.
  const bottom = await page.locator('.player-bar').last().getAttribute('data-side');
  assert.equal(bottom, 'black');
  await waitForPly(page, 1);
  await page.locator('.player-bar .thinking').waitFor({ state: 'detached' });
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  noErrors(page);
});
