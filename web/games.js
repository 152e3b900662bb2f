// The games the page offers, one entry each, with everything game-specific
// the page needs: adding a game means a drawing module and an entry here.
// What the rules say about the board (its squares, the start position,
// Salta's targets) comes from the server (GET /api/kinds/{game}).

import { request } from './api.js';
import { h } from './dom.js';
import { t } from './i18n.js';
import { saltaBoard, parseSalta } from './salta-board.js';
import { focusBoard, parseFocus } from './focus-board.js';

/**
 * Each entry: `board(container, kind)` draws its board (a Board);
 * `parse(fen, kind)` reads a position string into `{ pieces: Map(square ->
 * token), side, ply, ... }`; `ruleSets`, the rule sets offered on the start
 * page (labelled `ruleset.GAME.NAME`); `entryPlaceholder`, the i18n key of
 * the move box's example; `choiceLabel(move)`, the label of one of several
 * moves to one square; `destinationLabel(moves, position, from)`, what a
 * destination shows, if anything; `groupSizes`, whether a selected stack
 * offers how many pieces to move; `reserves`, whether the player bars show
 * reserves (to drop from) and captured pieces; `options`, the start form's
 * fields that add options to the rule set (each `{ name, label, hint,
 * choices: [{ value, label, params, rules }] }`, labels i18n keys, `rules`
 * the text appended to the rule set, empty for none); `standingLabel(n)`, what a player bar shows of
 * the server's `standing` for its side, or null for nothing. The name,
 * blurb and board label are the i18n keys `GAME` and `GAMEBlurb`.
 */
export const GAMES = {
  salta: {
    board: saltaBoard,
    parse: parseSalta,
    ruleSets: ['seed', 'meyer1908', 'ludii'],
    entryPlaceholder: 'entryPlaceholderSalta',
    choiceLabel: (move) => t(move.call ? 'moveWithCall' : 'moveNoCall'),
    destinationLabel: () => null,
    groupSizes: false,
    reserves: false,
    // A scored move limit: its own option, whatever the rule set's limit result.
    options: [
      {
        name: 'moveLimit',
        label: 'moveLimit',
        hint: 'moveLimitHint',
        choices: [
          { value: 'off', label: 'moveLimitOff', rules: '' },
          ...[60, 120].map((n) => ({ value: String(n), label: 'moveLimitN', params: { n }, rules: `move-limit=${n},limit-result=scored` })),
        ],
      },
    ],
    // Salta's standing is minus the side's distance to its targets.
    standingLabel: (n) => t('distanceHome', { n: -n }),
  },
  focus: {
    board: focusBoard,
    parse: parseFocus,
    ruleSets: ['seed', 'sackson'],
    entryPlaceholder: 'entryPlaceholderFocus',
    choiceLabel: (move) => (move.kind === 'jump' ? t('jumpOption') : t('groupOption', { n: move.count })),
    // How many pieces go to the square (`×` for the jump), once a tower could send more than one.
    destinationLabel(moves, position, from) {
      const labels = [...new Set(moves.map((m) => (m.kind === 'jump' ? '×' : String(m.count))))];
      const height = (position.pieces.get(from) || '').length;
      return height > 1 || labels.includes('×') ? labels.join('/') : null;
    },
    groupSizes: true,
    reserves: true,
    options: [],
    standingLabel: () => null,
  },
};

export const GAME_NAMES = Object.keys(GAMES);

// ---- the server's description of each kind ----

const described = new Map(); // `game rules` -> Promise of the description
const defaults = new Map(); // game -> its description under its default rule set

/** The server's description of a game kind under a rule set (asked once). */
export function loadKind(game, rules = 'seed') {
  const key = `${game} ${rules}`;
  if (!described.has(key)) {
    const answer = request('GET', `/api/kinds/${encodeURIComponent(game)}?rules=${encodeURIComponent(rules)}`);
    // A failure is not kept: the next call asks again.
    answer.catch(() => described.delete(key));
    described.set(key, answer);
  }
  return described.get(key);
}

/** Loads every game's description under its default rule set (before any page is drawn). */
export async function loadKinds() {
  await Promise.all(GAME_NAMES.map(async (game) => defaults.set(game, await loadKind(game))));
}

/** A game's description under its default rule set (its board, its start), once loadKinds is done. */
export function kindOf(game) {
  return defaults.get(game) || null;
}

/** A board picture that does not move: a preview or a diagram. */
export function staticBoard(game, fen, extra = {}) {
  const box = h('div', { class: `static-board static-${game}` });
  const entry = GAMES[game];
  const kind = kindOf(game);
  if (!entry || !kind) return box;
  const board = entry.board(box, kind);
  board.update({ position: entry.parse(fen, kind), ...extra });
  return box;
}

/**
 * A board to move on by selecting a piece and a square: `page` has
 * `selected`, `clickSquare(square)`, `renderBoard()`, and `canDrag(square)`.
 * A drag selects the piece it lifts and ends as a click on its square.
 */
export function movingBoard(game, container, kind, page) {
  const board = GAMES[game].board(container, kind);
  board.onSquare = (sq) => page.clickSquare(sq);
  board.onDrop = (from, to) => {
    page.selected = from;
    page.clickSquare(to);
  };
  board.onDragStart = (sq) => {
    page.selected = sq;
    page.renderBoard();
  };
  board.canDrag = (sq) => page.canDrag(sq);
  return board;
}
