// The lobby on the start page: the seeks for an opponent, live over
// `/api/lobby/ws`; posting one's own (the start form's game, rule set,
// clock and rating choice), cancelling it, accepting another's. A seek
// lives as long as this page's socket: leaving the page takes it away.

import { request, saveSeat } from './api.js';
import { h, clear, toast } from './dom.js';
import { t } from './i18n.js';
import { navigate } from './router.js';

export class Lobby {
  /** `seek()`: the seek the start form describes now (the socket's command). */
  constructor(seek) {
    this.seek = seek;
    this.node = h('section', { class: 'card lobby' });
    this.seeks = null;
    this.mine = new Set();
    this.stopped = false;
    this.connect();
    this.render();
  }

  connect() {
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    this.ws = new WebSocket(`${scheme}://${location.host}/api/lobby/ws`);
    this.ws.onmessage = (e) => this.heard(JSON.parse(e.data));
    this.ws.onclose = () => {
      // Seeks die with their socket: the page's are gone.
      this.mine.clear();
      if (!this.stopped) setTimeout(() => !this.stopped && this.connect(), 2000);
    };
  }

  heard(message) {
    if (message.type === 'seeks') {
      this.seeks = message.seeks;
      for (const id of [...this.mine]) if (!this.seeks.some((s) => s.id === id)) this.mine.delete(id);
    } else if (message.type === 'posted') {
      this.mine.add(message.seek);
    } else if (message.type === 'started') {
      saveSeat(message.game, message.you, message.token);
      navigate(`/game/${message.game}`);
      return;
    } else if (message.type === 'error') {
      toast(`${t('seekFailed')}: ${message.error}`, 'error');
    }
    this.render();
  }

  send(command) {
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(command));
    else toast(t('lobbyOffline'), 'error');
  }

  async accept(seek, button) {
    button.disabled = true;
    try {
      const answer = await request('POST', `/api/lobby/${encodeURIComponent(seek.id)}/accept`, {});
      saveSeat(answer.game.id, answer.you, answer.token);
      navigate(`/game/${answer.game.id}`);
    } catch (e) {
      button.disabled = false;
      toast(`${t('acceptFailed')}: ${e.message}`, 'error');
    }
  }

  render() {
    clear(this.node);
    const post = this.mine.size
      ? h('button', { type: 'button', class: 'button', dataset: { action: 'cancel-seek' }, onclick: () => this.send({ type: 'cancel' }) }, t('cancelSeek'))
      : h('button', { type: 'button', class: 'button primary', dataset: { action: 'seek' }, onclick: () => this.send(this.seek()) }, t('seekOpponent'));
    let list;
    if (this.seeks === null) list = h('p', { class: 'hint' }, t('loading'));
    else if (!this.seeks.length) list = h('p', { class: 'hint' }, t('noSeeks'));
    else
      list = h(
        'ul',
        { class: 'game-list seeks' },
        this.seeks.map((seek) => {
          const mine = this.mine.has(seek.id);
          const who = seek.name || t('someone');
          const details = [
            seek.rules,
            seek.clock ? `${seek.clock[0] / 60000}+${seek.clock[1] / 1000}` : t('noClock'),
            t(seek.rated ? 'rated' : 'casual'),
            seek.min_rating !== null ? `${seek.min_rating}–${seek.max_rating}` : null,
          ].filter(Boolean);
          return h('li', { dataset: { seek: seek.id } }, [
            h('span', { class: `game-badge ${seek.game}` }, t(seek.game)),
            h('span', { class: 'players' }, seek.rating !== null ? `${who} (${seek.rating})` : who),
            h('span', { class: 'meta' }, details.join(' · ')),
            mine
              ? h('span', { class: 'hint' }, t('yourSeek'))
              : h('button', { type: 'button', class: 'button', dataset: { action: 'accept' }, onclick: (e) => this.accept(seek, e.currentTarget) }, t('acceptSeek')),
          ]);
        }),
      );
    this.node.append(h('h2', {}, t('lobbyTitle')), h('p', { class: 'hint' }, t('lobbyText')), list, post);
  }

  stop() {
    this.stopped = true;
    this.ws.close();
  }
}
