"""Card detector: every card lying flat, as four sharp corners with sub-pixel accuracy.

Candidates come from several maps of a reduced copy of the frame, so that no single global
threshold decides what is a card: regions enclosed by noise-adaptive Canny edges (which finds
white cards on a white table and cards a few millimetres apart), and bright-on-dark /
dark-on-bright maps by local (adaptive) and global (Otsu) thresholds. Each candidate becomes a
rough quadrilateral, is refined at full resolution by fitting lines to the edges
(`vision.edges`), and is kept only if its four sides are straight, well supported and shaped like
a card (aspect, and size in millimetres when the table is calibrated). Blobs that are exactly two
or three cards long (touching cards) are split using the card's size.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

import cv2
import numpy as np
import shapely

from vision.edges import QuadFit, corners_where_sides_meet, refine_quad
from vision.table import TableMap

T = TypeVar("T")

WORK_LONG_SIDE = 960  # candidate maps are computed on a copy this size (long side, px)
# The table's brightness across a frame and in a card's own shadow, relative to its typical colour.
SHADE_RANGE = (0.3, 1.4)
# Most a calibrated fit may exceed the card's size on an axis (fraction) for its shadowed sides
# to be moved in by the excess: a penumbra's width on both sides, not a side on another line.
SHADOW_EXCESS = 0.025
# How much brighter one stretch of a card's rim may be lit than another (a shadow's penumbra over part of it)
RIM_SHADE = 1.3
# A side placed against a touching card's rim (`_against_a_like_rim`) needs the other three this
# clean: edge found along most of each, on a straight line.
CLEAN_SUPPORT, CLEAN_RESIDUAL_PX = 0.8, 0.6
# ... and the side itself this poor (edge along less than half of it, or points strewn about a line).
NO_EDGE_SUPPORT, NO_EDGE_RESIDUAL_PX = 0.5, 1.0
NOT_TABLE = 40.0  # colour distance from the table of what is clearly something else
TYPICAL_FOCAL = 0.8  # a phone's or webcam's focal length, in units of the frame's long side
# Least share of a card running off the frame (of its area in the image) that must be in view to
# complete it from its seen sides and its size. A card half in view must be found: its seen share
# as completed from a fit wavers by a few % about the truth, so the limit keeps a margin below half.
MIN_SEEN_SHARE = 0.4
# A card placed by its size around a frame printed on it (`_placed_around_frame`): the most its
# border and the table beyond may differ in colour (a step no fit can measure, noise and glare's
# slow fall-off aside), and how far off centre a frame may be printed on a card (mm).
FLAT_RING = 12.0
PRINT_REGISTRATION_MM = 0.5


@dataclass(frozen=True)
class DetectorSettings:
    card_size_mm: tuple[float, float] = (63.0, 88.0)  # short edge, long edge
    # Accepted long/short ratio of a card in image pixels when the table is not calibrated: wide,
    # because a tilted camera foreshortens cards and real decks differ (poker 1.40, SET 1.56).
    aspect_range_px: tuple[float, float] = (1.12, 1.95)
    # With a calibration: relative error allowed on each edge length in mm.
    size_tolerance: float = 0.06
    min_side_px: float = 16.0
    min_support: float = 0.35  # every side: fraction of its samples on the fitted line
    # The same for a fit whose size in mm is the card's (calibrated): the size vouches for faint sides.
    min_support_sized: float = 0.2
    mean_support_sized: float = 0.4
    mean_support: float = 0.6
    max_residual_px: float = 1.6  # RMS distance of edge points from their line (straightness)
    min_score: float = 0.25  # support x straightness below which a fit is too sloppy to report
    min_score_uncalibrated: float = 0.75
    min_score_framed: float = 0.4  # the same for a card found around its printed frame
    # A card completed beyond the frame's edge from its corners in view: how far (degrees) from
    # square, on the table, each of those may be (a side fitted partly along something else).
    max_skew_deg: float = 4.0
    border_mm: float = 4.0  # a typical light border or rim printed round a card's edge
    # Without calibration cards in one photo have similar size: drop candidates far off the median.
    relative_area_range: tuple[float, float] = (0.45, 2.2)
    # ... and, with enough cards to tell, each card's size (square root of its area) within this
    # fraction of the size the others give at its place in the photo (see _sized_like_the_others).
    perspective_size_tolerance: float = 0.2

    @property
    def aspect_mm(self) -> float:
        s, long = sorted(self.card_size_mm)
        return long / s


@dataclass
class CardCandidate:
    corners_px: np.ndarray  # 4 x 2, clockwise in the image from the top-left corner
    sigma_px: np.ndarray  # 4
    score: float
    fit: QuadFit = field(repr=False)
    corners_mm: np.ndarray | None = None
    sigma_mm: np.ndarray | None = None
    # Found around a clean outline printed on the card, one colour (its border) between the two:
    # the printed frame vouches for an outer edge too faint to be clean (white on white).
    framed: bool = False
    # Some side placed by the card's size rather than measured there: moved onto its ramp
    # (`CardDetector._on_ramps`) or against a touching card's rim (`_against_a_like_rim`).
    placed_by_size: bool = False

    @cached_property
    def area_px(self) -> float:
        return float(abs(_poly_area(self.corners_px)))


def as_bgr(image: np.ndarray) -> np.ndarray:
    """A detector's input as a BGR picture (a grey one converted); ValueError if it is none."""
    if image is None or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError("not an image")
    return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image


def _poly_area(p: np.ndarray) -> float:
    """Signed area (shoelace); cv2 does it without numpy's per-call overhead."""
    return float(cv2.contourArea(np.asarray(p, dtype=np.float32).reshape(-1, 1, 2), oriented=True))


# The small helpers below work on four corners in plain Python floats: they run hundreds of times
# a frame, and numpy's per-call overhead on 4 x 2 arrays was a tenth of the detector's time.


def _points(q: np.ndarray) -> list[list[float]]:
    return np.asarray(q, dtype=np.float64).reshape(-1, 2).tolist()


def order_corners(q: np.ndarray) -> np.ndarray:
    """Clockwise as seen in the image (y down), starting from the corner nearest the top-left."""
    pts = _points(q)
    cx, cy = sum(p[0] for p in pts) / 4, sum(p[1] for p in pts) / 4
    # Increasing angle with y down = clockwise on screen.
    pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    start = min(range(4), key=lambda i: pts[i][0] + pts[i][1])
    return np.array(pts[start:] + pts[:start])


def _convex(q: np.ndarray) -> bool:
    pts = _points(q)
    cross = []
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = pts[i], pts[(i + 1) % 4], pts[(i + 2) % 4]
        cross.append((bx - ax) * (cy - by) - (by - ay) * (cx - bx))
    return all(c > 0 for c in cross) or all(c < 0 for c in cross)


def side_lengths(q: np.ndarray) -> tuple[float, float]:
    """(short, long) edge of a quad: the means of its opposite sides."""
    p = _points(q)
    s = [math.hypot(p[(i + 1) % 4][0] - p[i][0], p[(i + 1) % 4][1] - p[i][1]) for i in range(4)]
    a, b = (s[0] + s[2]) / 2, (s[1] + s[3]) / 2
    return min(a, b), max(a, b)


def _rough_quads(cnt: np.ndarray, hollow: bool = False) -> list[np.ndarray]:
    """Rough quadrilaterals for one contour: its 4-vertex polygon and its minimum-area box.
    `hollow`: for a contour too hollow to be one card, its hull if it is a frame (_follows_hull)."""
    hull = cv2.convexHull(cnt)
    area = cv2.contourArea(cnt)
    hull_area = cv2.contourArea(hull)
    if hull_area <= 0:
        return []
    if area / hull_area < 0.75:
        # A hand, a fan of cards, an L-shaped blob: not one flat card.
        if not hollow:
            return []
        (_, _), dims, _ = cv2.minAreaRect(hull)
        if max(dims) > 2.4 * min(dims) or not _follows_hull(cnt, hull):
            return []  # (a frame on a card is card-shaped: its hull is checked only then)
        area = hull_area
    elif hollow:
        return []
    peri = cv2.arcLength(hull, True)
    out = []
    for eps in (0.015, 0.03, 0.05):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            q = approx.reshape(4, 2).astype(np.float64)
            if area / max(abs(_poly_area(q)), 1) > 0.85:
                out.append(q)
            break
    box = cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)
    # A card partly under another still fills most of its box (>= 3 corners visible).
    if area / max(abs(_poly_area(box)), 1) > 0.7:
        if not out or np.max(np.linalg.norm(order_corners(out[0]) - order_corners(box), axis=1)) > 2.0:
            out.append(box)
    return out


def _follows_hull(cnt: np.ndarray, hull: np.ndarray, near: float = 2.0, share: float = 0.85) -> bool:
    """True when the contour runs within `near` px of its convex hull along `share` of the hull's
    perimeter, and that hull is a quadrilateral: a convex outline hollowed out through narrow
    openings, not an L or a fan (whose hull spans a wide gap)."""
    peri = cv2.arcLength(hull, True)
    if len(cv2.approxPolyDP(hull, 0.05 * peri, True)) != 4:
        return False
    return _hull_followed(cnt, hull, near) >= share


def _hull_followed(
    cnt: np.ndarray, hull: np.ndarray, near: float, shape: tuple[int, ...] | None = None
) -> float:
    """The share of the convex hull's perimeter along which the contour runs within `near` px;
    with the image's `shape`, of the perimeter off the frame's edge (where an outline cut by the
    frame has no edge to follow)."""
    x, y, w, h = cv2.boundingRect(hull)
    line = np.zeros((h + 2, w + 2), np.uint8)
    cv2.polylines(line, [cnt - [x - 1, y - 1]], True, 255, 2 * int(near) + 1)
    p = hull.reshape(-1, 2).astype(np.float64)
    d = np.roll(p, -1, axis=0) - p
    pts = _densified(p, d, np.maximum(np.ceil(np.linalg.norm(d, axis=1)).astype(int), 1))
    if shape is not None:
        hh, ww = shape[:2]
        keep = (pts[:, 0] > 2.5) & (pts[:, 1] > 2.5) & (pts[:, 0] < ww - 3.5) & (pts[:, 1] < hh - 3.5)
        pts = pts[keep]
        if len(pts) == 0:
            return 0.0
    pts = np.clip((pts - [x - 1, y - 1]).round().astype(int), 0, [w + 1, h + 1])
    return float(np.mean(line[pts[:, 1], pts[:, 0]] > 0))


