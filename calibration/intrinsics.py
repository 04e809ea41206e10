"""Camera intrinsics from several views of the ChArUco board: matrix, distortion, per-view
errors, outlier views dropped, and which parts of the image still lack corners."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.board import BoardView
from calibration.covariance import lens_covariance
from calibration.errors import CalibrationError

MIN_VIEWS = 4
MIN_VIEW_CORNERS = 8
COVERAGE_GRID = (4, 3)  # columns x rows of image regions
COVERAGE_MIN_CORNERS = 4  # a region with fewer corners over all views is "still lacking"
SHARE_GRID = (8, 6)  # finer cells for the share of the image the views cover
# A lens set is "good" only with enough views spread over enough of the image. Measured with
# `python -m bench.calibration --coverage` (1280x720, k1 = -0.12, seeds 1-3; true table error over
# the whole view, through the lens and one table view of the board), RMS / max mm:
#   spread views  4 (share 62-71 %, a corner lacking)  0.36-0.48 / 1.37-2.08
#                 5-6 (share 79-92 %)                  0.38-0.52 / 1.46-2.12
#                 8-10 (share 92-98 %)                 0.23-0.43 / 0.75-1.52
#                 15 (share 98-100 %)                  0.16-0.34 / 0.51-1.35
#   middle only   4-15 (share 33-52 %, no corner)      0.32-5.12 / 0.96-37.5
# From 8 views over >= 90 % of the cells the lens is as good as with 15 (what is left is the table
# step's, issue 25.1); fewer views or corners left out cost up to 1.5x, and up to 37 mm at an edge.
GOOD_SHARE = 0.9
GOOD_VIEWS = 8
GOOD_RMS_PX = 0.5  # above it, the views themselves are blurred or misdetected


@dataclass(frozen=True)
class LensGrade:
    good: bool
    coverage: str  # "views cover 38 % of the image; the corners are not covered"
    todo: str  # what to do for a good set; "" when good


@dataclass
class IntrinsicsResult:
    camera_matrix: np.ndarray
    distortion: np.ndarray
    rms_px: float  # over the views kept
    per_view_rms_px: list[float | None]  # one per input view; None when not used (too few corners)
    used: list[int]  # indices of the views kept
    dropped: dict[int, str] = field(default_factory=dict)  # index -> why
    coverage: np.ndarray = field(
        default_factory=lambda: np.zeros((0, 0), int)
    )  # corners per region (rows x cols)
    image_size: tuple[int, int] = (0, 0)
    share: float = 0.0  # share of SHARE_GRID's image cells with a board corner in them
    # Covariance of the lens parameters named in `covariance_params` (calibration.covariance),
    # and OpenCV's own standard deviations of fx, fy, cx, cy, k1..k3 as a cross-check.
    covariance: np.ndarray | None = None
    covariance_params: tuple[str, ...] = ()
    std_opencv: list[float] = field(default_factory=list)

    def corners_lacking(self) -> list[str]:
        """The image's corner regions ("top left", ...) with too few board corners."""
        rows, cols = self.coverage.shape
        return [
            region_name(r, c, rows, cols)
            for r, c in ((0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1))
            if self.coverage[r, c] < COVERAGE_MIN_CORNERS
        ]

    def lacking_regions(self) -> list[str]:
        """Names of the image regions with too few corners, e.g. "top left"."""
        rows, cols = self.coverage.shape
        out = []
        for r in range(rows):
            for c in range(cols):
                if self.coverage[r, c] < COVERAGE_MIN_CORNERS:
                    out.append(region_name(r, c, rows, cols))
        return out

    def coverage_map(self) -> list[str]:
        """A small text picture: '#' regions with corners, '.' regions still lacking."""
        return ["".join("#" if n >= COVERAGE_MIN_CORNERS else "." for n in row) for row in self.coverage]

    def grade(self) -> LensGrade:
        """Good only with enough views spread over enough of the image: the fit's own pixel error
        stays small with a few views in the middle while the image's edges are off by mm."""
        lacking = self.corners_lacking()
        says = f"views cover {self.share * 100:.0f} % of the image"
        if lacking:
            says += (
                "; the corners are not covered"
                if len(lacking) == 4
                else f"; not covered: {', '.join(lacking)}"
            )
        todo = []
        if lacking:
            todo.append(
                "add views with the board near "
                + ("each corner" if len(lacking) == 4 else "the " + " and ".join(lacking))
            )
        elif self.share < GOOD_SHARE:
            todo.append("add views with the board in the parts of the picture marked '.'")
        if len(self.used) < GOOD_VIEWS:
            todo.append(f"take at least {GOOD_VIEWS} views ({len(self.used)} kept)")
        if self.rms_px >= GOOD_RMS_PX:
            todo.append("use sharper, steadier photos")
        return LensGrade(not todo, says, "; ".join(todo))

    def to_step(self) -> dict:
        grade = self.grade()
        return {
            "coverage_share": self.share,
            "corners_lacking": self.corners_lacking(),
            "views_good": grade.good,
            "views_todo": grade.todo,
            "rms_px": self.rms_px,
            "per_view_rms_px": self.per_view_rms_px,
            "views_used": len(self.used),
            "views_dropped": {str(k): v for k, v in self.dropped.items()},
            "regions_lacking": self.lacking_regions(),
            "covariance_params": list(self.covariance_params),
            "covariance": None if self.covariance is None else self.covariance.tolist(),
            "std_opencv": self.std_opencv,
            "error_source": "lens parameter covariance from the views' Jacobian and residuals",
        }


