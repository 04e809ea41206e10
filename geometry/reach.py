"""Reach: the gap between two cards and the referee's verdict on a jump across it.

How sigma_gap follows from the corners' uncertainty
---------------------------------------------------
Each corner's error is modelled as an independent isotropic Gaussian with per-axis standard
deviation sigma (CardOutline.sigma_mm). To first order the gap changes only through the
component of the error normal to the gap, at the two nearest points. A nearest point that lies
a fraction t along the edge from corner i to corner j moves as (1 - t) * e_i + t * e_j, so its
normal displacement has variance (1 - t)^2 sigma_i^2 + t^2 sigma_j^2 (a corner itself: t = 0).
The two cards are independent, so

    sigma_gap^2 = var_a + var_b.

The nearest pair is the one shapely reports, which always includes a vertex of one card; for
facing parallel edges that is an end of their shared span, the conservative (larger) choice.
Where several pairs are equally near (parallel edges, overlapping cards) shapely's pick depends
on the argument order, so both orders are measured and the larger sigma kept: the verdict is
then symmetric and never optimistic.

A jump is `too_close_to_call` when |gap - reach| <= k * sigma_gap (k = settings.verdict_k).
"""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Polygon

from geometry.card import CardOutline
from geometry.settings import DEFAULT_SETTINGS, GeometrySettings

# Floating-point noise in a rotated layout is ~1e-13 mm; a gap that equals reach to within a
# nanometre counts as equal (not "strictly less"), so exact rulebook cases stay exact.
EQUAL_EPS_MM = 1e-6


class Verdict(str, enum.Enum):
    LEGAL = "legal"
    ILLEGAL = "illegal"
    TOO_CLOSE_TO_CALL = "too_close_to_call"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Reach:
    """A measured gap between two cards with its uncertainty and the verdict on a jump across it."""

    gap_mm: float
    sigma_gap_mm: float
    verdict: Verdict

    def explain(self, reach_mm: float) -> str:
        if self.verdict is Verdict.LEGAL:
            return f"{self.gap_mm:.1f} mm apart; a jump must be under {reach_mm:.1f} mm"
        if self.verdict is Verdict.ILLEGAL:
            return f"{self.gap_mm:.1f} mm away; a jump must be under {reach_mm:.1f} mm"
        return (
            f"{self.gap_mm:.1f} mm away (+/- {self.sigma_gap_mm:.1f} mm), too close to {reach_mm:.1f} mm"
            " to call from the camera; measure it with a card"
        )


def reach_verdict(
    gap_mm: float, sigma_gap_mm: float = 0.0, settings: GeometrySettings = DEFAULT_SETTINGS
) -> Verdict:
    """docs/rules-masterplan.md, "Reach": legal iff gap < reach (strict); too close to call
    within k sigma of reach."""
    margin = settings.verdict_k * sigma_gap_mm
    if margin > 0 and abs(gap_mm - settings.reach_mm) <= margin:
        return Verdict.TOO_CLOSE_TO_CALL
    return Verdict.LEGAL if gap_mm < settings.reach_mm - EQUAL_EPS_MM else Verdict.ILLEGAL


def gap_mm(a: CardOutline, b: CardOutline) -> float:
    """Minimum distance between two cards' outlines; 0 when they touch or overlap."""
    return float(shapely.distance(a.polygon, b.polygon))


def _normal_variance(points: np.ndarray, corners: np.ndarray, sigmas: np.ndarray) -> np.ndarray:
    """Variance of the normal displacement of `points` (m, 2), each on the boundary of the quad
    with `corners` (m, 4, 2) and corner sigmas (m, 4): interpolate along the nearest edge."""
    start = corners
    end = corners[:, [1, 2, 3, 0]]
    edge = end - start
    length2 = np.maximum(np.einsum("mij,mij->mi", edge, edge), 1e-12)
    t = np.clip(np.einsum("mij,mij->mi", points[:, None, :] - start, edge) / length2, 0.0, 1.0)
    foot = start + t[..., None] * edge
    off = points[:, None, :] - foot
    nearest = np.argmin(np.einsum("mij,mij->mi", off, off), axis=1)
    rows = np.arange(len(points))
    t_best = t[rows, nearest]
    s_i = sigmas[rows, nearest]
    s_j = sigmas[rows, (nearest + 1) % 4]
    return (1 - t_best) ** 2 * s_i**2 + t_best**2 * s_j**2


