// The game page: the state it keeps (the game, the seats this browser
// holds, the selection, the move looked at) and its parts, each a module:
// the board (game-board.js), the player bars and clocks (game-players.js),
// the status and notices (game-status.js), the move list (game-moves.js)
// and the controls (game-actions.js). Everything about the rules comes
// from the server: the game's state (the legal moves and the last move with
// their squares, the position string, the result) and its kind's
// description (the board, the start position, the targets).

import { request, follow, seatsOf, ApiError } from './api.js';
import { h, clear, toast } from './dom.js';
import { t, onLangChange } from './i18n.js';
import { GAMES, loadKind } from './games.js';
import { SIDES, otherSide } from './position.js';
import { BoardPanel } from './game-board.js';
import { Players } from './game-players.js';
import { StatusPanel } from './game-status.js';
import { MoveList } from './game-moves.js';
import { Actions } from './game-actions.js';
import { missingCard } from './pages.js';
import { playSound } from './sound.js';

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
    this.entry = null; // the game's entry in GAMES
    this.kind = null; // the server's description of the game's kind under its rule set
    this.seats = seatsOf(id);
    this.selected = null; // a square, or 'reserve'
    this.size = null; // the group size chosen, or null for any
    this.hover = null;
    this.viewing = null; // a ply being looked at, or null for now
    this.positions = null; // { version, list, moves } from /web/games/{id}/positions
    this.showTargets = localStorage.getItem('monte.targets') === 'on';
    this.flipped = null;
    this.pending = false;
    this.connection = 'connecting';
    this.timers = [];
    this.draggedTo = null; // the square a piece was just dragged to (not animated again)
    this.declinedAt = null; // the version of the game in which our draw offer was declined
    this.board = new BoardPanel(this);
    this.players = new Players(this);
    this.status = new StatusPanel(this);
    this.moves = new MoveList(this);
    this.actions = new Actions(this);
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
      this.entry = GAMES[this.view.game];
      if (!this.entry) throw new Error(this.view.game);
      this.kind = await loadKind(this.view.game, this.view.rules);
    } catch (e) {
      clear(this.main);
      this.main.appendChild(missingCard(t('noGame'), e instanceof ApiError && e.status === 404 ? t('noGameText') : e.message));
      return;
    }
    if (this.stopped) return;
    const mine = this.mySides();
    this.flipped = mine.length === 1 && mine[0] === 'black';
    this.build();
    this.render();
    this.socket = follow(
      this.id,
      (view, event) => {
        this.apply(view);
        if (event) this.heard(event, view);
      },
      (status) => {
        this.connection = status;
        this.renderConnection();
        // Missed changes come with the greeting state after a reconnect.
      },
    );
    this.timers.push(setInterval(() => this.players.tick(), 200));
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

  /** The sides whose tokens this browser holds. */
  mySides() {
    return SIDES.filter((side) => this.seats[side]);
  }

  /** The side to move in the live game if this browser holds its seat (whatever ply is looked at), or null. */
  seatToMove() {
    const v = this.view;
    if (!v || v.status !== 'active') return null;
    return this.seats[v.side_to_move] ? v.side_to_move : null;
  }

  /** The side this browser may act for now (looking at the live position), or null. */
  actor() {
    return this.viewing === null ? this.seatToMove() : null;
  }

  /** The token to use for an action that is not a move. */
  actionToken() {
    const mine = this.mySides();
    if (mine.length === 2) return this.seats[this.view.side_to_move];
    return mine.length ? this.seats[mine[0]] : null;
  }

  opponentIsAi() {
    const mine = this.mySides();
    return mine.length === 1 && this.view.seats[otherSide(mine[0])].player === 'ai';
  }

  /** Each piece's target square (token -> square), for games that have them; else null. */
  targets() {
    return Object.keys(this.kind.targets).length ? this.kind.targets : null;
  }

  /** The position shown, read from its string: now, or the ply being looked at. */
  shownPosition() {
    const fen = this.viewing !== null && this.positions ? this.positions.list[this.viewing] : this.view.fen;
    return this.entry.parse(fen, this.kind);
  }

  /** The move that led to the position shown, with its squares (null at the start). */
  shownMove() {
    if (this.viewing === null) return this.view.last_move;
    return this.viewing > 0 && this.positions ? this.positions.moves[this.viewing - 1] : null;
  }

  apply(view) {
    if (!view || view.id !== this.id) return;
    const old = this.view;
    if (old && view.version <= old.version) return;
    this.view = view;
    if (old && old.ply !== view.ply) {
      this.selected = null;
      this.size = null;
      this.board.closePopover();
    }
    if (old && old.status !== 'over' && view.status === 'over') this.actions.bannerHidden = false;
    this.render();
    if (old) this.sound(old, view);
    // Show the move just made: a slide along its path, or a drop flying in
    // from the reserve. A move dragged by hand is already where it went.
    const move = view.last_move;
    if (old && move && view.ply === old.ply + 1 && this.viewing === null) {
      const dragged = this.draggedTo !== null && move.to === this.draggedTo;
      if (!dragged) this.board.animateMove(move, old.side_to_move);
    }
    this.draggedTo = null;
  }

  /** The sound of a change: the game's end, else a move (a call, a jump or capture, a plain move). */
  sound(old, view) {
    if (old.status !== 'over' && view.status === 'over') return playSound('end');
    if (view.ply !== old.ply + 1 || !view.last_move) return;
    const before = this.entry.parse(old.fen, this.kind);
    const after = this.entry.parse(view.fen, this.kind);
    const captured = (p) => (p.captured ? p.captured.white + p.captured.black : 0);
    if (after.call) playSound('call');
    else if (view.last_move.kind === 'jump' || captured(after) > captured(before)) playSound('capture');
    else playSound('move');
  }

  /** An event pushed with a change: the player whose draw offer was declined is told. */
  heard(event, view) {
    const mine = this.mySides();
    if (event.type !== 'draw_declined' || mine.length !== 1 || event.by === mine[0]) return;
    // Shown until the game changes again.
    this.declinedAt = view.version;
    toast(t('drawDeclined'));
    this.status.render();
  }

  // ---- layout ----

  build() {
    const v = this.view;
    clear(this.main);
    this.players.build();
    this.board.build();
    this.status.build();
    this.moves.build();
    this.actions.build(this.board.wrap);
    this.connectionBox = h('span', { class: 'connection' });
    const title = h('div', { class: 'game-title' }, [
      h('span', { class: 'game-name' }, t(v.game)),
      h('span', { class: 'rules-name' }, v.rules),
      this.connectionBox,
    ]);
    this.main.appendChild(
      h('div', { class: `game-page game-${v.game}` }, [
        h('section', { class: 'board-col' }, [this.players.top, this.board.wrap, this.players.bottom]),
        h('aside', { class: 'side-col' }, [
          h('div', { class: 'card status-card' }, [title, this.status.line, this.status.notices, this.board.choiceBox]),
          h('div', { class: 'card moves-card' }, [h('h2', {}, t('moves')), this.moves.list, this.moves.nav, this.moves.form]),
          h('div', { class: 'card actions-card' }, [this.actions.box]),
        ]),
      ]),
    );
    this.renderConnection();
  }

  render() {
    if (!this.view || !this.board.board) return;
    this.board.render();
    this.players.render();
    this.status.render();
    this.board.renderChoices();
    this.moves.render();
    this.actions.render();
  }

  renderConnection() {
    if (!this.connectionBox) return;
    const live = this.connection === 'open';
    this.connectionBox.className = `connection ${live ? 'live' : 'down'}`;
    this.connectionBox.textContent = live ? t('live') : t('reconnecting');
  }

  // ---- talking to the server ----

  async play(text, done) {
    const side = this.actor();
    if (side === null || this.pending) {
      this.cannotMove();
      return;
    }
    this.pending = true;
    this.board.render();
    this.status.render();
    try {
      const answer = await request('POST', `/api/games/${encodeURIComponent(this.id)}/moves`, { move: text, ply: this.view.ply }, this.seats[side]);
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
      this.board.render();
      this.status.render();
      this.failed(e, 'moveRefused');
    }
  }

  /**
   * A click or drag on the board that cannot move anything now: a player
   * is told why (a spectator's clicks only look).
   */
  cannotMove() {
    const v = this.view;
    if (!this.mySides().length) return;
    if (v.status !== 'active') toast(t('gameNotActive'), 'error');
    else if (this.viewing !== null) toast(t('viewingMove', { ply: this.viewing }), 'error');
    else toast(this.pending ? t('moveSending') : t('notYourTurn'), 'error');
  }

  failed(e, what) {
    if (e.status === 0) {
      toast(t('offline'), 'error');
      if (this.socket) this.socket.poke();
      return;
    }
    // A refusal with a name is said in the page's language; others in the server's words.
    const key = e.code && `error.${e.code}`;
    const reason = key && t(key) !== key ? t(key, e.params) : e.message;
    toast(`${t(what)}: ${reason}`, 'error');
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

  onKey(e) {
    if (e.target && (e.target.tagName === 'INPUT' || e.target.tagName === 'TEXTAREA' || e.target.tagName === 'SELECT')) return;
    const v = this.view;
    if (!v) return;
    const shown = this.viewing === null ? v.ply : this.viewing;
    if (e.key === 'ArrowLeft') this.moves.goTo(Math.max(0, shown - 1));
    else if (e.key === 'ArrowRight') this.moves.goTo(shown + 1 >= v.ply ? null : shown + 1);
    else if (e.key === 'Home') this.moves.goTo(0);
    else if (e.key === 'End') this.moves.goTo(null);
    else if (e.key === 'Escape') {
      this.selected = null;
      this.board.closePopover();
      this.render();
    } else if (/^[a-j@]$/.test(e.key) && this.actor()) {
      // Typing a square starts keyboard entry.
      this.moves.input.focus();
      return;
    } else return;
    e.preventDefault();
  }
}
