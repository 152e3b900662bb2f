// The game page's board: the position shown with its last move, the
// selection and its destinations, moving by click or drag (a popover asks
// which move when several end on one square), the group sizes a selected
// stack offers, and the moves shown moving.

import { h, clear, toast } from './dom.js';
import { t } from './i18n.js';
import { playedSquares } from './position.js';
import { reserveKey, pickReserve } from './board.js';

export class BoardPanel {
  constructor(page) {
    this.page = page;
  }

  build() {
    const page = this.page;
    this.wrap = h('div', { class: 'board-wrap' });
    this.choiceBox = h('div', { class: 'choices' });
    this.board = page.entry.board(this.wrap, page.kind);
    this.board.onSquare = (sq) => this.clickSquare(sq);
    this.board.onDrop = (from, to) => this.dropOn(from, to);
    this.board.onDragStart = (square) => {
      if (page.selected === square) return;
      this.closePopover();
      page.selected = square;
      page.size = null;
      page.render();
    };
    this.board.canDrag = (sq) => page.actor() !== null && !page.pending && Boolean(page.view.legal_moves.from[sq]);
    this.board.onHover = (sq) => {
      if (sq !== page.hover) {
        page.hover = sq;
        this.render();
      }
    };
    this.board.onKey = (e) => this.boardKey(e);
    this.popover = h('div', { class: 'popover', hidden: true });
    this.wrap.append(this.popover);
  }

  /** The page's side of dropping from the reserve (board.js reserveKey). */
  reserveHost() {
    const page = this.page;
    return {
      board: this.board,
      selected: page.selected,
      reserves: page.entry.reserves,
      canDrop: () => this.canDrop(),
      reserveCount: () => page.shownPosition().reserve[page.actor()],
      select: (selected) => {
        page.selected = selected;
        page.size = null;
        this.closePopover();
        page.render();
      },
      refuse: () => (page.actor() === null || page.pending ? page.cannotMove() : toast(t('noDropNow'), 'error')),
    };
  }

  /** A key on the board besides the cursor's: R for the reserve, Escape (board.js). */
  boardKey(e) {
    return reserveKey(e, this.reserveHost());
  }

  /** Whether this browser may drop from the reserve now. */
  canDrop() {
    const page = this.page;
    return page.actor() !== null && !page.pending && page.view.legal_moves.drops.length > 0;
  }

  /** Picks the reserve to drop from, or puts it back (board.js pickReserve). */
  pickReserve(takeKeys) {
    return pickReserve(this.reserveHost(), takeKeys);
  }

  /** Moves from the selection, by destination: Map(to -> [move]). */
  destinations() {
    const page = this.page;
    const legal = page.view.legal_moves;
    const map = new Map();
    if (!page.selected || page.actor() === null) return map;
    const moves = page.selected === 'reserve' ? legal.drops : legal.from[page.selected] || [];
    for (const m of moves) {
      if (page.size !== null && m.kind === 'group' && m.count !== page.size) continue;
      if (page.size !== null && m.kind === 'jump' && page.size !== 1) continue;
      if (!map.has(m.to)) map.set(m.to, []);
      map.get(m.to).push(m);
    }
    return map;
  }

  render() {
    const page = this.page;
    const v = page.view;
    const position = page.shownPosition();
    const last = page.shownMove();
    const lastSquares = playedSquares(last);
    const from = page.selected !== 'reserve' ? page.selected : null;
    const dests = new Map();
    let path = null;
    for (const [to, moves] of this.destinations()) {
      const info = {};
      const label = from ? page.entry.destinationLabel(moves, position, from) : null;
      if (label) info.label = label;
      if (moves.some((m) => m.call)) info.call = true;
      dests.set(to, info);
      if (to === page.hover) {
        const jump = moves.find((m) => m.path && m.path.length);
        if (jump) path = [page.selected, ...jump.path];
      }
    }
    const actor = page.actor();
    const movable = new Set(actor && !page.pending ? Object.keys(v.legal_moves.from) : []);
    this.board.update({
      position,
      flipped: page.flipped,
      selected: from,
      destinations: dests,
      hover: page.hover,
      lastMove: lastSquares,
      // A jump chain stays drawn as a path.
      lastPath: last && last.path && last.path.length ? lastSquares : null,
      path,
      movable,
      targets: page.targets(),
      showTargets: page.showTargets,
    });
    this.wrap.classList.toggle('history', page.viewing !== null);
  }

