"""The projector overlay: Master Plan's legal-move highlights painted onto the table itself.

Everything is laid out in table millimetres around the cards and mapped into projector pixels
with the calibration, on black. Light never falls on a card: every card's outline grown by
CLEARANCE_MM is blacked out last, so the highlights are rings around cards and lines across
the gaps, and neither the players nor the camera are dazzled by a lit card face. The margin is
wider than the few millimetres around a card in which the camera refines its edge: a lit edge
running along a card inside that band pulled the fitted side (on a white table a grey card
back's corner moved by ~1.5 mm with the light 1 mm away). A gap narrower than twice the margin
gets its label but no line.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from shapely.geometry import LineString, Polygon
from shapely.ops import unary_union

from display import style
from display.canvas import SHIFT
from display.shapes import as_points, distance_to_polygon, nearest_points, rounded_offset
from display.tablestate import current_space
from display.text import put_text, scale_for_cap_height, text_width

# Dark margin around every card: corner uncertainty, projector blur, and the camera's edge search
# around a card (~4 mm at 1080p over a 1 m table).
CLEARANCE_MM = 6.0
RING_MM = 9.0  # width of the ring of light around a destination card
GAP_LINE_MM = 3.0  # width of the line drawn across a gap
REACH_LINE_MM = 2.0  # width of the reach-zone outline
LABEL_OFFSET_MM = (
    12.0,
    18.0,
    26.0,
    36.0,
    48.0,
    62.0,
    78.0,
)  # the gap label sits beside the gap line, off the cards
# Letters are this tall on the table (not in pixels): read from a chair 1-2 m away, whatever the
# projector's throw and angle.
LABEL_MM = 8.0
STATUS_MM = 9.0  # whose turn and which step, written at the edge of the lit area


class NoProjectorCalibration(ValueError):
    """The calibration cannot say where the projector's pixels land on the table."""


def _dim(colour: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    return tuple(int(c * k) for c in colour)  # type: ignore[return-value]


def render_projector(
    state: dict[str, Any], calibration: Any, size: tuple[int, int] | None = None
) -> np.ndarray:
    """The projector picture (BGR, black where nothing is lit) for Master Plan's public state.
    `calibration` is a `calibration.Calibration` with a projector step; `size` (w, h) defaults
    to the projector size it was calibrated for. A state without moves gives a black picture."""
    if calibration is None or not getattr(calibration, "has_projector", False):
        raise NoProjectorCalibration(
            "no projector calibration: run 'tabletop calibrate projector PHOTO' (see 'tabletop calibrate --help')"
        )
    size = size or calibration.projector_size
    if size is None:
        raise NoProjectorCalibration(
            "the calibration does not record the projector's size: run 'tabletop calibrate projector' again"
        )
    width, height = (int(v) for v in size)
    img = np.zeros((height, width, 3), np.uint8)
    mapping = _Mapping(calibration, (width, height))
    here = current_space(state)
    moves = state.get("moves") or []
    if here is None or not moves:
        return img

    def to_px(points_mm: np.ndarray) -> np.ndarray:
        px = mapping.to_px(points_mm)
        return np.round(px * (1 << SHIFT)).astype(np.int32)

    def fill(polygon_mm: np.ndarray, colour: tuple[int, int, int]) -> None:
        cv2.fillPoly(img, [to_px(polygon_mm)], colour, cv2.LINE_AA, SHIFT)

    reach = float(state.get("reach_mm", 63.0))
    # The reach outline as a band between two offsets, so its width is in mm wherever it lands.
    fill(rounded_offset(here["corners"], reach + REACH_LINE_MM / 2), _dim(style.REACH, 0.6))
    fill(rounded_offset(here["corners"], reach - REACH_LINE_MM / 2), (0, 0, 0))
    fill(rounded_offset(here["corners"], CLEARANCE_MM + RING_MM / 2), (255, 255, 255))

    by_space = {s["space"]: s for s in state.get("table", [])}
    labels = []
    # What is lit (rings, gap lines): a label laid over them would be unreadable.
    lit = [Polygon(as_points(here["corners"])).buffer(CLEARANCE_MM + RING_MM / 2)]
    for move in moves:
        dest = by_space.get(move.get("to"))
        if dest is None:
            continue
        colour = style.verdict_colour(move)
        fill(rounded_offset(dest["corners"], CLEARANCE_MM + RING_MM), colour)
        a, b = nearest_points(here["corners"], dest["corners"])
        if np.hypot(*(b - a)) > 1e-6:
            fill(_band(a, b, GAP_LINE_MM), colour)
        labels.append((a, b, move, colour))
        lit += [Polygon(as_points(dest["corners"])).buffer(CLEARANCE_MM + RING_MM), LineString([a, b])]

    cards = [as_points(s["corners"]) for s in by_space.values()]
    for a, b, move, colour in labels:
        _label(img, mapping, a, b, move, colour, cards, lit)
    _status(img, mapping, state, cards, lit)
    for card in cards:
        _darken(img, mapping, card)
    return img


class _Mapping:
    """Table mm <-> pixels of the picture drawn, which may be scaled from the calibrated size."""

    def __init__(self, calibration: Any, size: tuple[int, int]) -> None:
        self.calibration = calibration
        calibrated = calibration.projector_size or size
        self.scale = np.array([size[0] / calibrated[0], size[1] / calibrated[1]])

    def to_px(self, points_mm: object) -> np.ndarray:
        pts = np.asarray(points_mm, dtype=float).reshape(-1, 2)
        return self.calibration.table_mm_to_projector_px(pts) * self.scale

    def to_mm(self, points_px: np.ndarray) -> np.ndarray:
        return self.calibration.projector_px_to_table_mm(np.asarray(points_px, dtype=float) / self.scale)


def _darken(img: np.ndarray, mapping: _Mapping, card: np.ndarray) -> None:
    """Black out every projector pixel whose centre lands on the card or within CLEARANCE_MM of
    it, judged pixel by pixel through the calibration (a filled polygon's edge rule is off by up
    to a pixel). Done last, so nothing drawn before can light a card."""
    h, w = img.shape[:2]
    box = mapping.to_px(rounded_offset(card, CLEARANCE_MM + 1.0, 4))
    x0, y0 = np.maximum(np.floor(box.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(box.max(axis=0)).astype(int) + 2, [w, h])
    if x1 <= x0 or y1 <= y0:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1]
    centres = np.column_stack([xs.ravel(), ys.ravel()]).astype(float)
    near = distance_to_polygon(card, mapping.to_mm(centres)) <= CLEARANCE_MM
    img[y0:y1, x0:x1][near.reshape(xs.shape)] = 0


def _band(a: np.ndarray, b: np.ndarray, width_mm: float) -> np.ndarray:
    d = (b - a) / np.hypot(*(b - a))
    n = np.array([-d[1], d[0]]) * width_mm / 2
    return np.array([a + n, b + n, b - n, a - n])


def _label(
    img: np.ndarray,
    mapping: _Mapping,
    a: np.ndarray,
    b: np.ndarray,
    move: dict[str, Any],
    colour: tuple[int, int, int],
    cards: list[np.ndarray],
    lit: list[Any],
) -> None:
    """The gap in mm written beside the gap line, on the first spot where it falls on no card."""
    mid = (a + b) / 2
    d = b - a
    n = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-9)
    if not n.any():
        n = np.array([0.0, 1.0])
    text = f"{float(move.get('gap_mm', 0.0)):.0f} mm"
    # Beside the line first, then round the gap's middle in growing circles (a short gap between
    # close cards may have no room beside it).
    turns = [n, -n] + [
        np.array([np.cos(a), np.sin(a)]) for a in np.linspace(0, 2 * np.pi, 12, endpoint=False)
    ]
    spots = [mid + off * t for off in LABEL_OFFSET_MM for t in turns]
    _write_clear(img, mapping, text, spots, LABEL_MM, colour, cards, lit)


