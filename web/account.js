// Players' accounts on the page: who is signed in (shown in the header),
// the sign-in / sign-up page, a player's profile (ratings, their chart,
// games) and the leaderboards. The session is the server's HttpOnly
// cookie: the page only asks who it names (GET /api/me).

import { request, allTokens, ApiError } from './api.js';
import { h, s, clear, toast } from './dom.js';
import { t, onLangChange } from './i18n.js';
import { GAME_NAMES } from './games.js';
import { navigate } from './router.js';
import { gameList } from './pages.js';

let me = null;
const listeners = new Set();

/** The signed-in player (`{ name, created_at }`), or null. */
export function signedIn() {
  return me;
}

/** Calls `listener` whenever who is signed in changes; returns the unsubscribe. */
export function onAccountChange(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setMe(next) {
  me = next;
  for (const listener of [...listeners]) listener();
}

/** Asks the server who the session cookie names. */
export async function loadMe() {
  try {
    setMe(await request('GET', '/api/me'));
  } catch (e) {
    setMe(null);
  }
}

/** A server's refusal in the page's language when it names it, else in its words. */
function refusalText(e) {
  const key = e.code && `error.${e.code}`;
  const text = key && t(key);
  return text && text !== key ? text : e.message;
}

/** The header's part: the signed-in player's name and *Sign out*, or *Sign in*. */
export function accountBox(box) {
  const draw = () => {
    clear(box);
    if (me) {
      box.append(
        h('a', { href: `/player/${encodeURIComponent(me.name)}`, class: 'me', dataset: { me: me.name } }, me.name),
        h('button', { type: 'button', class: 'linkish', dataset: { action: 'sign-out' }, onclick: signOut }, t('signOut')),
      );
    } else {
      box.append(h('a', { href: '/signin', dataset: { action: 'sign-in' } }, t('signIn')));
    }
  };
  onAccountChange(draw);
  onLangChange(draw);
  draw();
}

async function signOut() {
  try {
    await request('DELETE', '/api/session');
  } catch (e) {
    toast(refusalText(e), 'error');
    return;
  }
  setMe(null);
  navigate('/');
}

/** The sign-in and sign-up page (`mode`: `in` or `up`). */
export function signInPage(main, mode = 'in') {
  let current = mode;
  const typed = { name: '', password: '' };
  const draw = () => {
    clear(main);
    const field = (name, type, autocomplete) =>
      h('label', { class: 'field' }, [
        h('span', { class: 'label' }, t(name === 'name' ? 'accountName' : 'password')),
        h('input', { type, name, autocomplete, value: typed[name], required: true, oninput: (e) => (typed[name] = e.target.value) }),
      ]);
    const submit = h('button', { type: 'submit', class: 'button primary big' }, t(current === 'up' ? 'signUp' : 'signIn'));
    const form = h(
      'form',
      {
        class: 'card sign-in',
        novalidate: true,
        onsubmit: async (e) => {
          e.preventDefault();
          submit.disabled = true;
          const path = current === 'up' ? '/api/accounts' : '/api/session';
          try {
            // The guest's games in this browser become the account's.
            const answer = await request('POST', path, { name: typed.name.trim(), password: typed.password, tokens: allTokens() });
            setMe(answer);
            navigate(`/player/${encodeURIComponent(answer.name)}`);
          } catch (err) {
            toast(err instanceof ApiError ? refusalText(err) : err.message, 'error');
            submit.disabled = false;
          }
        },
      },
      [
        h('h2', {}, t(current === 'up' ? 'signUpTitle' : 'signInTitle')),
        field('name', 'text', 'username'),
        field('password', 'password', current === 'up' ? 'new-password' : 'current-password'),
        current === 'up' ? h('p', { class: 'hint' }, t('accountRules')) : null,
        submit,
        h(
          'button',
          { type: 'button', class: 'linkish', dataset: { action: 'switch' }, onclick: () => { current = current === 'up' ? 'in' : 'up'; draw(); } },
          t(current === 'up' ? 'haveAccount' : 'noAccount'),
        ),
      ],
    );
    main.append(h('div', { class: 'narrow-page' }, [form]));
  };
  draw();
  return onLangChange(draw);
}

/** The rating as shown: provisional ones end in `?` (as on lichess). */
function ratingText(r) {
  return `${r.rating}${r.provisional ? '?' : ''}`;
}

/** An SVG chart of a rating's history (one point per rated game). */
export function ratingChart(points) {
  const width = 320;
  const height = 120;
  const pad = 34;
  if (points.length === 0) return h('p', { class: 'hint' }, t('noRatedGames'));
  const values = [1500, ...points.map((p) => p.rating)];
  let low = Math.min(...values);
  let high = Math.max(...values);
  if (high - low < 50) {
    low -= 25;
    high += 25;
  }
  const x = (i) => pad + (i * (width - 2 * pad)) / Math.max(1, values.length - 1);
  const y = (v) => height - pad - ((v - low) * (height - 2 * pad)) / (high - low);
  const line = values.map((v, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return s('svg', { class: 'rating-chart', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('ratingChart') }, [
    s('line', { x1: pad, x2: width - pad, y1: y(1500), y2: y(1500), class: 'base' }),
    s('text', { x: 0, y: y(high) + 4, class: 'axis' }, String(Math.round(high))),
    s('text', { x: 0, y: y(low) + 4, class: 'axis' }, String(Math.round(low))),
    s('path', { d: line, class: 'line' }),
    ...values.map((v, i) => s('circle', { cx: x(i), cy: y(v), r: 3, class: 'point' }, s('title', {}, String(v)))),
  ]);
}

/** A player's profile: ratings with their charts, and their games. */
export function playerPage(main, name) {
  let profile = null;
  let games = null;
  let next = 0;
  let failed = null;
  const draw = () => {
    clear(main);
    if (failed) {
      main.append(h('section', { class: 'card' }, [h('h1', {}, name), h('p', {}, failed)]));
      return;
    }
    if (!profile) {
      main.append(h('p', { class: 'hint' }, t('loading')));
      return;
    }
    const mine = me && me.name.toLowerCase() === profile.name.toLowerCase();
    const ratings = GAME_NAMES.filter((game) => profile.ratings[game]).map((game) => {
      const r = profile.ratings[game];
      return h('div', { class: 'rating-card', dataset: { game } }, [
        h('h3', {}, t(game)),
        h('p', { class: 'rating' }, [h('b', { dataset: { rating: r.rating } }, ratingText(r)), ' ', h('small', {}, t('ratedGames', { n: r.games }))]),
        ratingChart(profile.history[game] || []),
      ]);
    });
    const more = next !== null && games ? h('button', { type: 'button', class: 'button', onclick: loadGames }, t('moreGames')) : null;
    main.append(
      h('div', { class: 'player-page' }, [
        h('section', { class: 'card' }, [
          h('h1', { class: 'player-name' }, profile.name),
          h('p', { class: 'hint' }, t('memberSince', { date: new Date(profile.created_at).toLocaleDateString() })),
          h('div', { class: 'rating-cards' }, ratings),
          mine
            ? h('p', { class: 'account-actions' }, [
                h('button', { type: 'button', class: 'button', dataset: { action: 'sign-out' }, onclick: signOut }, t('signOut')),
                h('a', { href: '/api/me/data', download: true, class: 'button' }, t('downloadData')),
                h('button', { type: 'button', class: 'button danger', dataset: { action: 'delete-account' }, onclick: deleteAccount }, t('deleteAccount')),
              ])
            : null,
        ]),
        h('section', { class: 'card' }, [h('h2', {}, t('playerGames')), gameList(games, 'player'), more]),
      ]),
    );
  };
  const path = `/api/players/${encodeURIComponent(name)}`;
  async function loadGames() {
    try {
      const page = await request('GET', `${path}/games?limit=20&offset=${next}`);
      games = [...(games || []), ...page.games];
      next = page.next_offset;
    } catch (e) {
      games = games || [];
    }
    draw();
  }
  const load = async () => {
    try {
      profile = await request('GET', path);
    } catch (e) {
      failed = e.status === 404 ? t('noSuchPlayer') : e.message;
    }
    draw();
    if (profile) loadGames();
  };
  draw();
  load();
  const stop = [onLangChange(draw), onAccountChange(draw)];
  return () => stop.forEach((f) => f());
}

async function deleteAccount() {
  const password = window.prompt(t('deleteAccountConfirm'));
  if (password === null) return;
  try {
    await request('DELETE', '/api/me', { password });
  } catch (e) {
    toast(refusalText(e), 'error');
    return;
  }
  setMe(null);
  toast(t('accountDeleted'));
  navigate('/');
}

/** The leaderboard of each game. */
export function leaderboardPage(main) {
  const boards = {};
  const draw = () => {
    clear(main);
    const sections = GAME_NAMES.map((game) => {
      const board = boards[game];
      let body;
      if (!board) body = h('p', { class: 'hint' }, t('loading'));
      else if (!board.players.length) body = h('p', { class: 'hint' }, t('noRatedPlayers'));
      else
        body = h('table', { class: 'leaderboard' }, [
          h('thead', {}, h('tr', {}, [h('th', {}, '#'), h('th', {}, t('player')), h('th', {}, t('rating')), h('th', {}, t('games'))])),
          h(
            'tbody',
            {},
            board.players.map((p) =>
              h('tr', { dataset: { name: p.name } }, [
                h('td', {}, String(p.rank)),
                h('td', {}, h('a', { href: `/player/${encodeURIComponent(p.name)}` }, p.name)),
                h('td', {}, ratingText(p)),
                h('td', {}, String(p.games)),
              ]),
            ),
          ),
        ]);
      return h('section', { class: 'card', dataset: { game } }, [h('h2', {}, t(game)), body]);
    });
    main.append(h('div', { class: 'leaderboard-page' }, [h('h1', {}, t('leaderboardTitle')), ...sections]));
  };
  draw();
  for (const game of GAME_NAMES) {
    request('GET', `/api/leaderboard/${game}`)
      .then((board) => {
        boards[game] = board;
        draw();
      })
      .catch(() => {
        boards[game] = { players: [] };
        draw();
      });
  }
  return onLangChange(draw);
}
