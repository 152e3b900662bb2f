// A reload restores the game with its seat (the token is kept by the
// browser), and a dropped connection comes back by itself when the server
// returns.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, clickSquare, history, waitForPly, newGame } from './helpers.mjs';

const env = serverAndBrowser();

test('reload restores the game and the seat; the page reconnects after a server restart', async () => {
  const page = await openPage(env.browser);
  const id = await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white' });
  await clickSquare(page, 'c3');
  await clickSquare(page, 'd4');
  await waitForPly(page, 2);
  const before = await history(page);

  await page.reload();
  await page.locator('.board-wrap svg.board').waitFor();
  assert.equal(new URL(page.url()).pathname, `/game/${id}`);
  await waitForPly(page, 2);
  assert.deepEqual(await history(page), before);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  await page.locator('.player-bar[data-side="white"] .tag', { hasText: 'you' }).waitFor();
  // The start page lists it among my games.
  await page.locator('a.brand').click();
  await page.locator(`.my-games li[data-id="${id}"]`).waitFor();
  await page.locator(`.my-games li[data-id="${id}"] a`).click();
  await page.locator('.status', { hasText: 'Your move' }).waitFor();

  // The server goes away and comes back on the same port and database.
  await page.locator('.connection.live').waitFor();
  await env.server.restart();
  await page.locator('.connection.down').waitFor({ timeout: 10000 }).catch(() => {});
  await page.locator('.connection.live').waitFor({ timeout: 15000 });
  await clickSquare(page, 'e3');
  await clickSquare(page, 'f4');
  // The AI's reply arrives over the new connection.
  await waitForPly(page, 4);
  assert.equal((await history(page))[2], 'e3-f4');
  noErrors(page);
});