def _status(
    img: np.ndarray, mapping: _Mapping, state: dict[str, Any], cards: list[np.ndarray], lit: list[Any]
) -> None:
    """'NAME: STEP step' along the top or bottom of the picture, wherever it falls on no card."""
    who, step = state.get("current"), state.get("step")
    if not who:
        return
    text = f"{who}: {step} step" if step else f"{who} to play"
    h, w = img.shape[:2]
    spots = mapping.to_mm([[w / 2, h * f] for f in (0.06, 0.94, 0.15, 0.85)])
    _write_clear(img, mapping, text, list(spots), STATUS_MM, (235, 235, 235), cards, lit)


def _write_clear(
    img: np.ndarray,
    mapping: _Mapping,
    text: str,
    spots_mm: list[np.ndarray],
    height_mm: float,
    colour: tuple[int, int, int],
    cards: list[np.ndarray],
    lit: list[Any],
) -> bool:
    """Write `text` centred on the first spot (mm) where its box lands on no card and nothing
    lit (else on the first spot clear of the cards alone), on a dark box, its capitals
    `height_mm` tall on the table (sized through the calibration at that spot)."""
    h, w = img.shape[:2]
    placed = []
    for spot in spots_mm:
        px = mapping.to_px(spot)[0]
        # Table mm per projector pixel going down the picture, here: the letters' height on the table.
        mm_per_px = float(np.hypot(*(mapping.to_mm(np.array([px, px + (0.0, 1.0)]))[1] - spot)))
        cap_px = height_mm / max(mm_per_px, 1e-9)
        scale = scale_for_cap_height(cap_px)
        half_w, half_h = text_width(text, scale) / 2 + cap_px * 0.3, cap_px * 0.9
        box_px = np.array(
            [[px[0] - half_w, px[1] - half_h], [px[0] + half_w, px[1] - half_h],
             [px[0] + half_w, px[1] + half_h], [px[0] - half_w, px[1] + half_h]]
        )  # fmt: skip
        if box_px.min() < 0 or (box_px[:, 0] >= w).any() or (box_px[:, 1] >= h).any():
            continue
        box_mm = mapping.to_mm(box_px)
        if any(_touches(box_mm, card) for card in cards):
            continue
        placed.append((px, cap_px, scale, box_px))
        if not Polygon(box_mm).intersects(unary_union(lit)):
            placed = placed[-1:]
            break
    if not placed:
        return False
    px, cap_px, scale, box_px = placed[0]
    cv2.fillConvexPoly(img, np.round(box_px).astype(np.int32), (0, 0, 0))  # no light behind the letters
    put_text(img, text, (px[0], px[1] + cap_px / 2), scale, colour, anchor="centre")
    return True


def _touches(box_mm: np.ndarray, card: np.ndarray) -> bool:
    """Whether a label's box comes within CLEARANCE_MM of a card (edges crossing included)."""
    return bool(Polygon(box_mm).distance(Polygon(card)) <= CLEARANCE_MM)