def _median_gradient(grey: np.ndarray) -> float:
    """Median over the image of |d/dx| + |d/dy| (3 x 3 Sobel)."""
    if grey.dtype != np.uint8:
        gx, gy = cv2.Sobel(grey, cv2.CV_32F, 1, 0), cv2.Sobel(grey, cv2.CV_32F, 0, 1)
        return float(np.median(np.abs(gx) + np.abs(gy)))
    # From 8-bit grey the sums are whole numbers up to 2040: the median from their histogram is
    # exact, and a third of the time of sorting half a million floats.
    gx, gy = cv2.Sobel(grey, cv2.CV_16S, 1, 0), cv2.Sobel(grey, cv2.CV_16S, 0, 1)
    cum = np.cumsum(np.bincount((np.abs(gx) + np.abs(gy)).ravel()))
    n = grey.size
    lo, hi = np.searchsorted(cum, [(n - 1) // 2, n // 2], side="right").tolist()
    return (lo + hi) / 2


def _densified(p: np.ndarray, d: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The points p[i] + d[i] * j / n[i] for j < n[i], for each i in turn (a polygon's vertices p,
    its edges d, n points per edge): all at once, as outlines have hundreds of edges."""
    i = np.repeat(np.arange(len(p)), n)
    j = np.arange(len(i)) - np.repeat(np.cumsum(n) - n, n)
    return p[i] + d[i] * (j / n[i])[:, None]


def _candidate_maps(small: np.ndarray) -> list[tuple[np.ndarray, int]]:
    """Binary maps (and the contour retrieval mode to use) whose regions may be cards."""
    grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    blur = cv2.GaussianBlur(small, (5, 5), 1.2)
    gblur = cv2.cvtColor(blur, cv2.COLOR_BGR2GRAY)
    maps: list[tuple[np.ndarray, int]] = []

    # 1. Regions enclosed by edges. Thresholds follow the frame's own gradient noise, so a
    #    faint white-on-white edge counts on a plain cloth while wood grain does not.
    med = _median_gradient(gblur)
    for factor in (4.0, 8.0):
        high = max(factor * med, 12.0)
        edges = cv2.Canny(blur, high / 2.5, high, L2gradient=False)
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
        maps.append((cv2.bitwise_not(edges), cv2.RETR_LIST))

    # 2. Local contrast: brighter or darker than the neighbourhood (about two cards wide).
    block = int(max(small.shape[:2]) / 5) | 1
    for inv in (cv2.THRESH_BINARY, cv2.THRESH_BINARY_INV):
        m = cv2.adaptiveThreshold(gblur, 255, cv2.ADAPTIVE_THRESH_MEAN_C, inv, block, -8 if inv == 0 else 8)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        maps.append((m, cv2.RETR_EXTERNAL))
    # 3. Global split of bright and dark (the baseline's map, as one voice among several).
    _, otsu = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    otsu = cv2.morphologyEx(otsu, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    maps.append((otsu, cv2.RETR_EXTERNAL))
    maps.append((cv2.bitwise_not(otsu), cv2.RETR_EXTERNAL))
    return maps


class CardDetector:
    """Finds cards in BGR frames. Stateless between frames; one instance per settings."""

    def __init__(self, settings: DetectorSettings | None = None, table: TableMap | None = None) -> None:
        self.settings = settings or DetectorSettings()
        self.table = table
        # Of the frame being read: its border's, then what lies around the cards found (see detect).
        self._table_colour: np.ndarray | None = None
        # Of the frame being read: answers asked again, kept with the objects they are about
        # (`_once`, `_refined_quad`, `_rough`); emptied when a frame starts and when it is done.
        self._seen: dict[tuple, tuple[tuple, object]] = {}
        self._work_scale = 1.0  # of the frame being read: its px per px of the working copy

    # ------------------------------------------------------------------------------------------
    def start_frame(self, image: np.ndarray) -> np.ndarray:
        """Begin reading `image` (BGR): the table's colour from its border, a fresh memo; the
        frame's working copy (long side at most WORK_LONG_SIDE) is returned."""
        h, w = image.shape[:2]
        scale = max(1.0, max(h, w) / WORK_LONG_SIDE)
        small = (
            cv2.resize(image, (round(w / scale), round(h / scale)), interpolation=cv2.INTER_AREA)
            if scale > 1
            else image
        )
        self._table_colour = _table_colour(small)
        self._seen = {}
        self._work_scale = max(h, w) / max(small.shape[:2])
        return small

    def end_frame(self) -> None:
        self._seen = {}  # (it holds the frame: let it go)

    def place(self, image: np.ndarray, q: np.ndarray, reach: float) -> list[CardCandidate]:
        """The card(s) whose outline lies near the rough quad `q` (frame px), placed on the
        frame's edges with everything this detector knows of where a card's edge lies (shadows,
        printed frames, a side on the frame's border or against a like card's rim, the card's
        size): for a finder of cards that knows what is a card but not where its edge is exactly
        (`vision.map_detector`). Between `start_frame` and `end_frame`."""
        return self._refine(image, q, reach)

    def place_cut(self, image: np.ndarray, quads: list[np.ndarray], cards: list[CardCandidate]) -> list[CardCandidate]:
        """Cards running off the frame around rough quads (frame px) along its edge, completed by
        the card's size (with a calibration); `cards`: those found already. Between
        `start_frame` and `end_frame`."""
        return self._cut_by_frame(image, quads, self._work_scale, cards)

    def detect(self, image: np.ndarray) -> list[CardCandidate]:
        image = as_bgr(image)
        h, w = image.shape[:2]
        small = self.start_frame(image)
        scale = self._work_scale
        s = self.settings
        # A card narrower than 1/70 of the frame is too small to measure anyway.
        min_side = max(s.min_side_px, max(h, w) / 70)
        min_area_small = (min_side / scale) ** 2 * s.aspect_range_px[0]
        max_area_small = small.shape[0] * small.shape[1] / 3

        # Rough quads from every map, full-size px, grouped: the maps mostly find the same cards,
        # and one refinement per card is the bulk of the work.
        groups: list[list[np.ndarray]] = []  # per card-to-be: its rough quads, best map first
        reps = np.zeros((0, 4, 2))  # each group's first quad
        rep_areas = np.zeros(0)
        blobs: list[np.ndarray] = []
        unions: list[np.ndarray] = []  # blobs of several things: maybe a card partly under another
        cut_quads: list[np.ndarray] = []  # not card-shaped, on the frame's edge: maybe a card cut by it
        frames: list[np.ndarray] = []  # hulls of hollow regions: maybe a card's printed frame
        # Hulls of edges hanging together that run off the frame: a card cut by it that encloses
        # no region. The last cue read: an outline of the card or of its printed frame is better.
        edge_hulls: list[np.ndarray] = []
        lo_aspect, hi_aspect = s.aspect_range_px[0] * 0.8, s.aspect_range_px[1] * 1.2
        for m, mode in _candidate_maps(small):
            if self.table is not None and mode == cv2.RETR_LIST:
                edge_hulls += self._edge_hulls_off_frame(
                    cv2.bitwise_not(m), image.shape, scale, min_area_small
                )
            contours, _ = cv2.findContours(m, mode, cv2.CHAIN_APPROX_SIMPLE)
            for cnt in contours:
                a = cv2.contourArea(cnt)
                if a < min_area_small or a > max_area_small:
                    continue
                if self.table is not None and _at_frame_edge(cnt, small.shape):
                    # A card showing three corners is a pentagon, two of whose corners are on
                    # the frame's edge: its two sides from there meet at the hidden corner.
                    q = _beyond_pentagon(cnt, small.shape)
                    if q is not None:
                        cut_quads.append(q * scale + (scale - 1) / 2)
                    elif _hull_followed(cnt, cv2.convexHull(cnt), 2.0, small.shape) >= 0.85:
                        # A ring (a card's light border, its coloured frame) running off the
                        # frame: its hull is the card's outline, or a printed frame's.
                        q = _beyond_pentagon(cv2.convexHull(cnt), small.shape)
                        if q is not None and self._card_or_frame_sized(q * scale + (scale - 1) / 2):
                            cut_quads.append(q * scale + (scale - 1) / 2)
                quads = self._rough(cnt)
                if not quads:
                    unions.append(cnt)
                    for q in _rough_quads(cnt, hollow=True):
                        q = order_corners(q)
                        short, long = side_lengths(q)
                        if short * scale >= min_side and lo_aspect < long / max(short, 1e-6) < hi_aspect:
                            frames.append(q * scale + (scale - 1) / 2)
                    if self.table is not None and _at_frame_edge(cnt, small.shape):
                        # A printed frame running off the frame is a U open towards the frame's
                        # edge (its inside is another colour): its hull is the frame, cut by
                        # the frame's edge, from which `_cut_by_frame` steps out to the card.
                        for q in _rough_quads(cv2.convexHull(cnt))[:1]:
                            qf = order_corners(q) * scale + (scale - 1) / 2
                            if self._part_in_view(qf, image.shape, scale):
                                cut_quads.append(qf)
                    continue
                blobs.append(cnt)
                for q in quads:
                    q = order_corners(q)
                    short, long = side_lengths(q)
                    if short * scale < min_side:
                        continue
                    qf = q * scale + (scale - 1) / 2
                    if not lo_aspect < long / max(short, 1e-6) < hi_aspect and (
                        self.table is not None
                        or not lo_aspect < _rectified_aspect(q, small.shape) < hi_aspect
                    ):
                        # The part in view of a card running off the frame has any shape.
                        if self.table is not None and frame_side(qf, image.shape, 3.0 * scale + 3.0):
                            cut_quads.append(qf)
                        continue
                    # The same card from another map: its corners agree to a few px and its
                    # area closely (an inner frame of a printed border is a few % smaller).
                    tol = max(2.0 * scale, 0.06 * short * scale)
                    area = short * long * scale * scale
                    if len(reps):
                        d = np.abs(reps - qf[None]).max(axis=2).max(axis=1)
                        d[np.abs(rep_areas / area - 1) > 0.05] = np.inf
                        k = int(np.argmin(d))
                        if d[k] < tol:
                            if len(groups[k]) < 2 and np.abs(groups[k][0] - qf).max() > 1.5 * scale:
                                groups[k].append(qf)  # a second opinion, if the first fails
                            continue
                    rep_areas = np.append(rep_areas, area)
                    groups.append([qf])
                    reps = np.concatenate([reps, qf[None]])

        # Largest first, and skip quads inside a card already found (its art).
        refined: list[CardCandidate] = []
        clean: list[bool] = []  # `_clean` of each refined card (asked for every later quad)
        # Without a calibration a block of cards side by side can fit as one card-shaped box; the
        # cards in it are not its art, and it explains none of them.
        explains: list[bool] = []
        areas = [abs(_poly_area(g[0])) for g in groups]
        for gi in sorted(range(len(groups)), key=lambda i: -areas[i]):
            ctr = groups[gi][0].mean(axis=0)
            if any(
                e and _explained_by(c, ctr, areas[gi], self.table is not None, k)
                for c, k, e in zip(refined, clean, explains)
            ):
                continue
            for qf in groups[gi]:
                got = self._refine(image, qf, reach=2.5 * scale + 2.5)
                refined.extend(got)
                clean.extend(self._clean(c) for c in got)
                explains.extend(self.table is not None or not _holds_cards(c, reps) for c in got)
                if any(clean[len(clean) - len(got) :]):
                    break  # else the group's second quad may lead to a better fit

        cards = self._select(refined, image)
        if self.table is None:
            # Without a calibration a block of touching cards can pass for one big card and hide
            # the cards inside it; it fails the size check only once all are selected. What fails
            # it may hide nothing: select again without it.
            for _ in range(3):
                ok = self._reportable(cards)
                off = [
                    c
                    for c in cards
                    if not any(c is k for k in ok) and any(_inside(r, c) for r in refined if r is not c)
                ]
                if not off:
                    break
                refined = [c for c in refined if not any(c is o for o in off)]
                cards = self._select(refined, image)
        # The table is what lies around the cards found, not what the frame's border shows (the
        # floor beyond the table's edge): what a hypothesis from here on is judged against.
        self._table_colour = _table_around(
            cards, self._table_colour, lambda c: self._outside_colours(image, c)
        )
        split = self._split_touching(image, blobs, scale, cards)
        if split:
            cards = self._select(cards + split, image)
        cards = self._with_partly_covered(image, small.shape[:2], blobs + unions, scale, cards)
        framed = self._around_frames(image, frames, scale, cards)
        if framed:
            cards = self._select(cards + framed, image)
            # A blob that held such a card and another (merged outlines): the rest is that other.
            near = [
                _blobs_under(blobs + unions, c.corners_px, scale)
                for c in cards
                if any(c is f for f in framed)
            ]
            merged = [b for i, b in enumerate(blobs + unions) if any(i in n for n in near)]
            cards = self._with_partly_covered(image, small.shape[:2], merged, scale, cards)
        if self.table is not None:
            quads = [q for g in groups for q in g] + cut_quads + edge_hulls
            cut = self._cut_by_frame(image, quads, scale, cards)
            if cut:
                cards = self._select(cards + cut, image)
        if self.table is None:
            cards = self._reportable(cards)
        self.end_frame()
        return cards

    def _reportable(self, cards: list[CardCandidate]) -> list[CardCandidate]:
        """Without a calibration, the cards worth reporting: clean outlines (there is no size to
        check a sloppy one against) whose size in the picture is like the others' (no price tag,
        coaster, or block of touching cards passing for one big card)."""
        s = self.settings
        cards = [c for c in cards if c.score >= s.min_score_uncalibrated or c.framed]
        if len(cards) < 3:
            return cards
        areas = np.array([c.area_px for c in cards])
        med = float(np.median(areas[areas >= 0.3 * np.percentile(areas, 90)]))
        lo, hi = s.relative_area_range
        cards = [c for c in cards if lo * med <= c.area_px <= hi * med]
        return _sized_like_the_others(cards, s.perspective_size_tolerance)

    def _part_in_view(self, q: np.ndarray, shape: tuple[int, ...], scale: float) -> bool:
        """Whether the rough quad q (full-size px) with a side on the frame's edge may be the part
        in view of a card running off the frame, or of a frame printed on one: a good share of a
        card, no more (not a strip of wood grain along the frame's edge)."""
        es, el = self._expected_card_px([], q.mean(axis=0))
        short, long = side_lengths(q)
        return bool(
            short > 0.3 * es
            and long < 1.1 * el
            and 0.3 * es * el < abs(_poly_area(q)) < 1.05 * es * el
            and frame_side(q, shape, 3.0 * scale + 3.0)
        )

    def _edge_hulls_off_frame(
        self, edges: np.ndarray, shape: tuple[int, ...], scale: float, min_area: float
    ) -> list[np.ndarray]:
        """Rough quads (full-size px) of cards running off the frame from an edge map (of the
        working copy; `shape`: the full frame's): the hulls of its edges that hang together and
        reach the frame's edge. Such a card may enclose no region of the map: its light border,
        narrower than the two edges' dilation, is filled in, its art breaks up what its printed
        frame encloses, and the frame's edge opens the rest. Its outline is still drawn in one
        piece with what is printed on it."""
        small_shape = edges.shape
        contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        out = []
        for cnt in contours:
            if not _at_frame_edge(cnt, small_shape):
                continue
            hull = cv2.convexHull(cnt)
            if cv2.contourArea(hull) < min_area:
                continue
            for q in _rough_quads(hull)[:1]:
                # The outline runs round the edges' dilation, a working pixel outside the card.
                qf = _offset_quad(order_corners(q) * scale + (scale - 1) / 2, -scale)
                if qf is not None and self._part_in_view(qf, shape, scale):
                    out.append(qf)
        return out

    def _clean(self, c: CardCandidate) -> bool:
        """A fit that no other rough quad of the same card could better: straight, well
        supported edges and, with a calibration, the card's full size (a fit a little small may
        have taken the inner edge of a printed border on some side)."""
        if c.score < 0.92:
            return False
        if c.corners_mm is None:
            return True
        ms, ml = side_lengths(c.corners_mm)
        cs, cl = sorted(self.settings.card_size_mm)
        return ms > 0.98 * cs or ml > 0.98 * cl

    def _full_size(self, c: CardCandidate) -> bool:
        """Both sides of a calibrated fit within 2 % of the card's."""
        return c.corners_mm is not None and self._full_size_mm(c.corners_mm)

    def _measured_full_size(self, c: CardCandidate) -> bool:
        """`_full_size`, and measured so: a fit with a side placed by its size (on its ramps, against
        a rim) is the last resort, and does not stop a search for a fit measured at the card's size."""
        return not c.placed_by_size and self._full_size(c)

    def _full_size_mm(self, corners_mm: np.ndarray) -> bool:
        ms, ml = side_lengths(corners_mm)
        cs, cl = sorted(self.settings.card_size_mm)
        return abs(ms / cs - 1) < 0.02 and abs(ml / cl - 1) < 0.02

    def _evenly_sized(self, c: CardCandidate) -> bool:
        """A calibrated fit whose size is the card's but for one scale on both axes (a calibration
        a little off, a blurred edge): not one side taken a few mm beyond or short of the card."""
        if c.corners_mm is None:
            return False
        cs, cl = sorted(self.settings.card_size_mm)
        ms, ml = side_lengths(c.corners_mm)
        return abs(ms / cs - ml / cl) < 0.03

    # ------------------------------------------------------------------------------------------
    def _refine(
        self,
        image: np.ndarray,
        q: np.ndarray,
        reach: float,
        grow: int = 2,
        loose: bool = False,
        passes: int = 2,
        sides: bool | None = None,
        place: int | None = None,
    ) -> list[CardCandidate]:
        """Refined card(s) for a rough quad: the quad itself if it is a card, and the card around
        it when the quad is an inner frame of the card's art (a border printed on the card).
        `grow`: how many printed frames, one inside the other, to look around (with a
        calibration: an art box inside a frame inside the card's border); `passes` as in
        `refine_quad`; `sides`: whether a fit off the card's size may have one side moved
        (`_grow_sides`), by default when `grow`; `place`: a side of `q` to place by the card's
        size if what it fits to is no edge of the card (`_against_a_like_rim`)."""
        s = self.settings
        fit = self._refined_quad(image, q, reach, passes)
        while fit is None and reach > 5.0:
            # A wide search also takes in the inner edge of a light rim (a white-bordered card on
            # a dark cloth), a rival as strong as the card's own edge: look again, closer.
            reach *= 0.55
            fit = self._refined_quad(image, q, reach, passes)
        if fit is None:
            return []
        support = _seen_support(fit, image.shape)
        while reach > 5.0 and (min(support) < s.min_support or np.mean(support) < s.mean_support):
            # A side poorly supported at a wide search may have strayed to a rival line along
            # part of its length (a printed name beside an art box's edge): closer, it may not.
            closer = self._refined_quad(image, q, reach * 0.55, passes)
            if closer is None:
                break
            reach *= 0.55
            fit, support = closer, _seen_support(closer, image.shape)
        c, sigma_px, placed = fit.corners, fit.sigma_px, None
        trusted = list(fit.sides)
        on_rim = None
        if self.table is not None and (on_border := self._off_frame_border(fit, image.shape)) is not None:
            # One side lies on the frame's border: it is placed by the card's size, and the fit is
            # judged on the other three.
            c, sigma_px, placed = on_border
            del support[placed], trusted[placed]
        elif (
            self.table is not None
            and (on_rim := self._against_a_like_rim(image, fit, support, place)) is not None
        ):
            # One side against a touching card's rim of the same colour: placed as well, and
            # counted as unsupported in the score (a measured side beats it).
            c, sigma_px, placed = on_rim
            del support[placed], trusted[placed]
        if not _convex(c):
            return []
        # A faint side (a white card's edge on a white table) is accepted only when the card's
        # size in mm, measured between it and its opposite side, vouches for it.
        weak = min(support) < s.min_support or np.mean(support) < s.mean_support
        if weak and (
            self.table is None
            or min(support) < s.min_support_sized
            or np.mean(support) < s.mean_support_sized
        ):
            return []
        short, long = side_lengths(c)
        if short < s.min_side_px:
            return []
        if max(sd.residual_px for sd in trusted) > s.max_residual_px * max(1.0, short / 150):
            return []
        out: list[CardCandidate] = []
        corners_mm = sigma_mm = None
        on_ramps: int | None = None  # the axis `_on_ramps` placed
        margins: list[float] = []
        if self.table is not None:
            corners_mm = self.table.to_mm(c)
            c, corners_mm = self._at_ramp_feet(c, corners_mm, fit)
            if weak and not self._full_size_mm(corners_mm):
                return []
            ms, ml = side_lengths(corners_mm)
            cs, cl = sorted(s.card_size_mm)
            # A card lies flat: on the table it is a rectangle. A corner far from square means a
            # side fitted to something else (a neighbour's shadow, a grain line, a pawn's edge).
            square = max(_corner_skew_deg(corners_mm, k) for k in range(4)) <= s.max_skew_deg
            ok = self._within_size(corners_mm) and square
            border_mm = max(cs - ms, cl - ml) / 2
            # A fit a little small on both axes may be the inner edge of a printed border; the
            # card around it then wins in `_select` (larger first).
            small_both = ms < 0.98 * cs and ml < 0.98 * cl
            if (
                grow
                and (small_both or not ok)
                and 0.6 * cs < ms < cs
                and 0.6 * cl < ml < cl
                and border_mm > 0.5
            ):
                # An inner frame of the card's art: the card is the card-sized rectangle around
                # it (the borders of the short and the long sides differ).
                mm_per_px = float(np.mean(self.table.mm_per_px(c)))
                around = _card_around(c, corners_mm, cs, cl)
                got = []
                if around is not None:
                    m = border_mm / mm_per_px
                    got = self._refine(image, around, reach=max(0.35 * m, 3.0), grow=grow - 1)
                if not any(self._measured_full_size(g) for g in got):
                    # Some sides of the fit were the card's own edges already: the frame is
                    # not centred on the card. Move every side out by the mean border instead.
                    m = ((cs - ms) + (cl - ml)) / 4 / mm_per_px
                    bigger = _offset_quad(c, m)
                    if bigger is not None:
                        got += self._refine(image, bigger, reach=max(0.35 * m, 2.5), grow=grow - 1)
                m = border_mm / mm_per_px
                if (
                    around is not None
                    and not weak
                    and m < 10.0
                    and not any(self._measured_full_size(g) for g in got)
                ):
                    # A narrow border (a white one on a white table, whose edge is faint): the
                    # second pass of the fit searches 4 px either side and may reach the clean
                    # frame's stronger edge and settle there. Keep to the first pass, whose
                    # search stays clear of it, and take its fit only at the card's full size
                    # with every side well supported.
                    first = self._refine(image, around, reach=max(0.35 * m, 3.0), grow=False, passes=1)
                    got += [g for g in first if self._full_size(g) and g.score >= s.mean_support]
                if around is not None and not weak and not any(self._full_size(g) for g in got):
                    # No edge of the card to fit at all: its border may be the table's colour (a
                    # white card on a white table, both clipped in a lamp's glare).
                    got += self._placed_around_frame(image, c, corners_mm, around, fit, sigma_px)
                # The card around a printed frame was placed by its size: a fit off that size on
                # one axis only took a rival edge on a side (a touching neighbour's, a shadow).
                out.extend(g for g in got if self._evenly_sized(g))
            if (
                (grow if sides is None else sides)
                and ok
                and not self._full_size_mm(corners_mm)
                and not any(self._measured_full_size(g) for g in out)
            ):
                # A card within the size tolerance whose one side may be a printed border's, or a
                # shadow's or a grain line's beyond the card.
                out.extend(self._grow_sides(image, c, corners_mm))
            if ok and not self._full_size_mm(corners_mm) and any(self._measured_full_size(g) for g in out):
                # The same card fitted at its size with some sides moved: this fit kept to a
                # printed frame or an edge beyond the card on those sides. (Left in, it could win
                # on a cleaner line where the card's own edge is faint.)
                ok = False
            if ok:
                if not self._full_size_mm(corners_mm) and not any(self._measured_full_size(g) for g in out):
                    c, corners_mm, on_ramps = self._on_ramps(c, corners_mm, fit)
                c, corners_mm = self._clear_of_shadows(c, corners_mm, fit, placed, on_ramps)
                sigma_mm = self.table.sigma_mm(c, sigma_px)
            else:
                corners_mm = None
        else:
            ok = self._card_shaped(c, image.shape, loose)
            margins = [short * k for k in (0.04, 0.08, 0.13)] if ok else []
        resid = max(sd.residual_px for sd in trusted)
        score = float(np.clip(np.mean(support), 0, 1) * math.exp(-max(resid - 0.3, 0) / 1.5))
        if on_rim is not None:
            score *= 3 / 4  # the placed side, unseen, as support 0
        ok = ok and score >= s.min_score
        if ok and self.table is None:
            # Without a size in mm, a box spanning the gaps between cards can pass for a card:
            # its outline's colours tell it apart.
            inside, outside = _outline_colours(image, c, short)
            ok = _one_polarity(outside - inside) and not _a_hole(inside, outside, self._table_colour)
        if ok:
            order = corner_order(c)
            out.append(
                CardCandidate(
                    corners_px=c[order],
                    sigma_px=sigma_px[order],
                    score=score,
                    fit=fit,
                    corners_mm=None if corners_mm is None else corners_mm[order],
                    sigma_mm=None if sigma_mm is None else np.asarray(sigma_mm)[order],
                    placed_by_size=on_ramps is not None or on_rim is not None,
                )
            )
        if grow:
            # With a calibration the border's width is known from the size deficit: look close.
            # Without, the guessed margins are rough: look wider.
            def grow_reach(m: float) -> float:
                return max(0.35 * m, 2.5)

            # A frame that would pass for a card itself vouches for the card around it.
            clean = ok and self.table is None and score >= s.min_score_uncalibrated
            tries = [(q, grow_reach(m)) for m in margins if (q := _offset_quad(c, m)) is not None]
            grown_passes = 2
            if clean and tries:
                # The border may be wider on some sides than on others (a print off centre, a
                # slanted view): each side at the first edge beyond the frame, whatever margin
                # found it. (The same fits the grown refines below start from: read once.)
                fits = [self._refined_quad(image, q, r, grown_passes) for q, r in tries]
                nearest = _first_edges_beyond(c, [f for f in fits if f is not None], image.shape, short)
                if nearest is not None:
                    tries.append((nearest, 2.5))
            for bigger, reach_m in tries:
                got = self._refine(image, bigger, reach=reach_m, grow=False, loose=clean, passes=grown_passes)
                if clean:
                    # A card's border is about as wide on opposite sides; a fit that took a
                    # neighbour's edge on one side (cards a few mm apart) is not.
                    got = [g for g in got if _even_border(c, g.corners_px)]
                    for g in got:
                        g.framed = s.min_score_framed <= g.score and _one_colour_between(
                            image, c, g.corners_px
                        )
                    # A card around its printed frame may be foreshortened past the frame's
                    # shape (a tilted camera, a cropped photo): the frame vouches for its shape.
                    got = [g for g in got if g.framed or self._card_shaped(g.corners_px, image.shape, False)]
                out.extend(got)
        if self.table is not None and (grow or sides):
            # Each level of `_refine` asks this of the candidates the levels below returned, most
            # of them unchanged: once per candidate is enough (the same fits again otherwise).
            out = [
                self._once(lambda g=g: self._across_rim(image, g), "across_rim", g, image, self._table_colour)
                or g
                for g in out
            ]
        return out

    def _rough(self, cnt: np.ndarray) -> list[np.ndarray]:
        """`_rough_quads(cnt)`, once per frame for a contour's points: the maps often outline a
        card alike, and `_split_touching` asks again of the blobs."""
        key = ("rough", cnt.shape, cnt.tobytes())
        hit = self._seen.get(key)
        if hit is None:
            hit = self._seen[key] = ((), _rough_quads(cnt))
        return hit[1]  # type: ignore[return-value]

    def _refined_quad(self, image: np.ndarray, q: np.ndarray, reach: float, passes: int) -> QuadFit | None:
        """`refine_quad`, once per frame for the same rough quad, reach and passes (different
        cues of one card lead to the same quads: a card around a printed frame, a side moved)."""
        q = np.asarray(q, dtype=np.float64)
        key = ("refine_quad", q.shape, q.tobytes(), float(reach), passes, id(image))
        hit = self._seen.get(key)
        if hit is not None and hit[0][0] is image:
            return hit[1]  # type: ignore[return-value]
        got = refine_quad(image, q, reach=reach, passes=passes)
        self._seen[key] = ((image,), got)
        return got

    def _once(self, compute: Callable[[], T], name: str, *on: object) -> T:
        """`compute()`, worked out once per frame for the objects `on` (by identity: what it
        depends on, a candidate, the image, the table colour). The objects are kept with the
        answer, so no other object can take their ids while the frame is read."""
        key = (name, *map(id, on))
        hit = self._seen.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], on)):
            return hit[1]  # type: ignore[return-value]
        got = compute()
        self._seen[key] = (on, got)
        return got

    def _outside_colours(self, image: np.ndarray, c: CardCandidate) -> np.ndarray:
        """`_outline_colours`' colours just outside a candidate's sides (4 x C), once per frame:
        `_table_around` asks them of every card found, several times a frame."""
        q = c.corners_px
        return self._once(lambda: _outline_colours(image, q, side_lengths(q)[0])[1], "outside", c, image)

    def _across_rim(self, image: np.ndarray, g: CardCandidate) -> CardCandidate | None:
        """The card of a calibrated fit `g` that has a side on the inner edge of the card's rim
        and the opposite side as far beyond the card (a neighbour's edge, the gap's far flank, the
        far flank of the card's shadow): such a fit spans the card's size but lies a rim's width
        along from it. A light rim on a light table shows its inner edge more clearly than the
        card's own on the lit sides, and the shadowed sides' steepest change lies beyond the card,
        so this may happen on both axes at once (two adjacent sides on the rim). A card's rim or
        border is one colour all round, so such a side shows another colour just inside it than
        the others and their rim's colour just beyond it. The fit moved out across the rim there
        (and in on the opposite side), on one axis or on both, counts only at the card's size,
        well supported, and with a more even colour just inside it all round (its rim) than `g`."""
        if g.corners_mm is None or not self._within_size(g.corners_mm):
            return None
        c, c_mm = g.corners_px, g.corners_mm
        framed = _on_printed_frame(image, c)
        if not any(framed):
            return None
        cs, cl = sorted(self.settings.card_size_mm)
        e, lp = _sides_mm(c_mm)
        deficit = {lp: cs - (e[1 - lp] + e[3 - lp]) / 2, 1 - lp: cl - (e[lp] + e[lp + 2]) / 2}
        mm_per_px = float(np.mean(self.table.mm_per_px(c)))
        b = self.settings.border_mm
        # Per axis: keep it, or move it across the rim at one of its framed sides.
        per_axis = [[None] + [j for j in (k, k + 2) if framed[j]] for k in (0, 1)]
        best, best_spread = None, _inside_spread(image, c)
        for moved in itertools.product(*per_axis):
            if all(j is None for j in moved):
                continue
            margin = np.zeros(4)
            for j in moved:
                if j is not None:
                    margin[j], margin[(j + 2) % 4] = b, deficit[j % 2] - b
            q = _offset_quad(c, margin / mm_per_px)
            if q is None:
                continue
            got = [m for m in self._refine(image, q, reach=3.0, grow=0) if self._full_size(m)]
            one = [j for j in moved if j is not None]
            if not got and len(one) == 1:
                # The side moved in may lie against a touching card's rim of the same colour: no
                # edge there, but the rim's inner edge a little further in - placed by size then.
                got = self._refine(image, q, reach=3.0, grow=0, place=(one[0] + 2) % 4)
            for m in got:
                if self._full_size(m) and m.score >= self.settings.mean_support:
                    sp = _inside_spread(image, m.corners_px)
                    if sp < best_spread:
                        best, best_spread = m, sp
        return best

    def _placed_around_frame(
        self,
        image: np.ndarray,
        c: np.ndarray,
        c_mm: np.ndarray,
        around: np.ndarray,
        fit: QuadFit,
        sigma_px: np.ndarray,
    ) -> list[CardCandidate]:
        """The card around a calibrated fit `c` (px; `c_mm` on the table) of a frame printed on it,
        placed by the card's size (`around`) where its own edge cannot be seen: the frame clean and
        square, an even border round it, and from just outside the frame to beyond where the card
        ends one colour on every side - the card's border no different from the table there, so
        there is no edge to measure (a white card on a white table, both clipped in glare). A frame
        outlined on the table between cards has their edges in that ring; a printed frame on a card
        whose edge shows is left to the card's own fit."""
        s = self.settings
        # The frame alone places the card: an edge along most of it, every side straight.
        sup = [sd.support for sd in fit.sides]
        if min(sup) < NO_EDGE_SUPPORT or np.mean(sup) < CLEAN_SUPPORT:
            return []
        if max(sd.residual_px for sd in fit.sides) > CLEAN_RESIDUAL_PX:
            return []
        if max(_corner_skew_deg(c_mm, k) for k in range(4)) > s.max_skew_deg:
            return []
        cs, cl = sorted(s.card_size_mm)
        ms, ml = side_lengths(c_mm)
        borders = ((cs - ms) / 2, (cl - ml) / 2)
        # An even border round the frame: the frame centred on the card, which then places it.
        if not (0.25 * s.border_mm < min(borders) and max(borders) < 2 * s.border_mm):
            return []
        if abs(borders[0] - borders[1]) > 0.25 * s.border_mm:
            return []
        if not _well_in_view(around, image.shape):
            return []
        # `around`'s corners in the order of `c`'s, each outside its own.
        around = around[np.linalg.norm(c[:, None] - around[None], axis=2).argmin(axis=1)]
        if len({tuple(p) for p in around.tolist()}) < 4:
            return []
        # Colour across the ring from a third of the border out (clear of the frame's blurred
        # edge) to most of a border's width beyond the card, per side: flat all the way.
        spread = _flat_ring_spread(image, c, around, (0.35, 0.6, 0.85, 1.15, 1.4, 1.7))
        if spread is None or spread.max() > FLAT_RING:
            return []
        # The card's corners are where the size puts them, up to where the frame sits on the card
        # (a print's registration), on top of the frame's own error.
        mm_per_px = float(np.mean(self.table.mm_per_px(c)))
        sig = np.hypot(sigma_px, PRINT_REGISTRATION_MM / mm_per_px)
        score = float(np.clip(np.mean(sup), 0, 1)) / 2
        return [self._calibrated_card(around, sig, score, fit, framed=True, placed_by_size=True)]

    def _calibrated_card(
        self, q: np.ndarray, sigma_px: np.ndarray, score: float, fit: QuadFit, **flags: bool
    ) -> CardCandidate:
        """The candidate for corners q (px) with sigmas `sigma_px`, in the candidates' corner
        order, with its corners and sigmas on the table."""
        order = corner_order(q)
        return CardCandidate(
            corners_px=q[order],
            sigma_px=sigma_px[order],
            score=score,
            fit=fit,
            corners_mm=self.table.to_mm(q)[order],
            sigma_mm=np.asarray(self.table.sigma_mm(q, sigma_px))[order],
            **flags,
        )

    def _within_size(self, corners_mm: np.ndarray) -> bool:
        """Both sides of a calibrated fit within the size tolerance of the card's."""
        ms, ml = side_lengths(corners_mm)
        cs, cl = sorted(self.settings.card_size_mm)
        return (
            abs(ms / cs - 1) <= self.settings.size_tolerance
            and abs(ml / cl - 1) <= self.settings.size_tolerance
        )

    def _off_frame_border(
        self, fit: QuadFit, shape: tuple[int, ...]
    ) -> tuple[np.ndarray, np.ndarray, int] | None:
        """For a calibrated fit with a side within a few px of the frame's edge, whose card lies
        in view but for that border: (its corners with that side placed by the card's size from the opposite side,
        their sigmas, the side's index); else None. The search across such a side takes in the
        frame's border pixels (darkened or smeared by the optics, the sensor's edge rows, the
        floor beyond the table's edge), whose steps rival a card's edge there: its fit is no
        measurement. A card running off the frame is left to `_cut_by_frame`."""
        near = 3.0 * max(1.0, max(shape[:2]) / WORK_LONG_SIDE) + 3.0  # as in `_cut_by_frame`
        side = frame_side(fit.corners, shape, near)
        if side is None:
            return None
        k = side[0]
        got = self._placed_side(fit, k)
        if got is None:
            return None
        new, sig = got
        c = fit.corners
        if float(np.abs(new - c).max()) < 1.0 and not _beyond_frame(c[k], c[(k + 1) % 4], shape):
            return None  # the side fitted where the card's size puts it: a measurement after all
        # Placed, the side still lies within the frame's border (a corner hardly out of view,
        # whose card shows too little of the frame's edge to be fitted as cut by it).
        h, w = shape[:2]
        if not ((new > -0.5 - near).all() and (new < np.array([w, h]) - 0.5 + near).all()):
            return None
        return new, sig, k

    def _placed_side(self, fit: QuadFit, k: int) -> tuple[np.ndarray, np.ndarray] | None:
        """The corners of a calibrated fit with its side k placed by the card's size from the
        opposite side (whose length tells which of the card's sizes lies across), and their
        sigmas; None if the opposite side has no card's length (a printed frame's)."""
        c = fit.corners
        mm = self.table.to_mm(c)
        cs, cl = sorted(self.settings.card_size_mm)
        width = float(np.linalg.norm(mm[(k + 3) % 4] - mm[(k + 2) % 4]))
        tol = self.settings.size_tolerance
        if abs(width / cs - 1) <= tol:
            length = cl
        elif abs(width / cl - 1) <= tol:
            length = cs
        else:
            return None
        new, sig = c.copy(), fit.sigma_px.copy()
        for real, hid in (((k + 3) % 4, k), ((k + 2) % 4, (k + 1) % 4)):
            d = c[hid] - c[real]
            span = float(np.linalg.norm(d))
            t = self._px_at_mm(c[real], d / max(span, 1e-9), length, mm[real])
            if t is None:
                return None
            new[hid] = c[real] + t * d / max(span, 1e-9)
            sig[hid] = math.hypot(fit.sigma_px[hid] * t / max(span, 1.0), fit.sigma_px[real])
        return new, sig

    def _against_a_like_rim(
        self, image: np.ndarray, fit: QuadFit, support: list[float], side: int | None = None
    ) -> tuple[np.ndarray, np.ndarray, int] | None:
        """For a calibrated fit with three clean sides and one that no edge bears out (or the side
        `side`, which a caller knows to be on a wrong line): (its corners with that side placed by
        the card's size, their sigmas, the side's index); else None. Two cards touching with rims
        of one colour (white borders side by side, grey ones on a white table) show no edge between
        them - the rims run on as one strip - so that side can only be placed. A box of table
        between cards is no such fit: its clean sides are the neighbours' edges, stepping the
        other way (`_one_polarity`, `_more_table_inside`)."""
        if side is None:
            bad = [
                k
                for k, sd in enumerate(fit.sides)
                if support[k] < NO_EDGE_SUPPORT or sd.residual_px > NO_EDGE_RESIDUAL_PX
            ]
            if len(bad) != 1:
                return None
            side = bad[0]
        k = side
        if any(
            support[j] < CLEAN_SUPPORT or fit.sides[j].residual_px > CLEAN_RESIDUAL_PX
            for j in range(4)
            if j != k
        ):
            return None
        got = self._placed_side(fit, k)
        if got is None or not _convex(got[0]):
            return None
        q = got[0]
        if not _well_in_view(q[[k, (k + 1) % 4]], image.shape):
            return None  # a side out of view: a card cut by the frame (`_cut_by_frame`)
        inside, outside = _outline_colours(image, q, side_lengths(q)[0])
        if not _one_polarity(np.delete(outside - inside, k, axis=0)) or _more_table_inside(
            image, q, self._table_colour
        ):
            return None
        return got[0], got[1], k

    def _axes(self, c_mm: np.ndarray) -> tuple[tuple[int, float, float], tuple[int, float, float]]:
        """Per axis of a calibrated fit (corners in mm), the first of its two sides (k; the other
        is k + 2), the fit's size across them and the card's: the long sides bound the card's
        width (its short size), the short ones its length."""
        cs, cl = sorted(self.settings.card_size_mm)
        e, lp = _sides_mm(c_mm)
        return (lp, (e[1 - lp] + e[3 - lp]) / 2, cs), (1 - lp, (e[lp] + e[lp + 2]) / 2, cl)

    def _clear_of_shadows(
        self,
        c: np.ndarray,
        c_mm: np.ndarray,
        fit: QuadFit,
        placed: int | None = None,
        on_ramps: int | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """A calibrated fit `c` (px; `c_mm` on the table) with its shadowed sides moved in by what
        the fit exceeds the card's size: where a card is not clearly lighter than the table and
        its edge merges into its shadow's penumbra, the steepest change lies outside the card by
        up to the penumbra's width (0.2-1 mm on rendered white tables) and never inside it, so the
        card's known size tells how far. The excess on an axis is shared by its shadowed sides;
        more than a penumbra's worth is some other error, left to the size checks. `placed`: a
        side placed by the card's size (`_off_frame_border`): its axis tells nothing; nor does
        the axis `on_ramps` placed (its first side)."""
        sides = fit.sides
        if not any(sd.shadowed for sd in sides):
            return c, c_mm
        margin = np.zeros(4)
        axes = tuple(
            a for a in self._axes(c_mm) if a[0] not in (None if placed is None else placed % 2, on_ramps)
        )
        if any(size <= nominal for _, size, nominal in axes):
            return c, c_mm  # a card merging into its shadows all round is larger both ways
        for k, size, nominal in axes:
            excess = size - nominal
            shadowed = [j for j in (k, k + 2) if sides[j].shadowed]
            if shadowed and excess <= SHADOW_EXCESS * nominal:
                for j in shadowed:
                    margin[j] = -excess / len(shadowed)
        if not margin.any():
            return c, c_mm
        mm_per_px = float(np.mean(self.table.mm_per_px(c)))
        moved = _offset_quad(c, margin / mm_per_px)
        if moved is None:
            return c, c_mm
        return moved, self.table.to_mm(moved)

    def _at_ramp_feet(self, c: np.ndarray, c_mm: np.ndarray, fit: QuadFit) -> tuple[np.ndarray, np.ndarray]:
        """A calibrated fit `c` (px; `c_mm` on the table) with sides moved to their soft ramps' feet
        (`SideFit.ramp_px`) where the card's size says the card ends there: a card's edge that
        merges into its shadow's penumbra makes one ramp whose steepest point, where the line
        lies, may be the card's edge (a blurred edge) or within the penumbra (a sharp one), and
        only the distance to the opposite side tells - but not which side of an axis is off, so
        this is the last resort: only on an axis larger than the card by more than a penumbra's
        width (SHADOW_EXCESS), of keeping both sides or moving either or both, the one nearest the
        card's size, if that is within 2 %. (On a fit nearer the card's size the ramp's foot was
        the worse place on rendered white tables, mostly on a lit side while the excess lay on a
        shadowed one: such a fit is left to `_clear_of_shadows`.)"""
        ramp = np.array([sd.ramp_px for sd in fit.sides])
        if not ramp.any():
            return c, c_mm
        mm_per_px = float(np.mean(self.table.mm_per_px(c)))
        margin = np.zeros(4)
        for k, size, nominal in self._axes(c_mm):
            if size <= (1 + SHADOW_EXCESS) * nominal:
                continue  # a penumbra's worth at most: `_clear_of_shadows` takes it
            options = [(), (k,), (k + 2,), (k, k + 2)]
            moved = [size + sum(ramp[j] for j in o) * mm_per_px for o in options]
            best = int(np.argmin([abs(m - nominal) for m in moved]))
            if best and abs(moved[best] / nominal - 1) < 0.02:
                for j in options[best]:
                    margin[j] = ramp[j]
        if not margin.any():
            return c, c_mm
        q = _offset_quad(c, margin)
        if q is None:
            return c, c_mm
        return q, self.table.to_mm(q)

    def _on_ramps(
        self, c: np.ndarray, c_mm: np.ndarray, fit: QuadFit
    ) -> tuple[np.ndarray, np.ndarray, int | None]:
        """A calibrated fit `c` (px; `c_mm` on the table) larger than the card by more than a
        penumbra's worth on an axis, with that axis's sides moved in by the excess where their
        slack (`SideFit.slack_px`) takes it up; and the first side of the axis so placed (else
        None). In a blurred frame (motion, defocus) the ramp of a card's edge merging into its
        shadow is wider than a penumbra and its steepest point lies further beyond the card: the
        card's edges lie somewhere on those ramps, and only its size says where. The wider ramp
        takes the larger share. The last resort, after every measured fit: only one axis, the
        one furthest off."""
        slack = np.array([sd.slack_px for sd in fit.sides])
        if not slack.any():
            return c, c_mm, None
        axes = [a for a in self._axes(c_mm) if a[1] > (1 + SHADOW_EXCESS) * a[2]]
        if not axes:
            return c, c_mm, None
        k, size, nominal = max(axes, key=lambda a: a[1] / a[2])
        mm_per_px = float(np.mean(self.table.mm_per_px(c)))
        room = -slack[[k, k + 2]]
        excess = (size - nominal) / mm_per_px
        if room.sum() < excess:
            return c, c_mm, None
        margin = np.zeros(4)
        margin[[k, k + 2]] = -excess * room / room.sum()
        q = _offset_quad(c, margin)
        if q is None:
            return c, c_mm, None
        return q, self.table.to_mm(q), k

    def _grow_sides(self, image: np.ndarray, c: np.ndarray, c_mm: np.ndarray) -> list[CardCandidate]:
        """Card-sized fits around a calibrated fit `c` (px; `c_mm` on the table) that is off the
        card's size on some axis: there one of its two sides kept to the card's edge and the
        other to some other line parallel to it - the inner edge of a printed border (a white
        border on a white table shows its inner edge better than the card's own on the lit
        sides), or beyond the card the far edge of its shadow or a grain line of a wooden table.
        On each such axis either side is moved by the whole difference and refined; only well
        supported fits of the card's size count, and of several the one with the most even colour just outside
        (one table all round: a side kept to a printed frame has the card's border outside)."""
        # A side at or past the frame's edge is the frame's, or cannot be seen at all.
        if not _well_in_view(c, image.shape):
            return []
        cs, cl = sorted(self.settings.card_size_mm)
        e, lp = _sides_mm(c_mm)
        # Moving the long sides out widens the card; moving the short ones lengthens it.
        deficits = ((lp, cs - (e[1 - lp] + e[3 - lp]) / 2, cs), (1 - lp, cl - (e[lp] + e[lp + 2]) / 2, cl))
        options: list[list[tuple[int, float]]] = []
        for k, d, size in deficits:
            if abs(d) > 0.15 * size:
                return []  # too far off the card's size to be one side's mistake
            options.append([(k, d), (k + 2, d)] if abs(d) > 0.02 * size else [(k, 0.0)])
        if len(options[0]) == len(options[1]) == 1:
            return []
        mm_per_px = float(np.mean(self.table.mm_per_px(c)))
        quads = []
        for a, b in itertools.product(*options):
            margin = np.zeros(4)
            for side, d in (a, b):
                margin[side] = d / mm_per_px
            quads.append(_offset_quad(c, margin))
        if not all(q is None or _well_in_view(q, image.shape) for q in quads):
            # The card may run off the frame on some side: which of its sides is its own cannot
            # be told from its size (a side moved the other way would be a guess).
            return []
        out: list[CardCandidate] = []
        framed: list[bool] | None = None  # `_on_printed_frame(image, c)`, when first asked
        for q, (a, b) in zip(quads, itertools.product(*options)):
            if q is None:
                continue
            got = [g for g in self._refine(image, q, reach=3.0, grow=0) if self._full_size(g)]
            moved = [side for side, d in (a, b) if d != 0.0]
            if not got and len(moved) == 1:
                framed = framed or _on_printed_frame(image, c)
                if framed[moved[0]]:
                    # The side moved out, kept to the inner edge of the card's border, may lie
                    # against a touching card's border of the same colour (two white borders run
                    # on as one strip): no edge where the card's size puts it - placed by size.
                    placed = self._refine(image, q, reach=3.0, grow=0, place=moved[0])
                    got = [g for g in placed if self._full_size(g)]
            # A guess at a side must be borne out by a clear edge there.
            out += [g for g in got if g.score >= self.settings.mean_support]
        if len(out) > 1:
            out = [min(out, key=lambda g: _outside_spread(image, g.corners_px))]
        return out

    def _card_shaped(self, c: np.ndarray, shape: tuple[int, ...], loose: bool) -> bool:
        """Uncalibrated: the quad's long/short ratio, or that of the rectangle it is a view of (a
        tilted camera foreshortens a card), is a card's; `loose` widens the range by 10 %."""
        lo_a, hi_a = self.settings.aspect_range_px
        if loose:
            lo_a, hi_a = 0.9 * lo_a, 1.1 * hi_a
        short, long = side_lengths(c)
        return lo_a <= long / short <= hi_a or lo_a <= _rectified_aspect(c, shape) <= hi_a

    def _select(self, cands: list[CardCandidate], image: np.ndarray) -> list[CardCandidate]:
        """One candidate per card: drop duplicates, art frames inside a card, merged blobs."""
        if not cands:
            return []
        polys = [shapely.Polygon(c.corners_px) for c in cands]
        n = len(cands)
        areas = np.array([p.area for p in polys])
        inter = np.zeros((n, n))
        tree = shapely.STRtree(polys)
        for i, j in zip(*tree.query(polys, predicate="intersects")):
            if i != j:
                inter[i, j] = polys[i].intersection(polys[j]).area
        # A quad that holds two or more distinct, non-overlapping candidates is several cards seen
        # as one blob (touching cards): drop it in favour of its parts.
        # Without a calibration only what could be reported as a card counts as one (a card's art
        # and text boxes, fitted sloppily, fill most of it too).
        floor = self.settings.min_score_uncalibrated
        part = [self.table is not None or c.score >= floor or c.framed for c in cands]
        drop = np.zeros(n, bool)
        if self.table is None:
            drop |= _card_plus_gap(image, cands, areas, inter, self._table_colour)
        for i in range(n):
            inside = [
                j
                for j in range(n)
                if j != i
                and part[j]
                and inter[i, j] > 0.9 * areas[j]
                and 0.05 * areas[i] < areas[j] < 0.7 * areas[i]
            ]
            # One per thing inside (a card may have several fits: its edge, its art frame, with a
            # gap), the best first.
            inside.sort(key=lambda j: -cands[j].score)
            drop[i] |= _several_cards(
                areas[i], areas[inside], lambda a, b, ix=inside: inter[ix[a], ix[b]], alike=self.table is None
            )
        # Larger first: an inner frame of the art is contained in its card and loses to it;
        # among near-duplicates the better score wins.
        # A card found around its printed frame counts as a clean fit (the frame vouches for it).
        sc = [max(c.score, floor) if c.framed else c.score for c in cands]
        # With a calibration, of two fits of one card as good as each other the one of the card's
        # size goes first (the other may keep to a printed rim a few % inside the edge).
        cs, cl = sorted(self.settings.card_size_mm)
        off = [
            0.0
            if c.corners_mm is None
            else max(abs(a / b - 1) for a, b in zip(side_lengths(c.corners_mm), (cs, cl)))
            for c in cands
        ]
        order = sorted(
            range(n), key=lambda i: (-round(areas[i] / max(areas.max(), 1), 1), -round(sc[i] - 2 * off[i], 2))
        )
        full = [self._full_size(c) for c in cands]

        def framed_by(i: int, j: int) -> bool:
            # With a calibration: i lies within j, j has the card's size and i has not - i keeps
            # to a frame printed inside the card on some side (a white border on a white table
            # shows its inner edge more clearly than the card's), however clean its lines.
            # Without: j, a clean fit, was found around i, a printed frame, with one border
            # colour between.
            around = (
                (full[j] and not full[i])
                if self.table is not None
                else cands[j].framed and cands[j].score >= floor
            )
            return around and areas[i] < areas[j] and inter[i, j] > 0.97 * areas[i]

        kept: list[int] = []
        for i in order:
            if drop[i]:
                continue
            ok = True
            for j in kept:
                if framed_by(j, i):
                    kept.remove(j)  # a printed frame kept before the card around it
                    break
                if framed_by(i, j):
                    ok = False
                    break
                iou = inter[i, j] / (areas[i] + areas[j] - inter[i, j] + 1e-9)
                if iou > 0.6:
                    if (sc[i] > sc[j] + 0.1 and abs(areas[i] / areas[j] - 1) < 0.15) or (sc[i] > sc[j] + 0.3):
                        kept.remove(j)  # the same card, fitted better (a sloppy fit spills over)
                        break
                    ok = False
                    break
                if inter[i, j] > 0.85 * areas[i]:  # inside a kept card: its art, not a card ...
                    if areas[i] > 0.75 * areas[j] and sc[i] > sc[j] + 0.3:
                        kept.remove(j)  # ... unless the kept one is a sloppy fit around it
                        break
                    ok = False
                    break
            if ok:
                kept.append(i)
        # The table between two cards, outlined by their rims' inner edges and two lines of its
        # grain, can have a card's size: such a fit has two opposite sides inside the two cards
        # (which lie on top there, their edges seen), better fits than it. A card lying across two
        # others has its own edges on top and is the clean fit of the three.
        gaps = [
            i
            for i in kept
            if _between_cards(cands, i, [j for j in kept if sc[j] > sc[i] and inter[i, j] > 0])
        ]
        kept = [i for i in kept if i not in gaps]
        return [
            cands[i]
            for i in sorted(
                kept, key=lambda i: (cands[i].corners_px[:, 1].min(), cands[i].corners_px[:, 0].min())
            )
        ]

    def _around_frames(
        self, image: np.ndarray, frames: list[np.ndarray], scale: float, cards: list[CardCandidate]
    ) -> list[CardCandidate]:
        """Cards around printed frames (rough quads, full-size px) that no found card explains. A
        frame with its art or lettering touching it from inside (a gun's barrel, a title) is
        hollowed out from there, while its outline still runs along its hull all round: the hull
        is the frame. A weaker cue than a card's own outline, so it is read last, for cards whose
        outline merged with the table's grain or a neighbour's."""
        out: list[CardCandidate] = []
        done: list[np.ndarray] = []
        for q in sorted(frames, key=lambda q: -abs(_poly_area(q))):
            ctr = q.mean(axis=0)
            if self.table is not None:
                # A frame printed on a card: a good part of the card, no larger than it.
                es, el = self._expected_card_px([], ctr)
                short, long = side_lengths(q)
                if not (0.5 * es < short < 1.1 * es and 0.5 * el < long < 1.1 * el):
                    continue
            if any(
                cv2.pointPolygonTest(c.corners_px.astype(np.float32), (float(ctr[0]), float(ctr[1])), False)
                > 0
                for c in cards + out
            ):
                continue
            if any(np.abs(q - d).max() < 2.0 * scale for d in done):
                continue  # the same frame from another map
            done.append(q)
            # The frame is printed on the card: wholly inside it (the hull of a hollow patch of
            # table between cards is not inside the box its neighbours' edges make).
            out.extend(
                c
                for c in self._refine(image, q, reach=2.5 * scale + 2.5)
                if all(
                    cv2.pointPolygonTest(c.corners_px.astype(np.float32), (float(x), float(y)), True) > 1.0
                    for x, y in q
                )
            )
        return out

    def _with_partly_covered(
        self,
        image: np.ndarray,
        shape: tuple[int, int],
        blobs: list[np.ndarray],
        scale: float,
        cards: list[CardCandidate],
    ) -> list[CardCandidate]:
        """`cards` with the cards partly covered in `blobs` (`_partly_covered`) selected in."""
        under = self._partly_covered(image, shape, blobs, scale, cards)
        if self.table is None:
            # Without a size in mm to check, a card guessed from a blob must show a clean outline.
            under = [c for c in under if c.score >= 0.8]
        return self._select(cards + under, image) if under else cards

    def _partly_covered(
        self,
        image: np.ndarray,
        small_shape: tuple[int, int],
        blobs: list[np.ndarray],
        scale: float,
        cards: list[CardCandidate],
    ) -> list[CardCandidate]:
        """Cards in what the found cards do not explain: cut the found cards out of every blob; a
        rest that still shows most of one card (>= 3 corners) is refined from its box, and a rest
        of several touching cards is read from its straight sides (each long straight stretch of
        its outline is a card edge, and the card lies on its inner side)."""
        if not cards and self.table is None:
            return []  # no card to take the size from
        found = np.zeros(small_shape, np.uint8)
        for c in cards:
            q = (c.corners_px - (scale - 1) / 2) / scale
            cv2.fillPoly(found, [np.round(q * 16).astype(np.int32)], 255, cv2.LINE_8, shift=4)
        found = cv2.dilate(found, np.ones((5, 5), np.uint8))
        areas = [c.area_px / scale**2 for c in cards]
        typical = float(np.median(areas)) if cards else 0.0
        out: list[CardCandidate] = []
        done: list[np.ndarray] = []
        cut_rough: list[np.ndarray] = []  # rests at the frame's edge: fitted as cut by it at the end
        for cnt in blobs:
            x, y, w, h = cv2.boundingRect(cnt)
            if not cards:
                # Nothing found yet (two cards overlapping as one blob): the calibrated card size.
                es, el = self._expected_card_px([], np.array([x + w / 2, y + h / 2]) * scale)
                typical = es * el / scale**2
            touches = found[y : y + h, x : x + w].any()
            if not touches and cv2.contourArea(cnt) < 1.4 * typical:
                continue  # a lone blob the size of one card was judged already
            m = np.zeros((h + 2, w + 2), np.uint8)
            cv2.drawContours(m, [cnt - [x - 1, y - 1]], -1, 255, -1)
            cut = _pad_crop(found, x - 1, y - 1, w + 2, h + 2)
            # Two cards at right angles, touching, fill only about 3/4 of their hull. With card
            # sizes in mm every card read from the sides is checked against them: such a blob is
            # read too when found cards cover little of it (a rest around found cards is ragged
            # where they were cut out; a neighbour may just touch it).
            covered = cv2.countNonZero(m & cut) > 0.1 * cv2.countNonZero(m)
            solid = 0.65 if self.table is not None and not covered else 0.8
            m &= ~cut
            m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
            rest, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            for r in rest:
                ra = cv2.contourArea(r)
                if ra < 0.35 * typical:
                    continue
                r = r + [x - 1, y - 1]
                hull = cv2.convexHull(r)
                box = order_corners(cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64))
                if any(np.max(np.abs(box - o)) < 2 for o in done):
                    continue
                done.append(box)
                short, long = side_lengths(box)
                got = []
                boxed = 0.7 * typical < short * long < 1.4 * typical
                # A card cut by the frame's edge whose outline merged with a found card's
                # (touching cards): the rest is its part in view, as from its own blob.
                cut = (
                    self._cut_rough(r, small_shape, scale)
                    if ra < 1.2 * typical and self.table is not None and _at_frame_edge(r, small_shape)
                    else []
                )
                if boxed:
                    got = self._refine(
                        image, box * scale + (scale - 1) / 2, reach=3.0 * scale + 3.0, grow=False, sides=True
                    )
                    if not got and cut:
                        # Fitted as cut first: read from its straight sides, the frame's edge (or
                        # a line of the art beside it) would pass for the card's and the far side
                        # be placed by size beyond the card's own edge.
                        got = self._cut_by_frame(image, cut, scale, cards + out)
                        cut = []
                    if not got and self.table is not None:
                        # The box of a rest with a nub on its outline (a neighbour's corner left
                        # where it touched, a speck of the cloth's texture) is turned and grown
                        # by it: the card's corners that show are read from its straight sides
                        # (a stretch alone places a card too loosely to be tried on one card's
                        # rest: it may keep to the card's printed frame).
                        got = self._from_sides(image, r, scale, cards + out, stretches=False)
                    out.extend(got)
                if not got:
                    cut_rough += cut
                if boxed:
                    continue
                if (
                    1.2 * typical < ra < 5 * typical
                    and ra > solid * cv2.contourArea(hull)
                    and self._cards_across(cards, hull, scale)
                ):
                    # Solid like a few cards side by side (grain and shadows are not): read its sides.
                    out.extend(c for c in self._from_sides(image, r, scale, cards + out) if c.score >= 0.5)
        if cut_rough:
            out.extend(self._cut_by_frame(image, cut_rough, scale, cards + out))
        return out

    @staticmethod
    def _cut_rough(r: np.ndarray, small_shape: tuple[int, int], scale: float) -> list[np.ndarray]:
        """Rough quads (full-size px) of a blob's rest `r` (work px) on the frame's edge, for
        `_cut_by_frame`: its own, and the hidden corner's quad if it shows three corners."""
        out = [order_corners(q) * scale + (scale - 1) / 2 for q in _rough_quads(r)]
        pentagon = _beyond_pentagon(r, small_shape)
        if pentagon is not None:
            out.append(pentagon * scale + (scale - 1) / 2)
        return out

    def _cards_across(self, cards: list[CardCandidate], hull: np.ndarray, scale: float) -> bool:
        """Whether a blob (its hull in work px) is wide enough to hold whole cards: a card's short
        side across, at least (a strip of wood grain is narrower, and reading its sides cost
        ~30 ms for nothing)."""
        if self.table is None:
            return True  # the size a card has there is not known well enough to judge
        (cx, cy), dims, _ = cv2.minAreaRect(hull)
        expected = self._expected_card_px(cards, np.array([cx, cy]) * scale)
        return expected is None or min(dims) * scale > 0.95 * expected[0]

    def _cut_by_frame(
        self, image: np.ndarray, quads: list[np.ndarray], scale: float, cards: list[CardCandidate]
    ) -> list[CardCandidate]:
        """Cards running off the frame, from rough quads (full-size px) with a side on the frame's
        edge, or with one corner beyond it (a card showing three corners), that no found card
        explains."""
        # A blob's outline keeps a few px off the frame's edge (the maps' dilation and opening).
        near = 3.0 * scale + 3.0
        out: list[CardCandidate] = []
        done: list[np.ndarray] = []
        # Around all the cards found by now (see `_table_around`).
        table = _table_around(cards, self._table_colour, lambda c: self._outside_colours(image, c))
        for rough in quads:
            side = frame_side(rough, image.shape, near)
            if side is not None:
                ways = [(rough, side)]
            elif _hidden_corner(rough, image.shape, near) is not None:
                # A card showing three corners may be fitted either way round (see
                # `_three_corners_in_view`), else as a whole; the first that gives a card is taken.
                ways = [*_three_corners_in_view(rough, image.shape, near), (rough, None)]
            else:
                continue
            for q, way in ways:
                if _centre_in_any(q, cards + out):
                    break
                short = side_lengths(q)[0]
                if any(np.abs(q - d).max() < 0.1 * short for d in done):
                    continue
                done.append(q)
                if way is None:
                    got = self._three_corners_fitted(image, q, scale)
                else:
                    got = self._fit_cut(
                        image, q, *way, reach=2.5 * scale + 2.5, table=table, corner_in_view=side is None
                    )
                out.extend(got)
                if got:
                    break
        return out

    def _card_or_frame_sized(self, q: np.ndarray) -> bool:
        """Whether the rough quad q (full-size px) measures on the table about a card, or a frame
        printed on one that `_refine` grows from."""
        cs, cl = sorted(self.settings.card_size_mm)
        short, long = side_lengths(self.table.to_mm(q))
        return 0.6 * cs < short < 1.15 * cs and 0.6 * cl < long < 1.15 * cl

    def _three_corners_fitted(self, image: np.ndarray, q: np.ndarray, scale: float) -> list[CardCandidate]:
        """The card of a rough quad (full-size px) with one corner beyond the frame's edge, fitted
        as a whole: its two sides to the hidden corner show long enough stretches to fit (the
        line past the third corner would run far over the table, see `_three_corners_in_view`).
        Beyond the frame a side shows no edge; its support is counted over the part in view."""
        if not self._card_or_frame_sized(q):
            return []
        h, w = image.shape[:2]
        frame = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
        got = [c for c in self._refine(image, q, reach=2.5 * scale + 2.5) if self._full_size(c)]
        if not got:
            # As in `_fit_cut`: the clearest outline may be a printed frame inside a light border
            # whose edge on a light table is faint (a thin coloured frame's two edges rival each
            # other too): look a border's width further, close.
            m = self.settings.border_mm / float(np.mean(self.table.mm_per_px(q)))
            bigger = _offset_quad(q, m)
            if bigger is not None:
                got = [
                    c
                    for c in self._refine(image, bigger, reach=max(0.35 * m, 2.5), grow=0)
                    if self._full_size(c)
                ]
        out = []
        for c in got:
            # Still a card showing three corners, and enough of it in view (else too little is seen).
            inter, _ = cv2.intersectConvexConvex(c.corners_px.astype(np.float32), frame)
            seen = inter >= MIN_SEEN_SHARE * abs(_poly_area(c.corners_px))
            if seen and _hidden_corner(c.corners_px, image.shape, 1.0) is not None:
                out.append(c)
        return out

    def _fit_cut(
        self,
        image: np.ndarray,
        q: np.ndarray,
        i: int,
        axis: int,
        lim: float,
        reach: float,
        table: np.ndarray,
        grow: bool = True,
        corner_in_view: bool = False,
        seek_far: bool = False,
    ) -> list[CardCandidate]:
        """The card of which the rough quad q (full-size px) is the part inside the frame, side i
        on the frame's edge (`axis` = `lim`). Beyond the frame the crop is padded with a colour
        unlike the card's, so the frame's edge is a plain straight edge that stands in for the
        hidden part while the three visible sides are fitted; the card's far side is then where
        the known card size puts it along the two sides that run off the frame.
        `corner_in_view`: the card shows three corners (see `_three_corners_in_view`): side i + 1
        runs past the card's corner in view to the frame's edge, over the table; the size places
        that corner, and the side's edge must end there. `seek_far`: when what was fitted as the far side is no
        card edge, look further out for it (a printed frame whose far end lies further in than
        its sides: a title band)."""
        s = self.settings
        h, w = image.shape[:2]
        q = q.copy()
        i1, i2, i3 = (i + 1) % 4, (i + 2) % 4, (i + 3) % 4
        q[i, axis] = q[i1, axis] = lim
        seen = np.clip(q, 0, [w - 1, h - 1])
        if side_lengths(q)[1] > 2.0 * max(s.card_size_mm) / float(np.mean(self.table.mm_per_px(seen))):
            return []  # nearly parallel sides meeting far out of view: no card's outline
        # The card's colours along the frame's edge, and a pad colour unlike them: first unlike the
        # middle of the cut; when that leaves no straight edge on the frame's edge, unlike every
        # colour there (a card cut across its light border and its dark art shows both).
        a, b = q[i] + 0.05 * (q[i1] - q[i]), q[i] + 0.95 * (q[i1] - q[i])
        n = max(2, int(np.linalg.norm(b - a)))
        pts = np.clip(np.linspace(a, b, n).round().astype(int), 0, [w - 1, h - 1])
        along = image[pts[:, 1], pts[:, 0]].reshape(n, -1).astype(np.float64)
        middle = np.median(along[n // 6 : n - n // 6], axis=0)
        pads = [[0.0 if v > 127 else 255.0 for v in middle]]
        if (unlike := _unlike(along).tolist()) != pads[0]:
            pads.append(unlike)
        # The step the fit finds along the cut side is the frame's edge, or up to a few px
        # inside it where the card's own print changes in its last rows (a band's letters cut by
        # the frame): as far as a blob's outline may keep off the frame's edge (`_cut_by_frame`).
        edge_tol = 3.0 * max(1.0, max(h, w) / WORK_LONG_SIDE) + 3.0
        pad = int(reach) + 8
        x0, y0 = (int(v) - pad for v in q.min(axis=0))
        x1, y1 = (int(v) + pad + 1 for v in q.max(axis=0))
        crop0 = image[max(y0, 0) : min(y1, h), max(x0, 0) : min(x1, w)]
        if crop0.size == 0:
            return []
        off = np.array([x0, y0], np.float64)
        for pad_colour in pads:
            crop = cv2.copyMakeBorder(
                crop0,
                max(-y0, 0),
                max(y1 - h, 0),
                max(-x0, 0),
                max(x1 - w, 0),
                cv2.BORDER_CONSTANT,
                value=pad_colour,
            )
            fit = refine_quad(crop, q - off, reach=reach)
            if fit is None and reach > 5.0:
                # As in `_refine`: the inner edge of a light rim may rival the card's edge; look closer.
                fit = refine_quad(crop, q - off, reach=0.55 * reach)
            if fit is None:
                break
            c = _onto_frame_edge(fit.corners + off, i, axis, lim, edge_tol)
            if c is not None:
                break
        if fit is None:
            if not grow:
                return []
            # The clearest outline may be a printed frame inside a light border whose edge on a
            # light table is faint, too far out for this search: look a border's width further.
            m = s.border_mm / float(np.mean(self.table.mm_per_px(q)))
            return self._fit_cut_around(image, q, i, axis, lim, m, table, corner_in_view, seek_far=True)
        if c is None:
            return []  # the cut side is not the frame's edge: not a card running off the frame
        # The pad beyond every edge of the frame makes each a clean straight edge: a side fitted
        # on another one is no card edge (the card runs off a corner of the frame).
        on_frame = [_along_frame_edge(c[k], c[(k + 1) % 4], (w, h)) for k in range(4)]
        if on_frame[i2]:
            return []
        if on_frame[i1] or on_frame[i3]:
            # The corner between the two sides on the frame's edges is the frame's.
            hidden = i1 if on_frame[i1] else i
            v = (hidden + 2) % 4
            got = self._fit_corner_cut(image, c, fit, hidden, table)
            if got or not grow:
                return got
            # Only the card's size along the two seen sides bounds them, so an inner edge of a
            # light rim or border fits as well as the card; its outside is not the table (the
            # check in `_fit_corner_cut`). The card's own edges are a border's width further out.
            v = (hidden + 2) % 4
            m = self.settings.border_mm / float(np.mean(self.table.mm_per_px(c)))
            bigger = _offset_quad(c - off, [m if k in (v, (v - 1) % 4) else 0.0 for k in range(4)])
            outer = None if bigger is None else refine_quad(crop, bigger, reach=0.8 * m, passes=1)
            if outer is None:
                return []
            c2 = outer.corners + off
            if not all(_along_frame_edge(c2[k], c2[(k + 1) % 4], (w, h)) for k in (hidden, (hidden - 1) % 4)):
                return []
            return self._fit_corner_cut(image, c2, outer, hidden, table)
        size = w if axis == 1 else h  # along the frame's edge the card is cut by
        if any(not 2.5 < c[k, 1 - axis] + 0.5 < size - 2.5 for k in (i, i1)):
            # A side reaching the frame's edge at (or past) a corner of the frame may be fitted
            # partly along the other edge there: its direction, and the card placed along it,
            # cannot be told.
            return []
        seen = [fit.sides[k] for k in (i1, i2, i3)]
        sup = [sd.support for sd in seen]
        short_px = side_lengths(c)[0]
        resid = max(sd.residual_px for sd in seen)
        weak = min(sup) < s.min_support or np.mean(sup) < s.mean_support
        if weak and (min(sup) < s.min_support_sized or np.mean(sup) < s.mean_support_sized):
            return []
        if resid > s.max_residual_px * max(1.0, short_px / 150):
            return []
        cs, cl = sorted(s.card_size_mm)
        mm = self.table.to_mm(c)
        if max(_corner_skew_deg(mm, k) for k in (i2, i3)) > s.max_skew_deg:
            return []  # not a rectangle's corners: a side fitted across the card and something else
        width = float(np.linalg.norm(mm[i3] - mm[i2]))
        if weak and not (abs(width / cs - 1) < 0.02 or abs(width / cl - 1) < 0.02):
            return []  # as in `_refine`: only the card's size vouches for faint sides
        if abs(width / cs - 1) <= s.size_tolerance:
            length = cl
        elif abs(width / cl - 1) <= s.size_tolerance:
            length = cs
        else:
            full = cs if width < cs else cl
            if grow and 0.8 * full < width < full:
                # The inner frame of a printed border: move the three seen sides out by the
                # border and fit again, the cut side staying on the frame's edge.
                m = (full - width) / 2 / float(np.mean(self.table.mm_per_px(c)))
                return self._fit_cut_around(image, c, i, axis, lim, m, table, corner_in_view, seek_far=True)
            return []
        across = cs if length == cl else cl
        if grow and width < 0.98 * across:
            # Within the size tolerance but short of the card: as in `_grow_sides`, one side along
            # it may keep to a frame printed inside the card (its border hardly unlike the table),
            # and then the far side too, which places the card: try the card's size there.
            mm_per_px = float(np.mean(self.table.mm_per_px(c)))
            d = (across - width) / mm_per_px
            got = []
            for k, far in itertools.product((i1, i3), (0.0, s.border_mm / mm_per_px)):
                margin = np.zeros(4)
                margin[k], margin[i2] = d, far
                got += [
                    g
                    for g in self._fit_cut_around(
                        image, c, i, axis, lim, margin, table, corner_in_view, reach=max(0.35 * d, 2.5)
                    )
                    if self._full_size(g) and g.score >= s.mean_support
                ]
            if got:
                # A card's border is one colour all round: just inside its own edges the colour is
                # the same on every side in view, unlike a side kept to the printed frame.
                return [min(got, key=lambda g: _inside_spread(image, g.corners_px, in_view=True))]
        # Only one of the card's sizes is measured: each seen side must be a card's own edge, with
        # the table just outside it (not a printed frame, whose outside is the card's border, nor
        # the table between cards, whose sides are the neighbours' edges).
        inside, outside = _outline_colours(image, c, short_px)
        din = np.linalg.norm(inside - table, axis=1)[[i1, i2, i3]]
        dout = _off_table(outside, table)[[i1, i2, i3]]
        # One side running off the frame may touch another card (cards close together); a printed
        # frame or the gap between cards has the wrong thing outside on all of them. The far side
        # places the card along its length: it must be the card's edge.
        off = dout > 30.0 + 0.2 * din
        if off[1] and not off[0] and not off[2] and seek_far:
            # The card's far edge is then the outermost edge with the table outside, within three
            # borders' widths (a title band).
            m = s.border_mm / float(np.mean(self.table.mm_per_px(c)))
            got = []
            for k in range(1, 7):
                margin = np.where(np.arange(4) == i2, 0.5 * k * m, 0.0)
                got += self._fit_cut_around(
                    image, c, i, axis, lim, margin, table, corner_in_view, reach=0.35 * m
                )
            return sorted(got, key=lambda g: -abs(float(g.corners_px[:, axis].mean()) - lim))[:1]
        if off[1] or off.sum() > 1:
            return []
        # The two corners in view are the card's: past each along the far side lies the table (a
        # printed frame's corner has the rest of the card there, the far edge running on).
        past = 2.0 * s.border_mm / float(np.mean(self.table.mm_per_px(c)))
        for k, other, beside in ((i2, i3, off[0]), (i3, i2, off[2])):
            if beside:
                # A neighbour beside the side ending at this corner reaches past it (touching
                # cards): what lies there is the neighbour and tells nothing; the other corner does.
                continue
            d = (c[k] - c[other]) / max(float(np.linalg.norm(c[k] - c[other])), 1e-9)
            room = min(
                (((w - 1.0 if d[x] > 0 else 0.0) - c[k, x]) / d[x] for x in (0, 1) if abs(d[x]) > 1e-9),
                default=past,
            )
            end = c[k] + max(min(past, room), 0.0) * d
            if not self._ends_at(image, c[k], end, c.mean(axis=0), inside[i2], table, outside[i2]):
                return []
        new = c.copy()
        sig = fit.sigma_px.copy()
        for real, hid in ((i2, i1), (i3, i)):
            seen_mm = float(np.linalg.norm(mm[hid] - mm[real]))
            past_corner = corner_in_view and hid == i1
            if seen_mm > length * (1 + s.size_tolerance) and not past_corner:
                return []  # longer than a card
            if past_corner and seen_mm < length * (1 - s.size_tolerance):
                return []  # the card's corner there would be out of view: not the card seen
            d = c[hid] - c[real]
            t = self._px_at_mm(c[real], d / np.linalg.norm(d), length, mm[real])
            if t is None:
                return []
            new[hid] = c[real] + t * d / np.linalg.norm(d)
            if past_corner and not self._ends_at(image, new[hid], c[hid], c.mean(axis=0), inside[i1], table):
                return []  # the edge runs on past where the card's size ends it: not this card
            # The side's direction error grows with the distance from what was seen.
            sig[hid] = math.hypot(fit.sigma_px[hid] * t / max(np.linalg.norm(d), 1.0), fit.sigma_px[real])
        frame = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
        inter, _ = cv2.intersectConvexConvex(new.astype(np.float32), frame)
        if inter < MIN_SEEN_SHARE * abs(_poly_area(new)):
            return []  # too little in view to place it
        return self._completed(new, sig, fit, sup, resid)

    def _fit_cut_around(
        self,
        image: np.ndarray,
        c: np.ndarray,
        i: int,
        axis: int,
        lim: float,
        m: float | np.ndarray,
        table: np.ndarray,
        corner_in_view: bool,
        seek_far: bool = False,
        reach: float | None = None,
    ) -> list[CardCandidate]:
        """`_fit_cut` once more, without growing, around the quad c (px, side i on the frame's
        edge) with its three seen sides moved out by m px (side k by m[k]): the card around a
        printed frame."""
        bigger = _offset_quad(c, m)
        if bigger is None:
            return []
        i1, i2, i3 = (i + 1) % 4, (i + 2) % 4, (i + 3) % 4
        for k0, k1 in ((i, i3), (i1, i2)):  # back onto the frame's edge along the side
            d = bigger[k0] - bigger[k1]
            if abs(d[axis]) < 1e-6:
                return []
            bigger[k0] = bigger[k1] + d * (lim - bigger[k1, axis]) / d[axis]
        return self._fit_cut(
            image,
            bigger,
            i,
            axis,
            lim,
            reach=max(0.35 * float(np.max(m)), 2.5) if reach is None else reach,
            table=table,
            grow=False,
            corner_in_view=corner_in_view,
            seek_far=seek_far,
        )

    def _ends_at(
        self,
        image: np.ndarray,
        corner: np.ndarray,
        beyond: np.ndarray,
        ctr: np.ndarray,
        card: np.ndarray,
        table: np.ndarray,
        outside: np.ndarray | None = None,
    ) -> bool:
        """Whether a card whose edge runs from its corner `corner` on towards `beyond` (px) shows
        the table, not itself, just inside that line past the corner (`ctr`: a point on the
        card's side of it; `card`: the card's colour just inside its edge). With `outside`, the
        colour just outside that edge: whether the edge's step ends at the corner (the same
        colour either side of the line past it: the table, or a neighbour lying across it
        there) - a card's edge running on past a corner of its printed frame, or of bands
        printed along its sides, keeps its step there."""
        d = beyond - corner
        gap = float(np.linalg.norm(d))
        start = max(3.0, 1.5 / float(np.mean(self.table.mm_per_px(corner[None]))))  # clear of a shadow
        if gap < start + 3.0:
            return True  # the corner is at the frame's edge: nothing past it to look at
        d /= gap
        inward = (ctr - corner) - ((ctr - corner) @ d) * d
        inward *= 4.0 / (np.linalg.norm(inward) + 1e-9)
        along = corner + np.linspace(start, gap - 1.0, 6)[:, None] * d
        pts = np.concatenate([along + inward, along - inward]).astype(np.float32)
        got = cv2.remap(
            image, pts[:, :1].copy(), pts[:, 1:].copy(), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        ).reshape(len(pts), -1)
        past, across = got[:6].astype(np.float32), got[6:].astype(np.float32)
        if outside is not None:
            # Past the corner, the edge runs on when the card's colour still lies on its side of
            # the line and the outside's on the other. Beside a white card on a white table its
            # border passes for the table; a neighbour touching the corner for the card, a
            # neighbour's edge in line with it for the edge: the two colours together tell.
            spread = float(np.median(np.linalg.norm(across - np.median(across, axis=0), axis=1)))
            if float(np.linalg.norm(card - outside)) > 3.0 * spread:
                dc = np.linalg.norm(past - card, axis=1), np.linalg.norm(across - card, axis=1)
                do = np.linalg.norm(past - outside, axis=1), np.linalg.norm(across - outside, axis=1)
                return float(np.mean((dc[0] < do[0]) & (do[1] < dc[1]))) <= 0.5
        colour = np.median(past, axis=0)
        return float(_off_table(colour[None], table)[0]) < float(np.linalg.norm(colour - card))

    def _completed(
        self, new: np.ndarray, sig: np.ndarray, fit: QuadFit, sup: list[float], resid: float
    ) -> list[CardCandidate]:
        """[the card completed to corners `new` (px) with sigmas `sig`] if its seen sides' fit
        is good enough, else []."""
        score = float(np.clip(np.mean(sup), 0, 1) * math.exp(-max(resid - 0.3, 0) / 1.5))
        if score < self.settings.min_score:
            return []
        return [self._calibrated_card(new, sig, score, fit)]

    def _fit_corner_cut(
        self, image: np.ndarray, c: np.ndarray, fit: QuadFit, j: int, table: np.ndarray
    ) -> list[CardCandidate]:
        """The card of a fit `c` (px) running off a corner of the frame: the two sides at
        corner j lie on two edges of the frame, the other two are the card's own edges and
        meet at its one corner in view, opposite j. Each seen edge is at most as long as the card side it
        belongs to; the card is placed only when that settles which is the long side (a seen
        edge longer than the card's short side)."""
        s = self.settings
        v = (j + 2) % 4  # the corner in view, between the two seen sides v-1 and v
        a, b = (j + 1) % 4, (j + 3) % 4  # their far ends, at the frame's edges
        seen = [fit.sides[a], fit.sides[v]]
        sup = [sd.support for sd in seen]
        short_px = side_lengths(c)[0]
        if min(sup) < s.min_support or np.mean(sup) < s.mean_support:
            return []
        resid = max(sd.residual_px for sd in seen)
        if resid > s.max_residual_px * max(1.0, short_px / 150):
            return []
        # Both seen sides must be the card's edge, the table just outside (not a rim or a printed
        # frame), and the card must reach the frame's edge along both (a card corner just inside
        # the frame leaves table between it and the frame's edge, which a side fitted along the
        # frame's edge spans).
        inside, outside = _outline_colours(image, c, short_px)
        dout = _off_table(outside, table)
        ctr = c.mean(axis=0)
        for k, start, end in ((a, v, a), (v, v, b)):
            if dout[k] > 30.0:
                return []
            d = c[end] - c[start]
            t = np.linspace(0.9, 0.98, 5)[:, None]
            inward = (ctr - c[start]) - ((ctr - c[start]) @ d) / (d @ d) * d
            pts = (c[start] + t * d + 4.0 * inward / (np.linalg.norm(inward) + 1e-9)).astype(np.float32)
            near_end = cv2.remap(
                image, pts[:, :1].copy(), pts[:, 1:].copy(), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            ).reshape(len(pts), -1)
            end_colour = np.median(near_end.astype(np.float32), axis=0)
            if np.linalg.norm(end_colour - table) < np.linalg.norm(end_colour - inside[k]):
                return []
        mm = self.table.to_mm(c)
        if _corner_skew_deg(mm, v) > s.max_skew_deg:
            return []
        la, lb = float(np.linalg.norm(mm[a] - mm[v])), float(np.linalg.norm(mm[b] - mm[v]))
        cs, cl = sorted(s.card_size_mm)
        fits = [
            (x, y)
            for x, y in ((cs, cl), (cl, cs))
            if la <= x * (1 + s.size_tolerance) and lb <= y * (1 + s.size_tolerance)
        ]
        if len(fits) != 1:
            return []  # longer than a card, or either way round
        la_card, lb_card = fits[0]
        ua, ub = (mm[a] - mm[v]) / max(la, 1e-9), (mm[b] - mm[v]) / max(lb, 1e-9)
        card_mm = np.empty((4, 2))
        card_mm[v], card_mm[a], card_mm[b] = mm[v], mm[v] + la_card * ua, mm[v] + lb_card * ub
        card_mm[j] = card_mm[a] + lb_card * ub
        try:
            to_px = cv2.getPerspectiveTransform(mm.astype(np.float32), c.astype(np.float32))
        except cv2.error:
            return []
        new = cv2.perspectiveTransform(card_mm.reshape(-1, 1, 2), to_px).reshape(4, 2)
        h, w = image.shape[:2]
        frame = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
        inter, _ = cv2.intersectConvexConvex(new.astype(np.float32), frame)
        if not _convex(new) or inter < MIN_SEEN_SHARE * abs(_poly_area(new)):
            return []  # too little in view to place it
        # The sides' direction errors grow with the distance from what was seen.
        sig = fit.sigma_px.copy()
        for far, length, seen_len in ((a, la_card, la), (b, lb_card, lb)):
            sig[far] = math.hypot(fit.sigma_px[far] * length / max(seen_len, 1e-9), fit.sigma_px[v])
        sig[j] = math.hypot(sig[a], sig[b])
        return self._completed(new, sig, fit, sup, resid)

    def _px_at_mm(self, p: np.ndarray, d: np.ndarray, dist_mm: float, p_mm: np.ndarray) -> float | None:
        """How far (px) along the image line p + t d lies the point dist_mm from p on the table."""
        t = dist_mm / float(self.table.mm_per_px(p)[0])
        for _ in range(6):
            pair = self.table.to_mm(np.array([p + t * d, p + (t + 1.0) * d]))
            f0 = float(np.linalg.norm(pair[0] - p_mm)) - dist_mm
            f1 = float(np.linalg.norm(pair[1] - p_mm)) - dist_mm
            if f1 - f0 <= 1e-9:
                return None
            step = f0 / (f1 - f0)
            t -= step
            if abs(step) < 1e-3:
                break
        return t

    def _from_sides(
        self,
        image: np.ndarray,
        cnt: np.ndarray,
        scale: float,
        known: list[CardCandidate],
        stretches: bool = True,
    ) -> list[CardCandidate]:
        """Card hypotheses from the long straight stretches of a blob's outline (small px): first
        the cards at its corners (two stretches square on the table, `_at_corners`), then, if
        `stretches`, a card on the inner side of each stretch alone."""
        pts = cv2.approxPolyDP(cnt, 1.5, True).reshape(-1, 2).astype(np.float64)
        if len(pts) < 3 or len(cv2.approxPolyDP(cnt, 0.01 * cv2.arcLength(cnt, True), True)) > 20:
            return []  # a ragged outline (a hand, a crumpled thing) is not a row of cards
        x, y, w, h = cv2.boundingRect(cnt)
        mask = np.zeros((h + 2, w + 2), np.uint8)
        cv2.drawContours(mask, [cnt - [x - 1, y - 1]], -1, 255, -1)
        # What a card of this blob may cover (small px): the blob, and the found cards (a card
        # partly under one of them).
        seen = np.zeros((round(image.shape[0] / scale), round(image.shape[1] / scale)), np.uint8)
        cv2.drawContours(seen, [cnt], -1, 255, -1)
        for c in known:
            q = (c.corners_px - (scale - 1) / 2) / scale
            cv2.fillPoly(seen, [np.round(q * 16).astype(np.int32)], 255, cv2.LINE_8, shift=4)
        out: list[CardCandidate] = []
        tried: list[np.ndarray] = []

        def hypothesis(q: np.ndarray, es: float, reach: float, grow: int) -> bool:
            """Refine the quad q (small px) unless it repeats one or is not a card of this blob;
            False once enough were tried."""
            qf = order_corners(q * scale + (scale - 1) / 2)
            ctr = qf.mean(axis=0)
            if any(
                cv2.pointPolygonTest(c.corners_px.astype(np.float32), (float(ctr[0]), float(ctr[1])), False)
                > 0
                for c in known + out
            ):
                return True
            if any(np.max(np.abs(qf - o)) < 0.15 * es * scale for o in tried):
                return True
            if _share_inside(seen, q) < 0.7:
                return True  # mostly on the table: not a card of this blob (or under a found one)
            tried.append(qf)
            if len(tried) > 16:
                return False
            # A hypothesis a few px off a light-rimmed card's edge may be fitted, looking
            # closer, to the rim's inner edge on some side: move such sides out (`_grow_sides`).
            got = self._refine(image, qf, reach=reach, grow=grow, sides=True)
            if not grow:
                # A card placed by its size must be borne out by clear edges at that size (not
                # the table between two cards, outlined by their edges and two grain lines).
                got = [g for g in got if self._full_size(g) and g.score >= self.settings.mean_support]
            # A blob's outline is an edge between the table and something else, a card on
            # either side of it: a card placed on its inner side must not show the table there
            # (the table between two cards, bounded by their edges, a grain line and the
            # table's edge, has the table inside and the cards outside).
            out.extend(g for g in got if not _more_table_inside(image, g.corners_px, self._table_colour))
            return True

        for q, es in self._at_corners(cnt, scale, known):
            # Both sides' lines were fitted to the outline: a search as close as a rough quad's.
            # The quad is the card-sized one already, not a printed frame to look around.
            if not hypothesis(q, es, 2.5 * scale + 2.5, 0):
                return out
        if not stretches:
            return out
        lengths = np.linalg.norm(np.roll(pts, -1, axis=0) - pts, axis=1)
        for i in np.argsort(-lengths)[:10]:  # the longest straight stretches
            p0, p1 = pts[i], pts[(i + 1) % len(pts)]
            seg = p1 - p0
            length = float(np.linalg.norm(seg))
            mid_full = (p0 + p1) / 2 * scale + (scale - 1) / 2
            exp = self._expected_card_px(known, mid_full)
            if exp is None:
                return out
            es, el = exp[0] / scale, exp[1] / scale
            if length < 0.45 * es:
                continue
            d = seg / length
            n = np.array([-d[1], d[0]])
            probe = ((p0 + p1) / 2 + 2.5 * n - [x - 1, y - 1]).round().astype(int)
            inside = (
                0 <= probe[1] < mask.shape[0]
                and 0 <= probe[0] < mask.shape[1]
                and mask[probe[1], probe[0]] > 0
            )
            if not inside:
                n = -n
            for along, across in ((es, el), (el, es)):
                if length > 1.15 * along:
                    continue  # this stretch is longer than that card edge
                for a, dd in ((p0, d), (p1, -d)):  # the card's corner at either end of the stretch
                    q = np.array([a, a + dd * along, a + dd * along + n * across, a + n * across])
                    # The stretch's ends are the outline's vertices, its direction a few degrees
                    # off: search wider, and grow a fit to the card as any rough quad's (one
                    # level: no art frame is expected inside a side's card).
                    if not hypothesis(q, es, 0.1 * es * scale + 3.0, 1):
                        return out
        return out

    def _at_corners(
        self, cnt: np.ndarray, scale: float, known: list[CardCandidate]
    ) -> list[tuple[np.ndarray, float]]:
        """Cards (small px, with the card's short side in small px) at the corners of a blob's
        outline (small px): where two long straight stretches follow each other round a corner
        and are square on the table, a card has two of its sides on their lines - their
        intersection is its corner, and the card's size in mm places the rest. Each line is
        fitted to all the outline's points along its stretch, so its direction is known far
        better than from the stretch's two ends (a degree off moves the card's far corners
        several px). Needs a calibration (square and sizes are on the table)."""
        if self.table is None:
            return []
        runs = _straight_runs(
            cnt, 0.3 * self._expected_card_px(known, cnt.reshape(-1, 2).mean(axis=0) * scale)[0] / scale
        )
        if len(runs) < 2:
            return []
        cs, cl = sorted(self.settings.card_size_mm)
        off = (scale - 1) / 2
        out: list[tuple[np.ndarray, float]] = []
        for j in range(len(runs)):
            (a0, a1, pa, ua), (b0, b1, pb, ub) = runs[j], runs[(j + 1) % len(runs)]
            es = self._expected_card_px(known, a1 * scale + off)[0] / scale
            if np.linalg.norm(b0 - a1) > 0.3 * es:
                continue  # something else between the two stretches: no corner of one card
            det = ua[0] * ub[1] - ua[1] * ub[0]
            if abs(det) < 0.5:
                continue  # far from square even in the image
            t = ((pb - pa)[0] * ub[1] - (pb - pa)[1] * ub[0]) / det
            k = pa + t * ua  # the corner (small px)
            da, db = -ua, ub  # from the corner along either side
            kf = k * scale + off
            # Four points round the corner, their places on the table: the local perspective.
            span = es * scale
            px = np.array([kf, kf + da * span, kf + db * span, kf + (da + db) * span])
            mm = self.table.to_mm(px)
            ea, eb = mm[1] - mm[0], mm[2] - mm[0]
            ea, eb = ea / np.linalg.norm(ea), eb / np.linalg.norm(eb)
            # Square on the table, within twice what a fitted card's corner may be off (these
            # lines come from the coarse outline of the work copy).
            square = abs(math.degrees(math.asin(np.clip(ea[0] * eb[1] - ea[1] * eb[0], -1, 1))))
            if square < 90 - 2 * self.settings.max_skew_deg:
                continue
            # Square the two directions symmetrically about their bisector.
            bis = (ea + eb) / np.linalg.norm(ea + eb)
            perp = eb - ea
            perp /= np.linalg.norm(perp)
            ea, eb = (bis - perp) / math.sqrt(2), (bis + perp) / math.sqrt(2)
            try:
                to_px = cv2.getPerspectiveTransform(mm.astype(np.float32), px.astype(np.float32))
            except cv2.error:
                continue
            la, lb = np.linalg.norm(a1 - a0) * scale, np.linalg.norm(b1 - b0) * scale
            for side_a, side_b in ((cs, cl), (cl, cs)):
                # A stretch no longer than the card's side along it (its rounded corners cut).
                side_px = span / cs
                if la > 1.1 * side_a * side_px or lb > 1.1 * side_b * side_px:
                    continue
                rect = np.array(
                    [mm[0], mm[0] + ea * side_a, mm[0] + ea * side_a + eb * side_b, mm[0] + eb * side_b]
                )
                q = cv2.perspectiveTransform(rect.reshape(-1, 1, 2), to_px).reshape(4, 2)
                out.append(((q - off) / scale, es))
        return out

    def _expected_card_px(self, cards: list[CardCandidate], at: np.ndarray) -> tuple[float, float] | None:
        if self.table is not None:
            k = float(self.table.mm_per_px(at.reshape(1, 2))[0])
            a, b = sorted(self.settings.card_size_mm)
            return a / k, b / k
        if len(cards) < 2:
            return None
        dims = np.array([side_lengths(c.corners_px) for c in cards])
        return float(np.median(dims[:, 0])), float(np.median(dims[:, 1]))

    def _split_touching(
        self, image: np.ndarray, blobs: list[np.ndarray], scale: float, cards: list[CardCandidate]
    ) -> list[CardCandidate]:
        """Blobs the size of 2-4 cards in a row, or of a grid of up to 4 x 4 cards edge to edge
        (players lay cards so), not explained by found cards: cut into the cards. Touching cards
        of one colour (backs with light rims, on any cloth) may show no line between them that
        would part the blob: their box and the card's size place the cuts, and each piece is
        refined to the card's own edges."""
        found = shapely.union_all([shapely.Polygon(c.corners_px) for c in cards]) if cards else None
        out: list[CardCandidate] = []
        done: list[np.ndarray] = []
        for cnt in blobs:
            rect = cv2.minAreaRect(cnt)
            (cx, cy), (bw, bh), ang = rect
            if bw * bh <= 0 or cv2.contourArea(cnt) / (bw * bh) < 0.85:
                continue
            # The outline's own four corners where it has them: a grid seen in perspective is no
            # rectangle in the image, and its box strays from it by several px at the corners.
            quads = self._rough(cnt)
            box = (order_corners(quads[0]) if quads else cv2.boxPoints(rect).astype(np.float64)) * scale + (
                scale - 1
            ) / 2
            e = np.linalg.norm(np.roll(box, -1, axis=0) - box, axis=1) / scale
            bw, bh = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
            poly = shapely.Polygon(box)
            covered = 0.0 if found is None else poly.intersection(found).area / poly.area
            if covered > 0.9:
                continue  # every card of it found
            exp = self._expected_card_px(cards, box.mean(axis=0))
            if exp is None:
                continue
            es, el = exp
            # box edges: p0->p1 has length bw, p1->p2 length bh
            # Every way the box measures a row or a grid of cards (k along its side b[i0] ->
            # b[i0 + 1], n across), given the card's size (its tolerance admits neighbours).
            ways = [
                (k, n, i0, (ps, pl) == (es, el))
                for k in (1, 2, 3, 4)
                for n in ((1, 2, 3, 4) if self.table is not None else (1,))
                if k * n >= 2 and (n == 1 or k > 1)  # a row is cut along its length (k)
                for along, across, i0 in ((bw * scale, bh * scale, 0), (bh * scale, bw * scale, 1))
                for ps, pl in ((es, el), (el, es))
                if abs(along / k / ps - 1) < 0.15 and abs(across / n / pl - 1) < 0.12
            ]
            # With sizes in mm, a grid whose fitted outline measures k x n cards places them, and
            # no other way is tried; else each piece of each way is refined alone.
            placed = []
            if self.table is not None:
                for way in ways:
                    placed = self._placed_in_grid(image, box, *way)
                    if placed:
                        break
            if placed:
                out.extend(placed)
                continue
            if covered > 0.6:
                continue  # most of its cards found: the rest are read by `_partly_covered`
            for k, n, i0, _ in ways:
                out.extend(self._cut(image, box, k, n, i0, done))
        return out

    def _placed_in_grid(
        self, image: np.ndarray, box: np.ndarray, k: int, n: int, i0: int, short_along: bool
    ) -> list[CardCandidate]:
        """The cards of a k x n grid of touching cards placed by the card's size within the grid's
        outline (full-size px), where the lines between them do not show (backs of one colour
        edge to edge: each card's light rim runs into its neighbour's). The outline must be
        fitted cleanly all round and measure k x n cards with one common gap of at most a few mm
        on both axes (a board or a box is not a whole number of cards both ways)."""
        s = self.settings
        # The outline's corners are the work copy's: a few px off. A wide search also takes in
        # the light rims' inner edges: look closer until all four sides hold.
        for reach in (10.0, 6.0, 3.5):
            fit = refine_quad(image, box, reach=reach)
            if fit is not None and _convex(fit.corners):
                support = _seen_support(fit, image.shape)
                if min(support) >= s.min_support and np.mean(support) >= s.mean_support:
                    break
        else:
            return []
        if max(sd.residual_px for sd in fit.sides) > NO_EDGE_RESIDUAL_PX:
            # A side of the outline in steps, not one straight edge: the cards are staggered (each
            # a few mm further along than the last), which the grid would place half a step off.
            return []
        c = np.roll(fit.corners, -i0, axis=0)  # c[0]->c[1]: the k cards' side
        c_mm = self.table.to_mm(c)
        if max(_corner_skew_deg(c_mm, j) for j in range(4)) > s.max_skew_deg:
            return []
        e = np.linalg.norm(np.roll(c_mm, -1, axis=0) - c_mm, axis=1)
        la, lb = (e[0] + e[2]) / 2, (e[1] + e[3]) / 2
        cs, cl = sorted(s.card_size_mm)
        pa, pb = (cs, cl) if short_along else (cl, cs)
        gaps = [(length - m * p) / (m - 1) for length, m, p in ((la, k, pa), (lb, n, pb)) if m > 1]
        for length, m, p in ((la, k, pa), (lb, n, pb)):
            if m == 1 and abs(length - p) > s.size_tolerance * p / 2:
                return []
        # Cards laid edge to edge: at most ~3 mm apart (wider gaps show the table between them),
        # the same on both axes.
        if not all(-0.7 < g < 3.0 for g in gaps) or (len(gaps) == 2 and abs(gaps[0] - gaps[1]) > 1.5):
            return []
        g = float(np.mean(gaps))
        try:
            to_px = cv2.getPerspectiveTransform(
                np.float32([[0, 0], [la, 0], [la, lb], [0, lb]]), c.astype(np.float32)
            )
            to_table = cv2.getPerspectiveTransform(c.astype(np.float32), c_mm.astype(np.float32))
        except cv2.error:
            return []
        score = float(np.clip(np.mean(support), 0, 1))
        out: list[CardCandidate] = []
        for i in range(k):
            for j in range(n):
                a0, b0 = i * (la - pa) / max(k - 1, 1), j * (lb - pb) / max(n - 1, 1)
                rect = np.array([[a0, b0], [a0 + pa, b0], [a0 + pa, b0 + pb], [a0, b0 + pb]])
                q = cv2.perspectiveTransform(rect.reshape(-1, 1, 2), to_px).reshape(4, 2)
                q_mm = cv2.perspectiveTransform(q.reshape(-1, 1, 2), to_table).reshape(4, 2)
                # Where the lines between the cards show, the card's own edges place it better:
                # looked for close (a light rim's inner edge is a few px in), and taken only
                # at the card's size, where the grid puts it.
                fitted = [
                    f
                    for f in self._refine(image, order_corners(q), reach=2.5, grow=0, sides=False)
                    if self._full_size(f)
                    and np.abs(f.corners_mm - order_corners(q_mm)).max() < 1.0 + max(g, 0.0)
                ]
                if fitted:
                    out.append(max(fitted, key=lambda f: f.score))
                    continue
                order = corner_order(q)
                # An inner side lies within the gap: its place is known to half the gap.
                sigma = np.full(
                    4, float(np.max(fit.sigma_px)) + max(g, 0.5) / 2 / float(np.mean(self.table.mm_per_px(q)))
                )
                out.append(
                    CardCandidate(
                        corners_px=q[order],
                        sigma_px=sigma,
                        score=score,
                        fit=fit,
                        corners_mm=q_mm[order],
                        sigma_mm=np.asarray(self.table.sigma_mm(q[order], sigma)),
                    )
                )
        return out

    def _cut(
        self, image: np.ndarray, box: np.ndarray, k: int, n: int, i0: int, done: list[np.ndarray]
    ) -> list[CardCandidate]:
        """The cards of a box (a quad: a grid seen in perspective) cut into k x n pieces, k along
        its side from b[0] to b[1]."""
        b = np.roll(box, -i0, axis=0)  # b[0]->b[1] is the side to cut into k pieces

        def at(s: float, t: float) -> np.ndarray:
            return (1 - t) * (b[0] + (b[1] - b[0]) * s) + t * (b[3] + (b[2] - b[3]) * s)

        res = []
        for i in range(k):
            for j in range(n):
                q = np.array([at(s / k, t / n) for s, t in ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1))])
                q = order_corners(q)
                if any(np.max(np.abs(q - o)) < 3 for o in done):
                    continue
                done.append(q)
                res.extend(self._refine(image, q, reach=0.06 * np.linalg.norm(b[1] - b[0]) / k + 4))
        return res


