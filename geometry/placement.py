"""Add's overlap rule: a new card must not overlap any card already on the table."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely

from geometry.card import CardId, CardOutline
from geometry.settings import DEFAULT_SETTINGS, GeometrySettings


@dataclass(frozen=True)
class Overlap:
    """A proposed card covers part of `card_id`."""

    card_id: CardId
    area_mm2: float
    fraction: float  # of the smaller of the two cards' areas

    def explain(self) -> str:
        return f"it covers {self.area_mm2:.0f} mm^2 ({self.fraction:.1%}) of card {self.card_id}"


def overlaps(
    proposed: CardOutline, cards: Sequence[CardOutline], settings: GeometrySettings = DEFAULT_SETTINGS
) -> list[Overlap]:
    """The cards among `cards` that `proposed` overlaps (intersection area above the tolerance
    of docs/rules-masterplan.md, "Add"), largest overlap first. Touching is not overlapping.
    `proposed` itself (same id) is ignored, so a card can be checked where it lies."""
    others = [c for c in cards if c.id != proposed.id]
    if not others:
        return []
    polys = np.array([c.polygon for c in others], dtype=object)
    hit = shapely.intersects(proposed.polygon, polys)
    if not hit.any():
        return []
    idx = np.flatnonzero(hit)
    areas = shapely.area(shapely.intersection(proposed.polygon, polys[idx]))
    smaller = np.minimum(proposed.area_mm2, shapely.area(polys[idx]))
    fractions = areas / smaller
    found = [
        Overlap(others[i].id, float(a), float(f))
        for i, a, f in zip(idx, areas, fractions)
        if f > settings.overlap_tolerance
    ]
    return sorted(found, key=lambda o: -o.area_mm2)
