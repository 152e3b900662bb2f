// The analysis board: a position set up from its string, the engine's
// lines streamed depth by depth and drawn as arrows, free moves making a
// variation, and a finished game opened from its page with the review's
// graph, a click on which goes to the move.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, clickSquare } from './helpers.mjs';

const env = serverAndBrowser();

// A Salta position from the opening (White to move).
const FEN = 's5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,.,o2,o1/.,.,.,.,./.,.,o3,.,./.,.,.,O3,./.,.,.,.,./O1,O2,.,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 4';

/** Every `analysis` message the page's engine socket receives. */
function listen(page) {
  const heard = [];
  page.on('websocket', (ws) => {
    if (!ws.url().endsWith('/api/analysis/ws')) return;
    ws.on('framereceived', (frame) => {
      try {
        const message = JSON.parse(frame.payload);
        if (message.type === 'analysis') heard.push(message);
      } catch (e) {
        // not ours
      }
    });
  });
  return heard;
}

const current = (page) => page.locator('.move-tree .mv.current').innerText();

test('a position string: the engine streams its three best lines as arrows; free moves make a variation', async () => {
  const page = await openPage(env.browser);
  const heard = listen(page);
  await page.goto(`${env.server.url}/analysis`);
  await page.locator('.board-wrap svg.board').waitFor();
  await page.locator('form.position-source input[name="fen"]').fill(FEN);
  await page.locator('button[data-load="position"]').click();
  // The position from the string: White's sun on g5, Black's on f6.
  await page.locator('.board-wrap .layer-pieces g.at[data-square="g5"]').waitFor();
  await page.locator('.board-wrap .layer-pieces g.at[data-square="f6"]').waitFor();
  // Three lines, each drawn as an arrow, deepening.
  await page.waitForFunction(() => document.querySelectorAll('.engine-lines .engine-line').length === 3);
  await page.waitForFunction(() => document.querySelectorAll('.board-wrap polyline.engine-arrow').length === 3);
  // The depth shown grows to 3 and beyond.
  const shownDepth = (least) => Number((document.querySelector('.engine-state').textContent.match(/\d+/) || ['0'])[0]) >= least;
  await page.waitForFunction(shownDepth, 3, { timeout: 20000 });
  // The server's updates for this position (the page asked for the start first).
  const position = heard.at(-1).position;
  assert.equal(position, FEN);
  const ours = heard.filter((m) => m.position === position);
  const depths = ours.map((m) => m.depth);
  assert.ok(depths.length >= 3, `updates: ${depths}`);
  assert.deepEqual(depths, [...depths].sort((a, b) => a - b), 'one update per depth, deeper each time');
  assert.equal(new Set(depths).size, depths.length);
  // Each update has three different first moves, best first, legal in the position.
  const last = ours.at(-1);
  assert.equal(last.lines.length, 3);
  assert.equal(new Set(last.lines.map((l) => l.first.notation)).size, 3);
  const shown = await page.locator('.engine-lines .engine-line button').allInnerTexts();
  assert.equal(shown.length, 3);
  // The best arrow starts on the best move's first square.
  const arrows = await page.locator('.board-wrap polyline.engine-arrow').evaluateAll((p) => p.map((x) => x.dataset.rank));
  assert.deepEqual(arrows, ['0', '1', '2']);
  await screenshot(page, 'analysis-position', '.analysis-page');

  // A free move: g3-f4 is the main line's first move.
  await clickSquare(page, 'g3');
  await page.locator('.board-wrap .dest[data-square="f4"]').waitFor();
  await clickSquare(page, 'f4');
  await page.locator('.move-tree .mv.current', { hasText: 'g3-f4' }).waitFor();
  assert.equal(await page.locator('.move-tree .variation').count(), 0);
  // Back to the start, another move: a variation beside the main line.
  await page.locator('.move-tree .mv.start').click();
  await page.locator('.move-tree .mv.start.current').waitFor();
  await clickSquare(page, 'c3');
  await clickSquare(page, 'd4');
  await page.locator('.move-tree .variation .mv.current', { hasText: 'c3-d4' }).waitFor();
  assert.match(await current(page), /c3-d4/);
  await page.locator('.board-wrap .layer-pieces g.at[data-square="d4"]').waitFor();
  // The main line is still there and can be gone back to.
  await page.locator('.move-tree .mv[data-main="yes"]', { hasText: 'g3-f4' }).click();
  await page.locator('.board-wrap .layer-pieces g.at[data-square="f4"]').waitFor();
  assert.equal(await page.locator('.board-wrap .layer-pieces g.at[data-square="d4"]').count(), 0);
  // The engine follows the node shown.
  await page.waitForFunction(() => document.querySelectorAll('.board-wrap polyline.engine-arrow').length > 0);
  noErrors(page);
});

