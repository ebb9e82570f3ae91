"""D-Day Dice battle maps as data: sectors, the borders between them, and every sector
property the rulebook names, loaded from YAML and validated.

The book refers to a battle map it does not include; the project ships its own
(`rules/dday/maps/greyrock-cove.yaml`) and loads any map in the same format
(`rules/dday/maps/README.md`). Every error names the file, the field and the value.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
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

MAPS_DIR = Path(__file__).parent / "maps"

SPECIALISTS = {"sapper": 3, "hero": 3, "medic": 4, "sergeant": 2, "officer": 4, "scout": 2,
               "sniper": 2, "veteran": 3}
ITEMS = {"backpack": 5, "bangalore": 20, "binoculars": 10, "radio": 12, "flak_jacket": 3,
         "flamethrower": 20, "grenade": 10, "medal": 15, "mine_detector": 7,
         "terrain_map": 7, "mobile_radio": 5, "whistle": 7}
RWB_BONUSES = ("dead_mans_chest", "surge", "reinforcements", "battle_cry", "lucky_find")
SYMBOLS = ("star", "soldier", "courage", "item")
RESOURCES = ("soldiers", "courage", "ep")

# The five kinds of sector property (the book's categories) and what each takes.
INSTRUCTIONS = {
    "cannot_remain": (),        # must move in Phase 4 of the next turn
    "max_turns": ("turns",),    # may stay at most `turns` (1..3) turns
    "leave_forward": (),        # a unit leaving this sector must advance (no sideways move)
    "on_entry": ("resource", "amount"),  # gain (or lose, if negative) a resource on entry
}
REQUIREMENTS = {
    "have": ("specialist",),            # the unit must have this Specialist
    "sacrifice": ("specialist",),       # ... and loses it on entering
    "sacrifice_soldiers": ("amount",),  # lose this many soldiers on entering (unavoidable)
    "min_soldiers": ("amount",),        # the unit must be at least this strong
}
RESTRICTIONS = {
    "no_items": (),              # no Item may be used here (they can still be bought)
    "no_bonus": ("bonuses",),    # these RWB bonuses are cancelled here
}


@dataclass(frozen=True)
class Rule:
    """One sector property: its kind and parameters."""

    kind: str
    params: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.params[key]

    def describe(self) -> str:
        p = self.params
        return {
            "cannot_remain": "cannot remain here",
            "max_turns": f"at most {p.get('turns')} turn(s) here",
            "leave_forward": "leave only by advancing",
            "on_entry": f"on entry {'+' if p.get('amount', 0) >= 0 else ''}{p.get('amount')} "
                        f"{p.get('resource')}",
            "have": f"must have a {p.get('specialist')}",
            "sacrifice": f"sacrifice the {p.get('specialist')}",
            "sacrifice_soldiers": f"sacrifice {p.get('amount')} soldier(s)",
            "min_soldiers": f"at least {p.get('amount')} soldiers",
            "no_items": "no Items may be used",
            "no_bonus": f"no {', '.join(p.get('bonuses', ()))}",
            "penalty": f"-{p.get('amount')} {p.get('symbol')} symbol(s) per turn",
            "bonus": f"+{p.get('amount')} {p.get('symbol')} symbol(s) per turn",
        }.get(self.kind, self.kind)


@dataclass(frozen=True)
class Sector:
    id: str
    title: str
    row: int
    col: int
    enemy_fire: int
    machine_gun: bool = False
    mg_specialist_on: tuple[int, ...] = ()  # MG rolls that force a Specialist casualty
    max_turns: int = 3
    instructions: tuple[Rule, ...] = ()
    requirements: tuple[Rule, ...] = ()
    restrictions: tuple[Rule, ...] = ()
    penalties: tuple[Rule, ...] = ()
    bonuses: tuple[Rule, ...] = ()
    bunker: bool = False

    def has_instruction(self, kind: str) -> bool:
        return any(r.kind == kind for r in self.instructions)

    def no_items(self) -> bool:
        return any(r.kind == "no_items" for r in self.restrictions)

    def bonus_blocked(self, bonus: str) -> bool:
        return any(r.kind == "no_bonus" and bonus in r["bonuses"] for r in self.restrictions)

    def symbol_change(self, symbol: str) -> int:
        return (sum(r["amount"] for r in self.bonuses if r["symbol"] == symbol)
                - sum(r["amount"] for r in self.penalties if r["symbol"] == symbol))


@dataclass(frozen=True)
class Border:
    """A border a unit may cross: `a` to `b` (forward when b is on a higher row; sideways
    borders are crossed either way). `courage` is the cost to advance across it."""

    a: str
    b: str
    courage: int = 0
    minefield: bool = False


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per map load
class BattleMap:
    name: str
    description: str
    start: str
    soldiers: int
    sectors: dict[str, Sector]
    borders: tuple[Border, ...]
    source: str = "<inline>"
    raw: dict[str, Any] = field(default_factory=dict, compare=False)

    @property
    def bunker(self) -> str:
        return next(s.id for s in self.sectors.values() if s.bunker)

    def exits(self, sector: str) -> list[tuple[str, Border, bool]]:
        """(destination, border, is_advance) for every way out of `sector`."""
        out = []
        row = self.sectors[sector].row
        for b in self.borders:
            for frm, to in ((b.a, b.b), (b.b, b.a)):
                if frm != sector:
                    continue
                trow = self.sectors[to].row
                if trow > row:
                    out.append((to, b, True))
                elif trow == row:
                    out.append((to, b, False))
        return out


def available() -> list[str]:
    return sorted(p.stem for p in MAPS_DIR.glob("*.yaml"))


def load_map(name_or_path: str) -> BattleMap:
    """A shipped map by name, or a map YAML file by path."""
    path = resolve_data_file(name_or_path, MAPS_DIR, "map")
    return parse_map(load_yaml(path), str(path))


def parse_map(data: Any, source: str = "<inline>") -> BattleMap:
    if not isinstance(data, dict):
        raise data_error(source, "(top level)", "expected a mapping with name, start, "
                         "soldiers, sectors and borders", type(data).__name__)
    check_keys(source, "", data, ("name", "description", "start", "soldiers", "sectors",
                                  "borders"))
    name = need_str(source, "name", data.get("name"))
    soldiers = need_int(source, "soldiers", data.get("soldiers"), 1, 99)
    raw_sectors = data.get("sectors")
    if not isinstance(raw_sectors, dict) or not raw_sectors:
        raise data_error(source, "sectors", "must map sector ids to sectors", raw_sectors)
    sectors: dict[str, Sector] = {}
    places: dict[tuple[int, int], str] = {}
    for sid, raw in raw_sectors.items():
        sector = _parse_sector(source, str(sid), raw)
        if (sector.row, sector.col) in places:
            raise data_error(source, f"sectors.{sid}", f"row {sector.row}, col {sector.col} "
                             f"is taken by {places[(sector.row, sector.col)]}",
                             show_value=False)
        places[(sector.row, sector.col)] = str(sid)
        sectors[str(sid)] = sector
    start = need_choice(source, "start", str(data.get("start")), sectors)
    bunkers = [s.id for s in sectors.values() if s.bunker]
    if len(bunkers) != 1:
        raise data_error(source, "sectors", "exactly one sector must be the bunker "
                         "(bunker: true)", bunkers)
    if sectors[bunkers[0]].row <= sectors[start].row:
        raise data_error(source, f"sectors.{bunkers[0]}.row", "the bunker must lie forward "
                         "of the start sector", sectors[bunkers[0]].row)
    borders = _parse_borders(source, data.get("borders"), sectors)
    bm = BattleMap(name=name, description=str(data.get("description", "")), start=start,
                   soldiers=soldiers, sectors=sectors, borders=tuple(borders), source=source,
                   raw=data)
    _check_reachable(bm)
    return bm


def _rules(source: str, where: str, raw: Any, kinds: Mapping[str, tuple[str, ...]]
           ) -> tuple[Rule, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise data_error(source, where, "must be a list", raw)
    out = []
    for i, item in enumerate(raw):
        w = f"{where}[{i}]"
        if isinstance(item, str):
            item = {"kind": item}
        if not isinstance(item, dict):
            raise data_error(source, w, "must be a mapping with a kind", item)
        kind = need_choice(source, f"{w}.kind", item.get("kind"), kinds)
        check_keys(source, w, item, ("kind", *kinds[kind]))
        params: dict[str, Any] = {}
        for pname in kinds[kind]:
            if pname not in item:
                raise data_error(source, f"{w}.{pname}", f"is required for {kind}",
                                 show_value=False)
            params[pname] = _param(source, f"{w}.{pname}", pname, item[pname], kind)
        out.append(Rule(kind, params))
    return tuple(out)


def _param(source: str, where: str, pname: str, value: Any, kind: str) -> Any:
    if pname == "specialist":
        return need_choice(source, where, value, SPECIALISTS)
    if pname == "resource":
        return need_choice(source, where, value, RESOURCES)
    if pname == "symbol":
        return need_choice(source, where, value, SYMBOLS)
    if pname == "bonuses":
        if not isinstance(value, list) or not value:
            raise data_error(source, where, "must list RWB bonus names", value)
        return tuple(need_choice(source, f"{where}[{i}]", v, RWB_BONUSES)
                     for i, v in enumerate(value))
    if pname == "turns":
        return need_int(source, where, value, 1, 3)
    if kind == "on_entry":
        return need_int(source, where, value, -20, 50)
    return need_int(source, where, value, 1, 50)


def _parse_sector(source: str, sid: str, raw: Any) -> Sector:
    where = f"sectors.{sid}"
    if not isinstance(raw, dict):
        raise data_error(source, where, "must be a mapping", raw)
    check_keys(source, where, raw, ("title", "row", "col", "enemy_fire", "machine_gun",
                                    "instructions", "requirements", "restrictions",
                                    "penalties", "bonuses", "bunker"))
    title = need_str(source, f"{where}.title", raw.get("title", sid))
    row = need_int(source, f"{where}.row", raw.get("row"), 0, 30)
    col = need_int(source, f"{where}.col", raw.get("col"), 0, 12)
    ef = need_int(source, f"{where}.enemy_fire", raw.get("enemy_fire"), 0, 50)
    mg = raw.get("machine_gun", False)
    mg_on: tuple[int, ...] = ()
    if isinstance(mg, dict):
        check_keys(source, f"{where}.machine_gun", mg, ("specialist_on",))
        on = mg.get("specialist_on", [])
        if not isinstance(on, list) or not all(isinstance(v, int) and 1 <= v <= 6 for v in on):
            raise data_error(source, f"{where}.machine_gun.specialist_on",
                             "must list die faces 1..6", on)
        mg_on = tuple(on)
        mg = True
    elif not isinstance(mg, bool):
        raise data_error(source, f"{where}.machine_gun", "must be true, false or a mapping",
                         mg)
    bunker = raw.get("bunker", False)
    if not isinstance(bunker, bool):
        raise data_error(source, f"{where}.bunker", "must be true or false", bunker)
    instructions = _rules(source, f"{where}.instructions", raw.get("instructions"),
                          INSTRUCTIONS)
    max_turns = 3
    for r in instructions:
        if r.kind == "cannot_remain":
            max_turns = 1
        elif r.kind == "max_turns":
            max_turns = min(max_turns, r["turns"])
    sym = {"penalty": ("symbol", "amount")}
    penalties = _rules(source, f"{where}.penalties",
                       _with_kind(raw.get("penalties"), "penalty"), sym)
    bonuses = _rules(source, f"{where}.bonuses", _with_kind(raw.get("bonuses"), "bonus"),
                     {"bonus": ("symbol", "amount")})
    return Sector(id=sid, title=title, row=row, col=col, enemy_fire=ef, machine_gun=bool(mg),
                  mg_specialist_on=mg_on, max_turns=max_turns, instructions=instructions,
                  requirements=_rules(source, f"{where}.requirements",
                                      raw.get("requirements"), REQUIREMENTS),
                  restrictions=_rules(source, f"{where}.restrictions",
                                      raw.get("restrictions"), RESTRICTIONS),
                  penalties=penalties, bonuses=bonuses, bunker=bunker)


def _with_kind(raw: Any, kind: str) -> Any:
    """Penalties and bonuses are written without a kind: `{symbol: item, amount: 1}`."""
    if isinstance(raw, list):
        return [{"kind": kind, **r} if isinstance(r, dict) else r for r in raw]
    return raw


def _parse_borders(source: str, raw: Any, sectors: dict[str, Sector]) -> list[Border]:
    if not isinstance(raw, list) or not raw:
        raise data_error(source, "borders", "must list the borders between sectors", raw)
    out = []
    seen = set()
    for i, item in enumerate(raw):
        w = f"borders[{i}]"
        if not isinstance(item, dict):
            raise data_error(source, w, "must be a mapping with 'between'", item)
        check_keys(source, w, item, ("between", "courage", "minefield"))
        pair = item.get("between")
        if not isinstance(pair, list) or len(pair) != 2:
            raise data_error(source, f"{w}.between", "must name two sectors", pair)
        a = need_choice(source, f"{w}.between[0]", str(pair[0]), sectors)
        b = need_choice(source, f"{w}.between[1]", str(pair[1]), sectors)
        if a == b:
            raise data_error(source, f"{w}.between", "a border joins two different sectors",
                             pair)
        if frozenset((a, b)) in seen:
            raise data_error(source, f"{w}.between", "this border is listed twice", pair)
        seen.add(frozenset((a, b)))
        ra, rb = sectors[a].row, sectors[b].row
        if abs(ra - rb) > 1:
            raise data_error(source, f"{w}.between", "sectors of a border must be on the same "
                             f"or neighbouring rows (rows {ra} and {rb})", pair)
        courage = need_int(source, f"{w}.courage", item.get("courage", 0), 0, 20)
        if ra == rb and courage:
            raise data_error(source, f"{w}.courage", "a sideways move costs no Courage; only "
                             "advancing does", courage)
        if ra != rb and "courage" not in item:
            raise data_error(source, f"{w}.courage", "an advance needs its Courage cost",
                             show_value=False)
        mine = item.get("minefield", False)
        if not isinstance(mine, bool):
            raise data_error(source, f"{w}.minefield", "must be true or false", mine)
        if ra > rb:  # store forward borders low row first
            a, b = b, a
        out.append(Border(a, b, courage, mine))
    return out


def _check_reachable(bm: BattleMap) -> None:
    seen = {bm.start}
    todo = deque([bm.start])
    while todo:
        s = todo.popleft()
        for t, _b, _adv in bm.exits(s):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    if bm.bunker not in seen:
        raise data_error(bm.source, "borders", f"the bunker {bm.bunker!r} cannot be reached "
                         f"from the start {bm.start!r}", show_value=False)
    lost = sorted(set(bm.sectors) - seen)
    if lost:
        raise data_error(bm.source, "borders", "these sectors cannot be reached from the "
                         "start", lost)
    for sid, sec in bm.sectors.items():
        if not sec.bunker and not any(adv for _t, _b, adv in bm.exits(sid)) \
                and not bm.exits(sid):
            raise data_error(bm.source, f"sectors.{sid}", "a dead end: no way out", sid)
