// The start page (a new game), the invite page and the list of live games.

import { request, saveSeat, seatsOf, allTokens, playerName, setPlayerName, ApiError } from './api.js';
import { h, clear, toast } from './dom.js';
import { t, levelName, onLangChange } from './i18n.js';
import { GAMES, GAME_NAMES, kindOf, staticBoard } from './games.js';
import { navigate } from './router.js';
import { scoreText } from './game-status.js';
import { signedIn, onAccountChange } from './account.js';
import { Lobby } from './lobby.js';
import { analysisLink } from './analysis.js';

const CLOCKS = [null, [3, 2], [5, 3], [10, 5], [15, 10], [30, 20]];
/** The server's limits for a clock (crates/server/src/games.rs). */
const CLOCK_LIMITS = { minutes: 1440, increment: 600 };

/**
 * The clock chosen on the start page: null (none), [minutes, increment], or
 * an Error whose message (translated) names what is wrong with a custom one.
 */
export function chosenClock(state) {
  if (state.clock !== 'custom') return CLOCKS[+state.clock] || null;
  const minutes = Number(state.clockMinutes);
  const increment = Number(state.clockIncrement);
  if (state.clockMinutes === '' || !Number.isFinite(minutes) || minutes < 0 || minutes > CLOCK_LIMITS.minutes) {
    return new Error(t('clockMinutesInvalid', { max: CLOCK_LIMITS.minutes }));
  }
  if (state.clockIncrement === '' || !Number.isFinite(increment) || increment < 0 || increment > CLOCK_LIMITS.increment) {
    return new Error(t('clockIncrementInvalid', { max: CLOCK_LIMITS.increment }));
  }
  if (minutes * 60 + increment < 1) return new Error(t('clockTooShort'));
  return [minutes, increment];
}

function remembered(key, fallback) {
  return localStorage.getItem(`monte.new.${key}`) || fallback;
}

function remember(key, value) {
  localStorage.setItem(`monte.new.${key}`, value);
}

