"""The Plan's overview: the museum, who has committed (never what), revealed Plans, every
player's collection and score, and where the game stands."""

from __future__ import annotations

import zlib
from collections import Counter
from typing import Any

import cv2
import numpy as np

from display import style
from display.canvas import canvas
from display.text import BOLD, put_text
from display.words import last_lines

Size = tuple[int, int]


def collection_of(item: str) -> str:
    """'paintings-2a' -> 'paintings' (treasures and trinkets are named COLLECTION-...)."""
    return str(item).rsplit("-", 1)[0]


def collection_colour(name: str, state: dict[str, Any]) -> tuple[int, int, int]:
    """A collection's colour. The game's collections (the state's "collections", in the
    components file's order) get hues spread evenly round the wheel (no two alike); any other
    name a stable hue of its own."""
    kinds = list(state.get("collections") or [])
    n = len(kinds)
    # Stepping 3 round the wheel per kind (coprime with 10) puts neighbours in the file far apart.
    hue = (kinds.index(name) * 3 % n) * 180 // n if name in kinds else zlib.crc32(name.encode()) % 180
    hsv = np.uint8([[[hue, 150, 220]]])
    return tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])  # type: ignore[return-value]


def plan_face(state: dict[str, Any], plan_id: str) -> tuple[str, list[str]]:
    """A Plan card's type name and its experts' collections, e.g. ('Team of Two', ['jewels',
    'sculptures']), as the state's "plan_faces" give them (the referee's public and player views
    carry the faces of the Plans they show); an id without a face shows as itself."""
    face = (state.get("plan_faces") or {}).get(str(plan_id))
    if not isinstance(face, dict):
        return str(plan_id), []
    return str(face.get("type", plan_id)), [str(k) for k in face.get("experts") or []]


def draw_plan_line(
    img: np.ndarray, state: dict[str, Any], plan_id: str, org: tuple[int, int], max_width: float
) -> None:
    """'Plan: Team of Two' followed by a swatch in each expert's collection colour."""
    name, experts = plan_face(state, plan_id)
    size = 12
    room = max_width - len(experts) * (size + 4)
    x = org[0] + put_text(img, f"Plan: {name}", org, 0.45, style.TROPHY, max_width=max(room, 40)) + 6
    for kind in experts:
        cv2.rectangle(img, (x, org[1] - size), (x + size, org[1]), collection_colour(kind, state), -1)
        cv2.rectangle(img, (x, org[1] - size), (x + size, org[1]), style.CARD_EDGE, 1)
        x += size + 4


def passing_direction(round_number: int) -> str:
    """docs/rules-theplan.md, "A turn": Plans pass to the left in odd rounds and to the right in even ones."""
    return "left" if round_number % 2 == 1 else "right"


