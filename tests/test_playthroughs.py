"""Golden playthroughs of D-Day Dice and DiceWar: one seeded game each, told in the
engines' own words, must replay line by line. A change to the rules shows up here as a
diff of the story; regenerate the files only for a change you meant (see the bottom)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

import rules.dday as dd
import rules.dicewar as dw
from rules.core import SeededRoller

DATA = Path(__file__).parent / "data"


def _tell(state, choose, seed: int) -> list[str]:
    rng = np.random.default_rng(seed)
    roller = SeededRoller()
    lines = state.take_events()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance(roller.roll(*state.chance_request(), rng))
        else:
            action = choose(state)
            lines.append(f"> {state.action_to_string(action)}")
            state.apply_action(action)
        lines.extend(state.take_events())
    return lines


def dday_playthrough() -> list[str]:
    bot = dd.make_bot("greedy", np.random.default_rng(7))
    return _tell(dd.new_game(1, {}), bot.step, seed=11)


def dicewar_playthrough() -> list[str]:
    greedy = dw.GreedyBot(np.random.default_rng(7))

    def choose(s):  # red: greedy; black: always its first legal action
        return greedy.choose(s) if s.current_player() == 0 else s.legal_actions()[0]

    return _tell(dw.new_game(2, {}), choose, seed=11)


def test_dday_golden_playthrough():
    expected = (DATA / "dday_playthrough.txt").read_text().splitlines()
    assert dday_playthrough() == expected


def test_dicewar_golden_playthrough():
    expected = (DATA / "dicewar_playthrough.txt").read_text().splitlines()
    assert dicewar_playthrough() == expected


# To regenerate after an intended rules change:
#   python -c "import sys; sys.path.insert(0, 'tests'); import test_playthroughs as t; \
#   open('tests/data/dday_playthrough.txt', 'w').write('\n'.join(t.dday_playthrough()) + '\n'); \
#   open('tests/data/dicewar_playthrough.txt', 'w').write('\n'.join(t.dicewar_playthrough()) + '\n')"
