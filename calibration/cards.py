"""Card size from the cards the camera sees: the median short and long edge in table mm.

Takes detections, not images (the detector lives in vision/): either corner arrays or the JSON
lines `tabletop detect --json` prints (docs/architecture.md, "Command line").
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np

from calibration.errors import CalibrationError

MIN_CARDS = 3
SHAPE_TOLERANCE = 0.05  # opposite edges / diagonals may differ this much (a clean rectangle)
OUTLIER_TOLERANCE = 0.08  # a card this far from the median is another kind, or two cards merged


@dataclass(frozen=True)
class CardSize:
    long_mm: float
    short_mm: float
    cards: int  # cards used
    rejected: int  # detections that were not clean rectangles or were far from the median
    spread_mm: float  # median absolute deviation of the short edges

    def to_step(self) -> dict:
        return {
            "source": "measured",
            "cards": self.cards,
            "rejected": self.rejected,
            "spread_mm": self.spread_mm,
        }


def edge_lengths(corners_mm: np.ndarray) -> tuple[float, float] | None:
    """(long, short) of one card's 4 corners in order, or None when it is not a clean rectangle."""
    c = np.asarray(corners_mm, dtype=float).reshape(4, 2)
    e = np.linalg.norm(np.roll(c, -1, axis=0) - c, axis=1)
    a, b = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
    d1, d2 = np.linalg.norm(c[2] - c[0]), np.linalg.norm(c[3] - c[1])
    if min(a, b) <= 0:
        return None
    if abs(e[0] - e[2]) > SHAPE_TOLERANCE * a or abs(e[1] - e[3]) > SHAPE_TOLERANCE * b:
        return None
    if abs(d1 - d2) > SHAPE_TOLERANCE * max(d1, d2):
        return None
    return float(max(a, b)), float(min(a, b))


def measure_card_size(cards_mm: list[np.ndarray]) -> CardSize:
    """Median long and short edge over clean, consistent card outlines (each 4 x 2 table mm)."""
    sizes = [s for s in (edge_lengths(c) for c in cards_mm) if s is not None]
    rejected = len(cards_mm) - len(sizes)
    if len(sizes) < MIN_CARDS:
        raise CalibrationError(
            f"only {len(sizes)} cleanly seen cards ({MIN_CARDS} needed): lay at least {MIN_CARDS} cards apart "
            "on the table, flat and not touching, and detect again"
        )
    arr = np.array(sizes)
    med = np.median(arr, axis=0)
    good = np.all(np.abs(arr - med) <= OUTLIER_TOLERANCE * med, axis=1)
    rejected += int((~good).sum())
    arr = arr[good]
    if len(arr) < MIN_CARDS:
        raise CalibrationError("the cards seen disagree about their size: use cards of one kind only")
    long_mm, short_mm = np.median(arr, axis=0)
    spread = float(np.median(np.abs(arr[:, 1] - short_mm)))
    return CardSize(float(long_mm), float(short_mm), len(arr), rejected, spread)


# Common card sizes (long, short) mm. Cards shaped like one of these but measured several % off
# its size point at a table scale that is off (a board spec for another board), not an odd deck.
COMMON_CARDS_MM = {
    "poker": (88.9, 63.5),
    "bridge": (88.9, 57.2),
    "tarot": (120.0, 70.0),
    "mini": (63.5, 44.5),
    "euro": (92.0, 59.0),
}
ASPECT_TOLERANCE = 0.03
CARD_SCALE_TOLERANCE = 0.04


def card_scale_warning(size: CardSize) -> str | None:
    """A warning when the measured cards have a common card's shape but not its size; None when
    they match one, or match no common shape at all (an unusual deck says nothing of the scale)."""
    aspect = size.long_mm / size.short_mm
    shaped = []
    for name, (long_mm, short_mm) in COMMON_CARDS_MM.items():
        if abs(aspect / (long_mm / short_mm) - 1) > ASPECT_TOLERANCE:
            continue
        scale = (size.long_mm / long_mm + size.short_mm / short_mm) / 2
        if abs(scale - 1) <= CARD_SCALE_TOLERANCE:
            return None
        shaped.append((abs(scale - 1), name, long_mm, short_mm, scale))
    if not shaped:
        return None
    likes = " or ".join(
        f"{name} cards ({long_mm:g} x {short_mm:g}) at {scale * 100:.0f} %"
        for _, name, long_mm, short_mm, scale in sorted(shaped)
    )
    return (
        f"the cards measure {size.long_mm:.1f} x {size.short_mm:.1f} mm: shaped like {likes} of their "
        "size. If that is not your deck, the table's scale is off: check the board spec ('calibrate "
        "table --board', a board.json beside the photos) and the print scale"
    )


def cards_from_detect_json(text: str, source: str = "detections") -> list[dict]:
    """The cards of `tabletop detect --json` output: JSON lines (one object per image) or a list.
    Each returned dict has "corners_px" (4 x 2 array) and "corners_mm" (4 x 2 array or None)."""
    text = text.strip()
    if not text:
        raise CalibrationError(f"{source} is empty: run 'tabletop detect IMAGE --json > {source}' first")
    try:
        if text.startswith("["):
            images = json.loads(text)
        else:
            images = [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise CalibrationError(
            f"{source} is not the JSON that 'tabletop detect --json' prints ({exc.msg})"
        ) from None
    cards = []
    for img in images:
        if not isinstance(img, dict) or not isinstance(img.get("cards"), list):
            raise CalibrationError(
                f"{source}: each image needs a 'cards' list as 'tabletop detect --json' prints"
            )
        for card in img["cards"]:
            try:
                px = np.asarray(card["corners_px"], dtype=float).reshape(4, 2)
                mm = card.get("corners_mm")
                cards.append(
                    {
                        "corners_px": px,
                        "corners_mm": None if mm is None else np.asarray(mm, float).reshape(4, 2),
                    }
                )
            except (KeyError, TypeError, ValueError):
                raise CalibrationError(f"{source}: a card without 4 corners_px [u, v]") from None
    return cards
