// The evaluation graph of a reviewed game: White's expected score after
// every move (the server's review), the inaccuracies, mistakes and
// blunders marked, the move shown, and a click anywhere picks the move
// under it.

import { s } from './dom.js';
import { t } from './i18n.js';

const W = 600;
const H = 120;

/**
 * `evals[ply]`: the review's value of each position so far (`white`, 0 to
 * 1); `plies`: how many positions the line has; `marks`: the review's
 * marked moves; `current`: the ply shown (or -1); `onPick(ply)`.
 */
export function evalGraph({ evals, plies, marks, current, onPick }) {
  const last = Math.max(1, plies - 1);
  const x = (ply) => (ply / last) * W;
  const y = (white) => (1 - white) * H;
  const svg = s('svg', { class: 'eval-graph', viewBox: `0 0 ${W} ${H}`, preserveAspectRatio: 'none', role: 'img', 'aria-label': t('evalGraph') });
  svg.appendChild(s('rect', { x: 0, y: 0, width: W, height: H, class: 'graph-black' }));
  const known = [];
  for (let ply = 0; ply < plies && evals[ply]; ply++) known.push([ply, evals[ply].white]);
  if (known.length) {
    const top = known.map(([ply, white]) => `${x(ply)},${y(white)}`).join(' ');
    const end = known[known.length - 1][0];
    svg.appendChild(s('polygon', { points: `0,${H} ${top} ${x(end)},${H}`, class: 'graph-white' }));
    svg.appendChild(s('polyline', { points: top, class: 'graph-line' }));
  }
  svg.appendChild(s('line', { x1: 0, x2: W, y1: H / 2, y2: H / 2, class: 'graph-mid' }));
  if (current >= 0) svg.appendChild(s('line', { x1: x(current), x2: x(current), y1: 0, y2: H, class: 'graph-current' }));
  for (const m of marks) {
    const e = evals[m.ply];
    if (!e) continue;
    svg.appendChild(
      s('circle', { cx: x(m.ply), cy: y(e.white), r: 5, class: `graph-mark ${m.judgement}`, dataset: { ply: String(m.ply), judgement: m.judgement } }, [
        s('title', {}, `${t(`judgement.${m.judgement}`)} (${t(m.side)})`),
      ]),
    );
  }
  // One point per move, to pick (and for the tests to find).
  for (const [ply, white] of known) {
    svg.appendChild(s('circle', { cx: x(ply), cy: y(white), r: 2, class: 'graph-point', dataset: { ply: String(ply) } }));
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