def _tile(img: np.ndarray, colour: tuple[int, int, int], item: str, x: int, y: int, w: int, h: int) -> None:
    cv2.rectangle(img, (x, y), (x + w, y + h), style.CARD_FACE, -1)
    cv2.rectangle(img, (x, y), (x + w, y + h // 3), colour, -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), style.CARD_EDGE, 1)
    coll, _, tag = str(item).rpartition("-")
    put_text(img, coll.replace("_", " "), (x + 3, y + h // 3 - 4), 0.35, (20, 20, 20), max_width=w - 6)
    put_text(img, tag, (x + w / 2, y + h - 6), 0.5, (20, 20, 20), 1, anchor="centre", max_width=w - 6)


def _tiles(
    img: np.ndarray,
    state: dict[str, Any],
    items: list[str],
    x: int,
    y: int,
    w: int,
    tile: Size,
    max_rows: int,
) -> int:
    """Lay tiles left to right, wrapping; returns the y below them."""
    tw, th = tile
    per_row = max(1, (w + 6) // (tw + 6))
    shown = items[: per_row * max_rows]
    for i, item in enumerate(shown):
        colour = collection_colour(collection_of(item), state)
        _tile(img, colour, item, x + (i % per_row) * (tw + 6), y + (i // per_row) * (th + 6), tw, th)
    rows = max(1, -(-len(shown) // per_row))
    if len(items) > len(shown):
        put_text(img, f"+{len(items) - len(shown)} more", (x + w, y + rows * (th + 6) + 12), 0.4, style.DIM,
                 anchor="right")  # fmt: skip
    return y + rows * (th + 6)


def render_theplan(state: dict[str, Any], events: list[dict[str, Any]] | None, size: Size) -> np.ndarray:
    width, height = size
    img = canvas(width, height, style.BACKGROUND)
    side_w = max(240, int(width * 0.28))
    main_w = width - side_w
    left, cy = 14, 32
    round_no = int(state.get("round") or 1)
    put_text(img, "THE PLAN", (left, cy), 0.8, style.TEXT, 2, BOLD)
    head = (
        f"round {round_no}  turn {state.get('turn', '?')} of 4   phase: {state.get('phase')}"
        f"   Plans pass {passing_direction(round_no)}"
    )
    put_text(img, head, (left + 170, cy), 0.5, style.TEXT, max_width=main_w - left - 180)
    cy += 24
    stage = " / ".join(str(v).replace("_", " ") for v in (state.get("stage"), state.get("step")) if v)
    to_act = ", ".join(state.get("to_act") or []) or "-"
    put_text(img, f"{stage + '   ' if stage else ''}waiting for: {to_act}", (left, cy), 0.45, style.DIM,
             max_width=main_w - 2 * left)  # fmt: skip
    cy += 14

    # The museum.
    face_up = state.get("face_up") or {}
    piles = state.get("piles") or {}
    cy += 18
    put_text(img, f"museum: treasures (pile {piles.get('treasures', '?')})", (left, cy), 0.45, style.DIM)
    cy = _tiles(img, state, list(face_up.get("treasures", [])), left, cy + 6, main_w - 2 * left, (96, 54), 1)
    cy += 16
    put_text(img, f"trinkets (pile {piles.get('trinkets', '?')})", (left, cy), 0.45, style.DIM)
    cy = _tiles(img, state, list(face_up.get("trinkets", [])), left, cy + 6, main_w - 2 * left, (72, 40), 2)
    cy += 8

    # The players.
    seats = list(state.get("seats") or [])
    players = state.get("players") or {}
    names = seats + [p for p in players if p not in seats]
    revealed = state.get("plans_revealed") or {}
    winners = set((state.get("result") or {}).get("winners") or [])
    row_h = max(44, min(74, (height - cy - 20) // max(1, len(names))))
    score_font, score_scale, score_thick = style.SCORE_FONT
    for i, name in enumerate(names):
        p = players.get(name, {})
        top = cy + i * row_h
        cv2.rectangle(img, (left - 4, top + 2), (main_w - left, top + row_h - 2), style.PANEL, -1)
        cv2.circle(img, (left + 10, top + 20), 8, style.player_colour(i), -1, cv2.LINE_AA)
        ghost = " (ghost)" if name in (state.get("ghosts") or []) else ""
        put_text(img, f"{name}{ghost}", (left + 26, top + 26), 0.6, style.TEXT, 1, BOLD, max_width=150)
        status = []
        if state.get("phase") == "commit":
            status.append("committed" if p.get("committed") else "choosing a Plan")
        if p.get("pass_chosen"):
            status.append("pass chosen")
        if p.get("bid_placed"):
            status.append("bid placed")
        score = p.get("score") or {}
        text_x = left + 190
        # Points and sets sit right of the collection line, left of the big score: measured, so
        # the collection is cut before it reaches them.
        points_w = put_text(img, f"points {score.get('points', 0)}  sets {score.get('sets', 0)}",
                            (main_w - left - 110, top + 44), 0.38, style.DIM, anchor="right")  # fmt: skip
        room = main_w - left - 110 - points_w - 14 - text_x
        line1 = f"hand {p.get('hand', '?')}" + (f"   {', '.join(status)}" if status else "")
        drawn = put_text(img, line1, (text_x, top + 22), 0.45, style.TEXT, max_width=room)
        plan = revealed.get(name)
        if plan:
            draw_plan_line(img, state, plan, (text_x + drawn + 18, top + 22), room - drawn - 18)
        treasures = Counter(collection_of(t) for t in p.get("treasures", []))
        coll = ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in sorted(treasures.items())) or "no treasures"
        trinkets = len(p.get("trinkets", []))
        put_text(img, f"{coll}; trinkets {trinkets}", (text_x, top + 42), 0.4, style.DIM, max_width=room)
        colour = style.TROPHY if name in winners else style.TEXT
        put_text(img, str(score.get("score", 0)), (main_w - left - 14, top + row_h // 2 + 10), score_scale, colour,
                 score_thick, score_font, "right")  # fmt: skip

    # Side column: contests, result, events.
    sx, sy = main_w + 10, 32
    cv2.rectangle(img, (main_w, 0), (width, height), style.PANEL, -1)
    contests = state.get("contests") or []
    if state.get("chooser"):
        put_text(img, f"chooser: {state['chooser']}", (sx, sy), 0.45, style.TEXT, max_width=side_w - 20)
        sy += 20
    for c in contests[:4]:
        put_text(img, f"contest {c.get('contest')}: {', '.join(c.get('bidders', []))}", (sx, sy), 0.42,
                 style.VERDICT_BGR["too_close_to_call"], max_width=side_w - 20)  # fmt: skip
        sy += 18
    claims = state.get("claim_order") or []
    if claims:
        order = ", ".join(c["player"] + (" (blind)" if c.get("blind") else "") for c in claims)
        put_text(img, f"claiming: {order}", (sx, sy), 0.42, style.TEXT, max_width=side_w - 20)
        sy += 20
    put_text(img, f"Plan deck {piles.get('plan_deck', '?')}  discard {piles.get('plan_discard', '?')}", (sx, sy), 0.42,
             style.DIM, max_width=side_w - 20)  # fmt: skip
    sy += 26
    if winners:
        put_text(img, f"WINNER: {', '.join(sorted(winners))}", (sx, sy), 0.6, style.TROPHY, 2, BOLD,
                 max_width=side_w - 20)  # fmt: skip
        sy += 28
    put_text(img, "last events", (sx, sy), 0.45, style.DIM)
    sy += 20
    for text in last_lines(events, max(0, (height - 8 - sy) // 18 + 1)):
        put_text(img, text, (sx + 6, sy), 0.4, style.TEXT, max_width=side_w - 26)
        sy += 18
    return img
