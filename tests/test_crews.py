"""Deep White Sea crew data: loading, validation, corner naming and geometry agreement."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from dice_models import DataError
from dice_models.crews import (
    AXES,
    CONTINUOUS_EFFECTS,
    CORNER_UV,
    CORNERS,
    EFFECTS,
    RANGES,
    SHOT_EFFECTS,
    TEAM_BORDERS,
    all_dice,
    axis_corner,
    corner_axis,
    find_die,
    load_crew_file,
    load_crews,
    sign_vector,
)
from dice_models.geometry import gray_sign_vector, octahedron, octahedron_corner_vertex

POLY = octahedron(0.05)
AXIS_INDEX = {a: i for i, a in enumerate(AXES)}


# --- the shipped crews ---------------------------------------------------------------


def test_five_crews_of_five_dice_validate() -> None:
    crews = load_crews()
    assert sorted(c.team for c in crews) == sorted(TEAM_BORDERS)
    for crew in crews:
        assert len(crew.dice) == 5, crew.team
        for die in crew.dice:
            assert die.team == crew.team
            assert [s.number for s in die.sides] == list(range(1, 9))


def test_crews_cover_every_range_and_effect_of_the_rulebook() -> None:
    dice = all_dice()
    ranges = {a.range for d in dice for s in d.sides for a in s.arrows}
    assert ranges == set(RANGES)
    effects = {(s.effect.name, s.effect.optional) for d in dice for s in d.sides if s.effect}
    for name in EFFECTS:
        assert any(n == name for n, _opt in effects), name
    assert ("Repair", True) in effects and ("Repair", False) in effects
    assert ("Backstab", True) in effects
    assert any(s.omnidirectional for d in dice for s in d.sides)
    shields = {s.shield.colour for d in dice for s in d.sides if s.shield}
    assert {"white", "green", "purple"} <= shields
    # a poison-immune robot and a purple-immune die: immune on every side that has a shield
    def immune_all(d: Any, colour: str) -> bool:
        return all(s.shield.colour == colour for s in d.sides[1:])
    assert any(immune_all(d, "green") and "robot" in (d.die_class + d.name).lower()
               for d in dice)
    assert any(immune_all(d, "purple") for d in dice)


def test_stronger_sides_have_higher_numbers() -> None:
    for die in all_dice():
        blocks = [s.shield.block for s in die.sides[1:]]
        assert blocks == sorted(blocks), die.name
        hits = [max(a.hit for a in s.arrows) for s in die.sides
                if s.arrows and s.arrows[0].hit is not None]
        assert hits == sorted(hits), die.name


def test_points_follow_power_within_each_crew() -> None:
    for crew in load_crews():
        ranked = sorted(crew.dice, key=_power)
        assert [d.points for d in ranked] == sorted(d.points for d in crew.dice), (
            crew.team, [(d.name, round(_power(d), 1), d.points) for d in ranked])


def _power(die: Any) -> float:
    """A rough strength of a die: what its sides hit or do, and how well they block.
    Effects are valued as hits: a base worth plus a worth per point of their number."""
    range_weight = {"short": 1.0, "long": 1.3, "all": 1.6}
    worth = {"Command": (5, 0), "Repair": (2.5, 0), "Confuse": (2.5, 0), "Call Ally": (3, 0),
             "Jump": (2, 0), "Hold": (3, 0), "Freeze": (4.5, 0), "Protection": (1.5, 1.5),
             "Power Up": (1.5, 1.5), "Poison": (1.5, 0), "Backstab": (0, 0.25)}
    total = 0.0
    for s in die.sides:
        for a in s.arrows:
            value = float(a.hit or 0)
            if s.effect is not None:
                base, per_point = worth[s.effect.name]
                value += base + per_point * (s.effect.amount or 0)
            total += value * range_weight[a.range]
        if s.shield is not None:
            total += s.shield.block * (1.0 if s.shield.colour == "white" else 1.2)
    return total


def test_find_die_by_name_or_slug_and_did_you_mean() -> None:
    die = all_dice()[0]
    assert find_die(die.name.upper()) == die
    assert find_die(die.slug) == die
    with pytest.raises(DataError, match="did you mean"):
        find_die(die.name[:-2])


# --- corners and geometry --------------------------------------------------------------


def test_sign_vectors_match_the_geometry_package() -> None:
    for face in range(8):
        assert sign_vector(face) == gray_sign_vector(face) == POLY.sign_vectors[face]


def test_corners_run_counter_clockwise_seen_from_outside() -> None:
    for face in range(8):
        verts = [octahedron_corner_vertex(POLY, face, AXIS_INDEX[corner_axis(face, c)])
                 for c in CORNERS]
        ccw = list(POLY.faces[face])  # the geometry lists faces counter-clockwise from outside
        k = ccw.index(verts[0])
        assert verts == ccw[k:] + ccw[:k], face
        assert corner_axis(face, "top") == "z"
        for c in CORNERS:
            assert axis_corner(face, corner_axis(face, c)) == c


def test_image_corners_run_counter_clockwise_on_screen() -> None:
    (x0, y0), (x1, y1), (x2, y2) = (CORNER_UV[c] for c in CORNERS)
    # v grows downwards, so counter-clockwise on screen is a negative signed area in (u, v)
    assert (x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0) < 0
    sides = [np.hypot(CORNER_UV[a][0] - CORNER_UV[b][0], CORNER_UV[a][1] - CORNER_UV[b][1])
             for a, b in (("top", "left"), ("left", "right"), ("right", "top"))]
    assert np.allclose(sides, sides[0])  # equilateral in a square image


def test_red_dot_tips_to_the_side_below_in_the_geometry() -> None:
    for die in all_dice():
        for n in range(2, 9):
            corner = die.side(n).red
            assert corner is not None
            axis = AXIS_INDEX[die.corner_axis(n, corner)]
            s = list(POLY.sign_vectors[die.face_of_side(n)])
            s[axis] = -s[axis]
            assert POLY.sign_vectors.index(tuple(s)) == die.face_of_side(n - 1)
            assert die.neighbour(n, corner) == n - 1


# --- broken files: one per rule ---------------------------------------------------------


def _valid() -> dict[str, Any]:
    with (Path(__file__).parents[1] / "dice_models/crews/white.yaml").open() as f:
        data = yaml.safe_load(f)
    die = data["dice"][0]
    die["team"] = data["team"]
    return copy.deepcopy(die)


def _breaks(tmp_path: Path, edit: Any, *needles: str) -> str:
    data = _valid()
    edit(data)
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_crew_file(path)
    msg = str(info.value)
    assert str(path) in msg and "\n" not in msg
    for needle in needles:
        assert needle in msg, msg
    return msg


def _set(*keys: Any, value: Any) -> Any:
    def edit(d: dict[str, Any]) -> None:
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value
    return edit


def _drop(*keys: Any) -> Any:
    def edit(d: dict[str, Any]) -> None:
        for k in keys[:-1]:
            d = d[k]
        del d[keys[-1]]
    return edit


NAME = "die 'Warden Ilse Varga'"

BROKEN = [
    ("red dot on the wrong corner", _set("sides", 5, "red", value="left"),
     [f"{NAME} side 5: red", "'top'", "rolls to side 8", "(got 'left')"]),
    ("red dot on side 1", _set("sides", 1, "red", value="left"), ["side 1: red", "no damage dot"]),
    ("no red dot", _drop("sides", 3, "red"), ["side 3: red", "need a damage dot"]),
    ("faces not a path", _set("faces", value=[0, 2, 1, 3, 4, 5, 6, 7]),
     [f"{NAME}: faces", "does not share an edge"]),
    ("hit too big", _set("sides", 7, "arrows", "top", value="long yellow 42"),
     ["side 7: arrows.top.value", "1..20", "(got 42)"]),
    ("block out of range", _set("sides", 4, "shield", value="0 dark blue"),
     ["side 4: shield.block", "(got 0)"]),
    ("points out of range", _set("points", value=99), [f"{NAME}: points", "(got 99)"]),
    ("unknown range", _set("sides", 2, "arrows", "top", value="medium yellow 2"),
     ["side 2: arrows.top.range", "(got 'medium')"]),
    ("unknown colour", _set("sides", 2, "arrows", "top", value="short pink 2"),
     ["side 2: arrows.top.colour", "unknown colour", "(got 'pink')"]),
    ("white arrow", _set("sides", 2, "arrows", "top", value="short white 2"),
     ["side 2: arrows.top.colour", "shields only"]),
    ("black shield", _set("sides", 2, "shield", value="2 black"),
     ["side 2: shield.colour", "(got 'black')"]),
    ("shield colour typo", _set("sides", 2, "shield", value="2 purpel"),
     ["did you mean 'purple'"]),
    ("unknown effect", _set("sides", 3, "effect", value="Teleport"),
     ["side 3: effect.name", "unknown effect", "(got 'Teleport')"]),
    ("effect typo", _set("sides", 3, "effect", value="Backstap 5"), ["did you mean 'Backstab'"]),
    ("unknown shot", _set("sides", 4, "arrows", "top", value="all dark blue Comand"),
     ["side 4: arrows.top.value", "did you mean 'Command'"]),
    ("effect colour not the rulebook's", _set("sides", 4, "arrows", "top",
                                              value="all red Command"),
     ["side 4: arrows.top.colour", "dark blue", "(got 'red')"]),
    ("C without continuous effect", _set("sides", 3, "arrows", "top", value="long yellow C"),
     ["side 3: effect", "continuous"]),
    ("continuous effect on a number", _set("sides", 3, "effect", value="Hold"),
     ["side 3: effect.name", "C"]),
    ("backstab not larger", _set("sides", 3, "effect", value="Backstab 2"),
     ["side 3: effect.amount", "larger", "(got 2)"]),
    ("backstab in the arrow's colour", _set("sides", 3, "effect",
                                            value={"name": "Backstab", "amount": 5,
                                                   "colour": "yellow"}),
     ["side 3: effect.colour", "(got 'yellow')"]),
    ("green shot without Poison", _set("sides", 3, "arrows", "top", value="long green 2"),
     ["side 3: effect", "Poison"]),
    ("poison on a yellow shot", _set("sides", 3, "effect", value="Poison"),
     ["side 3: effect.name", "green"]),
    ("shield on side 1", _set("sides", 1, "shield", value="1 white"), ["side 1: shield"]),
    ("no shield", _drop("sides", 6, "shield"), ["side 6: shield", "need a shield"]),
    ("unknown corner", _set("sides", 2, "green", value=["bottom"]),
     ["side 2: green", "(got 'bottom')"]),
    ("two dots in a corner", _set("sides", 2, "green", value=["left"]),
     ["side 2: green", "one dot"]),
    ("missing side", _drop("sides", 8), [f"{NAME}: side 8", "missing"]),
    ("unknown field", _set("sides", 2, "sheild", value="2 white"),
     ["side 2: sheild", "did you mean 'shield'"]),
    ("unknown team", _set("team", value="Burgandy"), ["team", "did you mean Burgundy"]),
    ("not an octahedron", _set("geometry", value="d6"), [f"{NAME}: geometry", "octahedron"]),
    ("mixed arrows", _set("sides", 7, "arrows", "right", value="long yellow C"),
     ["side 7: arrows", "all numbers"]),
]


@pytest.mark.parametrize("edit,needles", [(e, n) for _why, e, n in BROKEN],
                         ids=[why for why, _e, _n in BROKEN])
def test_broken_file_fails_with_the_right_message(tmp_path: Path, edit: Any,
                                                  needles: list[str]) -> None:
    _breaks(tmp_path, edit, *needles)


def test_unbroken_single_die_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(_valid()), encoding="utf-8")
    crew = load_crew_file(path)
    assert crew.team == "White" and crew.dice[0].name == "Warden Ilse Varga"


def test_custom_face_order_is_honoured(tmp_path: Path) -> None:
    data = _valid()
    faces = [7, 6, 5, 4, 3, 2, 1, 0]  # another Hamiltonian path on the cube graph
    data["faces"] = faces
    for n in range(2, 9):  # put each red dot where this path needs it
        f, g = faces[n - 1], faces[n - 2]
        axis = next(a for k, a in enumerate(AXES) if sign_vector(f)[k] != sign_vector(g)[k])
        data["sides"][n]["red"] = axis_corner(f, axis)
        data["sides"][n]["green"] = [c for c in data["sides"][n].get("green", [])
                                     if c != data["sides"][n]["red"]]
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    die = load_crew_file(path).dice[0]
    assert die.faces == tuple(faces)
    for n in range(2, 9):
        assert die.neighbour(n, die.side(n).red) == n - 1


def test_a_team_of_your_own_needs_a_border(tmp_path: Path) -> None:
    data = _valid()
    data["team"] = "Silver"
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(DataError, match="needs a 'border' colour"):
        load_crew_file(path)
    data["border"] = "#A0A0B0"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    crew = load_crew_file(path)
    assert crew.team == "Silver" and crew.dice[0].border == "#a0a0b0"


def test_effect_tables_are_consistent() -> None:
    assert set(SHOT_EFFECTS) == {"Command", "Repair", "Confuse", "Call Ally", "Jump"}
    assert set(CONTINUOUS_EFFECTS) == {"Hold", "Freeze", "Protection", "Power Up"}
