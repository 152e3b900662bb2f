// The start page's own clock (minutes and increment), a bad one refused with
// a clear message; a rematch against the computer with the colours swapped.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, waitForPly } from './helpers.mjs';

const env = serverAndBrowser();

async function fillStart(page, { minutes, increment }) {
  await page.goto(env.server.url);
  await page.locator('.game-card[data-game="salta"]').click();
  await page.locator('input[name="opponent"][value="ai"]').check();
  await page.locator('select[name="level"]').selectOption('1');
  await page.locator('input[name="side"][value="white"]').check();
  await page.locator('select[name="clock"]').selectOption('custom');
  await page.locator('input[name="clockMinutes"]').fill(minutes);
  await page.locator('input[name="clockIncrement"]').fill(increment);
}

test('a clock of my own: a bad one is refused and nothing is created; 7 min + 4 s is played', async () => {
  const page = await openPage(env.browser);
  const created = [];
  page.on('request', (r) => r.method() === 'POST' && r.url().endsWith('/api/games') && created.push(r.url()));
  await fillStart(page, { minutes: '2000', increment: '4' });
  await page.locator('form.new-game button[type="submit"]').click();
  await page.locator('.toast.error', { hasText: 'minutes must be a number from 0 to 1440' }).waitFor();
  await fillStart(page, { minutes: '0', increment: '0' });
  await page.locator('form.new-game button[type="submit"]').click();
  await page.locator('.toast.error', { hasText: 'at least one second' }).waitFor();
  assert.deepEqual(created, []);
  assert.equal(new URL(page.url()).pathname, '/');

  // The choice is remembered: the form shows it again.
  await fillStart(page, { minutes: '7', increment: '4' });
  await page.reload();
  assert.equal(await page.locator('select[name="clock"]').inputValue(), 'custom');
  assert.equal(await page.locator('input[name="clockMinutes"]').inputValue(), '7');
  assert.equal(await page.locator('input[name="clockIncrement"]').inputValue(), '4');
  await screenshot(page, 'start-custom-clock', 'form.new-game');
  await page.locator('form.new-game button[type="submit"]').click();
  await page.waitForURL(/\/game\/[a-z0-9]+$/);
  const id = page.url().split('/').pop();
  await page.locator('[data-clock="white"]', { hasText: '7:00' }).waitFor();
  await page.locator('[data-clock="black"]', { hasText: '7:00' }).waitFor();
  const game = await (await fetch(`${env.server.url}/api/games/${id}`)).json();
  assert.equal(game.game.clock.initial_ms, 7 * 60000);
  assert.equal(game.game.clock.increment_ms, 4000);
  assert.equal(created.length, 1);
  noErrors(page);
});

test('a rematch against the computer: same level, rule set and clock, colours swapped', async () => {
  const page = await openPage(env.browser);
  await fillStart(page, { minutes: '3', increment: '2' });
  await page.locator('select[name="rules"]').selectOption('meyer1908');
  await page.locator('form.new-game button[type="submit"]').click();
  await page.waitForURL(/\/game\/[a-z0-9]+$/);
  const first = page.url().split('/').pop();
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  // No rematch while the game goes on.
  assert.equal(await page.locator('[data-action="rematch"]').count(), 0);
  await page.locator('[data-action="resign"]').click();
  await page.locator('[data-action="resign-confirm"]').click();
  await page.locator('.banner', { hasText: 'You lose' }).waitFor();
  await screenshot(page, 'salta-result', '.board-col');
  await page.locator('.banner [data-action="rematch"]').click();
  await page.waitForURL((url) => /\/game\/[a-z0-9]+$/.test(url.pathname) && !url.pathname.endsWith(first));
  const second = page.url().split('/').pop();
  // I am Black now, at the bottom; the computer (the same level) opens.
  await page.locator('.player-bar[data-side="black"] .tag').waitFor();
  assert.equal(await page.locator('.player-bar').last().getAttribute('data-side'), 'black');
  await waitForPly(page, 1);
  await page.locator('.status', { hasText: 'Your move' }).waitFor();
  const game = (await (await fetch(`${env.server.url}/api/games/${second}`)).json()).game;
  assert.equal(game.seats.white.player, 'ai');
  assert.equal(game.seats.white.level, 1);
  assert.equal(game.seats.black.player, 'human');
  assert.equal(game.rules, 'meyer1908');
  assert.equal(game.clock.initial_ms, 3 * 60000);
  assert.equal(game.clock.increment_ms, 2000);
  // The old game is still there, over.
  const old = (await (await fetch(`${env.server.url}/api/games/${first}`)).json()).game;
  assert.equal(old.status, 'over');
  noErrors(page);
});
