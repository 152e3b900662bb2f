"""The rules through Python: the same answers as the Rust crates, and
ValueError (never a crash) for every bad input."""

import copy

import pytest

import monte
from conftest import RULES_TESTS, seconds_to_stop_by_ctrl_c

# Perft cases whose count is above this are left to the Rust tests: the
# point here is that Python reaches the same rules, not their speed.
PERFT_LIMIT = 200_000

# Salta: White's last piece reaches its target with e7-f8 (the rules
# crate's tests/rulings.rs, WIN_AVAILABLE).
SALTA_WIN_AVAILABLE = (
    "S5,S4,S3,S2,S1/M5,M4,M3,M2,M1/O5,O4,.,O2,O1/.,.,O3,.,./.,.,.,.,./.,.,.,.,./"
    "s1,.,.,.,./o1,o2,o3,o4,o5/m1,m2,m3,m4,m5/.,s2,s3,s4,s5 w - 80"
)

# Focus: White's d3 jumps Black's last stack, d4 (tests/rulings.rs,
# focus_loses_with_no_stack_and_no_reserve).
FOCUS_LAST_STACK = (
    ".,.,.,./.,.,.,.,.,./.,.,.,.,.,bww,.,./.,.,.,.,.,.,.,./.,.,.,b,.,.,.,./"
    ".,.,.,w,.,.,.,./.,.,.,.,.,./.,.,.,. w 0 0 50"
)


