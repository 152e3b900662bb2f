"""Salta and Focus: exact rules, game records and an engine.

A thin layer over Monte's Rust crates: every rule is theirs, and every
error they report (an illegal move, a bad position string, an unknown
game or rule set, a malformed record) is raised as ``ValueError`` with
their message.

>>> import monte
>>> g = monte.Game("salta")
>>> g.play("c3-d4")
'c3-d4'
>>> g.side_to_move
'black'
"""

from ._monte import GAMES, Analysis, BatchEnv, Engine, Game, GameResult, __version__

__all__ = ["GAMES", "Analysis", "BatchEnv", "Engine", "Game", "GameResult", "__version__"]
