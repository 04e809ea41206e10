"""Outlines in table millimetres for drawing: rounded offsets (reach zones, rings around cards)
and the nearest points of two cards (where to draw a gap).

The referee already measured every gap and verdict (they arrive in the state); these helpers
only place the drawing, so they work on the corners the state carries, with numpy alone.
"""

from __future__ import annotations

import cv2
import numpy as np

ARC_SEGMENTS = 24  # points per quarter turn of a rounded corner: smooth at projector scale


def as_points(corners: object) -> np.ndarray:
    """N x 2 float array of a polygon's corners (mm)."""
    return np.asarray(corners, dtype=float).reshape(-1, 2)


def centre(corners: object) -> np.ndarray:
    return as_points(corners).mean(axis=0)


def rounded_offset(corners: object, distance_mm: float, segments: int = ARC_SEGMENTS) -> np.ndarray:
    """The outline of every point within `distance_mm` of a convex polygon (its Minkowski sum with
    a disc) in table mm: the card's edges pushed out, corners rounded."""
    pts = as_points(corners)
    if distance_mm <= 0:
        return pts.copy()
    angles = np.linspace(0.0, 2 * np.pi, 4 * segments, endpoint=False)
    disc = distance_mm * np.column_stack([np.cos(angles), np.sin(angles)])
    cloud = (pts[:, None, :] + disc[None, :, :]).reshape(-1, 2)
    # float32 in the hull costs ~1e-4 mm at table scale: far below anything drawn.
    return cv2.convexHull(cloud.astype(np.float32)).reshape(-1, 2).astype(float)


def _closest_on_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
    return a + t * ab


def nearest_points(a: object, b: object) -> tuple[np.ndarray, np.ndarray]:
    """The closest pair of points of two non-overlapping convex outlines (one on each): for such
    shapes the minimum is always between a corner of one and an edge of the other."""
    pa, pb = as_points(a), as_points(b)
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for src, dst, flip in ((pa, pb, False), (pb, pa, True)):
        for p in src:
            for i in range(len(dst)):
                q = _closest_on_segment(p, dst[i], dst[(i + 1) % len(dst)])
                d = float(np.hypot(*(p - q)))
                if best is None or d < best[0]:
                    best = (d, q, p) if flip else (d, p, q)
    assert best is not None
    return best[1], best[2]


def distance_to_polygon(corners: object, points_mm: np.ndarray) -> np.ndarray:
    """Distance (mm) from each point (N x 2) to a convex polygon: 0 inside, else to its nearest edge."""
    poly = as_points(corners)
    pts = np.asarray(points_mm, dtype=float).reshape(-1, 2)
    edges = [(poly[i], poly[(i + 1) % len(poly)] - poly[i]) for i in range(len(poly))]
    sides = np.array([ab[0] * (pts[:, 1] - a[1]) - ab[1] * (pts[:, 0] - a[0]) for a, ab in edges])
    out = ~((sides >= 0).all(axis=0) | (sides <= 0).all(axis=0))
    dist = np.zeros(len(pts))
    rest = pts[out]  # only points outside need a distance (most of a card's box is inside it)
    nearest = np.full(len(rest), np.inf)
    for a, ab in edges:
        rel = rest - a
        t = np.clip((rel[:, 0] * ab[0] + rel[:, 1] * ab[1]) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
        dx, dy = rel[:, 0] - t * ab[0], rel[:, 1] - t * ab[1]
        nearest = np.minimum(nearest, dx * dx + dy * dy)
    dist[out] = np.sqrt(nearest)
    return dist