def measure_pairs(
    firsts: Sequence[CardOutline],
    seconds: Sequence[CardOutline],
    settings: GeometrySettings = DEFAULT_SETTINGS,
) -> list[Reach]:
    """The Reach between firsts[i] and seconds[i] for every i, vectorised."""
    return measure_pairs_within(firsts, seconds, math.inf, settings)  # type: ignore[return-value]


def measure_pairs_within(
    firsts: Sequence[CardOutline],
    seconds: Sequence[CardOutline],
    within_mm: float,
    settings: GeometrySettings = DEFAULT_SETTINGS,
) -> list[Reach | None]:
    """Like measure_pairs, but pairs further apart than `within_mm` get None and cost no
    uncertainty computation (the reach graph's candidates are mostly such pairs)."""
    m = len(firsts)
    if m != len(seconds):
        raise ValueError(f"measure_pairs needs two equally long lists, got {m} and {len(seconds)}")
    if m == 0:
        return []
    polys_a = np.array([c.polygon for c in firsts], dtype=object)
    polys_b = np.array([c.polygon for c in seconds], dtype=object)
    gaps = shapely.distance(polys_a, polys_b)
    near = np.flatnonzero(gaps <= within_mm)
    sigma_gap = np.zeros(m)
    if len(near) and (
        any(firsts[i].max_sigma_mm for i in near) or any(seconds[i].max_sigma_mm for i in near)
    ):
        k = len(near)
        pa, pb = polys_a[near], polys_b[near]
        corners_a = np.stack([firsts[i].corners for i in near])
        sigmas_a = np.stack([firsts[i].sigmas for i in near])
        corners_b = np.stack([seconds[i].corners for i in near])
        sigmas_b = np.stack([seconds[i].sigmas for i in near])
        # Both argument orders in one vectorised call each (numpy overhead dominates small tables).
        lines = shapely.shortest_line(np.concatenate([pa, pb]), np.concatenate([pb, pa]))
        ends = shapely.get_coordinates(lines).reshape(2 * k, 2, 2)
        ab, ba = ends[:k], ends[k:]
        var = _normal_variance(
            np.concatenate([ab[:, 0], ba[:, 1], ab[:, 1], ba[:, 0]]),
            np.concatenate([corners_a, corners_a, corners_b, corners_b]),
            np.concatenate([sigmas_a, sigmas_a, sigmas_b, sigmas_b]),
        ).reshape(4, k)
        sigma_gap[near] = np.sqrt(np.maximum(var[0] + var[2], var[1] + var[3]))
    out: list[Reach | None] = [None] * m
    for i in near:
        g, sg = float(gaps[i]), float(sigma_gap[i])
        out[i] = Reach(g, sg, reach_verdict(g, sg, settings))
    return out


def measure_reaches(
    card: CardOutline, others: Sequence[CardOutline], settings: GeometrySettings = DEFAULT_SETTINGS
) -> list[Reach]:
    """The Reach from `card` to each of `others`."""
    return measure_pairs([card] * len(others), others, settings)


def measure_reach(a: CardOutline, b: CardOutline, settings: GeometrySettings = DEFAULT_SETTINGS) -> Reach:
    """Gap, its uncertainty and the verdict on a jump from `a` to `b` (symmetric)."""
    return measure_reaches(a, [b], settings)[0]


def candidate_radius_mm(max_sigma_mm: float, settings: GeometrySettings = DEFAULT_SETTINGS) -> float:
    """No pair further apart than this can be legal or too close to call when no corner sigma
    exceeds `max_sigma_mm` (sigma_gap <= sqrt(2) * max sigma)."""
    return settings.reach_mm + settings.verdict_k * np.sqrt(2.0) * max_sigma_mm + EQUAL_EPS_MM


def reach_zone(card: CardOutline, reach_mm: float | None = None, quad_segs: int = 16) -> Polygon:
    """The area a pawn on `card` can jump into: the card's outline grown by reach (for drawing)."""
    r = DEFAULT_SETTINGS.reach_mm if reach_mm is None else reach_mm
    return card.polygon.buffer(r, quad_segs=quad_segs)
