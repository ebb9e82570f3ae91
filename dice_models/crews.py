"""Deep White Sea crews: dice whose eight sides carry arrows, shields, effects and dots.

The format is described in `dice_models/crews/FORMAT.md`. This module loads crew YAML,
validates it against the rulebook (`shared/rulebooks/deep-white-sea.txt`) and the geometry
of the paper d8 (DESIGN.md), and returns frozen dataclasses.

Corners. A face of the octahedron is a triangle with one corner on each body axis
(x, y, z). Authors name corners as they read them off a printed face held with the side
number upright: 'top', 'left', 'right'. The top corner of every face is the corner on the
z axis (the tip of the half-die it belongs to, so on the paper net every face reads upright
towards the tip of its half); 'left' and 'right' follow counter-clockwise seen from outside
(top -> left -> right). `corner_axis` / `axis_corner` translate, and `corner_uv` gives where
each corner sits in a face image (the art and the 3D renderer share these numbers).

Side numbers. By default side n sits on face n-1 of the Gray-code order (face i has the
sign vector of the Gray code of i, from `dice_models.geometry`, the one copy of the dice
geometry), so sides n and n-1 share an edge. A die may list its own `faces:` (face index of
sides 1..8); it is checked to keep every side n next to side n-1.
"""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dice_models import DataError, load_die, read_yaml
from dice_models.files import resolve_named
from dice_models.geometry import gray_sign_vector

CREWS_DIR = Path(__file__).parent / "crews"

CORNERS = ("top", "left", "right")
AXES = ("x", "y", "z")
RANGES = ("short", "long", "all")
# Rulebook, "Colors and Immunity". White is for shields only (no immunity); black is
# "no color" and never a shield's.
COLOURS = ("yellow", "red", "green", "ice blue", "dark blue", "purple", "black", "white")
ARROW_COLOURS = tuple(c for c in COLOURS if c != "white")
SHIELD_COLOURS = tuple(c for c in COLOURS if c != "black")
# The rulebook's five team colours (border colours of the printed dice). A crew of another
# team must give its own `border`.
TEAM_BORDERS = {
    "White": "#c9d3dc",
    "Green": "#2f8a3e",
    "Orange": "#ee8a1e",
    "Blue": "#2459b8",
    "Burgundy": "#7d1f3f",
}
DEFAULT_GEOMETRY = "paper-d8"
SIDES = tuple(range(1, 9))

HIT_RANGE = (1, 20)
BLOCK_RANGE = (1, 20)
POINTS_RANGE = (1, 50)
AMOUNT_RANGE = (1, 20)

# Where the corners of a face lie in its (square) face image, as (u, v) fractions of the
# width and height, u rightwards from the left edge, v downwards from the top edge
# (image rows). A renderer with bottom-up texture coordinates (Panda3D) uses 1 - v.
# The triangle fills the width less a 2% margin and is centred vertically.
_MARGIN = 0.02
_HEIGHT = (1 - 2 * _MARGIN) * 3**0.5 / 2
CORNER_UV: dict[str, tuple[float, float]] = {
    "top": (0.5, (1 - _HEIGHT) / 2),
    "left": (_MARGIN, (1 + _HEIGHT) / 2),
    "right": (1 - _MARGIN, (1 + _HEIGHT) / 2),
}


@dataclass(frozen=True)
class EffectRule:
    """What the rulebook says about one special effect.

    `arrow`: 'blank' (the effect is the shot; its arrow is blank), 'hit' (it rides on a
    numbered arrow: Poison, and the optional Backstab and Repair), 'continuous' ('C').
    `colour`: the colour the rulebook gives it; None where it is printed in any colour
    other than the arrow's (Backstab).
    """

    name: str
    arrows: tuple[str, ...]
    colour: str | None
    amount: bool  # takes a number: Backstab 7, Protection +2, Power Up +1
    targets: str  # 'allies', 'enemies', 'self' (Jump) or 'hand' (Call Ally)


