// The page's entry point: the header (with who is signed in), the language
// switch and a small router over the pages (/, /game/{id}, /invite/{code},
// /join/{id}, /rules, /live, /analysis, /learn, /signin, /signup, /player/{name},
// /leaderboard).

import { clear, s as svg } from './dom.js';
import { t, getLang, setLang, onLangChange } from './i18n.js';
import { loadKinds } from './games.js';
import { setRouter, navigate } from './router.js';
import { startPage, livePage, invitePage, joinPage, notFoundPage } from './pages.js';
import { gamePage } from './game.js';
import { rulesPage } from './rules.js';
import { analysisPage } from './analysis.js';
import { learnPage } from './learn.js';
import { soundOn, setSoundOn, onSoundChange } from './sound.js';
import { accountBox, loadMe, signInPage, playerPage, leaderboardPage } from './account.js';

const ROUTES = [
  [/^\/$/, (main) => startPage(main), 'play'],
  [/^\/game\/([A-Za-z0-9]+)$/, (main, id) => gamePage(main, id), null],
  [/^\/invite\/([A-Za-z0-9]+)$/, (main, code) => invitePage(main, code), 'play'],
  [/^\/join\/([A-Za-z0-9]+)$/, (main, id) => joinPage(main, id), 'play'],
  [/^\/rules$/, (main) => rulesPage(main), 'rules'],
  [/^\/live$/, (main) => livePage(main), 'live'],
  [/^\/analysis$/, (main) => analysisPage(main), 'analysis'],
  [/^\/learn$/, (main) => learnPage(main), 'learn'],
  [/^\/signin$/, (main) => signInPage(main, 'in'), null],
  [/^\/signup$/, (main) => signInPage(main, 'up'), null],
  [/^\/player\/([^/]+)$/, (main, name) => playerPage(main, decodeURIComponent(name)), null],
  [/^\/leaderboard$/, (main) => leaderboardPage(main), 'players'],
];

let leave = null;

function route() {
  const main = document.getElementById('main');
  if (leave) leave();
  leave = null;
  clear(main);
  document.title = t('title');
  window.scrollTo(0, 0);
  // `/rules/` is `/rules`: the server serves the page for both.
  const path = location.pathname.replace(/\/+$/, '') || '/';
  for (const [pattern, show, nav] of ROUTES) {
    const match = path.match(pattern);
    if (!match) continue;
    for (const link of document.querySelectorAll('[data-nav]')) link.classList.toggle('on', link.dataset.nav === nav);
    leave = show(main, ...match.slice(1)) || null;
    return;
  }
  for (const link of document.querySelectorAll('[data-nav]')) link.classList.remove('on');
  leave = notFoundPage(main);
}

// ---- the board's theme and the sound switch, remembered ----

const THEMES = ['wood', 'green'];
const THEME_KEY = 'monte.theme';

function theme() {
  const saved = localStorage.getItem(THEME_KEY);
  return THEMES.includes(saved) ? saved : THEMES[0];
}

function showPrefs() {
  const on = soundOn();
  const sound = document.querySelector('[data-pref="sound"]');
  // A speaker with its sound waves, or crossed out (drawn: no emoji font needed).
  clear(sound).appendChild(
    svg('svg', { viewBox: '0 0 24 24', width: 18, height: 18, 'aria-hidden': 'true', class: 'pref-icon' }, [
      svg('path', { d: 'M3 9h4l5-4v14l-5-4H3z', fill: 'currentColor' }),
      on
        ? svg('path', { d: 'M15.5 8.5a5 5 0 0 1 0 7M18 6a8.5 8.5 0 0 1 0 12', fill: 'none', stroke: 'currentColor', 'stroke-width': 2, 'stroke-linecap': 'round' })
        : svg('path', { d: 'M16 9l6 6M22 9l-6 6', fill: 'none', stroke: 'currentColor', 'stroke-width': 2, 'stroke-linecap': 'round' }),
    ]),
  );
  sound.setAttribute('aria-pressed', String(on));
  sound.title = t(on ? 'soundOnTitle' : 'soundOffTitle');
  sound.setAttribute('aria-label', t('sound'));
  const current = theme();
  document.documentElement.dataset.board = current;
  const switcher = document.querySelector('[data-pref="theme"]');
  switcher.textContent = '◐';
  switcher.dataset.theme = current;
  switcher.title = t('boardTheme', { theme: t(`theme.${current}`) });
  switcher.setAttribute('aria-label', switcher.title);
}

document.querySelector('[data-pref="sound"]').addEventListener('click', () => setSoundOn(!soundOn()));
document.querySelector('[data-pref="theme"]').addEventListener('click', () => {
  localStorage.setItem(THEME_KEY, THEMES[(THEMES.indexOf(theme()) + 1) % THEMES.length]);
  showPrefs();
});
onSoundChange(showPrefs);

function header() {
  showPrefs();
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const button of document.querySelectorAll('[data-lang]')) button.setAttribute('aria-pressed', String(button.dataset.lang === getLang()));
  document.querySelector('.lang').setAttribute('aria-label', t('language'));
  document.documentElement.lang = getLang();
  document.title = t('title');
}

document.addEventListener('click', (e) => {
  const link = e.target.closest('a[href]');
  if (!link || link.target || link.hasAttribute('download') || e.ctrlKey || e.metaKey || e.shiftKey || e.button !== 0) return;
  const url = new URL(link.href, location.href);
  if (url.origin !== location.origin || url.pathname.startsWith('/api/') || url.pathname.startsWith('/assets/')) return;
  if (url.pathname === location.pathname && url.hash) return; // an anchor on this page
  e.preventDefault();
  // The query travels too (`/analysis?game=ID`).
  const target = url.pathname + url.search + url.hash;
  if (target !== location.pathname + location.search + location.hash) navigate(target);
});

for (const button of document.querySelectorAll('[data-lang]')) {
  button.addEventListener('click', () => setLang(button.dataset.lang));
}
/** Every page draws boards: the games' descriptions come first, asked again until the server answers. */
async function start() {
  accountBox(document.querySelector('.account'));
  await loadMe();
  for (let attempt = 0; ; attempt += 1) {
    try {
      await loadKinds();
      break;
    } catch (e) {
      document.getElementById('main').textContent = `${t('loading')} (${e.message})`;
      await new Promise((resolve) => setTimeout(resolve, Math.min(5000, 250 * 2 ** attempt)));
    }
  }
  setRouter(route);
  window.addEventListener('popstate', route);
  route();
}

onLangChange(header);
header();
start();
