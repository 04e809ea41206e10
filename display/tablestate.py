"""Reading Master Plan's public state: whose pawn is where, and each seat's colour."""

from __future__ import annotations

import re
from typing import Any

from display import style


def player_colours(state: dict[str, Any]) -> dict[str, tuple[int, int, int]]:
    return {p["name"]: style.player_colour(i) for i, p in enumerate(state.get("players", []))}


def current_space(state: dict[str, Any]) -> dict[str, Any] | None:
    """The table entry under the current player's pawn (where reach is measured from)."""
    current = state.get("current")
    position = next((p.get("position") for p in state.get("players", []) if p["name"] == current), None)
    return next((s for s in state.get("table", []) if s["space"] == position), None)


def pawn_marks(state: dict[str, Any]) -> dict[str, str]:
    """Two letters per seat for its pawn, distinct among the seats in play: initials of the
    name's words ('Monster Nash' MN, 'Ms. Fyre' MF), else its first letters, else a number."""
    marks: dict[str, str] = {}
    names = [p["name"] for p in state.get("players", [])]
    for i, name in enumerate(names):
        words = re.findall(r"[^\W_]+", name) or [name or "?"]
        first = words[0]
        candidates = [
            "".join(w[0] for w in words[:2]).upper() if len(words) > 1 else "",
            first[:2].upper() if len(first) > 1 else first.upper(),
            (first[0] + first[-1]).upper(),
            *(f"{first[0].upper()}{c.upper()}" for c in first[1:]),
            f"{first[0].upper()}{i + 1}",
        ]
        marks[name] = next(c for c in candidates if c and c not in marks.values())
    return marks
