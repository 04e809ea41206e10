"""Sub-pixel card outlines: fit a straight line to each side of a rough quadrilateral.

Along each side (its rounded corners left out) we sample short intensity profiles across the
edge, find where the colour changes fastest with the polarity the side has (card -> outside),
and fit a line to those points robustly. Where a shadow can hide or double the card's edge (the
card darker than the table or hardly lighter: white tables), the side's mean profile is then
fitted with card | band | table and the line moved to the card's own step. The sharp corners are
the intersections of adjacent lines (docs/architecture.md, "Command line"); each corner's
uncertainty follows from the residuals of its two lines.

The detector calls this dozens of times per frame, so the four sides are handled together:
one `cv2.remap` samples every profile of a pass, and the per-side statistics (medians, trimmed
line fits) run on padded side x sample arrays with masks instead of a Python loop per side.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, fields
from functools import lru_cache

import cv2
import numpy as np
from scipy.special import ndtr  # the normal CDF, vectorised (numpy has no erf)

# Fraction of each side left out at both ends: the rounded corners (3 mm of 63 mm) plus the
# rough quad's error.
CORNER_SKIP = 0.12
STEP = 0.5  # profile sample spacing, pixels
RIM_PX = 3.0  # widest dark line along a card's edge taken for its shadow or cut edge
# Error the residuals cannot see - where along a blurred edge with a thin shadow the card really
# ends, JPEG, a slightly bent card: the floor of a corner's sigma. Measured on rendered frames
# (bench.vision) the corner error is ~0.3-0.5 px where the fit's own spread says ~0.1 px.
SIGMA_FLOOR_PX = 0.35

_PARALLEL = np.array([-1.0, 0.0, 1.0])  # three parallel profiles 1 px apart along the side
_DERIV_K = int(round(1.0 / STEP))  # central difference over +-1 px
_PEAK_BAND = int(round(1.5 / STEP))  # samples around a peak that belong to it
_THIN_BAND = int(round((RIM_PX + 1.0) / STEP))  # reach of a thin line's other flank


@dataclass(frozen=True)
class SideFit:
    point: np.ndarray  # a point on the line (centroid of inliers)
    direction: np.ndarray  # unit vector along the side, from its first corner towards its second
    residual_px: float  # RMS perpendicular residual of the inliers
    n_inliers: int
    support: float  # fraction of samples that found this edge
    length_px: float  # extent of the inliers along the line
    contrast: float  # median edge strength (grey levels per pixel)
    # The card is not clearly lighter than what lies beyond, where its edge can merge into its
    # shadow's penumbra: the line may lie up to a penumbra's width outside the card, not inside.
    shadowed: bool = False
    # Where the card may merge into its shadow: how far (px, outward; <= 0) inside the line the
    # side's profile is still changing - the inner end of the ramp the line lies on. A blurred
    # frame (motion, defocus) widens the ramp, and the card's edge may lie anywhere on it, so this
    # bounds how far its size may move the side in.
    slack_px: float = 0.0


@dataclass(frozen=True)
class QuadFit:
    corners: np.ndarray  # 4 x 2 sharp corners, same order as the rough quad
    sigma_px: np.ndarray  # 4 per-corner standard deviations (per axis), pixels
    sides: tuple[SideFit, ...]

    @property
    def support(self) -> float:
        return float(np.mean([s.support for s in self.sides]))

    @property
    def min_support(self) -> float:
        return float(min(s.support for s in self.sides))


@dataclass
class _Edges:
    """Edge points found along k sides at once, padded to a common number of samples n."""

    pts: np.ndarray  # k x 3 x n: 1, x, y of each point
    strength: np.ndarray  # k x n, the edge's derivative along the polarity
    found: np.ndarray  # k x n, a clear edge of the side's polarity
    polarity: np.ndarray  # k x C, unit colour step sought
    strong: np.ndarray  # k x n, a strong enough peak (before comparing it with the rest)
    score: np.ndarray  # k x n x m, the profiles' derivative along the polarity
    dist: np.ndarray  # k x n x m, samples from each profile's peak
    rest: np.ndarray  # k x n x m, |score| away from the peak
    prof: np.ndarray  # k x n x m x C, the profiles
    valid: np.ndarray  # k x n, which samples are real

    def levels(self) -> tuple[np.ndarray, np.ndarray]:
        """Per side, the grey level on the card's side of the edge and beyond it: medians over
        the side of its profiles' first and last quarters. (Asked for on a fit's last pass only,
        so computed only then.)"""
        ends = self.prof[:, :, _quarters(self.prof.shape[2])].mean(axis=3)  # k x n x 2 x C
        inside, beyond = _masked_median(ends.mean(axis=3).transpose(2, 0, 1), self.valid, 0.0)
        return inside, beyond

    def found_thin(self) -> np.ndarray:
        """`found`, where the other flank of a thin line next to the edge (the gap to a touching
        card) is the line's, not a rival edge."""
        rest = np.where((self.dist <= _THIN_BAND) & (self.score < 0), 0.0, self.rest)
        return self.strong & (self.strength > 1.4 * np.maximum.reduce(rest, axis=2))


