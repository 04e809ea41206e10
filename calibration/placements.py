"""The table plane from the board laid in one or more spots, fitted together.

One sheet of A4 pins the table's tilt only over its own 20 x 30 cm: a tilt error too small to
see on the board grows with distance, and a metre away it is most of the table's error. A
second photo with the board moved to another spot (the far side of the table, say) pins it down
over the whole span between them. The first placement fixes the table frame (where the user
says its corner lies); every further placement is found by the fit (its x, y and rotation on the
table), so the user only has to move the sheet, not measure where it went.

Needs the lens (camera matrix) and works on undistorted pixels: the fit is the camera's pose
over the table, the board points being on the table plane (z = 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
from scipy.optimize import least_squares

from calibration.board import BoardSpec
from calibration.errors import CalibrationError
from calibration.lens import apply_homography


def board_pose(
    plane_mm: np.ndarray, ideal_px: np.ndarray, matrix: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """rvec, tvec of the plane whose points `plane_mm` (N x 2, z = 0) are seen at `ideal_px`."""
    obj = np.column_stack([plane_mm, np.zeros(len(plane_mm))]).astype(np.float64)
    img = np.asarray(ideal_px, np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, img, matrix, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise CalibrationError("could not find the board's pose: take the table photo again")
    rvec, tvec = cv2.solvePnPRefineLM(obj, img, matrix, None, rvec, tvec)
    return rvec.ravel(), tvec.ravel()


def pose_homography(matrix: np.ndarray, rvec: np.ndarray, tvec: np.ndarray) -> np.ndarray:
    """Plane mm -> undistorted pixels for a camera at (rvec, tvec) over the plane."""
    r = cv2.Rodrigues(np.asarray(rvec, np.float64))[0]
    h = matrix @ np.column_stack([r[:, 0], r[:, 1], np.asarray(tvec, np.float64).ravel()])
    return h / h[2, 2]


def image_to_table(matrix: np.ndarray, rvec: np.ndarray, tvec: np.ndarray) -> np.ndarray:
    h = np.linalg.inv(pose_homography(matrix, rvec, tvec))
    return h / h[2, 2]


def placement_matrix(spec: BoardSpec, x: float, y: float, rotation_deg: float) -> np.ndarray:
    """Board mm -> table mm for the board's reference corner at (x, y), turned `rotation_deg`
    (the same map as `calibration.table.BoardPlacement.board_to_table`)."""
    a = math.radians(rotation_deg)
    flip = np.array([[1.0, 0, 0], [0, -1.0, spec.size_mm[1]], [0, 0, 1]])
    rot = np.array([[math.cos(a), -math.sin(a), x], [math.sin(a), math.cos(a), y], [0, 0, 1]])
    return rot @ flip


@dataclass
class PlaneFit:
    """The camera over the table, fitted to every placement of the board at once."""

    rvec: np.ndarray
    tvec: np.ndarray
    placements: list[tuple[float, float, float]]  # x, y mm and rotation deg of each board's corner
    rms_px: float  # residual over every corner of every placement
    noise_px: float  # the corners' pixel noise behind `pose_covariance`
    pose_covariance: np.ndarray  # 6 x 6 over rvec, tvec, the placements' own freedom marginalised
    corners: int

    def image_to_table(self, matrix: np.ndarray) -> np.ndarray:
        return image_to_table(matrix, self.rvec, self.tvec)


def _rigid_2d(src: np.ndarray, dst: np.ndarray) -> tuple[float, float, float]:
    """Rotation (deg) and shift taking src to dst best in least squares (no scale)."""
    cs, cd = src.mean(axis=0), dst.mean(axis=0)
    a, b = src - cs, dst - cd
    angle = math.atan2(float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])), float(np.sum(a * b)))
    c, s = math.cos(angle), math.sin(angle)
    shift = cd - np.array([[c, -s], [s, c]]) @ cs
    return float(shift[0]), float(shift[1]), math.degrees(angle)


def fit_plane(
    boards_mm: list[np.ndarray],
    ideal_px: list[np.ndarray],
    spec: BoardSpec,
    first: tuple[float, float, float],
    matrix: np.ndarray,
    start: PlaneFit | None = None,
    noise_px: list[float] | None = None,
) -> PlaneFit:
    """Fit the camera's pose over the table and where boards 2.. lie, from every board's corners
    (board mm) and their undistorted pixels. `first` is where board 1 lies (x, y, rotation);
    `start` (a fit of nearly the same data) skips the initial guess. `noise_px` is each board's
    corner noise in pixels: each board is weighted by it and the covariance assumes it (default:
    one noise for all, the fit's own residual)."""
    n = len(boards_mm)
    table0 = apply_homography(placement_matrix(spec, *first), boards_mm[0])
    if start is None:
        rvec, tvec = board_pose(table0, ideal_px[0], matrix)
        guess = [first]
        to_table = image_to_table(matrix, rvec, tvec)
        for b, px in zip(boards_mm[1:], ideal_px[1:]):
            # Where board j lies, as board 1's pose sees it: a rigid move of its flipped corners.
            flipped = apply_homography(placement_matrix(spec, 0.0, 0.0, 0.0), b)
            guess.append(_rigid_2d(flipped, apply_homography(to_table, px)))
    else:
        rvec, tvec, guess = start.rvec, start.tvec, [first, *start.placements[1:]]
    x0 = np.concatenate([rvec, tvec, np.ravel([[g[0], g[1], math.radians(g[2])] for g in guess[1:]])])
    seen = np.concatenate(ideal_px)
    weight = np.concatenate(
        [np.full(2 * len(b), 1.0 if noise_px is None else 1.0 / noise_px[j]) for j, b in enumerate(boards_mm)]
    )

    def residuals(p: np.ndarray) -> np.ndarray:
        pts = [table0]
        for j in range(1, n):
            x, y, a = p[6 + 3 * (j - 1) : 9 + 3 * (j - 1)]
            pts.append(apply_homography(placement_matrix(spec, x, y, math.degrees(a)), boards_mm[j]))
        obj = np.column_stack([np.concatenate(pts), np.zeros(len(seen))])
        proj, _ = cv2.projectPoints(obj, p[:3], p[3:6], matrix, None)
        return (proj.reshape(-1, 2) - seen).ravel() * weight

    res = least_squares(residuals, x0, method="lm", x_scale="jac")
    r = res.fun / weight  # pixels again
    dof = max(len(r) - len(x0), 1)
    s2 = float(r @ r) / dof if noise_px is None else 1.0  # weighted: residuals already in noise units
    cov = s2 * np.linalg.pinv(res.jac.T @ res.jac)
    p = res.x
    placements = [first] + [
        (float(p[6 + 3 * j]), float(p[7 + 3 * j]), math.degrees(float(p[8 + 3 * j]))) for j in range(n - 1)
    ]
    return PlaneFit(
        rvec=p[:3].copy(),
        tvec=p[3:6].copy(),
        placements=placements,
        rms_px=float(np.sqrt(np.mean(r**2))),
        noise_px=float(np.sqrt(s2)) if noise_px is None else float(np.sqrt(np.mean(np.square(noise_px)))),
        pose_covariance=cov[:6, :6],
        corners=len(seen),
    )


def fit_placements(
    boards_mm: list[np.ndarray],
    ideal_px: list[np.ndarray],
    spec: BoardSpec,
    first: tuple[float, float, float],
    matrix: np.ndarray,
) -> PlaneFit:
    """`fit_plane` over every placement, each board weighted by its own corner noise: its
    residual when fitted alone. A board far away is seen small and its corners are noisier in
    pixels; and the joint residual also holds what the lens gets wrong between far-apart boards,
    which is the error map's lens part, not the pose's (counting it twice, or giving the near
    board the far one's noise, made the reported error 1.5-3x the true one on rendered tables)."""
    joint = fit_plane(boards_mm, ideal_px, spec, first, matrix)
    if len(boards_mm) == 1:
        return joint
    noise = []
    for b, px, where in zip(boards_mm, ideal_px, joint.placements):
        alone = fit_plane([b], [px], spec, where, matrix)
        noise.append(float(np.sqrt(alone.rms_px**2 * 2 * alone.corners / max(2 * alone.corners - 6, 1))))
    return fit_plane(boards_mm, ideal_px, spec, first, matrix, start=joint, noise_px=noise)
