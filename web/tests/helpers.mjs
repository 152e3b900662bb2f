// Shared by the web tests: a real `monte serve` on a temporary SQLite file
// and a free port, Debian's Chromium driven by playwright-core, and small
// helpers to act on the board as a person would.

import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import { before, after, afterEach } from 'node:test';
import { chromium } from 'playwright-core';

const HERE = dirname(fileURLToPath(import.meta.url));
export const ROOT = join(HERE, '..', '..');
export const ARTIFACTS = join(HERE, 'artifacts');
const BINARY = process.env.MONTE_BIN || join(ROOT, 'target', 'release', 'monte');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** A `monte serve` of its own: `{ url, stop(), restart() }` (restart keeps the port and the database). */
export async function startServer() {
  const dir = mkdtempSync(join(tmpdir(), 'monte-web-test-'));
  const port = await freePort();
  const database = `sqlite:${join(dir, 'monte.db')}`;
  let child = null;
  // What the server printed, for a failing test's report (its last lines).
  let printed = '';
  const launch = () =>
    new Promise((resolve, reject) => {
      child = spawn(BINARY, ['serve', '--database', database, '--listen', `127.0.0.1:${port}`, '--rate-limit', '0', '--ai-threads', '1'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      const timer = setTimeout(() => reject(new Error(`monte serve did not start in 20 s:\n${out}\n${err}`)), 20000);
      child.stdout.on('data', (chunk) => {
        out += chunk;
        const match = out.match(/serving on (http:\/\/\S+)/);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.stderr.on('data', (chunk) => {
        err += chunk;
        printed = (printed + chunk).slice(-20000);
      });
      child.on('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`monte serve exited (${code}):\n${out}\n${err}`));
      });
    });
  const stopChild = () =>
    new Promise((resolve) => {
      if (!child || child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 3000);
    });
  const url = await launch();
  return {
    url,
    /** The last `lines` lines the server printed on its standard error, without colours or the assets served. */
    log(lines = 40) {
      const plain = printed.replace(/\x1b\[[0-9;]*m/g, '').split('\n');
      return plain
        .filter((line) => line && !line.includes('route=/assets/'))
        .slice(-lines)
        .join('\n');
    },
    async restart() {
      await stopChild();
      await launch();
    },
    async stop() {
      await stopChild();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Debian's Chromium, headless, with a fresh profile (playwright makes a new --user-data-dir for it). */
export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The pages opened by the running test (closed after it). */
const opened = [];

/** For a test file: a server and a browser of its own, started before its tests and stopped after. */
export function serverAndBrowser() {
  const env = { server: null, browser: null };
  before(async () => {
    env.server = await startServer();
    env.browser = await launchBrowser();
  });
  // After each test its pages are closed: none of them goes on asking the
  // server for analysis or moves while the next test runs. A failing test
  // first reports what its pages saw go wrong and what the server printed.
  afterEach(async (t) => {
    const pages = opened.splice(0);
    if (!t.passed) {
      for (const page of pages) {
        if (page.isClosed()) continue;
        console.log(`-- ${t.name}: a page at ${page.url()}: ${JSON.stringify(page.trail, null, 1)}`);
      }
      if (env.server) console.log(`-- the server's last lines:\n${env.server.log()}`);
    }
    await Promise.all(pages.map((page) => page.context().close().catch(() => {})));
  });
  after(async () => {
    await env.browser?.close();
    await env.server?.stop();
  });
  return env;
}

/**
 * A page in a context of its own (its own localStorage), failing the test on
 * any script error. `phone: true` gives a phone-sized screen.
 */
export async function openPage(browser, { phone = false, lang = 'en' } = {}) {
  const context = await browser.newContext(
    phone
      ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, locale: lang }
      : { viewport: { width: 1280, height: 860 }, locale: lang },
  );
  const page = await context.newPage();
  opened.push(page);
  page.errors = [];
  // What went wrong on the way (for a failing test's report): the server's
  // refusals of API requests, requests that got no answer, script errors.
  page.trail = [];
  const note = (what) => page.trail.length < 200 && page.trail.push(`${new Date().toISOString().slice(11, 23)} ${what}`);
  page.on('pageerror', (e) => {
    page.errors.push(e.message);
    note(`script error: ${e.message}`);
  });
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource|WebSocket/.test(m.text())) page.errors.push(m.text());
    if (m.type() === 'error') note(`console: ${m.text()}`);
  });
  page.on('response', async (r) => {
    if (r.status() < 400) return;
    const body = await r.text().catch(() => '');
    note(`${r.request().method()} ${new URL(r.url()).pathname} answered ${r.status()}: ${body.slice(0, 300)}`);
  });
  page.on('requestfailed', (r) => note(`${r.method()} ${new URL(r.url()).pathname} failed: ${r.failure()?.errorText}`));
  return page;
}

export function noErrors(page) {
  assert.deepEqual(page.errors, [], 'the page reported errors');
}

/** A screenshot in web/tests/artifacts: of an element, or of the page (whole, or as the screen shows it). */
export async function screenshot(page, name, selector, { fullPage = true } = {}) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  if (selector) await page.locator(selector).first().screenshot({ path, animations: 'disabled' });
  else await page.screenshot({ path, fullPage, animations: 'disabled' });
  return path;
}

// ---- acting on the game page ----

export async function clickSquare(page, name) {
  await page.locator(`.board-wrap rect[data-square="${name}"]`).click();
}

/** The move list as the page shows it. */
export async function history(page) {
  return page.locator('.moves .mv[data-ply]').allInnerTexts();
}

export async function waitForPly(page, ply, timeout = 20000) {
  await page.waitForFunction((n) => document.querySelectorAll('.moves .mv[data-ply]').length === n, ply, { timeout });
}

/** A move by two clicks (from, to), then waits for the move list to reach `ply` moves. */
export async function clickMove(page, from, to, ply) {
  await clickSquare(page, from);
  await clickSquare(page, to);
  await waitForPly(page, ply);
}

/** The arrow keys that take the board's cursor from one square to another (White at the bottom). */
export function arrowsBetween(from, to) {
  const dx = to.charCodeAt(0) - from.charCodeAt(0);
  const dy = Number(to.slice(1)) - Number(from.slice(1));
  return [...Array(Math.abs(dx)).fill(dx > 0 ? 'ArrowRight' : 'ArrowLeft'), ...Array(Math.abs(dy)).fill(dy > 0 ? 'ArrowUp' : 'ArrowDown')];
}

export async function destinations(page) {
  return page.locator('.board-wrap .dest').evaluateAll((nodes) => nodes.map((n) => n.dataset.square).sort());
}

/** The start page's form: fills and submits it; resolves on the game page. */
export async function newGame(page, url, { game = 'salta', rules, opponent = 'ai', level, side, clock, fen, name } = {}) {
  await page.goto(url);
  await page.locator(`.game-card[data-game="${game}"]`).click();
  if (rules) await page.locator('select[name="rules"]').selectOption(rules);
  await page.locator(`input[name="opponent"][value="${opponent}"]`).check();
  if (level) await page.locator('select[name="level"]').selectOption(String(level));
  if (side) await page.locator(`input[name="side"][value="${side}"]`).check();
  if (clock !== undefined) await page.locator('select[name="clock"]').selectOption(String(clock));
  if (name) await page.locator('input[name="name"]').fill(name);
  if (fen) {
    await page.locator('details.advanced summary').click();
    await page.locator('textarea[name="fen"]').fill(fen);
  }
  await page.locator('form.new-game button[type="submit"]').click();
  await page.waitForURL(/\/game\/[a-z0-9]+$/);
  await page.locator('.board-wrap svg.board').waitFor();
  return page.url().split('/').pop();
}

// ---- animations ----

/** Records every Web Animation the page starts, with the square of the piece animated. */
export async function recordAnimations(page) {
  await page.addInitScript(() => {
    window.monteAnimations = [];
    const original = Element.prototype.animate;
    Element.prototype.animate = function animate(frames, options) {
      const at = this.closest && this.closest('[data-square]');
      window.monteAnimations.push({ square: at ? at.dataset.square : null, frames: frames.length });
      return original.call(this, frames, options);
    };
  });
}

/** The squares whose pieces were animated so far, in order. */
export async function animatedSquares(page) {
  return page.evaluate(() => window.monteAnimations.map((a) => a.square));
}

/**
 * A touch drag from the centre of one square to another (CDP touch events,
 * as a finger would); `beforeLifting()` runs while the finger is still down.
 */
export async function touchDrag(page, from, to, { steps = 8, beforeLifting } = {}) {
  const centre = async (sq) => {
    const box = await page.locator(`.board-wrap rect[data-square="${sq}"]`).boundingBox();
    return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  };
  const a = await centre(from);
  const b = await centre(to);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [a] });
  for (let i = 1; i <= steps; i++) {
    const point = { x: a.x + ((b.x - a.x) * i) / steps, y: a.y + ((b.y - a.y) * i) / steps };
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [point] });
  }
  if (beforeLifting) await beforeLifting();
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

