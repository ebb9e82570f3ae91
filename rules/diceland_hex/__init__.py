"""Diceland, the hex-tile game (2 players, d6): the engine in `rules.diceland_hex.game`
(rules and decisions in its docstring), boards in `rules.diceland_hex.board` and the
presets in `boards/`."""

from rules.diceland_hex.board import Board, load_board, make_board, presets, random_board
from rules.diceland_hex.bots import BOT_SETTINGS, greedy_action, heuristic
from rules.diceland_hex.game import HexState, deserialize, new_game
from rules.diceland_hex.spaces import encode, max_game_length, vocabulary

__all__ = [
    "encode",
    "max_game_length",
    "vocabulary",
    "BOT_SETTINGS",
    "Board",
    "HexState",
    "deserialize",
    "greedy_action",
    "heuristic",
    "load_board",
    "make_board",
    "new_game",
    "presets",
    "random_board",
]
