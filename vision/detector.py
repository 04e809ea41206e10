"""Cards placed on the frame's edges at their size in mm, with sub-pixel accuracy.

The learned card map (`vision.map_detector`) decides what is a card and where it lies roughly;
with a calibration, `CardPlacer` places each of its sides on the frame (`vision.edges`) with
what the card's size says of where its edge lies: a shadow's penumbra beyond it, a printed
frame or a white border inside it, a side on the frame's border or against a touching card's
rim, a card running off the frame. Also the candidate type every card finder reports
(`CardCandidate`) and small helpers on quadrilaterals.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

import cv2
import numpy as np

from vision.edges import QuadFit, refine_quad
from vision.table import TableMap

T = TypeVar("T")

WORK_LONG_SIDE = 960  # a frame's colours and cut cards are read on a copy this size (long side, px)
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
# Least share of a card running off the frame (of its area in the image) that must be in view to
# complete it from its seen sides and its size. A card half in view must be found: its seen share
# as completed from a fit wavers by a few % about the truth, so the limit keeps a margin below half.
MIN_SEEN_SHARE = 0.4


@dataclass(frozen=True)
class DetectorSettings:
    card_size_mm: tuple[float, float] = (63.0, 88.0)  # short edge, long edge
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
    # A card completed beyond the frame's edge from its corners in view: how far (degrees) from
    # square, on the table, each of those may be (a side fitted partly along something else).
    max_skew_deg: float = 4.0
    border_mm: float = 4.0  # a typical light border or rim printed round a card's edge


@dataclass
class CardCandidate:
    corners_px: np.ndarray  # 4 x 2, clockwise in the image from the top-left corner
    sigma_px: np.ndarray  # 4
    score: float
    fit: QuadFit = field(repr=False)
    corners_mm: np.ndarray | None = None
    sigma_mm: np.ndarray | None = None
    # Some side placed by the card's size rather than measured there: moved onto its ramp
    # (`CardPlacer._on_ramps`) or against a touching card's rim (`_against_a_like_rim`).
    placed_by_size: bool = False


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


class CardPlacer:
    """Places cards on a calibrated table's BGR frames (`place`, `place_cut`, between
    `start_frame` and `end_frame`). One instance per table and settings."""

    def __init__(self, table: TableMap, settings: DetectorSettings | None = None) -> None:
        self.settings = settings or DetectorSettings()
        self.table = table
        # Of the frame being read: its border's colour.
        self._table_colour: np.ndarray | None = None
        # Of the frame being read: answers asked again, kept with the objects they are about
        # (`_once`, `fit`, `_refine`); emptied when a frame starts and when it is done.
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
        frame's edges with everything the card's size says of where its edge lies (shadows,
        printed frames, a side on the frame's border or against a like card's rim, the card's
        size): for a finder of cards that knows what is a card but not where its edge is exactly
        (`vision.map_detector`). Between `start_frame` and `end_frame`."""
        return self._refine(image, q, reach)

    def place_cut(self, image: np.ndarray, quads: list[np.ndarray], cards: list[CardCandidate]) -> list[CardCandidate]:
        """Cards running off the frame around rough quads (frame px) along its edge, completed by
        the card's size (with a calibration); `cards`: those found already. Between
        `start_frame` and `end_frame`."""
        return self._cut_by_frame(image, quads, self._work_scale, cards)

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
        fit = self.fit(image, q, reach, passes)
        if fit is None or self._closer(fit, image.shape, reach):
            return self._placements(image, q, fit, reach, grow, passes, sides, place)
        # The rough quads of one card (the map's outlines, a printed frame's, a side moved) often
        # fit the same edges, and what follows depends on the fit alone: each fit is placed once.
        key = ("placements", np.round(fit.corners, 1).tobytes(), float(reach), grow, passes, sides, place, id(image))
        hit = self._seen.get(key)
        if hit is not None and hit[0][0] is image:
            return list(hit[1])  # type: ignore[call-overload]  (a copy: callers add to the list)
        got = self._placements(image, q, fit, reach, grow, passes, sides, place)
        self._seen[key] = ((image,), tuple(got))
        return got

    def _closer(self, fit: QuadFit, shape: tuple[int, ...], reach: float) -> bool:
        """Whether `_placements` fits the rough quad again closer: a side poorly supported at a
        wide search may have strayed to a rival line along part of its length (a printed name
        beside an art box's edge); closer, it may not."""
        support = _seen_support(fit, shape)
        s = self.settings
        return reach > 5.0 and (min(support) < s.min_support or np.mean(support) < s.mean_support)

    def _placements(
        self,
        image: np.ndarray,
        q: np.ndarray,
        fit: QuadFit | None,
        reach: float,
        grow: int,
        passes: int,
        sides: bool | None,
        place: int | None,
    ) -> list[CardCandidate]:
        """`_refine` worked out, from the rough quad's fit at `reach` (`fit`)."""
        s = self.settings
        while fit is None and reach > 5.0:
            # A wide search also takes in the inner edge of a light rim (a white-bordered card on
            # a dark cloth), a rival as strong as the card's own edge: look again, closer.
            reach *= 0.55
            fit = self.fit(image, q, reach, passes)
        if fit is None:
            return []
        while self._closer(fit, image.shape, reach):
            closer = self.fit(image, q, reach * 0.55, passes)
            if closer is None:
                break
            reach *= 0.55
            fit = closer
        support = _seen_support(fit, image.shape)
        c, sigma_px, placed = fit.corners, fit.sigma_px, None
        trusted = list(fit.sides)
        on_rim = None
        if (on_border := self._off_frame_border(fit, image.shape)) is not None:
            # One side lies on the frame's border: it is placed by the card's size, and the fit is
            # judged on the other three.
            c, sigma_px, placed = on_border
            del support[placed], trusted[placed]
        elif (on_rim := self._against_a_like_rim(image, fit, support, place)) is not None:
            # One side against a touching card's rim of the same colour: placed as well, and
            # counted as unsupported in the score (a measured side beats it).
            c, sigma_px, placed = on_rim
            del support[placed], trusted[placed]
        if not _convex(c):
            return []
        # A faint side (a white card's edge on a white table) is accepted only when the card's
        # size in mm, measured between it and its opposite side, vouches for it.
        weak = min(support) < s.min_support or np.mean(support) < s.mean_support
        if weak and (min(support) < s.min_support_sized or np.mean(support) < s.mean_support_sized):
            return []
        short, long = side_lengths(c)
        if short < s.min_side_px:
            return []
        if max(sd.residual_px for sd in trusted) > s.max_residual_px * max(1.0, short / 150):
            return []
        out: list[CardCandidate] = []
        corners_mm = sigma_mm = None
        on_ramps: int | None = None  # the axis `_on_ramps` placed
        corners_mm = self.table.to_mm(c)
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
        # card around it is nearer the card's size (`vision.map_detector` takes the nearest).
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
        resid = max(sd.residual_px for sd in trusted)
        score = float(np.clip(np.mean(support), 0, 1) * math.exp(-max(resid - 0.3, 0) / 1.5))
        if on_rim is not None:
            score *= 3 / 4  # the placed side, unseen, as support 0
        ok = ok and score >= s.min_score
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
        if grow or sides:
            # Each level of `_refine` asks this of the candidates the levels below returned, most
            # of them unchanged: once per candidate is enough (the same fits again otherwise).
            out = [
                self._once(lambda g=g: self._across_rim(image, g), "across_rim", g, image, self._table_colour)
                or g
                for g in out
            ]
        return out

    def fit(self, image: np.ndarray, q: np.ndarray, reach: float, passes: int = 2) -> QuadFit | None:
        """`refine_quad`, once per frame for the same rough quad, reach and passes (different
        cues of one card lead to the same quads: a card around a printed frame, a side moved;
        the map detector fits the rough quads it placed). Between `start_frame` and
        `end_frame`."""
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

    def _calibrated_card(
        self, q: np.ndarray, sigma_px: np.ndarray, score: float, fit: QuadFit
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
                # `_three_corners_in_view`); the first that gives a card is taken.
                ways = _three_corners_in_view(rough, image.shape, near)
            else:
                continue
            for q, way in ways:
                if _centre_in_any(q, cards + out):
                    break
                short = side_lengths(q)[0]
                if any(np.abs(q - d).max() < 0.1 * short for d in done):
                    continue
                done.append(q)
                got = self._fit_cut(image, q, *way, reach=2.5 * scale + 2.5, table=table, corner_in_view=side is None)
                out.extend(got)
                if got:
                    break
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
    ) -> list[CardCandidate]:
        """The card of which the rough quad q (full-size px) is the part inside the frame, side i
        on the frame's edge (`axis` = `lim`). Beyond the frame the crop is padded with a colour
        unlike the card's, so the frame's edge is a plain straight edge that stands in for the
        hidden part while the three visible sides are fitted; the card's far side is then where
        the known card size puts it along the two sides that run off the frame.
        `corner_in_view`: the card shows three corners (see `_three_corners_in_view`): side i + 1
        runs past the card's corner in view to the frame's edge, over the table; the size places
        that corner."""
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
            return self._fit_cut_around(image, q, i, axis, lim, m, table, corner_in_view)
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
                return self._fit_cut_around(image, c, i, axis, lim, m, table, corner_in_view)
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
        )

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


