"""The Plan's components, loaded from the editable deck file and validated on load.

The printed game never lists which experts each Plan shows; docs/rules-theplan.md ("The
components") fixes a default deck and asks for it to live in a data file, so that a group whose
printing differs can edit it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

SMASH_AND_GRAB = "smash_and_grab"


class ComponentsError(ValueError):
    """The components file is malformed; the message names the entry and what is wrong with it."""


@dataclass(frozen=True)
class Treasure:
    id: str
    kind: str
    value: int


@dataclass(frozen=True)
class Trinket:
    id: str
    kind: str
    design: str
    value: int


@dataclass(frozen=True)
class PlanType:
    id: str
    name: str
    experts: int  # how many experts a Plan of this type shows (0 for Smash & Grab)
    count: int


@dataclass(frozen=True)
class Plan:
    id: str
    type: str
    experts: tuple[str, ...]


@dataclass(frozen=True)
class Components:
    version: int
    set_size: int
    set_bonus: int
    treasure_kinds: dict[str, str]  # id -> name, in the file's order
    trinket_kinds: dict[str, str]
    plan_types: tuple[PlanType, ...]  # in execution order
    treasures: dict[str, Treasure]
    trinkets: dict[str, Trinket]
    plans: dict[str, Plan]

    def plan_type(self, type_id: str) -> PlanType:
        return next(t for t in self.plan_types if t.id == type_id)

    def treasure_face(self, item_id: str) -> str:
        """What makes a treasure unique within its kind for sets: its value."""
        return str(self.treasures[item_id].value)


def _need(cond: bool, where: str, what: str) -> None:
    if not cond:
        raise ComponentsError(f"components file: {where}: {what}")


def _field(entry: Any, key: str, kind: type, where: str) -> Any:
    _need(isinstance(entry, dict), where, "must be an object")
    _need(key in entry, where, f"missing {key!r}")
    value = entry[key]
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    _need(ok, where, f"{key!r} must be {kind.__name__}, got {value!r}")
    return value


def _ids(entries: Any, section: str) -> list[dict]:
    _need(isinstance(entries, list) and entries, section, "must be a non-empty list")
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        ident = _field(entry, "id", str, f"{section}[{i}]")
        _need(bool(ident), f"{section}[{i}]", "id must not be empty")
        _need(ident not in seen, f"{section}[{i}]", f"duplicate id {ident!r}")
        seen.add(ident)
    return entries


def parse_components(doc: Any) -> Components:
    """Validate a decoded components document and build `Components` (raises ComponentsError)."""
    _need(isinstance(doc, dict), "top level", "must be an object")
    version = _field(doc, "version", int, "top level")
    _need(version == 1, "version", f"unsupported version {version} (this referee reads version 1)")
    set_size = _field(doc, "set_size", int, "top level")
    set_bonus = _field(doc, "set_bonus", int, "top level")
    _need(set_size >= 1 and set_bonus >= 0, "top level", "set_size must be >= 1 and set_bonus >= 0")

    treasure_kinds = {
        e["id"]: _field(e, "name", str, e["id"]) for e in _ids(doc.get("treasure_kinds"), "treasure_kinds")
    }
    trinket_kinds = {
        e["id"]: _field(e, "name", str, e["id"]) for e in _ids(doc.get("trinket_kinds"), "trinket_kinds")
    }

    treasures: dict[str, Treasure] = {}
    for e in _ids(doc.get("treasures"), "treasures"):
        where = f"treasure {e['id']!r}"
        kind = _field(e, "kind", str, where)
        value = _field(e, "value", int, where)
        _need(kind in treasure_kinds, where, f"unknown treasure kind {kind!r}")
        _need(value >= 1, where, "value must be at least 1")
        treasures[e["id"]] = Treasure(e["id"], kind, value)

    trinkets: dict[str, Trinket] = {}
    for e in _ids(doc.get("trinkets"), "trinkets"):
        where = f"trinket {e['id']!r}"
        kind = _field(e, "kind", str, where)
        design = _field(e, "design", str, where)
        value = _field(e, "value", int, where)
        _need(kind in trinket_kinds, where, f"unknown trinket kind {kind!r}")
        _need(value >= 1, where, "value must be at least 1")
        trinkets[e["id"]] = Trinket(e["id"], kind, design, value)

    clash = (set(treasures) | set(trinkets)) & set(
        p.get("id") for p in doc.get("plans") or [] if isinstance(p, dict)
    )
    clash |= set(treasures) & set(trinkets)
    _need(not clash, "ids", f"ids must be unique across treasures, trinkets and plans: {sorted(clash)}")

    plan_types = []
    for e in _ids(doc.get("plan_types"), "plan_types"):
        where = f"plan type {e['id']!r}"
        experts = _field(e, "experts", int, where)
        _need(0 <= experts <= len(treasure_kinds), where, "experts must be between 0 and the number of kinds")
        plan_types.append(
            PlanType(e["id"], _field(e, "name", str, where), experts, _field(e, "count", int, where))
        )
    smash = [t for t in plan_types if t.id == SMASH_AND_GRAB]
    _need(
        len(smash) == 1 and smash[0].experts == 0,
        "plan_types",
        f"{SMASH_AND_GRAB!r} must exist and show 0 experts",
    )
    _need(
        all(t.experts > 0 for t in plan_types if t.id != SMASH_AND_GRAB),
        "plan_types",
        "only Smash & Grab may show no experts",
    )
    _need(plan_types[0].id == SMASH_AND_GRAB, "plan_types", "Smash & Grab must come first (execution order)")
    sizes = [t.experts for t in plan_types[1:]]
    _need(sizes == sorted(set(sizes)), "plan_types", "teams must be listed smallest first, one type per size")
    types_by_id = {t.id: t for t in plan_types}

    plans: dict[str, Plan] = {}
    for e in _ids(doc.get("plans"), "plans"):
        where = f"plan {e['id']!r}"
        type_id = _field(e, "type", str, where)
        _need(type_id in types_by_id, where, f"unknown plan type {type_id!r}")
        experts = _field(e, "experts", list, where)
        _need(
            all(isinstance(x, str) and x in treasure_kinds for x in experts),
            where,
            f"unknown expert in {experts}",
        )
        _need(len(set(experts)) == len(experts), where, "an expert kind appears twice")
        _need(
            len(experts) == types_by_id[type_id].experts,
            where,
            f"a {types_by_id[type_id].name} shows {types_by_id[type_id].experts} experts, not {len(experts)}",
        )
        plans[e["id"]] = Plan(e["id"], type_id, tuple(experts))
    for t in plan_types:
        have = sum(1 for p in plans.values() if p.type == t.id)
        _need(have == t.count, f"plan type {t.id!r}", f"count says {t.count} but the file lists {have} plans")

    return Components(
        version=version,
        set_size=set_size,
        set_bonus=set_bonus,
        treasure_kinds=treasure_kinds,
        trinket_kinds=trinket_kinds,
        plan_types=tuple(plan_types),
        treasures=treasures,
        trinkets=trinkets,
        plans=plans,
    )


def load_components(path: str | Path | None = None) -> Components:
    """Load the components file (default: the one shipped in this package)."""
    if path is None:
        return default_components()
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ComponentsError(f"cannot read components file {path}: {exc.strerror}") from exc
    return _parse_text(text, str(path))


def _parse_text(text: str, name: str) -> Components:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ComponentsError(f"components file {name} is not valid JSON: {exc}") from exc
    return parse_components(doc)


@lru_cache(maxsize=1)
def default_components() -> Components:
    text = resources.files(__package__).joinpath("components.json").read_text(encoding="utf-8")
    return _parse_text(text, "components.json")
