// The game page's controls: flip the board, show the targets, take back,
// offer a draw, resign (confirmed), a rematch, the record; and the result
// banner over the board.

import { h, clear, toast } from './dom.js';
import { t } from './i18n.js';
import { createGame } from './pages.js';
import { seatsOf, saveSeat } from './api.js';
import { navigate } from './router.js';
import { otherSide } from './position.js';
import { resultText, scoreText } from './game-status.js';
import { analysisLink } from './analysis.js';

export class Actions {
  constructor(page) {
    this.page = page;
    this.confirmResign = false;
    this.bannerHidden = false;
  }

  /** The controls, and the banner over the board in `boardWrap`. */
  build(boardWrap) {
    this.box = h('div', { class: 'actions' });
    this.banner = h('div', { class: 'banner', hidden: true });
    boardWrap.append(this.banner);
  }

  render() {
    this.followRematch();
    this.renderButtons();
    this.renderBanner();
  }

  /** A game between two people whose rematch this browser offered or accepted. */
  online() {
    const page = this.page;
    return page.mySides().length === 1 && !page.opponentIsAi();
  }

  /**
   * Once the rematch is accepted, each player goes to it: the seat token of
   * this game holds the other colour's seat there.
   */
  followRematch() {
    const page = this.page;
    const v = page.view;
    if (!v.rematch || !this.online() || this.followed) return;
    this.followed = true;
    const side = page.mySides()[0];
    saveSeat(v.rematch, otherSide(side), seatsOf(page.id)[side]);
    setTimeout(() => navigate(`/game/${v.rematch}`), 0);
  }

  renderButtons() {
    const page = this.page;
    const v = page.view;
    clear(this.box);
    const mine = page.mySides();
    const active = v.status === 'active';
    const button = (label, onclick, attrs = {}) => h('button', { class: 'button', onclick, ...attrs }, label);
    const act = (path, body) => () => page.act(path, body, 'actionRefused');
    const row = [
      button(t('flip'), () => {
        page.flipped = !page.flipped;
        page.render();
      }, { dataset: { action: 'flip' } }),
    ];
    if (page.targets()) {
      row.push(
        button(page.showTargets ? t('hideTargets') : t('showTargets'), () => {
          page.showTargets = !page.showTargets;
          localStorage.setItem('monte.targets', page.showTargets ? 'on' : 'off');
          page.render();
        }, { dataset: { action: 'targets' }, 'aria-pressed': String(page.showTargets) }),
      );
    }
    if (active && page.opponentIsAi()) {
      row.push(button(t('takeback'), act('takeback', {}), { dataset: { action: 'takeback' }, disabled: v.ply === 0 }));
    }
    if (active && mine.length === 1 && !page.opponentIsAi() && !v.draw_offer) {
      row.push(button(t('offerDraw'), act('draw', { action: 'offer' }), { dataset: { action: 'draw' } }));
    }
    if (active && mine.length) row.push(this.resignButton(mine));
    if (v.status === 'over' && mine.length) row.push(this.rematchButton());
    if (v.status === 'over') row.push(h('a', { class: 'button', href: analysisLink(page.id), dataset: { action: 'analyse' } }, t('analyse')));
    row.push(this.recordLink({ dataset: { action: 'record' } }));
    row.push(h('a', { class: 'button', href: '/' }, t('newGame')));
    this.box.append(...row);
  }

  /** Resign, then (for 4 s) the confirmation. */
  resignButton(mine) {
    const page = this.page;
    if (this.confirmResign) {
      const label = mine.length === 2 ? t('resignSide', { side: t(page.view.side_to_move) }) : t('reallyResign');
      const confirm = () => {
        this.confirmResign = false;
        page.act('resign', {}, 'actionRefused');
      };
      return h('button', { class: 'button danger', dataset: { action: 'resign-confirm' }, onclick: confirm }, label);
    }
    const ask = () => {
      this.confirmResign = true;
      this.renderButtons();
      setTimeout(() => {
        this.confirmResign = false;
        if (!page.stopped) this.renderButtons();
      }, 4000);
    };
    return h('button', { class: 'button', dataset: { action: 'resign' }, onclick: ask }, t('resign'));
  }

