// The analysis board (/analysis): any position (a position string, a record
// pasted or uploaded, a game of this server), free moves kept as a move
// tree with variations, the engine's three best moves streamed over a
// WebSocket as its search deepens and drawn as arrows, and for a finished
// game the evaluation graph of the server's review. The page holds no
// rules: every position, legal move and move's squares comes from the
// server (POST /api/analysis/line).

import { request, ApiError, socketUrl, readMessage } from './api.js';
import { h, clear, toast } from './dom.js';
import { t, onLangChange } from './i18n.js';
import { GAMES, GAME_NAMES, loadKind, movingBoard } from './games.js';
import { otherSide, playedSquares } from './position.js';
import { evalGraph, plottedRange, scaleText, shareOf } from './analysis-graph.js';
import { reserveKey } from './board.js';
import { sideBar } from './game-players.js';

/** `/analysis?game=ID`, `?record=...`, or `?kind=salta&rules=seed&fen=...`. */
export function analysisPage(main) {
  const page = new AnalysisPage(main);
  page.start(new URLSearchParams(location.search));
  return () => page.stop();
}

/** The link that opens the analysis board at a game of this server. */
export function analysisLink(id) {
  return `/analysis?game=${encodeURIComponent(id)}`;
}

/** An engine score as shown: steps (Salta) or pieces (Focus) for White, or a win found. */
export function evalText(e) {
  if (!e) return '';
  if (e.win) return t('winIn', { side: t(e.win.side), n: e.win.plies });
  const v = e.units / 100;
  return `${v > 0 ? '+' : ''}${v.toFixed(2)}`;
}

/** The bar's value in words, with its unit and ends (`scale` from the server). */
function barText(value, scale) {
  const steps = scale.unit === 'steps';
  const signed = (v) => (v > 0 ? `+${v}` : v < 0 ? `−${-v}` : '0');
  const n = steps ? (v) => signed(Math.round(v * 100) / 100) : (v) => v.toFixed(2);
  return t(steps ? 'barSteps' : 'barExpected', { value: n(value), low: n(scale.min), high: n(scale.max) });
}

let nextNode = 0;

/** A node of the move tree: the position after `move` from `parent`. */
function node(parent, fen, played) {
  return { id: nextNode++, parent, fen, played, children: [], legal: null, ply: parent ? parent.ply + 1 : 0 };
}

/** The moves from the root to `n`. */
function pathOf(n) {
  const moves = [];
  for (let at = n; at.parent; at = at.parent) moves.unshift(at.played.notation);
  return moves;
}

class AnalysisPage {
  constructor(main) {
    this.main = main;
    this.source = null; // { game, rules, start_fen, result, main }
    this.root = null;
    this.current = null;
    this.selected = null;
    this.lines = null; // the engine's latest lines for the current node
    this.engineState = 'idle'; // 'idle' | 'thinking' | 'done'
    this.review = null; // { values: [], scale, marks: null } for the main line (the server's review)
    this.mainNodes = []; // the main line's nodes by ply
    this.socket = null;
    this.wanted = null; // the last command sent (sent again after a reconnect)
    this.loads = 0; // loads begun: only the latest is shown
  }

  async start(params) {
    this.unlang = onLangChange(() => this.build());
    let start = null;
    if (params.get('game')) start = { game: params.get('game') };
    else if (params.get('record')) start = { record: params.get('record') };
    else if (params.get('fen') || params.get('kind')) {
      start = { position: { game: params.get('kind') || 'salta', rules: params.get('rules') || 'seed', fen: params.get('fen') || undefined } };
    }
    this.connect();
    await this.load(start || { position: { game: 'salta', rules: 'seed' } });
  }

  stop() {
    this.stopped = true;
    if (this.socket) this.socket.close();
    clearTimeout(this.retry);
    clearInterval(this.pinger);
    if (this.unlang) this.unlang();
    if (this.keys) document.removeEventListener('keydown', this.keys);
  }

  // ---- the engine's socket ----

