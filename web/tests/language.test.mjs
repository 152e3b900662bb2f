// English and Russian: every text switches, the choice is remembered; the
// rules page with its diagrams; the start page on a phone.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, newGame, englishWords, clickSquare, waitForPly } from './helpers.mjs';

const env = serverAndBrowser();

test('the language switch: Russian everywhere, remembered across reloads', async () => {
  const page = await openPage(env.browser);
  await page.goto(env.server.url);
  await page.locator('h2', { hasText: 'New game' }).waitFor();
  await page.locator('[data-lang="ru"]').click();
  await page.locator('h2', { hasText: 'Новая партия' }).waitFor();
  assert.equal(await page.locator('nav a[data-nav="rules"]').innerText(), 'Правила');
  assert.equal(await page.locator('html').getAttribute('lang'), 'ru');
  await page.reload();
  await page.locator('h2', { hasText: 'Новая партия' }).waitFor();

  // A game page in Russian, switched back and forth in place.
  await newGame(page, env.server.url, { game: 'focus', opponent: 'local' });
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
  const page = await openPage(env.browser, { phone: true, lang: 'ru-RU' });
  await page.goto(env.server.url);
  // A first visit follows the browser's language.
  await page.locator('h2', { hasText: 'Новая партия' }).waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width}px wide on a 390px screen`);
  await screenshot(page, 'start-phone');
  noErrors(page);
});

test('in Russian no English is left on the start page and the game page', async () => {
  const page = await openPage(env.browser);
  await page.goto(env.server.url);
  await page.locator('[data-lang="ru"]').click();
  await page.locator('h2', { hasText: 'Новая партия' }).waitFor();
  const check = async (where) => {
    const { texts, words } = await englishWords(page);
    assert.ok(texts > 20, `${where}: only ${texts} texts found`);
    assert.deepEqual(words, [], `${where}: English left`);
  };
  // The start page with every part of the form shown in turn.
  await page.locator('details.advanced summary').click();
  await page.locator('select[name="clock"]').selectOption('custom');
  await page.locator('input[name="clockMinutes"]').waitFor();
  for (const opponent of ['ai', 'friend', 'anyone', 'local']) {
    await page.locator(`input[name="opponent"][value="${opponent}"]`).check();
    await check(`the start page (${opponent})`);
  }
  await page.locator('.game-card[data-game="focus"]').click();
  await check('the start page (Focus)');

  // A game against the computer, with a clock: a move, the AI's answer, a selection.
  await newGame(page, env.server.url, { game: 'salta', opponent: 'ai', level: 1, side: 'white', clock: 1 });
  await page.locator('.status', { hasText: 'Ваш ход' }).waitFor();
  await clickSquare(page, 'e3');
  await clickSquare(page, 'f4');
  await waitForPly(page, 2);
  await page.locator('.status', { hasText: 'Ваш ход' }).waitFor();
  await clickSquare(page, 'g3');
  await check('the game page');
  // Stepping back through the moves, then the end of the game.
  await page.locator('.moves .mv[data-ply="1"]').click();
  await page.locator('.history-note').waitFor();
  await check('the game page (an earlier move)');
  await page.locator('.history-note button').click();
  await page.locator('[data-action="resign"]').click();
  await page.locator('[data-action="resign-confirm"]').click();
  await page.locator('.banner', { hasText: 'Вы проиграли' }).waitFor();
  await check('the game page (the result)');
  await screenshot(page, 'salta-result-russian', '.game-page');

  // A game waiting for a friend: the invite link.
  await newGame(page, env.server.url, { game: 'focus', opponent: 'friend', side: 'white' });
  await page.locator('.notice.invite').waitFor();
  await check('the game page (an invitation)');
  noErrors(page);
});
