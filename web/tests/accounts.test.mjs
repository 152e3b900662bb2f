// Accounts: a guest signs up and keeps the game played in that browser;
// two signed-in players play a rated game between two browsers; both
// ratings change on their profiles (with the chart) and the leaderboard;
// signing out; a wrong password said in Russian.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, clickSquare, waitForPly, newGame } from './helpers.mjs';

const env = serverAndBrowser();

/** Signs up from the header's *Sign in* link; resolves on the player's profile. */
async function signUp(page, url, name) {
  await page.goto(url);
  await page.locator('.account [data-action="sign-in"]').click();
  await page.waitForURL(/\/signin$/);
  await page.locator('[data-action="switch"]').click();
  await page.locator('input[name="name"]').fill(name);
  await page.locator('input[name="password"]').fill('correct horse');
  await page.locator('form.sign-in button[type="submit"]').click();
  await page.waitForURL(new RegExp(`/player/${name}$`));
  await page.locator('.account [data-me]', { hasText: name }).waitFor();
}

test('sign up, a rated game between two browsers, profiles and the leaderboard', async () => {
  const ann = await openPage(env.browser);
  const boris = await openPage(env.browser, { phone: true });

  // Ann plays the computer as a guest, then signs up: the game is hers.
  const guestGame = await newGame(ann, env.server.url, { game: 'focus', opponent: 'ai', level: 1, side: 'white' });
  await signUp(ann, env.server.url, 'Ann');
  await ann.locator(`.game-list li[data-id="${guestGame}"]`).waitFor();
  await signUp(boris, env.server.url, 'Boris');

  // Ann starts a rated game with a clock for a friend.
  await ann.goto(env.server.url);
  await ann.locator('.game-card[data-game="salta"]').click();
  await ann.locator('input[name="opponent"][value="friend"]').check();
  await ann.locator('input[name="side"][value="white"]').check();
  await ann.locator('select[name="clock"]').selectOption('1');
  await ann.locator('input[name="rated"]').check();
  await ann.locator('form.new-game button[type="submit"]').click();
  await ann.waitForURL(/\/game\/[a-z0-9]+$/);
  const id = ann.url().split('/').pop();
  const link = await ann.locator('input.invite-url').inputValue();

  // Boris takes the seat on his phone.
  await boris.goto(link);
  await boris.locator('[data-action="join"]').click();
  await boris.waitForURL(new RegExp(`/game/${id}$`));
  await ann.locator('.player-bar[data-side="black"] .name', { hasText: 'Boris' }).waitFor();
  const game = await (await fetch(`${env.server.url}/api/games/${id}`)).json();
  assert.equal(game.game.rated, true);

  // A move each, then Ann resigns.
  await ann.locator('.status', { hasText: 'Your move' }).waitFor();
  await clickSquare(ann, 'e3');
  await clickSquare(ann, 'f4');
  await waitForPly(boris, 1);
  await clickSquare(boris, 'd8');
  await clickSquare(boris, 'e7');
  await waitForPly(ann, 2);
  await ann.locator('[data-action="resign"]').click();
  await ann.locator('[data-action="resign-confirm"]').click();
  await boris.locator('.banner', { hasText: 'You win!' }).waitFor();

  // Both ratings changed: each profile shows its rating and its chart.
  for (const [page, name, rating] of [[ann, 'Ann', '1338'], [boris, 'Boris', '1662']]) {
    await page.locator(`.account [data-me="${name}"]`).click();
    await page.waitForURL(new RegExp(`/player/${name}$`));
    const salta = page.locator('.rating-card[data-game="salta"]');
    await salta.locator('.rating b', { hasText: `${rating}?` }).waitFor();
    assert.equal(await salta.locator('svg.rating-chart circle').count(), 2);
    await page.locator(`.game-list li[data-id="${id}"] .rated-mark`).waitFor();
    const record = await page.locator(`.game-list li[data-id="${id}"] a[download]`).getAttribute('href');
    const text = await (await fetch(`${env.server.url}${record}`)).text();
    assert.match(text, /\[WhiteElo "1500"\]/);
  }
  await screenshot(boris, 'profile-phone');

  // The leaderboard: Boris first.
  await ann.locator('a[data-nav="players"]').click();
  await ann.waitForURL(/\/leaderboard$/);
  const rows = ann.locator('section[data-game="salta"] tbody tr');
  await rows.first().waitFor();
  assert.deepEqual(await rows.evaluateAll((trs) => trs.map((tr) => tr.dataset.name)), ['Boris', 'Ann']);
  await screenshot(ann, 'leaderboard');

  // Signed out, then a wrong password, said in Russian.
  await ann.locator('.account [data-action="sign-out"]').click();
  await ann.locator('.account [data-action="sign-in"]').waitFor();
  await ann.locator('[data-lang="ru"]').click();
  await ann.locator('.account [data-action="sign-in"]', { hasText: 'Войти' }).click();
  await ann.locator('input[name="name"]').fill('Ann');
  await ann.locator('input[name="password"]').fill('wrong horse');
  await ann.locator('form.sign-in button[type="submit"]').click();
  await ann.locator('#toast .toast', { hasText: 'неверное имя или пароль' }).waitFor();
  for (const page of [ann, boris]) noErrors(page);
});

