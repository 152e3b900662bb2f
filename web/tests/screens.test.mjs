// The main pages (start, a game of each kind, analysis, a lesson of each game) at
// 1280x800, 1366x768, 390x844 and 844x390 (the two last as touch phones),
// in English and Russian: a screenshot of each, kept as a CI artifact in
// target/web-screenshots/, and the layout checked box by box: no visible
// element reaches outside the screen sideways, the board and both player
// bars are wholly on the screen, and no two items of the top bar touch.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serverAndBrowser, openPage, noErrors, newGame, holdSeats, ROOT } from './helpers.mjs';

const env = serverAndBrowser();

const SCREENSHOTS = join(ROOT, 'target', 'web-screenshots');

const SIZES = [
  { width: 1280, height: 800, phone: false },
  { width: 1366, height: 768, phone: false },
  { width: 390, height: 844, phone: true },
  { width: 844, height: 390, phone: true },
];

/** What is wrong with the layout of the page shown, as a list of sentences. */
function layoutProblems(page, { game, width, height }) {
  return page.evaluate(([isGame, screenWidth, screenHeight]) => {
    // A phone's browser widens its layout to fit content that is too wide: the screen's own size is the measure.
    const innerWidth = screenWidth;
    const innerHeight = screenHeight;
    const problems = [];
    const box = (el) => el.getBoundingClientRect();
    const name = (el) => `${el.tagName.toLowerCase()}.${String(el.className.baseVal ?? el.className).trim().replace(/\s+/g, '.')}${el.dataset.nav ? `[${el.dataset.nav}]` : ''}`;
    const visible = (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
    // Inside a box that scrolls or clips sideways, an element may be wider than the screen.
    const clipped = (el) => {
      for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
        const o = getComputedStyle(p).overflowX;
        if (o !== 'visible') return true;
      }
      return false;
    };
    if (document.documentElement.scrollWidth > innerWidth) problems.push(`the page is ${document.documentElement.scrollWidth}px wide`);
    if (window.innerWidth > innerWidth) problems.push(`the layout is ${window.innerWidth}px wide`);
    for (const el of document.querySelectorAll('body *')) {
      if (el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
      if (el.closest('#toast, noscript, datalist, option')) continue;
      if (!visible(el) || clipped(el)) continue;
      const b = box(el);
      if (b.width === 0 && b.height === 0) continue;
      if (b.left < -0.5 || b.right > innerWidth + 0.5) problems.push(`${name(el)} spans ${Math.round(b.left)}..${Math.round(b.right)} of ${innerWidth}`);
    }
    if (isGame) {
      for (const el of document.querySelectorAll('.board-col svg.board, .board-col .player-bar')) {
        const b = box(el);
        if (b.top < -0.5 || b.bottom > innerHeight + 0.5 || b.left < -0.5 || b.right > innerWidth + 0.5) {
          problems.push(`${name(el)} at ${Math.round(b.left)},${Math.round(b.top)}..${Math.round(b.right)},${Math.round(b.bottom)} is not wholly on the ${innerWidth}x${innerHeight} screen`);
        }
      }
    }
    // The top bar's items: each link, button and the brand, none touching another.
    const items = [...document.querySelectorAll('.topbar .brand, .topbar nav a, .topbar .account a, .topbar .account button, .topbar .pref, .topbar .lang')].filter(visible);
    for (let i = 0; i < items.length; i++) {
      for (let j = i + 1; j < items.length; j++) {
        const a = box(items[i]);
        const b = box(items[j]);
        const gapX = Math.max(b.left - a.right, a.left - b.right);
        const gapY = Math.max(b.top - a.bottom, a.top - b.bottom);
        if (gapX < 2 && gapY < 2) problems.push(`${name(items[i])} touches ${name(items[j])} (${Math.round(gapX)}px apart)`);
      }
    }
    return problems;
  }, [Boolean(game), width, height]);
}

async function settle(page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
}

test('the main pages at four sizes in both languages: screenshots, and every box on the screen', async () => {
  mkdirSync(SCREENSHOTS, { recursive: true });
  // A game of each kind against the computer, with a clock and a long name: the fullest bars.
  const setup = await openPage(env.browser);
  const games = {};
  for (const game of ['salta', 'focus']) {
    games[game] = await newGame(setup, env.server.url, { game, opponent: 'ai', level: 1, side: 'white', clock: 3, name: 'Alexandra Konstantinopolskaya' });
    await setup.locator('.status', { hasText: 'Your move' }).waitFor();
  }
  const seats = await setup.evaluate(() => JSON.parse(localStorage.getItem('monte.seats')));
  await setup.context().close();

  const pages = [
    { name: 'start', path: '/', ready: 'form.new-game' },
    { name: 'game-salta', path: `/game/${games.salta}`, ready: '.board-wrap svg.board', game: true },
    { name: 'game-focus', path: `/game/${games.focus}`, ready: '.board-wrap svg.board', game: true },
    { name: 'analysis', path: '/analysis', ready: '.engine-line' },
    // The Focus analysis board has both sides' bars (reserve, captured) around the board and the evaluation bar.
    { name: 'analysis-focus', path: '/analysis?kind=focus', ready: '.analysis-page .player-bar .reserve', game: true },
    { name: 'learn', path: '/learn?lesson=salta-call', ready: '.task-text' },
    // A Focus lesson has both sides' bars (reserve, captured), which must fit as a game's do.
    { name: 'learn-focus', path: '/learn?lesson=focus-drops', ready: '.learn-page .player-bar .reserve', game: true },
  ];
  const failures = [];
  let shots = 0;
  for (const lang of ['en', 'ru']) {
    for (const size of SIZES) {
      const context = await env.browser.newContext({
        viewport: { width: size.width, height: size.height },
        locale: lang,
        ...(size.phone ? { deviceScaleFactor: 2, isMobile: true, hasTouch: true } : {}),
      });
      const page = await context.newPage();
      page.errors = [];
      page.on('pageerror', (e) => page.errors.push(e.message));
      for (const game of Object.values(games)) await holdSeats(page, game, seats[game]);
      for (const shown of pages) {
        await page.goto(`${env.server.url}${shown.path}`);
        await page.locator(shown.ready).first().waitFor();
        await settle(page);
        const label = `${shown.name} ${size.width}x${size.height} ${lang}`;
        for (const problem of await layoutProblems(page, { ...shown, ...size })) failures.push(`${label}: ${problem}`);
        await page.screenshot({ path: join(SCREENSHOTS, `${shown.name}-${size.width}x${size.height}-${lang}.png`), animations: 'disabled' });
        shots += 1;
      }
      noErrors(page);
      await context.close();
    }
  }
  assert.deepEqual(failures, []);
  assert.equal(shots, 2 * SIZES.length * pages.length);
});

test('the top bar on a 390 px phone in Russian: every item apart, one row of pages below', async () => {
  const page = await openPage(env.browser, { phone: true, lang: 'ru' });
  await page.goto(env.server.url);
  await page.locator('.topbar nav a[data-nav="rules"]', { hasText: 'Правила' }).waitFor();
  assert.deepEqual(await layoutProblems(page, { game: false, width: 390, height: 844 }), []);
  const rules = await page.locator('.topbar nav a[data-nav="rules"]').boundingBox();
  const signIn = await page.locator('.topbar .account a').first().boundingBox();
  assert.ok(rules.y >= signIn.y + signIn.height || rules.x >= signIn.x + signIn.width + 2 || rules.x + rules.width + 2 <= signIn.x, 'Правила and Войти apart');
  noErrors(page);
});
