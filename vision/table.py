"""Image pixels -> table millimetres for the detector, from a calibration (or a bare homography).

The detector needs two things from the table: where a pixel lies in mm (to check a card's size
and report `corners_mm`) and how many mm one pixel spans there (to turn pixel uncertainty into
mm). `calibration.Calibration` provides both; a bare 3x3 homography (for tests and the bench,
where the synthetic camera's is known) is accepted too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np


class TableMap:
    """Pixel -> table mm mapping used by vision. Build with `from_calibration` or `from_homography`.

    `floor_at` (table mm -> mm, per axis) is the calibration's own mapping error where a corner
    lies: a far corner of the table is mapped less surely than one beside where the board lay,
    and its sigma (and so the too-close-to-call band of a jump) says so. Without it the constant
    `sigma_floor_mm` is used everywhere.
    """

    def __init__(
        self,
        to_mm: Callable[[np.ndarray], np.ndarray],
        card_size_mm: tuple[float, float] = (63.0, 88.0),
        sigma_floor_mm: float = 0.0,
        floor_at: Callable[[np.ndarray], np.ndarray] | None = None,
    ) -> None:
        self._to_mm = to_mm
        self.card_size_mm = (min(card_size_mm), max(card_size_mm))
        self.sigma_floor_mm = sigma_floor_mm  # the calibration's own mapping error
        self.floor_at = floor_at

    @classmethod
    def from_homography(
        cls, image_to_table: np.ndarray, card_size_mm: tuple[float, float] = (63.0, 88.0)
    ) -> TableMap:
        h = np.asarray(image_to_table, dtype=np.float64).reshape(3, 3)

        def to_mm(px: np.ndarray) -> np.ndarray:
            p = np.asarray(px, dtype=np.float64).reshape(-1, 1, 2)
            return cv2.perspectiveTransform(p, h).reshape(-1, 2)

        return cls(to_mm, card_size_mm)

    @classmethod
    def from_calibration(cls, cal) -> TableMap:  # cal: calibration.Calibration
        return cls(
            cal.pixels_to_table_mm,
            (cal.card_short_mm, cal.card_long_mm),
            floor_at=cal.mapping_sigma_mm_at_table,
        )

    @classmethod
    def load(cls, path: str | Path, image_size: tuple[int, int] | None = None) -> TableMap:
        from calibration.file import load_calibration

        return cls.from_calibration(
            load_calibration(path, require=("table",), image_size=image_size, allow_stale=True)
        )

    def shifted(self, dx: float, dy: float) -> TableMap:
        """The same table for a crop of the image whose top-left pixel is (dx, dy)."""
        offset = np.array([dx, dy], dtype=np.float64)
        return TableMap(
            lambda px: self._to_mm(px + offset), self.card_size_mm, self.sigma_floor_mm, self.floor_at
        )

    def to_mm(self, px: np.ndarray) -> np.ndarray:
        return np.asarray(
            self._to_mm(np.asarray(px, dtype=np.float64).reshape(-1, 2)), dtype=np.float64
        ).reshape(-1, 2)

    def mm_per_px(self, px: np.ndarray) -> np.ndarray:
        """Table mm one pixel spans at each point (N,), the root of the local area scale."""
        p = np.asarray(px, dtype=np.float64).reshape(-1, 2)
        d = 0.5
        c = self.to_mm(p)
        ex = self.to_mm(p + [d, 0]) - c
        ey = self.to_mm(p + [0, d]) - c
        return np.sqrt(np.abs(ex[:, 0] * ey[:, 1] - ex[:, 1] * ey[:, 0])) / d

    def sigma_mm(self, px: np.ndarray, sigma_px: np.ndarray) -> np.ndarray:
        floor = self.sigma_floor_mm if self.floor_at is None else self.floor_at(self.to_mm(px))
        return np.hypot(np.asarray(sigma_px) * self.mm_per_px(px), floor)
