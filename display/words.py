"""One line of plain words per public event, for the overview's "last events" list."""

from __future__ import annotations

from typing import Any

# Bookkeeping that says nothing a player watches for.
QUIET = frozenset({"command_accepted", "game_set_up", "step_skipped"})


def _names(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {v}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(str(v) for v in value)
    return str(value)


def describe_event(event: dict[str, Any]) -> str:
    """E.g. 'ann moved start:ann -> S1', 'S1 turned up: Teleporter', 'game over: bob wins'."""
    kind = str(event.get("type", "?"))
    who = event.get("player")
    e = event
    special = {
        # A private copy (the placer's or drawer's own message) also names the cards.
        "card_placed": lambda: (
            f"{who} placed {e.get('space')}" + (f" ({e['name']})" if e.get("name") else "")
        ),
        "pawn_moved": lambda: (
            f"{who} moved {e.get('from')} -> {e.get('to')}" + ("" if e.get("flip", True) else " (no flip)")
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
    }
    if kind in special:
        return special[kind]()
    words = kind.replace("_", " ")
    details = [
        f"{k} {_names(v)}"
        for k, v in event.items()
        if k not in ("type", "player", "text") and v not in (None, [], {}, "")
    ]
    head = f"{who}: {words}" if who else words
    return f"{head} ({'; '.join(details)})" if details else head


def last_lines(events: list[dict[str, Any]] | None, n: int) -> list[str]:
    """The last `n` events worth showing, oldest first."""
    shown = [describe_event(e) for e in (events or []) if e.get("type") not in QUIET]
    return shown[-n:]