EFFECTS: dict[str, EffectRule] = {
    r.name: r
    for r in (
        EffectRule("Command", ("blank",), "dark blue", False, "allies"),
        EffectRule("Repair", ("blank", "hit"), "black", False, "allies"),
        EffectRule("Confuse", ("blank",), "purple", False, "enemies"),
        EffectRule("Poison", ("hit",), "green", False, "enemies"),
        EffectRule("Call Ally", ("blank",), "black", False, "hand"),
        EffectRule("Jump", ("blank",), "black", False, "self"),
        EffectRule("Backstab", ("hit",), None, True, "enemies"),
        EffectRule("Hold", ("continuous",), "yellow", False, "enemies"),
        EffectRule("Freeze", ("continuous",), "ice blue", False, "enemies"),
        EffectRule("Protection", ("continuous",), "purple", True, "allies"),
        EffectRule("Power Up", ("continuous",), "purple", True, "allies"),
    )
}
SHOT_EFFECTS = tuple(n for n, r in EFFECTS.items() if "blank" in r.arrows)
CONTINUOUS_EFFECTS = tuple(n for n, r in EFFECTS.items() if "continuous" in r.arrows)
OPTIONAL_EFFECTS = ("Backstab", "Repair")  # beside a numbered arrow, "Optional Effects"
BACKSTAB_DEFAULT_COLOUR = "black"


@dataclass(frozen=True)
class Arrow:
    """A sight arrow in one corner. Exactly one of: `hit` (a number in the arrow), `effect`
    (a blank arrow whose shot is that effect), `continuous` ('C': the side's effect line
    names the continuous effect)."""

    corner: str
    range: str
    colour: str
    hit: int | None = None
    effect: str | None = None
    continuous: bool = False

    @property
    def label(self) -> str:
        """What is printed in the arrow: the hit, 'C', or nothing."""
        if self.hit is not None:
            return str(self.hit)
        return "C" if self.continuous else ""

    @property
    def kind(self) -> str:
        """'hit', 'blank' or 'continuous'."""
        if self.hit is not None:
            return "hit"
        return "continuous" if self.continuous else "blank"

    def to_json(self) -> dict[str, Any]:
        value: int | str = self.hit if self.hit is not None else (
            "C" if self.continuous else str(self.effect))
        return {"corner": self.corner, "range": self.range, "colour": self.colour, "value": value}


@dataclass(frozen=True)
class Shield:
    block: int
    colour: str  # white = no immunity; any other colour = immune to that colour

    @property
    def immunity(self) -> str | None:
        return None if self.colour == "white" else self.colour


@dataclass(frozen=True)
class Effect:
    """The side's effect line. `optional` is true when it is an option beside the arrow's
    hit (Backstab N, or Repair), printed in a colour other than the arrow's."""

    name: str
    colour: str
    amount: int | None = None
    optional: bool = False

    @property
    def continuous(self) -> bool:
        return self.name in CONTINUOUS_EFFECTS

    @property
    def text(self) -> str:
        if self.amount is None:
            return self.name
        sign = "" if self.name == "Backstab" else "+"
        return f"{self.name} {sign}{self.amount}"

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "colour": self.colour, "amount": self.amount,
                "optional": self.optional}


@dataclass(frozen=True)
class Side:
    number: int
    arrows: tuple[Arrow, ...]  # in corner order top, left, right (those present)
    shield: Shield | None  # None on side 1
    effect: Effect | None
    flavour: str
    green: tuple[str, ...]  # corners with a movement dot
    red: str | None  # corner of the damage dot; None on side 1

    def arrow_at(self, corner: str) -> Arrow | None:
        for a in self.arrows:
            if a.corner == corner:
                return a
        return None

    @property
    def omnidirectional(self) -> bool:
        return len(self.arrows) == 3

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "arrows": [a.to_json() for a in self.arrows],
            "shield": None if self.shield is None else {"block": self.shield.block,
                                                        "colour": self.shield.colour},
            "effect": None if self.effect is None else self.effect.to_json(),
            "flavour": self.flavour,
            "green": list(self.green),
            "red": self.red,
        }


