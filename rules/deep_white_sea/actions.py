"""What the actions of Deep White Sea do (`rules.deep_white_sea.game.DWSState`): a
placement, a throw and what it knocks about, a foul's punishment, a maneuver, a shot and
its damage (rulebook, "Hit, Block, and Damage"), a Repair or Confuse roll and an aimed
continuous effect. A base class of the state, over its task stack.
"""

from __future__ import annotations

from typing import Any

from rules.core.protocols import Action, DiePose, RulesError, ThrowSpec
from rules.deep_white_sea.tasks import TaskStack


class DWSActions(TaskStack):
    """A player's action carried out on the table and the state; the tasks it leads to
    are pushed on the stack."""

    def _act(self, action: Action, seat: int) -> None:
        kind = action[0]
        if kind == "pass":
            self._say(f"P{seat + 1} passes")
        elif kind == "decline":
            self._say("no shot")
        elif kind == "throw":
            self._throw(action[1], ThrowSpec(*_spec_parts(action[2])), seat)
        elif kind == "move":
            self._move(action[1], action[2])
        elif kind == "shoot":
            self._shoot(action)
        else:
            raise AssertionError(f"unexpected action {action!r}")

    def _place(self, die: str, side: int, yaw: float) -> None:
        crew = self.dice[die].crew
        pose = self.table.place(die, crew.face_of_side(side) + 1, yaw, (0.0, 0.0))
        self.where[die] = "play"
        self.poses[die] = pose
        self._say(f"{self._label(die)} is placed in the centre on side {side}, yaw {yaw:.0f} deg")
        self._recheck(die)

    def _throw(self, die: str, spec: ThrowSpec, seat: int) -> None:
        result = self.table.throw(die, spec, player=seat + 1)
        self._results.append({"die": die, "throw": spec.to_json(), **result.to_json()})
        self.where[die] = "play"
        out = result.outcome
        disturbed: list[str] = []
        for _before, after in result.disturbed:
            d = after.die
            if after.status != "on_table":
                self._knocked_off(d, after.reason, 1 - seat)
            else:
                self.poses[d] = after
                disturbed.append(d)
                self._say(f"  {self._label(d)} is knocked to side "
                          f"{self.side(d).number} at {_xy(after)}")
        if out.status != "on_table":
            self.where[die] = "hand"
            self._say(f"{self._label(die)} is thrown and lands off the table ({out.reason}); "
                      "back to hand")
        else:
            self.poses[die] = out
            self._say(f"{self._label(die)} is thrown and lands on side {self.side(die).number} "
                      f"at {_xy(out)}")
            self.stack.append({"t": "after", "player": seat, "die": die, "shot": True})
            if result.foul:
                self._say(f"  foul: {result.foul_reason}")
                self.stack.append({"t": "foul", "player": 1 - seat, "die": die})
        for d in disturbed:
            self._recheck(d)

    def _knocked_off(self, die: str, reason: str | None, scorer: int) -> None:
        self._leave_play(die, "hand")
        points = self.dice[die].crew.points
        self._say(f"  {self._label(die)} is knocked off the table ({reason}): back to hand, "
                  f"P{scorer + 1} scores {points}")
        self._score(scorer, points)

    def _foul_choice(self, choice: str) -> None:
        after = self.stack[-1]
        die = after["die"]
        if choice == "allow":
            self._say("the foul is allowed")
        elif choice == "no_shot":
            after["shot"] = False
            self._say(f"the foul is punished: {self._label(die)} may not shoot")
        else:
            self._leave_play(die, "reserve")
            self._say(f"the foul is punished: {self._label(die)} goes to reserve")

    def _move(self, die: str, corner: str) -> None:
        crew = self.dice[die].crew
        result = self.table.tip(die, crew.corner_axis(self.side(die).number, corner))
        if not result.rolled:
            raise RulesError(f"{self._label(die)} cannot move over its {corner} corner "
                             f"(blocked by {result.blocked_by})")
        self.poses[die] = result.pose
        self._say(f"{self._label(die)} maneuvers over its {corner} corner to side "
                  f"{self.side(die).number}")
        self._recheck(die)

    def _shoot(self, action: Action) -> None:
        die, mode = action[1], action[2]
        seat = self.dice[die].seat
        side = self.side(die)
        target = action[3] if len(action) > 3 else None
        # A shot at one target uses the arrows whose range allows it; one without a target
        # is every all-range arrow at once.
        rng = "all" if target is None else "/".join(
            r for r, ts in self.range_targets(die, [target]).items() if target in ts)
        if mode in ("attack", "backstab"):
            targets = [target] if target else self.in_range(die, self.enemies(die), "all")
            what = "Backstab" if mode == "backstab" else (
                "Poison" if side.effect and side.effect.name == "Poison" else "attack")
            self._say(f"{self._label(die)} shoots ({what}, {rng} range) at "
                      f"{', '.join(self._label(t) for t in targets)}")
            for t in targets:
                if self.winner is not None:
                    break
                if t in self.poses:
                    self._hit(die, t, mode, None if target else "all")
        elif mode in ("repair", "confuse"):
            pool = self.allies(die) if mode == "repair" else self.enemies(die)
            targets = [target] if target else self.in_range(die, pool, "all")
            self._say(f"{self._label(die)} uses {mode.capitalize()} on "
                      f"{', '.join(self._label(t) for t in targets)}")
            for t in reversed(targets):
                if mode == "confuse" and self.immune(t, "purple"):
                    self._say(f"  {self._label(t)} is immune to purple")
                    continue
                self.stack.append({"t": "tip", "player": seat, "src": die, "target": t,
                                   "kind": mode})
        elif mode == "command":
            pool = [a for a in self.allies(die) if not self.immune(a, "dark blue")]
            order = self.in_range(die, pool)
            self._say(f"{self._label(die)} issues a Command: "
                      f"{', '.join(self._label(a) for a in order)}")
            self.stack.append({"t": "cmd", "player": seat, "src": die, "order": order, "idx": 0})
        elif mode == "jump":
            self._say(f"{self._label(die)} Jumps")
            self._leave_play(die, "hand")
            self.stack.append({"t": "throw", "player": seat, "dice": [die], "why": "jump"})
        elif mode == "call":
            self._say(f"{self._label(die)} Calls an Ally")
            self.stack.append({"t": "throw", "player": seat, "dice": self.hand(seat),
                               "why": "call"})
        else:
            raise AssertionError(f"unknown shot mode {mode!r}")

    def _hit(self, src: str, target: str, mode: str, rng: str | None = None) -> None:
        side = self.side(src)
        if mode == "backstab":
            assert side.effect is not None
            colour = side.effect.colour
            if self.sees(target, src):
                self._say(f"  {self._label(target)} sees the shooter: the Backstab has no effect")
                return
        else:
            colour = side.arrows[0].colour
        poison = side.effect is not None and side.effect.name == "Poison"
        if self.immune(target, colour):
            self._say(f"  {self._label(target)} is immune to {colour}")
            return
        self._damage(target, self.dice[src].seat, self.hit_value(src, target, mode, rng),
                     poison)

    def _damage(self, target: str, scorer: int, hit: int | None, poison: bool) -> None:
        """One shot's or counter's damage to `target` (rulebook, "Hit, Block, and Damage")."""
        side = self.side(target)
        block = self.block(target)
        label = self._label(target)
        if side.number == 1:
            self._kill(target, scorer, "on its side 1")
            return
        if self.held(target):
            self._kill(target, scorer, "frozen" if self.frozen(target) else "held")
            return
        if hit is not None and block is not None and hit >= block:
            self._kill(target, scorer, f"hit {hit} >= block {block}")
            return
        crew = self.dice[target].crew
        assert side.red is not None
        result = self.table.tip(target, crew.corner_axis(side.number, side.red))
        if not result.rolled:
            self._kill(target, scorer, f"pinned by {result.blocked_by}")
            return
        self.poses[target] = result.pose
        why = f"hit {hit} < block {block}" if hit is not None else "damage"
        self._say(f"  {label}: {why}, damaged to side {self.side(target).number}")
        if poison and target not in self.poison and not self.immune(target, "green"):
            self.poison[target] = scorer
            self._say(f"  {label} is poisoned")
        self._recheck(target)

    def _kill(self, target: str, scorer: int, why: str) -> None:
        points = self.dice[target].crew.points
        self._leave_play(target, "reserve")
        self._say(f"  {self._label(target)} is killed ({why}): P{scorer + 1} scores {points}")
        self._score(scorer, points)

    def _tip(self, task: dict[str, Any], corner: str) -> None:
        target = task["target"]
        crew = self.dice[target].crew
        result = self.table.tip(target, crew.corner_axis(self.side(target).number, corner))
        if not result.rolled:
            raise RulesError(f"{self._label(target)} cannot roll over its {corner} corner")
        self.poses[target] = result.pose
        verb = "repaired" if task["kind"] == "repair" else "confused"
        self._say(f"  {self._label(target)} is {verb} over its {corner} corner to side "
                  f"{self.side(target).number}")
        self._recheck(target)

    def _aim(self, task: dict[str, Any], target: str) -> None:
        """The owner's choice of a continuous effect's target, joined to the all-range
        targets it has anyway."""
        fixed = [t for t in task.get("fixed", []) if t in self.poses and t != target]
        self._set_targets(task["src"], fixed + [target])


def _spec_parts(values: Any) -> tuple[tuple[float, float, float], tuple[float, float, float],
                                      tuple[float, float, float],
                                      tuple[float, float, float, float]]:
    v = [float(x) for x in values]
    return ((v[0], v[1], v[2]), (v[3], v[4], v[5]), (v[6], v[7], v[8]),
            (v[9], v[10], v[11], v[12]))


def _xy(pose: DiePose) -> str:
    return f"({pose.position[0]:+.3f}, {pose.position[1]:+.3f}) m"
