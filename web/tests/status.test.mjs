// The game page's status and result: what the banner, the lists and the
// status line say as a game goes on and ends.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, api, friendGame, holdSeats, newGame, clickSquare, waitForPly } from './helpers.mjs';

const env = serverAndBrowser();

test('a drawn game reads ½-½ on its banner and in the list of my games', async () => {
  const { id, white, black } = await friendGame(env.server.url);
  assert.equal((await api(env.server.url, 'POST', `/api/games/${id}/draw`, { action: 'offer' }, white)).status, 200);
  assert.equal((await api(env.server.url, 'POST', `/api/games/${id}/draw`, { action: 'accept' }, black)).status, 200);
  const page = await openPage(env.browser);
  await holdSeats(page, id, { white });
  await page.goto(`${env.server.url}/game/${id}`);
  await page.locator('.banner .result-score').waitFor();
  assert.equal(await page.locator('.banner .result-score').innerText(), '½-½');
  await page.goto(env.server.url);
  await page.locator(`.my-games li[data-id="${id}"] .meta`, { hasText: '½-½' }).waitFor();
  noErrors(page);
});

test('looking at an earlier move, the status still tells whose move it is in the game', async () => {
  const page = await openPage(env.browser);
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white' });
  await clickSquare(page, 'e3');
  await clickSquare(page, 'f4');
  await waitForPly(page, 2);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  await page.locator('.moves .mv[data-ply="1"]').click();
  await page.locator('.notice.history-note').waitFor();
  assert.equal(await page.locator('.status').innerText(), 'Your move');
  assert.equal(await page.title(), '● Your move · Salta — Monte');
  // Nothing can be moved from an earlier position.
  await clickSquare(page, 'c3');
  assert.equal(await page.locator('rect.sq.selected').count(), 0);
  await page.keyboard.press('End');
  await page.locator('.notice.history-note').waitFor({ state: 'detached' });
  assert.equal(await page.locator('.status').innerText(), 'Your move');
  noErrors(page);
});

test('a move on its way: the status stops saying "Your move" at once, and clicks meanwhile say why nothing happens', async () => {
  const page = await openPage(env.browser);
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white' });
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  // The move's request is held until the test lets it go.
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route('**/api/games/*/moves', async (route) => {
    await held;
    await route.continue();
  });
  await clickSquare(page, 'e3');
  await clickSquare(page, 'f4');
  await page.locator('.status', { hasText: 'Move sent, waiting for the server' }).waitFor();
  assert.equal(await page.locator('.status').getAttribute('class'), 'status', await page.locator('.status').innerText());
  assert.ok(!(await page.title()).startsWith('●'), await page.title());
  await clickSquare(page, 'c3');
  await page.locator('#toast .toast', { hasText: 'Move sent, waiting for the server' }).waitFor();
  assert.equal(await page.locator('rect.sq.selected[data-square="c3"]').count(), 0);
  release();
  await waitForPly(page, 2);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  noErrors(page);
});

test("while the opponent is to move, a click on the board says it is not your turn", async () => {
  const { id, white } = await friendGame(env.server.url);
  const page = await openPage(env.browser);
  await holdSeats(page, id, { white });
  await page.goto(`${env.server.url}/game/${id}`);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  await clickSquare(page, 'e3');
  await clickSquare(page, 'f4');
  await waitForPly(page, 1);
  await page.locator('.status', { hasText: 'Black to move' }).waitFor();
  await clickSquare(page, 'c3');
  await page.locator('#toast .toast.error', { hasText: 'It is not your turn' }).waitFor();
  assert.equal(await page.locator('rect.sq.selected').count(), 0);
  noErrors(page);
});

test("a refused move is told in the page's language, naming the move once", async () => {
  const page = await openPage(env.browser, { lang: 'ru' });
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white' });
  await page.locator('.status', { hasText: 'Ваш ход' }).waitFor();
  await page.locator('.entry-input').fill('c3-c9');
  await page.keyboard.press('Enter');
  const toast = page.locator('#toast .toast.error').first();
  await toast.waitFor();
  assert.equal(await toast.innerText(), 'Ход отклонён: c3-c9 — здесь такой ход невозможен');
  noErrors(page);
});
