// A board in SVG shared by both games: squares, coordinates, highlights,
// pieces, click and drag. What stands where and what may move comes from
// the caller (the server's state); the board only draws and reports.

import { h, s, clear } from './dom.js';
import { defs } from './pieces.js';
import { squareName, squareCoords } from './position.js';
import { t } from './i18n.js';

const SQ = 100;

/**
 * Dropping from the reserve, one way on every page with a board (the game
 * page, the lessons, the analysis board). `host`, the page's side of it,
 * made afresh for each call: { board, selected (a square, 'reserve' or
 * null), reserves (whether the game has reserves), canDrop(),
 * reserveCount() (the dropping side's reserve in the position shown),
 * select(selection) (sets the selection and redraws), refuse() (tells
 * why no drop can be made now) }.
 *
 * The keys a page takes on its board besides the cursor's (a Board's
 * `onKey`): R (the key, whatever the keyboard's layout) picks the reserve
 * to drop from, or puts it back when picked; Escape clears what is
 * picked. What to say, or null for a key not taken.
 */
export function reserveKey(e, host) {
  const { selected } = host;
  if (e.key === 'Escape' && selected) {
    host.select(null);
    return t(selected === 'reserve' ? 'dropCancelled' : 'selectionCleared');
  }
  if (e.code !== 'KeyR' || e.ctrlKey || e.metaKey || e.altKey || !host.reserves) return null;
  if (selected === 'reserve') {
    host.select(null);
    return t('dropCancelled');
  }
  if (!host.canDrop()) {
    host.refuse();
    return t('noDropNow');
  }
  return pickReserve(host, false);
}

/**
 * Picks the reserve to drop from (its button, or R on the board), or
 * puts it back when picked, and says so (`host` as for reserveKey).
 * `takeKeys`: the button pressed with the keyboard, after which the board
 * takes the keys, its cursor on the first square to drop on.
 */
export function pickReserve(host, takeKeys) {
  if (host.selected === 'reserve') {
    host.select(null);
    host.board.announce(t('dropCancelled'));
    return t('dropCancelled');
  }
  host.select('reserve');
  const said = t('reservePicked', { n: host.reserveCount() });
  if (takeKeys) host.board.takeKeys(said);
  return said;
}

const MARGIN = 34;

/**
 * spec: {
 *   kind, size (squares per side), exists(x, y), shade(x, y) -> fill,
 *   drawPiece(square, model) -> SVG node | null (centred on 0,0) for each
 *   square of model.position.pieces,
 *   decorate?(layers, model, centre) (game-specific marks),
 *   keysHelp? (the i18n key of the board's label: the keys it takes)
 * }
 */
export class Board {
  constructor(container, spec) {
    this.spec = spec;
    this.model = { flipped: false };
    this.onSquare = null; // (square) => void: a click
    this.onDrop = null; // (from, to) => void: a drag ended on a square
    this.onDragStart = null; // (square) => void: a piece is lifted
    this.canDrag = null; // (square) => bool
    this.onHover = null; // (square | null) => void
    // (event) => null | string: another key pressed on the board (a Focus
    // drop's R, Escape); a string (what to say, maybe empty) when the page took it.
    this.onKey = null;
    const n = spec.size * SQ;
    this.svg = s('svg', {
      class: `board board-${spec.kind}`,
      viewBox: `${-MARGIN} 0 ${n + MARGIN + 6} ${n + MARGIN + 6}`,
      role: 'img',
      'aria-label': `${t(spec.kind)}. ${t(spec.keysHelp || 'boardCursor')}`,
      tabindex: '0',
    });
    this.svg.appendChild(defs());
    this.layers = {};
    for (const name of ['frame', 'squares', 'marks', 'pieces', 'over', 'drag']) {
      this.layers[name] = this.svg.appendChild(s('g', { class: `layer-${name}` }));
    }
    container.appendChild(this.svg);
    // What the keyboard does is said to screen readers: the cursor's square, a reserve picked.
    this.live = container.appendChild(h('div', { class: 'sr-only board-live', 'aria-live': 'polite' }));
    this.pointer = null;
    this.svg.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.svg.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.svg.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.svg.addEventListener('pointercancel', () => this.cancelDrag());
    this.svg.addEventListener('pointerleave', () => this.onHover && !this.pointer && this.onHover(null));
    // The keyboard: a cursor square, shown once an arrow key is used.
    this.cursor = null;
    this.svg.addEventListener('keydown', (e) => this.keyDown(e));
    this.svg.addEventListener('blur', () => {
      this.cursor = null;
      this.draw();
    });
  }

  // ---- keyboard: arrows move a cursor, Enter or Space clicks its square ----

