"""Cards from the learned card map, placed on the frame's own edges.

The map (`vision.cardmap`) says where each card is; its region's outline gives a rough
quadrilateral; the sub-pixel edge fit (`vision.edges.refine_quad`) places each side on the card's
real edge. With a calibration the edges are placed as `CardPlacer.place` places them (shadows,
printed frames and the card's size say which line is the card's edge), and cards cut by the
frame are completed by their size. Without one, a card the map is sure of but whose edges the
frame does not show clean is placed on the map's outline, with the map's uncertainty. What
remains hand-set is below, each with its reason.
"""

from __future__ import annotations

import cv2
import numpy as np
import shapely

from vision.cardcheck import CardCheck
from vision.cardmap import CardMap, CardMapReading, CardRegion, card_regions, default_map
from vision.detector import (
    CardCandidate,
    CardPlacer,
    DetectorSettings,
    as_bgr,
    corner_order,
    frame_side,
    order_corners,
    side_lengths,
)
from vision.edges import QuadFit, corners_where_sides_meet, refine_quad
from vision.table import TableMap

# How far (map px) the edge fit looks from the map's outline for the card's edge, in turn: about
# the map's own precision (a stronger edge printed a few mm inside the card, a back's frame inside
# its white border, stays out of reach); half that (a thin light rim's two edges, both in reach,
# leave the fit no choice); wider (an outline the map drew less sharply: blur, glare); closest.
REACHES_MAP_PX = (0.9, 0.5, 1.6, 0.3)
# The fitted card must cover what the map calls this card, and the map must call what it covers
# a card (this card, or one lying on it): a fit that ran off to another line (a printed frame
# inside the card, a neighbour's edge, the table's edge) fails one or the other.
REGION_COVERED = 0.85
FIT_ON_CARDS = 0.8
# How far (map px) a fitted corner may lie from what the map calls card: the map's outline is
# placed to about a pixel; a corner further out is a side that ran off along another line. A
# card's sharp corner lies outside its rounded one by 0.41 of the radius, and radii reach 12 % of
# the short side (UNO), so a large card's corners are allowed that much further.
CORNER_OFF_MAP = 2.5
CORNER_ROUNDING = 0.41 * 0.12
# Longest long/short ratio of a card as the camera sees it: real cards reach 1.9 (tarot), and a
# steep view stretches them further. The map decides what is a card; this only stops slivers.
MAX_ASPECT = 3.0
# A calibrated placement this close to the card's size (relative, both sides) is the card's own
# edge: no other is tried (a camera's calibration and a card's cut hold its size to about 1 %).
SIZE_SURE = 0.015
# Of the fits that pass, the one that agrees best with the map's region is the card's (the first
# to pass may have run along a neighbour's edge or a printed frame); one agreeing this well ends
# the search.
AGREES = 0.9
# A placed side with both corners within this many px of one border of the frame (or beyond
# it; `detector.frame_side`) is the frame's edge, not the card's: that card runs off the frame,
# and `CardPlacer.place_cut` completes it (a card cut by the frame's bottom on wood was placed
# at its size between the frame's edge and a line of the grain, 20 px off).
FRAME_BORDER_PX = 2.0
# With a calibration, where the placement (`CardPlacer.place`) finds no card in a region, the
# map's own edge fit (as without one) stands if it is the card's size to within this: a small
# card's fit is off by a px or two, 5-10 % of a card 40 px across, while the placement asks for
# its size to 6 %.
# Calibrated diagnostic renders (62e6 / 64e6): 45.4 % / 100 % and 52.7 % / 100 % -> 64.4 % / 96.3 %
# and 57.1 % / 98.1 % (0.08: 54.0 / 97.8 and 56.0 / 100; 0.2: 63.8 / 90.4 and 59.3 / 94.7).
FIT_SIZE_TOLERANCE = 0.12
# Two reports of one card (two regions of one card split by a printed line) overlap this much.
SAME_CARD_IOU = 0.5
# A card of the first reading overlapping a card of the finer one by this share of the smaller is
# the same card, or one the finer reading split: the finer reading's stands.
OVERLAPS = 0.1
# Without a calibration, a region no edge fit passes is still a card, placed on the map's own
# outline, when the map is this sure of it (mean interior) and its outline is this close (IoU) to
# its quadrilateral: a side the frame does not show as one clean edge (a touching card's, pale on
# pale, blurred) loses the fit, not the card. Not where four clean sides there fail to keep to
# the map's outline: the frame then says the map took something else for a card (a keyboard's
# keys, whose tops the fit finds inside the outline the map gives them). Diagnostic renders, 644
# cards: a third of the misses had a region that matched the card; recall 63.2 -> 65.4 %.
MAP_SURE = 0.8
MAP_QUAD = 0.85
# With a calibration, a region whose outline (its first rough quad) is outside this share of the
# card's area in mm is not the card at its size, and no placement or fit is tried on it: a card
# cannot cover REGION_COVERED of an outline larger than itself (two cards merged, a page), and the
# edge fits search within a few px of the rough quad's sides, so a card-sized fit cannot grow from
# a sliver of one. Calibrated diagnostic renders (62e6 / 64e6): no card was ever placed from such a
# region (areas of those placed: 0.42-1.18), and they took 16 % of the frames' time.
PLACEABLE_AREA = (0.25, 1.35)
# A card's hidden corner (`_hidden_corner_quads`) lies under another card: the map calls at
# least this share of the triangle it adds card.
HIDDEN_ON_CARDS = 0.8
# With a card check (`vision.cardcheck`; none is shipped yet), a card it gives less than this is
# dropped.
CHECK_PASS = 0.5


