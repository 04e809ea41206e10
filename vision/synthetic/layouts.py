"""Random legal layouts: cards that never overlap, with gaps from touching to 200 mm and many
pairs near the reach threshold (the hard case for a referee).

The renderer cannot use `geometry` (layer rule), so the two measurements a generator needs
(gap between two convex quads, and whether they overlap) are small numpy functions here; the
tests check them against `geometry`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import numpy as np

from vision.card_art import SPACE_CARDS
from vision.synthetic.scene import CARD_SIZE_MM, DEFAULT_TABLE, Card, Pawn, Scene, Table


def _seg_point_dist(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return float(np.linalg.norm(p - (a + t * ab)))


def convex_overlap(a: np.ndarray, b: np.ndarray, tol_mm: float = 1e-6) -> bool:
    """True if two convex polygons share interior (separating-axis test; touching is not overlap)."""
    for poly in (a, b):
        for i in range(len(poly)):
            e = poly[(i + 1) % len(poly)] - poly[i]
            n = np.array([-e[1], e[0]]) / max(float(np.linalg.norm(e)), 1e-12)
            pa, pb = a @ n, b @ n
            if pa.max() <= pb.min() + tol_mm or pb.max() <= pa.min() + tol_mm:
                return False
    return True


def convex_gap_mm(a: np.ndarray, b: np.ndarray) -> float:
    """Minimum distance between two convex polygons (0 if they touch or overlap)."""
    if convex_overlap(a, b):
        return 0.0
    best = math.inf
    for p, q in ((a, b), (b, a)):
        for pt in p:
            for i in range(len(q)):
                best = min(best, _seg_point_dist(pt, q[i], q[(i + 1) % len(q)]))
    return best


def _sample_gap(rng: random.Random, reach_mm: float) -> float:
    r = rng.random()
    if r < 0.45:  # near the threshold, both sides
        return min(200.0, max(0.0, rng.gauss(reach_mm, 5.0)))
    if r < 0.55:  # touching or nearly
        return rng.uniform(0.0, 1.0)
    return rng.uniform(0.0, 200.0)


def random_layout(
    seed: int,
    n_cards: int = 12,
    region_mm: tuple[float, float, float, float] = (250.0, 80.0, 950.0, 700.0),
    size_mm: tuple[float, float] = CARD_SIZE_MM,
    reach_mm: float = 63.0,
    face_up_share: float = 0.5,
    names: Sequence[str] = SPACE_CARDS,
) -> list[Card]:
    """`n_cards` non-overlapping cards inside `region_mm` = (x0, y0, x1, y1). Each new card is
    put at a sampled gap (0..200 mm, ~45 % near `reach_mm`) from a random earlier card."""
    rng = random.Random(seed)
    x0, y0, x1, y1 = region_mm
    cards: list[Card] = []

    def angle() -> float:
        if rng.random() < 0.5:
            return rng.choice([0.0, 90.0, 180.0, 270.0]) + rng.uniform(-6, 6)
        return rng.uniform(0, 360)

    def make(i: int, c: tuple[float, float], a: float) -> Card:
        return Card(i + 1, rng.choice(list(names)), c, a, rng.random() < face_up_share, size_mm)

    def inside(card: Card) -> bool:
        c = card.corners_mm()
        return bool(
            c[:, 0].min() >= x0 and c[:, 0].max() <= x1 and c[:, 1].min() >= y0 and c[:, 1].max() <= y1
        )

    first = make(0, (rng.uniform(x0 + 60, x1 - 60), rng.uniform(y0 + 60, y1 - 60)), angle())
    cards.append(first)
    attempts = 0
    while len(cards) < n_cards and attempts < 200 * n_cards:
        attempts += 1
        anchor = rng.choice(cards)
        gap = _sample_gap(rng, reach_mm)
        direction = rng.uniform(0, 2 * math.pi)
        d = np.array([math.cos(direction), math.sin(direction)])
        a = angle()
        proto = make(len(cards), anchor.center_mm, a)
        ac = anchor.corners_mm()
        lo, hi = 0.0, 400.0
        for _ in range(40):  # bisection on the centre distance for the wanted gap
            mid = (lo + hi) / 2
            cand = proto.moved(tuple(np.asarray(anchor.center_mm) + d * mid))
            if convex_gap_mm(ac, cand.corners_mm()) < gap:
                lo = mid
            else:
                hi = mid
        cand = proto.moved(tuple(np.asarray(anchor.center_mm) + d * hi))
        cc = cand.corners_mm()
        if not inside(cand) or any(convex_overlap(cc, o.corners_mm()) for o in cards):
            continue
        cards.append(cand)
    return cards


def side_by_side_pairs(
    angle_deg: float,
    shift_mm: float,
    face_up: bool,
    gap_mm: float = 0.0,
    name: str = "Bomb",
    size_mm: tuple[float, float] = CARD_SIZE_MM,
) -> list[Card]:
    """Three pairs of cards across the view, long sides facing `gap_mm` apart (0: touching), the
    second of each `shift_mm` further along: staggered, not a grid, so no edge of one card runs on
    into the other's. Ids 1..6."""
    a = math.radians(angle_deg)
    across, along = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    cards = []
    for i, x in enumerate((300.0, 600.0, 900.0)):
        first = np.array([x, 380.0 + 60 * i])
        second = first + (size_mm[0] + gap_mm) * across + shift_mm * along
        for j, c in enumerate((first, second)):
            cards.append(Card(2 * i + j + 1, name, (float(c[0]), float(c[1])), angle_deg, face_up, size_mm))
    return cards


def random_scene(
    seed: int,
    n_cards: int = 12,
    table: Table = DEFAULT_TABLE,
    region_mm: tuple[float, float, float, float] = (250.0, 80.0, 950.0, 700.0),
    n_pawns: int = 3,
    size_mm: tuple[float, float] = CARD_SIZE_MM,
) -> Scene:
    """A random legal layout with pawns standing on some of its cards."""
    cards = random_layout(seed, n_cards, region_mm, size_mm)
    rng = random.Random(seed + 1)
    colors = ["red", "blue", "yellow", "green", "purple", "orange"]
    pawns = []
    for i, card in enumerate(rng.sample(cards, min(n_pawns, len(cards)))):
        pawns.append(
            Pawn(
                f"player {i + 1}",
                colors[i % len(colors)],
                card.center_mm,
                card.id,
                rng.choice(["standee", "disc"]),
            )
        )
    return Scene(table=table, cards=tuple(cards), pawns=tuple(pawns))