@dataclass(frozen=True)
class CrewDie:
    """One Deep White Sea die. `faces[n-1]` is the geometry face index of side n."""

    name: str
    team: str
    die_class: str
    points: int
    geometry: str
    edge: float  # m, from the geometry model
    faces: tuple[int, ...]
    sides: tuple[Side, ...]  # sides[n-1] is side n
    border: str  # team border colour, '#rrggbb'
    source: str = "<inline>"

    @property
    def slug(self) -> str:
        return slugify(self.name)

    def side(self, number: int) -> Side:
        if number not in SIDES:
            raise ValueError(f"side must be 1..8, got {number!r}")
        return self.sides[number - 1]

    def face_of_side(self, number: int) -> int:
        return self.faces[number - 1]

    def side_on_face(self, face: int) -> int:
        return self.faces.index(face) + 1

    def corner_axis(self, number: int, corner: str) -> str:
        """The body axis ('x', 'y', 'z') of a side's author-named corner."""
        return corner_axis(self.face_of_side(number), corner)

    def axis_corner(self, number: int, axis: str) -> str:
        """The author name of the corner of side `number` that lies on body axis `axis`."""
        return axis_corner(self.face_of_side(number), axis)

    def axis_uv(self, number: int, axis: str) -> tuple[float, float]:
        """Where the corner of side `number` on body axis `axis` lies in that side's face
        image: (u, v) fractions, v from the top row (see CORNER_UV)."""
        return CORNER_UV[self.axis_corner(number, axis)]

    def neighbour(self, number: int, corner: str) -> int:
        """The side that comes up when the corner `corner` of side `number` (up) is pressed."""
        face = self.face_of_side(number)
        axis = AXES.index(corner_axis(face, corner))
        s = list(sign_vector(face))
        s[axis] = -s[axis]
        return self.side_on_face(face_of_sign(tuple(s)))

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "team": self.team, "class": self.die_class,
                "points": self.points}

    def to_full_json(self) -> dict[str, Any]:
        out = self.to_json()
        out.update({"geometry": self.geometry, "faces": list(self.faces),
                    "sides": [s.to_json() for s in self.sides]})
        return out


@dataclass(frozen=True)
class Crew:
    team: str
    border: str
    dice: tuple[CrewDie, ...]
    source: str = "<inline>"

    def die(self, name: str) -> CrewDie:
        return _find(self.dice, name, self.source)


# ---------------------------------------------------------------------------------------
# Geometry of the paper d8, as pure functions of the face index


def sign_vector(face: int) -> tuple[int, int, int]:
    """Sign vector of octahedron face `face` (0..7): the Gray code of the index."""
    if face not in range(8):
        raise ValueError(f"octahedron face must be 0..7, got {face!r}")
    return gray_sign_vector(face)


def face_of_sign(signs: tuple[int, ...]) -> int:
    for face in range(8):
        if sign_vector(face) == tuple(signs):
            return face
    raise ValueError(f"not an octahedron sign vector: {signs!r}")


def faces_adjacent(f: int, g: int) -> bool:
    return sum(a != b for a, b in zip(sign_vector(f), sign_vector(g), strict=True)) == 1


def corner_axis(face: int, corner: str) -> str:
    """Body axis of an author-named corner of geometry face `face`."""
    if corner not in CORNERS:
        raise ValueError(f"corner must be one of {', '.join(CORNERS)}, got {corner!r}")
    return _corner_axes(face)[corner]


def axis_corner(face: int, axis: str) -> str:
    if axis not in AXES:
        raise ValueError(f"axis must be x, y or z, got {axis!r}")
    for corner, ax in _corner_axes(face).items():
        if ax == axis:
            return corner
    raise AssertionError("unreachable: every face has one corner per axis")


def corner_uv(corner: str) -> tuple[float, float]:
    return CORNER_UV[corner]


def _corner_axes(face: int) -> dict[str, str]:
    # Seen from outside, the corners (sx*X, sy*Y, sz*Z) run counter-clockwise in the order
    # x, y, z when sx*sy*sz > 0 (their determinant is positive), else x, z, y. Top is z;
    # left and right follow it counter-clockwise.
    sx, sy, sz = sign_vector(face)
    if sx * sy * sz > 0:
        return {"top": "z", "left": "x", "right": "y"}
    return {"top": "z", "left": "y", "right": "x"}


# ---------------------------------------------------------------------------------------
# Loading


def available_crews() -> list[str]:
    return sorted(p.stem for p in CREWS_DIR.glob("*.yaml"))


