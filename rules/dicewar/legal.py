"""What is on the DiceWar warlands and what a player may do there
(`rules.dicewar.game.DiceWarState`): who holds a field, the creature on it and its
specialities, victory points with the virtual ones, where a creature may move or attack,
what a spell may target, and the setup and war-phase actions. Read-only: a base class of
the state.
"""

from __future__ import annotations

from typing import Any

from rules.dicewar.board import ADJ, DIRECTIONS, SETUP_POWER, SIZE, _within, beats, home_row
from rules.dicewar.tribe import TP_MAX, Creature, Tribe


class DiceWarLegal:
    """The queries over the board (`board`: 0 empty, +p player 0's power p, -p player
    1's), the players' tribes, reserves, exiles, victory and trigger points, and the
    legal actions built on them."""

    tribes: tuple[Tribe, Tribe]
    board: list[int]
    reserve: list[int]
    exile: list[int]
    vp: list[int]
    tp: list[int]
    player: int

    # ---- queries ------------------------------------------------------------------
    def owner(self, cell: int) -> int | None:
        v = self.board[cell]
        return None if v == 0 else (0 if v > 0 else 1)

    def creature_at(self, cell: int) -> Creature:
        v = self.board[cell]
        return self.tribes[0 if v > 0 else 1].creature(abs(v))

    def virtual_vp(self, p: int) -> int:
        """Player p's virtual victory points: `virtual_vp` creatures in the Warlands."""
        by_power = self.tribes[p].virtual_vp_by_power
        if not any(by_power):
            return 0
        sign = 1 if p == 0 else -1
        return sum(by_power[v * sign] for v in self.board if v * sign > 0)

    def points(self, p: int) -> int:
        """The victory points that count toward the 10: the bar's plus the virtual ones."""
        return self.vp[p] + self.virtual_vp(p)

    def has_speciality(self, cell: int, kind: str) -> bool:
        """The creature on `cell` has the speciality `kind`."""
        sp = self.creature_at(cell).speciality
        return sp is not None and sp.kind == kind

    def creatures_of(self, p: int) -> list[int]:
        sign = 1 if p == 0 else -1
        return [i for i, v in enumerate(self.board) if v * sign > 0]

    def targets_of_movement(self, src: int) -> tuple[list[int], list[int]]:
        """(empty fields it may move to, opposing fields it may attack)."""
        v = self.board[src]
        p = 0 if v > 0 else 1
        mv = self.creature_at(src).movement
        moves: list[int] = []
        attacks: list[int] = []
        r, c = divmod(src, SIZE)
        steps = 1 if mv.pattern == "knight" else mv.range
        for dr, dc in DIRECTIONS[mv.pattern]:
            for k in range(1, steps + 1):
                rr, cc = r + dr * k, c + dc * k
                if not (0 <= rr < SIZE and 0 <= cc < SIZE):
                    break
                dst = rr * SIZE + cc
                w = self.board[dst]
                if w == 0:
                    moves.append(dst)
                    continue
                if (w > 0) != (v > 0) and beats(abs(v), abs(w)) and \
                        not self.has_speciality(dst, "immune_attacks"):
                    attacks.append(dst)
                if not mv.jump:
                    break
        if self._threatened(src, p):
            moves = []
        return moves, attacks

    # ---- helpers ------------------------------------------------------------------
    def _setup_power(self, p: int) -> int:
        return sum(abs(self.board[i]) for i in self.creatures_of(p))

    def _setup_actions(self) -> list[tuple[Any, ...]]:
        p = self.player
        left = SETUP_POWER - self._setup_power(p)
        row = home_row(p)
        empty = [c for c in range(SIZE) if self.board[row * SIZE + c] == 0]
        # Only placements after which the rest of the 10 still fits in the empty fields.
        powers = [pw for pw in range(1, min(6, left) + 1) if left - pw <= 6 * (len(empty) - 1)]
        return [("place", c, pw) for c in empty for pw in powers]

    def _war_actions(self, p: int) -> list[tuple[Any, ...]]:
        out: list[tuple[Any, ...]] = []
        for src in self.creatures_of(p):
            moves, attacks = self.targets_of_movement(src)
            out.extend(("move", src, d) for d in sorted(moves + attacks))
            if abs(self.board[src]) < 6:
                out.append(("upgrade", src))
            out.extend(("spell", src, d) for d in self._spell_targets(p, src))
        return out

    def _threatened(self, cell: int, p: int) -> bool:
        if self.has_speciality(cell, "immune_specialities"):
            return False
        for n in ADJ[cell]:
            w = self.board[n]
            if w != 0 and (w > 0) != (p == 0):
                sp = self.tribes[1 - p].creature(abs(w)).speciality
                if sp is not None and sp.kind == "threatening":
                    return True
        return False

    def _spell_target_ok(self, caster_player: int, cell: int) -> bool:
        """An opposing creature on `cell` may be targeted by `caster_player`'s spells."""
        victim = 1 - caster_player
        sp = self.creature_at(cell).speciality
        if sp is not None and sp.kind == "immune_spells":
            return False
        for n in ADJ[cell]:
            if self.owner(n) == victim:
                gs = self.creature_at(n).speciality
                if gs is not None and gs.kind == "guardian":
                    return False
        return True

    def _spell_targets(self, p: int, src: int) -> list[int]:
        spell = self.creature_at(src).spell
        if spell is None:
            return []
        k = spell.kind
        if k == "summon":
            if self.reserve[p] == 0 or self.tp[p] < spell.get("cost"):
                return []
            if spell.get("place") == "adjacent":
                return [n for n in ADJ[src] if self.board[n] == 0]
            row = home_row(p) * SIZE
            return [row + c for c in range(SIZE) if self.board[row + c] == 0]
        if k == "charge":
            return [src] if self.tp[p] < TP_MAX else []
        if k == "recall":
            return [src] if self.exile[p] > 0 else []
        if k == "bolt":
            return [d for d in _within(src, spell.get("range"))
                    if self.owner(d) == 1 - p and abs(self.board[d]) <= self.tp[p]
                    and self._spell_target_ok(p, d)]
        if k == "reinforce":
            if self.tp[p] < spell.get("cost"):
                return []
            return [d for d in ADJ[src] if self.owner(d) == p and abs(self.board[d]) < 6]
        # weaken
        if self.tp[p] < spell.get("cost"):
            return []
        return [d for d in _within(src, spell.get("range"))
                if self.owner(d) == 1 - p and abs(self.board[d]) > 1
                and self._spell_target_ok(p, d)]