  /** *Rematch*; between two people *Rematch offered* once offered, and *Accept the rematch* to the other. */
  rematchButton() {
    const v = this.page.view;
    if (this.online() && v.rematch_offer === this.page.mySides()[0]) {
      return h('button', { class: 'button', disabled: true, dataset: { action: 'rematch-offered' } }, t('rematchOffered'));
    }
    const label = this.online() && v.rematch_offer ? t('acceptRematch') : t('rematch');
    return h('button', { class: 'button primary', dataset: { action: 'rematch' }, onclick: (e) => this.rematch(e.currentTarget) }, label);
  }

  recordLink(attrs = {}) {
    const { id, view } = this.page;
    const href = `/api/games/${encodeURIComponent(id)}/record`;
    return h('a', { class: 'button', href, download: `monte-${view.game}-${id}.txt`, ...attrs }, t('downloadRecord'));
  }

  renderBanner() {
    const page = this.page;
    const r = page.view.result;
    if (!r || this.bannerHidden) {
      this.banner.hidden = true;
      return;
    }
    clear(this.banner);
    const mine = page.mySides();
    let headline = resultText(page.view);
    if (mine.length === 1 && r.winner) headline = r.winner === mine[0] ? t('youWin') : t('youLose');
    const details = [t(`reason.${r.reason}`) || r.reason];
    if (r.margin !== null && r.margin !== undefined) details.push(t('margin', { n: r.margin }));
    const showBoard = () => {
      this.bannerHidden = true;
      this.renderBanner();
    };
    this.banner.append(
      h('div', { class: 'banner-card', role: 'status' }, [
        // An aborted game has no score (`*`).
        r.result === '*' ? null : h('div', { class: 'result-score' }, scoreText(r.result)),
        h('h2', {}, headline),
        h('p', {}, details.join(' · ')),
        h('div', { class: 'row' }, [
          mine.length ? this.rematchButton() : null,
          h('a', { class: `button${mine.length ? '' : ' primary'}`, href: '/' }, t('newGame')),
          this.recordLink(),
          h('a', { class: 'button', href: analysisLink(page.id), dataset: { action: 'analyse-banner' } }, t('analyse')),
          h('button', { class: 'button ghost', onclick: showBoard }, t('showBoard')),
        ]),
      ]),
    );
    this.banner.hidden = false;
  }

  /**
   * Between two people: the offer (or its acceptance), seen by both.
   * Otherwise a new game with the same settings and the colours swapped
   * (on one screen: the same seats).
   */
  async rematch(button) {
    const page = this.page;
    const v = page.view;
    const mine = page.mySides();
    if (!mine.length) return;
    if (this.online()) {
      if (button) button.disabled = true;
      await page.act('rematch', {}, 'actionRefused');
      return;
    }
    const body = { game: v.game, rules: v.rules };
    if (mine.length === 2) {
      body.white = 'me';
      body.black = 'me';
    } else {
      const was = mine[0];
      const opponent = v.seats[otherSide(was)];
      body[otherSide(was)] = 'me';
      body[was] = opponent.player === 'ai' ? `ai:${opponent.level}` : 'open';
      if (v.seats[was].name) body.name = v.seats[was].name;
    }
    if (v.clock) body.clock = { minutes: v.clock.initial_ms / 60000, increment: v.clock.increment_ms / 1000 };
    // The rule set's own start is not sent: only a start position of the game's own.
    if (v.start_fen !== page.kind.start_fen) body.fen = v.start_fen;
    if (button) button.disabled = true;
    try {
      await createGame(body);
    } catch (e) {
      if (button) button.disabled = false;
      toast(`${t('createFailed')}: ${e.message}`, 'error');
    }
  }
}
