// The game page's player bars: who plays each side, whose move it is, the
// clocks counting down, and in games with reserves each side's reserve (to
// drop from) and the pieces it lost.

import { h, clear } from './dom.js';
import { t, levelName } from './i18n.js';
import { smallDisc } from './pieces.js';
import { SIDES, otherSide } from './position.js';
import { playSound } from './sound.js';
import { pickReserve } from './board.js';

export class Players {
  constructor(page) {
    this.page = page;
    this.receivedAt = null; // when the state the clocks count from arrived
  }

  build() {
    this.top = h('div', { class: 'player-bar' });
    this.bottom = h('div', { class: 'player-bar' });
  }

  render() {
    const bottom = this.page.flipped ? 'black' : 'white';
    this.renderBar(this.bottom, bottom);
    this.renderBar(this.top, otherSide(bottom));
  }

  playerName(side) {
    const seat = this.page.view.seats[side];
    if (seat.player === 'ai') return `${t('computer')} · ${levelName(seat.level)}`;
    if (seat.open) return t('openSeat');
    return seat.name || t(side === 'white' ? 'whitePlayer' : 'blackPlayer');
  }

  renderBar(bar, side) {
    const page = this.page;
    const v = page.view;
    const seat = v.seats[side];
    const toMove = v.status === 'active' && v.side_to_move === side;
    bar.className = `player-bar ${side}${toMove ? ' to-move' : ''}`;
    bar.dataset.side = side;
    clear(bar);
    const who = h('div', { class: 'who' }, [
      h('span', { class: `side-dot ${side}`, title: t(side) }),
      h('span', { class: 'name' }, this.playerName(side)),
      page.seats[side] && page.mySides().length === 1 ? h('span', { class: 'tag' }, t('you')) : null,
      seat.player === 'ai' && v.ai_thinking && toMove ? h('span', { class: 'thinking' }, [t('aiThinking'), h('i'), h('i'), h('i')]) : null,
    ]);
    bar.appendChild(who);
    // The live game's count from the server (Salta: the distance home).
    const standing = v.standing ? page.entry.standingLabel(v.standing[side]) : null;
    if (standing !== null) bar.appendChild(h('span', { class: 'standing', dataset: { standing: side } }, standing));
    if (page.entry.reserves) bar.appendChild(this.supply(side));
    if (v.clock) {
      bar.appendChild(h('span', { class: `clock${v.clock.running === side ? ' running' : ''}`, dataset: { clock: side } }, ''));
    }
    this.tick();
  }

  /** A side's reserve (to drop from) and the pieces it lost. */
  supply(side) {
    const page = this.page;
    const position = page.shownPosition();
    const canDrop = page.actor() === side && page.board.canDrop();
    return supplyBox({
      side,
      reserve: position.reserve[side],
      captured: position.captured[side],
      picked: page.selected === 'reserve' && page.actor() === side,
      onPick: canDrop ? (byKeyboard) => page.board.pickReserve(byKeyboard) : null,
    });
  }

  /** Counts the running clock down from the time the server gave. */
  tick() {
    const page = this.page;
    const v = page.view;
    if (!v || !v.clock) return;
    const c = v.clock;
    const received = this.receivedAt || (this.receivedAt = { version: v.version, at: performance.now() });
    if (received.version !== v.version) this.receivedAt = { version: v.version, at: performance.now() };
    const elapsed = performance.now() - this.receivedAt.at;
    for (const side of SIDES) {
      const node = page.main.querySelector(`[data-clock="${side}"]`);
      if (!node) continue;
      let ms = side === 'white' ? c.white_ms : c.black_ms;
      if (c.running === side && v.status === 'active') ms -= elapsed;
      ms = Math.max(0, ms);
      const total = Math.ceil(ms / 1000);
      const text = ms < 10000 ? (ms / 1000).toFixed(1) : `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
      if (node.textContent !== text) node.textContent = text;
      node.classList.toggle('low', ms < 20000);
      // One warning per side and game when one's own running clock falls under 10 s.
      const key = `${v.id} ${side}`;
      if (!this.warned) this.warned = new Set();
      if (ms < 10000 && c.running === side && v.status === 'active' && page.seats[side] && !this.warned.has(key)) {
        this.warned.add(key);
        playSound('lowTime');
      }
    }
  }
}

/**
 * A side's reserve and the pieces it lost (games with reserves), as the
 * player bars of the game page and the lessons show them. The reserve is a
 * button: `onPick(byKeyboard)` picks it to drop from (null: no drop now);
 * `picked`, whether it is picked.
 */
export function supplyBox({ side, reserve, captured, picked, onPick }) {
  const discs = (n) => {
    const list = [];
    for (let i = 0; i < Math.min(n, 6); i++) list.push(smallDisc(side));
    return list;
  };
  const reserveButton = h(
    'button',
    {
      class: `reserve${picked ? ' selected' : ''}`,
      disabled: !onPick,
      dataset: { reserve: side },
      title: t('reserveHelp'),
      'aria-label': `${t('reserve')} (${t(side)}): ${reserve}. ${t('reserveHelp')}`,
      'aria-pressed': onPick ? String(Boolean(picked)) : null,
      // A click from the keyboard (Enter or Space) has no pointer: detail 0.
      onclick: (e) => onPick && onPick(e.detail === 0),
    },
    [h('span', { class: 'supply-label' }, t('reserve')), h('span', { class: 'discs' }, discs(reserve)), h('b', { class: 'count' }, String(reserve))],
  );
  const lost = h('span', { class: 'captured', dataset: { captured: side }, title: t('capturedHelp'), 'aria-label': `${t('captured')} (${t(side)}): ${captured}` }, [
    h('span', { class: 'supply-label' }, t('captured')),
    h('span', { class: 'discs' }, discs(captured)),
    h('b', { class: 'count' }, String(captured)),
  ]);
  return h('div', { class: 'supply' }, [reserveButton, lost]);
}

/**
 * A bar of `side` off the game page (the lessons, the analysis board):
 * its name, a tag (or null), and its reserve and lost pieces in
 * `position`, the reserve a button when `side` is `dropper` and may drop
 * (`host` as for board.js reserveKey); marked as the side to move when
 * `toMove`.
 */
export function sideBar(bar, side, { position, dropper, tag, toMove, host }) {
  bar.className = `player-bar ${side}${toMove ? ' to-move' : ''}`;
  bar.dataset.side = side;
  clear(bar);
  bar.append(
    h('div', { class: 'who' }, [h('span', { class: `side-dot ${side}`, title: t(side) }), h('span', { class: 'name' }, t(side)), tag ? h('span', { class: 'tag' }, tag) : null]),
    supplyBox({
      side,
      reserve: position.reserve[side],
      captured: position.captured[side],
      picked: side === dropper && host.selected === 'reserve',
      onPick: side === dropper && host.canDrop() ? (byKeyboard) => pickReserve(host, byKeyboard) : null,
    }),
  );
}