  clickSquare(square) {
    const page = this.page;
    if (page.actor() === null || page.pending) {
      page.cannotMove();
      return;
    }
    this.closePopover();
    const dests = this.destinations();
    if (page.selected && dests.has(square)) {
      this.choose(square, dests.get(square));
      return;
    }
    if (page.view.legal_moves.from[square] && page.selected !== square) {
      page.selected = square;
    } else {
      page.selected = null;
    }
    page.size = null;
    page.render();
  }

  dropOn(from, to) {
    const page = this.page;
    if (page.actor() === null || page.pending) {
      page.cannotMove();
      return;
    }
    if (page.selected !== from) {
      page.selected = from;
      page.size = null;
    }
    const dests = this.destinations();
    if (dests.has(to)) {
      page.draggedTo = to;
      this.choose(to, dests.get(to));
    } else page.render();
  }

  /** Plays the move to `to`, asking which one when there are several. */
  choose(to, moves) {
    if (moves.length === 1) {
      this.page.play(moves[0].notation);
      return;
    }
    const order = (m) => (m.call ? 1 : 0) + (m.kind === 'jump' ? 10 : m.count || 0);
    const options = [...moves].sort((a, b) => order(a) - order(b));
    this.openPopover(to, options);
  }

  openPopover(square, moves) {
    const rect = this.board.screenRect(square);
    const wrap = this.wrap.getBoundingClientRect();
    clear(this.popover);
    this.popover.append(
      ...moves.map((m) =>
        h(
          'button',
          {
            class: `button ${m.call ? 'salta' : ''}`,
            dataset: { move: m.notation },
            onclick: () => {
              this.closePopover();
              this.page.play(m.notation);
            },
          },
          [h('span', {}, this.page.entry.choiceLabel(m)), h('small', {}, m.notation)],
        ),
      ),
      h('button', { class: 'button ghost', onclick: () => this.closePopover() }, t('cancel')),
    );
    this.popover.hidden = false;
    if (rect) {
      const left = Math.min(Math.max(rect.left - wrap.left + rect.size / 2, 90), wrap.width - 90);
      const below = rect.top - wrap.top + rect.size;
      const top = below + 150 > wrap.height ? rect.top - wrap.top - 8 : below + 8;
      this.popover.style.left = `${left}px`;
      this.popover.style.top = `${top}px`;
      this.popover.classList.toggle('above', below + 150 > wrap.height);
    }
    const first = this.popover.querySelector('button');
    if (first) first.focus();
  }

  closePopover() {
    if (this.popover) this.popover.hidden = true;
  }

  /** A selected stack's group sizes to choose from (games with `groupSizes`), or the drop hint. */
  renderChoices() {
    const page = this.page;
    clear(this.choiceBox);
    if (!page.entry.groupSizes || !page.selected || page.selected === 'reserve' || page.actor() === null) {
      if (page.selected === 'reserve' && page.actor()) this.choiceBox.appendChild(h('p', { class: 'hint' }, t('dropHint')));
      return;
    }
    const moves = page.view.legal_moves.from[page.selected] || [];
    const sizes = [...new Set(moves.filter((m) => m.kind === 'group').map((m) => m.count))].sort((a, b) => a - b);
    if (sizes.length < 2 && !moves.some((m) => m.kind === 'jump')) return;
    const chip = (value, label) =>
      h(
        'button',
        {
          class: `chip${page.size === value ? ' on' : ''}`,
          dataset: { size: value === null ? 'all' : String(value) },
          onclick: () => {
            page.size = value;
            page.render();
          },
        },
        label,
      );
    this.choiceBox.appendChild(
      h('div', { class: 'size-picker' }, [h('span', {}, t('piecesToMove')), chip(null, t('any')), ...sizes.map((n) => chip(n, String(n)))]),
    );
  }

  /** Shows a move just played: a slide along its squares, or a drop flying in from the mover's reserve. */
  animateMove(move, mover) {
    const squares = playedSquares(move);
    if (move.kind === 'drop' && squares.length === 1) {
      const reserve = this.page.main.querySelector(`[data-reserve="${mover}"]`);
      const box = reserve && reserve.getBoundingClientRect();
      if (box && box.width) this.board.animateFrom(box.left + box.width / 2, box.top + box.height / 2, squares[0]);
    } else if (squares.length >= 2) {
      this.board.animate(squares);
    }
  }
}