  keyDown(e) {
    const steps = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    let said = null;
    if (steps[e.key]) {
      const [dx, dy] = steps[e.key];
      this.cursor = this.cursor ? this.nextSquare(this.cursor, dx, dy) : this.firstCursor();
    } else if ((e.key === 'Enter' || e.key === ' ') && this.cursor) {
      const [x, y] = squareCoords(this.cursor);
      if (this.onSquare && this.spec.exists(x, y)) this.onSquare(this.cursor);
      // A piece picked is said; a move put is said by the page (its status).
      if (this.model.selected !== this.cursor) said = '';
    } else {
      const taken = this.onKey ? this.onKey(e) : null;
      if (taken === null) return;
      said = taken;
      // A reserve picked: the cursor starts on a square to drop on.
      if (!this.cursor && this.model.destinations && this.model.destinations.size) this.cursor = this.firstCursor();
    }
    // The page's own keys (arrows step through the moves) wait while the board has the keys.
    e.preventDefault();
    e.stopPropagation();
    this.draw();
    if (said === '') this.announce('');
    else this.announce([said, this.cursor ? this.describe(this.cursor) : ''].filter(Boolean).join('. '));
  }

  /**
   * Gives the board the keys with the cursor on its first square (a
   * reserve picked with the keyboard: the first square to drop on), and
   * says `text` with the cursor's square.
   */
  takeKeys(text) {
    this.svg.focus();
    this.cursor = this.firstCursor();
    this.draw();
    this.announce([text, this.describe(this.cursor)].filter(Boolean).join('. '));
  }

  /** Says `text` to screen readers (the board's live region). */
  announce(text) {
    this.live.textContent = text;
  }

  /** The cursor's square in words: its name, and a move's destination or a piece that may move. */
  describe(square) {
    const m = this.model;
    const [x, y] = squareCoords(square);
    if (!this.spec.exists(x, y)) return t('cursorOff', { square });
    if (m.destinations && m.destinations.has(square)) return t(m.selected ? 'cursorDestination' : 'cursorDrop', { square });
    if (m.selected === square) return t('cursorSelected', { square });
    if (m.movable && m.movable.has(square)) return t('cursorMovable', { square });
    return square;
  }

  /**
   * Where the cursor starts: the selection, else the first destination
   * (of a drop: nothing on the board is selected), else the first piece
   * that may move, else the middle.
   */
  firstCursor() {
    const m = this.model;
    if (m.selected) return m.selected;
    if (m.destinations && m.destinations.size) return [...m.destinations.keys()][0];
    const movable = m.movable ? [...m.movable] : [];
    if (movable.length) return movable[0];
    const n = this.spec.size;
    return squareName(n >> 1, n >> 1);
  }

  /**
   * The square next to `name` as the screen shows it (`dx`, `dy`: right and
   * up on the screen). The cursor goes over every square of the grid, the
   * ones a game does not use too (Salta's light squares), so that each
   * square is one key from its neighbours.
   */
  nextSquare(name, dx, dy) {
    const [x, y] = squareCoords(name);
    const n = this.spec.size;
    const [sx, sy] = this.model.flipped ? [-dx, -dy] : [dx, dy];
    const nx = Math.min(n - 1, Math.max(0, x + sx));
    const ny = Math.min(n - 1, Math.max(0, y + sy));
    return squareName(nx, ny);
  }

  /** The centre of a square in SVG units, as drawn (flipped or not). */
  centre(name) {
    const [x, y] = squareCoords(name);
    const n = this.spec.size;
    const col = this.model.flipped ? n - 1 - x : x;
    const row = this.model.flipped ? y : n - 1 - y;
    return [col * SQ + SQ / 2, row * SQ + SQ / 2];
  }

  /** The square under a point in SVG units, or null. */
  squareAt(px, py) {
    const n = this.spec.size;
    const col = Math.floor(px / SQ);
    const row = Math.floor(py / SQ);
    if (col < 0 || row < 0 || col >= n || row >= n) return null;
    const x = this.model.flipped ? n - 1 - col : col;
    const y = this.model.flipped ? row : n - 1 - row;
    return this.spec.exists(x, y) ? squareName(x, y) : null;
  }

  /** The rectangle of a square on the screen (for popovers). */
  screenRect(name) {
    const [cx, cy] = this.centre(name);
    const m = this.svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(cx - SQ / 2, cy - SQ / 2).matrixTransform(m);
    return { left: p.x, top: p.y, size: SQ * m.a };
  }

  update(model) {
    this.model = { ...this.model, ...model };
    this.draw();
  }

