"""The task stack of Deep White Sea (`rules.deep_white_sea.game.DWSState`, module docstring):
running it (bookkeeping tasks run by the engine, decisions that wait for a player or drop
when moot), the continuous effects switched on, off or to new targets, and the scoring
and leaving play that every rule uses. A base class of the state; the actions that push
tasks are in `rules/deep_white_sea/actions.py`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rules.core.protocols import Action, DiePose
from rules.deep_white_sea.legal import DWSLegal

WIN_POINTS = 50
DECISIONS = ("place", "main", "foul", "shoot", "cmd", "tip", "throw", "aim")

# Which side of the table an effect works on (rulebook, "Special Effects").
ENEMY_EFFECTS = ("Hold", "Freeze", "Confuse")


class TaskStack(DWSLegal):
    """The state's stack of tasks (`stack`, last on top), run until a decision stands or
    the game is won (`winner`), over the scores, poison counters and continuous effects;
    what happens is told in `_events`."""

    max_turns: int
    scores: list[int]
    poison: dict[str, int]  # poisoned die -> seat that made the counter
    turn: int
    winner: int | None  # seat, or -1 for a draw at the house limit
    poses: dict[str, DiePose]
    _events: list[str]
    _results: list[dict[str, Any]]
    _legal: list[Action] | None

    if TYPE_CHECKING:  # a poison counter does a shot's damage
        def _damage(self, target: str, scorer: int, hit: int | None,  # actions.py
                    poison: bool) -> None: ...

    # -- running the task stack ----------------------------------------------------------

    def _run(self) -> None:
        while self.winner is None and self.stack:
            task = self.stack[-1]
            if task["t"] in DECISIONS:
                if self._decision_stands(task):
                    self._legal = None
                    return
                continue
            self.stack.pop()
            getattr(self, f"_do_{task['t']}")(task)
        self._legal = None

    def _decision_stands(self, task: dict[str, Any]) -> bool:
        """True if `task` needs a player; otherwise resolve or drop it (popping it)."""
        kind = task["t"]
        if kind == "shoot":
            if task["die"] in self.poses and self.shots(task["die"]):
                return True
        elif kind == "cmd":
            while task["idx"] < len(task["order"]):
                ally = task["order"][task["idx"]]
                if ally in self.poses and (self.moves(ally) or self.shots(ally)):
                    self._say(f"  command: {self._label(ally)} acts")
                    return True
                task["idx"] += 1
        elif kind == "tip":
            target = task["target"]
            if target in self.poses:
                if task["kind"] == "repair" and self.poison.pop(target, None) is not None:
                    self._say(f"{self._label(target)}'s poison counter is removed")
                if self.held(target):
                    self._say(f"{self._label(target)} is {'frozen' if self.frozen(target) else 'held'}"
                              f" and cannot be moved")
                elif self._tip_options(task):
                    return True
                else:
                    self._say(f"{self._label(target)} is pinned and cannot be moved")
        elif kind == "aim":
            cands = [c for c in task["cands"] if c in self.poses]
            if len(cands) > 1:
                task["cands"] = cands
                return True
            fixed = [t for t in task.get("fixed", []) if t in self.poses]
            self._set_targets(task["src"], fixed + cands)
        elif kind == "throw":
            task["dice"] = [d for d in task["dice"] if self.where[d] == "hand"]
            if task["dice"]:
                return True
        else:
            return True
        self.stack.pop()
        return False

    def _do_turn(self, task: dict[str, Any]) -> None:
        """Step 1: check every continuous effect in play."""
        for src in sorted(self.poses):
            self._recheck(src)

    def _do_poison(self, task: dict[str, Any]) -> None:
        """Step 2: this player's poison counters, starting at their edge of the table."""
        seat = int(task["player"])
        mine = [d for d, s in self.poison.items() if s == seat and d in self.poses]
        mine.sort(key=lambda d: (self.poses[d].position[1] * (1 if seat == 0 else -1), d))
        for d in reversed(mine):
            self.stack.append({"t": "poison1", "player": seat, "die": d})

    def _do_poison1(self, task: dict[str, Any]) -> None:
        die, seat = task["die"], int(task["player"])
        if die not in self.poses or self.poison.get(die) != seat:
            return
        self._say(f"poison counter on {self._label(die)} does damage")
        if self.immune(die, "green"):
            self._say(f"  {self._label(die)} is immune to green")
            return
        self._damage(die, seat, None, poison=False)

    def _do_after(self, task: dict[str, Any]) -> None:
        """After a throw lands: continuous effects switch on, and the die may shoot."""
        die = task["die"]
        if die not in self.poses:
            return
        self._recheck(die)  # pushes an aim decision on top if it needs one
        if task["shot"]:
            idx = next((i for i in range(len(self.stack)) if self.stack[i]["t"] == "aim"
                        and self.stack[i]["src"] == die), len(self.stack))
            self.stack.insert(idx, {"t": "shoot", "player": self.dice[die].seat, "die": die})

    def _do_end(self, task: dict[str, Any]) -> None:
        seat = int(task["player"])
        back = [d for d in self.seat_dice(seat) if self.where[d] == "reserve"]
        for d in back:
            self.where[d] = "hand"
        if back:
            self._say(f"back to P{seat + 1}'s hand from reserve: "
                      f"{', '.join(self.dice[d].crew.name for d in back)}")
        if self.turn >= self.max_turns:
            a, b = self.scores
            self.winner = 0 if a > b else 1 if b > a else -1
            self._say(f"house limit of {self.max_turns} turns reached")
            self.stack.clear()
            return
        self.turn += 1
        nxt = 1 - seat
        self._say(f"--- turn {self.turn}: P{nxt + 1} ({self.scores[0]}-{self.scores[1]})")
        self.stack += [{"t": "end", "player": nxt}, {"t": "main", "player": nxt},
                       {"t": "poison", "player": nxt}, {"t": "turn", "player": nxt}]

    # -- continuous effects -------------------------------------------------------------

    def _recheck(self, src: str) -> None:
        """Switch `src`'s continuous effect on, off or to new targets (rulebook,
        "Continuous Effects": at the start of a turn and whenever the source is disturbed)."""
        old = self.effects.pop(src, None)
        if src not in self.poses:
            return
        side = self.side(src)
        if not side.arrows or not side.arrows[0].continuous or side.effect is None:
            return
        eff = side.effect
        pool = self.enemies(src) if eff.name in ENEMY_EFFECTS else self.allies(src)
        pool = [t for t in pool if not self.immune(t, eff.colour)]
        groups = self.range_targets(src, pool)
        fixed = groups.get("all", [])
        cands = [t for t in self.in_range(src, pool)
                 if t not in fixed and (t in groups.get("short", [])
                                        or t in groups.get("long", []))]
        self.effects[src] = {"name": eff.name, "amount": eff.amount or 0, "colour": eff.colour,
                             "targets": [], "was": old["targets"] if old else []}
        if len(cands) > 1:  # long range, or a short-range tie: the owner chooses
            self.stack.append({"t": "aim", "player": self.dice[src].seat, "src": src,
                               "cands": cands, "fixed": fixed})
            return
        self._set_targets(src, fixed + cands)

    def _set_targets(self, src: str, targets: list[str]) -> None:
        if src not in self.effects:
            return
        eff = self.effects[src]
        eff["targets"] = list(targets)
        was = eff.pop("was", [])
        if targets and targets != was:
            amount = f" +{eff['amount']}" if eff["amount"] else ""
            self._say(f"  {self._label(src)}: {eff['name']}{amount} on "
                      f"{', '.join(self._label(t) for t in targets)}")

    # -- bookkeeping ----------------------------------------------------------------------

    def _leave_play(self, die: str, to: str) -> None:
        if die in self.poses:
            self.table.remove(die)
            del self.poses[die]
        self.where[die] = to
        self.poison.pop(die, None)
        self.effects.pop(die, None)
        # Out of play it is out of every continuous effect (a Held die that Jumps, a Frozen
        # die knocked off and Called back): one that catches it again does so when it is
        # next re-checked, like any die landing in range (rulebook, "Continuous Effects").
        for eff in self.effects.values():
            if die in eff["targets"]:
                eff["targets"] = [t for t in eff["targets"] if t != die]

    def _score(self, seat: int, points: int) -> None:
        self.scores[seat] += points
        if self.scores[seat] >= WIN_POINTS and self.winner is None:
            self.winner = seat
            self.stack.clear()
            self._say(f"P{seat + 1} reaches {self.scores[seat]} points and wins")

    def _say(self, text: str) -> None:
        self._events.append(text)

    def _label(self, die: str) -> str:
        return self.dice[die].label
