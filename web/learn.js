// Lessons (/learn): short tasks on positions of Salta and Focus. The
// lessons, their positions and texts come from the server (GET /api/learn),
// the legal moves of a task's position too (POST /api/analysis/line), and
// every move the learner makes is judged by the server's rules (POST
// /api/learn/try): the page holds no rules and no answers. Which tasks are
// done is kept in this browser (localStorage `monte.learn`).

import { request, ApiError } from './api.js';
import { h, clear } from './dom.js';
import { t, getLang, onLangChange } from './i18n.js';
import { GAMES, GAME_NAMES, loadKind, movingBoard } from './games.js';
import { otherSide, playedSquares } from './position.js';
import { navigate } from './router.js';
import { reserveKey, pickReserve } from './board.js';
import { sideBar } from './game-players.js';

const PROGRESS_KEY = 'monte.learn';

/** The tasks done in this browser: `{ "lesson/task": true }`. */
export function loadProgress() {
  try {
    return JSON.parse(localStorage.getItem(PROGRESS_KEY) || '{}') || {};
  } catch (e) {
    return {};
  }
}

function markDone(lesson, task) {
  const all = loadProgress();
  all[`${lesson}/${task}`] = true;
  localStorage.setItem(PROGRESS_KEY, JSON.stringify(all));
}

/** `/learn`, `/learn?lesson=ID`, `/learn?lesson=ID&task=N`. */
export function learnPage(main) {
  const page = new LearnPage(main);
  page.start(new URLSearchParams(location.search));
  return () => page.stop();
}

/** A text of the lessons in the page's language. */
function say(text) {
  return (text && (text[getLang()] || text.en)) || '';
}

/** What a goal the move missed asks for, in words. */
function goalText(goal) {
  return t(`goal.${goal.goal}`, goal);
}

class LearnPage {
  constructor(main) {
    this.main = main;
    this.lessons = null;
    this.lesson = null;
    this.taskIndex = 0;
    this.legal = null; // the task position's legal moves
    this.shown = null; // { fen, played } shown after a try
    this.selected = null; // a square, or 'reserve'
    this.feedback = null; // { kind: 'solved' | 'missed' | 'illegal', text }
  }

  async start(params) {
    this.unlang = onLangChange(() => this.build());
    try {
      this.lessons = (await request('GET', '/api/learn')).lessons;
    } catch (e) {
      this.main.append(h('p', { class: 'card error' }, `${t('learnFailed')}: ${e.message}`));
      return;
    }
    if (this.stopped) return;
    const progress = loadProgress();
    const wanted = this.lessons.find((l) => l.id === params.get('lesson'));
    // Without a lesson named: the first not yet done.
    const first = this.lessons.find((l) => l.tasks.some((_, i) => !progress[`${l.id}/${i}`])) || this.lessons[0];
    const task = Number.parseInt(params.get('task') || '0', 10);
    await this.open(wanted || first, Number.isFinite(task) ? task : 0);
  }

  stop() {
    this.stopped = true;
    if (this.unlang) this.unlang();
  }

  /** Shows a task: its position, with its legal moves from the server. */
  async open(lesson, taskIndex) {
    this.lesson = lesson;
    this.taskIndex = Math.min(Math.max(0, taskIndex), lesson.tasks.length - 1);
    this.shown = null;
    this.selected = null;
    this.feedback = null;
    this.legal = null;
    const task = this.task();
    try {
      this.kind = await loadKind(lesson.game, lesson.rules);
      const line = await request('POST', '/api/analysis/line', { start: { position: { game: lesson.game, rules: lesson.rules, fen: task.fen } } });
      if (this.lesson !== lesson || this.task() !== task) return;
      this.legal = line.legal_moves;
    } catch (e) {
      this.feedback = { kind: 'illegal', text: e.message };
    }
    if (this.stopped) return;
    const url = `/learn?lesson=${encodeURIComponent(lesson.id)}${this.taskIndex ? `&task=${this.taskIndex}` : ''}`;
    if (location.pathname + location.search !== url) history.replaceState(null, '', url);
    this.build();
  }

  task() {
    return this.lesson.tasks[this.taskIndex];
  }

