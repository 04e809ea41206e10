"""The synthetic camera: a pinhole with OpenCV's lens distortion, posed above the table.

World frame = the table frame of docs/rules-masterplan.md in millimetres: origin at the left end of the
contestant edge, +x to the right along that edge, +y away from the players, +z up off the table.
Pixel coordinates follow OpenCV: the centre of pixel (col, row) is at (u, v) = (col, row).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np

RESOLUTIONS = {"720p": (1280, 720), "1080p": (1920, 1080)}
MAX_TILT_DEG = 35.0


@dataclass(frozen=True)
class CameraPose:
    """Where the camera is and where it looks.

    The camera looks at `target_mm` on the table from `height_mm` above it. `tilt_deg` is the
    angle between the optical axis and straight down (0 = looking straight down); `yaw_deg`
    turns the viewing direction about the vertical (0 = looking toward +y, so the image's up is
    the far side of the table and its right is +x); `roll_deg` turns the camera about its axis.
    """

    height_mm: float = 900.0
    tilt_deg: float = 25.0
    yaw_deg: float = 0.0
    target_mm: tuple[float, float] = (600.0, 380.0)
    roll_deg: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.tilt_deg <= MAX_TILT_DEG:
            raise ValueError(f"camera tilt must be 0..{MAX_TILT_DEG} degrees, got {self.tilt_deg}")
        if self.height_mm <= 0:
            raise ValueError(f"camera height must be above the table (> 0 mm), got {self.height_mm}")

    def rotation(self) -> np.ndarray:
        """World -> camera rotation (rows: camera x right, y down, z forward, in world axes)."""
        t, y, r = (math.radians(a) for a in (self.tilt_deg, self.yaw_deg, self.roll_deg))
        # Viewing direction in the table plane for this yaw: +y turned clockwise (seen from above).
        d = np.array([math.sin(y), math.cos(y), 0.0])
        right = np.array([math.cos(y), -math.sin(y), 0.0])
        forward = d * math.sin(t) + np.array([0.0, 0.0, -math.cos(t)])
        down = np.cross(forward, right)
        rot = np.stack([right, down, forward])
        roll = np.array([[math.cos(r), -math.sin(r), 0], [math.sin(r), math.cos(r), 0], [0, 0, 1]])
        return roll @ rot

    def position_mm(self) -> np.ndarray:
        t, y = math.radians(self.tilt_deg), math.radians(self.yaw_deg)
        back = self.height_mm * math.tan(t)
        d = np.array([math.sin(y), math.cos(y)])
        xy = np.asarray(self.target_mm, dtype=float) - back * d
        return np.array([xy[0], xy[1], self.height_mm])


@dataclass(frozen=True)
class Camera:
    """Intrinsics (pixels), distortion (OpenCV k1, k2, p1, p2, k3) and pose."""

    width: int = 1280
    height: int = 720
    fx: float = 1100.0
    fy: float = 1100.0
    cx: float | None = None
    cy: float | None = None
    distortion: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
    pose: CameraPose = field(default_factory=CameraPose)

    def __post_init__(self) -> None:
        if self.width <= 0 or self.height <= 0:
            raise ValueError("image width and height must be positive")
        if self.cx is None:
            object.__setattr__(self, "cx", (self.width - 1) / 2)
        if self.cy is None:
            object.__setattr__(self, "cy", (self.height - 1) / 2)
        object.__setattr__(self, "distortion", tuple(float(k) for k in self.distortion))
        if len(self.distortion) != 5:
            raise ValueError("distortion must be the 5 OpenCV coefficients k1, k2, p1, p2, k3")

    @classmethod
    def for_resolution(cls, name: str, hfov_deg: float = 62.0, **kw: object) -> Camera:
        """A camera of a named resolution ("720p", "1080p") with the given horizontal field of view."""
        w, h = RESOLUTIONS[name]
        f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
        return cls(width=w, height=h, fx=f, fy=f, **kw)  # type: ignore[arg-type]

    # ---- matrices -----------------------------------------------------------------------------
    @cached_property
    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], dtype=float)

    @cached_property
    def dist_coeffs(self) -> np.ndarray:
        return np.array(self.distortion, dtype=float)

    @cached_property
    def rotation(self) -> np.ndarray:
        return self.pose.rotation()

    @cached_property
    def rvec(self) -> np.ndarray:
        return cv2.Rodrigues(self.rotation)[0].ravel()

    @cached_property
    def tvec(self) -> np.ndarray:
        return -self.rotation @ self.pose.position_mm()

    @cached_property
    def table_to_image(self) -> np.ndarray:
        """Homography from table mm (z = 0) to pixels of the undistorted image."""
        r = self.rotation
        h = self.matrix @ np.column_stack([r[:, 0], r[:, 1], self.tvec])
        return h / h[2, 2]

    @cached_property
    def image_to_table(self) -> np.ndarray:
        """Homography from pixels of the undistorted image to table mm."""
        h = np.linalg.inv(self.table_to_image)
        return h / h[2, 2]

    # ---- projecting ---------------------------------------------------------------------------
    def to_camera(self, points_mm: np.ndarray) -> np.ndarray:
        """World points (N x 2 on the table or N x 3) in the camera frame (N x 3, z = depth)."""
        p = _as_xyz(points_mm)
        return p @ self.rotation.T + self.tvec

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Pixels (N x 2, distorted as the camera sees them) of world points (N x 2 or N x 3)."""
        p = _as_xyz(points_mm)
        if len(p) == 0:
            return np.zeros((0, 2))
        px, _ = cv2.projectPoints(p.reshape(-1, 1, 3), self.rvec, self.tvec, self.matrix, self.dist_coeffs)
        return px.reshape(-1, 2)

    def undistort_pixels(self, px: np.ndarray, iterations: int = 30) -> np.ndarray:
        """Normalised undistorted coordinates (N x 2) of distorted pixels: the inverse of the lens
        model by fixed-point iteration (OpenCV's method), precise to ~1e-9 for usual lenses."""
        k1, k2, p1, p2, k3 = self.distortion
        xd = (px[:, 0] - self.cx) / self.fx
        yd = (px[:, 1] - self.cy) / self.fy
        x, y = xd.copy(), yd.copy()
        if not any(self.distortion):
            return np.column_stack([x, y])
        for _ in range(iterations):
            r2 = x * x + y * y
            radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
            dx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            dy = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
            x = (xd - dx) / radial
            y = (yd - dy) / radial
        return np.column_stack([x, y])

    def pixels_to_table(self, px: np.ndarray) -> np.ndarray:
        """Table mm (N x 2) where the rays through distorted pixels meet the table."""
        n = self.undistort_pixels(np.asarray(px, dtype=float).reshape(-1, 2))
        und = n * [self.fx, self.fy] + [self.cx, self.cy]
        return cv2.perspectiveTransform(und.reshape(-1, 1, 2), self.image_to_table).reshape(-1, 2)

    def table_footprint_mm(self, step: int = 40) -> np.ndarray:
        """Table points seen along the image border (closed polygon, mm)."""
        w, h = self.width - 1, self.height - 1
        us = np.linspace(0, w, step)
        vs = np.linspace(0, h, step)
        border = np.concatenate(
            [
                np.column_stack([us, np.zeros_like(us)]),
                np.column_stack([np.full_like(vs, w), vs]),
                np.column_stack([us[::-1], np.full_like(us, h)]),
                np.column_stack([np.zeros_like(vs), vs[::-1]]),
            ]
        )
        return self.pixels_to_table(border)

    def key(self) -> tuple:
        p = self.pose
        return (
            self.width,
            self.height,
            self.fx,
            self.fy,
            self.cx,
            self.cy,
            self.distortion,
            p.height_mm,
            p.tilt_deg,
            p.yaw_deg,
            tuple(p.target_mm),
            p.roll_deg,
        )

    def to_json(self) -> dict:
        p = self.pose
        return {
            "width": self.width,
            "height": self.height,
            "matrix": self.matrix.tolist(),
            "distortion": list(self.distortion),
            "rvec": self.rvec.tolist(),
            "tvec_mm": self.tvec.tolist(),
            "position_mm": p.position_mm().tolist(),
            "pose": {
                "height_mm": p.height_mm,
                "tilt_deg": p.tilt_deg,
                "yaw_deg": p.yaw_deg,
                "roll_deg": p.roll_deg,
                "target_mm": list(p.target_mm),
            },
            "homography_table_to_image": self.table_to_image.tolist(),
            "homography_image_to_table": self.image_to_table.tolist(),
        }

    @classmethod
    def from_json(cls, d: dict) -> Camera:
        m = d["matrix"]
        p = d["pose"]
        pose = CameraPose(
            height_mm=p["height_mm"],
            tilt_deg=p["tilt_deg"],
            yaw_deg=p["yaw_deg"],
            roll_deg=p.get("roll_deg", 0.0),
            target_mm=tuple(p["target_mm"]),  # type: ignore[arg-type]
        )
        return cls(d["width"], d["height"], m[0][0], m[1][1], m[0][2], m[1][2], tuple(d["distortion"]), pose)  # type: ignore[arg-type]


def _as_xyz(points_mm: np.ndarray) -> np.ndarray:
    p = np.asarray(points_mm, dtype=float).reshape(len(points_mm), -1) if len(points_mm) else np.zeros((0, 3))
    if p.shape[1] == 2:
        p = np.column_stack([p, np.zeros(len(p))])
    return p