test('the lobby: a seek seen live by everyone, accepted, the game started for both', async () => {
  const cleo = await openPage(env.browser);
  const dan = await openPage(env.browser, { phone: true });
  await signUp(cleo, env.server.url, 'Cleo');
  await dan.goto(env.server.url);
  await dan.locator('section.lobby', { hasText: 'Nobody is looking for an opponent' }).waitFor();

  // Cleo seeks a rated Salta game with a clock: Dan, a guest, sees it at once.
  await cleo.goto(env.server.url);
  await cleo.locator('.game-card[data-game="salta"]').click();
  await cleo.locator('input[name="opponent"][value="anyone"]').check();
  await cleo.locator('select[name="clock"]').selectOption('2');
  await cleo.locator('input[name="rated"]').check();
  await cleo.locator('section.lobby [data-action="seek"]').click();
  await cleo.locator('section.lobby li', { hasText: 'your seek' }).waitFor();
  const seek = dan.locator('section.lobby li', { hasText: 'Cleo (1500)' });
  await seek.waitFor();
  assert.match(await seek.innerText(), /5\+3 · rated/);
  await screenshot(dan, 'lobby-phone');

  // A rated seek is for the signed-in: Dan is told so; he signs up and plays.
  await seek.locator('[data-action="accept"]').click();
  await dan.locator('#toast .toast', { hasText: 'Could not start the game' }).waitFor();
  await signUp(dan, env.server.url, 'Dan');
  await dan.goto(env.server.url);
  await dan.locator('section.lobby li', { hasText: 'Cleo (1500)' }).locator('[data-action="accept"]').click();
  await dan.waitForURL(/\/game\/[a-z0-9]+$/);
  await cleo.waitForURL(dan.url());
  for (const page of [cleo, dan]) await page.locator('.board-wrap svg.board').waitFor();
  const names = await cleo.locator('.player-bar .name').allInnerTexts();
  assert.deepEqual([...names].sort(), ['Cleo', 'Dan']);
  // Whoever is White moves; the other sees it.
  const white = (await cleo.locator('.player-bar[data-side="white"] .name').innerText()) === 'Cleo' ? cleo : dan;
  const black = white === cleo ? dan : cleo;
  await white.locator('.status', { hasText: 'Your move' }).waitFor();
  await clickSquare(white, 'e3');
  await clickSquare(white, 'f4');
  await waitForPly(black, 1);

  // A seek goes with its page.
  const eve = await openPage(env.browser);
  await eve.goto(env.server.url);
  await eve.locator('section.lobby [data-action="seek"]').click();
  await eve.locator('section.lobby li', { hasText: 'your seek' }).waitFor();
  await cleo.goto(env.server.url);
  await cleo.locator('section.lobby li').first().waitFor();
  await eve.goto(`${env.server.url}/rules`);
  await cleo.locator('section.lobby', { hasText: 'Nobody is looking for an opponent' }).waitFor();
  for (const page of [cleo, dan, eve]) noErrors(page);
});