@functools.cache
def load_crews() -> tuple[Crew, ...]:
    """Every shipped crew, checked together for unique die names (read once per process:
    the values are frozen)."""
    crews = tuple(load_crew_file(CREWS_DIR / f"{name}.yaml") for name in available_crews())
    seen: dict[str, str] = {}
    for crew in crews:
        for die in crew.dice:
            key = die.name.casefold()
            if key in seen:
                raise DataError(crew.source, f"die {die.name!r}: name",
                                f"the name is already used in {seen[key]}", die.name)
            seen[key] = crew.source
    return crews


def all_dice() -> tuple[CrewDie, ...]:
    return tuple(d for crew in load_crews() for d in crew.dice)


def find_die(name: str) -> CrewDie:
    """A shipped crew die by name or slug (case-insensitive), with a did-you-mean."""
    return _find(all_dice(), name, "crews")


def load_crew(team_or_path: str | Path) -> Crew:
    """A shipped crew by team name (any case), or a crew YAML file by path."""
    return load_crew_file(resolve_named(team_or_path, CREWS_DIR, "crew", lower=True))


def load_crew_file(path: str | Path) -> Crew:
    """A crew file (`team` + `dice`) or a file holding one die (with its own `team`)."""
    data = read_yaml(path)
    return parse_crew(data, str(path))


def parse_crew(data: Any, source: str = "<inline>") -> Crew:
    if not isinstance(data, dict):
        raise DataError(source, "(top level)", "expected a mapping with 'team' and 'dice', "
                        "or one die", type(data).__name__)
    if "dice" not in data:  # a file holding one die
        team, border = _team(source, "team", data.get("team"), data.get("border"))
        die = _parse_die(source, data, 0, team, border, single=True)
        return Crew(team=team, border=border, dice=(die,), source=source)
    _no_unknown(source, "(top level)", data, ("team", "border", "dice"))
    team, border = _team(source, "team", data.get("team"), data.get("border"))
    raw_dice = data["dice"]
    if not isinstance(raw_dice, list) or not raw_dice:
        raise DataError(source, "dice", "must be a non-empty list of dice", raw_dice)
    dice = tuple(_parse_die(source, d, i, team, border, single=False)
                 for i, d in enumerate(raw_dice))
    names: set[str] = set()
    for d in dice:
        if d.name.casefold() in names:
            raise DataError(source, f"die {d.name!r}: name", "two dice have this name", d.name)
        names.add(d.name.casefold())
    return Crew(team=team, border=border, dice=dice, source=source)