  connect() {
    if (this.stopped) return;
    const ws = new WebSocket(socketUrl('/api/analysis/ws'));
    this.socket = ws;
    ws.onopen = () => {
      if (this.wanted) for (const command of this.wanted) ws.send(JSON.stringify(command));
      clearInterval(this.pinger);
      // Keeps an idle connection alive through proxies.
      this.pinger = setInterval(() => ws.readyState === 1 && ws.send('{"type":"ping"}'), 25000);
    };
    ws.onmessage = (event) => {
      const message = readMessage(event);
      if (message) this.heard(message);
    };
    ws.onclose = () => {
      clearInterval(this.pinger);
      if (this.socket !== ws || this.stopped) return;
      this.retry = setTimeout(() => this.connect(), 1000);
    };
  }

  send(command) {
    // What to ask again after a reconnect: the analysis of the node shown and the review.
    this.wanted = [...(this.wanted || []).filter((c) => c.type !== command.type), command];
    if (this.socket && this.socket.readyState === 1) this.socket.send(JSON.stringify(command));
  }

  heard(message) {
    if (message.type === 'analysis' && this.current && message.position === this.current.fen) {
      this.lines = message;
      this.engineState = 'thinking';
      this.renderEngine();
      this.renderBoard();
    } else if (message.type === 'analysis_done' && this.current && message.position === this.current.fen) {
      this.engineState = 'done';
      this.renderEngine();
    } else if (message.type === 'review' && this.review) {
      this.review.values[message.ply] = message.value;
      this.review.scale = message.scale;
      this.renderGraph();
    } else if (message.type === 'review_done' && this.review) {
      this.review.marks = message.marks;
      this.renderGraph();
      this.renderTree();
    } else if (message.type === 'error') {
      this.engineState = 'idle';
      this.renderEngine(message.error);
    }
  }

  // ---- positions from the server ----

  /** Loads a start (a position, a record, a game) and its own moves as the main line. */
  async load(start) {
    // Only the latest load is shown: an earlier one answered later is dropped.
    const ticket = ++this.loads;
    let answer;
    let kind;
    try {
      answer = await request('POST', '/api/analysis/line', { start });
      kind = await loadKind(answer.game, answer.rules);
    } catch (e) {
      if (ticket !== this.loads) return;
      if (!this.source) {
        this.source = { game: 'salta', rules: 'seed', start_fen: null, result: null };
        this.build();
      }
      this.showError(e);
      return;
    }
    if (this.stopped || ticket !== this.loads) return;
    this.kind = kind;
    this.entry = GAMES[answer.game];
    this.source = { game: answer.game, rules: answer.rules, start_fen: answer.start_fen, result: answer.result, main: answer.main };
    this.root = node(null, answer.positions[0], null);
    this.mainNodes = [this.root];
    let at = this.root;
    answer.moves.forEach((played, i) => {
      const child = node(at, answer.positions[i + 1], played);
      at.children.push(child);
      this.mainNodes.push(child);
      at = child;
    });
    at.legal = answer.legal_moves;
    this.flipped = false;
    this.review = null;
    this.current = null;
    this.build();
    // A finished game (or a record with its result) is reviewed: the graph.
    if (answer.result && answer.main.length) {
      this.review = { values: [], scale: null, marks: null };
      this.send({ type: 'review', game: answer.game, rules: answer.rules, fen: answer.start_fen, moves: answer.main });
      this.renderGraph();
    }
    await this.select(answer.result ? this.root : at);
  }

  /** Shows a node of the tree: its legal moves (asked once), the engine's analysis of it. */
  async select(n) {
    this.current = n;
    this.selected = null;
    this.lines = null;
    if (!n.legal) {
      try {
        const answer = await request('POST', '/api/analysis/line', this.lineOf(n));
        n.legal = answer.legal_moves;
      } catch (e) {
        this.showError(e);
        return;
      }
      if (this.current !== n) return;
    }
    const over = !Object.keys(n.legal.from).length && !n.legal.drops.length && !n.legal.pass;
    this.engineState = over ? 'over' : 'thinking';
    if (!over) this.send({ type: 'analyse', game: this.source.game, rules: this.source.rules, fen: this.source.start_fen, moves: pathOf(n) });
    else this.send({ type: 'stop' });
    this.render();
  }

  lineOf(n) {
    const s = this.source;
    return { start: { position: { game: s.game, rules: s.rules, fen: s.start_fen } }, moves: pathOf(n) };
  }

