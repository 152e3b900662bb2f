// The game page's status: whose move it is or how the game ended (also in
// the tab's title), and the notices: a pending call, a forced pass, the
// invite link, a draw offer to answer, watching, an earlier move shown.

import { h, clear, toast } from './dom.js';
import { t } from './i18n.js';

/** A result as shown: `1/2-1/2` as `½-½`. */
export function scoreText(result) {
  return result.replaceAll('1/2', '½');
}

/** Who won, or a draw; empty while the game goes on. */
export function resultText(view) {
  const r = view.result;
  if (!r) return '';
  if (r.reason === 'aborted') return t('aborted');
  return r.winner ? t(r.winner === 'white' ? 'whiteWins' : 'blackWins') : t('draw');
}

export class StatusPanel {
  constructor(page) {
    this.page = page;
  }

  build() {
    this.line = h('div', { class: 'status', 'aria-live': 'polite' });
    this.notices = h('div', { class: 'notices' });
  }

  render() {
    const page = this.page;
    const v = page.view;
    // The live game's turn, also while an earlier move is looked at.
    const actor = page.seatToMove();
    const mine = page.mySides();
    let text;
    if (v.status === 'waiting') text = t('waitingOpponent');
    else if (v.status === 'over') text = resultText(v);
    else if (page.pending) text = t('moveSending');
    else if (actor && mine.length === 1) text = t('yourMove');
    else if (v.ai_thinking) text = t('aiThinking');
    else text = t(v.side_to_move === 'white' ? 'whiteToMove' : 'blackToMove');
    this.line.textContent = text;
    // A move on its way is no longer the player's to make.
    const acting = actor && !page.pending;
    this.line.className = `status${acting ? ' act' : ''}`;
    // The tab says when it is your move, for a player looking at another tab.
    const mark = acting && mine.length === 1 ? '● ' : '';
    document.title = `${mark}${text} · ${t(v.game)} — Monte`;

    clear(this.notices);
    const add = (node) => this.notices.appendChild(node);
    const position = page.entry.parse(v.fen, page.kind);
    if (position.call && v.status === 'active') {
      const mustJump = actor ? t('callYou', { square: position.call }) : t('callThem', { side: t(v.side_to_move), square: position.call });
      add(h('div', { class: 'notice salta-call' }, [h('b', {}, `${t('saltaCall')} `), mustJump]));
    }
    // A clock that does not run yet: the first move is due by its deadline (docs/api.md).
    if (v.clock && !v.clock.running && v.clock.deadline_at && actor && v.status === 'active') {
      add(h('div', { class: 'notice first-move' }, t('firstMoveDue')));
    }
    if (v.legal_moves.pass && page.actor()) {
      add(h('div', { class: 'notice' }, [t('mustPass'), ' ', h('button', { class: 'button', onclick: () => page.play(v.legal_moves.pass) }, t('pass'))]));
    }
    if (v.status === 'waiting' && page.invite && mine.length) {
      const url = `${location.origin}/invite/${page.invite}`;
      const input = h('input', { type: 'text', readonly: true, value: url, class: 'invite-url', onfocus: (e) => e.target.select() });
      add(
        h('div', { class: 'notice invite' }, [
          h('p', {}, t('inviteText')),
          h('div', { class: 'invite-row' }, [input, h('button', { class: 'button primary', onclick: () => copy(input) }, t('copy'))]),
        ]),
      );
    }
    if (v.draw_offer && v.status === 'active') {
      const offeredToMe = mine.length === 1 && v.draw_offer !== mine[0];
      if (offeredToMe) {
        add(
          h('div', { class: 'notice draw-offer' }, [
            t('drawOffered'),
            h('div', { class: 'row' }, [
              h('button', { class: 'button primary', onclick: () => page.act('draw', { action: 'accept' }, 'actionRefused') }, t('accept')),
              h('button', { class: 'button', onclick: () => page.act('draw', { action: 'decline' }, 'actionRefused') }, t('decline')),
            ]),
          ]),
        );
      } else if (mine.length === 1) {
        add(h('div', { class: 'notice' }, t('drawSent')));
      }
    }
    if (page.declinedAt === v.version && v.status === 'active') add(h('div', { class: 'notice draw-declined' }, t('drawDeclined')));
    if (!mine.length && v.status !== 'over') add(h('div', { class: 'notice watching' }, t('watching')));
    if (page.viewing !== null) {
      add(
        h('div', { class: 'notice history-note' }, [
          t('viewingMove', { ply: page.viewing }),
          ' ',
          h('button', { class: 'button', onclick: () => page.moves.goTo(null) }, t('backToGame')),
        ]),
      );
    }
  }
}

async function copy(input) {
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
    toast(t('copied'));
  } catch (e) {
    document.execCommand('copy');
    toast(t('copied'));
  }
}
