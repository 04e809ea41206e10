"""The overview: a screen beside the table showing the whole game, drawn from the public state.

`render_overview(game, state, events, size)` is a pure function of the referee's public state
(and the last public events): the same input always gives the same picture.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

from calibration.errormap import ErrorMap
from display import style
from display.canvas import SHIFT, TableFit, canvas, fill, line, nice_step_mm, outline, tint
from display.errortint import draw_error_map
from display.shapes import as_points, centre, nearest_points, rounded_offset
from display.tablestate import current_space, pawn_marks, player_colours
from display.text import BOLD, put_text, wrap
from display.theplan_overview import render_theplan
from display.words import last_lines

Size = tuple[int, int]
BANNER_H = 78  # the "X WINS" band above the table at game over


def render_overview(
    game: str,
    state: dict[str, Any],
    events: list[dict[str, Any]] | None = None,
    size: Size = (1280, 720),
    error_map: ErrorMap | None = None,
) -> np.ndarray:
    """The overview picture (BGR, size = (width, height)) of a game's public state.
    `game` is "masterplan" or "theplan" (as `StateMirror.game`); `events` are public events,
    oldest first (the last few are listed). `error_map` (the calibration's) tints Master Plan's
    table by how surely the camera measures each part of it."""
    width, height = _check_size(size)
    if game == "masterplan":
        return render_masterplan(state, events, (width, height), error_map)
    if game == "theplan":
        return render_theplan(state, events, (width, height))
    raise ValueError(f"no overview for game {game!r}; the referee runs 'masterplan' or 'theplan'")


def _check_size(size: Size) -> Size:
    w, h = (int(v) for v in size)
    if w < 320 or h < 240:
        raise ValueError(f"a picture of {w}x{h} is too small to read; use at least 320x240")
    return w, h


# ---- Master Plan ------------------------------------------------------------------------------
def _panel_width(width: int) -> int:
    return max(260, int(width * 0.3))


def table_fit(state: dict[str, Any], size: Size) -> tuple[TableFit, tuple[int, int, int, int]]:
    """Where Master Plan's table (mm) lands in the overview picture: the mapping and the table's
    rectangle (x, y, w, h) in pixels. It frames every card and the current reach zone."""
    width, height = size
    here = current_space(state)
    polys = [as_points(s["corners"]) for s in state.get("table", [])]
    if here is not None and state.get("moves"):
        polys.append(rounded_offset(here["corners"], float(state.get("reach_mm", 63.0))))
    # At game over the result takes a band above the table, which shrinks to stay whole below it.
    band = BANNER_H + 6 if state.get("game_over") else 0
    rect = (10, 10 + band, width - _panel_width(width) - 20, height - 20 - band)
    return TableFit.around(polys, rect), rect


def render_masterplan(
    state: dict[str, Any], events: list[dict[str, Any]] | None, size: Size, error_map: ErrorMap | None = None
) -> np.ndarray:
    width, height = size
    img = canvas(width, height, style.BACKGROUND)
    panel_w = _panel_width(width)
    table = state.get("table", [])
    reach = float(state.get("reach_mm", 63.0))
    here = current_space(state)
    moves = state.get("moves", []) or []
    zone = rounded_offset(here["corners"], reach) if here is not None and moves else None

    fit, rect = table_fit(state, size)
    x, y, w, h = rect
    cv2.rectangle(img, (x, y), (x + w, y + h), style.FELT, -1)
    if error_map is not None:
        draw_error_map(img, fit, rect, error_map)
    _grid(img, fit, rect)

    if zone is not None:
        # The reach zone: every point within one reach of the pawn's card.
        tint(img, fit, zone, style.REACH, 0.16)
        outline(img, fit, zone, style.REACH, 1)

    colours = player_colours(state)
    owners = {p["name"]: p for p in state.get("players", [])}
    _cards(img, fit, table, colours, owners)
    by_space = {s["space"]: s for s in table}
    for move in moves:
        dest = by_space.get(move.get("to"))
        if dest is not None:
            _destination(img, fit, here, dest, move)
    if here is not None:
        outline(img, fit, here["corners"], (255, 255, 255), 3)
    _pawns(img, fit, table, colours, pawn_marks(state))
    _scale_bar(img, fit, rect)
    _panel(img, state, events, colours, (width - panel_w, 0, panel_w, height))
    if state.get("game_over"):
        _banner(img, state, rect)
    return img


def _grid(img: np.ndarray, fit: TableFit, rect: tuple[int, int, int, int]) -> None:
    x, y, w, h = rect
    step = nice_step_mm(fit.scale, 50)
    x0, y0, x1, y1 = fit.visible_mm(x + w, y + h)
    colour = tuple(int(c * 1.15) for c in style.FELT)
    for gx in np.arange(np.ceil(x0 / step) * step, x1, step):
        px = fit.point((gx, 0))[0]
        if x <= px <= x + w:
            cv2.line(img, (px, y), (px, y + h), colour, 1)
    for gy in np.arange(np.ceil(y0 / step) * step, y1, step):
        py = fit.point((0, gy))[1]
        if y <= py <= y + h:
            cv2.line(img, (x, py), (x + w, py), colour, 1)


def _cards(
    img: np.ndarray,
    fit: TableFit,
    table: list[dict[str, Any]],
    colours: dict[str, tuple[int, int, int]],
    owners: dict[str, dict[str, Any]],
) -> None:
    backs = [
        fit.ipx(s["corners"]) for s in table if s.get("kind") not in ("trophy",) and not s.get("face_up")
    ]
    for s in table:
        kind = s.get("kind")
        colour = (
            style.TROPHY if kind == "trophy" else style.CARD_FACE if s.get("face_up") else style.CARD_BACK
        )
        fill(img, fit, s["corners"], colour)
    if backs:
        # The back pattern: diagonal hatching, only inside face-down cards (within their bounding box).
        pts = np.vstack(backs) >> SHIFT
        x0, y0 = np.maximum(pts.min(axis=0), 0)
        x1, y1 = np.minimum(pts.max(axis=0) + 2, [img.shape[1], img.shape[0]])
        mask = np.zeros((max(0, y1 - y0), max(0, x1 - x0)), np.uint8)
        offset = np.array([x0, y0], np.int32) << SHIFT
        cv2.fillPoly(mask, [b - offset for b in backs], 255, cv2.LINE_8, SHIFT)
        yy, xx = np.mgrid[y0:y1, x0:x1]
        step = max(6, int(fit.scale * 8))
        img[y0:y1, x0:x1][((xx - yy) % step == 0) & (mask > 0)] = style.CARD_BACK_LINE
    card_w = fit.scale * 63.0
    for s in table:
        outline(img, fit, s["corners"], style.CARD_EDGE, 1)
        c = fit.px([centre(s["corners"])])[0]
        kind = s.get("kind")
        scale = max(0.3, min(0.5, card_w / 130))
        if kind == "start":
            owner = s.get("owner")
            outline(img, fit, s["corners"], colours.get(owner, style.DIM), 3)
            villain = owners.get(owner, {}).get("villain") or ""
            put_text(
                img,
                villain,
                (c[0], c[1] - 14 * scale / 0.4),
                scale,
                (40, 40, 40),
                1,
                anchor="centre",
                max_width=card_w,
            )
            put_text(img, f"start {owner}", (c[0], c[1]), scale * 0.85, (90, 90, 90), 1,
                     anchor="centre", max_width=card_w)  # fmt: skip
        elif kind == "trophy":
            put_text(img, "TROPHY", (c[0], c[1]), scale, (20, 20, 20), 1, BOLD, "centre", card_w)
        elif s.get("face_up"):
            lines = wrap(str(s.get("name") or s["space"]), scale, card_w - 4)[:3]
            top = c[1] - (len(lines) - 1) * 8 * scale / 0.4
            for i, text in enumerate(lines):
                put_text(img, text, (c[0], top + i * 16 * scale / 0.4), scale, (30, 30, 30), 1,
                         anchor="centre", max_width=card_w - 2)  # fmt: skip
        else:
            put_text(
                img, s["space"], (c[0], c[1]), scale, (240, 240, 240), 1, anchor="centre", max_width=card_w
            )


def _destination(
    img: np.ndarray, fit: TableFit, here: dict[str, Any] | None, dest: dict[str, Any], move: dict[str, Any]
) -> None:
    colour = style.verdict_colour(move)
    tint(img, fit, dest["corners"], colour, 0.6)
    outline(img, fit, dest["corners"], colour, 3)
    label = f"{float(move.get('gap_mm', 0.0)):.1f} mm"
    if move.get("verdict") == "too_close_to_call":
        label += f" +-{float(move.get('sigma_gap_mm', 0.0)):.1f}"
    if here is None:
        anchor = fit.px([centre(dest["corners"])])[0]
    else:
        a, b = nearest_points(here["corners"], dest["corners"])
        line(img, fit, a, b, colour, 2)
        anchor = fit.px([(a + b) / 2])[0]
    c = fit.px([centre(dest["corners"])])[0]
    put_text(img, label, (c[0], c[1] + 18), 0.45, (255, 255, 255), anchor="centre", halo=(0, 0, 0))
    cv2.circle(img, (int(anchor[0]), int(anchor[1])), 3, colour, -1, cv2.LINE_AA)


def _pawns(
    img: np.ndarray,
    fit: TableFit,
    table: list[dict[str, Any]],
    colours: dict[str, tuple[int, int, int]],
    marks: dict[str, str],
) -> None:
    """Pawns sit in a row on the lower edge of their card, clear of the name written in its middle."""
    radius = max(9, int(fit.scale * 13))
    for s in table:
        pawns = s.get("pawns") or []
        if not pawns:
            continue
        corners = fit.px(s["corners"])
        cx = corners[:, 0].mean()
        cy = corners[:, 1].max() - radius * 0.4  # straddling the card's bottom edge: still on it
        for i, name in enumerate(pawns):
            dx = (i - (len(pawns) - 1) / 2) * radius * 2.1
            p = (int(round(cx + dx)), int(round(cy)))
            cv2.circle(img, p, radius + 2, (0, 0, 0), -1, cv2.LINE_AA)
            cv2.circle(img, p, radius, colours.get(name, style.DIM), -1, cv2.LINE_AA)
            mark = marks.get(name, name[:2].upper())
            put_text(img, mark, (p[0], p[1] + radius * 0.4), radius / 24, (0, 0, 0), 2, anchor="centre",
                     max_width=radius * 1.8)  # fmt: skip


def _scale_bar(img: np.ndarray, fit: TableFit, rect: tuple[int, int, int, int]) -> None:
    x, y, w, h = rect
    step = nice_step_mm(fit.scale, 60)
    length = int(round(step * fit.scale))
    y0 = y + h - 12
    cv2.line(img, (x + 12, y0), (x + 12 + length, y0), style.TEXT, 2)
    put_text(img, f"{step:g} mm", (x + 18 + length, y0 + 4), 0.4, style.TEXT)
    put_text(img, "Trophy ^", (x + w - 8, y + 18), 0.45, style.DIM, anchor="right")


def _panel(
    img: np.ndarray,
    state: dict[str, Any],
    events: list[dict[str, Any]] | None,
    colours: dict[str, tuple[int, int, int]],
    rect: tuple[int, int, int, int],
) -> None:
    x, y, w, h = rect
    cv2.rectangle(img, (x, y), (x + w, y + h), style.PANEL, -1)
    left, width = x + 12, w - 24
    cy = y + 30
    put_text(img, "MASTER PLAN", (left, cy), 0.75, style.TEXT, 2, BOLD, max_width=width)
    put_text(img, f"turn {state.get('turn', '?')}", (x + w - 12, cy), 0.5, style.DIM, anchor="right")
    cy += 30
    current = state.get("current")
    if current and not state.get("game_over"):
        cv2.circle(img, (left + 8, cy - 6), 8, colours.get(current, style.DIM), -1, cv2.LINE_AA)
        put_text(img, f"{current} to play: {state.get('step')} step", (left + 24, cy), 0.55, style.TEXT,
                 max_width=width - 24)  # fmt: skip
        cy += 22
    waiting = state.get("waiting")
    if waiting:
        what = str(waiting.get("for", "")).replace("_", " ")
        put_text(img, f"waiting: {what} ({waiting.get('player', current)})", (left, cy), 0.45, style.VERDICT_BGR["too_close_to_call"],
                 max_width=width)  # fmt: skip
        cy += 20
    info = f"deck {state.get('deck_size', '?')}  discard {state.get('discard_size', '?')}"
    if state.get("sudden_death"):
        info += "  SUDDEN DEATH"
    put_text(img, info, (left, cy), 0.45, style.DIM, max_width=width)
    cy += 26
    for p in state.get("players", []):
        name = p["name"]
        colour = colours.get(name, style.DIM)
        cv2.circle(img, (left + 8, cy - 5), 7, colour, -1, cv2.LINE_AA)
        text = f"{name} ({p.get('villain')})  hand {p.get('hand_size')}  at {p.get('position') or '-'}"
        tone = style.DIM if p.get("eliminated") else style.TEXT
        # The winner's line makes room for the word WINNER at its right end.
        room = width - 22
        if state.get("winner") == name:
            room -= put_text(img, "WINNER", (x + w - 12, cy), 0.45, style.TROPHY, 1, BOLD, "right") + 8
        drawn = put_text(img, text, (left + 22, cy), 0.45, tone, max_width=room)
        if p.get("eliminated"):
            cv2.line(img, (left + 22, cy - 5), (left + 22 + drawn, cy - 5), style.VERDICT_BGR["illegal"], 2)
        cy += 21
    moves = state.get("moves") or []
    if moves:
        cy += 6
        put_text(img, "jumps from here", (left, cy), 0.45, style.DIM)
        cy += 19
        for m in moves[:8]:
            word = style.VERDICT_WORDS.get(str(m.get("verdict")), str(m.get("verdict")))
            if not m.get("allowed", True):
                word = "not allowed now"
            text = f"{m.get('to')}: {float(m.get('gap_mm', 0)):.1f} mm {word}" + (
                " - WINS" if m.get("wins") else ""
            )
            put_text(img, text, (left + 8, cy), 0.45, style.verdict_colour(m), max_width=width - 8)
            cy += 18
    cy += 10
    put_text(img, "last events", (left, cy), 0.45, style.DIM)
    cy += 19
    room = max(0, (y + h - 8 - cy) // 18 + 1)
    for text in last_lines(events, room):
        put_text(img, text, (left + 8, cy), 0.42, style.TEXT, max_width=width - 8)
        cy += 18


def _banner(img: np.ndarray, state: dict[str, Any], rect: tuple[int, int, int, int]) -> None:
    """The result in a band above the table (`rect`), so the final table stays in view."""
    x, y, w, _ = rect
    top = y - BANNER_H - 6
    cv2.rectangle(img, (x, top), (x + w, top + BANNER_H), (0, 0, 0), -1)
    winner = state.get("winner")
    text = f"{winner} WINS" if winner else "GAME OVER"
    put_text(img, text, (x + w / 2, top + 44), 1.4, style.TROPHY, 3, BOLD, "centre", w - 20)
    if state.get("game_over_reason"):
        put_text(img, str(state["game_over_reason"]), (x + w / 2, top + 68), 0.5, style.TEXT, 1,
                 anchor="centre", max_width=w - 20)  # fmt: skip
