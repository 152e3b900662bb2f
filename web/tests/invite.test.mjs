// Online: two browser contexts play each other through the invite link
// while a third watches live; a draw offer is declined; a resignation ends it.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, clickSquare, history, waitForPly, newGame } from './helpers.mjs';

const env = serverAndBrowser();

test('two players through the invite link, a spectator watching live', async () => {
  const ann = await openPage(env.browser);
  const boris = await openPage(env.browser, { phone: true });
  const carla = await openPage(env.browser);

  const id = await newGame(ann, env.server.url, { game: 'salta', opponent: 'friend', side: 'white', name: 'Ann', clock: 3 });
  await ann.locator('.status', { hasText: 'Waiting for your opponent' }).waitFor();
  const link = await ann.locator('input.invite-url').inputValue();
  assert.match(link, /\/invite\/[A-Za-z0-9]+$/);

  // Boris opens the link, sees who invites him, and takes the seat.
  await boris.goto(link);
  await boris.locator('.invite-page', { hasText: 'Ann invites you' }).waitFor();
  await screenshot(boris, 'invite-phone');
  await boris.locator('input[type="text"]').fill('Boris');
  await boris.locator('[data-action="join"]').click();
  await boris.waitForURL(new RegExp(`/game/${id}$`));
  // Black sits at the bottom of his board.
  assert.equal(await boris.locator('.player-bar').last().getAttribute('data-side'), 'black');
  await boris.locator('.player-bar[data-side="white"] .name', { hasText: 'Ann' }).waitFor();

  // Ann's page hears at once that the game started.
  await ann.locator('.status', { hasText: 'Your move' }).waitFor();
  await ann.locator('.player-bar[data-side="black"] .name', { hasText: 'Boris' }).waitFor();
  // No clock runs before a side's first move; the first move is due.
  assert.equal(await ann.locator('.clock.running').count(), 0);
  await ann.locator('.notice.first-move').waitFor();

  // Carla finds the game among the live games and watches.
  await carla.goto(`${env.server.url}/live`);
  // The live list shows the game's board as it stands.
  await carla.locator(`.game-list li[data-id="${id}"] .game-thumb svg.board-salta`).waitFor();
  assert.equal(await carla.locator(`.game-list li[data-id="${id}"] .game-thumb g.at`).count(), 30);
  await screenshot(carla, 'live-page');
  await carla.locator(`.game-list li[data-id="${id}"] a.button`).click();
  await carla.waitForURL(new RegExp(`/game/${id}$`));
  await carla.locator('.connection.live').waitFor();
  await carla.locator('.notice.watching').waitFor();

  await clickSquare(ann, 'e3');
  await clickSquare(ann, 'f4');
  for (const page of [ann, boris, carla]) await waitForPly(page, 1);
  await boris.locator('.status', { hasText: 'Your move' }).waitFor();
  await clickSquare(boris, 'd8');
  await clickSquare(boris, 'e7');
  for (const page of [ann, boris, carla]) await waitForPly(page, 2);
  // Both have moved: White's clock runs.
  await ann.locator('.clock[data-clock="white"].running').waitFor();
  assert.equal(await ann.locator('.notice.first-move').count(), 0);
  assert.deepEqual(await history(carla), ['e3-f4', 'd8-e7']);

  // The spectator cannot move: nothing selects, no entry box.
  await clickSquare(carla, 'c3');
  assert.equal(await carla.locator('rect.sq.selected').count(), 0);
  assert.equal(await carla.locator('form.entry').isVisible(), false);
  await screenshot(boris, 'salta-phone-black', '.game-page');
  await screenshot(carla, 'salta-spectator', '.game-page');

  // A draw offer, declined.
  await boris.locator('[data-action="draw"]').click();
  await ann.locator('.notice.draw-offer').waitFor();
  await ann.locator('.notice.draw-offer button', { hasText: 'Decline' }).click();
  await boris.locator('[data-action="draw"]').waitFor();
  // Boris is told that Ann declined; Ann and Carla are not.
  await boris.locator('.notice.draw-declined', { hasText: 'Your opponent declined your draw offer.' }).waitFor();
  await boris.locator('#toast .toast', { hasText: 'declined your draw offer' }).waitFor();
  assert.equal(await ann.locator('.notice.draw-declined').count(), 0);
  assert.equal(await carla.locator('.notice.draw-declined').count(), 0);

  // Ann resigns: everyone sees the result.
  await ann.locator('[data-action="resign"]').click();
  await ann.locator('[data-action="resign-confirm"]').click();
  await boris.locator('.banner', { hasText: 'You win!' }).waitFor();
  await ann.locator('.banner', { hasText: 'You lose' }).waitFor();
  await carla.locator('.banner', { hasText: 'Black wins' }).waitFor();
  await carla.locator('.banner', { hasText: 'by resignation' }).waitFor();
  // The players may ask for a rematch; the spectator may not.
  await boris.locator('.banner [data-action="rematch"]').waitFor();
  assert.equal(await carla.locator('[data-action="rematch"]').count(), 0);
  // Ann offers a rematch: Boris sees the offer and accepts; both go to
  // the new game, Ann now Black.
  await ann.locator('.banner [data-action="rematch"]').click();
  await ann.locator('.banner [data-action="rematch-offered"]').waitFor();
  await boris.locator('.banner [data-action="rematch"]', { hasText: 'Accept the rematch' }).click();
  for (const page of [ann, boris]) {
    await page.waitForURL((url) => /\/game\/[a-z0-9]+$/.test(url.pathname) && !url.pathname.endsWith(id));
  }
  assert.equal(ann.url(), boris.url());
  assert.equal(await ann.locator('.player-bar').last().getAttribute('data-side'), 'black');
  await ann.locator('.player-bar[data-side="black"] .name', { hasText: 'Ann' }).waitFor();
  await boris.locator('.status', { hasText: 'Your move' }).waitFor();
  await clickSquare(boris, 'e3');
  await clickSquare(boris, 'f4');
  await waitForPly(ann, 1);
  for (const page of [ann, boris, carla]) noErrors(page);
});

test('a game open to anyone: listed on the live page and joined from there', async () => {
  const ann = await openPage(env.browser);
  const dora = await openPage(env.browser);
  const id = await newGame(ann, env.server.url, { game: 'focus', opponent: 'anyone', side: 'white', name: 'Ann' });
  await ann.locator('.status', { hasText: 'Waiting for your opponent' }).waitFor();
  // Dora finds it among the open games and takes the seat.
  await dora.goto(`${env.server.url}/live`);
  await dora.locator(`.game-list li[data-id="${id}"] a.button`, { hasText: 'Join' }).click();
  await dora.waitForURL(new RegExp(`/join/${id}$`));
  await dora.locator('.invite-page', { hasText: 'Ann invites you' }).waitFor();
  await dora.locator('[data-action="join"]').click();
  await dora.waitForURL(new RegExp(`/game/${id}$`));
  await ann.locator('.status', { hasText: 'Your move' }).waitFor();
  // Taken: no longer listed.
  const open = await (await fetch(`${env.server.url}/api/games/open`)).json();
  assert.equal(open.games.filter((g) => g.id === id).length, 0);
  for (const page of [ann, dora]) noErrors(page);
});
