"""The choices column, a part of `GameWindow`: every choice of the decision at hand, the
page of them shown (`hud.page_of`: all, or one page and a line for the next), and what each
of its buttons calls (the choices, then a game's own, such as 'pass')."""

from __future__ import annotations

import functools
from collections.abc import Callable

from simulator.render.core.hud import Choice, page_of


class ChoiceColumn:
    """`every` choice, the ones `shown` (the page `page`), the buttons' calls."""

    def __init__(self) -> None:
        self.every: list[Choice] = []
        self.shown: list[Choice] = []
        self.page = 0
        self._calls: list[Callable[[], None]] = []

    def offer(self, choices: list[Choice]) -> None:
        self.every = choices
        self.show_page()

    def show_page(self) -> None:
        self.shown, self.page = page_of(self.every, self.page)

    def next_page(self) -> None:
        self.page += 1
        self.show_page()

    def buttons(self, choose: Callable[[int], None],
                extra: Callable[[list[str]], list[Callable[[], None]]]) -> list[str]:
        """The buttons' labels: one a choice shown (its key, 1-9 then 0), then `extra`'s,
        which appends its own labels and gives their calls."""
        labels = [f"{(i + 1) % 10}  {c.label}" for i, c in enumerate(self.shown)]
        self._calls = [functools.partial(choose, i) for i in range(len(self.shown))]
        self._calls += extra(labels)
        return labels

    def press(self, index: int) -> None:
        """A click on the index-th button of the column."""
        if 0 <= index < len(self._calls):
            self._calls[index]()
