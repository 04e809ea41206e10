"""Reading Master Plan's public state: whose pawn is where, and each seat's colour."""

from __future__ import annotations

from typing import Any

from display import style


def player_colours(state: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    return {p["name"]: style.player_colour(i) for i, p in enumerate(state.get("players", []))}


def current_space(state: dict[str, Any]) -> dict[str, Any] | None:
    """The table entry under the current player's pawn (where reach is measured from)."""
    current = state.get("current")
    position = next((p.get("position") for p in state.get("players", []) if p["name"] == current), None)
    return next((s for s in state.get("table", []) if s["space"] == position), None)