test('a finished game: Analyse on its page, the review graph, a click goes to the move', async () => {
  const page = await openPage(env.browser);
  await page.goto(env.server.url);
  // A game played on one screen, then resigned.
  const id = await page.evaluate(async () => {
    const post = (path, body, token) =>
      fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) }).then((r) => r.json());
    const created = await post('/api/games', { game: 'salta', white: 'me', black: 'me' });
    const { id } = created.game;
    const { white, black } = created.tokens;
    const moves = ['e3-f4', 'h8-g7', 'c3-d4', 'g7-h6', 'f4-g5', 'h6:f4'];
    for (const [i, move] of moves.entries()) await post(`/api/games/${id}/moves`, { move, ply: i }, i % 2 ? black : white);
    await post(`/api/games/${id}/resign`, {}, white);
    // The seats, as this browser would keep them had it played here.
    localStorage.setItem('monte.seats', JSON.stringify({ [id]: { white, black, at: Date.now() } }));
    return id;
  });
  // The list of one's games offers Analyse on the finished one.
  await page.goto(env.server.url);
  const listed = page.locator(`.my-games a[data-analyse="${id}"]`);
  assert.equal(await listed.getAttribute('href'), `/analysis?game=${id}`);
  await page.goto(`${env.server.url}/game/${id}`);
  await page.locator('.actions-card a[data-action="analyse"]').click();
  await page.waitForURL(/\/analysis\?game=/);
  // The review: one point per position, then the summary.
  await page.waitForFunction(() => document.querySelectorAll('.eval-graph .graph-point').length === 7, null, { timeout: 30000 });
  await page.locator('.graph-state', { hasText: 'White:' }).waitFor({ timeout: 30000 });
  assert.equal(await page.locator('.move-tree .mv[data-main="yes"]').count(), 6);
  await screenshot(page, 'analysis-review', '.analysis-page');
  // A click on the graph at the fourth move's point.
  const box = await page.locator('.eval-graph').boundingBox();
  await page.mouse.click(box.x + (box.width * 4) / 6, box.y + box.height / 2);
  await page.locator('.move-tree .mv.current[data-ply="4"]').waitFor();
  assert.match(await current(page), /g7-h6/);
  // The graph marks the move shown: ply 4 of 6 across its 600 units.
  assert.equal(await page.locator('.eval-graph .graph-current').getAttribute('x1'), '400');
  noErrors(page);
});

test('on a phone, in Russian', async () => {
  const page = await openPage(env.browser, { phone: true, lang: 'ru' });
  await page.goto(`${env.server.url}/analysis?kind=focus`);
  await page.waitForFunction(() => document.querySelectorAll('.engine-lines .engine-line').length === 3, null, { timeout: 20000 });
  await page.locator('h1', { hasText: 'Анализ' }).waitFor();
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(width <= 390, `the page is ${width} px wide`);
  await screenshot(page, 'analysis-phone-ru', null, { fullPage: false });
  noErrors(page);
});
