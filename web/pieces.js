// The pieces, drawn in SVG: Salta's numbered stars, moons and suns in the
// historical colours (white pieces with green symbols, black with red), and
// Focus's discs stacked into towers.

import { s } from './dom.js';

const f = (n) => Math.round(n * 1000) / 1000;

/** A five-pointed star of radius 0.5 around (0,0). */
const STAR = (() => {
  const points = [];
  for (let i = 0; i < 10; i++) {
    const r = i % 2 === 0 ? 0.5 : 0.21;
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    points.push(`${f(r * Math.cos(a))},${f(r * Math.sin(a) + 0.04)}`);
  }
  return `M${points.join('L')}Z`;
})();

/** A crescent, open to the right: the outer circle less an offset circle. */
const MOON = (() => {
  const R = 0.48;
  const [cx, cy, r] = [0.2, -0.1, 0.38];
  // Where the two circles meet.
  const d = Math.hypot(cx, cy);
  const a = (R * R - r * r + d * d) / (2 * d);
  const hgt = Math.sqrt(R * R - a * a);
  const [mx, my] = [(a * cx) / d, (a * cy) / d];
  const p1 = [mx + (hgt * cy) / d, my - (hgt * cx) / d];
  const p2 = [mx - (hgt * cy) / d, my + (hgt * cx) / d];
  return `M${f(p1[0])},${f(p1[1])}A${R},${R} 0 1 0 ${f(p2[0])},${f(p2[1])}A${r},${r} 0 0 1 ${f(p1[0])},${f(p1[1])}Z`;
})();

/** A sun: a disc with eight rays. */
const SUN = (() => {
  let path = 'M0.25,0A0.25,0.25 0 1 0 -0.25,0A0.25,0.25 0 1 0 0.25,0Z';
  for (let i = 0; i < 8; i++) {
    const a = (i * Math.PI) / 4;
    const tip = [0.5 * Math.cos(a), 0.5 * Math.sin(a)];
    const l = [0.32 * Math.cos(a - 0.2), 0.32 * Math.sin(a - 0.2)];
    const rr = [0.32 * Math.cos(a + 0.2), 0.32 * Math.sin(a + 0.2)];
    path += `M${f(l[0])},${f(l[1])}L${f(tip[0])},${f(tip[1])}L${f(rr[0])},${f(rr[1])}Z`;
  }
  return path;
})();

export const SYMBOLS = { star: STAR, moon: MOON, sun: SUN };

/** Where n symbols sit on a piece (as on dice), and how big they are. */
const LAYOUT = {
  1: { size: 40, at: [[0, 0]] },
  2: { size: 28, at: [[-12, -12], [12, 12]] },
  3: { size: 24, at: [[0, -14], [-13, 10], [13, 10]] },
  4: { size: 22, at: [[-12, -12], [12, -12], [-12, 12], [12, 12]] },
  5: { size: 19, at: [[-14, -14], [14, -14], [0, 0], [-14, 14], [14, 14]] },
};

/** Gradients and filters every board needs once. */
export function defs() {
  return s('defs', {}, [
    s('radialGradient', { id: 'piece-white', cx: '38%', cy: '32%', r: '75%' }, [
      s('stop', { offset: '0%', 'stop-color': '#fffdf7' }),
      s('stop', { offset: '70%', 'stop-color': '#efe6d2' }),
      s('stop', { offset: '100%', 'stop-color': '#d3c5a6' }),
    ]),
    s('radialGradient', { id: 'piece-black', cx: '38%', cy: '32%', r: '75%' }, [
      s('stop', { offset: '0%', 'stop-color': '#5b5550' }),
      s('stop', { offset: '60%', 'stop-color': '#2a2624' }),
      s('stop', { offset: '100%', 'stop-color': '#121010' }),
    ]),
  ]);
}

/** A Salta piece centred on (0,0), radius about 42. */
export function saltaPiece(piece) {
  const white = piece.side === 'white';
  const colour = white ? '#1e7b3c' : '#e0322b';
  const layout = LAYOUT[piece.number] || LAYOUT[1];
  const symbols = layout.at.map(([x, y]) =>
    s('path', {
      d: SYMBOLS[piece.kind],
      transform: `translate(${x} ${y}) scale(${layout.size})`,
      fill: colour,
      stroke: white ? '#0f4d24' : '#7d1410',
      'stroke-width': 0.04,
      'stroke-linejoin': 'round',
    }),
  );
  return s('g', { class: `piece ${piece.side}` }, [
    s('circle', { cx: 2, cy: 5, r: 42, fill: 'rgba(0,0,0,0.35)' }),
    s('circle', { r: 42, fill: `url(#piece-${piece.side})`, stroke: white ? '#8d7b59' : '#000', 'stroke-width': 2 }),
    s('circle', {
      r: 35,
      fill: 'none',
      stroke: white ? 'rgba(140,120,80,0.55)' : 'rgba(255,255,255,0.16)',
      'stroke-width': 1.5,
    }),
    ...symbols,
  ]);
}

const DISC = {
  white: { top: '#fbf7ee', side: '#ddd2bb', edge: '#8f7f62' },
  black: { top: '#3c3734', side: '#1c1918', edge: '#000' },
};

/** One Focus disc (a cylinder slice) whose top face is centred at (0, y). */
function disc(side, y, rx, ry, thick) {
  const c = DISC[side];
  return s('g', { class: `disc ${side}` }, [
    s('path', {
      d: `M${-rx},${y}v${thick}a${rx},${ry} 0 0 0 ${2 * rx},0v${-thick}z`,
      fill: c.side,
      stroke: c.edge,
      'stroke-width': 1.5,
    }),
    s('ellipse', { cx: 0, cy: y, rx, ry, fill: c.top, stroke: c.edge, 'stroke-width': 1.5 }),
  ]);
}

/** A Focus tower (letters bottom to top) centred in a square of 100. */
export function focusTower(letters) {
  const rx = 38;
  const ry = 14;
  const thick = 11;
  const step = thick + 1;
  // The tower is centred in its square whatever its height.
  const base = ((letters.length - 1) * step - thick) / 2;
  const parts = [s('ellipse', { cx: 3, cy: base + thick + 4, rx: rx + 2, ry: ry + 2, fill: 'rgba(0,0,0,0.28)' })];
  [...letters].forEach((letter, i) => {
    parts.push(disc(letter === 'w' ? 'white' : 'black', base - i * step, rx, ry, thick));
  });
  const top = letters[letters.length - 1] === 'w' ? 'white' : 'black';
  if (letters.length > 1) {
    parts.push(
      s('g', { class: 'height', transform: 'translate(37 -37)' }, [
        s('circle', { r: 12, fill: top === 'white' ? '#fbf7ee' : '#2a2624', stroke: '#8f7f62', 'stroke-width': 1.5 }),
        s('text', { y: 5.5, 'text-anchor': 'middle', class: 'height-text', fill: top === 'white' ? '#2a2624' : '#fbf7ee' }, String(letters.length)),
      ]),
    );
  }
  return s('g', { class: `tower ${top}` }, parts);
}

/** A small flat disc for reserves and captured pieces (radius 10). */
export function smallDisc(side) {
  const c = DISC[side];
  return s('svg', { class: 'mini-disc', viewBox: '-12 -12 24 24', width: 18, height: 18, 'aria-hidden': 'true' }, [
    s('circle', { r: 10, fill: c.top, stroke: c.edge, 'stroke-width': 1.5 }),
  ]);
}
