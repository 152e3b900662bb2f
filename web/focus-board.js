// The Focus board: 8x8 with three squares cut from each corner; towers drawn
// so that the colour of every level shows.

import { Board } from './board.js';
import { focusTower } from './pieces.js';
import { FOCUS_FILES } from './position.js';

export function focusBoard(container) {
  return new Board(container, {
    kind: 'focus',
    size: 8,
    exists: (x, y) => x >= FOCUS_FILES[y][0] && x <= FOCUS_FILES[y][1],
    shade: (x, y) => ((x + y) % 2 === 0 ? 'dark' : 'light'),
    occupied: (m) => (m.position ? [...m.position.stacks.keys()] : []),
    drawPiece(square, m) {
      return focusTower(m.position.stacks.get(square));
    },
  });
}