def _first_edges_beyond(
    frame: np.ndarray, fits: list[QuadFit], shape: tuple[int, ...], short: float
) -> np.ndarray | None:
    """The quad (px) whose every side is the nearest well-supported fitted side beyond the same
    side of `frame` (1.5 px to 15 % of its short side out), of any of `fits` (quads grown from
    `frame`, in its corner order), or None when some side has none."""
    mid = (frame + frame[_NEXT_CORNER]) / 2
    d = frame[_NEXT_CORNER] - frame
    n = np.stack([-d[:, 1], d[:, 0]], axis=1)
    n *= np.where(((mid - frame.mean(axis=0)) * n).sum(axis=1) < 0, -1.0, 1.0)[:, None]  # outward
    n /= np.linalg.norm(n, axis=1, keepdims=True) + 1e-9
    points, directions = np.zeros((4, 2)), np.zeros((4, 2))
    best = np.full(4, np.inf)
    for f in fits:
        support = _seen_support(f, shape)
        out = (((f.corners + f.corners[_NEXT_CORNER]) / 2 - mid) * n).sum(axis=1)
        for k in np.nonzero((np.array(support) >= 0.5) & (out > 1.5) & (out <= 0.15 * short) & (out < best))[
            0
        ]:
            best[k], points[k], directions[k] = out[k], f.corners[k], f.corners[(k + 1) % 4] - f.corners[k]
    if not np.isfinite(best).all():
        return None
    return corners_where_sides_meet(points, directions)


