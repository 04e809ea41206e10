"""Sub-pixel card outlines: fit a straight line to each side of a rough quadrilateral.

Along each side (its rounded corners left out) we sample short intensity profiles across the
edge, find where the colour changes fastest with the polarity the side has (card -> outside),
and fit a line to those points robustly. The sharp corners are the intersections of adjacent
lines (DESIGN.md); each corner's uncertainty follows from the residuals of its two lines.
"""

from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class SideFit:
    point: np.ndarray  # a point on the line (centroid of inliers)
    direction: np.ndarray  # unit vector along the side
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


def _bilinear(img: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Sample a H x W x C float32 image at float coordinates: shape x.shape + (C,)."""
    shp = x.shape
    mx = np.ascontiguousarray(x.reshape(1, -1), dtype=np.float32)
    my = np.ascontiguousarray(y.reshape(1, -1), dtype=np.float32)
    out = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(*shp, img.shape[2] if img.ndim == 3 else 1)


def _edge_points(
    img: np.ndarray,
    p0: np.ndarray,
    p1: np.ndarray,
    outward: np.ndarray,
    reach: float,
    n_samples: int,
    polarity: np.ndarray | None = None,
    shift: float = 0.0,
    thin_line_ok: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Edge points along p0->p1 within +-reach px of the segment moved `shift` px outward:
    (points, strength, found mask, polarity used). `polarity` forces the colour change sought."""
    t = np.linspace(CORNER_SKIP, 1 - CORNER_SKIP, n_samples)
    base = p0[None, :] + (p1 - p0)[None, :] * t[:, None] + shift * outward  # n x 2
    offs = np.arange(-reach, reach + STEP / 2, STEP)  # m
    along = (p1 - p0) / (np.linalg.norm(p1 - p0) + 1e-9)
    # Average three parallel profiles 1 px apart: smooths along the edge, not across it.
    ks = np.array([-1.0, 0.0, 1.0])
    pts = base[None, :, None, :] + offs[None, None, :, None] * outward + ks[:, None, None, None] * along
    prof = _bilinear(img, pts[..., 0], pts[..., 1]).mean(axis=0)  # n x m x C
    # Derivative along the outward normal over +-1 px (central difference), per channel.
    k2 = int(round(1.0 / STEP))
    deriv = np.zeros_like(prof)
    deriv[:, k2:-k2] = (prof[:, 2 * k2 :] - prof[:, : -2 * k2]) / (2 * k2 * STEP)
    # The side's polarity: the colour step from the card to what lies beyond it (robust to a
    # thin shadow or dark rim along the edge, whose two flanks have opposite signs). When both
    # ends look alike (a neighbouring card a few mm away), the strongest change decides.
    q = max(2, prof.shape[1] // 4)
    step = np.median(prof[:, -q:].mean(axis=1) - prof[:, :q].mean(axis=1), axis=0)
    if polarity is not None:
        pol = np.asarray(polarity, dtype=np.float64).copy()
    elif np.linalg.norm(step) > 5.0:
        pol = step
    else:
        mag = np.sqrt((deriv**2).sum(axis=2))
        j = mag.argmax(axis=1)
        pol = np.median(deriv[np.arange(len(j)), j], axis=0)
    norm = np.linalg.norm(pol)
    if norm < 1e-6:
        return base, np.zeros(len(base)), np.zeros(len(base), bool), pol
    pol /= norm
    score = deriv @ pol  # n x m, signed: our edge is positive, a neighbour's opposite edge negative
    j = score.argmax(axis=1)
    j = np.clip(j, 1, score.shape[1] - 2)
    s0 = score[np.arange(len(j)), j - 1]
    s1 = score[np.arange(len(j)), j]
    s2 = score[np.arange(len(j)), j + 1]
    den = s0 - 2 * s1 + s2
    frac = np.where(den < -1e-9, 0.5 * (s0 - s2) / np.where(den < -1e-9, den, -1.0), 0.0)
    frac = np.clip(frac, -0.5, 0.5)
    off = offs[j] + frac * STEP
    pts = base + off[:, None] * outward[None, :]
    # A point counts when its edge is a clear peak: strong against the side's typical edge and
    # against the rest of its own profile (so texture and flat paper do not count).
    inner = (j > 1) & (j < score.shape[1] - 2)
    typical = float(np.median(s1[inner])) if inner.any() else 0.0
    rest = np.abs(score).copy()
    band = int(round(1.5 / STEP))
    cols = np.arange(score.shape[1])[None, :]
    rest[np.abs(cols - j[:, None]) <= band] = 0.0
    if thin_line_ok:
        # The other flank of a thin line next to the edge (the gap to a touching card) is the
        # line's, not a rival edge.
        near = np.abs(cols - j[:, None]) <= int(round((RIM_PX + 1.0) / STEP))
        rest[near & (score < 0)] = 0.0
    found = inner & (s1 > 0.35 * typical) & (s1 > 1.0) & (s1 > 1.4 * rest.max(axis=1))
    return pts, s1, found, pol


def _rim_inner_flank(img, c, dd, out, p0, p1, pol, n, contrast):
    """The inner flank of a dark line at most RIM_PX wide just inside the fitted edge, if the whole
    side shows one: (points, strength, found, centre, direction, keep) or None."""
    normal = np.array([-dd[1], dd[0]])
    if normal @ out < 0:
        normal = -normal
    # The rough side's ends projected onto the fitted line, so the search runs along the fit.
    a = c + ((p0 - c) @ dd) * dd
    b = c + ((p1 - c) @ dd) * dd
    pts, strength, found, _ = _edge_points(
        img, a, b, normal, RIM_PX / 2, n, polarity=-pol, shift=-RIM_PX / 2 - 0.25
    )
    if found.sum() < 0.6 * n or np.median(strength[found]) < 0.3 * contrast:
        return None
    line = _robust_line(pts[found])
    if line is None:
        return None
    c2, d2, keep = line
    if keep.sum() < 0.5 * n or abs(d2 @ dd) < 0.999:
        return None
    return pts, strength, found, c2, d2, keep


def _fit_line(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    c = pts.mean(axis=0)
    _, _, vt = np.linalg.svd(pts - c, full_matrices=False)
    d = vt[0]
    n = np.array([-d[1], d[0]])
    return c, d, (pts - c) @ n


def _robust_line(pts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Line through most of the points: trimmed refits dropping outliers (occluders, art)."""
    keep = np.ones(len(pts), bool)
    for _ in range(4):
        if keep.sum() < 4:
            return None
        c, d, r = _fit_line(pts[keep])
        res = np.abs((pts - c) @ np.array([-d[1], d[0]]))
        mad = np.median(res[keep]) * 1.4826 + 0.05
        new = res < max(3.0 * mad, 0.35)
        if np.array_equal(new, keep):
            break
        keep = new
    if keep.sum() < 4:
        return None
    c, d, r = _fit_line(pts[keep])
    return c, d, keep


def _intersect(c1: np.ndarray, d1: np.ndarray, c2: np.ndarray, d2: np.ndarray) -> np.ndarray | None:
    a = np.array([d1, -d2]).T
    det = np.linalg.det(a)
    if abs(det) < 1e-6:
        return None
    t = np.linalg.solve(a, c2 - c1)
    return c1 + t[0] * d1


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
    if img.ndim == 2:
        img = img[..., None]
    q = q - off
    for it in range(passes):
        ctr = q.mean(axis=0)
        sides = []
        for i in range(4):
            p0, p1 = q[i], q[(i + 1) % 4]
            length = float(np.linalg.norm(p1 - p0))
            if length < 8:
                return None
            d = (p1 - p0) / length
            out = np.array([-d[1], d[0]])
            if (p0 + p1) / 2 @ out - ctr @ out < 0:
                out = -out
            n = int(np.clip(length / 4, 12, 48)) if it else int(np.clip(length / 8, 10, 24))
            pts, strength, found, pol = _edge_points(img, p0, p1, out, reach if it == 0 else 4.0, n)
            if found.sum() < max(4, 0.2 * n):
                # No clear edge: maybe the side runs along a narrow gap to a touching card.
                pts, strength, found, pol = _edge_points(
                    img, p0, p1, out, reach if it == 0 else 4.0, n, thin_line_ok=True
                )
            if found.sum() < max(4, 0.2 * n):
                return None
            line = _robust_line(pts[found])
            if line is None:
                return None
            c, dd, keep = line
            if it == passes - 1 and pol.sum() > 0:
                # The edge found gets brighter outward. If a thin dark line runs just inside it
                # (the card's shadow or cut edge on a brighter table), the card ends at that
                # line's inner flank, not at its outer one.
                rim = _rim_inner_flank(
                    img, c, dd, out, p0, p1, pol, n, float(np.median(strength[found][keep]))
                )
                if rim is not None:
                    pts, strength, found, c, dd, keep = rim
            inl = pts[found][keep]
            r = (inl - c) @ np.array([-dd[1], dd[0]])
            t = (inl - c) @ dd
            sides.append(
                SideFit(
                    point=c,
                    direction=dd,
                    residual_px=float(np.sqrt(np.mean(r**2))),
                    n_inliers=int(keep.sum()),
                    support=float(keep.sum()) / n,
                    length_px=float(t.max() - t.min()),
                    contrast=float(np.median(strength[found][keep])),
                )
            )
        if it == 0 and np.mean([sd.support for sd in sides]) < 0.45:
            return None  # mostly not an edge: give up before the fine pass
        corners = []
        for i in range(4):
            a, b = sides[(i - 1) % 4], sides[i]
            x = _intersect(a.point, a.direction, b.point, b.direction)
            if x is None:
                return None
            corners.append(x)
        new_q = np.array(corners)
        # A corner far from where the rough quad put it means the fit locked onto something else.
        if np.max(np.linalg.norm(new_q - q, axis=1)) > 2.5 * reach + 3:
            return None
        q = new_q
    sides = [
        SideFit(
            sd.point + off, sd.direction, sd.residual_px, sd.n_inliers, sd.support, sd.length_px, sd.contrast
        )
        for sd in sides
    ]
    q = q + off
    return QuadFit(corners=q, sigma_px=_corner_sigmas(q, sides), sides=tuple(sides))


def _line_error_at(side: SideFit, x: np.ndarray) -> float:
    """Perpendicular std of a fitted line at point x: offset plus tilt times lever arm."""
    n = max(side.n_inliers, 2)
    s = max(side.residual_px, 0.05)
    spread = max(side.length_px, 1.0) / np.sqrt(12)  # std of uniformly spread samples
    lever = float((x - side.point) @ side.direction)
    return float(np.sqrt(s**2 / n + (lever * s / (np.sqrt(n) * spread)) ** 2))


def _corner_sigmas(corners: np.ndarray, sides: list[SideFit]) -> np.ndarray:
    out = np.empty(4)
    for i in range(4):
        a, b = sides[(i - 1) % 4], sides[i]
        ea, eb = _line_error_at(a, corners[i]), _line_error_at(b, corners[i])
        sin = abs(a.direction[0] * b.direction[1] - a.direction[1] * b.direction[0])
        # Per-axis std of the intersection of two lines with independent normal errors.
        out[i] = np.sqrt((ea**2 + eb**2) / 2) / max(sin, 0.2)
    return np.sqrt(out**2 + SIGMA_FLOOR_PX**2)
