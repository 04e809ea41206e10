"""The table plane: one view of the board lying flat -> image-to-table-mm homography.

Table frame (docs/rules-masterplan.md, "Coordinates"): mm, origin at the left end of the contestant edge,
+x along it to the right, +y away from the players. The board's reference corner is the
bottom-left outer corner of its chessboard as the printed page reads (ruler and text at the
bottom, toward the player); by default it is the table origin, with the board's bottom edge
along +x. The user may give where that corner lies (mm) and the board's rotation (degrees,
counter-clockwise seen from above).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from calibration.board import PAPERS_MM, BoardSpec, BoardView
from calibration.errormap import table_error_map
from calibration.errors import CalibrationError
from calibration.file import Calibration
from calibration.lens import apply_homography, distort_pixels, undistort_pixels
from calibration.placements import PlaneFit, board_pose, fit_placements, placement_matrix, pose_homography

HOLDOUT_FOLDS = 5
SCALE_TOLERANCE = 0.01  # a print more than 1 % off would move a 63 mm reach by 0.6 mm


@dataclass(frozen=True)
class BoardPlacement:
    """Where the board's reference corner lies on the table (mm) and its rotation (degrees CCW)."""

    origin_mm: tuple[float, float] = (0.0, 0.0)
    rotation_deg: float = 0.0

    def board_to_table(self, spec: BoardSpec) -> np.ndarray:
        """3 x 3 affine map from board-frame mm (y down the page) to table mm."""
        return placement_matrix(spec, self.origin_mm[0], self.origin_mm[1], self.rotation_deg)


@dataclass
class TableFit:
    image_to_table: np.ndarray  # undistorted px -> table mm
    board_to_image: np.ndarray  # board mm -> undistorted px
    fit_rms_mm: float
    holdout_rms_mm: float
    holdout_max_mm: float
    corners: int
    used_lens: bool

    def to_step(self) -> dict:
        return {
            "fit_rms_mm": self.fit_rms_mm,
            "holdout_rms_mm": self.holdout_rms_mm,
            "holdout_max_mm": self.holdout_max_mm,
            "corners": self.corners,
            "undistorted": self.used_lens,
        }


def _board_to_image(board_mm: np.ndarray, ideal_px: np.ndarray, matrix: np.ndarray | None) -> np.ndarray:
    """Homography board mm -> undistorted px. With a known lens: the 6-dof pose (it extrapolates far
    beyond the board much better than a free 8-dof homography); without: a plain homography."""
    if matrix is None:
        h, _ = cv2.findHomography(board_mm, ideal_px, 0)
        if h is None:
            raise CalibrationError("the board corners do not fit a plane: take the table photo again")
        return h
    return pose_homography(matrix, *board_pose(board_mm, ideal_px, matrix))


def fit_table(
    view: BoardView,
    spec: BoardSpec,
    placement: BoardPlacement = BoardPlacement(),  # noqa: B008  (frozen, immutable)
    camera_matrix: np.ndarray | None = None,
    distortion: np.ndarray | None = None,
) -> TableFit:
    """Fit image -> table from one view of the board lying flat; report the error at corners held
    out of the fit (5-fold: each corner is predicted by a fit that never saw it)."""
    if len(view) < 8:
        raise CalibrationError(f"only {len(view)} board corners seen; the table step needs 8 or more")
    ideal = (
        view.corners_px
        if camera_matrix is None
        else undistort_pixels(view.corners_px, camera_matrix, distortion)
    )
    b2t = placement.board_to_table(spec)
    table_mm = apply_homography(b2t, view.corners_mm)

    def fit(idx: np.ndarray) -> np.ndarray:
        b2i = _board_to_image(view.corners_mm[idx], ideal[idx], camera_matrix)
        h = b2t @ np.linalg.inv(b2i)
        return h / h[2, 2]

    everything = np.arange(len(view))
    b2i = _board_to_image(view.corners_mm, ideal, camera_matrix)
    image_to_table = b2t @ np.linalg.inv(b2i)
    image_to_table /= image_to_table[2, 2]
    fit_err = np.linalg.norm(apply_homography(image_to_table, ideal) - table_mm, axis=1)
    held = np.zeros(len(view))
    for k in range(HOLDOUT_FOLDS):
        out = everything[everything % HOLDOUT_FOLDS == k]
        keep = everything[everything % HOLDOUT_FOLDS != k]
        if len(out) == 0 or len(keep) < 6:
            continue
        held[out] = np.linalg.norm(apply_homography(fit(keep), ideal[out]) - table_mm[out], axis=1)
    return TableFit(
        image_to_table=image_to_table,
        board_to_image=b2i,
        fit_rms_mm=float(np.sqrt(np.mean(fit_err**2))),
        holdout_rms_mm=float(np.sqrt(np.mean(held**2))),
        holdout_max_mm=float(held.max()),
        corners=len(view),
        used_lens=camera_matrix is not None,
    )


