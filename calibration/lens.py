"""OpenCV's lens model (k1, k2, p1, p2, k3) both ways, in numpy.

Written out rather than calling `cv2.undistortPoints` because its iteration count and criteria
argument differ between OpenCV 4.8 (`undistortPointsIter`) and 5.0; this converges everywhere a
webcam lens is usable and gives the same numbers on every version.
"""

from __future__ import annotations

import numpy as np


def _coeffs(dist: np.ndarray | None) -> tuple[float, float, float, float, float]:
    d = np.zeros(5) if dist is None else np.asarray(dist, dtype=float).ravel()
    d = np.concatenate([d, np.zeros(max(0, 5 - len(d)))])[:5]
    return tuple(float(x) for x in d)  # type: ignore[return-value]


def distort_normalized(xy: np.ndarray, dist: np.ndarray | None) -> np.ndarray:
    """Distorted normalised coordinates of ideal ones (N x 2)."""
    k1, k2, p1, p2, k3 = _coeffs(dist)
    x, y = xy[:, 0], xy[:, 1]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
    yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
    return np.column_stack([xd, yd])


def undistort_normalized(xy_d: np.ndarray, dist: np.ndarray | None, iterations: int = 40) -> np.ndarray:
    """Ideal normalised coordinates of distorted ones (N x 2): fixed-point iteration then Newton steps."""
    k1, k2, p1, p2, k3 = _coeffs(dist)
    if not any((k1, k2, p1, p2, k3)):
        return xy_d.copy()
    xd, yd = xy_d[:, 0], xy_d[:, 1]
    x, y = xd.copy(), yd.copy()
    for _ in range(iterations):
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        x, y = (xd - dx) / radial, (yd - dy) / radial
    # Two Newton steps with a numeric Jacobian mop up what slow fixed-point convergence leaves
    # near the image corners of strongly distorted lenses.
    p = np.column_stack([x, y])
    eps = 1e-7
    for _ in range(2):
        f = distort_normalized(p, dist) - xy_d
        jx = (distort_normalized(p + [eps, 0], dist) - distort_normalized(p, dist)) / eps
        jy = (distort_normalized(p + [0, eps], dist) - distort_normalized(p, dist)) / eps
        det = jx[:, 0] * jy[:, 1] - jy[:, 0] * jx[:, 1]
        det = np.where(np.abs(det) < 1e-12, 1e-12, det)
        step_x = (jy[:, 1] * f[:, 0] - jy[:, 0] * f[:, 1]) / det
        step_y = (-jx[:, 1] * f[:, 0] + jx[:, 0] * f[:, 1]) / det
        p = p - np.column_stack([step_x, step_y])
    return p


def undistort_pixels(px: np.ndarray, matrix: np.ndarray, dist: np.ndarray | None) -> np.ndarray:
    """Pixels of the ideal pinhole image (same camera matrix) for pixels as the lens shows them."""
    px = np.asarray(px, dtype=float).reshape(-1, 2)
    if dist is None or not np.any(dist):
        return px.copy()
    k = np.asarray(matrix, dtype=float)
    xy = (px - k[:2, 2]) / [k[0, 0], k[1, 1]]
    xy[:, 0] -= k[0, 1] * xy[:, 1] / k[0, 0]  # skew (0 for every camera we calibrate, kept for honesty)
    ideal = undistort_normalized(xy, dist)
    return np.column_stack(
        [ideal[:, 0] * k[0, 0] + k[0, 1] * ideal[:, 1] + k[0, 2], ideal[:, 1] * k[1, 1] + k[1, 2]]
    )


def distort_pixels(px: np.ndarray, matrix: np.ndarray, dist: np.ndarray | None) -> np.ndarray:
    """Pixels as the lens shows them for pixels of the ideal pinhole image."""
    px = np.asarray(px, dtype=float).reshape(-1, 2)
    if dist is None or not np.any(dist):
        return px.copy()
    k = np.asarray(matrix, dtype=float)
    y = (px[:, 1] - k[1, 2]) / k[1, 1]
    x = (px[:, 0] - k[0, 2] - k[0, 1] * y) / k[0, 0]
    d = distort_normalized(np.column_stack([x, y]), dist)
    return np.column_stack([d[:, 0] * k[0, 0] + k[0, 1] * d[:, 1] + k[0, 2], d[:, 1] * k[1, 1] + k[1, 2]])


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (N x 2) through a 3 x 3 homography."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    q = p @ h[:, :2].T + h[:, 2]
    return q[:, :2] / q[:, 2:3]
