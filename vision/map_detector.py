"""Cards from the learned card map, placed on the frame's own edges.

The map (`vision.cardmap`) says where each card is; its region's outline gives a rough
quadrilateral; the sub-pixel edge fit (`vision.edges.refine_quad`) places each side on the card's
real edge. What remains hand-set is below, each with its reason.
"""

from __future__ import annotations

import cv2
import numpy as np
import shapely

from vision.cardmap import CardMap, CardMapReading, CardRegion, card_regions, default_map
from vision.detector import CardCandidate, DetectorSettings, order_corners
from vision.edges import refine_quad
from vision.table import TableMap

# How far (map px) the edge fit may look from the map's outline for the card's edge: the map's
# boundary is placed to about a map pixel; a little more covers a rounded corner's cut.
REACH_MAP_PX = 1.6
# The fitted card must cover what the map calls this card, and the map must call what it covers
# a card (this card, or one lying on it): a fit that ran off to another line (a printed frame
# inside the card, a neighbour's edge, the table's edge) fails one or the other.
REGION_COVERED = 0.85
FIT_ON_CARDS = 0.8
# Longest long/short ratio of a card as the camera sees it: real cards reach 1.9 (tarot), and a
# steep view stretches them further. The map decides what is a card; this only stops slivers.
MAX_ASPECT = 3.0
# Two reports of one card (two regions of one card split by a printed line) overlap this much.
SAME_CARD_IOU = 0.5


class MapCardDetector:
    """`detect(image) -> [CardCandidate]`, as `CardDetector` does, from the card map."""

    def __init__(
        self,
        settings: DetectorSettings | None = None,
        table: TableMap | None = None,
        card_map: CardMap | None = None,
    ) -> None:
        self.settings = settings or DetectorSettings()
        self.table = table
        self.map = card_map or default_map()
        self.last_map: CardMapReading | None = None

    @property
    def model(self) -> dict:
        return self.map.model

    def detect(self, image: np.ndarray) -> list[CardCandidate]:
        if image is None or image.ndim not in (2, 3) or image.size == 0:
            raise ValueError("not an image")
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        reading = self.map.read(image)
        self.last_map = reading
        min_side = max(self.settings.min_side_px, max(image.shape[:2]) / 70)
        found = []
        cards = ((reading.interior > 0.5) | (reading.boundary > 0.5)).astype(np.uint8)
        for region in card_regions(reading, min_area_px=min_side**2):
            c = self._card(image, region, reading, cards)
            if c is not None:
                found.append(c)
        return _distinct(found)

    def _card(
        self, image: np.ndarray, region: CardRegion, reading: CardMapReading, cards: np.ndarray
    ) -> CardCandidate | None:
        reach = max(3.0, REACH_MAP_PX * reading.scale)
        outline = shapely.Polygon(region.contour).buffer(0)
        for q in _rough_quads(region.contour):
            fit = refine_quad(image, q, reach=reach, passes=2)
            if fit is None:
                continue
            c = order_corners(fit.corners)
            if not _plausible(c):
                continue
            p = shapely.Polygon(c)
            if p.intersection(outline).area < REGION_COVERED * outline.area:
                continue
            if _share_on(cards, reading.to_map(c)) < FIT_ON_CARDS:
                continue
            order = _order_index(fit.corners)
            sigma = fit.sigma_px[order]
            score = float(region.confidence * fit.support)
            if self.table is None:
                return CardCandidate(c, sigma, score, fit)
            mm = self.table.to_mm(c)
            if not self._within_size(mm):
                continue
            return CardCandidate(c, sigma, score, fit, mm, np.asarray(self.table.sigma_mm(c, sigma)))
        return None

    def _within_size(self, corners_mm: np.ndarray) -> bool:
        s = np.linalg.norm(corners_mm - np.roll(corners_mm, -1, axis=0), axis=1)
        short, long = sorted(((s[0] + s[2]) / 2, (s[1] + s[3]) / 2))
        cs, cl = sorted(self.settings.card_size_mm)
        tol = self.settings.size_tolerance
        return abs(short / cs - 1) <= tol and abs(long / cl - 1) <= tol


def _rough_quads(contour: np.ndarray) -> list[np.ndarray]:
    """The region's outline as four corners: its hull's 4-vertex polygon, then its least box."""
    hull = cv2.convexHull(contour.astype(np.float32))
    peri = cv2.arcLength(hull, True)
    out = []
    for eps in (0.02, 0.04, 0.07):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            out.append(order_corners(approx.reshape(4, 2)))
            break
    out.append(order_corners(cv2.boxPoints(cv2.minAreaRect(hull))))
    return out


def _order_index(q: np.ndarray) -> np.ndarray:
    """The permutation that `order_corners` applies to q."""
    o = order_corners(q)
    return np.array([int(np.argmin(np.abs(q - p).sum(axis=1))) for p in o])


def _plausible(c: np.ndarray) -> bool:
    if not shapely.Polygon(c).is_valid:
        return False
    s = np.linalg.norm(c - np.roll(c, -1, axis=0), axis=1)
    short, long = sorted(((s[0] + s[2]) / 2, (s[1] + s[3]) / 2))
    return short > 0 and long / short <= MAX_ASPECT


def _share_on(mask: np.ndarray, q: np.ndarray) -> float:
    """The share of quad `q` (map px) over which `mask` is set."""
    inside = np.zeros_like(mask)
    cv2.fillConvexPoly(inside, np.round(q * 16).astype(np.int32), 1, cv2.LINE_8, shift=4)
    n = int(inside.sum())
    return float((mask & inside).sum()) / n if n else 0.0


def _iou(a: shapely.Polygon, b: shapely.Geometry) -> float:
    inter = a.intersection(b).area
    return inter / max(a.union(b).area, 1e-9)


def _distinct(cards: list[CardCandidate]) -> list[CardCandidate]:
    """Best first; a report overlapping a better one as much as one card would is dropped."""
    kept: list[CardCandidate] = []
    polys: list[shapely.Polygon] = []
    for c in sorted(cards, key=lambda c: -c.score):
        p = shapely.Polygon(c.corners_px)
        if any(_iou(p, k) > SAME_CARD_IOU for k in polys):
            continue
        kept.append(c)
        polys.append(p)
    return kept
