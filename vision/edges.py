"""Sub-pixel card outlines: fit a straight line to each side of a rough quadrilateral.

Along each side (its rounded corners left out) we sample short intensity profiles across the
edge, find where the colour changes fastest with the polarity the side has (card -> outside),
and fit a line to those points robustly. The sharp corners are the intersections of adjacent
lines (DESIGN.md); each corner's uncertainty follows from the residuals of its two lines.

The detector calls this dozens of times per frame, so the four sides are handled together:
one `cv2.remap` samples every profile of a pass, and the per-side statistics (medians, trimmed
line fits) run on padded side x sample arrays with masks instead of a Python loop per side.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

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
    """Edge points found along k sides at once, padded to the longest side (n samples)."""

    points: np.ndarray  # k x n x 2
    strength: np.ndarray  # k x n, the edge's derivative along the polarity
    found: np.ndarray  # k x n, a clear edge of the side's polarity
    found_thin: np.ndarray  # k x n, the same allowing a thin line just beside the edge
    polarity: np.ndarray  # k x C, unit colour step sought


@lru_cache(maxsize=64)
def _positions(n: int) -> np.ndarray:
    return np.linspace(CORNER_SKIP, 1 - CORNER_SKIP, n)


@lru_cache(maxsize=256)
def _offsets(reach: float) -> np.ndarray:
    return np.arange(-reach, reach + STEP / 2, STEP)


def _masked_median(v: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Median along axis 1 of k x n (x C) `v` over the entries where `mask` (k x n) holds; nan
    where none does."""
    cnt = mask.sum(axis=1)
    m = mask if v.ndim == 2 else mask[..., None]
    s = np.sort(np.where(m, v, np.inf), axis=1)
    lo = np.maximum(cnt - 1, 0) // 2
    hi = cnt // 2
    shape = (len(v), 1) + v.shape[2:]
    a = np.take_along_axis(s, np.broadcast_to(lo.reshape(-1, *([1] * (v.ndim - 1))), shape), axis=1)[:, 0]
    b = np.take_along_axis(s, np.broadcast_to(hi.reshape(-1, *([1] * (v.ndim - 1))), shape), axis=1)[:, 0]
    med = (a + b) / 2
    empty = cnt == 0
    if empty.any():
        med = med.astype(np.float64)
        med[empty] = np.nan
    return med