export function startPage(main) {
  const state = {
    game: remembered('game', GAME_NAMES[0]),
    opponent: remembered('opponent', 'ai'),
    level: remembered('level', '3'),
    side: remembered('side', 'white'),
    clock: remembered('clock', '0'),
    clockMinutes: remembered('clockMinutes', '10'),
    clockIncrement: remembered('clockIncrement', '5'),
    rated: remembered('rated', 'no'),
    rules: Object.fromEntries(GAME_NAMES.map((game) => [game, remembered(`rules.${game}`, GAMES[game].ruleSets[0])])),
    // `game.option` -> the value chosen.
    options: Object.fromEntries(
      GAME_NAMES.flatMap((game) => GAMES[game].options.map((o) => [`${game}.${o.name}`, remembered(`option.${game}.${o.name}`, o.choices[0].value)])),
    ),
  };
  let mine = null;

  const draw = () => {
    clear(main);
    const radio = (name, value, current, label, extra = {}) =>
      h('label', { class: `choice${value === current ? ' on' : ''}`, ...extra }, [
        h('input', {
          type: 'radio',
          name,
          value,
          checked: value === current,
          onchange: () => {
            state[name] = value;
            remember(name, value);
            draw();
          },
        }),
        label,
      ]);
    const gameCard = (game) =>
      h('label', { class: `game-card${state.game === game ? ' on' : ''}`, dataset: { game } }, [
        h('input', {
          type: 'radio',
          name: 'game',
          value: game,
          checked: state.game === game,
          onchange: () => {
            state.game = game;
            remember('game', game);
            draw();
          },
        }),
        staticBoard(game, kindOf(game).start_fen),
        h('span', { class: 'game-card-text' }, [h('b', {}, t(game)), h('small', {}, t(`${game}Blurb`))]),
      ]);

    const rules = h(
      'select',
      {
        name: 'rules',
        onchange: (e) => {
          state.rules[state.game] = e.target.value;
          remember(`rules.${state.game}`, e.target.value);
        },
      },
      GAMES[state.game].ruleSets.map((r) => h('option', { value: r, selected: state.rules[state.game] === r }, `${r} — ${t(`ruleset.${state.game}.${r}`)}`)),
    );
    // The game's own options to the rule set (games.js).
    const optionFields = GAMES[state.game].options.map((option) => {
      const key = `${state.game}.${option.name}`;
      const select = h(
        'select',
        {
          name: option.name,
          onchange: (e) => {
            state.options[key] = e.target.value;
            remember(`option.${key}`, e.target.value);
          },
        },
        option.choices.map((c) => h('option', { value: c.value, selected: c.value === state.options[key] }, t(c.label, c.params))),
      );
      return h('div', { class: 'field' }, [h('span', { class: 'label' }, t(option.label)), select, h('p', { class: 'hint' }, t(option.hint))]);
    });
    const level = h(
      'select',
      { name: 'level', onchange: (e) => { state.level = e.target.value; remember('level', e.target.value); } },
      [1, 2, 3, 4, 5, 6, 7, 8].map((n) => h('option', { value: String(n), selected: String(n) === state.level }, `${n} · ${levelName(n)}`)),
    );
    const clock = h(
      'select',
      {
        name: 'clock',
        onchange: (e) => {
          state.clock = e.target.value;
          remember('clock', e.target.value);
          draw();
        },
      },
      [
        ...CLOCKS.map((c, i) => h('option', { value: String(i), selected: String(i) === state.clock }, c ? t('clockOption', { m: c[0], s: c[1] }) : t('noClock'))),
        h('option', { value: 'custom', selected: state.clock === 'custom' }, t('clockCustom')),
      ],
    );
    const clockNumber = (key, label, max, step) =>
      h('label', { class: 'clock-part' }, [
        h('input', {
          type: 'number',
          name: key,
          min: 0,
          max,
          step,
          inputmode: 'decimal',
          value: state[key],
          oninput: (e) => {
            state[key] = e.target.value.trim();
            remember(key, state[key]);
          },
        }),
        h('span', {}, label),
      ]);
    const customClock =
      state.clock === 'custom'
        ? h('div', { class: 'clock-custom' }, [
            clockNumber('clockMinutes', t('clockMinutes'), CLOCK_LIMITS.minutes, 'any'),
            h('span', { class: 'plus' }, '+'),
            clockNumber('clockIncrement', t('clockIncrement'), CLOCK_LIMITS.increment, 'any'),
          ])
        : null;
    // Typed text survives a redraw (a language switch, another choice).
    const name = h('input', {
      type: 'text',
      name: 'name',
      maxlength: 40,
      value: state.name ?? playerName(),
      placeholder: t('namePlaceholder'),
      autocomplete: 'nickname',
      oninput: (e) => (state.name = e.target.value),
    });
    const fen = h('textarea', { name: 'fen', rows: 2, placeholder: t('fenPlaceholder'), spellcheck: 'false', oninput: (e) => (state.fen = e.target.value) });
    fen.value = state.fen || '';
    const submit = h('button', { type: 'submit', class: 'button primary big' }, t('startGame'));

    const form = h(
      'form',
      {
        class: 'card new-game',
        // Our own messages (in the page's language) instead of the browser's.
        novalidate: true,
        onsubmit: async (e) => {
          e.preventDefault();
          submit.disabled = true;
          try {
            await create(state, name.value.trim(), fen.value.trim());
          } catch (err) {
            toast(`${t('createFailed')}: ${err.message}`, 'error');
            submit.disabled = false;
          }
        },
      },
      [
        h('h2', {}, t('newGameTitle')),
        h('div', { class: 'game-cards' }, GAME_NAMES.map(gameCard)),
        h('div', { class: 'field' }, [h('span', { class: 'label' }, t('ruleSet')), rules]),
        ...optionFields,
        h('div', { class: 'field' }, [
          h('span', { class: 'label' }, t('opponent')),
          h('div', { class: 'choices-row' }, [
            radio('opponent', 'ai', state.opponent, t('vsComputer')),
            radio('opponent', 'friend', state.opponent, t('vsFriend')),
            radio('opponent', 'anyone', state.opponent, t('vsAnyone')),
            radio('opponent', 'local', state.opponent, t('vsLocal')),
          ]),
        ]),
        state.opponent === 'ai' ? h('div', { class: 'field' }, [h('span', { class: 'label' }, t('level')), level]) : null,
        state.opponent !== 'local'
          ? h('div', { class: 'field' }, [
              h('span', { class: 'label' }, t('yourSide')),
              h('div', { class: 'choices-row' }, [
                radio('side', 'white', state.side, [h('span', { class: 'side-dot white' }), t('white')]),
                radio('side', 'black', state.side, [h('span', { class: 'side-dot black' }), t('black')]),
                radio('side', 'random', state.side, t('random')),
              ]),
            ])
          : h('p', { class: 'hint' }, t('localHint')),
        h('div', { class: 'field' }, [h('span', { class: 'label' }, t('clock')), clock, customClock]),
        signedIn() && state.opponent !== 'ai' && state.opponent !== 'local'
          ? h('label', { class: 'field check' }, [
              h('input', {
                type: 'checkbox',
                name: 'rated',
                checked: state.rated === 'yes',
                onchange: (e) => {
                  state.rated = e.target.checked ? 'yes' : 'no';
                  remember('rated', state.rated);
                },
              }),
              h('span', {}, [t('ratedGame'), h('small', { class: 'hint' }, ` — ${t('ratedHint')}`)]),
            ])
          : null,
        signedIn() ? null : h('div', { class: 'field' }, [h('span', { class: 'label' }, t('yourName')), name]),
        h('details', { class: 'advanced', open: Boolean(state.fen) }, [h('summary', {}, t('advanced')), h('label', { class: 'field' }, [h('span', { class: 'label' }, t('startPosition')), fen])]),
        submit,
      ],
    );

    const mineBox = h('section', { class: 'card my-games' }, [h('h2', {}, t('yourGames')), gameList(mine, 'mine')]);
    lobby.render();
    main.append(
      h('div', { class: 'start-page' }, [
        h('section', { class: 'hero' }, [h('h1', {}, t('heroTitle')), h('p', {}, t('heroText')), h('a', { href: '/rules', class: 'link' }, t('readRules'))]),
        form,
        lobby.node,
        mineBox,
      ]),
    );
    nameInput = name;
  };
  let nameInput = null;
  // The lobby's seek is the form's game, rule set, clock and rating choice.
  const lobby = new Lobby(() => {
    const clock = chosenClock(state);
    const seek = { type: 'seek', game: state.game, rules: rulesOf(state) };
    if (Array.isArray(clock)) seek.clock = { minutes: clock[0], increment: clock[1] };
    if (signedIn() && state.rated === 'yes') seek.rated = true;
    const name = nameInput && nameInput.value.trim();
    if (!signedIn() && name) seek.name = name;
    return seek;
  });

  const loadMine = async () => {
    const tokens = allTokens();
    if (!tokens.length) {
      mine = [];
      draw();
      return;
    }
    try {
      mine = (await request('POST', '/api/games/mine', { tokens, limit: 20 })).games;
    } catch (e) {
      mine = [];
    }
    draw();
  };

  draw();
  loadMine();
  const stop = [onLangChange(draw), onAccountChange(draw), () => lobby.stop()];
  return () => stop.forEach((f) => f());
}

