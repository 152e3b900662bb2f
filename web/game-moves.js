// The game page's move list: the moves played (each a button to look at
// the position after it), stepping back and forth through them, and the
// box to type a move in (suggesting the legal moves).

import { request } from './api.js';
import { h, clear, toast } from './dom.js';
import { t } from './i18n.js';

export class MoveList {
  constructor(page) {
    this.page = page;
  }

  build() {
    const page = this.page;
    this.list = h('ol', { class: 'moves' });
    this.nav = h('div', { class: 'move-nav' });
    this.input = h('input', {
      type: 'text',
      class: 'entry-input',
      placeholder: t(page.entry.entryPlaceholder),
      autocomplete: 'off',
      autocapitalize: 'off',
      spellcheck: 'false',
      list: 'legal-list',
      'aria-label': t('entryLabel'),
    });
    this.legalList = h('datalist', { id: 'legal-list' });
    this.form = h(
      'form',
      {
        class: 'entry',
        onsubmit: (e) => {
          e.preventDefault();
          const text = this.input.value.trim();
          if (text) page.play(text, () => (this.input.value = ''));
        },
      },
      [this.input, this.legalList, h('button', { type: 'submit', class: 'button' }, t('play'))],
    );
  }

  render() {
    const page = this.page;
    const v = page.view;
    clear(this.list);
    const startBlack = page.entry.parse(v.start_fen, page.kind).side === 'black';
    const shown = page.viewing === null ? v.ply : page.viewing;
    const cell = (i) =>
      i < v.history.length
        ? h(
            'button',
            {
              class: `mv${i + 1 === shown ? ' current' : ''}`,
              dataset: { ply: String(i + 1) },
              onclick: () => this.goTo(i + 1 === v.ply ? null : i + 1),
            },
            v.history[i],
          )
        : h('span', { class: 'mv empty' });
    let i = 0;
    let number = 1;
    if (startBlack && v.history.length) {
      this.list.appendChild(h('li', {}, [h('span', { class: 'num' }, '1.'), h('span', { class: 'mv empty' }, '…'), cell(0)]));
      i = 1;
      number = 2;
    }
    for (; i < v.history.length; i += 2, number += 1) {
      this.list.appendChild(h('li', {}, [h('span', { class: 'num' }, `${number}.`), cell(i), cell(i + 1)]));
    }
    if (!v.history.length) this.list.appendChild(h('li', { class: 'none' }, t('noMovesYet')));
    // Scroll the list only (never the page) to the move shown.
    const current = this.list.querySelector('.current');
    const box = this.list;
    if (current) {
      const top = current.offsetTop;
      if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - current.offsetHeight) box.scrollTop = top - box.clientHeight / 2;
    } else box.scrollTop = box.scrollHeight;

    clear(this.nav);
    const nav = (label, title, target, disabled) =>
      h('button', { class: 'button icon', title, 'aria-label': title, disabled, onclick: () => this.goTo(target) }, label);
    this.nav.append(
      nav('«', t('first'), 0, shown === 0),
      nav('‹', t('previous'), Math.max(0, shown - 1), shown === 0),
      nav('›', t('next'), shown + 1 >= v.ply ? null : shown + 1, page.viewing === null),
      nav('»', t('last'), null, page.viewing === null),
    );
    this.form.hidden = page.mySides().length === 0 || v.status === 'over';
    this.renderLegalList();
  }

  /** Shows the position after `ply` moves (null: now), asking the server for the positions once per version. */
  async goTo(ply) {
    const page = this.page;
    const v = page.view;
    if (ply !== null && (ply >= v.ply || ply < 0)) ply = null;
    if (ply !== null && (!page.positions || page.positions.version !== v.version)) {
      try {
        const answer = await request('GET', `/web/games/${encodeURIComponent(page.id)}/positions`);
        page.positions = { version: answer.version, list: answer.positions, moves: answer.moves };
      } catch (e) {
        toast(`${t('loadFailed')}: ${e.message}`, 'error');
        return;
      }
      if (ply >= page.positions.list.length) ply = null;
    }
    page.viewing = ply;
    page.selected = null;
    page.board.closePopover();
    page.render();
  }

  renderLegalList() {
    const page = this.page;
    clear(this.legalList);
    const legal = page.view.legal_moves;
    if (page.actor() === null) return;
    const all = [...Object.values(legal.from).flat(), ...legal.drops].map((m) => m.notation);
    if (legal.pass) all.push(legal.pass);
    for (const notation of all.sort()) this.legalList.appendChild(h('option', { value: notation }));
  }
}