def visible_extent(cal: Calibration, samples: int = 60) -> dict:
    """The table the camera sees: the image border mapped to mm (points beyond the horizon dropped)."""
    w, h = cal.image_size
    t = np.linspace(0, 1, samples)
    border = np.concatenate(
        [
            np.column_stack([t * (w - 1), np.zeros_like(t)]),
            np.column_stack([np.full_like(t, w - 1), t * (h - 1)]),
            np.column_stack([(1 - t) * (w - 1), np.full_like(t, h - 1)]),
            np.column_stack([np.zeros_like(t), (1 - t) * (h - 1)]),
        ]
    )
    ideal = cal.undistort(border)
    hm = cal.image_to_table
    wgt = ideal @ hm[2, :2] + hm[2, 2]
    centre_w = np.array([(w - 1) / 2, (h - 1) / 2]) @ hm[2, :2] + hm[2, 2]
    ok = wgt * centre_w > 0  # same side of the horizon as the image centre
    mm = apply_homography(hm, ideal[ok])
    far = np.linalg.norm(mm - apply_homography(hm, np.array([[(w - 1) / 2, (h - 1) / 2]])), axis=1) < 20000
    mm = mm[far]
    if len(mm) < 3:
        raise CalibrationError("the camera sees almost no table: point it down at the table")
    return {
        "min": mm.min(axis=0).round(1).tolist(),
        "max": mm.max(axis=0).round(1).tolist(),
        "outline": mm[::4].round(1).tolist(),
    }


def lens_covariance_of(cal: Calibration) -> tuple[np.ndarray | None, tuple[str, ...]]:
    """The lens covariance the intrinsics step recorded (None in files from before it did)."""
    step = cal.steps.get("intrinsics", {})
    cov, names = step.get("covariance"), tuple(step.get("covariance_params") or ())
    if cov is None or not names:
        return None, ()
    cov = np.asarray(cov, dtype=float)
    return (cov, names) if cov.shape == (len(names), len(names)) else (None, ())


def map_table(
    cal: Calibration,
    views: list[BoardView],
    spec: BoardSpec,
    first: BoardPlacement = BoardPlacement(),  # noqa: B008  (frozen, immutable)
) -> PlaneFit:
    """Fit the table plane to the board's placements (the first where `first` says, the others
    found), then set `cal`'s mapping, visible extent and error map. Needs the lens."""
    if not cal.has_lens:
        raise CalibrationError(
            "the table's error map and a second placement need the lens: run 'tabletop calibrate intrinsics' first"
        )
    k, d = cal.camera_matrix, cal.distortion
    boards = [v.corners_mm for v in views]
    plane = fit_placements(
        boards,
        [undistort_pixels(v.corners_px, k, d) for v in views],
        spec,
        (first.origin_mm[0], first.origin_mm[1], first.rotation_deg),
        k,
    )
    cal.image_to_table = plane.image_to_table(k)
    cal.table_extent_mm = visible_extent(cal)
    cov, names = lens_covariance_of(cal)
    cal.error_map = table_error_map(
        k,
        d,
        cov,
        names,
        boards,
        [v.corners_px for v in views],
        spec,
        plane,
        cal.image_size,
        cal.table_extent_mm,
    )
    return plane


def typical_corner_sigma_mm(cal: Calibration, grid: int = 9) -> float:
    """Median corner sigma over the image's grid points that see the table."""
    w, h = cal.image_size
    u, v = np.meshgrid(np.linspace(0.05, 0.95, grid) * w, np.linspace(0.05, 0.95, grid) * h)
    pts = np.column_stack([u.ravel(), v.ravel()])
    s = cal.corner_sigma_mm_at(pts)
    s = s[np.isfinite(s) & (s < 50)]
    return float(np.median(s)) if len(s) else float("nan")


# ---- is the board printed at the right scale? ------------------------------------------------
def check_measured_scale(
    spec: BoardSpec, measured_square_mm: float | None = None, measured_bar_mm: float | None = None
) -> float:
    """Printed scale from what the user measured with a ruler; raise when it is more than 1 % off."""
    if measured_square_mm is not None:
        scale, what, want = measured_square_mm / spec.square_mm, "a square", spec.square_mm
    elif measured_bar_mm is not None:
        scale, what, want = measured_bar_mm / spec.ruler_mm, "the ruler bar", spec.ruler_mm
    else:
        return 1.0
    if not 0.5 < scale < 2.0:
        raise CalibrationError(
            f"{what} measured {want * scale:.1f} mm but should be {want:.1f} mm: is that the right board?"
        )
    if abs(scale - 1) > SCALE_TOLERANCE:
        raise CalibrationError(
            _scale_message(
                scale, f"{what} measures {round(want * scale, 2):g} mm instead of {want:g} mm", spec
            )
        )
    return scale


def _scale_message(scale: float, evidence: str, spec: BoardSpec | None = None) -> str:
    # Far off usually means the spec is for another board (squares of another size), not a
    # printer's shrink: say both, with what the squares then measure.
    other = (
        f"; or, if the board's squares are meant to be {spec.square_mm * scale:.0f} mm, give its spec "
        "with --board (a board.json beside the photos is used by itself)"
        if spec is not None and abs(scale - 1) > 0.1
        else ""
    )
    return (
        f"the board was printed at {scale * 100:.1f} % of its size ({evidence}): reprint it at 100 % "
        f"('actual size', no 'fit to page'), or pass --use-measured-size with the measured size{other}"
    )


