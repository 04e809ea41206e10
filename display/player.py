"""One seat's private screen: the hand, the face-down cards this player knows (own placements,
peeks), the secret Plan. Fed only by that seat's own connection (`Connection.request("view")`)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from display import style
from display.canvas import canvas
from display.text import BOLD, put_text, wrap
from display.theplan_overview import collection_colour, collection_of, plan_face

Size = tuple[int, int]


def render_player_view(game: str, view: dict[str, Any], size: Size = (1280, 720)) -> np.ndarray:
    """The private view of one seat (BGR). `view` is the referee's answer to that seat's "view"
    (or "join") request; `game` is "masterplan" or "theplan"."""
    width, height = (int(v) for v in size)
    if width < 320 or height < 240:
        raise ValueError(f"a picture of {width}x{height} is too small to read; use at least 320x240")
    if not isinstance(view, dict):
        raise ValueError("no private view to show: join a seat first")
    img = canvas(width, height, style.BACKGROUND)
    if game == "masterplan":
        _masterplan(img, view)
    elif game == "theplan":
        _theplan(img, view)
    else:
        raise ValueError(f"no player view for game {game!r}; the referee runs 'masterplan' or 'theplan'")
    return img


Card = tuple[str, str, tuple[int, int, int], list[tuple[int, int, int]]]  # title, body, band, swatches


def _card(img: np.ndarray, x: int, y: int, w: int, h: int, card: Card) -> None:
    title, body, band, swatches = card
    cv2.rectangle(img, (x, y), (x + w, y + h), style.CARD_FACE, -1)
    cv2.rectangle(img, (x, y), (x + w, y + 22), band, -1)
    cv2.rectangle(img, (x, y), (x + w, y + h), style.CARD_EDGE, 1)
    put_text(img, title, (x + 5, y + 16), 0.42, (20, 20, 20), max_width=w - 10)
    scale, step = (0.4, 16) if swatches else (0.5, 20)  # a Plan card holds up to four expert names
    lines = max(1, (h - 30 - (22 if swatches else 0)) // step)
    for i, text in enumerate(wrap(body, scale, w - 10)[:lines]):
        put_text(img, text, (x + 5, y + 26 + (i + 1) * step), scale, (20, 20, 20), max_width=w - 10)
    side = min(18, (w - 10) // max(1, len(swatches)) - 4)
    for i, colour in enumerate(swatches):  # a Plan's experts, in their collections' colours
        sx = x + 5 + i * (side + 4)
        cv2.rectangle(img, (sx, y + h - side - 5), (sx + side, y + h - 5), colour, -1)
        cv2.rectangle(img, (sx, y + h - side - 5), (sx + side, y + h - 5), style.CARD_EDGE, 1)


def _row(img: np.ndarray, cards: list[Card], y: int, card: Size) -> int:
    w, h = card
    per_row = max(1, (img.shape[1] - 28 + 10) // (w + 10))
    for i, c in enumerate(cards):
        _card(img, 14 + (i % per_row) * (w + 10), y + (i // per_row) * (h + 10), w, h, c)
    rows = max(1, -(-len(cards) // per_row))
    return y + rows * (h + 10)


def _header(img: np.ndarray, title: str, seat: str, line: str) -> int:
    put_text(img, title, (14, 32), 0.75, style.TEXT, 2, BOLD)
    put_text(img, f"{seat} - private: keep this screen to yourself", (img.shape[1] - 14, 32), 0.5,
             style.VERDICT_BGR["too_close_to_call"], anchor="right")  # fmt: skip
    put_text(img, line, (14, 60), 0.55, style.TEXT, max_width=img.shape[1] - 28)
    return 90


def _masterplan(img: np.ndarray, view: dict[str, Any]) -> None:
    seat = str(view.get("you", "?"))
    me = next((p for p in view.get("players", []) if p["name"] == seat), {})
    turn = "your turn" if view.get("current") == seat else f"{view.get('current')} to play"
    line = f"{turn}: {view.get('step')} step   your pawn on {me.get('position') or '-'}   ({me.get('villain', '')})"
    if me.get("eliminated"):
        line = "you are out of the game"
    y = _header(img, "MASTER PLAN", seat, line)
    waiting = view.get("waiting") or {}
    if waiting.get("player") == seat:
        what = str(waiting.get("for", "")).replace("_", " ")
        options = ", ".join(map(str, waiting.get("options") or []))
        card = f" ({waiting['card_name']})" if waiting.get("card_name") else ""
        text = f"you must {what}{card}" + (f": {options}" if options else "")
        put_text(
            img, text, (14, y - 6), 0.5, style.VERDICT_BGR["too_close_to_call"], max_width=img.shape[1] - 28
        )
        y += 20
    hand = view.get("hand")
    put_text(img, f"your hand ({me.get('hand_size', 0)} cards)", (14, y), 0.5, style.DIM)
    if hand is None:
        put_text(img, "physical deck: your cards are in your hand", (14, y + 24), 0.5, style.TEXT)
        y += 40
    else:
        y = _row(
            img,
            [(f"card {c.get('card')}", str(c.get("name")), style.CARD_BACK_LINE, []) for c in hand],
            y + 10,
            (150, 110),
        )
    known = view.get("known_face_down") or {}
    y += 14
    put_text(img, "face-down cards you know", (14, y), 0.5, style.DIM)
    y += 22
    for space, name in sorted(known.items())[:12]:
        put_text(img, f"{space}: {name}", (28, y), 0.5, style.TEXT)
        y += 20
    if not known:
        put_text(img, "none", (28, y), 0.5, style.DIM)
        y += 20
    moves = view.get("legal_moves") or []
    if moves:
        y += 10
        put_text(img, "your jumps now", (14, y), 0.5, style.DIM)
        y += 22
        for m in moves[:10]:
            word = style.VERDICT_WORDS.get(str(m.get("verdict")), str(m.get("verdict")))
            text = f"{m.get('to')}: {float(m.get('gap_mm', 0)):.1f} mm {word}" + (
                "" if m.get("allowed", True) else f" - not allowed: {m.get('reason')}"
            )
            put_text(img, text, (28, y), 0.5, style.verdict_colour(m), max_width=img.shape[1] - 40)
            y += 20


def _theplan(img: np.ndarray, view: dict[str, Any]) -> None:
    you = view.get("you") or {}
    seat = str(you.get("player", "?"))
    me = (view.get("players") or {}).get(seat, {})
    score = (me.get("score") or {}).get("score", 0)
    line = (
        f"round {view.get('round')} turn {view.get('turn')}   phase: {view.get('phase')}   your score {score}"
    )
    y = _header(img, "THE PLAN", seat, line)
    hand = you.get("hand")
    committed = you.get("committed_plan")
    passing = set(you.get("pass") or [])
    put_text(img, "your Plans", (14, y), 0.5, style.DIM)
    if hand is None:
        put_text(img, "physical mode: your Plans are in your hand", (14, y + 24), 0.5, style.TEXT)
        y += 40
    else:
        cards = []
        for plan in hand:
            name, experts = plan_face(view, plan)
            note = ("PASSING " if plan in passing else "") + ", ".join(k.replace("_", " ") for k in experts)
            cards.append((name, note, (120, 90, 200), [collection_colour(k, view) for k in experts]))
        y = _row(img, cards, y + 10, (150, 110))
    y += 14
    chosen = f"{plan_face(view, committed)[0]} ({committed})" if committed else "-"
    put_text(img, f"committed: {chosen}", (14, y), 0.6, style.TROPHY if committed else style.TEXT)
    y += 26
    if you.get("bid") is not None:
        put_text(img, f"your bid: {you.get('bid')}", (14, y), 0.55, style.TEXT)
        y += 26
    put_text(img, "your collection", (14, y), 0.5, style.DIM)
    y += 10
    items = list(me.get("treasures", [])) + list(me.get("trinkets", []))
    cards = [
        (
            collection_of(t).replace("_", " "),
            t.rpartition("-")[2],
            collection_colour(collection_of(t), view),
            [],
        )
        for t in items
    ]
    _row(img, cards, y, (96, 60))
