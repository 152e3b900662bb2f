// The game page: the board, the players, the move list and the controls.
// Everything about the rules comes from the server's state: the legal moves
// (grouped by square), the position string, the result.

import { request, follow, seatsOf, ApiError } from './api.js';
import { SALTA_START, FOCUS_START, createGame } from './pages.js';
import { h, clear, toast } from './dom.js';
import { t, levelName, onLangChange } from './i18n.js';
import { parseSalta, parseFocus, moveSquares } from './position.js';
import { saltaBoard } from './salta-board.js';
import { focusBoard } from './focus-board.js';
import { smallDisc } from './pieces.js';

const SIDES = ['white', 'black'];
const other = (side) => (side === 'white' ? 'black' : 'white');

export function gamePage(main, id) {
  const page = new GamePage(main, id);
  page.start();
  return () => page.stop();
}

class GamePage {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.view = null;
    this.seats = seatsOf(id);
    this.selected = null; // a square, or 'reserve'
    this.size = null; // Focus: the group size chosen, or null for any
    this.hover = null;
    this.viewing = null; // a ply being looked at, or null for now
    this.positions = null; // { version, list } from /web/games/{id}/positions
    this.targets = null; // Salta: token -> target square
    this.showTargets = localStorage.getItem('monte.targets') === 'on';
    this.flipped = null;
    this.pending = false;
    this.connection = 'connecting';
    this.bannerHidden = false;
    this.confirmResign = false;
    this.timers = [];
    this.draggedTo = null; // the square a piece was just dragged to (not animated again)
  }

  async start() {
    clear(this.main);
    this.main.appendChild(h('div', { class: 'loading' }, t('loading')));
    const token = this.seats.white || this.seats.black;
    try {
      const answer = await request('GET', `/api/games/${encodeURIComponent(this.id)}`, undefined, token);
      this.view = answer.game;
      // Only this answer has it (to a seat holder): states pushed to everyone do not.
      this.invite = answer.game.invite;
    } catch (e) {
      clear(this.main);
      this.main.appendChild(
        h('section', { class: 'card narrow' }, [
          h('h1', {}, t('noGame')),
          h('p', {}, e instanceof ApiError && e.status === 404 ? t('noGameText') : e.message),
          h('a', { href: '/', class: 'button primary' }, t('newGame')),
        ]),
      );
      return;
    }
    if (this.stopped) return;
    const mine = this.mySides();
    this.flipped = mine.length === 1 && mine[0] === 'black';
    this.build();
    this.render();
    if (this.view.game === 'salta') this.loadTargets();
    this.socket = follow(
      this.id,
      (view) => this.apply(view),
      (status) => {
        this.connection = status;
        this.renderConnection();
        // Missed changes come with the greeting state after a reconnect.
      },
    );
    this.timers.push(setInterval(() => this.tickClocks(), 200));
    this.keys = (e) => this.onKey(e);
    document.addEventListener('keydown', this.keys);
    this.unlang = onLangChange(() => {
      this.build();
      this.render();
    });
  }

  stop() {
    this.stopped = true;
    if (this.socket) this.socket.close();
    for (const timer of this.timers) clearInterval(timer);
    if (this.keys) document.removeEventListener('keydown', this.keys);
    if (this.unlang) this.unlang();
  }

  async loadTargets() {
    try {
      const answer = await request('GET', `/web/salta/targets?rules=${encodeURIComponent(this.view.rules)}`);
      this.targets = answer.targets;
      this.render();
    } catch (e) {
      // Targets are a help only: the game goes on without them.
    }
  }

  /** The sides whose tokens this browser holds. */
  mySides() {
    return SIDES.filter((side) => this.seats[side]);
  }

  /** The side this browser may act for now, or null. */
  actor() {
    const v = this.view;
    if (!v || v.status !== 'active' || this.viewing !== null) return null;
    return this.seats[v.side_to_move] ? v.side_to_move : null;
  }

  /** The token to use for an action that is not a move. */
  actionToken() {
    const mine = this.mySides();
    if (mine.length === 2) return this.seats[this.view.side_to_move];
    return mine.length ? this.seats[mine[0]] : null;
  }

  opponentIsAi() {
    const mine = this.mySides();
    return mine.length === 1 && this.view.seats[other(mine[0])].player === 'ai';
  }

  apply(view) {
    if (!view || view.id !== this.id) return;
    const old = this.view;
    if (old && view.version < old.version) return;
    if (old && view.version === old.version) return;
    this.view = view;
    if (old && old.ply !== view.ply) {
      this.selected = null;
      this.size = null;
      this.closePopover();
    }
    if (old && old.status !== 'over' && view.status === 'over') this.bannerHidden = false;
    this.render();
    // Show the move just made: a slide along its path, or a drop flying in
    // from the reserve. A move dragged by hand is already where it went.
    if (old && view.ply === old.ply + 1 && this.viewing === null) {
      const last = view.history[view.history.length - 1];
      const squares = moveSquares(last);
      const dragged = this.draggedTo !== null && squares[squares.length - 1] === this.draggedTo;
      if (!dragged) this.animateMove(last, squares, old.side_to_move);
    }
    this.draggedTo = null;
  }

  animateMove(notation, squares, mover) {
    if (notation.startsWith('@') && squares.length === 1) {
      const reserve = this.main.querySelector(`[data-reserve="${mover}"]`);
      const box = reserve && reserve.getBoundingClientRect();
      if (box && box.width) this.board.animateFrom(box.left + box.width / 2, box.top + box.height / 2, squares[0]);
    } else if (squares.length >= 2) {
      this.board.animate(squares);
    }
  }

  // ---- layout ----

  build() {
    const v = this.view;
    clear(this.main);
    this.boardWrap = h('div', { class: 'board-wrap' });
    this.barTop = h('div', { class: 'player-bar' });
    this.barBottom = h('div', { class: 'player-bar' });
    this.statusBox = h('div', { class: 'status', 'aria-live': 'polite' });
    this.noticeBox = h('div', { class: 'notices' });
    this.choiceBox = h('div', { class: 'choices' });
    this.movesBox = h('ol', { class: 'moves' });
    this.navBox = h('div', { class: 'move-nav' });
    this.actionsBox = h('div', { class: 'actions' });
    this.entryInput = h('input', {
      type: 'text',
      class: 'entry-input',
      placeholder: v.game === 'salta' ? t('entryPlaceholderSalta') : t('entryPlaceholderFocus'),
      autocomplete: 'off',
      autocapitalize: 'off',
      spellcheck: 'false',
      list: 'legal-list',
      'aria-label': t('entryLabel'),
    });
    this.legalList = h('datalist', { id: 'legal-list' });
    this.entryForm = h(
      'form',
      {
        class: 'entry',
        onsubmit: (e) => {
          e.preventDefault();
          const text = this.entryInput.value.trim();
          if (text) this.play(text, () => (this.entryInput.value = ''));
        },
      },
      [this.entryInput, this.legalList, h('button', { type: 'submit', class: 'button' }, t('play'))],
    );
    this.connectionBox = h('span', { class: 'connection' });
    const title = h('div', { class: 'game-title' }, [
      h('span', { class: 'game-name' }, t(v.game)),
      h('span', { class: 'rules-name' }, v.rules),
      this.connectionBox,
    ]);
    this.main.appendChild(
      h('div', { class: `game-page game-${v.game}` }, [
        h('section', { class: 'board-col' }, [this.barTop, this.boardWrap, this.barBottom]),
        h('aside', { class: 'side-col' }, [
          h('div', { class: 'card status-card' }, [title, this.statusBox, this.noticeBox, this.choiceBox]),
          h('div', { class: 'card moves-card' }, [h('h2', {}, t('moves')), this.movesBox, this.navBox, this.entryForm]),
          h('div', { class: 'card actions-card' }, [this.actionsBox]),
        ]),
      ]),
    );
    this.board = v.game === 'salta' ? saltaBoard(this.boardWrap) : focusBoard(this.boardWrap);
    this.board.onSquare = (sq) => this.clickSquare(sq);
    this.board.onDrop = (from, to) => this.dropOn(from, to);
    this.board.onDragStart = (square) => {
      if (this.selected === square) return;
      this.closePopover();
      this.selected = square;
      this.size = null;
      this.render();
    };
    this.board.canDrag = (sq) => this.actor() !== null && !this.pending && Boolean(this.view.legal_moves.from[sq]);
    this.board.onHover = (sq) => {
      if (sq !== this.hover) {
        this.hover = sq;
        this.renderBoard();
      }
    };
    this.popover = h('div', { class: 'popover', hidden: true });
    this.banner = h('div', { class: 'banner', hidden: true });
    this.boardWrap.append(this.popover, this.banner);
    this.renderConnection();
  }

  render() {
    if (!this.view || !this.board) return;
    this.renderBoard();
    this.renderBars();
    this.renderStatus();
    this.renderChoices();
    this.renderMoves();
    this.renderActions();
    this.renderBanner();
    this.renderLegalList();
  }

  renderConnection() {
    if (!this.connectionBox) return;
    const live = this.connection === 'open';
    this.connectionBox.className = `connection ${live ? 'live' : 'down'}`;
    this.connectionBox.textContent = live ? t('live') : t('reconnecting');
  }

  // ---- the board ----

  /** The position shown: now, or the ply being looked at. */
  shownFen() {
    if (this.viewing !== null && this.positions) return this.positions.list[this.viewing];
    return this.view.fen;
  }

  /** Moves from the selection, by destination: Map(to -> [move]). */
  destinations() {
    const legal = this.view.legal_moves;
    const map = new Map();
    if (!this.selected || this.actor() === null) return map;
    const moves = this.selected === 'reserve' ? legal.drops : legal.from[this.selected] || [];
    for (const m of moves) {
      if (this.size !== null && m.kind === 'group' && m.count !== this.size) continue;
      if (this.size !== null && m.kind === 'jump' && this.size !== 1) continue;
      if (!map.has(m.to)) map.set(m.to, []);
      map.get(m.to).push(m);
    }
    return map;
  }

  renderBoard() {
    const v = this.view;
    const fen = this.shownFen();
    const position = v.game === 'salta' ? parseSalta(fen) : parseFocus(fen);
    const ply = this.viewing === null ? v.ply : this.viewing;
    const lastText = ply > 0 ? v.history[ply - 1] : null;
    const lastSquares = moveSquares(lastText);
    const dests = new Map();
    let path = null;
    const tall = this.selected && this.selected !== 'reserve' && v.game === 'focus';
    for (const [to, moves] of this.destinations()) {
      const info = {};
      if (tall) {
        const labels = [...new Set(moves.map((m) => (m.kind === 'jump' ? '×' : String(m.count))))];
        const height = (position.stacks.get(this.selected) || '').length;
        if (height > 1 || labels.includes('×')) info.label = labels.join('/');
      }
      if (moves.some((m) => m.call)) info.call = true;
      dests.set(to, info);
      if (to === this.hover) {
        const jump = moves.find((m) => m.path && m.path.length);
        if (jump) path = [this.selected, ...jump.path];
      }
    }
    const actor = this.actor();
    const movable = new Set(actor && !this.pending ? Object.keys(v.legal_moves.from) : []);
    this.board.update({
      position,
      flipped: this.flipped,
      selected: this.selected !== 'reserve' ? this.selected : null,
      destinations: dests,
      hover: this.hover,
      lastMove: lastSquares,
      lastPath: lastText && lastText.includes(':') ? lastSquares : null,
      path,
      movable,
      targets: this.targets,
      showTargets: this.showTargets,
    });
    this.boardWrap.classList.toggle('history', this.viewing !== null);
  }

  clickSquare(square) {
    const v = this.view;
    if (this.actor() === null || this.pending) return;
    this.closePopover();
    const legal = v.legal_moves;
    const dests = this.destinations();
    if (this.selected && dests.has(square)) {
      this.choose(square, dests.get(square));
      return;
    }
    if (legal.from[square] && this.selected !== square) {
      this.selected = square;
      this.size = null;
    } else {
      this.selected = null;
      this.size = null;
    }
    this.render();
  }

  dropOn(from, to) {
    if (this.actor() === null || this.pending) return;
    if (this.selected !== from) {
      this.selected = from;
      this.size = null;
    }
    const dests = this.destinations();
    if (dests.has(to)) {
      this.draggedTo = to;
      this.choose(to, dests.get(to));
    } else this.render();
  }

  /** Plays the move to `to`, asking which one when there are several. */
  choose(to, moves) {
    if (moves.length === 1) {
      this.play(moves[0].notation);
      return;
    }
    const order = (m) => (m.call ? 1 : 0) + (m.kind === 'jump' ? 10 : m.count || 0);
    const options = [...moves].sort((a, b) => order(a) - order(b));
    this.openPopover(to, options);
  }

  optionLabel(m) {
    if (this.view.game === 'salta') return m.call ? t('moveWithCall') : t('moveNoCall');
    if (m.kind === 'jump') return t('jumpOption');
    return t('groupOption', { n: m.count });
  }

  openPopover(square, moves) {
    const rect = this.board.screenRect(square);
    const wrap = this.boardWrap.getBoundingClientRect();
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
              this.play(m.notation);
            },
          },
          [h('span', {}, this.optionLabel(m)), h('small', {}, m.notation)],
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

  async play(text, done) {
    const side = this.actor();
    if (side === null) {
      toast(this.view.status === 'active' ? t('notYourTurn') : t('gameNotActive'), 'error');
      return;
    }
    this.pending = true;
    this.renderBoard();
    try {
      const answer = await request(
        'POST',
        `/api/games/${encodeURIComponent(this.id)}/moves`,
        { move: text, ply: this.view.ply },
        this.seats[side],
      );
      this.pending = false;
      this.selected = null;
      this.size = null;
      if (done) done();
      // The socket may have brought this state first (drawn while the move was pending).
      if (answer.game.version <= this.view.version) this.render();
      else this.apply(answer.game);
    } catch (e) {
      this.pending = false;
      this.draggedTo = null;
      this.renderBoard();
      this.failed(e, 'moveRefused');
    }
  }

  failed(e, what) {
    if (e.status === 0) {
      toast(t('offline'), 'error');
      if (this.socket) this.socket.poke();
      return;
    }
    toast(`${t(what)}: ${e.message}`, 'error');
    // The game may have moved on: fetch it again.
    this.refresh();
  }

  async refresh() {
    try {
      const answer = await request('GET', `/api/games/${encodeURIComponent(this.id)}`);
      this.apply(answer.game);
    } catch (e) {
      // the socket will bring it
    }
  }

  async act(path, body, what) {
    const token = this.actionToken();
    try {
      const answer = await request('POST', `/api/games/${encodeURIComponent(this.id)}/${path}`, body || {}, token);
      this.apply(answer.game);
    } catch (e) {
      this.failed(e, what);
    }
  }

  /**
   * A new game with the same settings and the colours swapped (on one
   * screen: the same seats). Against a friend the new game waits for him
   * through a new invite link.
   */
  async rematch(button) {
    const v = this.view;
    const mine = this.mySides();
    if (!mine.length) return;
    const body = { game: v.game, rules: v.rules };
    if (mine.length === 2) {
      body.white = 'me';
      body.black = 'me';
    } else {
      const was = mine[0];
      const opponent = v.seats[other(was)];
      body[other(was)] = 'me';
      body[was] = opponent.player === 'ai' ? `ai:${opponent.level}` : 'open';
      if (v.seats[was].name) body.name = v.seats[was].name;
    }
    if (v.clock) body.clock = { minutes: v.clock.initial_ms / 60000, increment: v.clock.increment_ms / 1000 };
    const usualStart = v.game === 'salta' ? SALTA_START : FOCUS_START;
    if (v.start_fen !== usualStart) body.fen = v.start_fen;
    if (button) button.disabled = true;
    try {
      await createGame(body);
    } catch (e) {
      if (button) button.disabled = false;
      toast(`${t('createFailed')}: ${e.message}`, 'error');
    }
  }

  // ---- the players ----

  renderBars() {
    const bottom = this.flipped ? 'black' : 'white';
    this.renderBar(this.barBottom, bottom);
    this.renderBar(this.barTop, other(bottom));
  }

  playerName(side) {
    const seat = this.view.seats[side];
    if (seat.player === 'ai') return `${t('computer')} · ${levelName(seat.level)}`;
    if (seat.open) return t('openSeat');
    return seat.name || t(side === 'white' ? 'whitePlayer' : 'blackPlayer');
  }

  renderBar(bar, side) {
    const v = this.view;
    const seat = v.seats[side];
    const toMove = v.status === 'active' && v.side_to_move === side;
    bar.className = `player-bar ${side}${toMove ? ' to-move' : ''}`;
    bar.dataset.side = side;
    clear(bar);
    const who = h('div', { class: 'who' }, [
      h('span', { class: `side-dot ${side}`, title: t(side) }),
      h('span', { class: 'name' }, this.playerName(side)),
      this.seats[side] && this.mySides().length === 1 ? h('span', { class: 'tag' }, t('you')) : null,
      seat.player === 'ai' && v.ai_thinking && toMove ? h('span', { class: 'thinking' }, [t('aiThinking'), h('i'), h('i'), h('i')]) : null,
    ]);
    bar.appendChild(who);
    if (v.game === 'focus') bar.appendChild(this.focusSupply(side));
    if (v.clock) {
      bar.appendChild(h('span', { class: `clock${v.clock.running === side ? ' running' : ''}`, dataset: { clock: side } }, ''));
    }
    this.tickClocks();
  }

  /** Focus: a side's reserve (click to drop) and the pieces it lost. */
  focusSupply(side) {
    const position = parseFocus(this.shownFen());
    const reserve = position.reserve[side];
    const captured = position.captured[side];
    const canDrop = this.actor() === side && this.view.legal_moves.drops.length > 0 && !this.pending;
    const discs = (n, colour) => {
      const shown = Math.min(n, 6);
      const list = [];
      for (let i = 0; i < shown; i++) list.push(smallDisc(colour));
      return list;
    };
    const reserveButton = h(
      'button',
      {
        class: `reserve${this.selected === 'reserve' && this.actor() === side ? ' selected' : ''}`,
        disabled: !canDrop,
        dataset: { reserve: side },
        title: t('reserveHelp'),
        onclick: () => {
          this.selected = this.selected === 'reserve' ? null : 'reserve';
          this.size = null;
          this.closePopover();
          this.render();
        },
      },
      [h('span', { class: 'supply-label' }, t('reserve')), h('span', { class: 'discs' }, discs(reserve, side)), h('b', { class: 'count' }, String(reserve))],
    );
    const lost = h('span', { class: 'captured', dataset: { captured: side }, title: t('capturedHelp') }, [
      h('span', { class: 'supply-label' }, t('captured')),
      h('span', { class: 'discs' }, discs(captured, side)),
      h('b', { class: 'count' }, String(captured)),
    ]);
    return h('div', { class: 'supply' }, [reserveButton, lost]);
  }

  tickClocks() {
    const v = this.view;
    if (!v || !v.clock) return;
    const c = v.clock;
    const received = this.receivedAt || (this.receivedAt = { version: v.version, at: performance.now() });
    if (received.version !== v.version) this.receivedAt = { version: v.version, at: performance.now() };
    const elapsed = performance.now() - this.receivedAt.at;
    for (const side of SIDES) {
      const node = this.main.querySelector(`[data-clock="${side}"]`);
      if (!node) continue;
      let ms = side === 'white' ? c.white_ms : c.black_ms;
      if (c.running === side && v.status === 'active') ms -= elapsed;
      ms = Math.max(0, ms);
      const total = Math.ceil(ms / 1000);
      const text = ms < 10000 ? (ms / 1000).toFixed(1) : `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
      if (node.textContent !== text) node.textContent = text;
      node.classList.toggle('low', ms < 20000);
    }
  }

  // ---- status, notices, choices ----

  renderStatus() {
    const v = this.view;
    const actor = this.actor();
    let text;
    if (v.status === 'waiting') text = t('waitingOpponent');
    else if (v.status === 'over') text = this.resultText();
    else if (actor && this.mySides().length === 1) text = t('yourMove');
    else if (v.ai_thinking) text = t('aiThinking');
    else text = t(v.side_to_move === 'white' ? 'whiteToMove' : 'blackToMove');
    this.statusBox.textContent = text;
    this.statusBox.className = `status${actor ? ' act' : ''}`;
    // The tab says when it is your move, for a player looking at another tab.
    const mark = actor && this.mySides().length === 1 ? '● ' : '';
    document.title = `${mark}${text} · ${t(v.game)} — Monte`;

    clear(this.noticeBox);
    const position = v.game === 'salta' ? parseSalta(v.fen) : null;
    if (position && position.call && v.status === 'active') {
      const mustJump = actor ? t('callYou', { square: position.call }) : t('callThem', { side: t(v.side_to_move), square: position.call });
      this.noticeBox.appendChild(h('div', { class: 'notice salta-call' }, [h('b', {}, `${t('saltaCall')} `), mustJump]));
    }
    if (v.legal_moves.pass && actor) {
      this.noticeBox.appendChild(
        h('div', { class: 'notice' }, [
          t('mustPass'),
          ' ',
          h('button', { class: 'button', onclick: () => this.play(v.legal_moves.pass) }, t('pass')),
        ]),
      );
    }
    if (v.status === 'waiting' && this.invite && this.mySides().length) {
      const url = `${location.origin}/invite/${this.invite}`;
      const input = h('input', { type: 'text', readonly: true, value: url, class: 'invite-url', onfocus: (e) => e.target.select() });
      this.noticeBox.appendChild(
        h('div', { class: 'notice invite' }, [
          h('p', {}, t('inviteText')),
          h('div', { class: 'invite-row' }, [
            input,
            h('button', { class: 'button primary', onclick: () => copy(input) }, t('copy')),
          ]),
        ]),
      );
    }
    const mine = this.mySides();
    if (v.draw_offer && v.status === 'active') {
      const offeredToMe = mine.length === 1 && v.draw_offer !== mine[0];
      if (offeredToMe) {
        this.noticeBox.appendChild(
          h('div', { class: 'notice draw-offer' }, [
            t('drawOffered'),
            h('div', { class: 'row' }, [
              h('button', { class: 'button primary', onclick: () => this.act('draw', { action: 'accept' }, 'actionRefused') }, t('accept')),
              h('button', { class: 'button', onclick: () => this.act('draw', { action: 'decline' }, 'actionRefused') }, t('decline')),
            ]),
          ]),
        );
      } else if (mine.length === 1) {
        this.noticeBox.appendChild(h('div', { class: 'notice' }, t('drawSent')));
      }
    }
    if (!mine.length && v.status !== 'over') this.noticeBox.appendChild(h('div', { class: 'notice watching' }, t('watching')));
    if (this.viewing !== null) {
      this.noticeBox.appendChild(
        h('div', { class: 'notice history-note' }, [
          t('viewingMove', { ply: this.viewing }),
          ' ',
          h('button', { class: 'button', onclick: () => this.goTo(null) }, t('backToGame')),
        ]),
      );
    }
  }

  renderChoices() {
    clear(this.choiceBox);
    const v = this.view;
    if (v.game !== 'focus' || !this.selected || this.selected === 'reserve' || this.actor() === null) {
      if (this.selected === 'reserve' && this.actor()) this.choiceBox.appendChild(h('p', { class: 'hint' }, t('dropHint')));
      return;
    }
    const moves = v.legal_moves.from[this.selected] || [];
    const sizes = [...new Set(moves.filter((m) => m.kind === 'group').map((m) => m.count))].sort((a, b) => a - b);
    if (sizes.length < 2 && !moves.some((m) => m.kind === 'jump')) return;
    const chip = (value, label) =>
      h(
        'button',
        {
          class: `chip${this.size === value ? ' on' : ''}`,
          dataset: { size: value === null ? 'all' : String(value) },
          onclick: () => {
            this.size = value;
            this.render();
          },
        },
        label,
      );
    this.choiceBox.appendChild(
      h('div', { class: 'size-picker' }, [
        h('span', {}, t('piecesToMove')),
        chip(null, t('any')),
        ...sizes.map((n) => chip(n, String(n))),
      ]),
    );
  }

  // ---- the move list ----

  renderMoves() {
    const v = this.view;
    clear(this.movesBox);
    const startBlack = parseStartSide(v.start_fen) === 'black';
    const shown = this.viewing === null ? v.ply : this.viewing;
    const cell = (i) =>
      i < v.history.length
        ? h(
            'button',
            {
              class: `mv${i + 1 === shown ? ' current' : ''}`,
              dataset: { ply: String(i + 1) },
              onclick: () => this.goTo(i + 1 === v.ply ? null : i + 1),
            },
            v.history[i],
          )
        : h('span', { class: 'mv empty' });
    let i = 0;
    let number = 1;
    if (startBlack && v.history.length) {
      this.movesBox.appendChild(h('li', {}, [h('span', { class: 'num' }, '1.'), h('span', { class: 'mv empty' }, '…'), cell(0)]));
      i = 1;
      number = 2;
    }
    for (; i < v.history.length; i += 2, number += 1) {
      this.movesBox.appendChild(h('li', {}, [h('span', { class: 'num' }, `${number}.`), cell(i), cell(i + 1)]));
    }
    if (!v.history.length) this.movesBox.appendChild(h('li', { class: 'none' }, t('noMovesYet')));
    // Scroll the list only (never the page) to the move shown.
    const current = this.movesBox.querySelector('.current');
    const box = this.movesBox;
    if (current) {
      const top = current.offsetTop;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - current.offsetHeight) box.scrollTop = top - box.clientHeight / 2;
    } else box.scrollTop = box.scrollHeight;

    clear(this.navBox);
    const nav = (label, title, target, disabled) =>
      h('button', { class: 'button icon', title, 'aria-label': title, disabled, onclick: () => this.goTo(target) }, label);
    const at = shown;
    this.navBox.append(
      nav('«', t('first'), 0, at === 0),
      nav('‹', t('previous'), Math.max(0, at - 1), at === 0),
      nav('›', t('next'), at + 1 >= v.ply ? null : at + 1, this.viewing === null),
      nav('»', t('last'), null, this.viewing === null),
    );
    this.entryForm.hidden = this.mySides().length === 0 || v.status === 'over';
  }

  async goTo(ply) {
    const v = this.view;
    if (ply !== null && (ply >= v.ply || ply < 0)) ply = null;
    if (ply !== null && (!this.positions || this.positions.version !== v.version)) {
      try {
        const answer = await request('GET', `/web/games/${encodeURIComponent(this.id)}/positions`);
        this.positions = { version: answer.version, list: answer.positions };
      } catch (e) {
        toast(`${t('loadFailed')}: ${e.message}`, 'error');
        return;
      }
      if (ply >= this.positions.list.length) ply = null;
    }
    this.viewing = ply;
    this.selected = null;
    this.closePopover();
    this.render();
  }

  renderLegalList() {
    clear(this.legalList);
    const legal = this.view.legal_moves;
    if (this.actor() === null) return;
    const all = [...Object.values(legal.from).flat(), ...legal.drops].map((m) => m.notation);
    if (legal.pass) all.push(legal.pass);
    for (const notation of all.sort()) this.legalList.appendChild(h('option', { value: notation }));
  }

  // ---- actions ----

  renderActions() {
    const v = this.view;
    clear(this.actionsBox);
    const mine = this.mySides();
    const active = v.status === 'active';
    const button = (label, onclick, attrs = {}) => h('button', { class: 'button', onclick, ...attrs }, label);
    const row = [
      button(t('flip'), () => {
        this.flipped = !this.flipped;
        this.render();
      }, { dataset: { action: 'flip' } }),
    ];
    if (v.game === 'salta') {
      row.push(
        button(this.showTargets ? t('hideTargets') : t('showTargets'), () => {
          this.showTargets = !this.showTargets;
          localStorage.setItem('monte.targets', this.showTargets ? 'on' : 'off');
          this.render();
        }, { dataset: { action: 'targets' }, 'aria-pressed': String(this.showTargets) }),
      );
    }
    if (active && this.opponentIsAi()) {
      row.push(button(t('takeback'), () => this.act('takeback', {}, 'actionRefused'), { dataset: { action: 'takeback' }, disabled: v.ply === 0 }));
    }
    if (active && mine.length === 1 && !this.opponentIsAi() && !v.draw_offer) {
      row.push(button(t('offerDraw'), () => this.act('draw', { action: 'offer' }, 'actionRefused'), { dataset: { action: 'draw' } }));
    }
    if (active && mine.length) {
      if (this.confirmResign) {
        row.push(
          h('button', {
            class: 'button danger',
            dataset: { action: 'resign-confirm' },
            onclick: () => {
              this.confirmResign = false;
              this.act('resign', {}, 'actionRefused');
            },
          }, mine.length === 2 ? t('resignSide', { side: t(v.side_to_move) }) : t('reallyResign')),
        );
      } else {
        row.push(
          button(t('resign'), () => {
            this.confirmResign = true;
            this.renderActions();
            setTimeout(() => {
              this.confirmResign = false;
              if (!this.stopped) this.renderActions();
            }, 4000);
          }, { dataset: { action: 'resign' } }),
        );
      }
    }
    if (v.status === 'over' && mine.length) {
      row.push(h('button', { class: 'button primary', dataset: { action: 'rematch' }, onclick: (e) => this.rematch(e.currentTarget) }, t('rematch')));
    }
    row.push(
      h('a', { class: 'button', href: `/api/games/${encodeURIComponent(this.id)}/record`, download: `monte-${v.game}-${this.id}.txt`, dataset: { action: 'record' } }, t('downloadRecord')),
    );
    row.push(h('a', { class: 'button', href: '/' }, t('newGame')));
    this.actionsBox.append(...row);
  }

  resultText() {
    const r = this.view.result;
    if (!r) return '';
    const who = r.winner ? t(r.winner === 'white' ? 'whiteWins' : 'blackWins') : t('draw');
    return who;
  }

  renderBanner() {
    const v = this.view;
    const r = v.result;
    if (!r || this.bannerHidden) {
      this.banner.hidden = true;
      return;
    }
    clear(this.banner);
    const mine = this.mySides();
    let headline = this.resultText();
    if (mine.length === 1 && r.winner) headline = r.winner === mine[0] ? t('youWin') : t('youLose');
    const details = [t(`reason.${r.reason}`) || r.reason];
    if (r.margin !== null && r.margin !== undefined) details.push(t('margin', { n: r.margin }));
    this.banner.append(
      h('div', { class: 'banner-card', role: 'status' }, [
        h('div', { class: 'result-score' }, r.result.replace('1/2', '½')),
        h('h2', {}, headline),
        h('p', {}, details.join(' · ')),
        h('div', { class: 'row' }, [
          mine.length
            ? h('button', { class: 'button primary', dataset: { action: 'rematch' }, onclick: (e) => this.rematch(e.currentTarget) }, t('rematch'))
            : null,
          h('a', { class: `button${mine.length ? '' : ' primary'}`, href: '/' }, t('newGame')),
          h('a', { class: 'button', href: `/api/games/${encodeURIComponent(this.id)}/record`, download: `monte-${v.game}-${this.id}.txt` }, t('downloadRecord')),
          h('button', { class: 'button ghost', onclick: () => { this.bannerHidden = true; this.renderBanner(); } }, t('showBoard')),
        ]),
      ]),
    );
    this.banner.hidden = false;
  }

  onKey(e) {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || e.target.tagName === 'SELECT')) return;
    const v = this.view;
    if (!v) return;
    const shown = this.viewing === null ? v.ply : this.viewing;
    if (e.key === 'ArrowLeft') this.goTo(Math.max(0, shown - 1));
    else if (e.key === 'ArrowRight') this.goTo(shown + 1 >= v.ply ? null : shown + 1);
    else if (e.key === 'Home') this.goTo(0);
    else if (e.key === 'End') this.goTo(null);
    else if (e.key === 'Escape') {
      this.selected = null;
      this.closePopover();
      this.render();
    } else if (/^[a-j@]$/.test(e.key) && this.actor()) {
      // Typing a square starts keyboard entry.
      this.entryInput.focus();
      return;
    } else return;
    e.preventDefault();
  }
}

function parseStartSide(fen) {
  return fen.split(' ')[1] === 'b' ? 'black' : 'white';
}

async function copy(input) {
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    toast(t('copied'));
  } catch (e) {
    document.execCommand('copy');
    toast(t('copied'));
  }
}
