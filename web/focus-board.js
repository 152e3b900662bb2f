// The Focus board: 8x8 with three squares cut from each corner (the server's
// board rows); towers drawn so that the colour of every level shows.

import { Board } from './board.js';
import { focusTower } from './pieces.js';
import { readCells, sideNamed, squareName } from './position.js';

/**
 * A Focus position string: `{ pieces: Map(square -> tower letters, bottom
 * first), side, reserve: {white, black}, captured: {white, black}, ply }`.
 */
export function parseFocus(fen, kind) {
  const { cells, fields } = readCells(fen, kind.board);
  const [side, whiteReserve, blackReserve, ply] = fields;
  const onBoard = { white: 0, black: 0 };
  for (const tower of cells.values()) for (const c of tower) onBoard[c === 'w' ? 'white' : 'black'] += 1;
  const reserve = { white: +whiteReserve || 0, black: +blackReserve || 0 };
  // The pieces neither on the board nor in reserve are captured.
  const all = kind.board.pieces_per_side;
  const captured = { white: all - onBoard.white - reserve.white, black: all - onBoard.black - reserve.black };
  return { pieces: cells, side: sideNamed(side), reserve, captured, ply: +ply || 0 };
}

export function focusBoard(container, kind) {
  const squares = new Set(kind.board.rows.flat());
  return new Board(container, {
    kind: 'focus',
    keysHelp: 'boardCursorDrops',
    size: kind.board.files,
    exists: (x, y) => squares.has(squareName(x, y)),
    shade: (x, y) => ((x + y) % 2 === 0 ? 'dark' : 'light'),
    drawPiece(square, m) {
      return focusTower(m.position.pieces.get(square));
    },
  });
}
