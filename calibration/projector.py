"""Projector: a full-screen ArUco pattern, the table-mm -> projector-px homography from a camera
photo of it on the table, and a check that projected crosses land where they should.

Markers, not a ChArUco board: each marker stands alone, so a marker whose light falls on a card
(darker art, a raised edge) is simply lost or rejected by RANSAC while the rest still fit; a
ChArUco corner needs its neighbouring markers too. The pattern uses another dictionary than the
board so that a board left on the table is never mistaken for it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import cv2
import numpy as np

from calibration.errors import CalibrationError
from calibration.file import Calibration
from calibration.lens import apply_homography

PATTERN_DICTIONARY = "DICT_6X6_250"
MIN_MARKERS = 4
RANSAC_PX = 4.0


@dataclass(frozen=True)
class ProjectorPattern:
    """A grid of ArUco markers filling a projector's screen; saved as JSON beside the image."""

    size: tuple[int, int]  # projector width, height in pixels
    marker_px: int
    pitch_px: int
    origin_px: tuple[int, int]  # top-left corner of marker 0
    grid: tuple[int, int]  # columns, rows
    dictionary: str = PATTERN_DICTIONARY

    @classmethod
    def for_size(cls, width: int, height: int) -> ProjectorPattern:
        if not (320 <= width <= 16384 and 240 <= height <= 16384):
            raise CalibrationError(
                f"projector size {width}x{height} is not a projector resolution (e.g. 1920x1080)"
            )
        marker = max(40, min(width, height) // 8)
        pitch = int(marker * 1.4)  # white gap of 0.4 marker: the quiet zone every marker needs
        cols = min((width - marker // 2) // pitch, 25)
        rows = min((height - marker // 2) // pitch, 10)
        span_x, span_y = (cols - 1) * pitch + marker, (rows - 1) * pitch + marker
        return cls(
            (width, height), marker, pitch, ((width - span_x) // 2, (height - span_y) // 2), (cols, rows)
        )

    def marker_corners_px(self) -> dict[int, np.ndarray]:
        """Projector pixels of each marker's 4 corners (ArUco order: clockwise from top-left).
        Corners are pixel edges, so marker pixels [x, x + m) span x - 0.5 .. x + m - 0.5 in centre coordinates."""
        out = {}
        m = self.marker_px
        for r in range(self.grid[1]):
            for c in range(self.grid[0]):
                x = self.origin_px[0] + c * self.pitch_px - 0.5
                y = self.origin_px[1] + r * self.pitch_px - 0.5
                out[r * self.grid[0] + c] = np.array([[x, y], [x + m, y], [x + m, y + m], [x, y + m]], float)
        return out

    def image(self) -> np.ndarray:
        """The full-screen pattern (8-bit grey): black markers on white."""
        w, h = self.size
        img = np.full((h, w), 255, np.uint8)
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        for i, corners in self.marker_corners_px().items():
            x, y = (int(v + 0.5) for v in corners[0])
            img[y : y + self.marker_px, x : x + self.marker_px] = cv2.aruco.generateImageMarker(
                d, i, self.marker_px, borderBits=1
            )
        return img

    def to_json(self) -> dict:
        return {
            "kind": "projector-pattern",
            **{k: list(v) if isinstance(v, tuple) else v for k, v in asdict(self).items()},
        }

    @classmethod
    def from_json(cls, d: object) -> ProjectorPattern:
        if not isinstance(d, dict) or d.get("kind") != "projector-pattern":
            raise CalibrationError(
                "not a projector pattern spec (expected the JSON 'calibrate projector-pattern' wrote)"
            )
        try:
            return cls(
                tuple(d["size"]),
                int(d["marker_px"]),
                int(d["pitch_px"]),
                tuple(d["origin_px"]),
                tuple(d["grid"]),
                str(d["dictionary"]),
            )  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError):
            raise CalibrationError("the projector pattern spec is missing a field: write it again") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> ProjectorPattern:
        try:
            return cls.from_json(json.loads(Path(path).read_text()))
        except FileNotFoundError:
            raise CalibrationError(f"projector pattern spec {path} not found") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"projector pattern spec {path} is not readable JSON ({exc})") from None


@dataclass
class ProjectorFit:
    table_to_projector: np.ndarray
    rms_px: float  # over the inlier corners, projector pixels
    corners: int  # inlier corners used
    markers: int  # markers decoded
    rejected: int  # corners RANSAC threw out (e.g. on a card's edge)

    def to_step(self) -> dict:
        return {
            "rms_px": self.rms_px,
            "corners": self.corners,
            "markers": self.markers,
            "rejected": self.rejected,
        }


def detect_markers(image: np.ndarray, dictionary: str) -> tuple[list[np.ndarray], np.ndarray]:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)), params
    )
    corners, ids, _ = detector.detectMarkers(gray)
    if ids is None:
        return [], np.zeros(0, int)
    return [c.reshape(4, 2).astype(float) for c in corners], ids.ravel().astype(int)


def fit_projector(image: np.ndarray, pattern: ProjectorPattern, cal: Calibration) -> ProjectorFit:
    """Solve table mm -> projector px from a camera photo of the projected pattern."""
    cal.check_image_size((image.shape[1], image.shape[0]))
    corners, ids = detect_markers(image, pattern.dictionary)
    known = pattern.marker_corners_px()
    pairs = [(c, known[i]) for c, i in zip(corners, ids) if i in known]
    if len(pairs) < MIN_MARKERS:
        raise CalibrationError(
            f"only {len(pairs)} projected markers seen ({MIN_MARKERS} needed): show the pattern full screen on the "
            "projector, darken the room a little, and make sure the camera sees the projected area"
        )
    cam_px = np.concatenate([c for c, _ in pairs])
    proj_px = np.concatenate([p for _, p in pairs])
    table_mm = cal.pixels_to_table_mm(cam_px)
    h, mask = cv2.findHomography(table_mm, proj_px, cv2.RANSAC, RANSAC_PX, maxIters=5000, confidence=0.999)
    if h is None:
        raise CalibrationError(
            "the projected markers do not fit one plane: is the projector image keystoned by a mirror?"
        )
    inl = mask.ravel().astype(bool)
    h, _ = cv2.findHomography(table_mm[inl], proj_px[inl], 0)  # least squares on the inliers
    h = h / h[2, 2]
    err = np.linalg.norm(apply_homography(h, table_mm[inl]) - proj_px[inl], axis=1)
    return ProjectorFit(h, float(np.sqrt(np.mean(err**2))), int(inl.sum()), len(pairs), int((~inl).sum()))


# ---- checking with crosses -------------------------------------------------------------------
CROSS_ARM_PX = 30
CROSS_THICKNESS_PX = 5


def default_cross_points(cal: Calibration, cols: int = 5, rows: int = 3) -> np.ndarray:
    """Table points (mm) spread over the part of the table both the camera and the projector reach."""
    w, h = cal.projector_size  # type: ignore[misc]
    proj = cal.projector_px_to_table_mm(np.array([[0, 0], [w, 0], [w, h], [0, h]], float))
    ext = cal.table_extent_mm or {}
    lo = np.max([proj.min(axis=0), ext.get("min", proj.min(axis=0))], axis=0)
    hi = np.min([proj.max(axis=0), ext.get("max", proj.max(axis=0))], axis=0)
    if np.any(hi <= lo):
        raise CalibrationError(
            "the camera does not see the projected area: aim both at the same part of the table"
        )
    inset = (hi - lo) * 0.15
    lo, hi = lo + inset, hi - inset
    xs, ys = np.linspace(lo[0], hi[0], cols), np.linspace(lo[1], hi[1], rows)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()]).round(1)


