"""DiceWar tribes as data: six creatures, power levels 1 to 6, each with a movement, a
spell and a speciality, loaded from YAML and validated.

The creature cards are not in the book, so the project authors its tribes
(`rules/dicewar/tribes/*.yaml`, format in `rules/dicewar/tribes/README.md`). The engine
implements a small vocabulary of movement patterns, spell kinds and speciality kinds;
a tribe chooses from it and sets the parameters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from rules.core.datafile import (
    check_keys,
    data_error,
    load_yaml,
    need_choice,
    need_int,
    need_str,
    resolve_data_file,
)

TRIBES_DIR = Path(__file__).parent / "tribes"

# Movement patterns: the directions a creature moves and attacks in.
PATTERNS = ("orthogonal", "diagonal", "surrounding", "knight")

# Spell kinds and the parameters each takes (name -> (default, lo, hi)).
SPELLS: dict[str, dict[str, tuple[Any, int, int]]] = {
    # Bring one reserve die into play at `power`, on an empty field next to the caster
    # (`place: adjacent`) or anywhere empty in the caster's own Supply Zone.
    "summon": {"power": (1, 1, 6), "cost": (0, 0, 10)},
    # Move the trigger-point indicator up by `amount`.
    "charge": {"amount": (1, 1, 10)},
    # Spend trigger points equal to the target's power to defeat an opposing creature
    # within `range` (surrounding distance).
    "bolt": {"range": (2, 1, 6)},
    # Spend `cost` trigger points to upgrade a friendly creature next to the caster.
    "reinforce": {"cost": (1, 0, 10)},
    # Return one of your dice from Exile to the Reserve and gain `amount` trigger points.
    "recall": {"amount": (1, 0, 10)},
    # Spend `cost` trigger points to turn an opposing creature within `range` down one level.
    "weaken": {"cost": (2, 0, 10), "range": (1, 1, 6)},
}
SUMMON_PLACES = ("adjacent", "supply_zone")

# Speciality kinds (passive) and their parameters.
SPECIALITIES: dict[str, dict[str, tuple[Any, int, int]]] = {
    # Defeated, this creature goes back to the Reserve instead of the Exile.
    "return_to_reserve": {},
    # Opposing spells cannot target this creature.
    "immune_spells": {},
    # Gain `amount` trigger points whenever this creature defeats a creature.
    "trigger_on_kill": {"amount": (1, 1, 10)},
    # When this creature is defeated, its owner gains `amount` trigger points.
    "trigger_on_loss": {"amount": (2, 1, 10)},
    # Friendly creatures next to this one cannot be targeted by opposing spells.
    "guardian": {},
    # Opposing creatures next to this one cannot move away (they may still attack).
    "threatening": {},
    # The glossary's three further icons and terms:
    # "Immune against opposing Attacks": no opposing creature may attack it (spells may
    # still reach it, unless it is also kept from them).
    "immune_attacks": {},
    # "Immune against opposing Specialities": no opposing speciality acts on it: a
    # `threatening` creature does not hold it, and an opposing `trigger_on_kill` creature
    # gains nothing for defeating it. Opposing creatures' own protections (immunities,
    # `guardian`) and what happens to them (`return_to_reserve`, `trigger_on_loss`) still
    # hold, since they act on their owner's creatures, not on this one.
    "immune_specialities": {},
    # "Virtual Victory Points are counted the same way as gained Victory Points in combat.
    # However, they are not displayed on the Victory Points Bar.": while this creature is
    # in the Warlands its owner counts `amount` virtual victory points toward the 10.
    "virtual_vp": {"amount": (1, 1, 9)},
}

TP_MAX = 10  # top of the trigger-points bar


@dataclass(frozen=True)
class Movement:
    pattern: str
    range: int = 1
    jump: bool = False  # passes over occupied fields (sliding patterns only)


@dataclass(frozen=True)
class Ability:
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    def get(self, name: str) -> Any:
        return self.params[name]


@dataclass(frozen=True)
class Creature:
    power: int
    name: str
    story: str
    movement: Movement
    spell: Ability | None
    speciality: Ability | None


@dataclass(frozen=True)
class Tribe:
    name: str
    description: str
    creatures: tuple[Creature, ...]  # index power-1
    source: str = "<inline>"
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    def creature(self, power: int) -> Creature:
        return self.creatures[power - 1]

    @cached_property
    def virtual_vp_by_power(self) -> tuple[int, ...]:
        """Virtual victory points a creature of each power (index 1..6) counts for its
        owner while in the Warlands; index 0 is unused. Cached: the engine asks at every
        end of turn and the bots at every judged position."""
        return (0, *(int(c.speciality.get("amount"))
                     if c.speciality is not None and c.speciality.kind == "virtual_vp" else 0
                     for c in self.creatures))


def available() -> list[str]:
    return sorted(p.stem for p in TRIBES_DIR.glob("*.yaml"))


def load_tribe(name_or_path: str) -> Tribe:
    """A shipped tribe by name, or a tribe YAML file by path."""
    path = resolve_data_file(name_or_path, TRIBES_DIR, "tribe")
    return parse_tribe(load_yaml(path), str(path))


def parse_tribe(data: Any, source: str = "<inline>") -> Tribe:
    if not isinstance(data, dict):
        raise data_error(source, "(top level)", "expected a mapping with name and creatures",
                         type(data).__name__)
    check_keys(source, "", data, ("name", "description", "creatures"))
    name = need_str(source, "name", data.get("name"))
    description = str(data.get("description", ""))
    raw = data.get("creatures")
    if not isinstance(raw, list) or len(raw) != 6:
        raise data_error(source, "creatures", "must list exactly six creatures",
                         len(raw) if isinstance(raw, list) else raw)
    creatures = [_parse_creature(source, f"creatures[{i}]", c) for i, c in enumerate(raw)]
    powers = sorted(c.power for c in creatures)
    if powers != [1, 2, 3, 4, 5, 6]:
        raise data_error(source, "creatures", "power levels must be 1 to 6, once each", powers)
    creatures.sort(key=lambda c: c.power)
    if not any(c.spell is not None and c.spell.kind == "summon" for c in creatures):
        raise data_error(source, "creatures", "at least one spell must bring reserve dice "
                         "into play (kind: summon), or the Reserve is never used",
                         show_value=False)
    return Tribe(name=name, description=description, creatures=tuple(creatures),
                 source=source, raw=data)


def _parse_creature(source: str, where: str, data: Any) -> Creature:
    if not isinstance(data, dict):
        raise data_error(source, where, "must be a mapping", data)
    check_keys(source, where, data, ("power", "name", "story", "movement", "spell",
                                     "speciality"))
    power = need_int(source, f"{where}.power", data.get("power"), 1, 6)
    name = need_str(source, f"{where}.name", data.get("name"))
    mv = data.get("movement")
    if not isinstance(mv, dict):
        raise data_error(source, f"{where}.movement", "must be a mapping with a pattern", mv)
    check_keys(source, f"{where}.movement", mv, ("pattern", "range", "jump"))
    pattern = need_choice(source, f"{where}.movement.pattern", mv.get("pattern"), PATTERNS)
    rng = need_int(source, f"{where}.movement.range", mv.get("range", 1), 1, 6)
    jump = mv.get("jump", False)
    if not isinstance(jump, bool):
        raise data_error(source, f"{where}.movement.jump", "must be true or false", jump)
    if pattern == "knight" and (rng != 1 or jump):
        raise data_error(source, f"{where}.movement", "a knight pattern takes no range or jump",
                         mv)
    for key in ("spell", "speciality"):
        if key not in data:
            raise data_error(source, f"{where}.{key}", "is required (use 'none' for none)",
                             show_value=False)
    spell = _parse_ability(source, f"{where}.spell", data["spell"], SPELLS)
    if spell is not None and spell.kind == "summon":
        place = need_choice(source, f"{where}.spell.place",
                            data["spell"].get("place", "adjacent"), SUMMON_PLACES)
        spell = Ability(spell.kind, {**spell.params, "place": place}, spell.text)
    speciality = _parse_ability(source, f"{where}.speciality", data["speciality"], SPECIALITIES)
    return Creature(power=power, name=name, story=str(data.get("story", "")),
                    movement=Movement(pattern, rng, jump), spell=spell, speciality=speciality)


def _parse_ability(source: str, where: str, data: Any,
                   kinds: dict[str, dict[str, tuple[Any, int, int]]]) -> Ability | None:
    if data == "none" or data is None:
        return None
    if not isinstance(data, dict):
        raise data_error(source, where, "must be a mapping with a kind, or 'none'", data)
    kind = need_choice(source, f"{where}.kind", data.get("kind"), kinds)
    spec = kinds[kind]
    extra = ("place",) if kind == "summon" else ()
    check_keys(source, where, data, ("kind", "text", *spec, *extra))
    params = {}
    for pname, (default, lo, hi) in spec.items():
        params[pname] = need_int(source, f"{where}.{pname}", data.get(pname, default), lo, hi)
    return Ability(kind=kind, params=params, text=str(data.get("text", "")))
