"""The table's error map: the expected error (mm) of a point mapped from the image to the table,
as a function of where on the table it lies.

Two things make a mapped point wrong, and both grow away from where the board lay:
- the lens: its parameters are known to within their covariance (calibration.covariance); a
  slightly wrong lens undistorts the table photo wrongly, so the table's pose is fitted wrong too;
- the table's pose: fitted to the board's corners, which the detector finds to within the fit's
  own residual; a tilt error too small to see on the sheet grows with distance from it.
Each is propagated to table mm to first order (numerical Jacobians of the whole mapping, the
table pose re-fitted for each lens perturbation) and the two covariances added; the map holds
sqrt(trace) of the 2 x 2 result: the RMS distance between where a point is and where the
calibration puts it.

With two or more placements their own fits are also compared: each placement alone gives a
mapping, and how far those disagree over the table is measured against how far the model says
they should. When they disagree more than the model allows (a sheet not flat, a corner
misread), the whole map is scaled up by that ratio: the evidence wins over the model, never the
other way round.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import cv2
import numpy as np
from scipy.ndimage import distance_transform_edt

from calibration.board import BoardSpec
from calibration.covariance import perturbed_lens
from calibration.lens import apply_homography, distort_pixels, undistort_pixels
from calibration.placements import PlaneFit, fit_plane, image_to_table, pose_homography

GRID_STEP_MM = 20.0
MAX_CELLS = 6000  # about 20 mm cells over a 1.5 x 0.8 m table


@dataclass
class ErrorMap:
    """Expected mapping error (mm) on a grid over the table; NaN where the camera does not see it."""

    origin_mm: tuple[float, float]  # table mm of cell [0, 0]'s centre
    step_mm: float
    values: np.ndarray  # (ny, nx), rows along +y
    how: dict = field(default_factory=dict)  # what went into it: parts, inflation, placements

    def __post_init__(self) -> None:
        seen = np.isfinite(self.values)
        if not seen.any():
            self._filled = np.zeros_like(self.values)
            return
        # Outside the view: the nearest seen cell's value, so a corner just past the edge of
        # the picture is judged as its nearest seen neighbour.
        idx = distance_transform_edt(~seen, return_distances=False, return_indices=True)
        self._filled = self.values[tuple(idx)]

    @property
    def seen(self) -> np.ndarray:
        return self.values[np.isfinite(self.values)]

    @property
    def rms_mm(self) -> float:
        return float(np.sqrt(np.mean(self.seen**2))) if self.seen.size else float("nan")

    @property
    def max_mm(self) -> float:
        return float(self.seen.max()) if self.seen.size else float("nan")

    def worst_mm(self) -> tuple[float, float]:
        """Table mm of the cell with the largest expected error."""
        r, c = np.unravel_index(np.nanargmax(self.values), self.values.shape)
        return self.origin_mm[0] + c * self.step_mm, self.origin_mm[1] + r * self.step_mm

    def at(self, points_mm: np.ndarray) -> np.ndarray:
        """Expected error (mm) at table points (N x 2), bilinear between cells."""
        p = np.asarray(points_mm, dtype=np.float64).reshape(-1, 2)
        ny, nx = self.values.shape
        fx = np.clip((p[:, 0] - self.origin_mm[0]) / self.step_mm, 0, nx - 1)
        fy = np.clip((p[:, 1] - self.origin_mm[1]) / self.step_mm, 0, ny - 1)
        x0, y0 = np.minimum(fx.astype(int), max(nx - 2, 0)), np.minimum(fy.astype(int), max(ny - 2, 0))
        x1, y1 = np.minimum(x0 + 1, nx - 1), np.minimum(y0 + 1, ny - 1)
        tx, ty = fx - x0, fy - y0
        g = self._filled
        top = g[y0, x0] * (1 - tx) + g[y0, x1] * tx
        bottom = g[y1, x0] * (1 - tx) + g[y1, x1] * tx
        return top * (1 - ty) + bottom * ty

    def to_json(self) -> dict:
        return {
            "origin_mm": list(self.origin_mm),
            "step_mm": self.step_mm,
            "mm": [[None if not np.isfinite(v) else round(float(v), 4) for v in row] for row in self.values],
            "rms_mm": round(self.rms_mm, 4),
            "max_mm": round(self.max_mm, 4),
            "how": self.how,
        }

    @classmethod
    def from_json(cls, d: dict) -> ErrorMap:
        values = np.array([[np.nan if v is None else float(v) for v in row] for row in d["mm"]], float)
        if values.ndim != 2 or values.size == 0:
            raise ValueError("error map has no cells")
        return cls(
            (float(d["origin_mm"][0]), float(d["origin_mm"][1])),
            float(d["step_mm"]),
            values,
            d.get("how", {}),
        )


def _mapped(
    px: np.ndarray, matrix: np.ndarray, dist: np.ndarray, rvec: np.ndarray, tvec: np.ndarray
) -> np.ndarray:
    return apply_homography(image_to_table(matrix, rvec, tvec), undistort_pixels(px, matrix, dist))


def _pose_jacobian(px: np.ndarray, matrix: np.ndarray, dist: np.ndarray, fit: PlaneFit) -> np.ndarray:
    """d(table mm)/d(rvec, tvec) at each pixel: (N, 2, 6), central differences of 1 sigma."""
    steps = np.sqrt(np.maximum(np.diag(fit.pose_covariance), 1e-18))
    cols = []
    for i, h in enumerate(steps):
        e = np.zeros(6)
        e[i] = h
        plus = _mapped(px, matrix, dist, fit.rvec + e[:3], fit.tvec + e[3:])
        minus = _mapped(px, matrix, dist, fit.rvec - e[:3], fit.tvec - e[3:])
        cols.append((plus - minus) / (2 * h))
    return np.stack(cols, axis=2)


def _spread(jac: np.ndarray, cov: np.ndarray) -> np.ndarray:
    """Trace of J cov J^T per point: the expected squared error (mm^2)."""
    return np.einsum("nij,jk,nik->n", jac, cov, jac)


def _lens_jacobians(
    px: np.ndarray,
    matrix: np.ndarray,
    dist: np.ndarray,
    lens_cov: np.ndarray,
    names: tuple[str, ...],
    corners_px: list[np.ndarray],
    refits: list[Callable[[np.ndarray, list[np.ndarray]], PlaneFit]],
) -> list[np.ndarray]:
    """d(table mm)/d(lens) at each pixel, (N, 2, lens parameters), for each way of fitting the
    table in `refits` (given a lens and the corners undistorted through it): a lens moved by one
    sigma undistorts the table photos differently and the pose is fitted again, as it would be."""
    cols: list[list[np.ndarray]] = [[] for _ in refits]
    for i, s in enumerate(np.sqrt(np.maximum(np.diag(lens_cov), 1e-18))):
        ends: list[list[np.ndarray]] = [[] for _ in refits]
        for sign in (1.0, -1.0):
            step = np.zeros(len(names))
            step[i] = sign * s
            k, d = perturbed_lens(matrix, dist, names, step)
            ideal = [undistort_pixels(c, k, d) for c in corners_px]
            for f, refit in enumerate(refits):
                moved = refit(k, ideal)
                ends[f].append(_mapped(px, k, d, moved.rvec, moved.tvec))
        for f in range(len(refits)):
            cols[f].append((ends[f][0] - ends[f][1]) / (2 * s))
    return [np.stack(c, axis=2) for c in cols]


def table_error_map(
    matrix: np.ndarray,
    dist: np.ndarray,
    lens_cov: np.ndarray | None,
    lens_names: tuple[str, ...],
    boards_mm: list[np.ndarray],
    corners_px: list[np.ndarray],
    spec: BoardSpec,
    fit: PlaneFit,
    image_size: tuple[int, int],
    extent: dict,
    step_mm: float = GRID_STEP_MM,
) -> ErrorMap:
    """The error map over `extent` (the visible table) of the mapping `fit` gives."""
    w, h = image_size
    x1, y1 = extent["max"]
    span = np.asarray([x1, y1], float) - np.asarray(extent["min"], float)
    # A camera that sees far toward the horizon sees metres of table: coarser cells keep the
    # map (and the file) small.
    step_mm = max(step_mm, float(np.ceil(np.sqrt(span[0] * span[1] / MAX_CELLS) / 10) * 10))
    x0, y0 = (np.floor(np.asarray(extent["min"], float) / step_mm) * step_mm).tolist()
    xs = np.arange(x0, x1 + step_mm, step_mm)
    ys = np.arange(y0, y1 + step_mm, step_mm)
    gx, gy = np.meshgrid(xs, ys)
    table = np.column_stack([gx.ravel(), gy.ravel()])
    # Where each table point is seen; those off the picture or behind the camera are not mapped.
    hom = pose_homography(matrix, fit.rvec, fit.tvec)
    q = np.column_stack([table, np.ones(len(table))]) @ hom.T
    front = q[:, 2] > 0
    px = distort_pixels(q[:, :2] / np.where(front, q[:, 2], 1.0)[:, None], matrix, dist)
    inside = front & (px[:, 0] >= 0) & (px[:, 0] <= w - 1) & (px[:, 1] >= 0) & (px[:, 1] <= h - 1)
    px = px[inside]
    n = len(boards_mm)
    # Each placement alone (where the joint fit found it): their disagreement is the evidence.
    singles = []
    if n > 1:
        for j in range(n):
            ideal_j = undistort_pixels(corners_px[j], matrix, dist)
            singles.append(fit_plane([boards_mm[j]], [ideal_j], spec, fit.placements[j], matrix))

    def joint(k: np.ndarray, ideal: list[np.ndarray]) -> PlaneFit:
        return fit_plane(boards_mm, ideal, spec, fit.placements[0], k, start=fit)

    def alone(j: int) -> Callable[[np.ndarray, list[np.ndarray]], PlaneFit]:
        return lambda k, ideal: fit_plane(
            [boards_mm[j]], [ideal[j]], spec, fit.placements[j], k, start=singles[j]
        )

    pose_var = _spread(_pose_jacobian(px, matrix, dist, fit), fit.pose_covariance)
    lens_var = np.zeros(len(px))
    lens_jacs: list[np.ndarray] = []
    if lens_cov is not None:
        refits = [joint] + [alone(j) for j in range(len(singles))]
        lens_jacs = _lens_jacobians(px, matrix, dist, lens_cov, lens_names, corners_px, refits)
        lens_var = _spread(lens_jacs[0], lens_cov)

    how: dict = {
        "placements": n,
        "pose_part_rms_mm": float(np.sqrt(np.mean(pose_var))) if len(px) else None,
        "lens_part_rms_mm": float(np.sqrt(np.mean(lens_var))) if lens_cov is not None and len(px) else None,
        "lens_covariance": lens_cov is not None,
        "residual_px": fit.rms_px,
    }
    inflation = 1.0
    if singles and len(px):
        inflation = _disagreement(px, matrix, dist, singles, lens_jacs[1:], lens_cov, how)
    how["inflation"] = inflation
    values = np.full(len(table), np.nan)
    values[inside] = inflation * np.sqrt(pose_var + lens_var)
    return ErrorMap((float(x0), float(y0)), step_mm, values.reshape(gx.shape), how)


def _disagreement(
    px: np.ndarray,
    matrix: np.ndarray,
    dist: np.ndarray,
    singles: list[PlaneFit],
    lens_jacs: list[np.ndarray],
    lens_cov: np.ndarray | None,
    how: dict,
) -> float:
    """Compare each placement's own mapping with the first's over the seen table; record how far
    they disagree and return the factor (>= 1) by which that exceeds what chance allows.

    The model's disagreement comes from both fits' pose noise and from the lens error, which
    bends each placement's fit its own way. Being a few smooth random modes, it scatters widely
    from one calibration to the next, so the observed figure is held against the model's 95th
    percentile (drawn from the linearised model with a fixed seed: the same photos always give
    the same map), not its mean: only a disagreement chance does not explain scales the map up."""
    mapped = [_mapped(px, matrix, dist, f.rvec, f.tvec) for f in singles]
    pose_jac = [_pose_jacobian(px, matrix, dist, f) for f in singles]
    rng = np.random.default_rng(25)
    draws = 400
    seen2, model2 = [], []
    for j in range(1, len(singles)):
        seen2.append(np.sum((mapped[j] - mapped[0]) ** 2, axis=1))
        d = np.einsum(
            "nik,dk->dni",
            pose_jac[j],
            rng.multivariate_normal(np.zeros(6), singles[j].pose_covariance, draws),
        )
        d -= np.einsum(
            "nik,dk->dni",
            pose_jac[0],
            rng.multivariate_normal(np.zeros(6), singles[0].pose_covariance, draws),
        )
        if lens_cov is not None:
            e = rng.multivariate_normal(
                np.zeros(len(lens_cov)), lens_cov, draws, check_valid="ignore", method="eigh"
            )
            d += np.einsum("nik,dk->dni", lens_jacs[j] - lens_jacs[0], e)
        model2.append(np.sum(d**2, axis=2))  # (draws, N)
    seen_rms = float(np.sqrt(np.mean(np.concatenate(seen2))))
    model_rms = np.sqrt(np.mean(np.concatenate(model2, axis=1), axis=1))
    how["disagreement_rms_mm"] = seen_rms
    how["disagreement_max_mm"] = float(np.sqrt(np.max(np.concatenate(seen2))))
    how["disagreement_expected_rms_mm"] = float(np.sqrt(np.mean(model_rms**2)))
    limit = float(np.quantile(model_rms, 0.95))
    how["disagreement_95_rms_mm"] = limit
    return max(1.0, seen_rms / limit) if limit > 0 else 1.0


def error_map_image(em: ErrorMap, px_per_mm: float = 0.5, vmax_mm: float | None = None) -> np.ndarray:
    """A picture of the table seen from above (contestant edge at the bottom) coloured by
    expected error: blue small, red large; grey where the camera does not see the table."""
    vmax = vmax_mm or max(1.0, float(np.ceil(em.max_mm * 10) / 10))
    ny, nx = em.values.shape
    cell = max(1, int(round(em.step_mm * px_per_mm)))
    v = np.nan_to_num(em.values[::-1], nan=0.0)  # row 0 is the far side of the table
    colour = cv2.applyColorMap(np.clip(v / vmax * 255, 0, 255).astype(np.uint8), cv2.COLORMAP_JET)
    colour[~np.isfinite(em.values[::-1])] = (90, 90, 90)
    table = cv2.resize(colour, (nx * cell, ny * cell), interpolation=cv2.INTER_NEAREST)
    bar_h, pad = 40, 10
    out = np.full((table.shape[0] + bar_h + 2 * pad, max(table.shape[1], 320) + 2 * pad, 3), 255, np.uint8)
    out[pad : pad + table.shape[0], pad : pad + table.shape[1]] = table
    ramp = cv2.applyColorMap(
        np.linspace(0, 255, 200).astype(np.uint8)[None, :].repeat(12, 0), cv2.COLORMAP_JET
    )
    y = pad * 2 + table.shape[0]
    out[y : y + 12, pad : pad + 200] = ramp
    font = cv2.FONT_HERSHEY_SIMPLEX
    cv2.putText(out, "0", (pad, y + 28), font, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(out, f"{vmax:g} mm", (pad + 175, y + 28), font, 0.45, (0, 0, 0), 1, cv2.LINE_AA)
    cv2.putText(
        out,
        f"RMS {em.rms_mm:.2f}, max {em.max_mm:.2f} mm",
        (pad + 215, y + 11),
        font,
        0.4,
        (0, 0, 0),
        1,
        cv2.LINE_AA,
    )
    return out
