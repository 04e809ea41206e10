"""Camera frames -> the picture vision reads: the lens undone and, optionally, a smaller scale.

Undoing the lens for a whole 1080p frame is one `cv2.remap`, ~18 ms on one core - more than
everything else a still table costs a frame. `FrameMap` therefore also gives a small copy of the
same picture for comparing frames (the raw frame averaged down, then mapped at that size), so
that the whole picture is made only for frames that are read.
"""

from __future__ import annotations

import cv2
import numpy as np


class FrameMap:
    """Raw frames of `raw_size` (w, h) -> the picture vision reads, `size` (w, h)."""

    def __init__(
        self,
        raw_size: tuple[int, int],
        camera_matrix: np.ndarray | None = None,
        distortion: np.ndarray | None = None,
        scale: float = 1.0,
    ) -> None:
        self.raw_size = (int(raw_size[0]), int(raw_size[1]))
        self.scale = float(scale)
        self.size = (round(self.raw_size[0] * scale), round(self.raw_size[1] * scale))
        self._k = None if camera_matrix is None else np.asarray(camera_matrix, np.float64)
        self._d = None if distortion is None else np.asarray(distortion, np.float64)
        self._maps = None
        if self._k is not None:
            self._maps = cv2.initUndistortRectifyMap(
                self._k, self._d, None, self._k, self.raw_size, cv2.CV_16SC2
            )
        self._small: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def check(self, raw: np.ndarray) -> None:
        if (raw.shape[1], raw.shape[0]) != self.raw_size:
            w, h = self.raw_size
            raise ValueError(
                f"the camera gives {raw.shape[1]}x{raw.shape[0]} frames but the calibration is for"
                f" {w}x{h}: calibrate this camera at this resolution"
            )

    def whole(self, raw: np.ndarray) -> np.ndarray:
        if self._maps is not None:
            raw = cv2.remap(raw, self._maps[0], self._maps[1], cv2.INTER_LINEAR)
        if self.scale != 1.0:  # averaged down after the lens, so no pixel is skipped
            return cv2.resize(raw, self.size, interpolation=cv2.INTER_AREA)
        return raw

    def small(self, raw: np.ndarray, long_side: int) -> np.ndarray:
        """A copy of whole(raw) about `long_side` px long, each pixel an average of many."""
        w, h = self.size
        k = max(1.0, max(w, h) / long_side)
        size = (max(1, round(w / k)), max(1, round(h / k)))
        rw, rh = self.raw_size
        raw_small = cv2.resize(raw, size, interpolation=cv2.INTER_AREA)
        if self._maps is None:
            return raw_small
        maps = self._small.get(size)
        if maps is None:
            # The raw frame averaged down is a camera of the same lens with a scaled matrix (pixel
            # centres: x' = (x + 0.5) s - 0.5); undo its lens at that size.
            sx, sy = size[0] / rw, size[1] / rh
            k_small = self._k.copy()
            k_small[0, 0] *= sx
            k_small[1, 1] *= sy
            k_small[0, 1] *= sx
            k_small[0, 2] = (k_small[0, 2] + 0.5) * sx - 0.5
            k_small[1, 2] = (k_small[1, 2] + 0.5) * sy - 0.5
            maps = cv2.initUndistortRectifyMap(k_small, self._d, None, k_small, size, cv2.CV_16SC2)
            self._small[size] = maps
        return cv2.remap(raw_small, maps[0], maps[1], cv2.INTER_LINEAR)
