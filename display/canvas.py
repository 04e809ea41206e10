"""Table millimetres fitted into a rectangle of a picture: +x right, +y (toward the Trophy) up."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from display.shapes import as_points

SHIFT = 4  # OpenCV sub-pixel drawing: coordinates carry 4 fractional bits
ROUND_MM = 50.0  # the fitted area snaps to this grid so it does not jitter as cards come and go


@dataclass(frozen=True)
class TableFit:
    x0_mm: float
    y1_mm: float  # the top of the picture shows this y
    scale: float  # pixels per mm
    left_px: float
    top_px: float

    @classmethod
    def around(
        cls, polygons: list[np.ndarray], rect: tuple[int, int, int, int], margin_mm: float = 40.0
    ) -> TableFit:
        """Fit every polygon (mm) into rect = (x, y, w, h) pixels, centred, same scale on both axes."""
        pts = np.vstack(polygons) if polygons else np.zeros((1, 2))
        lo = np.floor((pts.min(axis=0) - margin_mm) / ROUND_MM) * ROUND_MM
        hi = np.ceil((pts.max(axis=0) + margin_mm) / ROUND_MM) * ROUND_MM
        span = np.maximum(hi - lo, 1.0)
        x, y, w, h = rect
        scale = min(w / span[0], h / span[1])
        left = x + (w - span[0] * scale) / 2
        top = y + (h - span[1] * scale) / 2
        return cls(float(lo[0]), float(hi[1]), float(scale), float(left), float(top))

    def px(self, points_mm: object) -> np.ndarray:
        """Picture pixels (float, N x 2) of table points."""
        p = as_points(points_mm)
        return np.column_stack(
            [
                self.left_px + (p[:, 0] - self.x0_mm) * self.scale,
                self.top_px + (self.y1_mm - p[:, 1]) * self.scale,
            ]
        )

    def ipx(self, points_mm: object) -> np.ndarray:
        """Pixels in OpenCV's fixed point (for drawing with `shift=SHIFT`)."""
        return np.round(self.px(points_mm) * (1 << SHIFT)).astype(np.int32)

    def point(self, point_mm: object) -> tuple[int, int]:
        x, y = self.px(point_mm)[0]
        return int(round(x)), int(round(y))

    def visible_mm(self, width_px: int, height_px: int) -> tuple[float, float, float, float]:
        """x0, y0, x1, y1 of the table shown in a picture of this size (for grid lines)."""
        x1 = self.x0_mm + (width_px - self.left_px) / self.scale
        y0 = self.y1_mm - (height_px - self.top_px) / self.scale
        return self.x0_mm - self.left_px / self.scale, y0, x1, self.y1_mm + self.top_px / self.scale


def fill(img: np.ndarray, fit: TableFit, polygon_mm: object, colour: tuple[int, int, int]) -> None:
    cv2.fillPoly(img, [fit.ipx(polygon_mm)], colour, cv2.LINE_AA, SHIFT)


def tint(
    img: np.ndarray, fit: TableFit, polygon_mm: object, colour: tuple[int, int, int], alpha: float
) -> None:
    """Blend `colour` into the polygon's area (only its bounding box is touched: fast)."""
    pts = fit.ipx(polygon_mm)
    lo = np.maximum((pts.min(axis=0) >> SHIFT) - 2, 0)
    hi = np.minimum((pts.max(axis=0) >> SHIFT) + 3, [img.shape[1], img.shape[0]])
    if (hi <= lo).any():
        return
    roi = img[lo[1] : hi[1], lo[0] : hi[0]]
    layer = roi.copy()
    cv2.fillPoly(layer, [pts - (lo << SHIFT).astype(np.int32)], colour, cv2.LINE_AA, SHIFT)
    cv2.addWeighted(layer, alpha, roi, 1 - alpha, 0, dst=roi)


def canvas(width: int, height: int, colour: tuple[int, int, int]) -> np.ndarray:
    img = np.empty((height, width, 3), np.uint8)
    img[:] = colour  # much faster than np.full with a colour tuple
    return img


def outline(
    img: np.ndarray, fit: TableFit, polygon_mm: object, colour: tuple[int, int, int], thickness: int = 1
) -> None:
    cv2.polylines(img, [fit.ipx(polygon_mm)], True, colour, thickness, cv2.LINE_AA, SHIFT)


def line(
    img: np.ndarray,
    fit: TableFit,
    a_mm: object,
    b_mm: object,
    colour: tuple[int, int, int],
    thickness: int = 1,
) -> None:
    a, b = fit.ipx([a_mm, b_mm])
    cv2.line(img, tuple(map(int, a)), tuple(map(int, b)), colour, thickness, cv2.LINE_AA, SHIFT)


def nice_step_mm(scale: float, min_px: float = 60.0) -> float:
    """A round grid step (10, 20, 50, 100, ... mm) at least `min_px` pixels apart."""
    raw = min_px / max(scale, 1e-9)
    base = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if base * m >= raw:
            return base * m
    return base * 10
