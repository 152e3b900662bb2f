// The rules of both games for players (from docs/rules.md), in English and
// Russian, with diagrams drawn by the boards themselves.

import { h, clear } from './dom.js';
import { getLang, onLangChange } from './i18n.js';
import { GAME_NAMES, staticBoard, kindOf } from './games.js';

const JUMP_BEFORE = 's5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,o4,o3,.,o1/.,.,.,.,./.,.,.,.,./.,.,.,o2,O5/.,O3,O4,.,./O1,O2,.,.,./M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 b - 7';
const CALL = 's5,s4,s3,s2,s1/m5,m4,m3,m2,m1/o5,.,o3,o2,o1/.,.,.,.,./.,.,o4,.,./.,.,.,O3,./.,.,.,.,./O1,O2,.,O4,O5/M1,M2,M3,M4,M5/S1,S2,S3,S4,S5 w f6 4';
const GOAL = 'S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,O3,O2,O1/.,.,.,.,./.,.,o3,.,./.,.,.,.,./.,.,.,.,./o1,o2,.,o4,o5/m1,m2,m3,m4,m5/s1,s2,s3,s4,s5 b - 97';
const FOCUS_JUMP = 'bw,.,.,./b,.,w,w,b,b/.,w,.,b,b,w,w,./.,b,b,w,w,b,b,./.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./w,w,b,b,w,w/.,.,.,. b 0 0 1';
const FOCUS_SWEEP = '.,.,.,./.,.,w,w,b,b/.,w,bbw,b,b,w,w,./.,b,b,w,w,b,b,./.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./w,w,b,b,w,w/.,.,.,. b 0 0 3';
const FOCUS_FREE = '.,.,.,b/.,w,w,w,.,b/.,w,bb,b,b,w,w,./.,b,b,w,w,b,b,./.,w,w,b,b,w,w,./.,b,b,w,w,b,b,./w,w,b,b,w,w/.,.,.,. b 0 0 5';
const OVERFLOW_BEFORE = '.,.,.,./.,.,.,.,.,./.,.,.,wb,.,w,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,bww,b,bwb,.,.,./.,.,.,.,.,./.,.,.,. w 0 0 60';
const OVERFLOW_AFTER = '.,.,.,./.,.,.,.,.,./.,.,.,wb,.,w,.,./.,.,.,.,.,.,.,./.,.,.,.,.,.,.,./.,.,.,.,.,bbbww,.,./.,.,.,.,.,./.,.,.,. b 1 0 61';

const D = {
  saltaStart: { game: 'salta', start: true },
  saltaGoal: { game: 'salta', fen: GOAL },
  saltaJump: { game: 'salta', fen: JUMP_BEFORE, path: ['g5', 'e3', 'c5'], destinations: new Map([['e3', {}], ['c5', {}]]), selected: 'g5' },
  saltaCall: { game: 'salta', fen: CALL, lastMove: ['e7', 'f6'] },
  focusStart: { game: 'focus', start: true },
  focusJump: { game: 'focus', fen: FOCUS_JUMP, lastMove: ['c6', 'c8'] },
  focusSweep: { game: 'focus', fen: FOCUS_SWEEP, lastMove: ['c8', 'c6'] },
  focusFree: { game: 'focus', fen: FOCUS_FREE, lastMove: ['c6', 'c7'] },
  overflowBefore: { game: 'focus', fen: OVERFLOW_BEFORE },
  overflowAfter: { game: 'focus', fen: OVERFLOW_AFTER, lastMove: ['c3', 'f3'] },
};

