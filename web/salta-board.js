// The Salta board: 10x10, play on the dark squares (the server's board
// rows), pieces in the historical style. Optionally marks each piece's
// target square.

import { Board } from './board.js';
import { s } from './dom.js';
import { saltaPiece } from './pieces.js';
import { readCells, sideNamed, squareName } from './position.js';

/** A Salta position string: `{ pieces: Map(square -> token), side, call, ply }`. */
export function parseSalta(fen, kind) {
  const { cells, fields } = readCells(fen, kind.board);
  const [side, call, ply] = fields;
  return { pieces: cells, side: sideNamed(side), call: call && call !== '-' ? call : null, ply: +ply || 0 };
}

/** A piece token's parts: `m3` -> { side: 'black', kind: 'moon', number: 3 }. */
export function pieceOf(token) {
  const letter = token[0];
  const kind = { s: 'star', m: 'moon', o: 'sun' }[letter.toLowerCase()];
  return { side: letter === letter.toUpperCase() ? 'white' : 'black', kind, number: +token[1] };
}

export function saltaBoard(container, kind) {
  const dark = new Set(kind.board.rows.flat());
  return new Board(container, {
    kind: 'salta',
    size: kind.board.files,
    exists: () => true,
    shade: (x, y) => (dark.has(squareName(x, y)) ? 'dark' : 'light'),
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