def slugify(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")


# ---------------------------------------------------------------------------------------
# Helpers


_DIE_KEYS = ("name", "team", "border", "class", "points", "geometry", "faces", "sides")
_SIDE_KEYS = ("arrows", "shield", "effect", "flavour", "green", "red")


def _find(dice: tuple[CrewDie, ...], name: str, source: str) -> CrewDie:
    key = name.casefold()
    for d in dice:
        if d.name.casefold() == key or d.slug == slugify(name):
            return d
    names = [d.name for d in dice]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    if not close:
        by_slug = {d.slug: d.name for d in dice}
        slugs = difflib.get_close_matches(slugify(name), list(by_slug), n=1, cutoff=0.5)
        close = [by_slug[s] for s in slugs]
    hint = f"; did you mean {close[0]!r}?" if close else "; see `tabletop dice list`"
    raise DataError(source, "die", f"unknown die {name!r}{hint}", show_value=False)


def _team(source: str, where: str, team: Any, border: Any) -> tuple[str, str]:
    if not isinstance(team, str) or not team.strip():
        raise DataError(source, where, "must name the team (White, Green, Orange, Blue, "
                        "Burgundy or your own with a 'border' colour)", team)
    if border is not None:
        if not isinstance(border, str) or not re.fullmatch(r"#[0-9a-fA-F]{6}", border):
            raise DataError(source, "border", "must be a colour '#rrggbb'", border)
        return team, border.lower()
    if team in TEAM_BORDERS:
        return team, TEAM_BORDERS[team]
    close = difflib.get_close_matches(team, list(TEAM_BORDERS), n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    raise DataError(source, where, f"unknown team; {hint}a team of your own needs a "
                    "'border' colour '#rrggbb'", team)


def _no_unknown(source: str, where: str, data: dict[Any, Any], known: tuple[str, ...]) -> None:
    for key in data:
        if key not in known:
            close = difflib.get_close_matches(str(key), known, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f"; known: {', '.join(known)}"
            raise DataError(source, f"{where}: {key}", f"unknown field{hint}", show_value=False)


def _parse_die(source: str, data: Any, index: int, team: str, border: str,
               single: bool) -> CrewDie:
    if not isinstance(data, dict):
        raise DataError(source, f"dice[{index}]", "must be a mapping of die fields",
                        type(data).__name__)
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise DataError(source, f"dice[{index}]: name", "must be a non-empty string", name)
    where = f"die {name!r}"
    _no_unknown(source, where, data, _DIE_KEYS)
    if not single and "team" in data and data["team"] != team:
        raise DataError(source, f"{where}: team", f"a die of the {team} crew must be on team "
                        f"{team}", data["team"])
    if not single and "border" in data:
        raise DataError(source, f"{where}: border", "the border colour is the crew's; set it "
                        "beside 'team' at the top", data["border"])
    die_class = data.get("class")
    if not isinstance(die_class, str) or not die_class.strip():
        raise DataError(source, f"{where}: class", "must be a non-empty string", die_class)
    points = _int_in(source, f"{where}: points", data.get("points"), POINTS_RANGE)
    geometry, edge = _geometry(source, where, data.get("geometry", DEFAULT_GEOMETRY))
    faces = _faces(source, where, data.get("faces"))
    raw_sides = data.get("sides")
    if not isinstance(raw_sides, dict):
        raise DataError(source, f"{where}: sides", "must map side numbers 1..8 to sides",
                        type(raw_sides).__name__)
    for key in raw_sides:
        if key not in SIDES:
            raise DataError(source, f"{where}: sides", "side numbers run 1..8", key)
    for n in SIDES:
        if n not in raw_sides:
            raise DataError(source, f"{where}: side {n}", "is missing (every die has sides 1..8)",
                            show_value=False)
    sides = tuple(_parse_side(source, f"{where} side {n}", n, raw_sides[n]) for n in SIDES)
    for n in SIDES[1:]:
        _check_red(source, f"{where} side {n}: red", faces, n, sides[n - 1].red)
    return CrewDie(name=name.strip(), team=team, die_class=die_class.strip(), points=points,
                   geometry=geometry, edge=edge, faces=faces, sides=sides, border=border,
                   source=source)


def _geometry(source: str, where: str, raw: Any) -> tuple[str, float]:
    if not isinstance(raw, str):
        raise DataError(source, f"{where}: geometry", "must name a die geometry such as "
                        f"{DEFAULT_GEOMETRY}", raw)
    model = load_die(raw)
    if model.geometry.get("kind") != "octahedron":
        raise DataError(source, f"{where}: geometry", "a Deep White Sea die must be an "
                        "octahedron", raw)
    return raw, float(model.geometry["edge"])


def _faces(source: str, where: str, raw: Any) -> tuple[int, ...]:
    if raw is None:
        return tuple(range(8))
    if (not isinstance(raw, list) or sorted(raw) != list(range(8))
            or not all(isinstance(f, int) and not isinstance(f, bool) for f in raw)):
        raise DataError(source, f"{where}: faces", "must list the face index (0..7) of sides "
                        "1..8, each once", raw)
    for n in range(2, 9):
        if not faces_adjacent(raw[n - 1], raw[n - 2]):
            raise DataError(source, f"{where}: faces", f"side {n} (face {raw[n - 1]}) does not "
                            f"share an edge with side {n - 1} (face {raw[n - 2]})", raw)
    return tuple(raw)


def _parse_side(source: str, where: str, n: int, data: Any) -> Side:
    if not isinstance(data, dict):
        raise DataError(source, where, "must be a mapping of side fields", type(data).__name__)
    _no_unknown(source, where, data, _SIDE_KEYS)
    arrows_raw = data.get("arrows") or {}
    if not isinstance(arrows_raw, dict):
        raise DataError(source, f"{where}: arrows", "must map corners (top, left, right) to "
                        "arrows", arrows_raw)
    for corner in arrows_raw:
        _corner(source, f"{where}: arrows", corner)
    arrows = tuple(_parse_arrow(source, f"{where}: arrows.{c}", c, arrows_raw[c])
                   for c in CORNERS if c in arrows_raw)
    if len({a.colour for a in arrows}) > 1:
        raise DataError(source, f"{where}: arrows", "the arrows of one side share one colour",
                        sorted({a.colour for a in arrows}))
    if len({(a.kind, a.effect) for a in arrows}) > 1:
        raise DataError(source, f"{where}: arrows", "the arrows of one side are all numbers, "
                        "all the same effect, or all C", [a.label or a.effect for a in arrows])
    shield = _parse_shield(source, f"{where}: shield", n, data.get("shield"))
    effect = _parse_effect(source, f"{where}: effect", data.get("effect"), arrows)
    flavour = data.get("flavour", "")
    if flavour is None:
        flavour = ""
    if not isinstance(flavour, str):
        raise DataError(source, f"{where}: flavour", "must be text", flavour)
    green_raw = data.get("green") or []
    if isinstance(green_raw, str):
        green_raw = [green_raw]
    if not isinstance(green_raw, list):
        raise DataError(source, f"{where}: green", "must list corners (top, left, right)",
                        green_raw)
    for c in green_raw:
        _corner(source, f"{where}: green", c)
    if len(set(green_raw)) != len(green_raw):
        raise DataError(source, f"{where}: green", "lists a corner twice", green_raw)
    green = tuple(c for c in CORNERS if c in green_raw)
    red = data.get("red")
    if n == 1:
        if red is not None:
            raise DataError(source, f"{where}: red", "side 1 has no damage dot", red)
    else:
        if red is None:
            raise DataError(source, f"{where}: red", "sides 2..8 need a damage dot corner",
                            red)
        _corner(source, f"{where}: red", red)
        if red in green:
            raise DataError(source, f"{where}: green", "a corner holds one dot: the red dot is "
                            "already there", red)
    return Side(number=n, arrows=arrows, shield=shield, effect=effect, flavour=flavour.strip(),
                green=green, red=red)


def _corner(source: str, where: str, corner: Any) -> str:
    if corner not in CORNERS:
        close = difflib.get_close_matches(str(corner), CORNERS, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise DataError(source, where, f"unknown corner; {hint}corners are top, left, right "
                        "(side number upright)", corner)
    return str(corner)


def _parse_arrow(source: str, where: str, corner: str, raw: Any) -> Arrow:
    if isinstance(raw, str):
        raw = _split_arrow_text(source, where, raw)
    if not isinstance(raw, dict):
        raise DataError(source, where, "must be 'RANGE COLOUR VALUE' or a mapping with range, "
                        "colour, value", raw)
    _no_unknown(source, where, raw, ("range", "colour", "value"))
    rng = _choice(source, f"{where}.range", raw.get("range"), RANGES)
    colour = _colour(source, f"{where}.colour", raw.get("colour"), ARROW_COLOURS,
                     "white is for shields only")
    value = raw.get("value")
    if isinstance(value, int) and not isinstance(value, bool):
        hit = _int_in(source, f"{where}.value", value, HIT_RANGE)
        return Arrow(corner, rng, colour, hit=hit)
    if value == "C":
        return Arrow(corner, rng, colour, continuous=True)
    if isinstance(value, str) and value in SHOT_EFFECTS:
        rule = EFFECTS[value]
        if colour != rule.colour:
            raise DataError(source, f"{where}.colour", f"{value} is {rule.colour} in the "
                            "rulebook", colour)
        return Arrow(corner, rng, colour, effect=value)
    options = [*SHOT_EFFECTS, "C"]
    close = difflib.get_close_matches(str(value), options, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    if isinstance(value, str) and value in EFFECTS:
        hint = f"{value} is not a shot with a blank arrow; "
    raise DataError(source, f"{where}.value", f"must be a hit {HIT_RANGE[0]}..{HIT_RANGE[1]}, "
                    f"C, or one of {', '.join(SHOT_EFFECTS)}; {hint}".rstrip("; "), value)


def _split_arrow_text(source: str, where: str, text: str) -> dict[str, Any]:
    words = text.split()
    if len(words) < 3:
        raise DataError(source, where, "must read 'RANGE COLOUR VALUE', e.g. 'long yellow 4'",
                        text)
    rng, rest = words[0], words[1:]
    for n_colour in (2, 1):  # two-word colours first: 'ice blue', 'dark blue'
        colour = " ".join(rest[:n_colour])
        if colour in COLOURS and len(rest) > n_colour:
            value_text = " ".join(rest[n_colour:])
            value: Any = int(value_text) if re.fullmatch(r"-?\d+", value_text) else value_text
            return {"range": rng, "colour": colour, "value": value}
    return {"range": rng, "colour": rest[0], "value": " ".join(rest[1:])}


def _parse_shield(source: str, where: str, n: int, raw: Any) -> Shield | None:
    if n == 1:
        if raw is not None:
            raise DataError(source, where, "side 1 has no shield (no block value)", raw)
        return None
    if raw is None:
        raise DataError(source, where, "sides 2..8 need a shield", raw)
    if isinstance(raw, int) and not isinstance(raw, bool):
        raw = {"block": raw, "colour": "white"}
    elif isinstance(raw, str):
        words = raw.split(maxsplit=1)
        if not words or not re.fullmatch(r"-?\d+", words[0]):
            raise DataError(source, where, "must read 'BLOCK COLOUR', e.g. '5 white'", raw)
        raw = {"block": int(words[0]), "colour": words[1] if len(words) > 1 else "white"}
    if not isinstance(raw, dict):
        raise DataError(source, where, "must be 'BLOCK COLOUR' or {block, colour}", raw)
    _no_unknown(source, where, raw, ("block", "colour"))
    block = _int_in(source, f"{where}.block", raw.get("block"), BLOCK_RANGE)
    colour = _colour(source, f"{where}.colour", raw.get("colour", "white"), SHIELD_COLOURS,
                     "black is no colour; a shield without immunity is white")
    return Shield(block=block, colour=colour)


def _parse_effect(source: str, where: str, raw: Any, arrows: tuple[Arrow, ...]) -> Effect | None:
    kinds = {a.kind for a in arrows}
    arrow_colour = arrows[0].colour if arrows else None
    blank_effect = next((a.effect for a in arrows if a.effect is not None), None)
    if raw is None:
        if blank_effect is not None:  # the effect line of a blank arrow names its shot
            assert arrow_colour is not None
            return Effect(blank_effect, arrow_colour)
        if "continuous" in kinds:
            raise DataError(source, where, "a C arrow needs an effect line naming the "
                            f"continuous effect ({', '.join(CONTINUOUS_EFFECTS)})", raw)
        if arrow_colour == "green":
            raise DataError(source, where, "a green shot is a Poison shot: its effect line "
                            "must say Poison", raw)
        return None
    if isinstance(raw, str):
        m = re.fullmatch(r"(.*?)(?:\s+\+?(-?\d+))?", raw.strip())
        assert m is not None
        raw = {"name": m.group(1)}
        if m.group(2) is not None:
            raw["amount"] = int(m.group(2))
    if not isinstance(raw, dict):
        raise DataError(source, where, "must be an effect name (with its number) or "
                        "{name, amount, colour}", raw)
    _no_unknown(source, where, raw, ("name", "amount", "colour"))
    name = raw.get("name")
    if name not in EFFECTS:
        close = difflib.get_close_matches(str(name), list(EFFECTS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise DataError(source, f"{where}.name", f"unknown effect{hint} (the rulebook's: "
                        f"{', '.join(EFFECTS)})", name)
    rule = EFFECTS[name]
    amount = raw.get("amount")
    if rule.amount:
        amount = _int_in(source, f"{where}.amount", amount, AMOUNT_RANGE)
    elif amount is not None:
        raise DataError(source, f"{where}.amount", f"{name} takes no number", amount)
    default_colour = rule.colour or BACKSTAB_DEFAULT_COLOUR
    colour = _colour(source, f"{where}.colour", raw.get("colour", default_colour),
                     ARROW_COLOURS, "white is for shields only")
    if rule.colour is not None and colour != rule.colour:
        raise DataError(source, f"{where}.colour", f"{name} is {rule.colour} in the rulebook",
                        colour)
    if not arrows:
        raise DataError(source, where, f"{name} needs a sight arrow to shoot with", name)
    optional = _rides_on(source, where, name, colour, amount, arrows)
    return Effect(name=name, colour=colour, amount=amount, optional=optional)


def _rides_on(source: str, where: str, name: str, colour: str, amount: int | None,
              arrows: tuple[Arrow, ...]) -> bool:
    """Check effect `name` against the arrows it rides on (blank, continuous or numbered):
    True when it is an optional effect (printed in a colour other than its arrow's)."""
    kinds = {a.kind for a in arrows}
    arrow_colour = arrows[0].colour
    blank_effect = next((a.effect for a in arrows if a.effect is not None), None)
    kind = next(iter(kinds))
    optional = False
    if kind == "blank":
        if name != blank_effect:
            raise DataError(source, f"{where}.name", f"the blank arrows shoot {blank_effect}; "
                            "the effect line must name the same effect", name)
    elif kind == "continuous":
        if name not in CONTINUOUS_EFFECTS:
            raise DataError(source, f"{where}.name", "a C arrow needs a continuous effect "
                            f"({', '.join(CONTINUOUS_EFFECTS)})", name)
        if colour != arrow_colour:
            raise DataError(source, f"{where}.colour", f"the C arrow is {arrow_colour}; its "
                            f"effect {name} is {colour}", colour)
    else:  # numbered arrows
        if name == "Poison":
            if arrow_colour != "green":
                raise DataError(source, f"{where}.name", "Poison shots are green: the arrows "
                                "must be green", arrow_colour)
        elif name in OPTIONAL_EFFECTS:
            if colour == arrow_colour:
                raise DataError(source, f"{where}.colour", f"an optional {name} is printed in "
                                "a colour other than its arrow's", colour)
            optional = True
            if name == "Backstab":
                top_hit = max(a.hit or 0 for a in arrows)
                if amount is not None and amount <= top_hit:
                    raise DataError(source, f"{where}.amount", "Backstab is always larger than "
                                    f"the basic hit ({top_hit})", amount)
        else:
            raise DataError(source, f"{where}.name", f"{name} cannot ride on a numbered arrow; "
                            f"use a {'C' if name in CONTINUOUS_EFFECTS else 'blank'} arrow",
                            name)
        if arrow_colour == "green" and name != "Poison":
            raise DataError(source, f"{where}.name", "a green shot is a Poison shot: its "
                            "effect line must say Poison", name)
    return optional


def _check_red(source: str, where: str, faces: tuple[int, ...], n: int, red: str | None) -> None:
    assert red is not None
    face, below = faces[n - 1], faces[n - 2]
    differ = [AXES[k] for k in range(3) if sign_vector(face)[k] != sign_vector(below)[k]]
    assert len(differ) == 1  # _faces checked adjacency
    want = axis_corner(face, differ[0])
    if red != want:
        s = list(sign_vector(face))
        k = AXES.index(corner_axis(face, red))
        s[k] = -s[k]
        lands = faces.index(face_of_sign(tuple(s))) + 1
        raise DataError(source, where, f"the damage dot must point across the edge shared with "
                        f"side {n - 1}, at the {want!r} corner; at {red!r} it rolls to side "
                        f"{lands}", red)


def _choice(source: str, where: str, value: Any, options: tuple[str, ...]) -> str:
    if value not in options:
        close = difflib.get_close_matches(str(value), options, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise DataError(source, where, f"{hint}must be one of {', '.join(options)}", value)
    return str(value)


def _colour(source: str, where: str, value: Any, allowed: tuple[str, ...], note: str) -> str:
    if isinstance(value, str):
        value = " ".join(value.lower().split())
    if value in COLOURS and value not in allowed:
        raise DataError(source, where, note, value)
    if value not in allowed:
        close = difflib.get_close_matches(str(value), allowed, n=1)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise DataError(source, where, f"unknown colour; {hint}colours are "
                        f"{', '.join(allowed)}", value)
    return str(value)


def _int_in(source: str, where: str, value: Any, bounds: tuple[int, int]) -> int:
    lo, hi = bounds
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise DataError(source, where, f"must be a whole number {lo}..{hi}", value)
    return int(value)