// Blocks: ['h2', text], ['p', text], ['ul', [text...]], ['fig', diagram, caption] or
// ['figs', [[diagram, caption], ...]]. In text, `code` and **bold** are marked.
const TEXT = {
  en: {
    title: 'Rules',
    intro: 'Two almost forgotten board games. In both, White moves first and then the players take turns, one move each. Each game has a default rule set, **seed**, and historical rule sets you can choose when you start a game.',
    salta: [
      ['h2', 'Salta'],
      ['p', 'A race game invented at the chess tournament of Monte Carlo in 1900. Each side moves its fifteen numbered pieces into the opponent\'s starting camp. Pieces jump over each other but are never captured.'],
      ['h3', 'Board and pieces'],
      ['p', 'A 10×10 board; only the 50 dark squares are used (`a1` is dark). Each player has five **stars**, five **moons** and five **suns**, each carrying one to five copies of its symbol: White\'s pieces have green symbols, Black\'s red ones. White sets stars on rank 1, moons on rank 2 and suns on rank 3, numbered 1 to 5 from his left; Black\'s setup is the same turned half a turn.'],
      ['fig', 'saltaStart', 'The start position.'],
      ['h3', 'The goal'],
      ['p', 'Every piece has a **target square**: the starting square of the opponent\'s piece with the same symbol and number. White\'s Star 1 goes from `a1` to `j10`. You **win at once** when all fifteen of your pieces stand on their targets. The **margin** is the loser\'s distance: the diagonal steps his pieces still need. (On the game page, **Targets** shows where each piece belongs.)'],
      ['fig', 'saltaGoal', 'White has won: all fifteen White pieces are home. Black still needs 3 steps, the margin.'],
      ['h3', 'Moving'],
      ['p', 'On your turn you move one piece: a **step** to a diagonally adjacent empty square (forward or backward), or a **jump sequence**: jump over a diagonally adjacent *opponent\'s* piece onto the empty square behind it, and, if you like, jump again with the same piece, as often as the position allows. Nothing is captured. You never jump your own pieces, and a sequence may not land twice on a square or back where it started. Jumping is optional.'],
      ['fig', 'saltaJump', 'Black\'s sun on g5 may jump to e3 and stop (`g5:e3`), or go on to c5 (`g5:e3:c5`).'],
      ['h3', 'The Salta call'],
      ['p', '"Salta" is Latin for "jump". When, after your move, the opponent could jump the piece you have just moved, you may **call Salta** (written `+`). The opponent\'s next move **must** then be a jump sequence whose first jump goes over the called piece; his reply may carry a call of its own. Without a call no jump is ever forced. On the board, a move that can call offers a **Salta!** button, and a called piece is ringed in red.'],
      ['fig', 'saltaCall', 'After 2… e7-f6+ White must jump the sun on f6: his only moves are g5:e7 and g5:e7+.'],
      ['h3', 'Passing, repetition, move limit'],
      ['ul', [
        'A player with no legal move must **pass**.',
        'The third occurrence of the same position (pieces, player to move, pending call) is a **draw**.',
        'An optional **move limit** of N moves per side ends the game: the side with the smaller distance wins by the difference; equal distances draw.',
      ]],
    ],
    focus: [
      ['h2', 'Focus'],
      ['p', 'A stacking game, a form of Sid Sackson\'s *Focus* (1963). Pieces pile up into towers, towers take enemy pieces prisoner, and you lose when you have nothing left to move.'],
      ['h3', 'Board and setup'],
      ['p', 'An 8×8 board with three squares cut from each corner: 52 squares. Each player has 18 pieces, set in alternating pairs on the central 6×6.'],
      ['fig', 'focusStart', 'The start position.'],
      ['h3', 'Stacks and control'],
      ['p', 'A square holds a **stack** of up to 5 pieces. The stack belongs to the owner of its **top** piece; enemy pieces under it are **prisoners**. On the board a tower shows every level\'s colour, and a small number gives its height.'],
      ['h3', 'A turn'],
      ['ul', [
        '**Group move**: take the top **k** pieces of a stack you control (1 ≤ k ≤ height) and move them exactly **k** squares along a rank or file, onto an empty square. Every stack passed over is **swept** under the moving group. The pieces left behind stay as a stack of their own; if an enemy piece is now on top, it is **free** again.',
        '**Jump**: the top piece of a stack you control jumps over a square holding **exactly one enemy piece** onto the empty square beyond, and takes that piece along: a tower of two, the prisoner at the bottom.',
        '**Drop**: put one piece from your **reserve** on any square: an empty one, or on top of any stack, which you then control.',
      ]],
      ['figs', [['focusJump', 'After 1. c6xc8: a Black prisoner under a White piece.'], ['focusSweep', 'After 2. c8-c6: two pieces move two squares and sweep c7.']]],
      ['fig', 'focusFree', 'After 3. c6-c7: only the top piece moves, and the two Black pieces left on c6 are free again.'],
      ['h3', 'Overflow, reserve and captures'],
      ['p', 'A stack taller than 5 loses pieces **from the bottom** until 5 remain: your own go to your **reserve** (to be dropped later), the opponent\'s are **captured** for good. Reserves and captured pieces are shown beside the board; to drop, click your reserve, then a square.'],
      ['figs', [['overflowBefore', 'White to move: c3-f3 sweeps d3 and e3.'], ['overflowAfter', 'The tower of seven loses two: a Black piece is captured, a White one goes to White\'s reserve.']]],
      ['h3', 'Losing, passing, draws'],
      ['ul', [
        'A player who, at his turn, **controls no stack and has no reserve** loses.',
        'A player who controls a stack but has no legal move must **pass**.',
        'The third occurrence of the same position is a **draw**; an optional move limit also ends the game as a draw.',
      ]],
    ],
    variants: [
      ['h2', 'Historical rule sets'],
      ['ul', [
        '**Salta meyer1908** (tournaments 1900–1909): jumps only forward, one jump per move, jumps are compulsory, no calls, a move may not leave the opponent without a move; each piece must go exactly seven ranks forward in the same order; Black gets an equalising move; 120 moves each, then scored by distance.',
        '**Salta ludii** (as the Ludii system plays it): jumps are compulsory and a sequence must go on while it can; no calls; drawn after 1,250 moves each; no repetition rule.',
        '**Focus sackson** (Sid Sackson\'s own game): a group passes over anything without effect and may land on top of any stack; there is no jump move. Option `draw-goes-to-first` counts a draw as a win for White.',
      ]],
      ['h2', 'Typing moves'],
      ['p', 'Squares are a letter and a number (`c3`). Salta: a step `c3-d4`, a jump sequence `c3:e5:c7` (or just start and end, `c3:c7`), a trailing `+` for a Salta call. Focus: a group move `c3-c5` (k is the distance), a jump `c6xc8`, a drop `@d4`. Both: `pass` when nothing else is legal. Type a move in the box under the move list and press Enter.'],
    ],
  },
  ru: {
    title: 'Правила',
    intro: 'Две почти забытые настольные игры. В обеих первыми ходят белые, дальше игроки ходят по очереди, по одному ходу. У каждой игры есть основной набор правил, **seed**, и исторические наборы, которые можно выбрать при создании партии.',
    salta: [
      ['h2', 'Сальта'],
      ['p', 'Игра-гонка, придуманная участниками шахматного турнира в Монте-Карло в 1900 году. Каждая сторона переводит свои пятнадцать пронумерованных шашек в лагерь противника. Шашки перепрыгивают друг через друга, но никогда не берутся.'],
      ['h3', 'Доска и шашки'],
      ['p', 'Доска 10×10; играют только 50 тёмных полей (`a1` — тёмное). У каждого игрока пять **звёзд**, пять **лун** и пять **солнц**, на каждой шашке от одного до пяти символов: у белых символы зелёные, у чёрных — красные. Белые ставят звёзды на 1-ю горизонталь, луны на 2-ю, солнца на 3-ю, с номерами от 1 до 5 слева направо; расстановка чёрных — та же, повёрнутая на пол-оборота.'],
      ['fig', 'saltaStart', 'Начальная позиция.'],
      ['h3', 'Цель'],
      ['p', 'У каждой шашки есть **целевое поле** — начальное поле шашки противника с тем же символом и номером. Звезда 1 белых идёт с `a1` на `j10`. Вы **сразу выигрываете**, когда все пятнадцать ваших шашек стоят на своих целях. **Перевес** — это расстояние проигравшего: сколько диагональных шагов ещё нужно его шашкам. (На странице партии кнопка **Цели** показывает, куда идёт каждая шашка.)'],
      ['fig', 'saltaGoal', 'Белые выиграли: все пятнадцать белых шашек дома. Чёрным нужно ещё 3 шага — это перевес.'],
      ['h3', 'Ходы'],
      ['p', 'За ход вы передвигаете одну шашку: **шаг** на соседнее по диагонали пустое поле (вперёд или назад) или **серию прыжков**: прыжок через соседнюю по диагонали шашку *противника* на пустое поле за ней и, если хотите, новые прыжки той же шашкой, пока позволяет позиция. Никто не берётся. Через свои шашки прыгать нельзя, и серия не может дважды встать на одно поле или вернуться на исходное. Прыгать не обязательно.'],
      ['fig', 'saltaJump', 'Солнце чёрных на g5 может прыгнуть на e3 и остановиться (`g5:e3`) или продолжить на c5 (`g5:e3:c5`).'],
      ['h3', 'Вызов «Сальта!»'],
      ['p', '«Salta» по-латыни значит «прыгай». Если после вашего хода противник мог бы перепрыгнуть только что сходившую шашку, вы можете **объявить «Сальта!»** (пишется `+`). Тогда следующий ход противника **обязан** быть серией прыжков, первый из которых — через вызвавшую шашку; его ответ тоже может содержать вызов. Без вызова прыгать никогда не обязательно. На доске ход, допускающий вызов, предлагает кнопку **Сальта!**, а вызвавшая шашка обведена красным.'],
      ['fig', 'saltaCall', 'После 2… e7-f6+ белые должны перепрыгнуть солнце на f6: у них есть только g5:e7 и g5:e7+.'],
      ['h3', 'Пропуск хода, повторение, лимит ходов'],
      ['ul', [
        'Игрок без единого возможного хода **пропускает ход**.',
        'Третье повторение одной и той же позиции (шашки, очередь хода, вызов) — **ничья**.',
        'Необязательный **лимит** в N ходов на сторону завершает партию: выигрывает сторона с меньшим расстоянием, перевес — разница; при равенстве — ничья.',
      ]],
    ],
    focus: [
      ['h2', 'Фокус'],
      ['p', 'Игра с башнями, вариант «Фокуса» Сида Сэксона (1963). Шашки складываются в башни, башни берут шашки противника в плен, и проигрывает тот, кому нечем ходить.'],
      ['h3', 'Доска и расстановка'],
      ['p', 'Доска 8×8 без трёх полей в каждом углу: 52 поля. У каждого игрока 18 шашек, они стоят чередующимися парами в центральном квадрате 6×6.'],
      ['fig', 'focusStart', 'Начальная позиция.'],
      ['h3', 'Башни и контроль'],
      ['p', 'На поле стоит **башня** до 5 шашек. Башня принадлежит владельцу **верхней** шашки; шашки противника под ней — **пленные**. На доске виден цвет каждого уровня башни, а маленькая цифра показывает её высоту.'],
      ['h3', 'Ход'],
      ['ul', [
        '**Ход группой**: возьмите верхние **k** шашек своей башни (1 ≤ k ≤ высоты) и передвиньте их ровно на **k** полей по горизонтали или вертикали на пустое поле. Каждая башня на пути **забирается** под движущуюся группу. Оставшиеся шашки стоят отдельной башней; если сверху теперь шашка противника, она снова **свободна**.',
        '**Прыжок**: верхняя шашка вашей башни перепрыгивает через соседнее поле, на котором стоит **ровно одна шашка противника**, на пустое поле за ним и забирает эту шашку с собой: получается башня из двух, пленный внизу.',
        '**Выставление**: поставьте одну шашку из своего **резерва** на любое поле — пустое или на любую башню, которая тогда переходит под ваш контроль.',
      ]],
      ['figs', [['focusJump', 'После 1. c6xc8: чёрный пленный под белой шашкой.'], ['focusSweep', 'После 2. c8-c6: две шашки идут на два поля и забирают c7.']]],
      ['fig', 'focusFree', 'После 3. c6-c7: ходит только верхняя шашка, и две чёрные шашки на c6 снова свободны.'],
      ['h3', 'Переполнение, резерв и потери'],
      ['p', 'Башня выше 5 теряет шашки **снизу**, пока не останется 5: ваши уходят в ваш **резерв** (их можно выставить позже), шашки противника **выбывают** насовсем. Резерв и потери показаны рядом с доской; чтобы выставить шашку, нажмите на свой резерв, затем на поле.'],
      ['figs', [['overflowBefore', 'Ход белых: c3-f3 забирает d3 и e3.'], ['overflowAfter', 'Башня из семи теряет две: чёрная шашка выбывает, белая уходит в резерв белых.']]],
      ['h3', 'Проигрыш, пропуск хода, ничьи'],
      ['ul', [
        'Игрок, который в свой ход **не контролирует ни одной башни и не имеет резерва**, проигрывает.',
        'Игрок, у которого есть башня, но нет ходов, **пропускает ход**.',
        'Третье повторение позиции — **ничья**; необязательный лимит ходов тоже завершает партию вничью.',
      ]],
    ],
    variants: [
      ['h2', 'Исторические наборы правил'],
      ['ul', [
        '**Сальта meyer1908** (турниры 1900–1909): прыжки только вперёд, один прыжок за ход, прыгать обязательно, вызовов нет, нельзя оставлять противника без хода; каждая шашка идёт ровно на семь горизонталей вперёд в том же порядке; у чёрных есть уравнивающий ход; 120 ходов на сторону, затем подсчёт по расстоянию.',
        '**Сальта ludii** (как играет система Ludii): прыгать обязательно, серию нужно продолжать, пока можно; вызовов нет; ничья после 1250 ходов на сторону; правила повторения нет.',
        '**Фокус sackson** (игра самого Сида Сэксона): группа проходит над чем угодно без последствий и может встать на любую башню; прыжков нет. Опция `draw-goes-to-first` засчитывает ничью как победу белых.',
      ]],
      ['h2', 'Как записывать ходы'],
      ['p', 'Поле — буква и цифра (`c3`). Сальта: шаг `c3-d4`, серия прыжков `c3:e5:c7` (или только начало и конец, `c3:c7`), `+` в конце — вызов «Сальта!». Фокус: ход группой `c3-c5` (k — расстояние), прыжок `c6xc8`, выставление `@d4`. В обеих играх `pass`, когда других ходов нет. Наберите ход в поле под списком ходов и нажмите Enter.'],
    ],
  },
};