class MapCardDetector:
    """`detect(image) -> [CardCandidate]`: every card lying flat, from the card map; with a
    `card_check` (`vision.cardcheck`; none is shipped yet) each card it reports must pass that
    second look."""

    def __init__(
        self,
        settings: DetectorSettings | None = None,
        table: TableMap | None = None,
        card_map: CardMap | None = None,
        card_check: CardCheck | None = None,
    ) -> None:
        # The card's size is the calibrated table's unless the settings say otherwise.
        if settings is None:
            settings = DetectorSettings() if table is None else DetectorSettings(card_size_mm=table.card_size_mm)
        self.settings = settings
        self.table = table
        self.map = card_map or default_map()
        self.check = card_check
        self.last_map: CardMapReading | None = None
        self.last_regions: list[CardRegion] = []  # the regions of `last_map`, for benches
        # With a calibration a card's edge is placed by `CardPlacer`: its shadow's
        # penumbra, a white border's inner edge and the card's size all decide where the edge
        # lies to a tenth of a mm (calibrated renders: 1.1 -> 0.2 mm RMS on wood, 2.6 -> 0.3 mm
        # white on white, recall up too). Without one no size says which line is the card's edge,
        # and the fit below, held to the map, does better.
        self.placer = CardPlacer(table, self.settings) if table is not None else None

    @property
    def model(self) -> dict:
        if self.check is None:
            return self.map.model
        return self.map.model | {"check": self.check.model}

    def detect(self, image: np.ndarray) -> list[CardCandidate]:
        image = as_bgr(image)
        min_side = max(self.settings.min_side_px, max(image.shape[:2]) / 70)
        reading = self.map.read(image)
        regions = card_regions(reading, min_area_px=min_side**2)
        if self.placer is not None:
            self.placer.start_frame(image)
        finer = self.map.finer(image, regions)
        if finer is None:
            found, outlined, cut = self._cards_in(image, reading, regions)
        else:
            # Small cards: the finer reading's cards, and the first reading's where it found none
            # (the finer reading loses some larger ones; see `vision.cardmap.SMALL_CARDS_INPUT_PX`).
            # Only the first reading's regions apart from the finer reading's cards are fitted:
            # the others' cards would be dropped as the same cards (half the fits of such a frame).
            fine_regions = card_regions(finer, min_area_px=min_side**2)
            found, outlined, _ = self._cards_in(image, finer, fine_regions)
            rest = [r for r in regions if _apart(shapely.Polygon(r.contour).buffer(0), found)]
            first, first_outlined, cut = self._cards_in(image, reading, rest)
            found += [c for c in first if _apart(shapely.Polygon(c.corners_px), found)]
            outlined += first_outlined
            reading, regions = finer, fine_regions
        self.last_map, self.last_regions = reading, regions
        # Cards placed on the map's outline only where no card was placed on the frame's edges.
        for c in outlined:
            if _apart(shapely.Polygon(c.corners_px), found):
                found.append(c)
        if self.placer is not None:
            if cut:
                found += self.placer.place_cut(image, cut, _distinct(found))
            self.placer.end_frame()
        if self.check is not None and found:
            p = self.check.scores(image, reading, [c.corners_px for c in found])
            found = [c for c, pc in zip(found, p) if pc >= CHECK_PASS]
        return _distinct(found)

    def _cards_in(
        self, image: np.ndarray, reading: CardMapReading, regions: list[CardRegion]
    ) -> tuple[list[CardCandidate], list[CardCandidate], list[np.ndarray]]:
        """The cards of `regions` of the map `reading` placed on the frame's edges; those placed
        on the map's outline alone (no edge fit passed; `MAP_SURE`); and rough quads of regions
        along the frame's edge that gave no card (maybe cards cut by it; with a calibration)."""
        found, outlined, cut = [], [], []
        if not regions:
            return found, outlined, cut
        cards = ((reading.interior > 0.5) | (reading.boundary > 0.5)).astype(np.uint8)
        off_cards = cv2.distanceTransform(1 - cards, cv2.DIST_L2, 3)
        for region in regions:
            rough = _rough_quads(region.contour)
            outline = shapely.Polygon(region.contour).buffer(0)
            # Each rough quad with the outline its card must keep to: a card with a hidden corner
            # keeps to its region and the corner under the card on top.
            tries = [(q, outline) for q in rough]
            if self.placer is not None:
                # (the card's size says whether a completed card is one; without it a pentagon of
                # two cards merged is completed as readily: diagnostic renders 426 -> 420 found)
                tries += [
                    (q, outline.union(hidden))
                    for q, hidden in _hidden_corner_quads(region.contour, reading, cards)
                ]
            if self.placer is None or self._placeable(rough):
                c, contradicted = self._card(image, region, tries, reading, cards, off_cards)
            else:
                c, contradicted = None, False
            if c is not None:
                found.append(c)
            elif _at_frame_edge(region.contour, reading):
                if self.placer is not None:
                    cut += rough + _beyond_frame_quads(rough, reading, image.shape)
            elif self.placer is None and not contradicted:
                c = _outlined(region, outline, rough, reading)
                if c is not None:
                    outlined.append(c)
        return found, outlined, cut

    def _card(
        self,
        image: np.ndarray,
        region: CardRegion,
        tries: list[tuple[np.ndarray, shapely.Geometry]],
        reading: CardMapReading,
        cards: np.ndarray,
        off_cards: np.ndarray,
    ) -> tuple[CardCandidate | None, bool]:
        """The card of one region from its rough quads, each with the outline (a polygon) its
        card must keep to: placed at the card's size with a calibration, else of the edge fits
        that pass the one that agrees best with its outline; and whether the frame contradicts
        the map there (four clean sides that do not keep to its outline: the map took something
        else for a card, or outlined it wrongly)."""
        if self.placer is not None:
            placed = self._placed(image, tries, reading, cards)
            if placed is not None:
                return placed, False
        best, best_outline, best_iou, contradicted = None, None, 0.0, False
        for reach in _reaches(reading):
            for q, outline in tries:
                c, clean = self._fitted(image, q, reach, region, outline, reading, cards, off_cards)
                if c is None:
                    contradicted |= clean
                    continue
                if self.placer is not None and self._size_error(self.table.to_mm(c.corners_px)) > FIT_SIZE_TOLERANCE:
                    continue  # with a calibration the fit must also be about the card's size
                agree = _iou(shapely.Polygon(c.corners_px), outline)
                if agree > best_iou:
                    best, best_outline, best_iou = c, outline, agree
                if best_iou >= AGREES:
                    break
            if best_iou >= AGREES:
                break
        if best is not None and self.placer is not None:
            # Placed again from the fit, closer than the map's outline: at the card's size if so.
            again = self._placed(image, [(best.corners_px, best_outline)], reading, cards)
            if again is not None and self._size_error(self.table.to_mm(again.corners_px)) <= self.settings.size_tolerance:
                best = again
        return best, contradicted

    def _placed(
        self,
        image: np.ndarray,
        tries: list[tuple[np.ndarray, shapely.Geometry]],
        reading: CardMapReading,
        cards: np.ndarray,
    ) -> CardCandidate | None:
        """With a calibration: of the placements (`CardPlacer.place`) that keep to the map, the
        one nearest the card's size (a frame printed a few mm inside the card passes the size
        tolerance too, and the card's own edge is nearer its size)."""
        best, best_off = None, np.inf
        for reach in _reaches(reading):
            for q, outline in tries:
                for placed in self.placer.place(image, q, reach):
                    if frame_side(placed.corners_px, image.shape, FRAME_BORDER_PX) is not None or not _held_to_map(
                        placed.corners_px, outline, reading, cards
                    ):
                        continue
                    off = self._size_error(self.table.to_mm(placed.corners_px))
                    if off < best_off:
                        best, best_off = placed, off
                if best_off <= SIZE_SURE:
                    return best
        return best

    def _fitted(
        self,
        image: np.ndarray,
        q: np.ndarray,
        reach: float,
        region: CardRegion,
        outline: shapely.Geometry,
        reading: CardMapReading,
        cards: np.ndarray,
        off_cards: np.ndarray,
    ) -> tuple[CardCandidate | None, bool]:
        """The card whose sides the edge fit places near the rough quad `q`, if it passes; and
        whether the fit found four clean sides (straight, seen, a plausible shape) there."""
        s = self.settings
        fit = refine_quad(image, q, reach=reach, passes=2) if self.placer is None else self.placer.fit(image, q, reach)
        if fit is None:
            return None, False
        # Each side straight and seen along enough of its length (an edge, not a speck).
        if any(sd.support < s.min_support or sd.residual_px > s.max_residual_px for sd in fit.sides):
            return None, False
        order = corner_order(fit.corners)
        c = fit.corners[order]
        if not _plausible(c):
            return None, False
        allowed = CORNER_OFF_MAP + CORNER_ROUNDING * side_lengths(c)[0] / reading.scale
        if _off_map(off_cards, reading.to_map(c)) > allowed or not _held_to_map(c, outline, reading, cards):
            return None, True
        return CardCandidate(c, fit.sigma_px[order], float(region.confidence * fit.support), fit), True

    def _placeable(self, rough: list[np.ndarray]) -> bool:
        """With a calibration: whether a region's outline could be the card at its size
        (`PLACEABLE_AREA`)."""
        if not rough:
            return False
        short, long = self.settings.card_size_mm
        share = shapely.Polygon(self.table.to_mm(rough[0])).area / (short * long)
        return PLACEABLE_AREA[0] <= share <= PLACEABLE_AREA[1]

    def _size_error(self, corners_mm: np.ndarray) -> float:
        """The larger relative error of the fit's two side lengths against the card's."""
        short, long = side_lengths(corners_mm)
        cs, cl = sorted(self.settings.card_size_mm)
        return max(abs(short / cs - 1), abs(long / cl - 1))


