"""Type stubs of the compiled module (python/src/lib.rs)."""

from typing import Any, Final, Self, SupportsIndex, final

import numpy as np
import numpy.typing as npt

__all__ = ["GAMES", "Analysis", "BatchEnv", "Engine", "Game", "GameResult", "__version__"]

GAMES: Final[list[str]]
"""The games' names: ``["salta", "focus"]``."""

__version__: Final[str]

@final
class GameResult:
    """How a finished game ended, as the rules report it."""

    @property
    def winner(self) -> str | None:
        """``"white"``, ``"black"``, or ``None`` for a draw."""
    @property
    def reason(self) -> str:
        """``"goal"``, ``"no pieces"``, ``"move limit"`` or ``"threefold repetition"``."""
    @property
    def margin(self) -> int | None:
        """Salta: the loser's remaining distance (after a move limit, the
        difference of the distances); ``None`` where the rules define none."""
    @property
    def score(self) -> str:
        """``"1-0"``, ``"0-1"`` or ``"1/2-1/2"``, as records write it."""
    def __eq__(self, other: object, /) -> bool: ...

@final
class Game:
    """A game of Salta or Focus: a start position, the moves played since,
    and the rules that judge them."""

    def __new__(cls, game: str, rules: str = "seed", fen: str | None = None) -> Self:
        """A new game.

        ``game`` is ``"salta"`` or ``"focus"``; ``rules`` a rule set in its
        text form (``"seed"``, ``"seed,move-limit=120"``, ``"meyer1908"``,
        ``"sackson"``, ...); ``fen`` a position string to start from instead
        of the rule set's start.

        Raises ``ValueError`` for an unknown game or rule set, or a bad
        position string.
        """
    @staticmethod
    def from_record(text: str) -> Game:
        """Replay a game record (the text ``record()`` writes): its tags
        name the game, rules and start; every move is checked.

        Raises ``ValueError`` for a malformed record or an illegal move in it.
        """
    @property
    def kind(self) -> str:
        """The game's name: ``"salta"`` or ``"focus"``."""
    @property
    def rules(self) -> str:
        """The rule set in its canonical text form."""
    @property
    def side_to_move(self) -> str:
        """``"white"`` or ``"black"``."""
    @property
    def moves_played(self) -> int:
        """Plies played in this game (not counting those before its start)."""
    def fen(self) -> str:
        """The current position string."""
    def start_fen(self) -> str:
        """The start position string."""
    def legal_moves(self) -> list[str]:
        """The legal moves in notation; empty when the game is over (move
        limit and threefold repetition included)."""
    def play(self, move: str) -> str:
        """Play a move given in notation and return it in canonical notation.

        Raises ``ValueError`` (with the rules' reason) for a malformed or
        illegal move, or when the game is over; the game is then unchanged.
        """
    def undo(self) -> str | None:
        """Take back the last move and return it; ``None`` at the start."""
    def history(self) -> list[str]:
        """The moves played, in notation."""
    def is_over(self) -> bool:
        """Whether the rules have ended the game."""
    def result(self) -> GameResult | None:
        """How the game ended; ``None`` while it goes on."""
    def perft(self, depth: int, threads: int | None = None) -> int:
        """The number of move sequences ``depth`` plies long from the current
        position (move limits and repetition ignored, as in chess). Runs
        without holding the GIL, on ``threads`` threads (default: every
        core); Ctrl-C stops it (KeyboardInterrupt) and leaves the game as
        it was."""
    def record(self, tags: dict[str, str] | None = None, result: str | None = None) -> str:
        """The game record (docs/notation.md): tags ``Game``, ``Rules``,
        ``FEN`` (for a start of one's own), the ``tags`` given (``White``,
        ``Black``, ``Date``, ...), the result, and the moves.

        ``result`` (``"1-0"``, ``"0-1"``, ``"1/2-1/2"`` or ``"*"``) is
        written for a game the rules have not ended, after a resignation
        say; a finished game's result is the rules'.

        Raises ``ValueError`` for another result, or tags a record cannot
        hold (names of letters and digits, values of one line).
        """
    @property
    def num_distinct_actions(self) -> int:
        """The number of actions: every action is an int from 0 up to it
        (5001 in Salta, 1301 in Focus; docs/python.md numbers them)."""
    @property
    def observation_shape(self) -> tuple[int, int, int]:
        """The shape of ``observation()``: planes, rows, columns."""
    def legal_actions(self) -> list[int]:
        """The actions of the legal moves, in increasing order; empty when
        the game is over."""
    def legal_action_mask(self) -> npt.NDArray[np.bool_]:
        """A numpy bool array of ``num_distinct_actions``: True for the
        actions of the legal moves."""
    def apply_action(self, action: SupportsIndex) -> str:
        """Play the move an action stands for and return it in notation.

        Raises ``ValueError`` for a number out of range or an illegal move;
        the game is then unchanged.
        """
    def action_to_move(self, action: SupportsIndex) -> str:
        """The move an action stands for in the current position (seen by
        the side to move), in notation, legal or not.

        Raises ``ValueError`` for a number no move of the board has.
        """
    def move_to_action(self, move: str) -> int:
        """The action of a legal move given in notation.

        Raises ``ValueError`` for a malformed or illegal move.
        """
    def observation(self, player: str | None = None) -> npt.NDArray[np.float32]:
        """The position as a float32 array of ``observation_shape``, seen by
        ``player`` (``"white"`` or ``"black"``; default the side to move):
        planes of 0s and 1s described in docs/python.md."""
    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickling: the game travels as its record."""
    def clone(self) -> Game:
        """A copy that goes its own way."""
    def __copy__(self) -> Game: ...
    def __deepcopy__(self, memo: Any) -> Game: ...

@final
class Analysis:
    """What the engine found: the move, its score and the expected line."""

    @property
    def best_move(self) -> str:
        """The move to play, in notation."""
    @property
    def score(self) -> int | None:
        """Evaluation units (Salta: hundredths of a step; Focus: hundredths
        of a piece) from the view of the side to move; ``None`` when the
        search found a forced result."""
    @property
    def win_in(self) -> int | None:
        """The side to move wins in this many plies."""
    @property
    def loss_in(self) -> int | None:
        """The side to move loses in this many plies."""
    @property
    def depth(self) -> int:
        """Plies searched."""
    @property
    def nodes(self) -> int:
        """Positions searched."""
    @property
    def time_ms(self) -> int:
        """Milliseconds spent."""
    @property
    def pv(self) -> list[str]:
        """The expected line, starting with ``best_move``; the levels that
        choose at random (1 to 5) give the move alone."""

@final
class Engine:
    """Monte's engine: a level 1 to 8 (the web board's computer players),
    or full strength within limits."""

    def __new__(
        cls,
        level: int | None = None,
        *,
        nodes: int | None = None,
        movetime_ms: int | None = None,
        depth: int | None = None,
        threads: int | None = None,
        hash_mb: int = 16,
        seed: int = 0,
    ) -> Self:
        """Give either a ``level`` (1 to 8) or one or more limits (``nodes``,
        ``movetime_ms``, ``depth``; the first reached stops the search).

        ``threads``: search threads (default: the level's, else 1);
        ``hash_mb``: transposition table size; ``seed``: the random choices
        of levels 1 to 5.

        Raises ``ValueError`` for a level out of range, a level with limits,
        neither, or a limit below 1.
        """
    def best_move(self, game: Game) -> str:
        """The move to play in ``game``, in notation. Searches without
        holding the GIL; raises ``ValueError`` when the game is over."""
    def analyse(self, game: Game) -> Analysis:
        """The move to play in ``game`` with its score and expected line.
        Searches without holding the GIL; raises ``ValueError`` when the
        game is over."""

@final
class BatchEnv:
    """``n`` games of one kind stepped together in Rust: actions in, and
    observations, legal-action masks, rewards and ends out as numpy arrays.

    Each step plays one ply in every game, by its side to move. A game that
    ends (by the rules, or after ``max_steps`` plies: truncated) starts
    again at once, and the step returns the new game's first observation.
    The arrays are the environment's own and each step overwrites them:
    copy what must be kept. Steps run without the GIL, on ``threads``
    threads (default: a core per 128 games, up to every core) of a pool
    that every ``BatchEnv`` and ``perft`` with that many threads shares.
    """

    def __new__(
        cls,
        game: str,
        n: int,
        rules: str = "seed",
        fen: str | None = None,
        seed: int = 0,
        max_steps: int | None = 1000,
        observations: bool = True,
        threads: int | None = None,
    ) -> Self:
        """Raises ``ValueError`` for an unknown game or rule set, a bad
        position string, or ``n``, ``max_steps`` or ``threads`` out of range."""
    def reset(self, seed: int | None = None) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Start every game anew, its random numbers (for ``random_actions``
        and ``step_random``) from ``seed`` (default: the next of a sequence
        seeded by the constructor's); returns (observations, masks)."""
    def step(
        self, actions: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Play one action in every game (an int64 array of ``num_envs``,
        each a legal action of its game's side to move); returns
        (observations, masks, rewards, dones). ``rewards`` is for the side
        that moved: 1 for a win, -1 for a loss, else 0.

        Raises ``ValueError``, changing nothing, when an action is not legal.
        """
    def random_actions(self) -> npt.NDArray[np.int64]:
        """A uniformly random legal action of every game."""
    def step_random(self, plies: int) -> int:
        """Play ``plies`` uniformly random plies in every game in Rust,
        writing the arrays once at the end (rewards, dones and truncated of
        the last ply): random play at full speed. Returns how many games
        ended. Ctrl-C stops it (KeyboardInterrupt): every game then stands
        where it stopped, its arrays written, ready for more steps."""
    def fens(self) -> list[str]:
        """Each game's position string."""
    @property
    def game(self) -> str:
        """The game's name: ``"salta"`` or ``"focus"``."""
    @property
    def num_envs(self) -> int: ...
    @property
    def num_distinct_actions(self) -> int: ...
    @property
    def observation_shape(self) -> tuple[int, int, int]: ...
    @property
    def observations(self) -> npt.NDArray[np.float32]:
        """float32 (num_envs, *observation_shape): each game's position seen
        by its side to move; (0, ...) without observations."""
    @property
    def masks(self) -> npt.NDArray[np.bool_]:
        """bool (num_envs, num_distinct_actions): each game's legal actions."""
    @property
    def rewards(self) -> npt.NDArray[np.float32]:
        """float32 (num_envs,): the last step's rewards, for the side that moved."""
    @property
    def dones(self) -> npt.NDArray[np.bool_]:
        """bool (num_envs,): which games the last step ended (and restarted)."""
    @property
    def truncated(self) -> npt.NDArray[np.bool_]:
        """bool (num_envs,): which of the games the last step ended were cut
        at ``max_steps`` rather than ended by the rules."""
    @property
    def to_play(self) -> npt.NDArray[np.int8]:
        """int8 (num_envs,): each game's side to move, 0 White, 1 Black."""
    def __len__(self) -> int: ...
