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
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource|WebSocket/.test(m.text())) page.errors.push(m.text());
  });
  return page;
}

export function noErrors(page) {
  assert.deepEqual(page.errors, [], 'the page reported errors');
}

export async function screenshot(page, name, selector) {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  if (selector) await page.locator(selector).first().screenshot({ path, animations: 'disabled' });
  else await page.screenshot({ path, fullPage: true, animations: 'disabled' });
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
