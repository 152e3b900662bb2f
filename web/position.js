// Reading position strings (docs/notation.md) into something to draw. This
// is the text format only: every rule question (which moves are legal, what
// a move does) is answered by the server.

/** Salta: `{ pieces: Map(square -> token), side, call, ply }`. */
export function parseSalta(fen) {
  const [board, side, call, ply] = fen.trim().split(' ');
  const pieces = new Map();
  board.split('/').forEach((rank, i) => {
    const y = 9 - i; // 0-based rank
    rank.split(',').forEach((cell, j) => {
      const x = 2 * j + (y % 2);
      if (cell !== '.') pieces.set(squareName(x, y), cell);
    });
  });
  return { pieces, side: side === 'b' ? 'black' : 'white', call: call && call !== '-' ? call : null, ply: +ply || 0 };
}

/** The files of each Focus rank (index 0 = rank 1). */
export const FOCUS_FILES = [
  [2, 5], [1, 6], [0, 7], [0, 7], [0, 7], [0, 7], [1, 6], [2, 5],
];

/** Focus: `{ stacks: Map(square -> 'bw...'), side, reserve: {white, black}, captured: {white, black}, ply }`. */
export function parseFocus(fen) {
  const [board, side, whiteReserve, blackReserve, ply] = fen.trim().split(' ');
  const stacks = new Map();
  const onBoard = { white: 0, black: 0 };
  board.split('/').forEach((rank, i) => {
    const y = 7 - i;
    const [first] = FOCUS_FILES[y];
    rank.split(',').forEach((cell, j) => {
      if (cell === '.') return;
      stacks.set(squareName(first + j, y), cell);
      for (const c of cell) onBoard[c === 'w' ? 'white' : 'black'] += 1;
    });
  });
  const reserve = { white: +whiteReserve || 0, black: +blackReserve || 0 };
  // Each side has 18 pieces: the ones neither on the board nor in reserve are captured.
  const captured = { white: 18 - onBoard.white - reserve.white, black: 18 - onBoard.black - reserve.black };
  return { stacks, side: side === 'b' ? 'black' : 'white', reserve, captured, ply: +ply || 0 };
}

export function squareName(x, y) {
  return String.fromCharCode(97 + x) + (y + 1);
}

export function squareCoords(name) {
  return [name.charCodeAt(0) - 97, parseInt(name.slice(1), 10) - 1];
}

/** The squares a move in notation touches, in order (`c3:e5:c7+` -> c3 e5 c7; `@d4` -> d4). */
export function moveSquares(notation) {
  if (!notation || notation === 'pass') return [];
  return notation.replace(/\+$/, '').split(/[-:x@]/).filter(Boolean);
}

/** A piece token's parts: `m3` -> { side: 'black', kind: 'moon', number: 3 }. */
export function pieceOf(token) {
  const letter = token[0];
  const kind = { s: 'star', m: 'moon', o: 'sun' }[letter.toLowerCase()];
  return { side: letter === letter.toUpperCase() ? 'white' : 'black', kind, number: +token[1] };
}