def region_name(r: int, c: int, rows: int, cols: int) -> str:
    v = "top" if r == 0 else "bottom" if r == rows - 1 else "middle"
    h = (
        "left"
        if c == 0
        else "right"
        if c == cols - 1
        else ("centre-left" if c < cols / 2 else "centre-right")
    )
    return f"{v} {h}"


def coverage(
    views: list[BoardView], image_size: tuple[int, int], grid: tuple[int, int] = COVERAGE_GRID
) -> np.ndarray:
    """Corners seen per image region (rows x cols) over all views."""
    cols, rows = grid
    w, h = image_size
    counts = np.zeros((rows, cols), int)
    for v in views:
        c = np.clip((v.corners_px[:, 0] / w * cols).astype(int), 0, cols - 1)
        r = np.clip((v.corners_px[:, 1] / h * rows).astype(int), 0, rows - 1)
        np.add.at(counts, (r, c), 1)
    return counts


def coverage_share(views: list[BoardView], image_size: tuple[int, int]) -> float:
    """Share (0..1) of the image's SHARE_GRID cells that board corners fell in, over all views."""
    return float(np.mean(coverage(views, image_size, SHARE_GRID) > 0))


def calibrate_intrinsics(
    views: list[BoardView],
    outlier_factor: float = 3.0,
    outlier_floor_px: float = 1.0,
    fix_k3: bool = True,
) -> IntrinsicsResult:
    """Calibrate from board views. A view whose reprojection error exceeds `outlier_factor` times the
    median (and `outlier_floor_px`) is dropped - a blurred or misdetected frame - and the rest refit.
    k3 stays 0 by default: a webcam's few views cannot pin it down and it then ruins the image corners."""
    if not views:
        raise CalibrationError("no views of the board to calibrate from")
    size = views[0].image_size
    for v in views:
        if v.image_size != size:
            raise CalibrationError(
                f"the photos differ in size ({size[0]}x{size[1]} and {v.image_size[0]}x{v.image_size[1]}): "
                "use photos from one camera at one resolution"
            )
    dropped: dict[int, str] = {}
    used = []
    for i, v in enumerate(views):
        if len(v) < MIN_VIEW_CORNERS:
            dropped[i] = f"only {len(v)} corners"
        else:
            used.append(i)
    flags = cv2.CALIB_FIX_K3 if fix_k3 else 0
    per_view: list[float | None] = [None] * len(views)
    for _ in range(3):
        if len(used) < MIN_VIEWS:
            raise CalibrationError(
                f"{len(used)} usable views of the board; at least {MIN_VIEWS} are needed "
                "(show the whole board from different angles and in different parts of the image)"
            )
        obj = [
            np.column_stack([views[i].corners_mm, np.zeros(len(views[i]))]).astype(np.float32) for i in used
        ]
        img = [views[i].corners_px.astype(np.float32).reshape(-1, 1, 2) for i in used]
        criteria = (cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 100, 1e-10)
        rms, k, d, rvecs, tvecs, std_in, _se, errs = _one_thread(
            cv2.calibrateCameraExtended, obj, img, size, None, None, flags=flags, criteria=criteria
        )
        errs = np.asarray(errs, dtype=float).ravel()
        limit = max(outlier_factor * float(np.median(errs)), outlier_floor_px)
        bad = [i for i, e in zip(used, errs) if e > limit]
        for i, e in zip(used, errs):
            per_view[i] = float(e)
        if not bad or len(used) - len(bad) < MIN_VIEWS:
            break
        for i in bad:
            dropped[i] = f"reprojection {per_view[i]:.2f} px (limit {limit:.2f} px)"
            per_view[i] = None
        used = [i for i in used if i not in bad]
    fx = float(k[0, 0])
    if not (0.1 * size[0] < fx < 20 * size[0]) or not np.all(np.isfinite(d)):
        raise CalibrationError(
            "the lens calibration did not converge: take more views, tilted in different directions"
        )
    cov, names = lens_covariance(obj, img, k, d, rvecs, tvecs, fix_k3)
    return IntrinsicsResult(
        camera_matrix=np.asarray(k, dtype=float),
        distortion=np.asarray(d, dtype=float).ravel()[:5],
        rms_px=float(rms),
        per_view_rms_px=per_view,
        used=used,
        dropped=dropped,
        coverage=coverage([views[i] for i in used], size),
        image_size=size,
        share=coverage_share([views[i] for i in used], size),
        covariance=cov,
        covariance_params=names,
        std_opencv=[float(x) for x in np.ravel(std_in)[:9]],
    )


def _one_thread(solve: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """`solve` run on one OpenCV thread: the solver's parallel sums add up in another order on
    every run, and a lens that differs in the 10th digit can flip a borderline vision case, so
    the same photos would not always give the same game. Calibrating is rare; speed does not
    matter here."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        return solve(*args, **kwargs)
    finally:
        cv2.setNumThreads(threads)
