"""D-Day Dice players: `greedy` and `expectimax` share one plan for the unit (hire,
buy, move, take casualties) and differ in how they re-roll:

- greedy re-rolls every free die worth less than an average die to this unit now;
- expectimax weighs every choice of dice to re-roll (and stopping) by the exact expected
  value of the result, enumerating all faces of the re-rolled dice (one re-roll deep).

Dice are valued by `DiceValuer`, which prices each symbol for the unit's present needs
(Courage still needed to reach the bunker, Specialists still wanted) and adds the RWB
bonuses and the cost of skulls. `heuristic` is the registry's judgement of a position.
"""

from __future__ import annotations

import math
from functools import lru_cache
from itertools import combinations, product
from typing import Any

import numpy as np

from rules.dday.battlemap import ITEMS, SPECIALISTS, BattleMap
from rules.dday.game import DDayState
from rules.dday.unit import COLOURS, Unit, equipment_points

# Stars go to these Specialists in this order (cheap and always useful first).
HIRE_ORDER = ("sergeant", "scout", "sniper", "medic", "hero", "sapper", "veteran", "officer")
# Casualties: least useful Specialist first.
CASUALTY_ORDER = ("officer", "veteran", "sapper", "scout", "sergeant", "sniper", "hero",
                  "medic")
EP_TABLE = np.array([equipment_points(k) for k in range(8)], dtype=float)
EP_VALUE = 0.3  # soldiers per Equipment Point (a Radio is 5 soldiers for 12 EP)


@lru_cache(maxsize=64)
def courage_to_bunker(bm: BattleMap, sector: str) -> int:
    """The least Courage needed from `sector` to the bunker over any path (moves sideways
    free), ignoring requirements: what the unit still has to collect."""
    best = {bm.bunker: 0}
    for row in sorted({s.row for s in bm.sectors.values()}, reverse=True):
        ids = [s for s in bm.sectors if bm.sectors[s].row == row]
        for _ in range(len(ids)):  # relax sideways moves within the row
            for sid in ids:
                for t, b, adv in bm.exits(sid):
                    if t in best:
                        c = best[t] + (b.courage if adv else 0)
                        if c < best.get(sid, 10 ** 6):
                            best[sid] = c
    return best.get(sector, 10 ** 6)


def _need(state: DDayState, u: Unit) -> int:
    return max(0, courage_to_bunker(state.map, u.sector) - u.courage)


class DiceValuer:
    """Values of dice results for one unit at one moment, vectorised over many results."""

    def __init__(self, state: DDayState, u: Unit) -> None:
        wanted = [s for s in HIRE_ORDER if s not in u.specialists and s not in u.dead]
        need = _need(state, u)
        sec = state.map.sectors[u.sector]
        self.w = np.zeros(7)
        self.w[2] = 0.8 if wanted else 0.0
        self.w[3] = 1.0
        self.w[4] = 2.0
        self.w[5] = 2.5 if need > 0 else 1.2
        self.scout = 1 if u.has("scout") else 0
        self.item_change = sec.symbol_change("item")
        self.sniper = 1 if u.has("sniper") else 0
        self.flak = u.flak
        self.bonus = np.zeros(7)
        self.bonus[1] = state.options["dead_mans_chest_ep"] * EP_VALUE
        self.bonus[2] = 2.0
        self.bonus[3] = self.bonus[4] = 6.0
        self.bonus[5] = 3.0 if need > 0 else 0.5
        self.bonus[6] = 2 * self.w[2]
        for v, name in ((1, "dead_mans_chest"), (2, "surge"), (3, "reinforcements"),
                        (4, "reinforcements"), (5, "battle_cry"), (6, "lucky_find")):
            if sec.bonus_blocked(name):
                self.bonus[v] = 0.0
        self.mean_die = float(np.mean(self.w[2:6])) + 0.3

    def values(self, arr: np.ndarray, colours: tuple[str, ...]) -> np.ndarray:
        """Value of each row of `arr` (N x 6 faces) with the given die colours."""
        counts = np.stack([(arr == v).sum(axis=1) for v in range(7)], axis=1)
        cols = [np.array([c == col for c in colours]) for col in COLOURS]
        total = (counts[:, 2:6] * self.w[2:6]).sum(axis=1)
        symbols = np.clip(counts[:, 6] + self.scout + self.item_change, 0, 7)
        total = total + EP_TABLE[symbols] * EP_VALUE
        triples = {}
        for v in range(1, 7):
            per = [((arr == v) & c).sum(axis=1) for c in cols]
            triples[v] = np.minimum(np.minimum(per[0], per[1]), per[2])
            total = total + triples[v] * self.bonus[v]
        if self.flak:
            return total + counts[:, 1]
        skulls = np.maximum(0, counts[:, 1] - 3 * triples[1] - self.sniper)
        return total - skulls * self.mean_die

    def value(self, dice: list[int], colours: list[str]) -> float:
        return float(self.values(np.array([dice]), tuple(colours))[0])

    def die_weight(self, v: int) -> float:
        if v == 1:
            return -self.mean_die
        if v == 6:
            return 1.2
        return float(self.w[v])