  /** Plays a move at the current node: an existing child, or a new one (a variation when it is not the first). */
  async play(notation) {
    const at = this.current;
    const known = at.children.find((c) => c.played.notation === notation);
    if (known) return this.select(known);
    let answer;
    try {
      answer = await request('POST', '/api/analysis/line', { ...this.lineOf(at), moves: [...pathOf(at), notation] });
    } catch (e) {
      this.showError(e);
      return;
    }
    const child = node(at, answer.positions[answer.positions.length - 1], answer.moves[answer.moves.length - 1]);
    child.legal = answer.legal_moves;
    at.children.push(child);
    this.renderTree();
    return this.select(child);
  }

  showError(e) {
    const key = e instanceof ApiError && e.code ? `error.${e.code}` : null;
    toast(`${t('analysisFailed')}: ${key && t(key) !== key ? t(key, e.params) : e.message}`, 'error');
  }

  // ---- layout ----

  build() {
    if (!this.source) return;
    clear(this.main);
    this.boardWrap = h('div', { class: 'board-wrap' });
    this.choiceBox = h('div', { class: 'choices' });
    this.board = null;
    if (this.kind) {
      this.board = movingBoard(this.source.game, this.boardWrap, this.kind, this);
      this.board.onKey = (e) => reserveKey(e, this.reserveHost());
    }
    // Games with reserves: each side's reserve and lost pieces, as in a game.
    this.bars = this.entry && this.entry.reserves ? { top: h('div', { class: 'player-bar' }), bottom: h('div', { class: 'player-bar' }) } : null;
    this.evalBar = h('div', { class: 'eval-bar', role: 'img' }, [h('div', { class: 'eval-fill' })]);
    this.engineBox = h('div', { class: 'engine' });
    this.graphBox = h('div', { class: 'graph-box' });
    this.treeBox = h('div', { class: 'move-tree' });
    this.navBox = h('div', { class: 'move-nav' });
    this.main.appendChild(
      h('div', { class: `game-page analysis-page game-${this.source.game}` }, [
        h('section', { class: 'board-col' }, [this.evalBar, this.bars && this.bars.top, this.boardWrap, this.bars && this.bars.bottom, this.choiceBox]),
        h('aside', { class: 'side-col' }, [
          h('div', { class: 'card engine-card' }, [
            h('div', { class: 'game-title' }, [
              h('h1', { class: 'game-name' }, t('analysisTitle')),
              h('span', { class: 'rules-name' }, `${t(this.source.game)} · ${this.source.rules}`),
            ]),
            this.engineBox,
          ]),
          h('div', { class: 'card graph-card' }, [h('h2', {}, t('evalGraph')), this.graphBox]),
          h('div', { class: 'card moves-card' }, [h('h2', {}, t('moveTree')), this.treeBox, this.navBox, this.entryForm()]),
          this.sourceForm(),
        ]),
      ]),
    );
    if (!this.keys) {
      this.keys = (e) => this.onKey(e);
      document.addEventListener('keydown', this.keys);
    }
    this.render();
  }

  render() {
    if (!this.current) return;
    this.renderLegalList();
    this.renderBoard();
    this.renderEngine();
    this.renderGraph();
    this.renderTree();
  }

  /** The squares of the engine's lines' first moves, best first. */
  arrows() {
    if (!this.lines) return [];
    return this.lines.lines.map((l) => playedSquares(l.first)).filter((squares) => squares.length);
  }

  renderBoard() {
    if (!this.board || !this.current) return;
    const n = this.current;
    const position = this.entry.parse(n.fen, this.kind);
    const dests = new Map();
    for (const m of this.selectedMoves()) dests.set(m.to, {});
    const squares = playedSquares(n.played);
    this.renderBars(position);
    this.board.update({
      position,
      flipped: this.flipped,
      selected: this.selected === 'reserve' ? null : this.selected,
      destinations: dests,
      lastMove: squares,
      lastPath: n.played && n.played.path && n.played.path.length ? squares : null,
      movable: new Set(n.legal ? Object.keys(n.legal.from) : []),
      arrows: this.arrows(),
    });
    this.renderBar();
  }

