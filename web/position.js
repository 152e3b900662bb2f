// Reading position strings (docs/notation.md) into something to draw. The
// board of the game's kind comes from the server (GET /api/kinds/{game}):
// which square each cell of the string stands for. Every rule question
// (which moves are legal, what a move does) is answered by the server.

/**
 * A position string's occupied cells by square, and the fields after the
 * board: `{ cells: Map(square -> text), fields: [...] }`. `board` is the
 * kind's board (`rows`: the squares in the order of the string's cells).
 */
export function readCells(fen, board) {
  const [placement, ...fields] = fen.trim().split(' ');
  const cells = new Map();
  placement.split('/').forEach((rank, i) => {
    const squares = board.rows[i] || [];
    rank.split(',').forEach((cell, j) => {
      if (cell !== '.' && squares[j]) cells.set(squares[j], cell);
    });
  });
  return { cells, fields };
}

/** The side a position string's side field names (`w` or `b`). */
export function sideNamed(field) {
  return field === 'b' ? 'black' : 'white';
}

export function squareName(x, y) {
  return String.fromCharCode(97 + x) + (y + 1);
}

export function squareCoords(name) {
  return [name.charCodeAt(0) - 97, parseInt(name.slice(1), 10) - 1];
}

/** The squares a move played touches, in order (from the server's `last_move`): start, each landing, end. */
export function playedSquares(move) {
  if (!move || !move.to) return [];
  const landings = move.path && move.path.length ? move.path : [move.to];
  return move.from ? [move.from, ...landings] : landings;
}

export const SIDES = ['white', 'black'];

export function otherSide(side) {
  return side === 'white' ? 'black' : 'white';
}