def _outlined(
    region: CardRegion, outline: shapely.Geometry, rough: list[np.ndarray], reading: CardMapReading
) -> CardCandidate | None:
    """The card as the map outlines it (its first rough quad), when the map is sure of it
    (`MAP_SURE`) and its outline is a quadrilateral (`MAP_QUAD`). Each corner's uncertainty is
    a map pixel, and it ranks below every card placed on the frame's edges."""
    if region.confidence < MAP_SURE or not rough:
        return None
    q = rough[0][corner_order(rough[0])]
    if not _plausible(q) or _iou(shapely.Polygon(q), outline) < MAP_QUAD:
        return None
    sigma = np.full(4, reading.scale)
    return CardCandidate(q, sigma, 0.5 * region.confidence, QuadFit(q, sigma, ()))


def _reaches(reading: CardMapReading) -> list[float]:
    """`REACHES_MAP_PX` in frame px, each at least 3 px (the edge fit's own window), once each: a
    fine map's reaches mostly meet that floor, and the same fit twice is the same answer."""
    return list(dict.fromkeys(max(3.0, r * reading.scale) for r in REACHES_MAP_PX))


def _rough_quads(contour: np.ndarray) -> list[np.ndarray]:
    """The region's outline as four corners, best first: straight lines fitted to the middle of
    each side of its 4-vertex hull polygon, met at sharp corners (the map rounds a card's corners
    off, so its vertices lie inside them, its sides do not); that polygon itself; its least box."""
    hull = cv2.convexHull(contour.astype(np.float32))
    peri = cv2.arcLength(hull, True)
    out = []
    for eps in (0.02, 0.04, 0.07):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            v = order_corners(approx.reshape(4, 2))
            lines = _side_lines(contour, v)
            if lines is not None:
                q = corners_where_sides_meet(*lines)
                if q is not None and np.abs(q - v).max() < 0.25 * peri / 4:
                    out.append(q)
            out.append(v)
            break
    box = order_corners(cv2.boxPoints(cv2.minAreaRect(hull)))
    # The same corners twice (a region already box-shaped) would be fitted twice.
    return [q for k, q in enumerate(out + [box]) if all(np.abs(q - p).max() > 1.0 for p in out[:k])]


