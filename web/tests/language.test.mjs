// English and Russian: every text switches, the choice is remembered; the
// rules page with its diagrams; the start page on a phone.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, launchBrowser, openPage, noErrors, screenshot, newGame } from './helpers.mjs';

let server;
let browser;
before(async () => {
  server = await startServer();
  browser = await launchBrowser();
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

test('the language switch: Russian everywhere, remembered across reloads', async () => {
  const page = await openPage(browser);
  await page.goto(server.url);
  await page.locator('h2', { hasText: 'New game' }).waitFor();
  await page.locator('[data-lang="ru"]').click();
  await page.locator('h2', { hasText: 'Новая партия' }).waitFor();
  assert.equal(await page.locator('nav a[data-nav="rules"]').innerText(), 'Правила');
  assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
  await page.reload();
  await page.locator('h2', { hasText: 'Новая партия' }).waitFor();

  // A game page in Russian, switched back and forth in place.
  await newGame(page, server.url, { game: 'focus', opponent: 'local' });
  await page.locator('.status', { hasText: 'Ход белых' }).waitFor();
  await page.locator('.supply-label', { hasText: 'Резерв' }).first().waitFor();
  await screenshot(page, 'focus-russian', '.game-page');
  await page.locator('[data-lang="en"]').click();
  await page.locator('.status', { hasText: 'White to move' }).waitFor();
  await page.locator('.supply-label', { hasText: 'Reserve' }).first().waitFor();
  await page.locator('[data-lang="ru"]').click();

  // The rules in Russian, with diagrams of both boards.
  await page.locator('nav a[data-nav="rules"]').click();
  await page.locator('h1', { hasText: 'Правила' }).waitFor();
  await page.locator('#salta h2', { hasText: 'Сальта' }).waitFor();
  assert.ok((await page.locator('.diagram .board-salta').count()) >= 4);
  assert.ok((await page.locator('.diagram .board-focus').count()) >= 6);
  await screenshot(page, 'rules-russian');
  await page.locator('[data-lang="en"]').click();
  await page.locator('#focus h2', { hasText: 'Focus' }).waitFor();
  await screenshot(page, 'rules-english');
  noErrors(page);
});

test('the start page on a phone', async () => {
  const page = await openPage(browser, { phone: true, lang: 'ru-RU' });
  await page.goto(server.url);
  // A first visit follows the browser's language.
  await page.locator('h2', { hasText: 'Новая партия' }).waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width}px wide on a 390px screen`);
  await screenshot(page, 'start-phone');
  noErrors(page);
});
