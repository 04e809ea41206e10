"""What is on (and above) the table, in table millimetres.

Frozen dataclasses: a scene is a value, so a scripted game is a list of scenes and a frame can be
re-rendered exactly. Cards lie flat on the table; pawns stand on it (or ride in a hand); hands,
and cards held in the air, hover above it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np

from vision.pawns import PAWN_COLORS  # the bundled pawns' colours: the renderer paints them

CARD_SIZE_MM = (63.0, 88.0)


def _rot(angle_deg: float) -> np.ndarray:
    a = math.radians(angle_deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


@dataclass(frozen=True)
class Card:
    """A card lying flat on the table.

    At `angle_deg` = 0 the card stands portrait with the top of its art toward +y (readable by
    the players at the contestant edge); the angle turns it counter-clockwise seen from above.
    """

    id: int | str
    name: str
    center_mm: tuple[float, float]
    angle_deg: float = 0.0
    face_up: bool = False
    size_mm: tuple[float, float] = CARD_SIZE_MM

    def corners_mm(self) -> np.ndarray:
        """Sharp corners (4 x 2): the art's top-left, top-right, bottom-right, bottom-left
        (clockwise seen from above)."""
        w, h = self.size_mm[0] / 2, self.size_mm[1] / 2
        local = np.array([[-w, h], [w, h], [w, -h], [-w, -h]])
        return local @ _rot(self.angle_deg).T + np.asarray(self.center_mm, dtype=float)

    def moved(self, center_mm: tuple[float, float], angle_deg: float | None = None) -> Card:
        return dataclasses.replace(
            self, center_mm=tuple(center_mm), angle_deg=self.angle_deg if angle_deg is None else angle_deg
        )

    def flipped(self, face_up: bool = True) -> Card:
        return dataclasses.replace(self, face_up=face_up)


@dataclass(frozen=True)
class HeldCard:
    """Cards held flat in the air (one card, or a small stack seen from below its top card)."""

    name: str
    center_mm: tuple[float, float]
    height_mm: float = 60.0
    angle_deg: float = 0.0
    face_up: bool = False
    count: int = 1
    size_mm: tuple[float, float] = CARD_SIZE_MM

    def corners_mm(self) -> np.ndarray:
        c = Card(0, self.name, self.center_mm, self.angle_deg, self.face_up, self.size_mm).corners_mm()
        return np.column_stack([c, np.full(4, self.height_mm)])


@dataclass(frozen=True)
class Pawn:
    """A player's pawn: a disc or a cardboard standee, standing at `center_mm`.

    `on_card` is the id of the card it stands on (None if it stands on the bare table or is
    carried); `height_mm` > 0 means it is lifted off the table (carried by a hand)."""

    player: str
    color: str
    center_mm: tuple[float, float]
    on_card: int | str | None = None
    style: str = "standee"  # "standee" | "disc"
    height_mm: float = 0.0

    def __post_init__(self) -> None:
        if self.color not in PAWN_COLORS:
            raise ValueError(f"unknown pawn colour {self.color!r}; choose one of {', '.join(PAWN_COLORS)}")
        if self.style not in ("standee", "disc"):
            raise ValueError("pawn style must be 'standee' or 'disc'")


@dataclass(frozen=True)
class Hand:
    """A player's hand and forearm reaching over the table.

    The arm comes in from `from_mm` (usually beyond the contestant edge, at the player's seat)
    and the fingertips end at `tip_mm`, `height_mm` above the table; the arm rises toward the
    player. `holding` is a card carried under the fingers."""

    tip_mm: tuple[float, float]
    from_mm: tuple[float, float]
    height_mm: float = 50.0
    skin: tuple[int, int, int] = (120, 150, 200)
    sleeve: tuple[int, int, int] = (120, 60, 40)
    width_mm: float = 85.0
    holding: HeldCard | None = None


@dataclass(frozen=True)
class Sheet:
    """A flat printed sheet lying on the table (e.g. a calibration board): an image whose
    pixels cover `size_mm`, centred at `center_mm`, turned by `angle_deg` like a Card."""

    image: np.ndarray = field(compare=False)
    center_mm: tuple[float, float]
    size_mm: tuple[float, float]
    angle_deg: float = 0.0
    name: str = "sheet"

    def corners_mm(self) -> np.ndarray:
        w, h = self.size_mm[0] / 2, self.size_mm[1] / 2
        local = np.array([[-w, h], [w, h], [w, -h], [-w, -h]])
        return local @ _rot(self.angle_deg).T + np.asarray(self.center_mm, dtype=float)


@dataclass(frozen=True)
class Projection:
    """A projector's light falling on the table: a BGR image covering the rectangle
    `extent_mm` = (x0, y0, x1, y1), added to the table's light with `strength`."""

    image: np.ndarray = field(compare=False)
    extent_mm: tuple[float, float, float, float]
    strength: float = 0.6


@dataclass(frozen=True)
class Table:
    """The table top: x in [0, width], y in [0, depth] (mm), its surface grain seeded by `seed`."""

    width_mm: float = 1200.0
    depth_mm: float = 900.0
    seed: int = 0


DEFAULT_TABLE = Table()


@dataclass(frozen=True)
class Scene:
    table: Table = DEFAULT_TABLE
    cards: tuple[Card, ...] = ()
    pawns: tuple[Pawn, ...] = ()
    hands: tuple[Hand, ...] = ()
    held_cards: tuple[HeldCard, ...] = ()
    sheets: tuple[Sheet, ...] = ()
    projection: Projection | None = None

    def __post_init__(self) -> None:
        ids = [c.id for c in self.cards]
        if len(set(ids)) != len(ids):
            raise ValueError("two cards in the scene share an id; every card needs its own")

    def card(self, card_id: int | str) -> Card:
        for c in self.cards:
            if c.id == card_id:
                return c
        raise KeyError(f"no card {card_id!r} in the scene")

    def replace(self, **changes: object) -> Scene:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]
