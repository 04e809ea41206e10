"""Colours shared by every picture (BGR); text is drawn by display.text."""

from __future__ import annotations

from display.text import BOLD

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