  /**
   * The evaluation bar: the best line's value for White on the server's
   * scale (as the review's graph), its fill from the scale's least value
   * at the left to its greatest at the right, and the same in words.
   */
  renderBar() {
    const best = this.lines && this.lines.lines[0];
    const scale = this.lines && this.lines.scale;
    const share = best ? shareOf(best.value, [scale.min, scale.max]) : 0.5;
    this.evalBar.firstChild.style.width = `${share * 100}%`;
    this.evalBar.dataset.value = best ? String(best.value) : '';
    this.evalBar.dataset.unit = scale ? scale.unit : '';
    const text = best ? barText(best.value, scale) : t('engineIdle');
    this.evalBar.setAttribute('aria-label', text);
    this.evalBar.title = text;
  }

  /**
   * Each side's reserve and lost pieces in the position shown, White's
   * bar at the bottom unless the board is turned; the side to move's
   * reserve picks the reserve to drop from.
   */
  renderBars(position) {
    if (!this.bars) return;
    const bottom = this.flipped ? 'black' : 'white';
    const host = this.reserveHost();
    for (const [bar, side] of [[this.bars.bottom, bottom], [this.bars.top, otherSide(bottom)]]) {
      sideBar(bar, side, { position, dropper: position.side, tag: null, toMove: side === position.side, host });
    }
  }

  /** The page's side of dropping from the reserve (board.js reserveKey). */
  reserveHost() {
    return {
      board: this.board,
      selected: this.selected,
      reserves: this.entry.reserves,
      canDrop: () => Boolean(this.current && this.current.legal && this.current.legal.drops.length),
      reserveCount: () => {
        const position = this.entry.parse(this.current.fen, this.kind);
        return position.reserve[position.side];
      },
      select: (selected) => {
        clear(this.choiceBox);
        this.selected = selected;
        this.renderBoard();
      },
      refuse: () => {},
    };
  }

  /** The legal moves of what is picked: a piece's, or the drops when the reserve is. */
  selectedMoves() {
    const legal = this.current && this.current.legal;
    if (!legal || !this.selected) return [];
    return this.selected === 'reserve' ? legal.drops : legal.from[this.selected] || [];
  }

  renderEngine(error) {
    if (!this.engineBox) return;
    clear(this.engineBox);
    const l = this.lines;
    const state = error ? error : this.engineState === 'over' ? t('gameOverHere') : l ? t(this.engineState === 'done' ? 'engineDone' : 'engineDepth', { depth: l.depth }) : t('engineThinking');
    this.engineBox.append(
      h('div', { class: 'engine-head' }, [
        h('span', { class: 'engine-eval', dataset: { eval: l && l.lines[0] ? String(l.lines[0].eval.white) : '' } }, l && l.lines[0] ? evalText(l.lines[0].eval) : '…'),
        h('span', { class: 'engine-state' }, state),
      ]),
    );
    if (!l) return;
    // The bar's unit and ends, in words.
    if (l.lines[0]) this.engineBox.append(h('p', { class: 'hint bar-scale' }, barText(l.lines[0].value, l.scale)));
    this.engineBox.append(
      h(
        'ol',
        { class: 'engine-lines' },
        l.lines.map((line, rank) =>
          h('li', { class: `engine-line rank-${rank}`, dataset: { rank: String(rank) } }, [
            h('b', {}, evalText(line.eval)),
            ' ',
            h('button', { class: 'link', dataset: { move: line.first.notation }, onclick: () => this.play(line.first.notation) }, line.moves[0]),
            ` ${line.moves.slice(1, 10).join(' ')}`,
          ]),
        ),
      ),
    );
  }

  renderGraph() {
    if (!this.graphBox) return;
    clear(this.graphBox);
    this.graphBox.closest('.graph-card').hidden = !this.review;
    if (!this.review) return;
    const total = this.mainNodes.length;
    const { values, scale } = this.review;
    const done = values.filter((v) => v !== undefined).length;
    if (scale) {
      this.graphBox.append(
        evalGraph({
          values,
          scale,
          plies: total,
          marks: this.review.marks || [],
          current: this.mainNodes.indexOf(this.current),
          onPick: (ply) => this.mainNodes[ply] && this.select(this.mainNodes[ply]),
        }),
        h('p', { class: 'hint graph-scale' }, scaleText(scale, plottedRange(values, scale))),
      );
    }
    this.graphBox.append(h('p', { class: 'hint graph-state' }, this.review.marks ? this.marksSummary() : t('reviewing', { done, total })));
  }