/** The rule set the start form describes: the one chosen, with the game's options. */
function rulesOf(state) {
  const chosen = GAMES[state.game].options.map((o) => o.choices.find((c) => c.value === state.options[`${state.game}.${o.name}`]) || o.choices[0]);
  return [state.rules[state.game], ...chosen.map((c) => c.rules).filter(Boolean)].join(',');
}

async function create(state, name, fen) {
  const side = state.side === 'random' ? (Math.random() < 0.5 ? 'white' : 'black') : state.side;
  const otherSide = side === 'white' ? 'black' : 'white';
  const body = { game: state.game, rules: rulesOf(state) };
  if (state.opponent === 'local') {
    body.white = 'me';
    body.black = 'me';
  } else {
    body[side] = 'me';
    body[otherSide] = state.opponent === 'ai' ? `ai:${state.level}` : 'open';
    // Listed among the open games; a friend's seat is for the invite link only.
    if (state.opponent === 'anyone') body.public = true;
    if (state.opponent !== 'ai' && state.rated === 'yes' && signedIn()) body.rated = true;
  }
  const clock = chosenClock(state);
  if (clock instanceof Error) throw clock;
  if (clock) body.clock = { minutes: clock[0], increment: clock[1] };
  if (name) {
    body.name = name;
    setPlayerName(name);
  }
  if (fen) body.fen = fen;
  await createGame(body);
}

