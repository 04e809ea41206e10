"""Shared helpers for The Plan tests: set up exact tables through the physical-mode reports."""

from __future__ import annotations

from referee.theplan import STEWARD, ClaimTrinket, ReportPlan, ReportReveal, ThePlanGame, default_components

COMPONENTS = default_components()


def plan(type_id: str, *experts: str) -> str:
    """The first Plan of a type showing exactly these experts (any order)."""
    for p in COMPONENTS.plans.values():
        if p.type == type_id and set(p.experts) == set(experts):
            return p.id
    raise LookupError(f"no {type_id} with {experts}")


def physical(seats=("ann", "bob", "cat"), **options) -> ThePlanGame:
    return ThePlanGame.setup({"seats": list(seats), "mode": "physical", **options}, seed=1)[0]


def reveal(game: ThePlanGame, treasures, trinkets=("documents-a1", "pottery-a1", "toys-a1")) -> list[dict]:
    return game.apply(ReportReveal(STEWARD, tuple(treasures), tuple(trinkets)))


def report(game: ThePlanGame, plans: dict[str, str]) -> list[dict]:
    events = []
    for seat, p in plans.items():
        events += game.apply(ReportPlan(STEWARD, seat, p))
    return events


def claim_face_up_or_first(game: ThePlanGame) -> list[dict]:
    """Answer every trinket claim: the first face-up trinket, or the first of the pile when blind."""
    events = []
    s = game.state
    while s.phase == "execute" and s.step == "claiming":
        player, blind = s.claim_queue[0]
        if blind and s.trinket_pile or not s.face_up_trinkets:
            events += game.apply(ClaimTrinket(player, s.trinket_pile[0], True))
        else:
            events += game.apply(ClaimTrinket(player, s.face_up_trinkets[0]))
    return events


def of_type(events: list[dict], kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]