  marksSummary() {
    const count = (side, judgement) => this.review.marks.filter((m) => m.side === side && m.judgement === judgement).length;
    return ['white', 'black']
      .map((side) => `${t(side)}: ${['inaccuracy', 'mistake', 'blunder'].map((j) => `${count(side, j)} ${t(`judgement.${j}`)}`).join(', ')}`)
      .join(' · ');
  }

  /** The main line and, after each move that has them, its variations in brackets. */
  renderTree() {
    if (!this.treeBox || !this.root) return;
    clear(this.treeBox);
    const marks = new Map(((this.review && this.review.marks) || []).map((m) => [m.ply, m.judgement]));
    const startBlack = this.entry.parse(this.root.fen, this.kind).side === 'black';
    const label = (n, first) => {
      const white = (n.ply % 2 === 1) !== startBlack;
      const number = Math.floor((n.ply + (startBlack ? 1 : 0) + 1) / 2);
      if (white) return `${number}. `;
      return first ? `${number}… ` : '';
    };
    const moveButton = (n, first, inMain) => {
      const mark = inMain ? marks.get(n.ply) : null;
      return h(
        'button',
        {
          class: `mv${n === this.current ? ' current' : ''}${mark ? ` ${mark}` : ''}`,
          dataset: { node: String(n.id), ply: String(n.ply), main: inMain ? 'yes' : 'no' },
          onclick: () => this.select(n),
        },
        [label(n, first), n.played.notation, mark ? h('span', { class: 'mark' }, { inaccuracy: '?!', mistake: '?', blunder: '??' }[mark]) : null],
      );
    };
    const line = (start, inMain) => {
      const out = [];
      let first = true;
      for (let n = start; n; n = n.children[0]) {
        out.push(moveButton(n, first, inMain));
        first = false;
        const siblings = n.parent.children;
        if (siblings[0] === n && siblings.length > 1) {
          for (const v of siblings.slice(1)) out.push(h('span', { class: 'variation' }, ['(', ...line(v, false), ')']));
          first = true;
        }
      }
      return out;
    };
    const start = h('button', { class: `mv start${this.current === this.root ? ' current' : ''}`, dataset: { node: String(this.root.id), ply: '0' }, onclick: () => this.select(this.root) }, t('treeStart'));
    this.treeBox.append(start, ...(this.root.children.length ? line(this.root.children[0], true) : [h('span', { class: 'hint' }, ` ${t('noMovesYet')}`)]));
    const current = this.treeBox.querySelector('.mv.current');
    if (current && current.scrollIntoView) current.scrollIntoView({ block: 'nearest' });
    clear(this.navBox);
    const nav = (text, title, target) => h('button', { class: 'button icon', title, 'aria-label': title, disabled: !target, onclick: () => target && this.select(target) }, text);
    const n = this.current;
    this.navBox.append(
      nav('«', t('first'), n && n !== this.root ? this.root : null),
      nav('‹', t('previous'), n && n.parent),
      nav('›', t('next'), n && n.children[0]),
      h('button', { class: 'button icon', title: t('flip'), 'aria-label': t('flip'), onclick: () => { this.flipped = !this.flipped; this.renderBoard(); } }, '⇅'),
    );
  }

  canDrag(square) {
    return Boolean(this.current && this.current.legal && this.current.legal.from[square]);
  }

  onKey(e) {
    if (e.target && ['INPUT', 'TEXTAREA', 'SELECT'].includes(e.target.tagName)) return;
    const n = this.current;
    if (!n) return;
    const target = e.key === 'ArrowLeft' ? n.parent : e.key === 'ArrowRight' ? n.children[0] : e.key === 'Home' ? this.root : null;
    if (!target) return;
    e.preventDefault();
    this.select(target);
  }

  // ---- moving on the board ----