def _even_border(inner: np.ndarray, outer: np.ndarray, ratio: float = 2.0, slack_px: float = 2.0) -> bool:
    """Whether the ring between the quad `inner` and the quad `outer` around it (px) is about as
    wide on each pair of opposite sides (within `ratio`, or `slack_px` of each other)."""
    mid_i = (inner + inner[_NEXT_CORNER]) / 2
    p0, p1 = outer, outer[_NEXT_CORNER]
    d = (p1 - p0) / (np.linalg.norm(p1 - p0, axis=1, keepdims=True) + 1e-9)
    off = mid_i[_facing(outer, inner)] - p0
    width = np.abs(off[:, 0] * d[:, 1] - off[:, 1] * d[:, 0])  # from each outer side to the inner one
    for a, b in ((width[0], width[2]), (width[1], width[3])):
        lo, hi = sorted((float(a), float(b)))
        if hi - lo > slack_px and hi > ratio * max(lo, 1e-9):
            return False
    return True


def _holds_cards(card: CardCandidate, quads: np.ndarray) -> bool:
    """Whether rough quads (n x 4 x 2, px) inside `card` are several cards side by side (see
    `_several_cards`)."""
    box = shapely.Polygon(card.corners_px)
    if not box.is_valid or not len(quads):
        return False
    lo, hi = card.corners_px.min(axis=0), card.corners_px.max(axis=0)
    ctr = quads.mean(axis=1)
    near = np.all((ctr >= lo) & (ctr <= hi), axis=1)  # cheap: only those within its box
    polys = [shapely.Polygon(q) for q in quads[near]]
    inside = [p for p in polys if p.is_valid and 0.02 * box.area < p.area < 0.7 * box.area]
    inside = sorted((p for p in inside if box.intersection(p).area > 0.9 * p.area), key=lambda p: -p.area)
    return _several_cards(
        box.area,
        np.array([p.area for p in inside]),
        lambda a, b: inside[a].intersection(inside[b]).area,
        alike=True,
    )