class DDayBot:
    """The shared plan; `reroll` picks the re-roll policy ('greedy' or 'expectimax')."""

    def __init__(self, rng: np.random.Generator, reroll: str = "greedy") -> None:
        self.rng = rng
        self.reroll = reroll
        self.name = reroll

    def step(self, state: DDayState) -> Any:
        return self.choose(state)

    def choose(self, state: DDayState) -> Any:
        u = state.units[state.current_player()]
        acts = state.legal_actions()
        return getattr(self, f"_{state.node}")(state, u, acts)

    # -- phase 1
    def _keep(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        val = DiceValuer(state, u)
        order = sorted(range(6), key=lambda i: -val.die_weight(u.dice[i]))
        i, j = sorted(order[:2])
        return ("keep", i, j)

    def _rolling(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        val = DiceValuer(state, u)
        free = [i for i in range(6) if i not in u.kept]
        now = val.value(u.dice, u.colours)
        # Free improvements first: the solo Officer's colour change.
        best_gain, best = 0.0, None
        for a in acts:
            if a[0] in ("officer_colour", "terrain_map", "binoculars"):
                dice, cols = u.dice[:], u.colours[:]
                if a[0] == "binoculars":
                    dice[a[1]] = a[2]
                else:
                    cols[a[1]] = a[2]
                cost = {"officer_colour": 0.0, "terrain_map": 2.0, "binoculars": 3.0}[a[0]]
                gain = val.value(dice, cols) - now - cost
                if gain > best_gain + 1e-9:
                    best_gain, best = gain, a
        if best is not None and u.rerolls >= 2:
            return best
        if u.rerolls < 2:
            choice = (self._expectimax(val, u, free) if self.reroll == "expectimax"
                      else self._threshold(val, u, free))
            if choice:
                return ("reroll", choice)
        if ("flak_jacket",) in acts and u.dice.count(1) >= 2:
            return ("flak_jacket",)
        if best is not None:
            return best
        worst = min(free, key=lambda i: val.die_weight(u.dice[i]))
        if val.die_weight(u.dice[worst]) < val.mean_die - 0.5:
            for kind in ("sergeant", "backpack"):
                if (kind, worst) in acts and (kind == "sergeant" or u.dice[worst] == 1):
                    return (kind, worst)
        return ("done",)

    def _threshold(self, val: DiceValuer, u: Unit, free: list[int]) -> tuple[int, ...]:
        return tuple(i for i in free if val.die_weight(u.dice[i]) < val.mean_die - 0.3)

    def _expectimax(self, val: DiceValuer, u: Unit, free: list[int]) -> tuple[int, ...]:
        """The re-roll (or none) with the highest expected value. With a re-roll still to
        come, each result also counts the value of re-rolling its below-average free dice
        once more (taken die by die, which ignores the triples those dice might make)."""
        base = np.array(u.dice)
        colours = tuple(u.colours)
        later = u.rerolls == 0
        weights = np.array([0.0] + [val.die_weight(v) for v in range(1, 7)])
        mean = float(weights[1:].mean())
        best: tuple[int, ...] = ()
        best_v = val.value(u.dice, u.colours)
        for k in range(1, len(free) + 1):
            grid = _faces(k)
            for subset in combinations(free, k):
                arr = np.tile(base, (len(grid), 1))
                arr[:, list(subset)] = grid
                v = val.values(arr, colours)
                if later:
                    v = v + np.maximum(0.0, mean - weights[arr[:, free]]).sum(axis=1)
                m = float(v.mean())
                if m > best_v + 1e-9:
                    best, best_v = subset, m
        return best

    def _trade(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        val = DiceValuer(state, u)
        now = val.value(u.dice, u.colours)
        best, best_gain = ("no_trade",), 0.5
        for a in acts[1:]:
            o = state.units[a[2]]
            dice, cols = u.dice[:], u.colours[:]
            dice[a[1]], cols[a[1]] = o.dice[a[3]], o.colours[a[3]]
            gain = val.value(dice, cols) - now
            if gain > best_gain:
                best, best_gain = a, gain
        return best

    def _cancel(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        val = DiceValuer(state, u)
        return min(acts, key=lambda a: val.die_weight(u.dice[a[1]]))

    def _surge_colour(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        dice = [d for d in u.final_dice() if d[0] != 1]
        for a in acts:  # a colour that completes a triple
            trial = [*dice, (u.surge_value, a[1])]
            if _triples(trial, u.surge_value) > _triples(dice, u.surge_value):
                return a
        return acts[int(self.rng.integers(len(acts)))]

    # -- phases 2 and 3
    def _stars(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        started = [s for s in HIRE_ORDER if u.progress.get(s) and ("star", s) in acts]
        if started:
            return ("star", started[0])
        for s in HIRE_ORDER:
            if ("star", s) in acts:
                return ("star", s)
        return acts[0]

    def _items(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        for a in acts:
            if a[0] == "use" and a[1] in ("radio", "mobile_radio"):
                return a
        if ("use", "medal_of_honor", "hero") in acts:
            return ("use", "medal_of_honor", "hero")
        if ("use", "medal_of_honor", "courage") in acts:
            return ("use", "medal_of_honor", "courage")
        for s in ("medic", "hero", "sergeant"):
            if ("use", "medal", s) in acts:
                return ("use", "medal", s)
        bunker_row = state.map.sectors[state.map.bunker].row
        near = state.map.sectors[u.sector].row >= bunker_row - 2
        wish = (["flamethrower"] if near else []) + [
            "radio", "flak_jacket", "mobile_radio", "grenade", "mine_detector", "whistle",
            "bangalore", "backpack"]
        if not near and u.ep >= 14 and "flamethrower" not in u.bought:
            wish = ["flak_jacket"]  # save up for the bunker
        for it in wish:
            if ("buy", it) in acts:
                return ("buy", it)
        return ("end_items",)

    # -- phase 4
    def _move(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        bm = state.map
        here = bm.sectors[u.sector]
        strength = u.strength + (u.courage if u.has("hero") else 0)
        best, best_v = acts[0], -math.inf
        for a in acts:
            sid = u.sector if a[0] == "stay" else a[1]
            sec = bm.sectors[sid]
            fire = sec.enemy_fire + (3.5 if sec.machine_gun else 0.0)
            if sec.bunker and "flamethrower" in u.items:
                fire = max(0, sec.enemy_fire - 10)
            v = 4.0 * sec.row - fire
            if a[0] != "stay":
                border = next(b for t, b, _ad in bm.exits(u.sector) if t == a[1])
                adv = sec.row > here.row
                cost = 0 if (len(a) > 2 or u.battle_cry or not adv) else border.courage
                v -= 3.5 if border.minefield and not u.has("sapper") else 0.0
                left = u.courage - cost
                v -= 1.5 * max(0, courage_to_bunker(bm, sid) - left)
                v -= 2.0 * sum(r["amount"] for r in sec.requirements
                               if r.kind == "sacrifice_soldiers")
                v -= 4.0 * sum(1 for r in sec.requirements if r.kind == "sacrifice")
                if len(a) > 2:
                    v -= 1.0  # keep the whistle for a dearer border
                if sec.bunker and strength <= fire + 2:
                    v -= 100.0  # do not storm without the strength to survive
                if not any(t not in u.visited for t, _b, _ad in bm.exits(sid)) \
                        and not sec.bunker:
                    v -= 100.0  # a dead end
            else:
                v -= 1.5 * _need(state, u)
                v -= 3.0 * (u.turns_here + 1 >= here.max_turns)
            if v > best_v:
                best, best_v = a, v
        return best

    def _mine(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        return ("mine_detector",)

    def _fire_binoculars(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        return ("binoculars_fire", 1) if u.fire_roll >= 4 else ("accept_roll",)

    # -- phase 5
    def _combat(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        sec = state.map.sectors[u.sector]
        for a in acts[1:]:
            if a[1] in ("flamethrower", "grenade"):
                return a
            if a[1] == "bangalore" and sec.enemy_fire >= 3:
                return a
            if a[1] in ("radio", "mobile_radio"):
                return a
        return ("fight",)

    def _losses(self, state: DDayState, u: Unit, acts: list[Any]) -> Any:
        spare = u.courage - courage_to_bunker(state.map, u.sector)
        if ("lose", "courage") in acts and spare > 0:
            return ("lose", "courage")
        if ("lose", "soldier") in acts:
            return ("lose", "soldier")
        if ("lose", "courage") in acts:
            return ("lose", "courage")
        for s in CASUALTY_ORDER:
            if ("lose", s) in acts:
                return ("lose", s)
        return acts[0]


def _triples(dice: list[tuple[int, str]], value: int) -> int:
    return min(sum(1 for v, c in dice if v == value and c == col) for col in COLOURS)


@lru_cache(maxsize=8)
def _faces(k: int) -> np.ndarray:
    return np.array(list(product(range(1, 7), repeat=k)), dtype=int)


def heuristic(state: DDayState) -> list[float]:
    """Each unit's standing in [0, 1]: finished units by result, active ones by how far
    forward and how strong they are against the fire still ahead."""
    if state.is_terminal():
        return state.returns()
    bm = state.map
    top = bm.sectors[bm.bunker].row
    out = []
    for u in state.units:
        if u.status != "active":
            out.append(1.0 if u.status == "won" else 0.0)
            continue
        row = bm.sectors[u.sector].row
        ahead = (top - row) * 3.0 + bm.sectors[bm.bunker].enemy_fire
        margin = u.strength + 0.5 * u.courage - ahead + 2.0 * (top - row == 0)
        out.append(1.0 / (1.0 + math.exp(-margin / 4.0)))
    return out


def greedy_action(state: DDayState, rng: np.random.Generator) -> Any:
    """The registry's `greedy` player."""
    return DDayBot(rng, "greedy").choose(state)


def make_bot(kind: str, rng: np.random.Generator, **settings: Any) -> DDayBot:
    """Game-specific players for the registry: 'greedy' and 'expectimax'."""
    del settings
    return DDayBot(rng, kind)


__all__ = ["ITEMS", "SPECIALISTS", "DDayBot", "DiceValuer", "greedy_action", "heuristic",
           "make_bot"]