def crosses_image(cal: Calibration, points_mm: np.ndarray) -> np.ndarray:
    """Projector image (8-bit grey): white crosses on black at the given table points."""
    w, h = cal.projector_size  # type: ignore[misc]
    img = np.zeros((h, w), np.uint8)
    shift = 4  # sub-pixel drawing: a cross is centred on the exact projector pixel
    for x, y in cal.table_mm_to_projector_px(points_mm):
        c = (int(round(x * 2**shift)), int(round(y * 2**shift)))
        a = CROSS_ARM_PX * 2**shift
        cv2.line(img, (c[0] - a, c[1]), (c[0] + a, c[1]), 255, CROSS_THICKNESS_PX, cv2.LINE_AA, shift)
        cv2.line(img, (c[0], c[1] - a), (c[0], c[1] + a), 255, CROSS_THICKNESS_PX, cv2.LINE_AA, shift)
    return img


@dataclass
class CrossCheck:
    points_mm: np.ndarray  # where the crosses were meant to land
    found_mm: np.ndarray  # where the camera saw them (NaN when not found)
    errors_mm: np.ndarray

    @property
    def found(self) -> int:
        return int(np.isfinite(self.errors_mm).sum())

    @property
    def rms_mm(self) -> float:
        e = self.errors_mm[np.isfinite(self.errors_mm)]
        return float(np.sqrt(np.mean(e**2))) if len(e) else float("nan")

    @property
    def max_mm(self) -> float:
        e = self.errors_mm[np.isfinite(self.errors_mm)]
        return float(e.max()) if len(e) else float("nan")


