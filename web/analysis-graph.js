// The evaluation graph of a reviewed game: the review's value of every
// position on the server's scale (White's expected score, or in Salta
// White's lead in steps), the inaccuracies, mistakes and blunders marked,
// the move shown, and a click anywhere picks the move under it.

import { s } from './dom.js';
import { t } from './i18n.js';

const W = 600;
const H = 120;

/** The least lead (steps) the graph spans each way: a few steps' swing stays a small one. */
const LEAD_SPAN = 4;

/**
 * The values the graph spans, `[low, high]`: the whole scale for an
 * expected score; for a lead (`steps`), as far each way as the largest
 * lead of the game (at least LEAD_SPAN), a side found to win (the
 * scale's end) drawn at the edge, so that the game's swings fill the
 * height.
 */
export function plottedRange(values, scale) {
  if (scale.unit !== 'steps') return [scale.min, scale.max];
  let lead = LEAD_SPAN;
  for (const v of values) if (v !== undefined && v > scale.min && v < scale.max) lead = Math.max(lead, Math.ceil(Math.abs(v)));
  return [-lead, lead];
}

/**
 * Where `v` lies between `low` and `high`, from 0 to 1 (kept within
 * them): the graph's height and the evaluation bar's fill.
 */
export function shareOf(v, [low, high]) {
  return (Math.min(high, Math.max(low, v)) - low) / (high - low);
}

/**
 * `values[ply]`: the review's value of each position so far (White's, on
 * `scale`: `{ unit, min, max }` from the server); `plies`: how many
 * positions the line has; `marks`: the review's marked moves; `current`:
 * the ply shown (or -1); `onPick(ply)`.
 */
export function evalGraph({ values, scale, plies, marks, current, onPick }) {
  const last = Math.max(1, plies - 1);
  const [low, high] = plottedRange(values, scale);
  const x = (ply) => (ply / last) * W;
  const y = (v) => (1 - shareOf(v, [low, high])) * H;
  const svg = s('svg', {
    class: 'eval-graph',
    viewBox: `0 0 ${W} ${H}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `${t('evalGraph')}: ${scaleText(scale, [low, high])}`,
    dataset: { low: String(low), high: String(high), unit: scale.unit },
  });
  svg.appendChild(s('rect', { x: 0, y: 0, width: W, height: H, class: 'graph-black' }));
  const known = [];
  for (let ply = 0; ply < plies && values[ply] !== undefined; ply++) known.push([ply, values[ply]]);
  if (known.length) {
    const line = (points) => points.map(([ply, v]) => `${x(ply)},${y(v)}`).join(' ');
    const end = known[known.length - 1][0];
    // A lead swings with the side to move (Salta's searches value the side
    // to move several steps lower): White's area follows the mean of each
    // position and the one before, which evens the swing out.
    const trend = scale.unit === 'steps' ? known.map(([ply, v], i) => [ply, i ? (v + known[i - 1][1]) / 2 : v]) : null;
    svg.appendChild(s('polygon', { points: `0,${H} ${line(trend || known)} ${x(end)},${H}`, class: 'graph-white' }));
    svg.appendChild(s('polyline', { points: line(known), class: 'graph-line' }));
    if (trend) svg.appendChild(s('polyline', { points: line(trend), class: 'graph-trend' }));
  }
  svg.appendChild(s('line', { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: 'graph-mid' }));
  if (current >= 0) svg.appendChild(s('line', { x1: x(current), x2: x(current), y1: 0, y2: H, class: 'graph-current' }));
  for (const m of marks) {
    const v = values[m.ply];
    if (v === undefined) continue;
    svg.appendChild(
      s('circle', { cx: x(m.ply), cy: y(v), r: 5, class: `graph-mark ${m.judgement}`, dataset: { ply: String(m.ply), judgement: m.judgement } }, [
        s('title', {}, `${t(`judgement.${m.judgement}`)} (${t(m.side)})`),
      ]),
    );
  }
  // One point per move, to pick (and for the tests to find).
  for (const [ply, v] of known) {
    svg.appendChild(s('circle', { cx: x(ply), cy: y(v), r: 2, class: 'graph-point', dataset: { ply: String(ply), value: String(v) } }));
  }
  svg.addEventListener('click', (e) => {
    const m = svg.getScreenCTM();
    if (!m) return;
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    const ply = Math.max(0, Math.min(plies - 1, Math.round((p.x / W) * last)));
    onPick(ply);
  });
  return svg;
}

/** What the graph shows, in words: its unit and span, and what a move must lose to be marked. */
export function scaleText(scale, [low, high]) {
  const steps = scale.unit === 'steps';
  const n = (v) => (steps ? String(v) : v.toFixed(2));
  return t(steps ? 'graphSteps' : 'graphExpected', {
    low: steps ? `−${-low}` : n(low),
    high: steps ? `+${high}` : n(high),
    inaccuracy: n(scale.inaccuracy),
    mistake: n(scale.mistake),
    blunder: n(scale.blunder),
  });
}
