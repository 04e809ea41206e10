"""One line of plain words per public event, for the overview's "last events" list."""

from __future__ import annotations

from typing import Any

# Bookkeeping that says nothing a player watches for.
QUIET = frozenset({"command_accepted", "game_set_up", "step_skipped"})


# A card's effect as players say it (the rules engine's names are snake_case identifiers).
EFFECT_WORDS = {
    "destroy_chosen": "destroy a card",
    "destroy_within_reach": "destroy a card within reach",
    "destroy_this": "destroy this card",
    "move_to_face_up": "jump to a face-up card",
    "swap_two": "swap two cards",
    "relocate_one": "move a card",
    "extra_move": "extra jump",
    "end_turn": "end the turn",
}
# Event fields that are bookkeeping (outlines, who typed a report), never worth a player's eye.
INTERNAL_KEYS = frozenset(
    {
        "type",
        "player",
        "text",
        "corners",
        "positions",
        "sigma_mm",
        "reported_by",
        "command",
        "config",
        "table",
    }
)


def _effect(value: Any) -> str:
    return EFFECT_WORDS.get(str(value), str(value).replace("_", " "))


def _space(value: Any) -> str:
    """'start:ann' -> "ann's start" (a starting card is named after its owner)."""
    text = str(value)
    return f"{text[6:]}'s start" if text.startswith("start:") else text


def _names(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_names(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_names(v) for v in value)
    return _space(value).replace("_", " ")


def describe_event(event: dict[str, Any]) -> str:
    """E.g. "ann jumped from ann's start to S1", 'S1 turned up: Teleporter', 'game over: bob wins'."""
    kind = str(event.get("type", "?"))
    who = event.get("player")
    e = event
    special = {
        # A private copy (the placer's or drawer's own message) also names the cards.
        "card_placed": lambda: (
            f"{who} placed {e.get('space')}" + (f" ({e['name']})" if e.get("name") else "")
        ),
        "pawn_moved": lambda: (
            f"{who} jumped from {_space(e.get('from'))} to {_space(e.get('to'))}"
            + ("" if e.get("flip", True) else " (no flip)")
        ),
        "space_flipped": lambda: f"{e.get('space')} turned up: {e.get('name')}",
        "space_revealed": lambda: f"{e.get('space')} revealed: {e.get('name')}",
        "space_destroyed": lambda: f"{e.get('space')} destroyed",
        "turn_started": lambda: (
            f"turn {e.get('turn')}: {who}" + (f" ({e.get('step')})" if e.get("step") else "")
            if who
            else f"round {e.get('round')}, turn {e.get('turn')}"
        ),
        "step_started": lambda: f"{who}: {e.get('step')} step",
        "cards_drawn": lambda: (
            f"{who} drew {e.get('count')}"
            + (f": {_names([c.get('name') for c in e['cards']])}" if e.get("cards") else "")
        ),
        "player_fell": lambda: f"{who} fell" + (f" from {e.get('space')}" if e.get("space") else ""),
        "player_eliminated": lambda: f"{who} is eliminated",
        "returned_to_start": lambda: f"{who} back to start",
        "game_over": lambda: (
            f"game over: {e.get('winner') or 'nobody'} wins"
            + (f" ({e.get('reason')})" if e.get("reason") else "")
        ),
        "plan_committed": lambda: f"{who} committed a Plan",
        "plans_revealed": lambda: f"Plans revealed: {_names(e.get('plans', {}))}",
        "plans_passed": lambda: f"Plans passed {e.get('direction')}",
        "trinket_claimed": lambda: f"{who} claimed {e.get('trinket') or 'a trinket'}",
        "stage_started": lambda: f"stage {e.get('stage')}: {_names(e.get('players', []))}",
        "game_ended": lambda: f"game over: {_names(e.get('winners', []))} win",
        "target_chosen": lambda: f"{who} chose {_names(e.get('spaces', []))} to {_effect(e.get('effect'))}",
        "positions_needed": lambda: (
            f"{who}: put {_names(e.get('spaces', []))} down, then the camera measures"
        ),
        "spaces_moved": lambda: f"cards moved: {_names(list(e.get('positions') or {}))}",
        "measurement_needed": lambda: f"measure the jump {_space(e.get('from'))} -> {_space(e.get('to'))}",
        "measurement_confirmed": lambda: (
            f"jump {_space(e.get('from'))} -> {_space(e.get('to'))} measured "
            + ("in reach" if e.get("legal") else "out of reach")
        ),
        "move_refused": lambda: f"{who} cannot jump to {_space(e.get('to'))}: {e.get('reason')}",
        "minion_sent": lambda: f"{who} sent a minion to {_space(e.get('to'))}",
        "identity_needed": lambda: f"which card is {e.get('space')}? show it to the camera",
        "identity_reported": lambda: f"{e.get('space')} is {e.get('name')}",
        "free_move_offered": lambda: f"{who} may jump once more for free",
        "extra_move_offered": lambda: f"{who} may take an extra jump",
        "turn_cut_short": lambda: f"{who}'s turn ends ({e.get('card')})",
        "effect_fizzled": lambda: f"{e.get('card')}: nothing to {_effect(e.get('effect'))}",
        "choice_needed": lambda: f"{who}: {_effect(e.get('effect') or e.get('for'))}",
        "choice_declined": lambda: f"{who} declined: {_effect(e.get('effect'))}",
        "hand_discarded": lambda: f"{who} discarded {e.get('count')} cards",
        "deck_reshuffled": lambda: f"deck reshuffled ({e.get('size')} cards)",
        "nothing_to_draw": lambda: f"{who}: nothing left to draw",
        "deck_ran_out": lambda: "the deck ran out",
        "sudden_death_began": lambda: "sudden death",
        "card_taken_from_table": lambda: f"{who} took {e.get('name') or e.get('space')} from the table",
        "turn_ended": lambda: f"{who}'s turn ended",
        "power_used": lambda: f"{who} used a power: {_names(e.get('power'))}",
        "card_played": lambda: f"{who} played {e.get('name') or 'a card'}",
        "peeked": lambda: f"{who} looked at {e.get('space')}",
        "plan_withdrawn": lambda: f"{who} took back a Plan",
        "colour_chosen": lambda: f"{who} chose {_names(e.get('colour'))}",
        "contest_order_chosen": lambda: f"{who} settles {_names(e.get('colour'))} first",
        "pass_chosen": lambda: f"{who} chose Plans to pass",
        "treasures_revealed": lambda: f"treasures: {_names(e.get('treasures', []))}",
        "trinkets_revealed": lambda: f"trinkets: {_names(e.get('trinkets', []))}",
        "plan_reported": lambda: f"seat {e.get('seat')} shows Plan {e.get('plan')}",
        "plan_deck_reshuffled": lambda: "Plan deck reshuffled",
        "plans_dealt": lambda: "Plans dealt",
    }
    if kind in special:
        return special[kind]()
    words = kind.replace("_", " ")
    details = [
        f"{k.replace('_', ' ')} {_names(v)}"
        for k, v in event.items()
        if k not in INTERNAL_KEYS and v not in (None, [], {}, "")
    ]
    head = f"{who}: {words}" if who else words
    return f"{head} ({'; '.join(details)})" if details else head


def last_lines(events: list[dict[str, Any]] | None, n: int) -> list[str]:
    """The last `n` events worth showing, oldest first."""
    shown = [describe_event(e) for e in (events or []) if e.get("type") not in QUIET]
    return shown[-n:]
