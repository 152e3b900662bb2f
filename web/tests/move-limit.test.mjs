// Salta's move limit on the start form, and each side's distance home in
// the player bars (the server's `standing`, from the rules crate).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, api, clickSquare, waitForPly, englishWords } from './helpers.mjs';

const env = serverAndBrowser();

test('a Salta game with a move limit of 60 moves a side shows both distances home', async () => {
  const page = await openPage(env.browser);
  await page.goto(env.server.url);
  await page.locator('.game-card[data-game="focus"]').click();
  assert.equal(await page.locator('select[name="moveLimit"]').count(), 0, 'Focus has no such option');
  await page.locator('.game-card[data-game="salta"]').click();
  const limit = page.locator('select[name="moveLimit"]');
  assert.deepEqual(await limit.locator('option').allInnerTexts(), ['Off', '60 moves a side', '120 moves a side']);
  await page.locator('.field .hint', { hasText: 'closer to their targets in total wins, by the difference' }).waitFor();
  await limit.selectOption('60');
  await page.locator('input[name="opponent"][value="local"]').check();
  await page.locator('form.new-game button[type="submit"]').click();
  await page.waitForURL(/\/game\/[a-z0-9]+$/);
  const id = page.url().split('/').pop();
  const game = (await api(env.server.url, 'GET', `/api/games/${id}`)).body.game;
  assert.equal(game.rules, 'seed,move-limit=60');
  await page.locator('.rules-name', { hasText: 'seed,move-limit=60' }).waitFor();

  const shown = async (side) => page.locator(`.player-bar .standing[data-standing="${side}"]`).innerText();
  assert.equal(await shown('white'), `distance home: ${-game.standing.white}`);
  assert.equal(await shown('black'), `distance home: ${-game.standing.black}`);
  await clickSquare(page, 'e3');
  await clickSquare(page, 'f4');
  await waitForPly(page, 1);
  const after = (await api(env.server.url, 'GET', `/api/games/${id}`)).body.game;
  assert.notEqual(after.standing.white, game.standing.white);
  await page.locator('.player-bar .standing[data-standing="white"]', { hasText: `distance home: ${-after.standing.white}` }).waitFor();

  // The choice is remembered, and the form speaks Russian.
  await page.goto(env.server.url);
  assert.equal(await page.locator('select[name="moveLimit"]').inputValue(), '60');
  await page.locator('[data-lang="ru"]').click();
  await page.locator('.field .hint', { hasText: 'ближе до своих целей' }).waitFor();
  assert.deepEqual((await englishWords(page)).words, []);
  noErrors(page);
});

test('without a move limit the game keeps the rule set as chosen', async () => {
  const page = await openPage(env.browser);
  await page.goto(env.server.url);
  await page.locator('.game-card[data-game="salta"]').click();
  await page.locator('select[name="moveLimit"]').selectOption('off');
  await page.locator('input[name="opponent"][value="local"]').check();
  await page.locator('form.new-game button[type="submit"]').click();
  await page.waitForURL(/\/game\/[a-z0-9]+$/);
  const id = page.url().split('/').pop();
  assert.equal((await api(env.server.url, 'GET', `/api/games/${id}`)).body.game.rules, 'seed');
  await page.locator('.player-bar .standing[data-standing="black"]').waitFor();
  noErrors(page);
});
