// The analysis board: a position set up from its string, the engine's
// lines streamed depth by depth and drawn as arrows, free moves making a
// variation, the evaluation bar on the server's scale, Focus drops by
// click and by keyboard with both sides' counts, and a finished game
// opened from its page with the review's graph, a click on which goes to
// the move.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serverAndBrowser, openPage, noErrors, screenshot, clickSquare, destinations, arrowsBetween } from './helpers.mjs';

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

/** Loads a position string on the analysis board (already open) of `game`. */
async function loadPosition(page, game, fen) {
  await page.locator('form.position-source select[name="kind"]').selectOption(game);
  await page.locator('form.position-source input[name="fen"]').fill(fen);
  await page.locator('button[data-load="position"]').click();
}

/**
 * The evaluation bar once the engine has searched `position` to `depth`:
 * its value and unit, the share of its width filled (as drawn, once its
 * transition is over), its words and the engine card's words for it
 * (`cardWords`); checked to be the best line's value
 * of one of the server's messages about the position (`heard`).
 */
async function settledBar(page, heard, position, depth = 3) {
  const deadline = Date.now() + 30000;
  for (;;) {
    const values = heard.filter((m) => m.position === position && m.depth >= depth).map((m) => m.lines[0].value);
    if (values.length) {
      // The fill as drawn is the fill asked for (its width's transition over), for one of the values heard.
      const bar = await page
        .waitForFunction(
          (values) => {
            const bar = document.querySelector('.eval-bar');
            const fill = bar.firstChild;
            const drawn = fill.getBoundingClientRect().width / bar.clientWidth;
            const asked = parseFloat(fill.style.width) / 100;
            const value = bar.dataset.value === '' ? NaN : +bar.dataset.value;
            // The engine card's words are read at the same moment: a deeper line may redraw both.
            const scale = document.querySelector('.engine-card .bar-scale');
            return Math.abs(drawn - asked) < 0.002 && values.includes(value)
              ? { value, unit: bar.dataset.unit, filled: drawn, words: bar.getAttribute('aria-label'), cardWords: scale && scale.textContent }
              : null;
          },
          values,
          { timeout: 2000 },
        )
        .catch(() => null);
      if (bar) return bar.jsonValue();
    }
    assert.ok(Date.now() < deadline, `no bar for ${position}: ${JSON.stringify(heard.filter((m) => m.position === position).map((m) => m.lines[0].value))}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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

/**
 * Records every value the evaluation bar shows, with the share of its
 * width it asks to fill then: `window.barLog`, from the page's start.
 */
async function recordBar(page) {
  await page.addInitScript(() => {
    window.barLog = [];
    new MutationObserver((mutations) => {
      for (const m of mutations) {
        const bar = m.target;
        if (bar.classList.contains('eval-bar') && bar.dataset.value !== '') window.barLog.push({ value: +bar.dataset.value, share: parseFloat(bar.firstChild.style.width) / 100 });
      }
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-value'] });
  });
}

test('the evaluation bar: White’s lead in steps in Salta (the server’s value, as in a review), the expected score in Focus', async () => {
  const page = await openPage(env.browser);
  const heard = listen(page);
  await recordBar(page);
  // The start, and FEN four plies on: at depth 9 (searched the same every time, on one
  // thread from an empty table) White's lead is −1.32 and −6.66 steps, where the expected
  // scores differ by under 0.03. Deeper, the values drift, so the bars are compared at depth 9.
  const start = 's5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,o2,o1/.,.,.,.,./.,.,.,.,./.,.,.,.,./.,.,.,.,./O1,O2,O3,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w - 0';
  const atDepth9 = [];
  for (const fen of [start, FEN]) {
    await page.goto(`${env.server.url}/analysis?kind=salta&fen=${encodeURIComponent(fen)}`);
    await page.locator('.board-wrap svg.board').waitFor();
    // The server's best line at depth 9, and the bar as it showed it.
    const deadline = Date.now() + 20000;
    while (!heard.some((m) => m.position === fen && m.depth >= 9)) {
      assert.ok(Date.now() < deadline, `depth 9 of ${fen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const best = heard.find((m) => m.position === fen && m.depth === 9).lines[0];
    assert.equal(best.value, best.eval.units / 100, JSON.stringify(best));
    const shown = await (await page.waitForFunction((value) => window.barLog.find((b) => b.value === value), best.value)).jsonValue();
    atDepth9.push({ ...shown, white: best.eval.white });
    // Its last value drawn, the server's too, with the unit in its words.
    const last = await settledBar(page, heard, fen);
    assert.equal(last.unit, 'steps');
    assert.ok(Math.abs(last.filled - (last.value + 40) / 80) < 0.005, JSON.stringify(last));
    assert.match(last.words, /^The bar: White’s lead in steps, [−+]?[\d.]+, from −40 at the left to \+40 at the right$/);
    assert.equal(last.cardWords, last.words);
  }
  // Each fill is the lead from −40 at the left to +40 at the right.
  for (const bar of atDepth9) assert.ok(Math.abs(bar.share - (bar.value + 40) / 80) < 1e-9, JSON.stringify(bar));
  const [ahead, behind] = atDepth9;
  assert.ok(ahead.value - behind.value >= 4, `the leads: ${ahead.value} and ${behind.value}`);
  // Several steps of lead fill the bar further by a step's eightieth each, where the expected score hardly moves.
  assert.ok(ahead.share - behind.share >= 0.05, `filled ${ahead.share} and ${behind.share}`);
  assert.ok(Math.abs(ahead.white - behind.white) < 0.03, `expected scores ${ahead.white} and ${behind.white}`);
  await screenshot(page, 'analysis-bar-salta', '.board-col');

  // A win found is at the end of the scale: the bar full.
  const won = 'S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,o1,.,./.,O3,.,.,./.,.,.,.,./.,.,.,.,./o3,o4,o5,o2,./m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 w - 0';
  await page.goto(`${env.server.url}/analysis?kind=salta&fen=${encodeURIComponent(won)}`);
  const full = await settledBar(page, heard, won, 1);
  assert.equal(full.value, 40);
  assert.ok(full.filled > 0.995, String(full.filled));

  // Focus: White's expected score, from 0 to 1.
  await page.goto(`${env.server.url}/analysis?kind=focus&fen=${encodeURIComponent(FOCUS_FEN)}`);
  await page.locator('.board-wrap svg.board-focus').waitFor();
  const focus = await settledBar(page, heard, FOCUS_FEN);
  assert.equal(focus.unit, 'expected_score');
  assert.equal(focus.value, heard.filter((m) => m.position === FOCUS_FEN).find((m) => m.lines[0].value === focus.value).lines[0].eval.white);
  assert.ok(Math.abs(focus.filled - focus.value) < 0.005, JSON.stringify(focus));
  assert.match(focus.words, /^The bar: White’s expected score, [\d.]+, from 0\.00 at the left to 1\.00 at the right$/);
  noErrors(page);
});

// A Focus position: White and Black have a piece in reserve each; Black's d5 (White's prisoner under it) and g6, White's d3.
const FOCUS_FEN = '.,.,.,./.,.,.,.,.,./.,.,.,.,.,.,b,./.,.,.,wb,.,.,.,./.,.,.,.,.,.,.,./.,.,.,w,.,.,.,./.,.,.,.,.,./.,.,.,. w 1 1 30';

test('Focus drops on the analysis board: the reserve by click and by keyboard, both sides’ counts', async () => {
  const page = await openPage(env.browser);
  await page.goto(`${env.server.url}/analysis`);
  await page.locator('.board-wrap svg.board').waitFor();
  await loadPosition(page, 'focus', FOCUS_FEN);
  await page.locator('.board-wrap svg.board-focus').waitFor();
  const count = (what, side) => page.locator(`.analysis-page [data-${what}="${side}"] .count`).innerText();
  const counts = async () => ({ reserve: [await count('reserve', 'white'), await count('reserve', 'black')], captured: [await count('captured', 'white'), await count('captured', 'black')] });
  const discs = (square) => page.locator(`.board-wrap .layer-pieces g.at[data-square="${square}"] .disc`).evaluateAll((d) => d.map((x) => (x.classList.contains('white') ? 'w' : 'b')).join(''));
  // Both sides' bars, White's at the bottom, with the position's counts: 18 each, less the board and the reserve.
  await page.locator('.player-bar.white button.reserve[data-reserve="white"]').waitFor();
  assert.deepEqual(await page.locator('.board-col .player-bar').evaluateAll((bars) => bars.map((b) => b.dataset.side)), ['black', 'white']);
  assert.deepEqual(await counts(), { reserve: ['1', '1'], captured: ['15', '15'] });
  // Only the side to move may pick its reserve.
  assert.equal(await page.locator('button.reserve[data-reserve="black"]').isDisabled(), true);

  // By click: White's reserve, the server's drops lit, a click on d5.
  await page.locator('button.reserve[data-reserve="white"]').click();
  await page.locator('button.reserve.selected[data-reserve="white"]').waitFor();
  const drops = await destinations(page);
  assert.ok(drops.length > 40 && drops.includes('d5') && drops.includes('d3'), drops.join(' '));
  await clickSquare(page, 'd5');
  await page.locator('.move-tree .mv.current', { hasText: '@d5' }).waitFor();
  assert.equal(await discs('d5'), 'wbw');
  assert.deepEqual(await counts(), { reserve: ['0', '1'], captured: ['15', '15'] });
  // Black to move: its reserve, not White's, may be picked.
  await page.locator('button.reserve[data-reserve="black"]:not([disabled])').waitFor();
  assert.equal(await page.locator('button.reserve[data-reserve="white"]').isDisabled(), true);

  // By keyboard: R on the board picks Black's reserve, the arrows and Enter drop on d3.
  const board = page.locator('.board-wrap svg.board');
  const cursor = () => page.locator('.board-wrap .cursor').getAttribute('data-square');
  await board.focus();
  await page.keyboard.press('r');
  await page.locator('button.reserve.selected[data-reserve="black"]').waitFor();
  assert.match(await page.locator('.board-wrap .board-live').innerText(), /^Reserve picked \(1 in it\)/);
  // Escape puts it back; R again picks it.
  await page.keyboard.press('Escape');
  assert.equal(await page.locator('button.reserve.selected').count(), 0);
  assert.deepEqual(await destinations(page), []);
  await page.keyboard.press('r');
  await page.locator('button.reserve.selected[data-reserve="black"]').waitFor();
  for (const key of arrowsBetween(await cursor(), 'd3')) await page.keyboard.press(key);
  assert.equal(await cursor(), 'd3');
  await page.keyboard.press('Enter');
  await page.locator('.move-tree .mv.current', { hasText: '@d3' }).waitFor();
  assert.equal(await discs('d3'), 'wb');
  assert.deepEqual(await counts(), { reserve: ['0', '0'], captured: ['15', '15'] });
  // The main line holds both drops, and going back shows the counts of the position there.
  assert.deepEqual(await page.locator('.move-tree .mv[data-main="yes"]').allInnerTexts(), ['1. @d5', '@d3']);
  await page.locator('.move-tree .mv.start').click();
  await page.locator('.move-tree .mv.start.current').waitFor();
  assert.deepEqual(await counts(), { reserve: ['1', '1'], captured: ['15', '15'] });
  await screenshot(page, 'analysis-focus-drops', '.board-col');
  noErrors(page);
});

test('two loads in a row: the later is shown, though the earlier is answered last', async () => {
  const page = await openPage(env.browser);
  await page.goto(`${env.server.url}/analysis`);
  await page.locator('.board-wrap svg.board').waitFor();
  // The server's answer to the first load (the Focus position) is held back a second and a half.
  const isFocusLoad = (request) => request.url().endsWith('/api/analysis/line') && (request.postData() || '').includes('"focus"');
  let held = false;
  await page.route('**/api/analysis/line', async (route) => {
    if (!held && isFocusLoad(route.request())) {
      held = true;
      await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    return route.continue();
  });
  const focusAnswered = page.waitForResponse((response) => isFocusLoad(response.request()));
  await loadPosition(page, 'focus', FOCUS_FEN);
  await loadPosition(page, 'salta', FEN);
  await page.locator('.analysis-page.game-salta .board-wrap .layer-pieces g.at[data-square="g5"]').waitFor();
  // Once the page has the Focus answer, the Salta position stays.
  await (await focusAnswered).finished();
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 200)));
  assert.equal(held, true);
  assert.equal(await page.locator('.analysis-page.game-focus').count(), 0);
  assert.equal(await page.locator('.analysis-page.game-salta .board-wrap .layer-pieces g.at[data-square="g5"]').count(), 1);
  noErrors(page);
});

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