  clickSquare(square) {
    const n = this.current;
    if (!n || !n.legal) return;
    clear(this.choiceBox);
    if (this.selected) {
      const moves = this.selectedMoves().filter((m) => m.to === square);
      if (moves.length === 1) return this.play(moves[0].notation);
      if (moves.length > 1) {
        // Several moves end there (a call or not, how many pieces): the player picks one.
        this.choiceBox.append(
          ...moves.map((m) => h('button', { class: 'button', dataset: { move: m.notation }, onclick: () => { clear(this.choiceBox); this.play(m.notation); } }, [this.entry.choiceLabel(m), ' ', h('small', {}, m.notation)])),
        );
        return;
      }
    }
    this.selected = n.legal.from[square] && this.selected !== square ? square : null;
    this.renderBoard();
  }

  /** The box to type a move in (drops and passes too), suggesting the legal moves. */
  entryForm() {
    this.input = h('input', { type: 'text', class: 'entry-input', placeholder: t(this.entry.entryPlaceholder), autocomplete: 'off', autocapitalize: 'off', spellcheck: 'false', list: 'analysis-legal', 'aria-label': t('entryLabel') });
    this.legalList = h('datalist', { id: 'analysis-legal' });
    const submit = (e) => {
      e.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      this.input.value = '';
      this.play(text);
    };
    return h('form', { class: 'entry', onsubmit: submit }, [this.input, this.legalList, h('button', { type: 'submit', class: 'button' }, t('play'))]);
  }

  renderLegalList() {
    if (!this.legalList) return;
    clear(this.legalList);
    const legal = this.current && this.current.legal;
    if (!legal) return;
    const all = [...Object.values(legal.from).flat(), ...legal.drops].map((m) => m.notation);
    if (legal.pass) all.push(legal.pass);
    for (const notation of all.sort()) this.legalList.appendChild(h('option', { value: notation }));
  }

  // ---- what to analyse ----

  sourceForm() {
    const kindSelect = h('select', { name: 'kind', 'aria-label': t('game') }, GAME_NAMES.map((g) => h('option', { value: g, selected: g === this.source.game }, t(g))));
    const rules = h('input', { type: 'text', name: 'rules', value: this.source.rules, 'aria-label': t('rulesLabel') });
    const fen = h('input', { type: 'text', name: 'fen', placeholder: t('positionString'), 'aria-label': t('positionString'), spellcheck: 'false', autocomplete: 'off' });
    const record = h('textarea', { name: 'record', rows: 4, placeholder: t('pasteRecord'), 'aria-label': t('pasteRecord'), spellcheck: 'false' });
    const file = h('input', {
      type: 'file',
      name: 'file',
      accept: '.txt,.rec,.pgn,text/plain',
      'aria-label': t('uploadRecord'),
      onchange: async () => {
        const f = file.files && file.files[0];
        if (f) record.value = await f.text();
      },
    });
    const gameId = h('input', { type: 'text', name: 'game', placeholder: t('gameIdOrLink'), 'aria-label': t('gameIdOrLink'), autocomplete: 'off' });
    const loadFrom = (start) => (e) => {
      e.preventDefault();
      this.load(start());
    };
    return h('details', { class: 'card source-card', open: !this.root || !this.root.children.length ? true : null }, [
      h('summary', {}, t('analysePosition')),
      h('form', { class: 'source position-source', onsubmit: loadFrom(() => ({ position: { game: kindSelect.value, rules: rules.value.trim() || 'seed', fen: fen.value.trim() || undefined } })) }, [
        h('div', { class: 'row' }, [kindSelect, rules]),
        fen,
        h('button', { type: 'submit', class: 'button', dataset: { load: 'position' } }, t('loadPosition')),
      ]),
      h('form', { class: 'source record-source', onsubmit: loadFrom(() => ({ record: record.value })) }, [
        record,
        file,
        h('button', { type: 'submit', class: 'button', dataset: { load: 'record' } }, t('loadRecord')),
      ]),
      h('form', { class: 'source game-source', onsubmit: loadFrom(() => ({ game: gameId.value.trim().replace(/^.*\/game\//, '').replace(/[/?#].*$/, '') })) }, [
        gameId,
        h('button', { type: 'submit', class: 'button', dataset: { load: 'game' } }, t('loadGame')),
      ]),
    ]);
  }
}