/** Text with `code`, **bold** and *italic* marks, as nodes. */
function rich(text) {
  const parts = [];
  const re = /(`[^`]+`|\*\*[^*]+\*\*|\*[^*]+\*)/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > last) parts.push(text.slice(last, m.index));
    const token = m[0];
    if (token.startsWith('`')) parts.push(h('code', {}, token.slice(1, -1)));
    else if (token.startsWith('**')) parts.push(h('b', {}, token.slice(2, -2)));
    else parts.push(h('i', {}, token.slice(1, -1)));
    last = m.index + token.length;
  }
  if (last < text.length) parts.push(text.slice(last));
  return parts;
}

function diagram(name, caption) {
  const { game, fen, start, ...extra } = D[name];
  // The start positions are the server's.
  const shown = start ? kindOf(game).start_fen : fen;
  return h('figure', { class: 'diagram', dataset: { diagram: name } }, [staticBoard(game, shown, extra), h('figcaption', {}, rich(caption))]);
}

function blocks(list) {
  return list.map(([kind, a, b]) => {
    if (kind === 'fig') return diagram(a, b);
    if (kind === 'figs') return h('div', { class: 'diagram-pair' }, a.map(([name, caption]) => diagram(name, caption)));
    if (kind === 'ul') return h('ul', {}, a.map((item) => h('li', {}, rich(item))));
    return h(kind, {}, rich(a));
  });
}

export function rulesPage(main) {
  const draw = () => {
    clear(main);
    const text = TEXT[getLang()] || TEXT.en;
    // A section per game of the page (its first block is its heading), then the rule sets.
    const sections = [...GAME_NAMES.filter((game) => text[game]), 'variants'];
    main.append(
      h('article', { class: 'rules-page card' }, [
        h('h1', {}, text.title),
        h('p', { class: 'lead' }, rich(text.intro)),
        h('nav', { class: 'toc' }, sections.map((id) => h('a', { href: `#${id}` }, text[id][0][1]))),
        ...sections.map((id) => h('section', { id }, blocks(text[id]))),
      ]),
    );
    if (location.hash) {
      const target = document.getElementById(location.hash.slice(1));
      if (target) target.scrollIntoView();
    }
  };
  draw();
  return onLangChange(draw);
}