def perft_cases():
    """Every case of crates/rules/tests/perft/*.txt (`rules ; position ;
    depth=count ...`, the game named by the file name) up to PERFT_LIMIT."""
    cases = []
    for path in sorted((RULES_TESTS / "perft").glob("*.txt")):
        game = next(g for g in monte.GAMES if path.name.startswith(g))
        for number, line in enumerate(path.read_text().splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            rules, fen, counts = (part.strip() for part in line.split(";"))
            for entry in counts.split():
                depth, count = (int(n) for n in entry.split("="))
                if count <= PERFT_LIMIT:
                    cases.append(pytest.param(game, rules, fen, depth, count, id=f"{path.name}:{number}:{depth}"))
    return cases


@pytest.mark.parametrize(("game", "rules", "fen", "depth", "count"), perft_cases())
def test_perft_matches_the_rust_cases(game, rules, fen, depth, count):
    assert monte.Game(game, rules=rules, fen=fen).perft(depth) == count


@pytest.mark.parametrize(("game", "depth", "count"), [("salta", 6, 1_681_432), ("focus", 5, 1_286_946)])
def test_perft_on_threads_counts_the_same(game, depth, count):
    """Deep enough that the tree is split among the threads (the start
    positions' counts of crates/rules/tests/perft)."""
    g = monte.Game(game)
    assert [g.perft(depth, threads=t) for t in (1, 2, 3)] == [count] * 3


@pytest.mark.parametrize("game", monte.GAMES)
def test_ctrl_c_stops_a_perft(game):
    g = monte.Game(game)
    g.play(g.legal_moves()[0])
    before = (g.fen(), g.history())
    # Far more than a lifetime of counting.
    assert seconds_to_stop_by_ctrl_c(lambda: g.perft(20)) < 2
    assert (g.fen(), g.history()) == before
    assert g.perft(2) == sum(len(child_moves(g, move)) for move in g.legal_moves())


def child_moves(g, move):
    child = g.clone()
    child.play(move)
    return child.legal_moves()


def test_perft_cases_cover_both_games():
    games = {case.values[0] for case in perft_cases()}
    assert games == set(monte.GAMES) == {"salta", "focus"}


@pytest.mark.parametrize("game", monte.GAMES)
def test_a_new_game(game):
    g = monte.Game(game)
    assert (g.kind, g.rules, g.side_to_move, g.moves_played) == (game, "seed", "white", 0)
    assert g.fen() == g.start_fen() == monte.Game(game, fen=g.fen()).fen()
    assert len(g.legal_moves()) == g.perft(1) > 0
    assert not g.is_over() and g.result() is None
    assert g.history() == [] and g.undo() is None


def test_legal_moves_of_the_start():
    assert monte.Game("salta").legal_moves() == [
        "a3-b4", "c3-b4", "c3-d4", "e3-d4", "e3-f4", "g3-f4", "g3-h4", "i3-h4", "i3-j4",
    ]  # fmt: skip
    assert len(monte.Game("focus", rules="sackson").legal_moves()) == 68


@pytest.mark.parametrize("game", monte.GAMES)
def test_playing_moves(game):
    g = monte.Game(game)
    first = g.legal_moves()[0]
    assert g.play(first) == first
    assert (g.side_to_move, g.moves_played, g.history()) == ("black", 1, [first])
    reply = g.legal_moves()[-1]
    g.play(reply)
    assert (g.side_to_move, g.moves_played, g.history()) == ("white", 2, [first, reply])
    assert g.undo() == reply
    assert (g.side_to_move, g.history()) == ("black", [first])


@pytest.mark.parametrize(
    ("game", "move", "message"),
    [
        ("salta", "zz", "expected a step"),
        ("salta", "c3-c5", "a step goes to a diagonally adjacent square"),
        ("salta", "h8-g7", "that piece is Black's, and White is to move"),
        ("salta", "c3-d4+", "cannot carry a call"),
        ("focus", "a1-a2", "not on the board"),
        ("focus", "c2-c4", "moving 2 squares takes 2 pieces"),
        ("focus", "@c3", "no pieces in reserve"),
    ],
)
def test_an_illegal_move_raises_and_changes_nothing(game, move, message):
    g = monte.Game(game)
    before = (g.fen(), g.moves_played, g.history(), g.legal_moves())
    with pytest.raises(ValueError, match=message):
        g.play(move)
    assert (g.fen(), g.moves_played, g.history(), g.legal_moves()) == before


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: monte.Game("chess"), r"unknown game `chess` \(known: salta, focus\)"),
        (lambda: monte.Game("salta", rules="nope"), "unknown Salta rule set `nope`"),
        (lambda: monte.Game("focus", rules="seed,no-such-option"), "no-such-option"),
        (lambda: monte.Game("salta", fen="xx"), "invalid position"),
        (lambda: monte.Game("focus", fen=monte.Game("salta").fen()), "invalid position"),
        (lambda: monte.Game.from_record("1. c3-c9 *"), r"record: move 1\. c3-c9"),
        (lambda: monte.Game.from_record('[Game "chess"]\n\n*'), "unknown game"),
        (lambda: monte.Game.from_record("[Game"), "record, line 1"),
        (lambda: monte.Game("salta").perft(-1), "depth -1"),
        (lambda: monte.Game("salta").perft(6, threads=0), "threads 0: expected 1 to 64"),
        (lambda: monte.Game("focus").perft(6, threads=65), "threads 65"),
        (lambda: monte.Game("salta").record(result="2-0"), "result `2-0`"),
        (lambda: monte.Game("salta").record({"Wh ite": "x"}), "tags"),
        (lambda: monte.Game("salta").record({"White": "x\ny"}), "tags"),
    ],
)
def test_bad_input_raises_value_error(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_a_finished_salta_game():
    g = monte.Game("salta", fen=SALTA_WIN_AVAILABLE)
    g.play("e7-f8")
    assert g.is_over() and g.legal_moves() == []
    result = g.result()
    assert (result.winner, result.reason, result.margin, result.score) == ("white", "goal", 3, "1-0")
    with pytest.raises(ValueError, match="the game is over: White wins"):
        g.play("a3-b4")
    record = g.record()
    assert '[Termination "goal"]' in record and '[Margin "3"]' in record
    assert record.rstrip().endswith("1. e7-f8 1-0")
    assert monte.Game.from_record(record).result() == result


def test_a_finished_focus_game():
    g = monte.Game("focus", fen=FOCUS_LAST_STACK)
    g.play("d3xd5")
    result = g.result()
    assert (result.winner, result.reason, result.margin, result.score) == ("white", "no pieces", None, "1-0")
    assert g.is_over() and g.legal_moves() == []
    assert monte.Game.from_record(g.record()).result() == result


@pytest.mark.parametrize(("game", "winner", "margin", "score"), [("salta", "white", 2, "1-0"), ("focus", None, None, "1/2-1/2")])
def test_the_move_limit_ends_a_game(game, winner, margin, score):
    g = monte.Game(game, rules="seed,move-limit=1")
    for _ in range(2):
        assert g.result() is None
        g.play(g.legal_moves()[0])
    result = g.result()
    assert (result.winner, result.reason, result.margin, result.score) == (winner, "move limit", margin, score)
    assert f"{score}" in g.record().splitlines()[-1]


def test_a_record_of_a_resigned_game_keeps_its_result():
    g = monte.Game("salta")
    g.play("c3-d4")
    record = g.record({"White": "Ada", "Black": "Boris"}, result="0-1")
    assert '[White "Ada"]' in record and '[Result "0-1"]' in record
    assert monte.Game.from_record(record).history() == ["c3-d4"]


def play_some_moves(game, plies):
    """Play `plies` moves, each chosen by the ply number among the legal ones."""
    g = monte.Game(game)
    for ply in range(plies):
        moves = g.legal_moves()
        g.play(moves[(7 * ply + 3) % len(moves)])
    return g


@pytest.mark.parametrize("game", monte.GAMES)
def test_a_record_round_trips(game):
    g = play_some_moves(game, 16)
    text = g.record({"White": "Ada", "Event": 'A "quoted" name'})
    back = monte.Game.from_record(text)
    assert (back.kind, back.rules, back.fen(), back.history()) == (g.kind, g.rules, g.fen(), g.history())
    assert back.record({"White": "Ada", "Event": 'A "quoted" name'}) == text
    # A record of a game from a position of its own carries its start.
    later = monte.Game(game, fen=g.fen())
    later.play(later.legal_moves()[0])
    again = monte.Game.from_record(later.record())
    assert (again.start_fen(), again.fen()) == (g.fen(), later.fen())


@pytest.mark.parametrize("game", monte.GAMES)
def test_copies_go_their_own_way(game):
    g = monte.Game(game)
    for other in (g.clone(), copy.copy(g), copy.deepcopy(g)):
        other.play(other.legal_moves()[0])
        assert other.moves_played == 1
    assert g.moves_played == 0 and g.fen() == g.start_fen()


def test_text_forms():
    g = monte.Game("salta", rules="seed,move-limit=120")
    assert repr(g).startswith("Game('salta', rules='seed,move-limit=120', fen='s5,")
    assert "White to move" in str(g)
    assert monte.__version__ and monte.GAMES == ["salta", "focus"]
