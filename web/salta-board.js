// The Salta board: 10x10, play on the dark squares (a1 is dark), pieces in
// the historical style. Optionally marks each piece's target square.

import { Board } from './board.js';
import { s } from './dom.js';
import { saltaPiece } from './pieces.js';
import { pieceOf } from './position.js';

export function saltaBoard(container) {
  return new Board(container, {
    kind: 'salta',
    size: 10,
    exists: () => true,
    shade: (x, y) => ((x + y) % 2 === 0 ? 'dark' : 'light'),
    occupied: (m) => (m.position ? [...m.position.pieces.keys()] : []),
    drawPiece(square, m) {
      const token = m.position.pieces.get(square);
      const node = saltaPiece(pieceOf(token));
      if (m.targets && m.showTargets && m.targets[token] === square) {
        node.appendChild(s('circle', { cx: 30, cy: -30, r: 10, class: 'home-badge' }));
        node.appendChild(s('path', { d: 'M24,-30l4,5l9,-10', class: 'home-tick' }));
      }
      return node;
    },
    decorate({ marks, over }, m, centre) {
      const position = m.position;
      if (!position) return;
      // Targets: a faint ghost of the piece that belongs on each empty target square.
      if (m.targets && m.showTargets) {
        for (const [token, square] of Object.entries(m.targets)) {
          if (position.pieces.has(square)) continue;
          const [cx, cy] = centre(square);
          marks.appendChild(s('g', { class: 'target-ghost', transform: `translate(${cx} ${cy}) scale(0.8)` }, saltaPiece(pieceOf(token))));
        }
      }
      // The selected piece's target.
      if (m.targets && m.selected && position.pieces.has(m.selected)) {
        const square = m.targets[position.pieces.get(m.selected)];
        if (square) {
          const [cx, cy] = centre(square);
          over.appendChild(s('circle', { cx, cy, r: 45, class: 'target-ring' }));
        }
      }
      // A pending Salta call: the piece that must be jumped.
      if (position.call) {
        const [cx, cy] = centre(position.call);
        over.appendChild(
          s('g', { class: 'called', transform: `translate(${cx} ${cy})` }, [
            s('circle', { r: 47, class: 'called-ring' }),
            s('g', { transform: 'translate(-33 -33)' }, [
              s('circle', { r: 15, class: 'called-badge' }),
              s('text', { y: 6, 'text-anchor': 'middle', class: 'called-text' }, '!'),
            ]),
          ]),
        );
      }
    },
  });
}