/** Creates a game (the API's body), keeps its seat tokens and goes to it. */
export async function createGame(body) {
  const answer = await request('POST', '/api/games', body);
  for (const [side, token] of Object.entries(answer.tokens || {})) saveSeat(answer.game.id, side, token);
  navigate(`/game/${answer.game.id}`);
}

const NO_GAMES = { mine: 'noGamesMine', open: 'noGamesOpen', live: 'noGamesLive', player: 'noGamesPlayer' };

/**
 * A list of games (summaries) with links to watch, play or join (`kind`:
 * mine, open, live, or a player's, with links to the records); `previews`
 * (id -> fen) adds small boards.
 */
export function gameList(games, kind, previews = {}) {
  if (games === null) return h('p', { class: 'hint' }, t('loading'));
  if (!games.length) return h('p', { class: 'hint' }, t(NO_GAMES[kind]));
  const name = (seat, side) => {
    if (seat.player === 'ai') return `${t('computer')} ${seat.level}`;
    if (seat.open) return '—';
    return seat.name || t(side === 'white' ? 'whitePlayer' : 'blackPlayer');
  };
  return h(
    'ul',
    { class: 'game-list' },
    games.map((g) => {
      const status = g.status === 'over' ? scoreText(g.result) : g.status === 'waiting' ? t('waiting') : t('moveN', { n: Math.floor(g.ply / 2) + 1 });
      // Lists carry no invite codes: the open games are those open to anyone.
      const link = kind === 'open' ? `/join/${g.id}` : `/game/${g.id}`;
      const action = kind === 'open' ? t('join') : kind === 'live' ? t('watch') : t('open');
      const fen = previews[g.id];
      return h('li', { dataset: { id: g.id }, class: fen ? 'with-preview' : null }, [
        fen ? h('a', { class: 'game-thumb', href: link, 'aria-label': action }, staticBoard(g.game, fen)) : null,
        h('span', { class: `game-badge ${g.game}` }, t(g.game)),
        h('span', { class: 'players' }, [
          h('span', { class: 'side-dot white' }),
          name(g.seats.white, 'white'),
          h('span', { class: 'vs' }, '–'),
          h('span', { class: 'side-dot black' }),
          name(g.seats.black, 'black'),
        ]),
        h('span', { class: 'meta' }, [
          g.rated ? h('b', { class: 'rated-mark' }, `${t('rated')} · `) : null,
          g.rules,
          g.clock ? ` · ${g.clock[0] / 60000}+${g.clock[1] / 1000}` : '',
          ' · ',
          status,
          kind === 'player' ? [' · ', new Date(g.created_at).toLocaleDateString()] : null,
        ]),
        kind === 'player' ? h('a', { class: 'link', href: `/api/games/${g.id}/record`, download: `${g.id}.txt` }, t('record')) : null,
        g.status === 'over' ? h('a', { class: 'button', href: analysisLink(g.id), dataset: { analyse: g.id } }, t('analyse')) : null,
        h('a', { class: 'button', href: link }, action),
      ]);
    }),
  );
}

/** Live games shown with a small board (the server's limit for one request). */
const PREVIEWS = 24;

export function livePage(main) {
  let live = null;
  let open = null;
  let previews = {}; // id -> the position now, for the live games shown
  let stopped = false;
  const draw = () => {
    clear(main);
    main.append(
      h('div', { class: 'live-page' }, [
        h('section', { class: 'card' }, [h('h1', {}, t('liveTitle')), h('p', { class: 'hint' }, t('liveText')), gameList(live, 'live', previews)]),
        h('section', { class: 'card' }, [h('h2', {}, t('openTitle')), gameList(open, 'open')]),
      ]),
    );
  };
  const load = async () => {
    try {
      const [a, b] = await Promise.all([request('GET', '/api/games/live?limit=50'), request('GET', '/api/games/open?limit=50')]);
      live = a.games;
      open = b.games;
      const ids = live.slice(0, PREVIEWS).map((g) => g.id);
      if (ids.length) {
        const answer = await request('GET', `/web/games/previews?ids=${ids.map(encodeURIComponent).join(',')}`);
        previews = Object.fromEntries(Object.entries(answer.previews).map(([id, p]) => [id, p.fen]));
      }
    } catch (e) {
      live = live || [];
      open = open || [];
    }
    if (!stopped) draw();
  };
  draw();
  load();
  const timer = setInterval(load, 5000);
  const unlang = onLangChange(draw);
  return () => {
    stopped = true;
    clearInterval(timer);
    unlang();
  };
}