def _hidden_corner_quads(
    contour: np.ndarray, reading: CardMapReading, cards: np.ndarray
) -> list[tuple[np.ndarray, shapely.Polygon]]:
    """Rough quads of a card with one corner under another card, each with the triangle that
    corner adds: its outline's hull a pentagon, one side of which is where the card on top cuts
    it. Each side whose two neighbours, drawn on, meet over what the map calls card (not table)
    gives the quad of the other four sides."""
    hull = cv2.convexHull(contour.astype(np.float32))
    peri = cv2.arcLength(hull, True)
    for eps in (0.01, 0.015, 0.02, 0.03):
        v = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float64)
        if len(v) <= 5:
            break
    if len(v) != 5:
        return []
    shown = cv2.contourArea(contour.astype(np.float32))
    out = []
    for i in range(5):
        sides = [(v[(i + k) % 5], v[(i + k + 1) % 5]) for k in range(1, 5)]
        q = corners_where_sides_meet(np.array([a for a, _ in sides]), np.array([b - a for a, b in sides]))
        if q is None or not np.isfinite(q).all() or not _plausible(q):
            continue
        hidden = np.array([v[i], q[0], v[(i + 1) % 5]])
        # (a card that hides more of itself than it shows is not completed from one corner)
        if cv2.contourArea(hidden.astype(np.float32)) > shown:
            continue
        if _share_on(cards, reading.to_map(hidden)) >= HIDDEN_ON_CARDS:
            out.append((order_corners(q), shapely.Polygon(hidden)))
    return out