def _several_cards(
    whole: float, areas: np.ndarray, overlap: Callable[[int, int], float], alike: bool
) -> bool:
    """Whether things inside a quad of area `whole` (their `areas`, best first; `overlap(a, b)`
    the area two of them share) are several cards: at least two apart from each other that
    fill most of it (a card's few printed symbols do not) and, if `alike`, alike in size (a
    deck's cards are; a card's art box and text box are not)."""
    parts: list[int] = []
    for j in range(len(areas)):
        if all(overlap(j, k) < 0.2 * min(areas[j], areas[k]) for k in parts):
            parts.append(j)
    if alike and parts:
        parts = [j for j in parts if areas[j] > 0.7 * max(areas[k] for k in parts)]
    return len(parts) >= 2 and sum(areas[j] for j in parts) > 0.6 * whole


def _inside(a: CardCandidate, b: CardCandidate) -> bool:
    """True when candidate a lies (nearly) all within candidate b."""
    pa, pb = shapely.Polygon(a.corners_px), shapely.Polygon(b.corners_px)
    return pa.is_valid and pb.is_valid and pa.area < pb.area and pa.intersection(pb).area > 0.85 * pa.area


def _centre_in_any(q: np.ndarray, cards: list[CardCandidate]) -> bool:
    """Whether the centre of the quad q (px) lies inside any of the cards."""
    ctr = q.mean(axis=0)
    pt = (float(ctr[0]), float(ctr[1]))
    return any(cv2.pointPolygonTest(c.corners_px.astype(np.float32), pt, False) > 0 for c in cards)


