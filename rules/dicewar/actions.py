"""What DiceWar's actions do (`rules.dicewar.game.DiceWarState`): a creature placed,
moved or attacking, defeated and scored (field bonus, Exile or Reserve, trigger points),
a spell cast, the Ruins, and the end of a turn with the checks for victory. A base class
of the state, over its queries.
"""

from __future__ import annotations

from rules.dicewar.board import PLAYER_NAMES, RUINS, WIN_VP, cell_name, field_bonus
from rules.dicewar.legal import DiceWarLegal
from rules.dicewar.tribe import TP_MAX


class DiceWarActions(DiceWarLegal):
    """The changes a legal action makes to the board, the counts and the phase, told in
    `events`."""

    ruins: bool
    max_plies: int
    phase: str
    plies: int
    winner: int | None  # -1 for a draw once over
    events: list[str]

    def _place(self, p: int, cell: int, power: int, verb: str) -> None:
        self.reserve[p] -= 1
        self.board[cell] = power if p == 0 else -power
        self.events.append(f"{PLAYER_NAMES[p]} {verb} {self.tribes[p].creature(power).name} "
                           f"(power {power}) on {cell_name(cell)}")
        self._ruin_check(cell)

    def _ruin_check(self, cell: int) -> None:
        """The Ruins: a power-1 creature on a ruin goes straight back to the Reserve."""
        if self.ruins and cell in RUINS and abs(self.board[cell]) == 1:
            p = self.owner(cell)
            assert p is not None
            self.board[cell] = 0
            self.reserve[p] += 1
            self.events.append(f"{PLAYER_NAMES[p]}'s power-1 creature on the ruin "
                               f"{cell_name(cell)} returns to the Reserve")

    def _move(self, p: int, src: int, dst: int) -> None:
        v = self.board[src]
        if self.board[dst] != 0:
            self._defeat(p, dst, f"{self.creature_at(src).name} ({abs(v)})", by_attack=src)
        else:
            self.events.append(f"{PLAYER_NAMES[p]} moves {self.creature_at(src).name} "
                               f"{cell_name(src)}-{cell_name(dst)}")
        self.board[src] = 0
        self.board[dst] = v
        self._ruin_check(dst)

    def _defeat(self, p: int, cell: int, by: str, by_attack: int | None = None) -> None:
        """Player p defeats the opposing creature on `cell`: exile (or reserve), score."""
        victim = 1 - p
        w = self.board[cell]
        power = abs(w)
        creature = self.tribes[victim].creature(power)
        immune = self.has_speciality(cell, "immune_specialities")
        bonus = field_bonus(p, cell)
        self.vp[p] += power + bonus
        sp = creature.speciality
        if sp is not None and sp.kind == "return_to_reserve":
            self.reserve[victim] += 1
            where = "Reserve"
        else:
            self.exile[victim] += 1
            where = "Exile"
        if sp is not None and sp.kind == "trigger_on_loss":
            self.tp[victim] = min(TP_MAX, self.tp[victim] + sp.get("amount"))
        self.board[cell] = 0
        if by_attack is not None:
            asp = self.creature_at(by_attack).speciality
            if asp is not None and asp.kind == "trigger_on_kill" and not immune:
                self.tp[p] = min(TP_MAX, self.tp[p] + asp.get("amount"))
        bonus_text = f" + field bonus {bonus}" if bonus else ""
        self.events.append(
            f"{PLAYER_NAMES[p]}'s {by} defeats {creature.name} ({power}) on {cell_name(cell)}"
            f" -> {where}; {power}{bonus_text} VP, {PLAYER_NAMES[p]} has {self.vp[p]} VP")

    def _spell(self, p: int, src: int, dst: int) -> None:
        caster = self.creature_at(src)
        spell = caster.spell
        assert spell is not None
        k = spell.kind
        who = f"{PLAYER_NAMES[p]}'s {caster.name}"
        if k == "summon":
            self.tp[p] -= spell.get("cost")
            self._place(p, dst, spell.get("power"), f"summons with {caster.name}:")
        elif k == "charge":
            self.tp[p] = min(TP_MAX, self.tp[p] + spell.get("amount"))
            self.events.append(f"{who} charges: {self.tp[p]} trigger points")
        elif k == "recall":
            self.exile[p] -= 1
            self.reserve[p] += 1
            self.tp[p] = min(TP_MAX, self.tp[p] + spell.get("amount"))
            self.events.append(f"{who} recalls a die from the Exile to the Reserve; "
                               f"{self.tp[p]} trigger points")
        elif k == "bolt":
            self.tp[p] -= abs(self.board[dst])
            self._defeat(p, dst, f"{caster.name}'s bolt")
        elif k == "reinforce":
            self.tp[p] -= spell.get("cost")
            w = self.board[dst]
            self.board[dst] = w + (1 if w > 0 else -1)
            self.events.append(f"{who} reinforces {cell_name(dst)} to {abs(w) + 1}")
        else:
            self.tp[p] -= spell.get("cost")
            w = self.board[dst]
            self.board[dst] = w - (1 if w > 0 else -1)
            self.events.append(f"{who} weakens {cell_name(dst)} to {abs(w) - 1}")
            self._ruin_check(dst)

    def _end_turn(self, p: int) -> None:
        self.plies += 1
        for q in (p, 1 - p):
            if self.points(q) >= WIN_VP:
                virtual = self.virtual_vp(q)
                self._finish(q, f"{PLAYER_NAMES[q]} reaches {self.points(q)} victory points"
                             + (f" ({virtual} of them virtual)" if virtual else ""))
                return
        if self.ruins and all(self.owner(c) == p for c in RUINS):
            self._finish(p, f"{PLAYER_NAMES[p]} holds all the Ruins")
            return
        if self.plies >= self.max_plies:
            a, b = self.points(0), self.points(1)
            w = 0 if a > b else 1 if b > a else -1
            self._finish(w, f"turn limit {self.max_plies} reached")
            return
        self.player = 1 - p
        if not self._war_actions(self.player):
            self._finish(p, f"{PLAYER_NAMES[self.player]} has no legal action")

    def _finish(self, winner: int, why: str) -> None:
        self.phase = "over"
        self.winner = winner
        result = "a draw" if winner == -1 else f"{PLAYER_NAMES[winner]} wins"
        self.events.append(f"game over: {why}: {result} (VP red {self.points(0)}, "
                           f"black {self.points(1)})")
