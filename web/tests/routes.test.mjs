// Addresses typed by hand: a trailing slash, and a path the site does not
// have, which gets the page's own "not found" in the reader's language.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, englishWords, friendGame } from './helpers.mjs';

const env = serverAndBrowser();

test('a page asked with a trailing slash is the page', async () => {
  const page = await openPage(env.browser);
  await page.goto(`${env.server.url}/rules/`);
  await page.locator('#salta h2', { hasText: 'Salta' }).waitFor();
  const { id } = await friendGame(env.server.url);
  await page.goto(`${env.server.url}/game/${id}/`);
  await page.locator('.board-wrap svg.board').waitFor();
  await page.locator('.status', { hasText: 'White to move' }).waitFor();
  noErrors(page);
});

test('an unknown path shows a translated not-found page, with status 404', async () => {
  const page = await openPage(env.browser);
  const answer = await page.goto(`${env.server.url}/nonsense`);
  assert.equal(answer.status(), 404);
  await page.locator('.missing h1', { hasText: 'Page not found' }).waitFor();
  await page.locator('.missing a[href="/"]').waitFor();
  await page.locator('[data-lang="ru"]').click();
  await page.locator('.missing h1', { hasText: 'Страница не найдена' }).waitFor();
  assert.deepEqual((await englishWords(page)).words, []);
  await page.goto(`${env.server.url}/some/deeper/nonsense/`);
  await page.locator('.missing h1', { hasText: 'Страница не найдена' }).waitFor();
  // The API's unknown paths stay JSON.
  const api = await page.goto(`${env.server.url}/api/nonsense`);
  assert.equal(api.status(), 404);
  assert.match(await api.text(), /^\{"error":/);
  noErrors(page);
});