def measure_crosses(
    image: np.ndarray, cal: Calibration, points_mm: np.ndarray, dark: np.ndarray | None = None
) -> CrossCheck:
    """Where the projected crosses landed on the table (mm), from a camera photo of `crosses_image`.
    `dark` (a photo with the projector showing black) removes table texture and card art."""
    cal.check_image_size((image.shape[1], image.shape[0]))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    base = None
    if dark is not None:
        if dark.shape[:2] != image.shape[:2]:
            raise CalibrationError(
                "the dark photo and the crosses photo differ in size: take both with the same camera"
            )
        base = cv2.cvtColor(dark, cv2.COLOR_BGR2GRAY) if dark.ndim == 3 else dark
    points_mm = np.asarray(points_mm, float).reshape(-1, 2)
    expected = cal.table_mm_to_pixels(points_mm)
    # Cross size in camera pixels: the arm's table length over the local mm per pixel.
    proj = cal.table_mm_to_projector_px(points_mm)
    arm_mm = np.linalg.norm(cal.projector_px_to_table_mm(proj + [CROSS_ARM_PX, 0]) - points_mm, axis=1)
    bar_mm = np.linalg.norm(cal.projector_px_to_table_mm(proj + [CROSS_THICKNESS_PX, 0]) - points_mm, axis=1)
    mmpp = cal.mm_per_pixel_at(expected)
    found = np.full_like(points_mm, np.nan)
    hgt, wid = gray.shape
    for k, (u, v) in enumerate(expected):
        arm, bar = arm_mm[k] / mmpp[k], bar_mm[k] / mmpp[k]
        r = int(arm * 1.8 + 12)
        x0, y0, x1, y1 = int(u) - r, int(v) - r, int(u) + r + 1, int(v) + r + 1
        if x0 < 0 or y0 < 0 or x1 > wid or y1 > hgt:
            continue
        win = gray[y0:y1, x0:x1]
        # What the table looks like without the cross: the dark photo, or a grey opening wider than
        # the cross's bars (it removes thin bright lines and keeps the rest). Dividing by it cancels the albedo (cards' art, wood grain), so a cross
        # half on a white card and half on the table is still seen whole and centred.
        if base is not None:
            back = base[y0:y1, x0:x1].astype(np.float32)
        else:
            size = max(7, int(bar * 4) | 1)
            back = cv2.morphologyEx(win, cv2.MORPH_OPEN, np.ones((size, size), np.uint8)).astype(np.float32)
        light = (win.astype(np.float32) - back) / np.maximum(back, 8.0)
        top = float(np.percentile(light, 99.5))
        if top < 0.15:
            continue
        mask = (light > 0.5 * top).astype(np.uint8)
        n, labels, stats, _ = cv2.connectedComponentsWithStats(mask)
        # Every sizeable bright piece: a bar crossing a card edge may come apart, evenly about the centre.
        keep = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 4]
        if not keep:
            continue
        ys, xs = np.nonzero(np.isin(labels, keep))
        found[k] = [x0 + xs.mean(), y0 + ys.mean()]
    ok = np.isfinite(found[:, 0])
    found_mm = np.full_like(points_mm, np.nan)
    if ok.any():
        found_mm[ok] = cal.pixels_to_table_mm(found[ok])
    if not ok.any():
        raise CalibrationError(
            "no projected cross was seen: show the crosses image full screen and take the photo again"
        )
    return CrossCheck(points_mm, found_mm, np.linalg.norm(found_mm - points_mm, axis=1))