def _edge_points(
    img: np.ndarray,
    p0: np.ndarray,
    p1: np.ndarray,
    outward: np.ndarray,
    reach: float,
    ns: np.ndarray,
    polarity: np.ndarray | None = None,
    shift: float = 0.0,
) -> _Edges:
    """Edge points along the k segments p0->p1 (k x 2 each) within +-reach px of each segment moved
    `shift` px outward, ns[i] points on side i. `polarity` (k x C) forces the colour change sought."""
    k, nmax = len(p0), int(ns.max())
    t = np.empty((k, nmax))
    for i, n in enumerate(ns):
        t[i, :n] = _positions(int(n))
        t[i, n:] = t[i, n - 1]  # padding, masked out below
    valid = np.arange(nmax)[None, :] < ns[:, None]
    d = p1 - p0
    base = p0[:, None, :] + d[:, None, :] * t[:, :, None] + shift * outward[:, None, :]  # k x n x 2
    offs = _offsets(float(reach))
    m = len(offs)
    along = d / (np.sqrt((d**2).sum(axis=1)) + 1e-9)[:, None]
    pts = (
        base[None, :, :, None, :]
        + offs[None, None, None, :, None] * outward[None, :, None, None, :]
        + _PARALLEL[:, None, None, None, None] * along[None, :, None, None, :]
    )  # 3 x k x n x m x 2
    mx = pts[..., 0].astype(np.float32).reshape(-1, m)
    my = pts[..., 1].astype(np.float32).reshape(-1, m)
    sampled = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # Average the three parallel profiles: smooths along the edge, not across it.
    prof = sampled.reshape(3, k, nmax, m, -1).mean(axis=0)  # k x n x m x C
    # Derivative along the outward normal over +-1 px (central difference), per channel.
    k2 = _DERIV_K
    deriv = np.zeros_like(prof)
    deriv[:, :, k2:-k2] = (prof[:, :, 2 * k2 :] - prof[:, :, : -2 * k2]) / (2 * k2 * STEP)
    rows = np.arange(k)[:, None]
    cols = np.arange(nmax)[None, :]
    if polarity is not None:
        pol = np.asarray(polarity, dtype=np.float64)
    else:
        # The side's polarity: the colour step from the card to what lies beyond it (robust to a
        # thin shadow or dark rim along the edge, whose two flanks have opposite signs). When both
        # ends look alike (a neighbouring card a few mm away), the strongest change decides.
        q = max(2, m // 4)
        step = _masked_median(prof[:, :, -q:].mean(axis=2) - prof[:, :, :q].mean(axis=2), valid)
        mag = (deriv**2).sum(axis=3)
        jm = mag.argmax(axis=2)
        strongest = _masked_median(deriv[rows, cols, jm], valid)
        clear = np.sqrt((step.astype(np.float64) ** 2).sum(axis=1)) > 5.0
        pol = np.where(clear[:, None], step, strongest)
    norm = np.sqrt((pol * pol).sum(axis=1))
    usable = norm >= 1e-6
    pol = pol / np.where(usable, norm, 1)[:, None]
    # Signed: our edge is positive, a neighbour's opposite edge negative.
    score = (deriv * pol[:, None, None, :].astype(deriv.dtype if polarity is None else np.float64)).sum(axis=3)
    j = np.clip(score.argmax(axis=2), 1, m - 2)
    s0 = np.take_along_axis(score, (j - 1)[..., None], axis=2)[..., 0]
    s1 = np.take_along_axis(score, j[..., None], axis=2)[..., 0]
    s2 = np.take_along_axis(score, (j + 1)[..., None], axis=2)[..., 0]
    den = s0 - 2 * s1 + s2
    peaked = den < -1e-9
    frac = np.where(peaked, 0.5 * (s0 - s2) / np.where(peaked, den, -1.0), 0.0)
    frac = np.clip(frac, -0.5, 0.5)
    off = offs[j] + frac * STEP
    points = base + off[..., None] * outward[:, None, :]
    # A point counts when its edge is a clear peak: strong against the side's typical edge and
    # against the rest of its own profile (so texture and flat paper do not count).
    inner = (j > 1) & (j < m - 2) & valid
    typical = np.nan_to_num(_masked_median(s1, inner).astype(np.float64), nan=0.0)
    dist = np.abs(np.arange(m)[None, None, :] - j[..., None])
    rest = np.abs(score)
    rest[dist <= _PEAK_BAND] = 0.0
    base_ok = inner & (s1 > (0.35 * typical).astype(s1.dtype)[:, None]) & (s1 > 1.0) & usable[:, None]
    found = base_ok & (s1 > 1.4 * rest.max(axis=2))
    # The other flank of a thin line next to the edge (the gap to a touching card) is the
    # line's, not a rival edge.
    rest[(dist <= _THIN_BAND) & (score < 0)] = 0.0
    found_thin = base_ok & (s1 > 1.4 * rest.max(axis=2))
    return _Edges(points, s1, found, found_thin, pol)


def _fit_lines(pts: np.ndarray, w: np.ndarray, ref: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares (total) line through the weighted points of each side: centroid and unit
    direction (the 2 x 2 scatter's main axis, pointing along `ref`)."""
    cnt = np.maximum(w.sum(axis=1), 1)
    c = (pts * w[..., None]).sum(axis=1) / cnt[:, None]
    x = (pts - c[:, None, :]) * w[..., None]
    sxx = (x[..., 0] ** 2).sum(axis=1)
    syy = (x[..., 1] ** 2).sum(axis=1)
    sxy = (x[..., 0] * x[..., 1]).sum(axis=1)
    theta = 0.5 * np.arctan2(2 * sxy, sxx - syy)
    d = np.stack([np.cos(theta), np.sin(theta)], axis=1)
    d[(d * ref).sum(axis=1) < 0] *= -1
    return c, d


def _robust_lines(
    pts: np.ndarray, mask: np.ndarray, ref: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per side, the line through most of its masked points: trimmed refits dropping outliers
    (occluders, art). Returns centre, direction, inliers (k x n) and whether the side has a line."""
    keep = mask.copy()
    active = np.ones(len(pts), bool)
    ok = np.ones(len(pts), bool)
    for _ in range(4):
        ok &= ~(active & (keep.sum(axis=1) < 4))
        c, d = _fit_lines(pts, keep.astype(np.float64), ref)
        res = np.abs((pts[..., 0] - c[:, None, 0]) * -d[:, None, 1] + (pts[..., 1] - c[:, None, 1]) * d[:, None, 0])
        mad = _masked_median(res, keep) * 1.4826 + 0.05
        new = mask & (res < np.maximum(3.0 * mad, 0.35)[:, None])
        same = (new == keep).all(axis=1)
        keep = np.where(active[:, None], new, keep)
        active &= ~same
        if not (active & ok).any():
            break
    ok &= keep.sum(axis=1) >= 4
    c, d = _fit_lines(pts, keep.astype(np.float64), ref)
    return c, d, keep, ok


def _rim_inner_flanks(img, c, dd, out, p0, p1, pol, ns, contrast):
    """Per side, the inner flank of a dark line at most RIM_PX wide just inside the fitted edge,
    if the whole side shows one: (edges, centre, direction, inliers, has_rim)."""
    normal = np.stack([-dd[:, 1], dd[:, 0]], axis=1)
    normal[(normal * out).sum(axis=1) < 0] *= -1
    # The rough side's ends projected onto the fitted line, so the search runs along the fit.
    a = c + ((p0 - c) * dd).sum(axis=1)[:, None] * dd
    b = c + ((p1 - c) * dd).sum(axis=1)[:, None] * dd
    e = _edge_points(img, a, b, normal, RIM_PX / 2, ns, polarity=-pol, shift=-RIM_PX / 2 - 0.25)
    strong = e.found.sum(axis=1) >= 0.6 * ns
    strong &= ~(np.nan_to_num(_masked_median(e.strength, e.found), nan=-np.inf) < 0.3 * contrast)
    c2, d2, keep, ok = _robust_lines(e.points, e.found, dd)
    has = strong & ok & (keep.sum(axis=1) >= 0.5 * ns) & (np.abs((d2 * dd).sum(axis=1)) >= 0.999)
    return e, c2, d2, keep, has


def _intersections(c: np.ndarray, d: np.ndarray) -> np.ndarray | None:
    """Corner i where side i-1 meets side i (centres c, directions d, 4 x 2 each)."""
    ca, da = np.roll(c, 1, axis=0), np.roll(d, 1, axis=0)
    det = da[:, 1] * d[:, 0] - da[:, 0] * d[:, 1]  # det([da, -d])
    if (np.abs(det) < 1e-6).any():
        return None
    r = c - ca
    t = (r[:, 1] * d[:, 0] - r[:, 0] * d[:, 1]) / det
    return ca + t[:, None] * da


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
        last = it == passes - 1
        p0, p1 = q, np.roll(q, -1, axis=0)
        d = p1 - p0
        lengths = np.sqrt((d**2).sum(axis=1))
        if (lengths < 8).any():
            return None
        d = d / lengths[:, None]
        out = np.stack([-d[:, 1], d[:, 0]], axis=1)
        ctr = q.mean(axis=0)
        out[(((p0 + p1) / 2 - ctr) * out).sum(axis=1) < 0] *= -1
        if it:
            ns = np.clip(lengths / 4, 12, 48).astype(int)
        else:
            ns = np.clip(lengths / 8, 10, 24).astype(int)
        e = _edge_points(img, p0, p1, out, reach if it == 0 else 4.0, ns)
        need = np.maximum(4, 0.2 * ns)
        # No clear edge: maybe the side runs along a narrow gap to a touching card.
        weak = e.found.sum(axis=1) < need
        found = np.where(weak[:, None], e.found_thin, e.found)
        if (found.sum(axis=1) < need).any():
            return None
        c, dd, keep, ok = _robust_lines(e.points, found, d)
        if not ok.all():
            return None
        # Per side: its edge points, their strengths and the line's inliers.
        pts, strength, inl = list(e.points), list(e.strength), list(keep)
        if last:
            # The edge found gets brighter outward. If a thin dark line runs just inside it
            # (the card's shadow or cut edge on a brighter table), the card ends at that
            # line's inner flank, not at its outer one.
            r = np.flatnonzero(e.polarity.sum(axis=1) > 0)
            if len(r):
                contrast = _masked_median(e.strength[r], keep[r]).astype(np.float64)
                er, c2, d2, keep2, has = _rim_inner_flanks(
                    img, c[r], dd[r], out[r], p0[r], p1[r], e.polarity[r], ns[r], contrast
                )
                if has.any():
                    c, dd = c.copy(), dd.copy()
                    for j in np.flatnonzero(has):
                        i = r[j]
                        pts[i], strength[i], inl[i] = er.points[j], er.strength[j], keep2[j]
                        c[i], dd[i] = c2[j], d2[j]
        support = np.array([k.sum() for k in inl]) / ns
        if it == 0 and support.mean() < 0.45:
            return None  # mostly not an edge: give up before the fine pass
        new_q = _intersections(c, dd)
        if new_q is None:
            return None
        # A corner far from where the rough quad put it means the fit locked onto something else.
        if np.sqrt(((new_q - q) ** 2).sum(axis=1)).max() > 2.5 * reach + 3:
            return None
        q = new_q
    sides = tuple(_side_fit(pts[i], strength[i], inl[i], c[i], dd[i], off, ns[i]) for i in range(4))
    q = q + off
    return QuadFit(corners=q, sigma_px=_corner_sigmas(q, sides), sides=sides)


def _side_fit(pts, strength, keep, c, dd, off, n) -> SideFit:
    inl = pts[keep] - c
    r = inl[:, 1] * dd[0] - inl[:, 0] * dd[1]
    t = inl @ dd
    k = int(keep.sum())
    return SideFit(
        point=c + off,
        direction=dd,
        residual_px=float(np.sqrt(np.mean(r**2))),
        n_inliers=k,
        support=k / int(n),
        length_px=float(t.max() - t.min()),
        contrast=float(np.median(strength[keep])),
    )


def _line_error_at(side: SideFit, x: np.ndarray) -> float:
    """Perpendicular std of a fitted line at point x: offset plus tilt times lever arm."""
    n = max(side.n_inliers, 2)
    s = max(side.residual_px, 0.05)
    spread = max(side.length_px, 1.0) / math.sqrt(12)  # std of uniformly spread samples
    lever = float((x[0] - side.point[0]) * side.direction[0] + (x[1] - side.point[1]) * side.direction[1])
    return math.sqrt(s**2 / n + (lever * s / (math.sqrt(n) * spread)) ** 2)


def _corner_sigmas(corners: np.ndarray, sides: tuple[SideFit, ...]) -> np.ndarray:
    out = np.empty(4)
    for i in range(4):
        a, b = sides[(i - 1) % 4], sides[i]
        ea, eb = _line_error_at(a, corners[i]), _line_error_at(b, corners[i])
        sin = abs(float(a.direction[0] * b.direction[1] - a.direction[1] * b.direction[0]))
        # Per-axis std of the intersection of two lines with independent normal errors.
        out[i] = math.sqrt((ea**2 + eb**2) / 2) / max(sin, 0.2)
    return np.sqrt(out**2 + SIGMA_FLOOR_PX**2)
