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

/** Every message of `type` (`analysis`, `review`) the page's engine socket receives. */
function listen(page, type = 'analysis') {
  const heard = [];
  page.on('websocket', (ws) => {
    if (!ws.url().endsWith('/api/analysis/ws')) return;
    ws.on('framereceived', (frame) => {
      try {
        const message = JSON.parse(frame.payload);
        if (message.type === type) heard.push(message);
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

/**
 * A game of `game` played on one screen through the API (`moves`, then
 * White resigns), its seats kept in the page's browser as if it had been
 * played there; the page must be on the server. Its id.
 */
async function resignedGame(page, game, moves) {
  return page.evaluate(
    async ([game, moves]) => {
      const post = (path, body, token) =>
        fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) }).then((r) => r.json());
      const created = await post('/api/games', { game, white: 'me', black: 'me' });
      const { id } = created.game;
      const { white, black } = created.tokens;
      for (const [i, move] of moves.entries()) {
        const answer = await post(`/api/games/${id}/moves`, { move, ply: i }, i % 2 ? black : white);
        if (!answer.game) throw new Error(`${move}: ${JSON.stringify(answer)}`);
      }
      await post(`/api/games/${id}/resign`, {}, white);
      // The seats, as this browser would keep them had it played here.
      localStorage.setItem('monte.seats', JSON.stringify({ [id]: { white, black, at: Date.now() } }));
      return id;
    },
    [game, moves],
  );
}

/** The review graph's points: `{ ply, value, cy }` (cy from 0 at the top to 120 at the bottom). */
async function graphPoints(page) {
  return page.locator('.eval-graph .graph-point').evaluateAll((nodes) => nodes.map((n) => ({ ply: +n.dataset.ply, value: +n.dataset.value, cy: +n.getAttribute('cy') })));
}

test('the Salta review plots White’s lead in steps: a game whose distance changes fills the graph; Focus keeps its expected score', async () => {
  const page = await openPage(env.browser);
  const reviews = listen(page, 'review');
  const finished = listen(page, 'review_done');
  await page.goto(env.server.url);
  // White walks eight steps forward while Black steps back and forth: White's lead grows by steps.
  const white = ['a3-b4', 'b4-a5', 'c3-d4', 'd4-c5', 'e3-f4', 'g3-h4', 'i3-j4', 'a5-b6'];
  const black = ['h8-g7', 'g7-h8', 'h8-g7', 'g7-h8', 'h8-g7', 'g7-h8', 'h8-g7'];
  const moves = white.flatMap((m, i) => (i < black.length ? [m, black[i]] : [m]));
  const id = await resignedGame(page, 'salta', moves);
  await page.goto(`${env.server.url}/analysis?game=${id}`);
  await page.waitForFunction((n) => document.querySelectorAll('.eval-graph .graph-point').length === n, moves.length + 1, { timeout: 60000 });
  await page.locator('.graph-state', { hasText: 'White:' }).waitFor({ timeout: 30000 });
  const graph = page.locator('.eval-graph');
  assert.equal(await graph.getAttribute('data-unit'), 'steps');
  const points = await graphPoints(page);
  // Each point is the server's value, White's lead in steps: the score over 100.
  for (const m of reviews.filter((r) => r.eval.units !== null)) assert.equal(m.value, m.eval.units / 100, JSON.stringify(m));
  const leads = points.map((p) => p.value);
  const spread = Math.max(...leads) - Math.min(...leads);
  assert.ok(spread >= 4, `White's lead moves by ${spread} steps: ${leads.join(' ')}`);
  // The expected score of the same positions hardly moves: plotted, it would be flat.
  const whites = reviews.filter((r) => r.eval.units !== null).map((r) => r.eval.white);
  assert.ok(Math.max(...whites) - Math.min(...whites) < 0.05, whites.join(' '));
  // The range is as far each way as the largest lead, and the lead fills it: not flat.
  const [low, high] = [+(await graph.getAttribute('data-low')), +(await graph.getAttribute('data-high'))];
  assert.equal(high, Math.max(4, Math.ceil(Math.max(...leads.map(Math.abs)))));
  assert.equal(low, -high);
  for (const p of points) assert.ok(Math.abs(p.cy - ((high - p.value) / (high - low)) * 120) < 1e-6, JSON.stringify(p));
  // The trend: the mean of each position and the one before.
  const trend = (await page.locator('.eval-graph .graph-trend').getAttribute('points')).split(' ').map((p) => +p.split(',')[1]);
  assert.equal(trend.length, points.length);
  trend.forEach((cy, i) => assert.ok(Math.abs(cy - (i ? (points[i].cy + points[i - 1].cy) / 2 : points[0].cy)) < 1e-6, `${i}: ${cy}`));
  const heights = points.map((p) => p.cy);
  assert.ok(Math.max(...heights) - Math.min(...heights) >= 0.3 * 120, `the lead spans ${heights.join(' ')}`);
  // The line under the graph says the unit, its ends and the thresholds.
  assert.match(await page.locator('.graph-scale').innerText(), new RegExp(`lead in steps, from −${high} at the bottom to \\+${high} at the top.*loses its side 2 steps of lead or more is marked \\?!, 4 \\?, 8 \\?\\?`));
  // Each mark is a loss of steps over its threshold, and drawn on the graph at its move.
  const [{ marks }] = finished;
  for (const m of marks) assert.equal(m.judgement, m.loss >= 8 ? 'blunder' : m.loss >= 4 ? 'mistake' : 'inaccuracy', JSON.stringify(m));
  assert.deepEqual(await page.locator('.eval-graph .graph-mark').evaluateAll((n) => n.map((c) => +c.dataset.ply)), marks.map((m) => m.ply));
  await screenshot(page, 'analysis-review-salta', '.graph-card');

  // Focus: White's expected score, from 0 to 1, as the server sends it.
  reviews.length = 0;
  const focus = await resignedGame(page, 'focus', ['b6-a6']);
  await page.goto(`${env.server.url}/analysis?game=${focus}`);
  await page.waitForFunction(() => document.querySelectorAll('.eval-graph .graph-point').length === 2, null, { timeout: 30000 });
  assert.equal(await graph.getAttribute('data-unit'), 'expected_score');
  assert.equal(await page.locator('.eval-graph .graph-trend').count(), 0);
  assert.deepEqual([await graph.getAttribute('data-low'), await graph.getAttribute('data-high')], ['0', '1']);
  const focusPoints = await graphPoints(page);
  for (const p of focusPoints) {
    const m = reviews.find((r) => r.ply === p.ply);
    assert.equal(p.value, m.eval.white);
    assert.ok(Math.abs(p.cy - (1 - m.eval.white) * 120) < 1e-6, JSON.stringify([p, m]));
  }
  assert.match(await page.locator('.graph-scale').innerText(), /expected score, from 0\.00 at the bottom to 1\.00 at the top.*0\.05 of expected score or more is marked \?!, 0\.10 \?, 0\.20 \?\?/);
  noErrors(page);
});

test('a finished game: Analyse on its page, the review graph, a click goes to the move', async () => {
  const page = await openPage(env.browser);
  await page.goto(env.server.url);
  // A game played on one screen, then resigned.
  const id = await resignedGame(page, 'salta', ['e3-f4', 'h8-g7', 'c3-d4', 'g7-h6', 'f4-g5', 'h6:f4']);
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
