"""A card lying on the table: four corners in table millimetres, each with its uncertainty."""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import shapely
from shapely.geometry import Polygon

CardId = Hashable


def _as_corners(corners: object) -> tuple[tuple[float, float], ...]:
    try:
        arr = np.asarray(corners, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"card corners must be 4 (x, y) pairs of numbers: {exc}") from None
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(f"card corners must be 4 (x, y) pairs, got an array of shape {arr.shape}")
    if arr.shape[0] != 4:
        raise ValueError(f"a card has 4 corners, got {arr.shape[0]}")
    if not np.all(np.isfinite(arr)):
        raise ValueError("card corners contain NaN or infinity; every corner needs a finite x and y")
    return tuple((float(x), float(y)) for x, y in arr)


def _check_convex_quad(c: np.ndarray) -> None:
    edges = np.roll(c, -1, axis=0) - c
    nxt = np.roll(edges, -1, axis=0)
    cross = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    if np.any(np.abs(cross) < 1e-9) or not (np.all(cross > 0) or np.all(cross < 0)):
        # A bow-tie (corners out of order), a dent or three corners on a line: not a card.
        raise ValueError(
            "card corners do not form a convex quadrilateral; give them in order around the card"
            " (clockwise or counter-clockwise), with no three on one line"
        )


def _as_sigmas(sigma_mm: object) -> tuple[float, float, float, float]:
    arr = (
        np.broadcast_to(np.asarray(sigma_mm, dtype=float), (4,))
        if np.ndim(sigma_mm) == 0
        else np.asarray(sigma_mm, dtype=float)
    )
    if arr.shape != (4,):
        raise ValueError(
            f"corner uncertainty must be one number or one per corner (4), got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError("corner uncertainty (sigma_mm) must be finite and >= 0")
    return tuple(float(s) for s in arr)  # type: ignore[return-value]


@dataclass(frozen=True, eq=False)
class CardOutline:
    """The outline of one card on the table.

    `corners_mm` are the sharp corners (rounded corners extended) in order around the card, in
    the table frame of docs/rules-masterplan.md ("Coordinates"). `sigma_mm` is each corner's
    position uncertainty: the standard deviation, per axis, of an isotropic error (0 for an
    exactly known card).
    """

    id: CardId
    corners_mm: tuple[tuple[float, float], ...]
    sigma_mm: tuple[float, float, float, float] = field(default=(0.0, 0.0, 0.0, 0.0))

    def __post_init__(self) -> None:
        object.__setattr__(self, "corners_mm", _as_corners(self.corners_mm))
        object.__setattr__(self, "sigma_mm", _as_sigmas(self.sigma_mm))
        _check_convex_quad(self.corners)

    @classmethod
    def from_pose(
        cls,
        id: CardId,
        center_mm: Sequence[float],
        angle_deg: float = 0.0,
        size_mm: Sequence[float] = (63.0, 88.0),
        sigma_mm: float | Sequence[float] = 0.0,
    ) -> CardOutline:
        """A card of `size_mm` (width along its own x, height along its own y) centred at
        `center_mm`, turned counter-clockwise by `angle_deg`."""
        w, h = float(size_mm[0]) / 2, float(size_mm[1]) / 2
        a = math.radians(angle_deg)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
        corners = local @ rot.T + np.asarray(center_mm, dtype=float)
        return cls(id, corners, sigma_mm)  # type: ignore[arg-type]

    def moved_to(self, corners_mm: object, sigma_mm: object | None = None) -> CardOutline:
        """The same card at new corners (a move, a Switch, a re-detection)."""
        return CardOutline(self.id, corners_mm, self.sigma_mm if sigma_mm is None else sigma_mm)  # type: ignore[arg-type]

    @cached_property
    def corners(self) -> np.ndarray:
        arr = np.array(self.corners_mm, dtype=float)
        arr.flags.writeable = False
        return arr

    @cached_property
    def sigmas(self) -> np.ndarray:
        arr = np.array(self.sigma_mm, dtype=float)
        arr.flags.writeable = False
        return arr

    @cached_property
    def max_sigma_mm(self) -> float:
        return float(max(self.sigma_mm))

    @cached_property
    def polygon(self) -> Polygon:
        poly = Polygon(self.corners_mm)
        shapely.prepare(poly)
        return poly

    @cached_property
    def edge_lengths_mm(self) -> np.ndarray:
        return np.linalg.norm(np.roll(self.corners, -1, axis=0) - self.corners, axis=1)

    @property
    def short_edge_mm(self) -> float:
        e = self.edge_lengths_mm
        return float(min((e[0] + e[2]) / 2, (e[1] + e[3]) / 2))

    @property
    def long_edge_mm(self) -> float:
        e = self.edge_lengths_mm
        return float(max((e[0] + e[2]) / 2, (e[1] + e[3]) / 2))

    @property
    def area_mm2(self) -> float:
        return float(self.polygon.area)

    @property
    def center_mm(self) -> tuple[float, float]:
        c = self.corners.mean(axis=0)
        return (float(c[0]), float(c[1]))

    def __repr__(self) -> str:
        x, y = self.center_mm
        return f"CardOutline({self.id!r}, centre=({x:.1f}, {y:.1f}) mm, {self.short_edge_mm:.1f}x{self.long_edge_mm:.1f} mm)"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CardOutline):
            return NotImplemented
        return (self.id, self.corners_mm, self.sigma_mm) == (other.id, other.corners_mm, other.sigma_mm)

    def __hash__(self) -> int:
        return hash((self.id, self.corners_mm, self.sigma_mm))