  draw() {
    const m = this.model;
    const spec = this.spec;
    const n = spec.size;
    // The drag layer keeps the piece being dragged across redraws (a hover redraws).
    for (const [name, layer] of Object.entries(this.layers)) if (name !== 'drag') clear(layer);
    const { frame, squares, marks, pieces, over } = this.layers;

    // Frame and coordinates.
    frame.appendChild(
      s('rect', { x: -MARGIN, y: -0, width: n * SQ + MARGIN + 6, height: n * SQ + MARGIN + 6, rx: 14, class: 'frame' }),
    );
    for (let i = 0; i < n; i++) {
      const file = m.flipped ? n - 1 - i : i;
      const rank = m.flipped ? i + 1 : n - i;
      frame.appendChild(
        s('text', { x: i * SQ + SQ / 2, y: n * SQ + 26, class: 'coord', 'text-anchor': 'middle' }, String.fromCharCode(97 + file)),
      );
      frame.appendChild(s('text', { x: -MARGIN / 2, y: i * SQ + SQ / 2 + 8, class: 'coord', 'text-anchor': 'middle' }, String(rank)));
    }

    // Squares, with the last move, the selection and the destinations.
    const last = new Set(m.lastMove || []);
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        if (!spec.exists(x, y)) continue;
        const name = squareName(x, y);
        const [cx, cy] = this.centre(name);
        const cls = ['sq', spec.shade(x, y)];
        if (last.has(name)) cls.push('last');
        if (m.selected === name) cls.push('selected');
        if (m.movable && m.movable.has(name)) cls.push('movable');
        if (m.destinations && m.destinations.has(name)) cls.push('dest-square');
        squares.appendChild(
          s('rect', { x: cx - SQ / 2, y: cy - SQ / 2, width: SQ, height: SQ, class: cls.join(' '), dataset: { square: name } }),
        );
      }
    }

    if (spec.decorate) spec.decorate({ marks, over, pieces }, m, (sq) => this.centre(sq));

    if (this.cursor) {
      const [cx, cy] = this.centre(this.cursor);
      over.appendChild(s('rect', { x: cx - SQ / 2 + 4, y: cy - SQ / 2 + 4, width: SQ - 8, height: SQ - 8, rx: 10, class: 'cursor', dataset: { square: this.cursor } }));
    }

    // Pieces.
    const occupied = new Set(m.position ? m.position.pieces.keys() : []);
    for (const name of occupied) {
      const node = spec.drawPiece(name, m);
      if (!node) continue;
      const [cx, cy] = this.centre(name);
      const g = s('g', { transform: `translate(${cx} ${cy})`, class: 'at', dataset: { square: name } }, [
        s('g', { class: 'anim' }, node),
      ]);
      if (this.pointer && this.pointer.dragging && this.pointer.square === name) g.classList.add('lifted');
      pieces.appendChild(g);
    }

    // Where the selected piece may go.
    for (const [name, info] of m.destinations || []) {
      const [cx, cy] = this.centre(name);
      const g = s('g', { class: `dest${m.hover === name ? ' hover' : ''}`, transform: `translate(${cx} ${cy})`, dataset: { square: name } });
      if (occupied.has(name)) g.appendChild(s('circle', { r: 44, class: 'dest-ring' }));
      else g.appendChild(s('circle', { r: info.label ? 19 : 15, class: 'dest-dot' }));
      if (info.label) g.appendChild(s('text', { y: 7, 'text-anchor': 'middle', class: 'dest-label' }, info.label));
      if (info.call) g.appendChild(s('text', { x: 30, y: -24, 'text-anchor': 'middle', class: 'dest-call' }, '!'));
      over.appendChild(g);
    }

    // A path to show (a jump chain: the hovered one, or the last move's).
    for (const [path, cls] of [[m.lastPath, 'path last-path'], [m.path, 'path']]) {
      if (!path || path.length < 2) continue;
      const points = path.map((sq) => this.centre(sq).join(',')).join(' ');
      over.appendChild(s('polyline', { points, class: cls, 'marker-end': 'url(#arrow)' }));
      for (const sq of path.slice(1, -1)) {
        const [cx, cy] = this.centre(sq);
        over.appendChild(s('circle', { cx, cy, r: 9, class: `${cls} hop` }));
      }
    }
    // The engine's moves (the analysis board): the best first, thickest.
    (m.arrows || []).forEach((squares, rank) => {
      const cls = `engine-arrow rank-${rank}`;
      if (squares.length === 1) {
        const [cx, cy] = this.centre(squares[0]);
        over.appendChild(s('circle', { cx, cy, r: 30, class: cls, dataset: { rank: String(rank) } }));
        return;
      }
      const points = squares.map((sq) => this.centre(sq).join(',')).join(' ');
      over.appendChild(s('polyline', { points, class: cls, 'marker-end': `url(#engine-head-${rank})`, dataset: { rank: String(rank) } }));
    });
    for (let rank = 0; rank < (m.arrows || []).length; rank++) {
      if (this.svg.querySelector(`#engine-head-${rank}`)) continue;
      this.svg.querySelector('defs').appendChild(
        s('marker', { id: `engine-head-${rank}`, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 2.6, markerHeight: 2.6, orient: 'auto-start-reverse' }, [
          s('path', { d: 'M0,0L10,5L0,10z', class: `engine-head rank-${rank}` }),
        ]),
      );
    }
    if (!this.svg.querySelector('#arrow')) {
      this.svg.querySelector('defs').appendChild(
        s('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 6, refY: 5, markerWidth: 3.2, markerHeight: 3.2, orient: 'auto-start-reverse' }, [
          s('path', { d: 'M0,0L10,5L0,10z', class: 'arrow-head' }),
        ]),
      );
    }
  }

  /** Slides the piece now on `to` from `from` along `path` (squares). */
  animate(squares) {
    if (!squares || squares.length < 2 || matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const to = squares[squares.length - 1];
    const node = this.layers.pieces.querySelector(`g.at[data-square="${to}"] > g.anim`);
    if (!node) return;
    const [tx, ty] = this.centre(to);
    const frames = squares.map((sq) => {
      const [x, y] = this.centre(sq);
      return { transform: `translate(${x - tx}px, ${y - ty}px)` };
    });
    node.animate(frames, { duration: Math.min(520, 170 * (squares.length - 1)), easing: 'ease-in-out' });
  }

  /** Brings the piece now on `to` in from a point on the screen (a drop from the reserve). */
  animateFrom(clientX, clientY, to) {
    if (matchMedia('(prefers-reduced-motion: reduce)').matches) return;
    const node = this.layers.pieces.querySelector(`g.at[data-square="${to}"] > g.anim`);
    const m = this.svg.getScreenCTM();
    if (!node || !m) return;
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse());
    const [tx, ty] = this.centre(to);
    node.animate(
      [
        { transform: `translate(${p.x - tx}px, ${p.y - ty}px) scale(0.45)`, opacity: 0.4 },
        { transform: 'translate(0px, 0px) scale(1)', opacity: 1 },
      ],
      { duration: 420, easing: 'cubic-bezier(0.2, 0.7, 0.3, 1)' },
    );
  }

  // ---- pointer: click or drag ----

  svgPoint(e) {
    const m = this.svg.getScreenCTM();
    if (!m) return [0, 0];
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  pointerDown(e) {
    if (e.button !== 0) return;
    if (this.cursor) {
      // The mouse or a finger takes over from the keyboard.
      this.cursor = null;
      this.draw();
    }
    const [px, py] = this.svgPoint(e);
    const square = this.squareAt(px, py);
    if (!square) return;
    this.pointer = { square, x: e.clientX, y: e.clientY, dragging: false, id: e.pointerId };
    e.preventDefault();
  }

  pointerMove(e) {
    const p = this.pointer;
    const [px, py] = this.svgPoint(e);
    if (!p) {
      if (this.onHover && e.pointerType === 'mouse') this.onHover(this.squareAt(px, py));
      return;
    }
    if (!p.dragging) {
      if (Math.hypot(e.clientX - p.x, e.clientY - p.y) < 6) return;
      if (!this.canDrag || !this.canDrag(p.square)) return;
      p.dragging = true;
      // The caller selects the piece: its destinations show while it is dragged.
      if (this.onDragStart) this.onDragStart(p.square);
      const source = this.layers.pieces.querySelector(`g.at[data-square="${p.square}"]`);
      if (!source) {
        p.dragging = false;
        return;
      }
      try {
        this.svg.setPointerCapture(p.id);
      } catch (err) {
        // the pointer may be gone already
      }
      source.classList.add('lifted');
      p.ghost = source.cloneNode(true);
      p.ghost.classList.add('ghost');
      this.layers.drag.appendChild(p.ghost);
    }
    // Under a finger the piece is lifted above it, larger, so that it stays in sight.
    const [lift, scale] = e.pointerType === 'touch' ? [SQ * 0.7, 1.3] : [8, 1.08];
    p.ghost.setAttribute('transform', `translate(${px} ${py - lift}) scale(${scale})`);
    if (this.onHover) this.onHover(this.squareAt(px, py));
  }

  pointerUp(e) {
    const p = this.pointer;
    this.pointer = null;
    if (!p) return;
    const [px, py] = this.svgPoint(e);
    const square = this.squareAt(px, py);
    if (p.dragging) {
      clear(this.layers.drag);
      const lifted = this.layers.pieces.querySelector('g.lifted');
      if (lifted) lifted.classList.remove('lifted');
      if (square && square !== p.square && this.onDrop) this.onDrop(p.square, square);
      return;
    }
    if (square && square === p.square && this.onSquare) this.onSquare(square);
  }

  cancelDrag() {
    this.pointer = null;
    clear(this.layers.drag);
    const lifted = this.layers.pieces.querySelector('g.lifted');
    if (lifted) lifted.classList.remove('lifted');
  }
}