def _straight_runs(
    cnt: np.ndarray, min_len: float
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """The straight stretches of a closed outline at least `min_len` long, in order along it:
    (start, end, a point on the line fitted to the outline along it, its unit direction)."""
    c = cnt.reshape(-1, 2).astype(np.float64)
    d = np.roll(c, -1, axis=0) - c
    # Every outline pixel (CHAIN_APPROX_SIMPLE keeps only the ends of straight pieces).
    dense = _densified(c, d, np.maximum(np.ceil(np.abs(d).max(axis=1)).astype(int), 1))
    pts = cv2.approxPolyDP(cnt, 1.5, True).reshape(-1, 2).astype(np.float64)
    out = []
    for i in range(len(pts)):
        p0, p1 = pts[i], pts[(i + 1) % len(pts)]
        length = float(np.linalg.norm(p1 - p0))
        if length < min_len:
            continue
        d = (p1 - p0) / length
        rel = dense - p0
        t = rel @ d
        # Its middle: the outline turns round the corners at both ends.
        on = (t > 0.1 * length) & (t < 0.9 * length) & (np.abs(rel @ np.array([-d[1], d[0]])) < 2.0)
        if np.count_nonzero(on) < 5:
            continue
        vx, vy, x0, y0 = cv2.fitLine(dense[on].astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
        u = np.array([vx, vy], dtype=np.float64)
        out.append((p0, p1, np.array([x0, y0], dtype=np.float64), u if u @ d >= 0 else -u))
    return out


def _blobs_under(blobs: list[np.ndarray], corners_px: np.ndarray, scale: float) -> set[int]:
    """Indices of the blobs (work px) whose bounding box holds the centre of the quad (full px)."""
    cx, cy = (corners_px.mean(axis=0) - (scale - 1) / 2) / scale
    out = set()
    for i, b in enumerate(blobs):
        x, y, w, h = cv2.boundingRect(b)
        if x <= cx <= x + w and y <= cy <= y + h:
            out.add(i)
    return out


def frame_side(q: np.ndarray, shape: tuple[int, ...], near: float) -> tuple[int, int, float] | None:
    """(side index, axis, coordinate) of a side of the quad q (full-size px) lying on the frame's
    edge, within `near` px; None if no side does."""
    h, w = shape[:2]
    side = None
    for i in range(4):
        a, b = q[i], q[(i + 1) % 4]
        for axis, lim, out in ((0, -0.5, -1), (0, w - 0.5, 1), (1, -0.5, -1), (1, h - 0.5, 1)):
            # Within `near` of the edge or beyond it (a blob's box may reach past the frame).
            if out * (a[axis] - lim) > -near and out * (b[axis] - lim) > -near:
                side = (i, axis, lim)
    return side


def _hidden_corner(q: np.ndarray, shape: tuple[int, ...], near: float) -> tuple[int, int, float] | None:
    """For a quad (full-size px) with three corners in view and one more than `near` px beyond
    one edge of the frame (not beyond a corner of it): (that corner's index, the edge's axis,
    its coordinate); else None."""
    h, w = shape[:2]
    lo, hi = (-0.5, -0.5), (w - 0.5, h - 0.5)
    # The corners in view may be close to the frame's edge (a blob's outline keeps off it).
    inside = [all(lo[x] + 1.0 < p[x] < hi[x] - 1.0 for x in (0, 1)) for p in _points(q)]
    if sum(inside) != 3:
        return None
    k = inside.index(False)
    beyond = [
        (axis, lim)
        for axis in (0, 1)
        for lim, out in ((lo[axis], -1), (hi[axis], 1))
        if out * (q[k, axis] - lim) > near
    ]
    if len(beyond) != 1:
        return None  # beyond a corner of the frame, or hardly out of view
    return k, *beyond[0]


def _three_corners_in_view(
    q: np.ndarray, shape: tuple[int, ...], near: float
) -> list[tuple[np.ndarray, tuple[int, int, float]]]:
    """For a rough quad (full-size px) of a card with one corner beyond one edge of the frame and
    three in view: the ways to fit the part of it in view as a card cut by that edge, each
    (quad, (0, axis, coordinate)), the quad's corners [on the edge, on the edge, v, a] with v the
    corner opposite the hidden one. Its sides are the frame's edge, the line of the card's edge
    v-b (b the third corner in view) up to the frame's edge, the card's edge v-a, and the edge
    from a towards the hidden corner, which runs off the frame. Either corner next to the hidden
    one may be b, if the line past it reaches the frame's edge soon (most of that side is the
    card's edge, the rest is table); the way that shows more of the side from a comes first.
    Empty when neither line does, or the quad is no such quad."""
    got = _hidden_corner(q, shape, near)
    if got is None:
        return []
    k, axis, lim = got
    h, w = shape[:2]
    lo, hi = (-0.5, -0.5), (w - 0.5, h - 0.5)
    hidden, v = q[k], q[(k + 2) % 4]
    ways = []
    for ia, ib in (((k - 1) % 4, (k + 1) % 4), ((k + 1) % 4, (k - 1) % 4)):
        a, b = q[ia], q[ib]
        d, e = b - v, hidden - a
        if abs(d[axis]) < 1e-6 or abs(e[axis]) < 1e-6:
            continue
        t = (lim - v[axis]) / d[axis]
        if not 1.0 < t < 1.35:
            continue  # the line past b runs far along the table before it leaves the frame
        gb, ea = v + t * d, a + e * (lim - a[axis]) / e[axis]
        if not all(lo[1 - axis] < p[1 - axis] < hi[1 - axis] for p in (gb, ea)):
            continue
        stub = float(np.linalg.norm(ea - a))  # what is in view of the side a - hidden corner
        ways.append((stub, np.array([ea, gb, v, a])))
    return [(way, (0, axis, lim)) for _, way in sorted(ways, key=lambda x: -x[0])]


def _beyond_pentagon(cnt: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """For a contour (px of an image of this shape) whose hull is a pentagon with one side on the
    frame's edge: the quad of its three other corners and the point where its two sides from
    the frame's edge meet beyond it (in order round the pentagon); else None."""
    hull = cv2.convexHull(cnt)
    if cv2.contourArea(cnt) < 0.75 * cv2.contourArea(hull):
        return None
    peri = cv2.arcLength(hull, True)
    for eps in (0.004, 0.007, 0.01, 0.02, 0.04):  # the sides up to the frame's edge may be short
        ap = cv2.approxPolyDP(hull, eps * peri, True).reshape(-1, 2).astype(np.float64)
        if len(ap) <= 5:
            break
    if len(ap) != 5:
        return None
    h, w = shape[:2]
    for i in range(5):
        e1, e2 = ap[i], ap[(i + 1) % 5]
        if not _along_frame_edge(e1, e2, (w, h), tol=3.0):
            continue
        a, b, c = ap[(i + 2) % 5], ap[(i + 3) % 5], ap[(i + 4) % 5]
        d1, d2 = a - e2, c - e1
        m = np.array([d1, -d2]).T
        if abs(np.linalg.det(m)) < 1e-6:
            return None
        t = np.linalg.solve(m, e1 - e2)
        return np.array([a, b, c, e2 + t[0] * d1])
    return None


def _unlike(colours: np.ndarray) -> np.ndarray:
    """Of the pure colours (corners of the colour cube), the one farthest from nearly all of
    `colours` (n x channels)."""
    nc = colours.shape[1]
    palette = np.array(np.meshgrid(*[[0.0, 255.0]] * nc, indexing="ij")).reshape(nc, -1).T
    dist = np.linalg.norm(colours[None] - palette[:, None], axis=2)
    return palette[int(np.argmax(np.percentile(dist, 10, axis=1)))]


def _at_frame_edge(cnt: np.ndarray, shape: tuple[int, ...]) -> bool:
    """True when the contour (px of an image of this shape) reaches within 2 px of its border."""
    x, y, w, h = cv2.boundingRect(cnt)
    return x <= 2 or y <= 2 or x + w >= shape[1] - 2 or y + h >= shape[0] - 2


def _corner_skew_deg(q: np.ndarray, k: int) -> float:
    """How far (degrees) the corner k of the quad q is from a right angle."""
    u, v = q[k - 1] - q[k], q[(k + 1) % 4] - q[k]
    cos = float(u @ v) / max(float(np.linalg.norm(u) * np.linalg.norm(v)), 1e-12)
    return abs(math.degrees(math.acos(max(-1.0, min(1.0, cos)))) - 90.0)


def _along_frame_edge(p: np.ndarray, q: np.ndarray, size: tuple[int, int], tol: float = 1.5) -> bool:
    """True when the segment p-q (px) lies on an edge of a w x h frame, within tol px."""
    w, h = size
    for axis, lim in ((0, -0.5), (0, w - 0.5), (1, -0.5), (1, h - 0.5)):
        if abs(p[axis] - lim) <= tol and abs(q[axis] - lim) <= tol:
            return True
    return False


def _seen_support(fit: QuadFit, shape: tuple[int, ...]) -> list[float]:
    """Each side's support counted over the part of it inside the frame (a card running off the
    frame shows no edge beyond it). A side mostly out of view is judged as it is."""
    h, w = shape[:2]
    c = fit.corners
    p = _side_middles(c)  # all four sides at once: asked of every fit
    inside = (
        np.add.reduce((p[..., 0] > 2) & (p[..., 0] < w - 3) & (p[..., 1] > 2) & (p[..., 1] < h - 3), axis=1)
        / len(_MIDDLE)
    ).tolist()
    beyond = np.logical_and.reduce(_beyond_points(p, shape), axis=1).tolist()
    out = []
    for k, sd in enumerate(fit.sides):
        if beyond[k]:
            # Beyond the frame's edge: no pixel of it was seen, what "edge" its profiles found
            # there is the frame's padding.
            out.append(0.0)
        else:
            # Mostly out of view (along the frame's last rows): the few samples inside cannot
            # vouch for it, judge it as it is.
            out.append(sd.support if inside[k] < 0.4 else min(1.0, sd.support / inside[k]))
    return out


def _onto_frame_edge(c: np.ndarray, i: int, axis: int, lim: float, tol: float) -> np.ndarray | None:
    """A fitted convex quad c (px) whose side i lies within tol px of the frame's edge `axis` =
    `lim`, with that side's corners moved along their other sides onto the edge: where the card
    leaves the view is known exactly, whatever step the fit found there. None when c is not
    convex or side i is not on that edge."""
    i1 = (i + 1) % 4
    if not _convex(c) or abs(c[i, axis] - lim) > tol or abs(c[i1, axis] - lim) > tol:
        return None
    out = c.copy()
    for k, other in ((i, (i + 3) % 4), (i1, (i + 2) % 4)):
        d = c[k] - c[other]
        if abs(d[axis]) < 1e-6:
            return None
        out[k] = c[other] + d * (lim - c[other, axis]) / d[axis]
    return out


# 16 places along the middle of a side (as fractions of it), its corners left out.
_MIDDLE = np.linspace(0.12, 0.88, 16)[:, None]
_NEXT_CORNER = np.array([1, 2, 3, 0])


def _side_middles(q: np.ndarray) -> np.ndarray:
    """The `_MIDDLE` places of each side i of the quad q (corner i to i + 1): 4 x 16 x 2."""
    return q[:, None] + _MIDDLE[None] * (q[_NEXT_CORNER] - q)[:, None]


def _beyond_points(p: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Per point of p (... x 2, px), whether it lies more than a pixel beyond the edge of a frame
    of this shape."""
    h, w = shape[:2]
    return np.logical_or.reduce(p < -1.5, axis=-1) | np.logical_or.reduce(p > np.array([w, h]) + 0.5, axis=-1)


def _beyond_frame(a: np.ndarray, b: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether the segment a-b (px; its middle, the corners left out) lies wholly more than a
    pixel beyond the edge of a frame of this shape: no part of it was seen."""
    return bool(_beyond_points(a + _MIDDLE * (b - a), shape).all())


def corner_order(q: np.ndarray) -> np.ndarray:
    """The indices that put q's corners in `order_corners`' order (clockwise from the top-left)."""
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    idx = np.argsort(ang)
    start = int(np.argmin(q[idx, 0] + q[idx, 1]))
    return np.roll(idx, -start)


def _offset_quad(q: np.ndarray, margin: float | np.ndarray) -> np.ndarray | None:
    """The quad with every side moved outward by `margin` px, or side i (corner i to i + 1) by
    `margin[i]` (corners re-intersected)."""
    ctr = q.mean(axis=0)
    margins = np.broadcast_to(np.asarray(margin, dtype=np.float64), (4,))
    lines = []
    for i, margin in enumerate(margins):
        p0, p1 = q[i], q[(i + 1) % 4]
        d = (p1 - p0) / (np.linalg.norm(p1 - p0) + 1e-9)
        n = np.array([-d[1], d[0]])
        if (p0 - ctr) @ n < 0:
            n = -n
        lines.append((p0 + n * margin, d))
    out = []
    for i in range(4):
        (c1, d1), (c2, d2) = lines[(i - 1) % 4], lines[i]
        a = np.array([d1, -d2]).T
        if abs(np.linalg.det(a)) < 1e-6:
            return None
        t = np.linalg.solve(a, c2 - c1)
        out.append(c1 + t[0] * d1)
    return np.array(out)


def _card_around(c: np.ndarray, c_mm: np.ndarray, short: float, long: float) -> np.ndarray | None:
    """Image corners of the short x long mm rectangle centred on the quad `c` (px; `c_mm` its
    corners on the table) and aligned with it."""
    e = np.roll(c_mm, -1, axis=0) - c_mm
    u = e[0] - e[2] if np.linalg.norm(e[0]) >= np.linalg.norm(e[1]) else e[1] - e[3]
    u = u / (np.linalg.norm(u) + 1e-9)  # along the long sides
    v = np.array([-u[1], u[0]])
    ctr = c_mm.mean(axis=0)
    rect = np.array(
        [ctr + a * long / 2 * u + b * short / 2 * v for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    )
    try:
        h = cv2.getPerspectiveTransform(c_mm.astype(np.float32), c.astype(np.float32))
    except cv2.error:
        return None
    return cv2.perspectiveTransform(rect.reshape(-1, 1, 2), h).reshape(4, 2)


def _on_printed_frame(image: np.ndarray, q: np.ndarray, unlike: float = 40.0) -> list[bool]:
    """Per side of the quad q (px), whether it keeps to a frame printed inside the card: a card's
    rim or border is one colour all round, so a side with another colour just inside it than
    most other sides have, and such a side's inside colour just beyond it, lies inside the rim.
    The rim beyond such a side and just inside the others may be lit differently (the card's own
    shadow darkens the sides away from the light): the colours are compared up to a brightness
    factor of RIM_SHADE."""
    inside, outside = _outline_colours(image, q, side_lengths(q)[0])
    apart = np.linalg.norm(inside[:, None] - inside[None], axis=2) > unlike  # k, j
    # k's outside against j's inside at the brightness that matches them best
    k = (
        np.einsum("kc,jc->kj", outside, inside)
        / np.maximum(np.einsum("jc,jc->j", inside, inside), 1e-9)[None]
    )
    k = np.clip(k, 1 / RIM_SHADE, RIM_SHADE)
    beyond = np.linalg.norm(outside[:, None] - k[..., None] * inside[None], axis=2)
    close = beyond < 0.15 * np.linalg.norm(inside[:, None] - inside[None], axis=2)
    return (np.logical_or.reduce(apart & close, axis=1) & (np.add.reduce(apart, axis=1) >= 2)).tolist()


def _rectified_aspect(q: np.ndarray, shape: tuple[int, ...]) -> float:
    """Long/short ratio of the rectangle of which the quad q (px, clockwise) is a perspective view,
    the focal length estimated from the quad itself and the principal point taken at the frame's
    centre (Zhang & He, "Whiteboard scanning and image enhancement", 2007). When the quad cannot
    tell its focal length (a side pair nearly parallel in the image, or noise on a near head-on
    view gives no real one), a typical camera's is taken: phones and webcams see 60-75 degrees
    across the long side, f about 0.8 of it, and a view from straight above gives the quad's own
    ratio whatever the focal length."""
    h, w = shape[:2]
    size = float(max(h, w))
    m = np.ones((4, 3))
    m[:, :2] = (np.asarray(q, np.float64) - [w / 2, h / 2]) / size
    m1, m2, m4, m3 = m  # top-left, top-right, bottom-right, bottom-left
    k2 = np.cross(m1, m4) @ m3 / (np.cross(m2, m4) @ m3)
    k3 = np.cross(m1, m4) @ m2 / (np.cross(m3, m4) @ m2)
    n2, n3 = k2 * m2 - m1, k3 * m3 - m1
    f2 = -(n2[0] * n3[0] + n2[1] * n3[1]) / (n2[2] * n3[2]) if abs(n2[2] * n3[2]) > 1e-9 else 0.0
    if not 0.3**2 < f2 < 5.0**2:  # not a camera: the quad cannot tell
        f2 = TYPICAL_FOCAL**2
    r2 = (n2[0] ** 2 + n2[1] ** 2 + f2 * n2[2] ** 2) / max(n3[0] ** 2 + n3[1] ** 2 + f2 * n3[2] ** 2, 1e-12)
    r = math.sqrt(max(r2, 1e-12))
    return max(r, 1 / r)


def _well_in_view(points: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether every point (px) lies in the image at least 2 px from the frame's edge."""
    h, w = shape[:2]
    return bool((points >= 2).all() and (points[:, 0] <= w - 3).all() and (points[:, 1] <= h - 3).all())


def _flat_ring_spread(
    image: np.ndarray, inner: np.ndarray, outer: np.ndarray, at: tuple[float, ...]
) -> np.ndarray | None:
    """Per side, how far the colours across the ring between the quad `inner` and the quad `outer`
    around it (px, corners in the same order) stray from their median: sampled along the middle of
    the sides of the quads `inner + f * (outer - inner)` for each f in `at` (f > 1 lies beyond
    `outer`). None if a sample falls outside the image."""
    h, w = image.shape[:2]
    t = np.linspace(0.2, 0.8, 12)[:, None]
    cols = []
    for f in at:
        q = inner + f * (outer - inner)
        pts = np.concatenate([q[k] + t * (q[(k + 1) % 4] - q[k]) for k in range(4)]).astype(np.float32)
        if (pts < 0).any() or (pts[:, 0] > w - 1).any() or (pts[:, 1] > h - 1).any():
            return None
        sampled = cv2.remap(image, pts[:, :1].copy(), pts[:, 1:].copy(), cv2.INTER_LINEAR)
        cols.append(np.median(sampled.reshape(4, len(t), -1).astype(np.float32), axis=1))
    cols = np.stack(cols, axis=1)  # 4 sides x len(at) x C
    return np.linalg.norm(cols - np.median(cols, axis=1, keepdims=True), axis=2).max(axis=1)


_OUTLINE_T = np.linspace(0.2, 0.8, 12)  # where along a side `_outline_colours` looks


def _outline_colours(image: np.ndarray, q: np.ndarray, short: float) -> tuple[np.ndarray, np.ndarray]:
    """Per side of the quad q (px), the colour just inside and just outside it (4 x C each):
    medians of thin strips along the middle of each side, clear of the rounded corners."""
    ctr = q.mean(axis=0)
    t = _OUTLINE_T
    w = float(np.clip(0.02 * short, 2.0, 6.0))
    offs = np.concatenate([-1.5 - np.linspace(0, w, 3), 1.5 + np.linspace(0, w, 3)])
    p0, p1 = q, np.roll(q, -1, axis=0)
    d = p1 - p0
    n = np.stack([-d[:, 1], d[:, 0]], axis=1) / (np.linalg.norm(d, axis=1, keepdims=True) + 1e-9)
    n *= np.where((((p0 + p1) / 2 - ctr) * n).sum(axis=1) < 0, -1.0, 1.0)[:, None]  # outward
    pts = (
        p0[:, None, None]
        + d[:, None, None] * t[None, :, None, None]
        + n[:, None, None] * offs[None, None, :, None]
    )
    pts = pts.reshape(-1, 2).astype(np.float32)  # 4 sides x 12 places x 6 offsets
    sampled = cv2.remap(
        image, pts[:, :1].copy(), pts[:, 1:].copy(), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    nc = sampled.shape[-1]
    # Per side, the inside samples then the outside ones (offsets' first half, then second):
    # both medians in one call.
    sampled = sampled.reshape(4, len(t), 2, len(offs) // 2, nc).astype(np.float32)
    med = np.median(sampled.transpose(0, 2, 1, 3, 4).reshape(4, 2, -1, nc), axis=2)
    return med[:, 0], med[:, 1]


def _off_table(colours: np.ndarray, table: np.ndarray) -> np.ndarray:
    """How far (colour distance) each of `colours` (n x C) is from the table's colour under any
    light the table gets: its colour scaled by a brightness factor (a card's own shadow just
    outside its edge, uneven light across the frame), not a colour of another hue."""
    t = np.asarray(table, np.float64)
    k = np.clip(colours @ t / max(float(t @ t), 1e-9), SHADE_RANGE[0], SHADE_RANGE[1])
    return np.linalg.norm(colours - k[:, None] * t, axis=1)


def _outside_spread(image: np.ndarray, q: np.ndarray) -> float:
    """How far the colour just outside the quad q (px) on its most different side is from the
    others' median."""
    _, outside = _outline_colours(image, q, side_lengths(q)[0])
    return float(np.linalg.norm(outside - np.median(outside, axis=0), axis=1).max())


def _inside_spread(image: np.ndarray, q: np.ndarray, in_view: bool = False) -> float:
    """How far the colour just inside the quad q (px) on its most different side is from the
    others' median (a card's rim, one colour all round, inside a fit on the card's edge);
    `in_view`: of the sides whose middle is in the image only."""
    inside, _ = _outline_colours(image, q, side_lengths(q)[0])
    if in_view:
        h, w = image.shape[:2]
        mid = (q + np.roll(q, -1, axis=0)) / 2
        inside = inside[(mid >= 0).all(axis=1) & (mid[:, 0] <= w - 1) & (mid[:, 1] <= h - 1)]
    return float(np.linalg.norm(inside - np.median(inside, axis=0), axis=1).max())


def _one_polarity(steps: np.ndarray, strong: float = 20.0) -> bool:
    """False when two sides of an outline step in opposite directions, both clearly: a card is one
    colour against the table all round, while a box spanning the gap between two cards has the
    card's edge on some sides and the neighbours' edges, stepping the other way, on the others."""
    norm = np.linalg.norm(steps, axis=1)
    u = steps[norm >= strong] / norm[norm >= strong, None]
    return bool(len(u) < 2 or (u @ u.T).min() > -0.25)


def _a_hole(inside: np.ndarray, outside: np.ndarray, table: np.ndarray | None) -> bool:
    """True when the outline has the table just inside and something else just outside on three
    or more sides: the table showing between cards (the gap around a card, whose sides are the
    neighbours' edges), not a card lying on the table."""
    if table is None:
        return False
    din = np.linalg.norm(inside - table, axis=1)
    dout = np.linalg.norm(outside - table, axis=1)
    return int(np.sum(_table_only(din, dout))) >= 3


def _table_only(near: np.ndarray, far: np.ndarray) -> np.ndarray:
    """Per side of an outline, from the colour distances to the table just on either side of it:
    whether the table is on the `near` side and something else clearly on the `far` side."""
    return (far > NOT_TABLE) & (near < 0.4 * far)


def _more_table_inside(image: np.ndarray, q: np.ndarray, table: np.ndarray) -> bool:
    """True when more sides of the quad q (px) have the table just inside and something else
    just outside (the neighbours' edges round a gap between cards) than the other way round (a
    card's edge against the table), the table's colour taken under any light it gets."""
    inside, outside = _outline_colours(image, q, side_lengths(q)[0])
    din, dout = _off_table(inside, table), _off_table(outside, table)
    return bool(np.sum(_table_only(din, dout)) > np.sum(_table_only(dout, din)))


def _card_plus_gap(
    image: np.ndarray,
    cands: list[CardCandidate],
    areas: np.ndarray,
    inter: np.ndarray,
    table: np.ndarray | None = None,
) -> np.ndarray:
    """Quads around a smaller quad that are a card plus the table around it: the sides are the
    neighbours' edges, and between them and the card lie the gap and the neighbours' borders, so
    the ring between the two quads holds another edge (just inside the outer quad is not what is
    just outside the inner one), and just beyond the outer quad is not the `table`. A card around
    a frame printed on it has its border there, one colour or bands of colour from the frame out
    to the card's edge, and the table beyond it."""
    a_in, a_out = areas[:, None], areas[None]
    nested = (inter > 0.9 * a_in) & (a_in > 0.5 * a_out) & (a_in < 0.9 * a_out)
    drop = np.zeros(len(cands), bool)
    for i, j in zip(*np.nonzero(nested)):
        if drop[j]:
            continue
        qi, qj = cands[i].corners_px, cands[j].corners_px
        short_i, short_j = side_lengths(qi)[0], side_lengths(qj)[0]
        ring = (short_j - short_i) / 2
        if ring < 2 * (1.5 + float(np.clip(0.02 * short_j, 2.0, 6.0))):
            continue  # too thin to look at both sides of it apart
        drop[j] = int((_ring_steps(image, qi, qj) > 40.0).sum()) >= 3
        if drop[j] and table is not None:
            beyond = np.linalg.norm(_outline_colours(image, qj, short_j)[1] - table, axis=1)
            drop[j] = int((beyond > 60.0).sum()) >= 2
    return drop


def _between_cards(cands: list[CardCandidate], i: int, others: list[int], share: float = 0.75) -> bool:
    """True when two opposite sides of candidate i each lie (along `share` of their length, more than
    1.5 px inside) within one of the candidates `others`."""
    q = cands[i].corners_px
    t = np.linspace(0.15, 0.85, 8)[:, None]
    inside = []
    for k in range(4):
        pts = q[k] + t * (q[(k + 1) % 4] - q[k])
        inside.append(
            any(
                np.mean([cv2.pointPolygonTest(o, (float(x), float(y)), True) > 1.5 for x, y in pts]) >= share
                for o in (cands[j].corners_px.astype(np.float32) for j in others)
            )
        )
    return (inside[0] and inside[2]) or (inside[1] and inside[3])


def _one_colour_between(image: np.ndarray, inner: np.ndarray, outer: np.ndarray) -> bool:
    """True when the ring between the quad `inner` and the quad `outer` around it (px) is one
    colour on every side: a card's border around a frame printed on it, not the gap to the
    neighbours (whose edge the ring would hold)."""
    return bool(np.all(_ring_steps(image, inner, outer) < 30.0))


def _ring_steps(image: np.ndarray, inner: np.ndarray, outer: np.ndarray) -> np.ndarray:
    """Per side of `outer`, how far the colour just inside it is from the colour just outside the
    facing side of `inner` (px quads, `inner` within `outer`): small all round when the ring
    between them is one colour."""
    _, out_i = _outline_colours(image, inner, side_lengths(inner)[0])
    in_o, _ = _outline_colours(image, outer, side_lengths(outer)[0])
    return np.linalg.norm(in_o - out_i[_facing(outer, inner)], axis=1)


def _facing(outer: np.ndarray, inner: np.ndarray) -> np.ndarray:
    """Per side of the quad `outer`, the side of the quad `inner` (within it) that faces it:
    the one whose middle is nearest (quads may start at different corners)."""
    mid_o = (outer + outer[_NEXT_CORNER]) / 2
    mid_i = (inner + inner[_NEXT_CORNER]) / 2
    return np.linalg.norm(mid_o[:, None] - mid_i[None], axis=2).argmin(axis=1)


def _table_colour(small: np.ndarray) -> np.ndarray:
    """The table's colour before any card is found, as far as one number can say: the median of
    a band along the frame's border, where cards are rarely placed (the camera is pointed at the
    cards; but the table may not fill the frame, and the border show the floor)."""
    h, w = small.shape[:2]
    b = max(2, round(0.02 * min(h, w)))
    c = small.shape[2]
    band = np.concatenate(
        [
            small[:b].reshape(-1, c),
            small[-b:].reshape(-1, c),
            small[:, :b].reshape(-1, c),
            small[:, -b:].reshape(-1, c),
        ]
    )
    return np.median(band, axis=0).astype(np.float32)


def _table_around(
    cards: list[CardCandidate], fallback: np.ndarray, outside_of: Callable[[CardCandidate], np.ndarray]
) -> np.ndarray:
    """The table's colour where cards lie: the median of the colours just outside the found
    cards' sides (`outside_of`: 4 x C per card) that have no other found card just beyond them
    (cards side by side in a row or a grid face each other's edges; a shadow or an unfound card
    on a few sides does not move it), or `fallback` with fewer than two cards."""
    if len(cards) < 2:
        return fallback
    around = []
    for c in cards:
        q = c.corners_px
        outside = outside_of(c)
        mid = (q + np.roll(q, -1, axis=0)) / 2
        out = mid - q.mean(axis=0)
        # Just beyond the strip `_outline_colours` looks at (at most 7.5 px out).
        beyond = mid + 10.0 * out / (np.linalg.norm(out, axis=1, keepdims=True) + 1e-9)
        others = [o for o in cards if o is not c]
        around += [outside[k] for k in range(4) if not _centre_in_any(beyond[k : k + 1], others)]
    if len(around) < 4:
        return fallback
    return np.median(np.asarray(around), axis=0).astype(np.float32)


def _share_inside(mask: np.ndarray, q: np.ndarray) -> float:
    """The share of the quad q (px of `mask`) that lies on the mask's set pixels."""
    x0, y0 = np.floor(q.min(axis=0)).astype(int)
    x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 1
    poly = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(poly, [np.round((q - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_8, shift=4)
    total = cv2.countNonZero(poly)
    if total == 0:
        return 0.0
    return cv2.countNonZero(poly & _pad_crop(mask, x0, y0, x1 - x0, y1 - y0)) / total


def _pad_crop(img: np.ndarray, x: int, y: int, w: int, h: int) -> np.ndarray:
    """img[y:y+h, x:x+w] with zeros where the window leaves the image."""
    out = np.zeros((h, w), img.dtype)
    x0, y0 = max(x, 0), max(y, 0)
    x1, y1 = min(x + w, img.shape[1]), min(y + h, img.shape[0])
    if x1 > x0 and y1 > y0:
        out[y0 - y : y1 - y, x0 - x : x1 - x] = img[y0:y1, x0:x1]
    return out


def _sized_like_the_others(cards: list[CardCandidate], tolerance: float) -> list[CardCandidate]:
    """Without a calibration, the cards whose size fits the photo's perspective.

    On a flat table seen by a pinhole camera, the inverse depth of the table point under a pixel
    is an affine function of the pixel's position, and a card's size in the picture (the square
    root of its area; the table's tilt foreshortens every card at one place alike, whatever its
    turn) is nearly proportional to it. Cards of one deck therefore have sizes on a plane over
    the picture; a card-shaped thing of another size (a price tag, a coaster) does not. The plane
    is fitted with the worst misfit dropped one at a time while it is off by more than
    `tolerance`; below five cards there are too few to tell and all are kept."""
    if len(cards) < 5:
        return cards
    keep = list(range(len(cards)))
    xyz = np.array([[1.0, *c.corners_px.mean(axis=0), math.sqrt(c.area_px)] for c in cards])
    xyz[:, 1:3] /= max(float(np.abs(xyz[:, 1:3]).max()), 1.0)  # conditioning
    while len(keep) >= 5:
        a = xyz[keep]
        coef, *_ = np.linalg.lstsq(a[:, :3], a[:, 3], rcond=None)
        off = np.abs(a[:, 3] / np.maximum(a[:, :3] @ coef, 1e-9) - 1)
        worst = int(np.argmax(off))
        if off[worst] <= tolerance:
            break
        del keep[worst]
    if len(keep) < 5:
        return cards  # no plane fits most of them: not enough to judge by
    return [cards[i] for i in keep]


def _sides_mm(c_mm: np.ndarray) -> tuple[np.ndarray, int]:
    """Each side's length (side i: corner i to i + 1) of a quad on the table, and which of 0 and
    1 starts the pair of long sides (lp, lp + 2)."""
    e = np.linalg.norm(np.roll(c_mm, -1, axis=0) - c_mm, axis=1)
    return e, 0 if e[0] + e[2] >= e[1] + e[3] else 1


def _explained_by(card: CardCandidate, centre: np.ndarray, area: float, sized: bool, clean: bool) -> bool:
    """A rough quad (centre, area in full-size px) that an already refined card accounts for: the
    same card seen by another map, or a frame of its art. With card sizes in mm (`sized`) a
    refined card is one card, so anything well inside it is its art; without, a sloppy outline
    may be a few touching cards, and only quads the size of one card's art frame are skipped."""
    if card.score < 0.8:
        return False  # a sloppy fit explains nothing: the quad may be the card it missed
    ratio = card.area_px / max(area, 1e-9)
    inside = cv2.pointPolygonTest(
        card.corners_px.astype(np.float32), (float(centre[0]), float(centre[1])), True
    )
    if 0.8 < ratio <= 1.25:
        # Near-duplicate: refining a clean fit again would find the same four edges. (Without
        # sizes in mm a clean fit may be an art frame, and another map's quad may grow better.)
        return (
            sized
            and clean
            and float(np.linalg.norm(card.corners_px.mean(axis=0) - centre)) < 0.1 * math.sqrt(card.area_px)
        )
    if not (1.25 < ratio < 1.9 or ratio > 5 or (sized and ratio > 1.25)):
        return False
    return inside > 0.1 * math.sqrt(card.area_px)
