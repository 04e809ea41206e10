"""What vision reports: one frame's detections, and tracked Observations for the referee.

All types are frozen dataclasses with `to_json()` giving plain JSON (lists and numbers). Pixel
coordinates are of the image as `cv2.imread` loads it; millimetres are the table frame of
docs/rules-masterplan.md ("Coordinates") and are None without a calibration. Corners are the
sharp corners, clockwise in the image from the top-left one (docs/architecture.md, "Command
line"); sigmas are per-corner 1-sigma errors per axis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

Corners = tuple[tuple[float, float], ...]


def _r(v: float, nd: int = 3) -> float:
    return round(float(v), nd)


def _pts(p: Corners | None, nd: int = 3) -> list | None:
    return None if p is None else [[_r(x, nd), _r(y, nd)] for x, y in p]


@dataclass(frozen=True)
class CardSeen:
    """One card found in one frame."""

    corners_px: Corners
    sigma_px: tuple[float, ...]
    face: str  # "up" | "down" | "unknown"
    name: str | None
    score: float  # 0..1: how much of its outline is clean straight edge
    corners_mm: Corners | None = None
    sigma_mm: tuple[float, ...] | None = None
    # How far the card's picture is from the enrolled face it is read as (`vision.faces`; lower
    # is surer): of two cards read as one name, the nearer is that card.
    face_distance: float = math.inf

    def to_json(self) -> dict:
        d: dict = {"corners_px": _pts(self.corners_px)}
        if self.corners_mm is not None:
            d["corners_mm"] = _pts(self.corners_mm)
        d.update(
            face=self.face,
            name=self.name,
            score=_r(self.score),
            sigma_px=[_r(s) for s in self.sigma_px],
        )
        if self.sigma_mm is not None:
            d["sigma_mm"] = [_r(s) for s in self.sigma_mm]
        return d


@dataclass(frozen=True)
class PawnSeen:
    color: str
    center_px: tuple[float, float]
    center_mm: tuple[float, float] | None
    card: int | None  # index into the frame's cards it stands on; None = off the cards

    def to_json(self) -> dict:
        return {
            "color": self.color,
            "center_px": [_r(v) for v in self.center_px],
            "center_mm": None if self.center_mm is None else [_r(v) for v in self.center_mm],
            "card": self.card,
        }


@dataclass(frozen=True)
class FrameReading:
    """Everything found in one frame (the `tabletop detect` object: docs/architecture.md,
    "Command line")."""

    width: int
    height: int
    elapsed_ms: float
    cards: tuple[CardSeen, ...]
    pawns: tuple[PawnSeen, ...]

    def to_json(self) -> dict:
        return {
            "width": self.width,
            "height": self.height,
            "elapsed_ms": _r(self.elapsed_ms, 2),
            "cards": [c.to_json() for c in self.cards],
            "pawns": [p.to_json() for p in self.pawns],
        }


EVENT_KINDS = ("placed", "removed", "moved", "flipped", "pawn_moved")


@dataclass(frozen=True)
class VisionEvent:
    """A change on the table, confirmed: `placed`, `removed`, `moved`, `flipped`, `pawn_moved`."""

    kind: str
    frame: int
    time_s: float
    card_id: int | None = None
    pawn: str | None = None  # pawn colour, for pawn_moved
    from_card: int | None = None  # pawn_moved: card ids (None = off the cards)
    to_card: int | None = None
    face: str | None = None
    name: str | None = None

    def to_json(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if v is not None or k in ("card_id",)}


@dataclass(frozen=True)
class TrackedCard:
    id: int
    corners_px: Corners
    sigma_px: tuple[float, ...]
    corners_mm: Corners | None
    sigma_mm: tuple[float, ...] | None
    face: str
    name: str | None
    hidden: bool  # covered now (e.g. by a hand): position is the last one seen
    last_seen_frame: int
    face_distance: float = math.inf  # as CardSeen's, of the sighting that shows its face now

    def to_json(self) -> dict:
        return {
            "id": self.id,
            "corners_px": _pts(self.corners_px),
            "sigma_px": [_r(s) for s in self.sigma_px],
            "corners_mm": _pts(self.corners_mm),
            "sigma_mm": None if self.sigma_mm is None else [_r(s) for s in self.sigma_mm],
            "face": self.face,
            "name": self.name,
            "hidden": self.hidden,
            "last_seen_frame": self.last_seen_frame,
        }


@dataclass(frozen=True)
class TrackedPawn:
    color: str
    center_px: tuple[float, float]
    center_mm: tuple[float, float] | None
    card_id: int | None  # the placed card it stands on; None = off the cards
    hidden: bool

    def to_json(self) -> dict:
        return {
            "color": self.color,
            "center_px": [_r(v) for v in self.center_px],
            "center_mm": None if self.center_mm is None else [_r(v) for v in self.center_mm],
            "card_id": self.card_id,
            "hidden": self.hidden,
        }


@dataclass(frozen=True)
class Observation:
    """The table after one frame: placed cards (stable ids), pawns, and the events this frame."""

    frame: int
    time_s: float
    width: int
    height: int
    cards: tuple[TrackedCard, ...]
    pawns: tuple[TrackedPawn, ...]
    events: tuple[VisionEvent, ...]

    def to_json(self) -> dict:
        return {
            "frame": self.frame,
            "time_s": _r(self.time_s, 4),
            "width": self.width,
            "height": self.height,
            "cards": [c.to_json() for c in self.cards],
            "pawns": [p.to_json() for p in self.pawns],
            "events": [e.to_json() for e in self.events],
        }