def _centre_in_any(q: np.ndarray, cards: list[CardCandidate]) -> bool:
    """Whether the centre of the quad q (px) lies inside any of the cards."""
    ctr = q.mean(axis=0)
    pt = (float(ctr[0]), float(ctr[1]))
    return any(cv2.pointPolygonTest(c.corners_px.astype(np.float32), pt, False) > 0 for c in cards)


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


def _unlike(colours: np.ndarray) -> np.ndarray:
    """Of the pure colours (corners of the colour cube), the one farthest from nearly all of
    `colours` (n x channels)."""
    nc = colours.shape[1]
    palette = np.array(np.meshgrid(*[[0.0, 255.0]] * nc, indexing="ij")).reshape(nc, -1).T
    dist = np.linalg.norm(colours[None] - palette[:, None], axis=2)
    return palette[int(np.argmax(np.percentile(dist, 10, axis=1)))]


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


def _well_in_view(points: np.ndarray, shape: tuple[int, ...]) -> bool:
    """Whether every point (px) lies in the image at least 2 px from the frame's edge."""
    h, w = shape[:2]
    return bool((points >= 2).all() and (points[:, 0] <= w - 3).all() and (points[:, 1] <= h - 3).all())


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


def _sides_mm(c_mm: np.ndarray) -> tuple[np.ndarray, int]:
    """Each side's length (side i: corner i to i + 1) of a quad on the table, and which of 0 and
    1 starts the pair of long sides (lp, lp + 2)."""
    e = np.linalg.norm(np.roll(c_mm, -1, axis=0) - c_mm, axis=1)
    return e, 0 if e[0] + e[2] >= e[1] + e[3] else 1
