"""What each audience may see of a game: the public view and one player's view.

The public view never holds a hand, a face-down or unrevealed Plan, a pass being chosen, an
unrevealed bid, or the order of any pile (only counts). A player's view adds that player's own
secrets and nobody else's.
"""

from __future__ import annotations

from referee.theplan.commands import STEWARD
from referee.theplan.components import Treasure, Trinket
from referee.theplan.state import State


def to_act(s: State) -> list[str]:
    """Who must act now; the steward stands for the table in physical mode."""
    if s.phase == "commit":
        return [p for p in s.config.seats if p not in s.committed]
    if s.phase in ("reveal", "report_plans"):
        return [STEWARD]
    if s.phase == "pass" and not s.physical:
        return [p for p in s.config.seats if p not in s.passes]
    if s.phase == "execute":
        if s.step in ("choose_colour", "contest_order"):
            return [s.chooser] if s.chooser else []
        if s.step == "bidding":
            return [p for p in s.bidders[s.contests[0]] if p not in s.bids]
        if s.step == "claiming" and s.claim_queue:
            return [s.claim_queue[0][0]]
    return []


def public_view(s: State, scores: dict[str, dict]) -> dict:
    players = s.config.players
    physical = s.physical
    return {
        "game": "the_plan",
        "variant": s.config.variant,
        "mode": s.config.mode,
        "bribes": s.config.bribes,
        "removed_plan_types": list(s.config.removed_plan_types or ()),
        "seats": list(s.config.seats),
        # Who reports the table (physical mode): a seat of its own, so a display can offer it one.
        "reporters": [STEWARD] if physical else [],
        "ghosts": list(s.config.ghosts),
        "round": s.round,
        "turn": s.turn_in_round,
        "turn_number": s.turn_number,
        "phase": s.phase,
        "stage": s.stage_type(),
        "step": s.step or None,
        "to_act": to_act(s),
        "face_up": {"treasures": list(s.face_up_treasures), "trinkets": list(s.face_up_trinkets)},
        "piles": {
            "treasures": len(s.treasure_pile),
            "trinkets": len(s.trinket_pile),
            "plan_deck": s.deck_count if physical else len(s.plan_deck),
            "plan_discard": len(s.plan_discard) + s.unseen_discards,
            "trinket_discard": list(s.trinket_discard),
        },
        "plans_revealed": {p: s.table[p] for p in players if p in s.table},
        "chooser": s.chooser,
        "contests": [{"contest": c, "bidders": list(s.bidders[c])} for c in s.contests],
        "claim_order": [{"player": p, "blind": blind} for p, blind in s.claim_queue],
        "players": {
            p: {
                "hand": s.hand_count(p),
                "committed": p in s.committed,
                "pass_chosen": p in s.passes,
                "bid_placed": p in s.bids,
                "treasures": list(s.treasures[p]),
                "trinkets": list(s.trinkets[p]),
                "score": scores[p],
            }
            for p in players
        },
        "result": s.result,
        # What displays draw from, so they never read the components file themselves: the
        # collections in the file's order (each gets its colour) and what the revealed Plans show.
        "collections": [*s.components.treasure_kinds, *s.components.trinket_kinds],
        "plan_faces": plan_faces(s, [s.table[p] for p in players if p in s.table]),
    }


def plan_faces(s: State, plan_ids: list[str]) -> dict[str, dict]:
    """What is printed on these Plan cards: {id: {"type": its type's name, "experts": the
    collections of its experts}}."""
    faces = {}
    for plan_id in plan_ids:
        plan = s.components.plans.get(plan_id)
        if plan is not None:
            faces[plan_id] = {"type": s.components.plan_type(plan.type).name, "experts": list(plan.experts)}
    return faces


def player_view(s: State, scores: dict[str, dict], player: str) -> dict:
    view = public_view(s, scores)
    view["you"] = {
        "player": player,
        "hand": None if s.physical else list(s.hands[player]),
        "committed_plan": None if s.physical else s.committed.get(player),
        "pass": s.passes.get(player),
        "bid": s.bids.get(player),
    }
    you = view["you"]
    own = [p for p in [*(you["hand"] or []), you["committed_plan"]] if p]  # faces only this player sees
    view["plan_faces"] = {**view["plan_faces"], **plan_faces(s, own)}
    return view


def steward_view(
    s: State, scores: dict[str, dict], reveal: tuple[int, int], to_report: list[str], unseen: list[str]
) -> dict:
    """The steward's view of a physical table: the public view, and under "report" what the
    steward may report now, so a phone can offer it. In the reveal: the treasures and trinkets
    still face down, sorted (at a real table the referee knows no pile's order) with what is
    printed on them, and how many of each are turned over (`reveal`). While Plans are reported:
    the seats still to report (`to_report`) and the Plans not seen yet (`unseen`), with faces."""
    view = public_view(s, scores)
    view["you"] = {"player": STEWARD}  # the shape of a seat's view, for the displays that read it
    report: dict = {}
    if s.physical and s.phase == "reveal":
        report = {
            "treasures": {t: _printed(s.components.treasures[t]) for t in sorted(s.treasure_pile)},
            "trinkets": {t: _printed(s.components.trinkets[t]) for t in sorted(s.trinket_pile)},
            "treasures_wanted": reveal[0],
            "trinkets_wanted": reveal[1],
        }
    elif s.physical and to_report:
        report = {"seats": to_report, "plans": unseen}
        view["plan_faces"] = {**view["plan_faces"], **plan_faces(s, unseen)}
    view["report"] = report
    return view


def _printed(item: Treasure | Trinket) -> dict:
    """What is printed on a treasure or trinket: its collection, value (and a trinket's design)."""
    face = {"kind": item.kind, "value": item.value}
    return {**face, "design": item.design} if isinstance(item, Trinket) else face
