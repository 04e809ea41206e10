"""How well the lens views pin the lens down: the covariance of the lens parameters.

OpenCV's `calibrateCameraExtended` reports only each parameter's standard deviation. The error a
lens error makes on the table depends on how the parameters move together (a longer focal
length with stronger barrel distortion looks almost the same in the middle of the picture), so
the full covariance is computed here from the same model: the Jacobian of every view's
projected corners with respect to the shared lens parameters and each view's pose, scaled by
the fit's own residual variance (Gauss-Newton: cov = s^2 (J^T J)^-1, the lens block of it).
"""

from __future__ import annotations

import cv2
import numpy as np

# Parameters in the order `covariance` reports them; k3 is left out when it was held at 0.
LENS_PARAMS = ("fx", "fy", "cx", "cy", "k1", "k2", "p1", "p2", "k3")


def lens_covariance(
    object_points: list[np.ndarray],
    image_points: list[np.ndarray],
    camera_matrix: np.ndarray,
    distortion: np.ndarray,
    rvecs: list[np.ndarray],
    tvecs: list[np.ndarray],
    fix_k3: bool = True,
) -> tuple[np.ndarray, tuple[str, ...]]:
    """Covariance of the lens parameters (names returned beside it) of a fitted calibration."""
    n_lens = 8 if fix_k3 else 9
    dist = np.zeros(5)
    dist[: min(5, len(np.ravel(distortion)))] = np.ravel(distortion)[:5]
    rows, residuals = [], []
    n_views = len(object_points)
    for v, (obj, img) in enumerate(zip(object_points, image_points)):
        obj = np.asarray(obj, np.float64).reshape(-1, 1, 3)
        proj, jac = cv2.projectPoints(obj, rvecs[v], tvecs[v], camera_matrix, dist)
        residuals.append((proj.reshape(-1, 2) - np.asarray(img, np.float64).reshape(-1, 2)).ravel())
        # projectPoints' Jacobian columns: rvec (3), tvec (3), fx fy (2), cx cy (2), k1 k2 p1 p2 k3.
        block = np.zeros((jac.shape[0], n_lens + 6 * n_views))
        block[:, :n_lens] = jac[:, 6 : 6 + n_lens]
        block[:, n_lens + 6 * v : n_lens + 6 * v + 6] = jac[:, :6]
        rows.append(block)
    j = np.vstack(rows)
    r = np.concatenate(residuals)
    dof = max(len(r) - j.shape[1], 1)
    s2 = float(r @ r) / dof
    normal = j.T @ j
    # The lens block of the inverse is the lens covariance with every view's pose left free
    # (marginalised), which is what a new table view inherits.
    cov = s2 * np.linalg.pinv(normal)[:n_lens, :n_lens]
    cov = (cov + cov.T) / 2  # exactly symmetric: rounding in pinv leaves it 1e-20 off
    return cov, LENS_PARAMS[:n_lens]


def perturbed_lens(
    camera_matrix: np.ndarray, distortion: np.ndarray, names: tuple[str, ...], step: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The lens moved by `step` (one number per name in `names`)."""
    k = np.array(camera_matrix, dtype=float)
    d = np.zeros(5)
    d[: min(5, len(np.ravel(distortion)))] = np.ravel(distortion)[:5]
    where = {"fx": (0, 0), "fy": (1, 1), "cx": (0, 2), "cy": (1, 2)}
    for name, delta in zip(names, step):
        if name in where:
            k[where[name]] += delta
        else:
            d[("k1", "k2", "p1", "p2", "k3").index(name)] += delta
    return k, d