/** The invite page: a seat offered through its invite code. */
export function invitePage(main, code) {
  const path = `/api/invites/${encodeURIComponent(code)}`;
  return seatPage(main, () => request('GET', path), (body) => request('POST', path, body));
}

/** A seat of a game open to anyone, from the list of open games. */
export function joinPage(main, id) {
  const path = `/api/games/${encodeURIComponent(id)}`;
  const load = async () => {
    const game = (await request('GET', path)).game;
    const open = ['white', 'black'].filter((side) => game.seats[side].open);
    return { game, open };
  };
  return seatPage(main, load, (body) => request('POST', `${path}/join`, body));
}

/** Who offers the seat, and *Take the seat*: `load` gives the game and its open seats, `take(body)` takes one. */
function seatPage(main, load, take) {
  let info = null;
  let error = null;
  const draw = () => {
    clear(main);
    if (error) {
      main.append(
        missingCard(t('inviteInvalid'), error),
      );
      return;
    }
    if (!info) {
      main.append(h('div', { class: 'loading' }, t('loading')));
      return;
    }
    const g = info.game;
    const held = seatsOf(g.id);
    if (held.white || held.black) {
      navigate(`/game/${g.id}`, true);
      return;
    }
    const side = info.open[0];
    const host = g.seats[side === 'white' ? 'black' : 'white'];
    const name = h('input', { type: 'text', maxlength: 40, value: playerName(), placeholder: t('namePlaceholder') });
    const join = h('button', { class: 'button primary big', dataset: { action: 'join' } }, t('joinGame'));
    join.onclick = async () => {
      join.disabled = true;
      try {
        const body = name.value.trim() ? { name: name.value.trim() } : {};
        if (name.value.trim()) setPlayerName(name.value.trim());
        const answer = await take(body);
        saveSeat(answer.game.id, answer.you, answer.token);
        navigate(`/game/${answer.game.id}`, true);
      } catch (e) {
        toast(`${t('joinFailed')}: ${e.message}`, 'error');
        join.disabled = false;
      }
    };
    main.append(
      h('section', { class: 'card invite-page' }, [
        h('h1', {}, t('invitedTitle')),
        h('p', {}, t('invitedText', { host: host.name || t('someone'), game: t(g.game), rules: g.rules, side: t(`as.${side}`) })),
        staticBoard(g.game, g.fen, { flipped: side === 'black' }),
        h('div', { class: 'field' }, [h('span', { class: 'label' }, t('yourName')), name]),
        h('div', { class: 'row' }, [join, h('a', { class: 'button', href: `/game/${g.id}` }, t('justWatch'))]),
      ]),
    );
  };
  (async () => {
    try {
      info = await load();
      if (!info.open || !info.open.length) error = t('inviteUsed');
    } catch (e) {
      error = e instanceof ApiError && e.status === 404 ? t('inviteUsed') : e.message;
    }
    draw();
  })();
  draw();
  return onLangChange(draw);
}

/** What stands where something asked for is missing: a title, why, and a way on. */
export function missingCard(title, text) {
  return h('section', { class: 'card narrow missing' }, [h('h1', {}, title), h('p', {}, text), h('a', { class: 'button primary', href: '/' }, t('newGame'))]);
}

/** The page of a path this site does not have. */
export function notFoundPage(main) {
  const draw = () => {
    clear(main);
    document.title = `${t('notFoundTitle')} — Monte`;
    main.append(missingCard(t('notFoundTitle'), t('notFound')));
  };
  draw();
  return onLangChange(draw);
}