  build() {
    if (!this.lesson) return;
    clear(this.main);
    this.boardWrap = h('div', { class: 'board-wrap' });
    this.board = null;
    if (this.kind) {
      this.board = movingBoard(this.lesson.game, this.boardWrap, this.kind, this);
      this.board.onKey = (e) => this.boardKey(e);
    }
    this.choiceBox = h('div', { class: 'choices' });
    this.taskBox = h('div', { class: 'card task-card' });
    // Games with reserves: each side's reserve and lost pieces, as in a game.
    const reserves = GAMES[this.lesson.game].reserves;
    this.bars = reserves ? { top: h('div', { class: 'player-bar' }), bottom: h('div', { class: 'player-bar' }) } : null;
    this.main.appendChild(
      h('div', { class: `game-page learn-page game-${this.lesson.game}` }, [
        h('section', { class: 'board-col' }, [this.bars && this.bars.top, this.boardWrap, this.bars && this.bars.bottom, this.choiceBox]),
        h('aside', { class: 'side-col' }, [this.taskBox, this.lessonList()]),
      ]),
    );
    this.renderTask();
    this.renderBoard();
  }

  canDrag(square) {
    return this.canMove() && Boolean(this.legal.from[square]);
  }

  canMove() {
    return Boolean(this.legal) && !this.shown;
  }

  /** The list of lessons by game, each marked when all its tasks are done. */
  lessonList() {
    const progress = loadProgress();
    return h(
      'nav',
      { class: 'card lesson-list', 'aria-label': t('lessons') },
      GAME_NAMES.map((game) =>
        h('div', { class: 'lesson-group' }, [
          h('h2', {}, t(game)),
          h(
            'ol',
            {},
            this.lessons
              .filter((l) => l.game === game)
              .map((l) => {
                const done = l.tasks.every((_, i) => progress[`${l.id}/${i}`]);
                return h('li', { class: `${done ? 'done' : ''}${l === this.lesson ? ' current' : ''}`, dataset: { lesson: l.id } }, [
                  h('a', { href: `/learn?lesson=${encodeURIComponent(l.id)}`, onclick: (e) => { e.preventDefault(); e.stopPropagation(); this.open(l, 0); } }, say(l.title)),
                  done ? h('span', { class: 'tick', title: t('lessonDone'), 'aria-label': t('lessonDone') }, ' ✓') : null,
                ]);
              }),
          ),
        ]),
      ),
    );
  }

  renderTask() {
    clear(this.taskBox);
    const task = this.task();
    const lesson = this.lesson;
    const index = this.lessons.indexOf(lesson);
    const next = this.taskIndex + 1 < lesson.tasks.length ? [lesson, this.taskIndex + 1] : this.lessons[index + 1] ? [this.lessons[index + 1], 0] : null;
    const f = this.feedback;
    this.taskBox.append(
      h('div', { class: 'game-title' }, [
        h('h1', { class: 'game-name' }, say(lesson.title)),
        h('span', { class: 'rules-name' }, `${t(lesson.game)} · ${t('taskOf', { n: this.taskIndex + 1, of: lesson.tasks.length })}`),
      ]),
      h('p', { class: 'task-text' }, say(task.text)),
      h('p', { class: 'hint task-side' }, t(`youPlay.${task.side_to_move}`)),
      f ? h('p', { class: `feedback ${f.kind}`, role: 'status' }, f.text) : null,
      h('div', { class: 'task-actions' }, [
        this.shown ? h('button', { class: 'button', dataset: { action: 'again' }, onclick: () => this.open(lesson, this.taskIndex) }, t('tryAgain')) : null,
        this.canDrop()
          ? h('button', { class: `button${this.selected === 'reserve' ? ' on' : ''}`, dataset: { action: 'drop' }, onclick: (e) => pickReserve(this.reserveHost(), e.detail === 0) }, t('dropFromReserve'))
          : null,
        next && f && f.kind === 'solved' ? h('button', { class: 'button primary', dataset: { action: 'next' }, onclick: () => this.open(next[0], next[1]) }, t('nextTask')) : null,
        !next && f && f.kind === 'solved' ? h('button', { class: 'button primary', onclick: () => navigate('/') }, t('navPlay')) : null,
      ]),
    );
  }