@dataclass
class _Lines:
    """Lines fitted to k sides."""

    coef: np.ndarray  # k x 10: centroid of the inliers (2), unit direction (2), then the
    # coefficients (3 each, for the points' 1, x, y) of the signed distance from the line and of
    # the position along it
    pts: np.ndarray  # k x 3 x n: 1, x, y of each point
    keep: np.ndarray  # k x n, the inliers
    dist: np.ndarray  # k x n, signed distances of the points from the line
    ok: np.ndarray  # k, whether the side has a line

    @property
    def c(self) -> np.ndarray:
        return self.coef[:, :2]

    @property
    def d(self) -> np.ndarray:
        return self.coef[:, 2:4]

    def rows(self, rows: np.ndarray) -> _Lines:
        return _Lines(*(getattr(self, f.name)[rows] for f in fields(self)))

    def shifted(self, shift: np.ndarray, out: np.ndarray) -> _Lines:
        """These lines moved `shift` px (per side) along their normals towards `out`; the points'
        distances stay those from the fitted lines (they measure the fit's scatter)."""
        coef = self.coef.copy()
        dx, dy = coef[:, 2], coef[:, 3]
        sign = np.where(out[:, 0] * -dy + out[:, 1] * dx < 0, -1.0, 1.0)
        coef[:, 0] += sign * shift * -dy
        coef[:, 1] += sign * shift * dx
        cx, cy = coef[:, 0], coef[:, 1]
        coef[:, 4] = cx * dy - cy * dx
        coef[:, 7] = -cx * dx - cy * dy
        return _Lines(coef, self.pts, self.keep, self.dist, self.ok)

    def replaced(self, rows: np.ndarray, other: _Lines, other_rows: np.ndarray) -> _Lines:
        """These lines with `rows` replaced by `other`'s `other_rows`."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name).copy()
            v[rows] = getattr(other, f.name)[other_rows]
            out[f.name] = v
        return _Lines(**out)


def _frozen(a: np.ndarray) -> np.ndarray:
    """A cached array, read-only so that no caller changes it for the next."""
    a.flags.writeable = False
    return a


# The caches below are keyed by sizes that vary from quad to quad (samples per side, reach): a
# few thousand small arrays at most, and a miss costs more than the fit's other steps.
@lru_cache(maxsize=4096)
def _positions(ns: tuple[int, ...], width: int) -> tuple[np.ndarray, np.ndarray]:
    """Where along each side its samples lie (k x 1 x width, padding repeats the last) and which
    samples are real (k x width)."""
    t = np.empty((len(ns), 1, width))
    for i, n in enumerate(ns):
        t[i, 0, :n] = _along(n)
        t[i, 0, n:] = t[i, 0, n - 1]
    return _frozen(t), _frozen(np.arange(width)[None, :] < np.array(ns)[:, None])


@lru_cache(maxsize=256)
def _along(n: int) -> np.ndarray:
    """n sample positions along a side, as fractions of its length, the corners left out."""
    return _frozen(np.linspace(CORNER_SKIP, 1 - CORNER_SKIP, n))


@lru_cache(maxsize=4096)
def _offsets(reach: float) -> np.ndarray:
    return _frozen(np.arange(-reach, reach + STEP / 2, STEP))


@lru_cache(maxsize=256)
def _quarters(m: int) -> np.ndarray:
    """Indices of a profile's first and last quarters (2 x q)."""
    q = max(2, m // 4)
    return _frozen(np.array([np.arange(q), np.arange(m - q, m)]))


@lru_cache(maxsize=256)
def _step_weights(m: int) -> np.ndarray:
    """Mean of a profile's last quarter minus that of its first."""
    q = max(2, m // 4)
    w = np.zeros(m, np.float32)
    w[:q], w[-q:] = -1.0 / q, 1.0 / q
    return _frozen(w)


_AROUND = np.array([-1, 0, 1])[:, None, None]


@lru_cache(maxsize=256)
def _columns(m: int) -> np.ndarray:
    return _frozen(np.arange(m))


@lru_cache(maxsize=4096)
def _flat_rows(k: int, width: int, m: int) -> np.ndarray:
    return _frozen(np.arange(k * width).reshape(k, width) * m)


def _masked_median(v: np.ndarray, mask: np.ndarray, empty: float = np.nan) -> np.ndarray:
    """Median along the last axis of `v` (... x k x n) over the entries where `mask` (k x n)
    holds; `empty` where none does."""
    k, n = mask.shape
    cnt = np.add.reduce(mask, axis=1).tolist()
    s = np.where(mask, v, np.inf)
    s.sort(axis=-1)
    s = s.reshape(*v.shape[:-2], k * n)
    mid = s[
        ...,
        [i * n + max(c - 1, 0) // 2 for i, c in enumerate(cnt)] + [i * n + c // 2 for i, c in enumerate(cnt)],
    ]
    med = (mid[..., :k] + mid[..., k:]) / 2
    if 0 in cnt:
        med = np.where(np.array(cnt) > 0, med, empty)
    return med


def _polarity(prof: np.ndarray, diff: np.ndarray, valid: np.ndarray) -> np.ndarray:
    """Each side's polarity (k x C, not normalised) from its profiles and their differences
    (k x n x m x C): the colour step from the card to what lies beyond it (robust to a thin shadow
    or dark rim along the edge, whose two flanks have opposite signs). When both ends look alike
    (a neighbouring card a few mm away), the strongest change decides."""
    step = prof.transpose(3, 0, 1, 2) @ _step_weights(prof.shape[2])  # C x k x n
    pol = _masked_median(step, valid).T
    faint = np.add.reduce(pol * pol, axis=1) <= 25.0
    if np.logical_or.reduce(faint):
        f = np.flatnonzero(faint)
        df = diff[f]
        kf, n, m, nc = df.shape
        jm = np.add.reduce(df**2, axis=3).argmax(axis=2)
        strongest = df.reshape(-1, nc)[_flat_rows(kf, n, m) + jm].transpose(2, 0, 1)  # C x kf x n
        pol[f] = _masked_median(strongest, valid[f]).T / (2 * _DERIV_K * STEP)
    return pol


def _edge_points(
    img: np.ndarray,
    p0: np.ndarray,
    p1: np.ndarray,
    outward: np.ndarray,
    reach: float,
    ns: np.ndarray,
    width: int,
    along: np.ndarray,
    polarity: np.ndarray | None = None,
    shift: float = 0.0,
    enough: np.ndarray | None = None,
) -> _Edges | None:
    """Edge points along the k segments p0->p1 (k x 2 each) within +-reach px of each segment moved
    `shift` px outward, ns[i] <= width points on side i; `along` is the segments' unit directions
    (k x 2). `polarity` (k x C) forces the colour change sought. With `enough` (k), None when no
    side i has `enough[i]` strong points, so that none can have as many found (the comparison
    with the rest of each profile, a third of the work, is then skipped)."""
    k = len(p0)
    t, valid = _positions(tuple(ns.tolist()), width)
    d = p1 - p0
    base = p0[:, :, None] + d[:, :, None] * t  # k x 2 x n
    if shift:
        base = base + shift * outward[:, :, None]
    offs = _offsets(float(reach))
    m = len(offs)
    # Sample positions, x then y: 3 parallel profiles x k sides x n samples x m offsets across.
    across = base.transpose(1, 0, 2)[..., None] + offs * outward.T[:, :, None, None]  # 2 x k x n x m
    maps = (across[:, None] + _PARALLEL[:, None, None, None] * along.T[:, None, :, None, None]).astype(
        np.float32
    )
    sampled = cv2.remap(
        img, maps[0].reshape(-1, m), maps[1].reshape(-1, m), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    # Average the three parallel profiles: smooths along the edge, not across it.
    prof = np.add.reduce(sampled.reshape(3, -1), axis=0) / 3  # k x n x m x C, flat
    nc = prof.size // (k * width * m)
    # Twice the derivative along the outward normal over +-1 px (central difference), per channel,
    # as one flat difference; its last columns mix neighbouring profiles: zero, like the
    # derivative within 1 px of a profile's ends. Column i is the derivative at i + _DERIV_K.
    g = 2 * _DERIV_K * nc
    diff = np.empty_like(prof)
    diff[:-g] = prof[g:] - prof[:-g]
    diff = diff.reshape(k, width, m, nc)
    diff[:, :, m - 2 * _DERIV_K :] = 0
    if polarity is not None:
        pol = np.asarray(polarity, dtype=np.float64)
    else:
        pol = _polarity(prof.reshape(k, width, m, nc), diff, valid)
    norm = np.sqrt(np.add.reduce(pol * pol, axis=1))
    usable = norm >= 1e-6
    pol = pol / np.where(usable, norm, 1)[:, None]
    # Signed: our edge is positive, a neighbour's opposite edge negative. (Halving pol instead of
    # the differences is exact.)
    inside = (diff.reshape(k, width * m, nc) @ (pol / (2 * _DERIV_K * STEP))[:, :, None]).reshape(-1)
    score = np.zeros(k * width * m, inside.dtype)
    score[_DERIV_K:] = inside[:-_DERIV_K]
    score = score.reshape(k, width, m)
    j = np.minimum(np.maximum(score.argmax(axis=2), 1), m - 2)
    # The peak and its two neighbours, for a parabola through them.
    s0, s1, s2 = score.ravel()[(_flat_rows(k, width, m) + j)[None] + _AROUND]
    den = s0 - 2 * s1 + s2
    peaked = den < -1e-9
    frac = np.divide(0.5 * (s0 - s2), den, out=np.zeros(den.shape, den.dtype), where=peaked)
    off = offs[j] + np.minimum(np.maximum(frac, -0.5), 0.5) * STEP
    pts = np.empty((k, 3, width))
    pts[:, 0] = 1.0
    pts[:, 1:] = base + off[:, None, :] * outward[:, :, None]
    # A point counts when its edge is a clear peak: strong against the side's typical edge and
    # against the rest of its own profile (so texture and flat paper do not count).
    inner = (j > 1) & (j < m - 2) & valid
    typical = 0.35 * _masked_median(s1, inner, 0.0)
    strong = inner & (s1 > 1.0) & (s1 > typical[:, None])
    h, w = img.shape[:2]
    xs, ys = pts[:, 1], pts[:, 2]
    (x_lo, y_lo), (x_hi, y_hi) = pts[:, 1:].min(axis=(0, 2)).tolist(), pts[:, 1:].max(axis=(0, 2)).tolist()
    if x_lo < -1.5 or y_lo < -1.5 or x_hi > w + 0.5 or y_hi > h + 0.5:
        # More than a pixel beyond the image (the frame's edge: callers crop only there), the
        # border's replicated pixels show an edge where a side running off it has none.
        strong &= (xs >= -1.5) & (ys >= -1.5) & (xs <= w + 0.5) & (ys <= h + 0.5)
    if not np.logical_and.reduce(usable):
        strong &= usable[:, None]
    if enough is not None and not np.logical_or.reduce(np.add.reduce(strong, axis=1) >= enough):
        return None
    dist = np.abs(_columns(m) - j[..., None])
    rest = np.where(
        dist > _peak_bands(s1, den, inner & peaked & (s1 > typical[:, None]))[:, None, None],
        np.abs(score),
        0.0,
    )
    found = strong & (s1 > 1.4 * np.maximum.reduce(rest, axis=2))
    return _Edges(pts, s1, found, pol, strong, score, dist, rest, prof.reshape(k, width, m, nc), valid)


def _peak_bands(s1: np.ndarray, den: np.ndarray, sure: np.ndarray) -> np.ndarray:
    """Per side, how many samples either side of a profile's peak belong to that one edge.

    A sharp edge's derivative is a narrow peak; a defocused or motion-blurred one is a wide bump,
    and a rival "peak" 1.5 px away would only be its own flank. The width comes from the peaks'
    curvature (a Gaussian bump s(x) ~ s1 (1 - x^2 / 2 w^2) at its top), median over the side."""
    w2 = np.divide(s1, -den, out=np.zeros(s1.shape, np.float64), where=sure) * STEP * STEP
    width = np.sqrt(_masked_median(w2, sure, 0.0))
    return np.maximum(_PEAK_BAND, np.floor(1.75 * width / STEP)).astype(np.int64)


def _line_coefficients(pts: np.ndarray, keep: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Least-squares (total) line through the kept points of each side: centroid, unit direction
    (the main axis of the points' 2 x 2 scatter, pointing along `ref`) and the coefficients of
    distance from it and position along it (see _Lines)."""
    moments = ((pts * keep[:, None, :]) @ pts.transpose(0, 2, 1)).tolist()  # k x 3 x 3
    coef = []
    for (s, sx, sy), (_, sxx, sxy), (_, _, syy), (rx, ry) in zip(*zip(*moments), ref.tolist()):
        s = max(s, 1.0)
        cx, cy = sx / s, sy / s
        theta = 0.5 * math.atan2(2 * (sxy - sx * cy), (sxx - sx * cx) - (syy - sy * cy))
        dx, dy = math.cos(theta), math.sin(theta)
        if dx * rx + dy * ry < 0:
            dx, dy = -dx, -dy
        # (y - cy) dx - (x - cx) dy, and (x - cx) dx + (y - cy) dy
        coef.append((cx, cy, dx, dy, cx * dy - cy * dx, -dy, dx, -cx * dx - cy * dy, dx, dy))
    return np.array(coef)


def _robust_lines(pts: np.ndarray, mask: np.ndarray, ref: np.ndarray) -> _Lines:
    """Per side, the line through most of its masked points: trimmed refits dropping outliers
    (occluders, art)."""
    k, n = mask.shape
    keep = mask
    active = [True] * k  # still refitting
    ok = [True] * k
    for _ in range(4):
        cnt = np.add.reduce(keep, axis=1).tolist()
        ok = [o and (c >= 4 or not a) for o, c, a in zip(ok, cnt, active)]
        coef = _line_coefficients(pts, keep, ref)
        dist = (coef[:, None, 4:7] @ pts)[:, 0]
        res = np.abs(dist)
        srt = np.where(keep, res, np.inf)
        srt.sort(axis=1)
        srt = srt.ravel()
        lo = srt[[i * n + max(c - 1, 0) // 2 for i, c in enumerate(cnt)]]
        hi = srt[[i * n + c // 2 for i, c in enumerate(cnt)]]
        limit = [max(3.0 * (med * 1.4826 + 0.05), 0.35) for med in ((lo + hi) / 2).tolist()]
        new = mask & (res < np.array(limit)[:, None])
        same = (new == keep).all(axis=1).tolist()
        keep = new if all(active) else np.where(np.array(active)[:, None], new, keep)
        active = [a and not sm for a, sm in zip(active, same)]
        if not any(a and o for a, o in zip(active, ok)):
            break
    ok_arr = np.array(ok) & (np.add.reduce(keep, axis=1) >= 4)
    if any(active):
        # Some side's inliers changed in the last round: its line from them. (Else every side
        # kept the inliers its last line came from, and that line is the answer.)
        coef = _line_coefficients(pts, keep, ref)
        dist = (coef[:, None, 4:7] @ pts)[:, 0]
    return _Lines(coef, pts, keep, dist, ok_arr)


def _rim_inner_flanks(img, lines: _Lines, out, p0, p1, pol, ns, width, contrast):
    """Per side, the inner flank of a dark line at most RIM_PX wide just inside the fitted edge,
    if the whole side shows one: (edges, lines, has_rim; edges None when no side has one)."""
    c, dd = lines.c, lines.d
    normal = np.stack([-dd[:, 1], dd[:, 0]], axis=1)
    normal[(normal * out).sum(axis=1) < 0] *= -1
    # The rough side's ends projected onto the fitted line, so the search runs along the fit.
    a = c + ((p0 - c) * dd).sum(axis=1)[:, None] * dd
    b = c + ((p1 - c) * dd).sum(axis=1)[:, None] * dd
    ab = b - a
    along = ab / (np.sqrt((ab**2).sum(axis=1)) + 1e-9)[:, None]
    e = _edge_points(
        img,
        a,
        b,
        normal,
        RIM_PX / 2,
        ns,
        width,
        along,
        polarity=-pol,
        shift=-RIM_PX / 2 - 0.25,
        enough=0.6 * ns,
    )
    if e is None:  # most sides have no such line: no side has enough strong points for one
        return None, None, np.zeros(len(ns), bool)
    strong = e.found.sum(axis=1) >= 0.6 * ns
    if not strong.any():
        return e, None, strong
    strong &= _masked_median(e.strength, e.found, -np.inf) >= 0.3 * contrast
    if not strong.any():
        return e, None, strong
    rim = _robust_lines(e.pts, e.found, dd)
    parallel = np.abs((rim.d * dd).sum(axis=1)) >= 0.999
    return e, rim, strong & rim.ok & (rim.keep.sum(axis=1) >= 0.5 * ns) & parallel


# ---- the card's own edge next to its shadow ----------------------------------------------------
# Beside a card on a table the profile across its edge has a third level: the card's shadow, or
# its cut edge (a dark line on every side in real photos of cards on white), or a softer darker
# band on the side away from the light. Where the card and the table differ by no more than such
# a shadow darkens the table (a grey back or a white card on a white table), the steepest change
# is that band's far flank or a mix of both: on rendered white tables a grey back was fitted
# 0.4-2 px outside its edge and a white border 0.4 px inside. So on such a side the profile,
# averaged along the fitted line, is fitted with two blurred steps, card | band | table:
#     p(x) = a + b * Phi((x - e) / s) + c * Phi((x - e - w) / (k * s))
# (the band's outer flank, a soft shadow's, may be blurrier) and the card ends at e, the step
# nearest its inside. A coarse grid of (e, w, s, k), whose levels a, b, c are linear fits with
# cached designs, gives the start; Levenberg-Marquardt refines all seven. The line moves to e
# only when the band looks like a shadow (darker than the table beyond it, not black) and
# explains the profile much better than one step does. A band much narrower than the blur
# cannot be told from a shifted step at all; that case keeps its bias (a fraction of a pixel).
MAX_SHADOW = 0.6  # darkest shadow, relative to the table
MIN_BAND_DIP = 1.5  # how far (grey levels) a band darker (lighter) than both its sides must dip there
LIGHTER_CARD = 0.15  # a card lighter than the table by more than this has an edge no shadow hides
MODEL_SAMPLES = 42  # profile samples across the edge
MODEL_INSIDE = 17  # of them inside the fitted line: ~2.2 mm, short of a card's printed border
MODEL_STEP_MM = 0.13  # sample spacing in card mm, at least 0.25 px
_E_GRID = np.arange(-10, 11)  # where the card's edge may be, samples from the fitted line
_W_GRID = (2, 3, 4, 6, 9, 13)  # width of the band beyond it, samples
_K_GRID = (1.0, 2.0)  # the band's outer blur over the card edge's
_S_GRID = (1.5, 2.5, 4.0, 6.0)  # blur of the card's edge, samples
_NJ = 1 + len(_W_GRID) * len(_K_GRID)  # models per (s, e): one step, then the banded ones
_LM_ITERS = 4


@lru_cache(maxsize=2)
def _step_models(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The coarse grid (every other e): for each model an orthonormal basis of its levels (m x 3
    columns each; a one-step model's third is zero), the map from a profile to its levels a, b, c
    (same layout), its parameters (e, w, s, k) and whether it is a one-step model."""
    x = np.arange(m) - MODEL_INSIDE
    q, pinv, params = [], [], []
    for s in _S_GRID:
        for e in _E_GRID[::2].tolist():
            first = ndtr((x - e) / s)
            for w, k in [(0, 1.0)] + [(w, k) for w in _W_GRID for k in _K_GRID]:
                d = np.stack([np.ones(m), first, ndtr((x - e - w) / (k * s)) if w else np.zeros(m)])
                r = 3 if w else 2
                qi, ri = np.linalg.qr(d[:r].T)
                qq, pp = np.zeros((3, m)), np.zeros((3, m))
                qq[:r], pp[:r] = qi.T, np.linalg.solve(ri, qi.T)
                q.append(qq)
                pinv.append(pp)
                params.append((float(e), float(w), s, k))
    params_arr = np.array(params)
    return (
        _frozen(np.concatenate(q).T.copy()),
        _frozen(np.concatenate(pinv).T.copy()),
        _frozen(params_arr),
        _frozen(params_arr[:, 1] == 0),
    )


def _own_edge_shifts(
    img, lines: _Lines, out, p0, p1, pol, ns, width, px_per_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per side, how far (px, outward) the card's own edge lies from its fitted line; 0 where the
    profile is one plain step (the line is on it), one soft ramp that a card | band | table fit
    splits with no dip between the two steps, or too unclear to say. Then per side not moved,
    its slack (`SideFit.slack_px`)."""
    k = len(p0)
    c, dd = lines.c, lines.d
    normal = np.stack([-dd[:, 1], dd[:, 0]], axis=1)
    normal[np.add.reduce(normal * out, axis=1) < 0] *= -1
    a = c + np.add.reduce((p0 - c) * dd, axis=1)[:, None] * dd
    b = c + np.add.reduce((p1 - c) * dd, axis=1)[:, None] * dd
    t, valid = _positions(tuple(ns.tolist()), width)
    base = a[:, :, None] + (b - a)[:, :, None] * t  # k x 2 x n
    h = max(0.25, MODEL_STEP_MM * px_per_mm)
    m = MODEL_SAMPLES
    offs = (np.arange(m) - MODEL_INSIDE) * h
    across = (base.transpose(1, 0, 2)[..., None] + offs * normal.T[:, :, None, None]).astype(np.float32)
    sampled = cv2.remap(
        img,
        across[0].reshape(-1, m),
        across[1].reshape(-1, m),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).reshape(k, width, m, -1)
    nc = sampled.shape[3]
    wgt = (lines.keep & valid).astype(np.float32)
    wgt /= np.maximum(np.add.reduce(wgt, axis=1), 1)[:, None]
    # Mean profiles over the side's inliers: along the polarity (the fit) and grey (the shadow test).
    y = np.einsum("knmc,kc,kn->km", sampled, pol.astype(np.float32), wgt).astype(np.float64)
    grey = np.einsum("knmc,kn->km", sampled, wgt).astype(np.float64) / nc
    slack = _ramp_slack(y, h)
    q, pinv, params, one_step = _step_models(m)
    proj = (y @ q).reshape(k, -1, 3)
    ssr = np.add.reduce(y * y, axis=1)[:, None] - np.add.reduce(proj * proj, axis=2)  # k x models
    one = np.where(one_step, ssr, np.inf).min(axis=1)
    best = np.where(one_step, np.inf, ssr).argmin(axis=1)
    maps = pinv.reshape(m, -1, 3)[:, best].transpose(1, 0, 2)  # k x m x 3
    lv = np.einsum("km,kmr->kr", y, maps)
    # Only a side whose best grid model already has a shadow-like band that fits much better than
    # one step is worth refining (most candidate quads of a frame are not cards).
    g0 = np.einsum("km,kmr->kr", grey, maps)
    band0, far0 = g0[:, 0] + g0[:, 1], g0[:, 0] + g0[:, 1] + g0[:, 2]
    r = np.flatnonzero((ssr[np.arange(k), best] < 0.5 * one) & (band0 < far0) & (band0 > 0.2 * far0))
    shifts = np.zeros(k)
    if not len(r):
        return shifts, slack
    theta, ssr_fit = _fit_band(y[r], np.concatenate([lv[r], params[best[r]]], axis=1))
    e, w, s1, s2 = theta[:, 3:4], theta[:, 4:5], theta[:, 5:6], theta[:, 5:6] * theta[:, 6:7]
    # The band's grey levels under the fitted shape: is it a shadow?
    x = np.arange(m) - MODEL_INSIDE
    basis = np.stack([np.ones((len(r), m)), ndtr((x - e) / s1), ndtr((x - e - w) / s2)], axis=2)
    gl = np.linalg.solve(
        np.einsum("kmi,kmj->kij", basis, basis) + 1e-9 * np.eye(3),
        np.einsum("kmi,km->ki", basis, grey[r])[..., None],
    )[..., 0]
    v_band, v_far = gl[:, 0] + gl[:, 1], gl[:, 0] + gl[:, 1] + gl[:, 2]
    # Steps of opposite signs make a band darker (or lighter) than both the card and the table:
    # the fitted profile must then dip (or peak) there. Without one, the two steps only shape a
    # single soft ramp (a grey back whose edge merges into its shadow's penumbra), and where
    # they put the card's edge means nothing.
    b, cc = theta[:, 1], theta[:, 2]
    near = np.where(b < 0, np.minimum(0, b + cc), np.maximum(0, b + cc)) + theta[:, 0]  # card or table
    fitted = theta[:, 0:1] + b[:, None] * basis[:, :, 1] + cc[:, None] * basis[:, :, 2]  # the model's profile
    dip = np.where(b < 0, near - fitted.min(axis=1), fitted.max(axis=1) - near)
    banded = (
        (v_band < v_far)
        & (v_band > (1 - MAX_SHADOW) * v_far)
        & (ssr_fit < 0.5 * one[r])
        & (np.abs(theta[:, 1]) >= 3.0)
        & (np.abs(theta[:, 2]) >= 3.0)
        & (np.abs(e[:, 0]) <= _E_GRID[-1])
    )
    dipped = (b * cc > 0) | (dip >= MIN_BAND_DIP)
    if np.logical_or.reduce(banded):
        # The card's edge is blurred alike on every side (one camera, one card): a side whose
        # fit needs a much blurrier edge than the others is some other profile (a neighbour's
        # edge in a narrow gap, a varying band) the model does not describe.
        # (The median of at most four finite numbers: `statistics` is the same sum and halving
        # as numpy's, at a tenth of the cost.)
        banded &= s1[:, 0] <= 1.6 * statistics.median(s1[banded, 0].tolist())
    ok = banded & dipped
    shifts[r[ok]] = e[ok, 0] * h
    slack[r[ok]] = 0.0  # the card's own step was found: the side moved onto it
    return shifts, slack


SLACK_FLAT = 0.1  # a profile changing by less than this share of its edge's steepest change is flat


def _ramp_slack(y: np.ndarray, h: float) -> np.ndarray:
    """Per mean profile y (k x m, sample spacing h px, the line at MODEL_INSIDE), how far (px,
    <= 0) inward from the line's steepest change the profile keeps changing the same way: where
    its slope over 4 samples first falls to SLACK_FLAT of the peak's (a dip's bottom or the card's
    flat level), or the window's end if it never does."""
    d = y[:, 4:] - y[:, :-4]  # column j: slope at sample j + 2
    i0 = MODEL_INSIDE - 2
    near = d[:, i0 - 4 : i0 + 5]
    top = near.argmax(axis=1) + i0 - 4
    peak = near.max(axis=1)
    cols = np.arange(d.shape[1])
    flat = (d <= SLACK_FLAT * peak[:, None]) & (cols[None, :] < top[:, None])
    foot = np.where(flat.any(axis=1), d.shape[1] - 1 - np.argmax(flat[:, ::-1], axis=1), 0) + 2
    return np.where(peak > 0, np.minimum(foot - MODEL_INSIDE, 0) * h, 0.0)


def _fit_band(y: np.ndarray, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Levenberg-Marquardt fit of the card | band | table model to profiles y (g x m) from theta
    (g x 7: a, b, c, e, w, s, k; the band's outer blur is k * s); theta and the residual sums of
    squares."""
    x = np.arange(y.shape[1]) - MODEL_INSIDE
    th = theta.copy()
    th[:, 6] = np.log(theta[:, 6] * theta[:, 5])  # the outer blur itself, and both as logs
    th[:, 5] = np.log(theta[:, 5])
    root = 1 / math.sqrt(2 * math.pi)

    def model(t, last=False):
        s1, s2 = np.exp(t[:, 5:6]), np.exp(t[:, 6:7])
        u1 = (x - t[:, 3:4]) / s1
        u2 = (x - t[:, 3:4] - t[:, 4:5]) / s2
        f1, f2 = ndtr(u1), ndtr(u2)
        r = t[:, 0:1] + t[:, 1:2] * f1 + t[:, 2:3] * f2 - y
        if last:
            return r, None  # no step follows the last trial: its Jacobian is not needed
        g1 = np.exp(-0.5 * u1 * u1) * (t[:, 1:2] * root)
        g2 = np.exp(-0.5 * u2 * u2) * (t[:, 2:3] * root)
        h2 = -g2 / s2  # (-g1 / s1 - g2 / s2 is -g1 / s1 + h2 exactly)
        jac = np.stack([np.ones_like(f1), f1, f2, -g1 / s1 + h2, h2, -g1 * u1, -g2 * u2], axis=2)
        return r, jac

    r, jac = model(th)
    cost = np.add.reduce(r * r, axis=1)
    lam = np.full(len(y), 1e-3)
    eye = np.eye(7)
    lo, hi = math.log(0.5), math.log(12.0)
    for it in range(_LM_ITERS):
        jt = jac.transpose(0, 2, 1)
        jtj = jt @ jac
        step = np.linalg.solve(jtj + lam[:, None, None] * (jtj * eye + 1e-9 * eye), -(jt @ r[..., None]))[
            ..., 0
        ]
        trial = th + step
        np.clip(trial[:, 5:7], lo, hi, out=trial[:, 5:7])
        last = it == _LM_ITERS - 1
        r2, jac2 = model(trial, last)
        cost2 = np.add.reduce(r2 * r2, axis=1)
        better = cost2 < cost
        if np.logical_and.reduce(better):
            th, r, jac, cost, lam = trial, r2, jac2, cost2, lam * 0.3
            continue
        th[better], cost[better] = trial[better], cost2[better]
        if not last:
            r[better], jac[better] = r2[better], jac2[better]
        lam = np.where(better, lam * 0.3, lam * 10.0)
    th[:, 5] = np.exp(th[:, 5])
    th[:, 6] = np.exp(th[:, 6]) / th[:, 5]
    return th, cost


_NEXT = np.array([1, 2, 3, 0])  # side i+1, around the quad


def _intersections(lines: _Lines) -> np.ndarray | None:
    """Corner i where side i-1 meets side i."""
    return corners_where_sides_meet(lines.c, lines.d)


def corners_where_sides_meet(points: np.ndarray, directions: np.ndarray) -> np.ndarray | None:
    """Corner i (4 x 2) where side i - 1 meets side i, each side the line through points[i]
    along directions[i]; None when two neighbouring sides are parallel."""
    c, d = np.asarray(points).tolist(), np.asarray(directions).tolist()
    corners = []
    for i in range(4):
        (ax, ay), (ex, ey), (cx, cy), (dx, dy) = c[i - 1], d[i - 1], c[i], d[i]
        det = ey * dx - ex * dy  # det([d_prev, -d])
        if abs(det) < 1e-6:
            return None
        t = ((cy - ay) * dx - (cx - ax) * dy) / det
        corners.append((ax + t * ex, ay + t * ey))
    return np.array(corners)


def refine_quad(img: np.ndarray, quad: np.ndarray, reach: float, passes: int = 2) -> QuadFit | None:
    """Fit the four sides of a rough quad `quad` (4 x 2, in order around the card) in `img`.

    `reach` is how far (px) from the rough side the true edge may be. Returns None when a side
    has too little edge to fit.
    """
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    # Work on a float copy of just the card's neighbourhood: cheap, and sub-pixel exact.
    h, w = img.shape[:2]
    pad = int(reach) + 4
    x0, y0 = (max(int(v), 0) for v in q.min(axis=0) - pad)
    x1, y1 = (min(int(v) + 1, lim) for v, lim in zip(q.max(axis=0) + pad, (w, h)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None
    off = np.array([x0, y0], dtype=np.float64)
    img = img[y0:y1, x0:x1].astype(np.float32)
    q = q - off
    for it in range(passes):
        fit = _fit_sides(img, q, reach if it == 0 else 4.0, first=it == 0, last=it == passes - 1)
        if fit is None:
            return None
        lines, strength, ns, shadowed, slack = fit
        new_q = _intersections(lines)
        if new_q is None:
            return None
        # A corner far from where the rough quad put it means the fit locked onto something else.
        if np.maximum.reduce(np.add.reduce((new_q - q) ** 2, axis=1)) > (2.5 * reach + 3) ** 2:
            return None
        q = new_q
    return _quad_fit(q, lines, strength, ns, off, shadowed, slack)


def _fit_sides(
    img: np.ndarray, q: np.ndarray, reach: float, first: bool, last: bool
) -> tuple[_Lines, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """One pass: a line fitted to each side of `q` from edge points within `reach` px of it, with
    the points' strengths, the number of samples per side, whether each side may have merged
    into a shadow and its slack (see SideFit); None when a side has too little
    edge (or, on the first pass, the quad as a whole)."""
    p0, p1 = q, q[_NEXT]
    corners = q.tolist()
    mx, my = sum(x for x, _ in corners) / 4, sum(y for _, y in corners) / 4
    d, out, ns, along = [], [], [], []
    for (ax, ay), (bx, by) in zip(corners, corners[1:] + corners[:1]):
        length = math.sqrt((bx - ax) ** 2 + (by - ay) ** 2)
        if length < 8:
            return None
        dx, dy = (bx - ax) / length, (by - ay) / length
        # Outward: away from the quad's centre.
        if ((ax + bx) / 2 - mx) * -dy + ((ay + by) / 2 - my) * dx < 0:
            out.append((dy, -dx))
        else:
            out.append((-dy, dx))
        d.append((dx, dy))
        along.append(((bx - ax) / (length + 1e-9), (by - ay) / (length + 1e-9)))
        ns.append(int(min(max(length / 8, 10), 24)) if first else int(min(max(length / 4, 12), 48)))
    d, out, width = np.array(d), np.array(out), max(ns)
    e = _edge_points(img, p0, p1, out, reach, np.array(ns), width, np.array(along))
    assert e is not None  # (asked for without `enough`)
    # No clear edge: maybe the side runs along a narrow gap to a touching card.
    need = np.array([max(4, 0.2 * n) for n in ns])
    found = e.found
    weak = np.add.reduce(found, axis=1) < need
    if np.logical_or.reduce(weak):
        found = np.where(weak[:, None], e.found_thin(), found)
        if np.logical_or.reduce(np.add.reduce(found, axis=1) < need):
            return None
    ns = np.array(ns)
    lines = _robust_lines(e.pts, found, d)
    if not np.logical_and.reduce(lines.ok):
        return None
    strength = e.strength
    shadowed = np.zeros(len(ns), bool)
    slack = np.zeros(len(ns))
    rimmed = np.zeros(len(ns), bool)
    if last:
        # The edge found gets brighter outward. If a thin dark line runs just inside it (the
        # card's shadow or cut edge on a brighter table), the card ends at that line's inner
        # flank, not at its outer one.
        r = np.flatnonzero(np.add.reduce(e.polarity, axis=1) > 0)
        if len(r):
            contrast = _masked_median(strength[r], lines.keep[r]).astype(np.float64)
            er, rim, has = _rim_inner_flanks(
                img, lines.rows(r), out[r], p0[r], p1[r], e.polarity[r], ns[r], width, contrast
            )
            if np.logical_or.reduce(has):
                rh = np.flatnonzero(has)
                rimmed[r[rh]] = True
                lines = lines.replaced(r[rh], rim, rh)
                strength = strength.astype(np.float64)
                strength[r[rh]] = er.strength[rh]
    if last:
        # Where the card is darker than the table or hardly lighter, a shadow beside it can
        # hide or double its edge: find the card's own edge there.
        inside, beyond = e.levels()
        r = np.flatnonzero(inside <= (1 + LIGHTER_CARD) * beyond)
        if len(r):
            px_per_mm = min(np.linalg.norm(q - q[_NEXT], axis=1).tolist()) / 63.0
            shift, slk = _own_edge_shifts(
                img, lines.rows(r), out[r], p0[r], p1[r], e.polarity[r], ns[r], width, px_per_mm
            )
            shadowed[r] = ~rimmed[r]
            slack[r] = np.where(rimmed[r], 0.0, slk)
            if np.logical_or.reduce(shift != 0):
                full = np.zeros(len(ns))
                full[r] = shift
                lines = lines.shifted(full, out)
    if first and np.add.reduce(np.add.reduce(lines.keep, axis=1) / ns) / len(ns) < 0.45:
        return None  # mostly not an edge: give up before the fine pass
    return lines, strength, ns, shadowed, slack


def _quad_fit(
    q: np.ndarray,
    lines: _Lines,
    strength: np.ndarray,
    ns: np.ndarray,
    off: np.ndarray,
    shadowed: np.ndarray,
    slack: np.ndarray,
) -> QuadFit:
    """The result in image pixels: corners, their sigmas and each side's fit."""
    keep = lines.keep
    n_inliers = np.add.reduce(keep, axis=1)
    rms = np.sqrt(np.add.reduce(np.where(keep, lines.dist, 0.0) ** 2, axis=1) / n_inliers)
    # Spread of the inliers along each line.
    pos = (lines.coef[:, None, 7:] @ lines.pts)[:, 0]
    length = np.where(keep, pos, -np.inf).max(axis=1) - np.where(keep, pos, np.inf).min(axis=1)
    contrast = _masked_median(strength, keep)
    c, d = lines.c + off, lines.d.copy()
    sides = tuple(
        SideFit(pt, dd, res, n, n / m, span, con, sh, sl)
        for pt, dd, res, n, m, span, con, sh, sl in zip(
            c,
            d,
            rms.tolist(),
            n_inliers.tolist(),
            ns.tolist(),
            length.tolist(),
            contrast.tolist(),
            shadowed.tolist(),
            slack.tolist(),
        )
    )
    q = q + off
    return QuadFit(corners=q, sigma_px=_corner_sigmas(q, sides), sides=sides)


def _corner_sigmas(corners: np.ndarray, sides: tuple[SideFit, ...]) -> np.ndarray:
    lines = []
    for sd in sides:
        # Perpendicular std of a fitted line at a point: offset plus tilt times lever arm.
        n = max(sd.n_inliers, 2)
        s = max(sd.residual_px, 0.05)
        spread = max(sd.length_px, 1.0) / math.sqrt(12)  # std of uniformly spread samples
        lines.append((*sd.point.tolist(), *sd.direction.tolist(), s**2 / n, s / (math.sqrt(n) * spread)))
    out = []
    for i, (x, y) in enumerate(corners.tolist()):
        errs = []
        for px, py, dx, dy, offset2, tilt in (lines[i - 1], lines[i]):
            lever = (x - px) * dx + (y - py) * dy
            errs.append(offset2 + (lever * tilt) ** 2)
        (_, _, ax, ay, _, _), (_, _, bx, by, _, _) = lines[i - 1], lines[i]
        sin = abs(ax * by - ay * bx)
        # Per-axis std of the intersection of two lines with independent normal errors.
        out.append(math.sqrt((errs[0] + errs[1]) / 2) / max(sin, 0.2))
    return np.sqrt(np.square(out) + SIGMA_FLOOR_PX**2)