@dataclass
class PageCheck:
    scale: float | None  # board scale from the page edges; None when the page edges were not found
    reason: str
    spec: BoardSpec | None = None

    def raise_if_wrong(self) -> None:
        if self.scale is not None and abs(self.scale - 1) > SCALE_TOLERANCE:
            raise CalibrationError(
                _scale_message(self.scale, "judged from the edges of the paper around it", self.spec)
            )


def _papers(spec: BoardSpec) -> list[tuple[str, tuple[float, float]]]:
    """Paper sizes the sheet may be: the spec's own, or every known one, upright or turned."""
    if spec.paper_mm is not None:
        return [(spec.paper_name, (float(spec.paper_mm[0]), float(spec.paper_mm[1])))]
    return [
        (f"{name}{' landscape' if turned else ''}", (mm[1], mm[0]) if turned else mm)
        for name, mm in PAPERS_MM.items()
        for turned in (False, True)
    ]


def check_page_scale(
    image: np.ndarray,
    spec: BoardSpec,
    board_to_image: np.ndarray,
    camera_matrix: np.ndarray | None = None,
    distortion: np.ndarray | None = None,
    px_per_mm: float = 2.0,
) -> PageCheck:
    """Judge the print scale from the paper around the board: paper keeps its size (A4, Letter)
    when a printer shrinks the picture, so the page measured in board units reveals the scale - and
    so does a spec for the wrong board (squares of another size). Needs the whole page in view on a
    table darker than paper; otherwise it says so and gives no scale."""
    papers = _papers(spec)
    bw, bh = spec.size_mm
    # Region in board units wide enough for any of the papers printed between 80 % and 120 %, with
    # room for a spec that makes the board look bigger than it is (25 mm assumed, 38 mm printed).
    longest = max(max(mm) for _, mm in papers)
    mx_, my_ = (max(longest - bw, 40.0) * 1.3 + 10, max(longest - bh, 40.0) * 1.3 + 10)
    x0, x1, y0, y1 = -mx_, bw + mx_, -my_, bh + my_
    nx, ny = int((x1 - x0) * px_per_mm), int((y1 - y0) * px_per_mm)
    gx, gy = np.meshgrid(x0 + (np.arange(nx) + 0.5) / px_per_mm, y0 + (np.arange(ny) + 0.5) / px_per_mm)
    ideal = apply_homography(board_to_image, np.column_stack([gx.ravel(), gy.ravel()]))
    px = ideal if camera_matrix is None else distort_pixels(ideal, camera_matrix, distortion)
    mx = px[:, 0].reshape(ny, nx).astype(np.float32)
    my = px[:, 1].reshape(ny, nx).astype(np.float32)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    h, w = gray.shape
    inside = (mx >= 0) & (mx <= w - 1) & (my >= 0) & (my <= h - 1)
    rect = cv2.remap(gray, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    _, bright = cv2.threshold(rect, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    k = int(12 * px_per_mm) | 1  # fills the board's black squares, the ruler and the text
    paper = cv2.morphologyEx(bright, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    _, labels = cv2.connectedComponents((paper > 0).astype(np.uint8))
    # Paper 3 mm left of the board's first row of squares (every layout leaves a wider margin).
    label = labels[int((min(bh / 2, spec.square_mm) - y0) * px_per_mm), int((-3 - x0) * px_per_mm)]
    if label == 0:
        return PageCheck(None, "the paper around the board was not found", spec)
    mask = labels == label
    ring = cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    if np.any(ring & ~inside) or mask[0].any() or mask[-1].any() or mask[:, 0].any() or mask[:, -1].any():
        return PageCheck(
            None, "the whole sheet of paper is not in view, or the table is as bright as paper", spec
        )
    rows = mask[int((0 - y0) * px_per_mm) : int((bh - y0) * px_per_mm)]
    cols = mask[:, int((0 - x0) * px_per_mm) : int((bw - x0) * px_per_mm)]
    width = np.median([r.nonzero()[0][[0, -1]] @ [-1, 1] + 1 for r in rows if r.any()]) / px_per_mm
    height = np.median([c.nonzero()[0][[0, -1]] @ [-1, 1] + 1 for c in cols.T if c.any()]) / px_per_mm
    measured = f"the sheet measures {width:.1f} x {height:.1f} board-mm"
    fits = []
    for name, (pw, ph) in papers:
        sx, sy = pw / width, ph / height
        if abs(sx - sy) <= 0.015:  # only the right paper gives the same scale across and down
            fits.append(PageCheck(float((sx + sy) / 2), f"{name} paper: {measured}", spec))
    if len(fits) == 1:
        return fits[0]
    if fits:
        return PageCheck(None, f"the paper size is ambiguous ({measured})", spec)
    names = " or ".join(name for name, _ in papers)
    return PageCheck(None, f"the paper's edges are unclear or it is not {names} ({measured})", spec)