  renderBoard() {
    if (!this.board) return;
    const entry = GAMES[this.lesson.game];
    const task = this.task();
    const position = this.shownPosition();
    const dests = new Map();
    if (this.selected === 'reserve' && this.legal) for (const m of this.legal.drops) dests.set(m.to, {});
    else if (this.selected && this.legal) {
      const moves = this.legal.from[this.selected] || [];
      for (const m of moves) dests.set(m.to, { label: entry.destinationLabel(moves.filter((o) => o.to === m.to), position, this.selected), call: m.call });
    }
    const squares = this.shown ? playedSquares(this.shown.played) : [];
    this.renderBars(position);
    this.board.update({
      position,
      flipped: task.side_to_move === 'black',
      selected: this.selected === 'reserve' ? null : this.selected,
      destinations: dests,
      lastMove: squares,
      lastPath: this.shown && this.shown.played.path && this.shown.played.path.length ? squares : null,
      movable: new Set(this.canMove() ? Object.keys(this.legal.from) : []),
    });
  }

  /**
   * The learner's side at the bottom, the other at the top (as the board
   * is turned), each with its reserve and lost pieces from the position
   * shown (the task's, or the one after a try).
   */
  renderBars(position) {
    if (!this.bars) return;
    const learner = this.task().side_to_move;
    const host = this.reserveHost();
    sideBar(this.bars.bottom, learner, { position, dropper: learner, tag: t('you'), host });
    sideBar(this.bars.top, otherSide(learner), { position, dropper: learner, tag: null, host });
  }

  /** The position shown: the task's, or the one after a try. */
  shownPosition() {
    return GAMES[this.lesson.game].parse(this.shown ? this.shown.fen : this.task().fen, this.kind);
  }

  canDrop() {
    return this.canMove() && this.legal.drops.length > 0;
  }

  /** The page's side of dropping from the reserve (board.js reserveKey). */
  reserveHost() {
    return {
      board: this.board,
      selected: this.selected,
      reserves: GAMES[this.lesson.game].reserves,
      canDrop: () => this.canDrop(),
      reserveCount: () => this.shownPosition().reserve[this.task().side_to_move],
      select: (selected) => this.select(selected),
      refuse: () => {},
    };
  }

  /** A key on the board besides the cursor's: R for the reserve, Escape (board.js). */
  boardKey(e) {
    return reserveKey(e, this.reserveHost());
  }

  select(selected) {
    clear(this.choiceBox);
    this.selected = selected;
    this.renderTask();
    this.renderBoard();
  }

  clickSquare(square) {
    if (!this.canMove()) return;
    clear(this.choiceBox);
    const moves = this.selected === 'reserve' ? this.legal.drops.filter((m) => m.to === square) : this.selected ? (this.legal.from[this.selected] || []).filter((m) => m.to === square) : [];
    if (moves.length === 1) return this.attempt(moves[0].notation);
    if (moves.length > 1) {
      // Several moves end there (with a call or without, a group or a jump): the learner picks.
      const entry = GAMES[this.lesson.game];
      this.choiceBox.append(
        ...moves.map((m) => h('button', { class: 'button', dataset: { move: m.notation }, onclick: () => { clear(this.choiceBox); this.attempt(m.notation); } }, [entry.choiceLabel(m), ' ', h('small', {}, m.notation)])),
      );
      return;
    }
    this.select(this.legal.from[square] && this.selected !== square ? square : null);
  }

  /** Sends a move to be judged by the rules. */
  async attempt(notation) {
    const lesson = this.lesson;
    const taskIndex = this.taskIndex;
    this.selected = null;
    let answer;
    try {
      answer = await request('POST', '/api/learn/try', { lesson: lesson.id, task: taskIndex, move: notation });
    } catch (e) {
      if (this.lesson !== lesson || this.taskIndex !== taskIndex) return;
      const key = e instanceof ApiError && e.code ? `error.${e.code}` : null;
      this.feedback = { kind: 'illegal', text: key && t(key) !== key ? t(key, e.params) : e.message };
      this.renderTask();
      this.renderBoard();
      return;
    }
    if (this.lesson !== lesson || this.taskIndex !== taskIndex) return;
    this.shown = { fen: answer.fen, played: answer.played };
    if (answer.solved) {
      markDone(lesson.id, taskIndex);
      this.feedback = { kind: 'solved', text: t('taskSolved') };
    } else {
      this.feedback = { kind: 'missed', text: t('taskMissed', { goal: goalText(answer.missed) }) };
    }
    this.build();
  }
}
