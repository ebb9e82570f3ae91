"""A Deep White Sea die's card: its eight sides in words, as `tabletop dice show` prints
them (that command prints `side_rows`), for the window's inspect view (issue 37: a click on
a die shows it large with what it means). Plain Python: no Panda3D.
"""

from __future__ import annotations

from dice_models.crews import CORNERS, CrewDie, Side

HEADER = ("side", "arrows", "shield", "effect", "flavour", "dots", "press: to side")


def arrows_text(side: Side) -> str:
    return "; ".join(f"{a.corner}: {a.range} {a.colour} {a.label or a.effect}"
                     for a in side.arrows) or "-"


def shield_text(side: Side) -> str:
    return "-" if side.shield is None else f"{side.shield.block} {side.shield.colour}"


def effect_text(side: Side) -> str:
    if side.effect is None:
        return "-"
    text = f"{side.effect.text} ({side.effect.colour})"
    return f"{text}, optional" if side.effect.optional else text


def dots_text(side: Side) -> str:
    parts = [f"green {c}" for c in side.green]
    if side.red is not None:
        parts.append(f"red {side.red}")
    return ", ".join(parts) or "-"


def press_text(die: CrewDie, side: Side) -> str:
    return " ".join(f"{c}->{die.neighbour(side.number, c)}" for c in CORNERS)


def side_rows(die: CrewDie) -> list[tuple[str, ...]]:
    """The table `tabletop dice show` prints: the header, then one row a side."""
    rows: list[tuple[str, ...]] = [HEADER]
    for side in die.sides:
        rows.append((str(side.number), arrows_text(side), shield_text(side), effect_text(side),
                     side.flavour, dots_text(side), press_text(die, side)))
    return rows


def card_lines(die: CrewDie, side_up: int | None = None) -> list[str]:
    """The inspect view's lines: the die, then each side's arrows, shield and effect (the
    side on top marked '>')."""
    out = [f"{die.name}: {die.team}, {die.die_class}, {die.points} points"]
    for side in die.sides:
        mark = ">" if side.number == side_up else " "
        out.append(f"{mark}{side.number}  arrows {arrows_text(side)}  shield "
                   f"{shield_text(side)}  effect {effect_text(side)}")
    return out