/**
 * The English words left on a page shown in Russian: every visible text,
 * option, placeholder, title and label, less move notation and the names
 * that stay as they are (rule set ids, the brand, the API).
 */
export async function englishWords(page) {
  const texts = await page.evaluate(() => {
    const found = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
      const node = walker.currentNode;
      const el = node.parentElement;
      // The move list and its suggestions are notation; toasts carry the server's own (English) messages.
      if (!el || el.closest('.moves, datalist, #toast, noscript')) continue;
      if (el.tagName !== 'OPTION' && !el.getClientRects().length) continue;
      if (node.textContent.trim()) found.push(node.textContent.trim());
    }
    for (const el of document.querySelectorAll('[placeholder], [title], [aria-label], [alt]')) {
      for (const name of ['placeholder', 'title', 'aria-label', 'alt']) if (el.getAttribute(name)) found.push(el.getAttribute(name));
    }
    found.push(document.title);
    return found;
  });
  // Esc is the key's label on Russian keyboards too.
  const KEEP = new Set(['Monte', 'EN', 'RU', 'API', 'OpenAPI', 'seed', 'meyer', 'ludii', 'Ludii', 'sackson', 'Esc']);
  const words = [];
  for (const text of texts) {
    // Rule set options (`move-limit=60`) are identifiers of the API, like the rule set names.
    const prose = text.replace(/@?[a-j]\d+(?:[-:x][a-j]\d+)*\+?/g, ' ').replace(/[a-z]+(?:-[a-z]+)*=[\w-]+/g, ' ');
    for (const word of prose.match(/[A-Za-z]{2,}/g) || []) if (!KEEP.has(word)) words.push(`${word} (in "${text.slice(0, 60)}")`);
  }
  return { texts: texts.length, words };
}

// ---- acting through the API, as another client would ----

/** A JSON request to the server: resolves to `{ status, body }`. */
export async function api(url, method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/** A game between two people, both seats taken through the API: `{ id, white, black }` (tokens). */
export async function friendGame(url, body = {}) {
  const created = await api(url, 'POST', '/api/games', { game: 'salta', white: 'me', black: 'open', ...body });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const joined = await api(url, 'POST', `/api/invites/${created.body.invite.code}`, { name: 'Bob' });
  assert.equal(joined.status, 200, JSON.stringify(joined.body));
  return { id: created.body.game.id, white: created.body.tokens.white, black: joined.body.token };
}

/** Gives a page's browser a game's seat tokens (as if it had created the game), before it loads. */
export async function holdSeats(page, id, seats) {
  await page.addInitScript(
    ([game, tokens]) => {
      const all = JSON.parse(localStorage.getItem('monte.seats') || '{}');
      all[game] = { ...tokens, at: Date.now() };
      localStorage.setItem('monte.seats', JSON.stringify(all));
    },
    [id, seats],
  );
}