def _side_lines(contour: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(point, direction) of a line through the outline's points along the middle 60 % of each
    side v[i] -> v[i + 1]; None when a side has too few of them."""
    pts = contour.astype(np.float64)
    points, directions = [], []
    for i in range(4):
        a, b = v[i], v[(i + 1) % 4]
        d = b - a
        length = float(np.hypot(*d))
        if length < 1e-6:
            return None
        d = d / length
        rel = pts - a
        t = rel @ d
        off = np.abs(rel @ np.array([-d[1], d[0]]))
        near = pts[(t > 0.2 * length) & (t < 0.8 * length) & (off < max(2.0, 0.08 * length))]
        if len(near) < 3:
            return None
        vx, vy, x0, y0 = cv2.fitLine(near.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        points.append((x0, y0))
        directions.append((vx, vy))
    return np.array(points, np.float64), np.array(directions, np.float64)


def _beyond_frame_quads(rough: list[np.ndarray], reading: CardMapReading, shape: tuple[int, ...]) -> list[np.ndarray]:
    """Rough quads (frame px) of a card showing three corners, its fourth beyond the frame: a
    rough quad with one corner on the frame's edge, moved to where the other three put it (a
    parallelogram's). The map is too coarse to show the two short stretches of side running
    to the hidden corner: its outline cuts that corner off along the frame's edge."""
    h, w = shape[:2]
    near = 2.5 * reading.scale  # the map's outline keeps about a map pixel off the frame's edge
    out = []
    for q in rough:
        inside = np.minimum.reduce([q[:, 0], q[:, 1], w - 1 - q[:, 0], h - 1 - q[:, 1]])
        k = int(np.argmin(inside))  # the corner nearest the frame's edge
        p = q[k - 1] + q[(k + 1) % 4] - q[(k + 2) % 4]
        if inside[k] < near and min(p[0], p[1], w - 1 - p[0], h - 1 - p[1]) < -near:
            out.append(np.concatenate([q[:k], [p], q[k + 1 :]]))
    return out


def _at_frame_edge(contour: np.ndarray, reading: CardMapReading) -> bool:
    """Whether an outline (frame px) runs along the edge of the map (within about a map pixel)."""
    m = reading.to_map(contour)
    h, w = reading.interior.shape
    return bool(m.min() < 1.5 or (m[:, 0] > w - 2.5).any() or (m[:, 1] > h - 2.5).any())


def _held_to_map(c: np.ndarray, outline: shapely.Geometry, reading: CardMapReading, cards: np.ndarray) -> bool:
    """Whether a card `c` (frame px) covers its region's `outline` and lies on what the map calls
    card (`cards`)."""
    if shapely.Polygon(c).intersection(outline).area < REGION_COVERED * outline.area:
        return False
    return _share_on(cards, reading.to_map(c)) >= FIT_ON_CARDS


def _plausible(c: np.ndarray) -> bool:
    if not shapely.Polygon(c).is_valid:
        return False
    short, long = side_lengths(c)
    return short > 0 and long / short <= MAX_ASPECT


def _off_map(off_cards: np.ndarray, q: np.ndarray) -> float:
    """The furthest of the corners q (map px) from a pixel the map calls card (0 for those in
    view on one; corners beyond the map's edge count from its nearest pixel)."""
    h, w = off_cards.shape
    i = np.clip(np.round(q[:, 1]).astype(int), 0, h - 1)
    j = np.clip(np.round(q[:, 0]).astype(int), 0, w - 1)
    return float(off_cards[i, j].max())


def _share_on(mask: np.ndarray, q: np.ndarray) -> float:
    """The share of quad `q` (map px) over which `mask` is set."""
    inside = np.zeros_like(mask)
    cv2.fillConvexPoly(inside, np.round(q * 16).astype(np.int32), 1, cv2.LINE_8, shift=4)
    n = int(inside.sum())
    return float((mask & inside).sum()) / n if n else 0.0


def _iou(a: shapely.Polygon, b: shapely.Geometry) -> float:
    inter = a.intersection(b).area
    return inter / max(a.union(b).area, 1e-9)


def _apart(p: shapely.Geometry, others: list[CardCandidate]) -> bool:
    """Whether the outline `p` (a card's, or a region's) overlaps none of the cards `others` by
    `OVERLAPS` of the smaller's area."""
    if not others:
        return True
    qs = shapely.polygons(np.array([o.corners_px for o in others], np.float64))
    shared = shapely.area(shapely.intersection(qs, p))
    return bool((shared < OVERLAPS * np.minimum(p.area, shapely.area(qs))).all())


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
