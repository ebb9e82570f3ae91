"""The text view of a D-Day Dice game: the battle map with the unit markers, and each
unit's Player Sheet. What a human player sees in the terminal."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.dday.battlemap import SPECIALISTS, BattleMap

if TYPE_CHECKING:
    from rules.dday.game import DDayState

CELL = 28
PHASES = {"roll": "Phase 1, rolling dice", "trade": "Phase 1, Officers trade dice",
          "resolve": "Phases 1-3, results, Specialists and Items", "move": "Phase 4, movement",
          "combat": "Phase 5, combat: choices before the fire", "fire": "Phase 5, combat: fire",
          "over": "game over"}


def render_map(bm: BattleMap, markers: dict[str, str] | None = None) -> str:
    """Sectors row by row, the bunker on top: `[Title EF2 MG *1]` with unit markers, and
    each border's Courage cost and minefield under the map."""
    markers = markers or {}
    rows = sorted({s.row for s in bm.sectors.values()}, reverse=True)
    cols = max(s.col for s in bm.sectors.values()) + 1
    lines = [f"{bm.name}  (forward is up; EF = Enemy Fire, MG = machine gun, "
             f"* = units here)"]
    for r in rows:
        cells = [" " * CELL] * cols
        for s in bm.sectors.values():
            if s.row != r:
                continue
            tags = f"EF{s.enemy_fire}" + (" MG" if s.machine_gun else "")
            tags += " B" if s.bunker else ""
            mark = markers.get(s.id, "")
            name_w = CELL - 4 - len(tags) - (len(mark) + 2 if mark else 0)
            text = f"{s.title[:name_w]:<{name_w}} {tags}" + (f" *{mark}" if mark else "")
            cells[s.col] = f"[{text}]".ljust(CELL)
        lines.append(f"{r:2d} " + "".join(cells).rstrip())
    lines.append("borders (courage to advance; M = minefield):")
    parts = [f"{b.a}>{b.b} {b.courage}{' M' if b.minefield else ''}"
             if bm.sectors[b.a].row != bm.sectors[b.b].row
             else f"{b.a}={b.b}{' M' if b.minefield else ''}" for b in bm.borders]
    line = "  "
    for p in parts:
        if len(line) + len(p) > 96:
            lines.append(line.rstrip(", "))
            line = "  "
        line += p + ", "
    lines.append(line.rstrip(", "))
    return "\n".join(lines)


def render_state(state: DDayState) -> str:
    markers: dict[str, str] = {}
    for i, u in enumerate(state.units):
        if u.status == "active":
            markers[u.sector] = markers.get(u.sector, "") + str(i + 1)
    phase = PHASES.get(state.phase, state.phase)
    out = [render_map(state.map, markers), f"turn {state.turn}: {phase}"]
    for i, u in enumerate(state.units):
        sec = state.map.sectors[u.sector]
        notes = [r.describe() for r in (*sec.instructions, *sec.restrictions, *sec.penalties,
                                        *sec.bonuses)]
        progress = ", ".join(f"{k} {v}/{SPECIALISTS[k]}" for k, v in u.progress.items())
        out.append(
            f"unit {i + 1} [{u.status}] in {sec.title} (turn {u.turns_here + 1} of "
            f"{sec.max_turns}): soldiers {u.soldiers}, courage {u.courage}, EP {u.ep}"
            + (f", VP {u.vp}" if u.status != "active" else ""))
        out.append(f"   specialists: {', '.join(u.specialists) or '-'}"
                   + (f"  (stars: {progress})" if progress else "")
                   + f"; items: {', '.join(u.items) or '-'}"
                   + ("; Medal of Honor" if u.medal == "held" else ""))
        if notes:
            out.append(f"   sector: {'; '.join(notes)}")
        if u.dice:
            dice = " ".join(
                f"{j + 1}:{u.colours[j][0].upper()}{v}" + ("k" if j in u.kept else "")
                + ("x" if j in u.cancelled else "") for j, v in enumerate(u.dice))
            out.append(f"   dice {dice}  (k set aside, x cancelled; re-rolls used "
                       f"{u.rerolls}/2)")
    return "\n".join(out)
