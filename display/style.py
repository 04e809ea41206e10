"""Colours, fonts and text drawing shared by every picture (BGR, OpenCV's Hershey fonts)."""

from __future__ import annotations

import cv2
import numpy as np

FONT = cv2.FONT_HERSHEY_SIMPLEX
BOLD = cv2.FONT_HERSHEY_DUPLEX
SCORE_FONT = (BOLD, 0.9, 2)  # font, scale, thickness of The Plan's scores (big: read across the room)

BACKGROUND = (38, 32, 28)
PANEL = (52, 45, 40)
FELT = (70, 58, 44)  # the table top
TEXT = (235, 235, 235)
DIM = (160, 160, 160)
CARD_FACE = (222, 240, 245)
CARD_BACK = (120, 60, 30)
CARD_BACK_LINE = (170, 110, 70)
CARD_EDGE = (20, 20, 20)
TROPHY = (40, 190, 235)
REACH = (235, 200, 120)

# A destination by the referee's verdict: legal green, illegal red, too close to call amber.
VERDICT_BGR = {
    "legal": (60, 205, 60),
    "illegal": (50, 50, 235),
    "too_close_to_call": (0, 176, 255),
}
VERDICT_WORDS = {"legal": "legal", "illegal": "illegal", "too_close_to_call": "too close to call"}

# Pawn colours by seat order (the public state names seats, not pawn colours); none is green,
# red or amber, so a pawn is never mistaken for a verdict.
PLAYER_BGR = [
    (235, 120, 40),  # blue
    (200, 70, 200),  # purple
    (255, 255, 255),  # white
    (40, 235, 240),  # yellow
    (200, 200, 60),  # teal
    (150, 120, 255),  # pink
]


def player_colour(index: int) -> tuple[int, int, int]:
    return PLAYER_BGR[index % len(PLAYER_BGR)]


def verdict_colour(move: dict) -> tuple[int, int, int]:
    """A move the rules forbid now (strict close calls, a free move into the Trophy) shows red."""
    if not move.get("allowed", True):
        return VERDICT_BGR["illegal"]
    return VERDICT_BGR.get(str(move.get("verdict")), VERDICT_BGR["illegal"])


def text_width(text: str, scale: float, thickness: int = 1, font: int = FONT) -> int:
    return cv2.getTextSize(text, font, scale, thickness)[0][0]


def put_text(
    img: np.ndarray,
    text: str,
    org: tuple[float, float],
    scale: float = 0.5,
    colour: tuple[int, int, int] = TEXT,
    thickness: int = 1,
    font: int = FONT,
    anchor: str = "left",
    max_width: float | None = None,
) -> int:
    """Draw one line of text (baseline at org); `anchor` left|centre|right; shrinks to fit
    `max_width`, then cuts with '...'. Returns the drawn width in pixels."""
    text = _ascii(text)
    if max_width is not None and text:
        width = text_width(text, scale, thickness, font)
        if width > max_width:
            scale = max(0.3, scale * max_width / width)
        while len(text) > 3 and text_width(text, scale, thickness, font) > max_width:
            text = text[:-4] + "..."
    width = text_width(text, scale, thickness, font)
    x = org[0] - (width / 2 if anchor == "centre" else width if anchor == "right" else 0)
    cv2.putText(img, text, (int(round(x)), int(round(org[1]))), font, scale, colour, thickness, cv2.LINE_AA)
    return width


def _ascii(text: str) -> str:
    # Hershey fonts draw ASCII only; a name with other letters still shows legibly.
    return text.encode("ascii", "replace").decode("ascii")


def wrap(text: str, scale: float, max_width: float, thickness: int = 1) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and text_width(f"{lines[-1]} {word}", scale, thickness) <= max_width:
            lines[-1] = f"{lines[-1]} {word}"
        else:
            lines.append(word)
    return lines
