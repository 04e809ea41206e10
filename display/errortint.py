"""The table's calibration error under the overview's cards: where the camera measures surely
(blue) and where less so (red), so players see why a far jump may be too close to call.

Takes the calibration's `ErrorMap` (display may use calibration: docs/architecture.md,
"Layers") and draws it through the overview's own table-to-picture mapping.
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.errormap import ErrorMap
from display import style
from display.canvas import TableFit
from display.text import put_text

ALPHA = 0.35  # faint: the felt, the grid and the cards stay the picture's subject


def draw_error_map(img: np.ndarray, fit: TableFit, rect: tuple[int, int, int, int], em: ErrorMap) -> None:
    """Blend the map into `rect` of the overview, and say its range in one line."""
    vmax = max(1.0, em.max_mm)
    values = np.nan_to_num(em.values, nan=0.0)
    colour = cv2.applyColorMap(np.clip(values / vmax * 255, 0, 255).astype(np.uint8), cv2.COLORMAP_JET)
    seen = np.isfinite(em.values).astype(np.uint8) * 255
    # Cell (col, row) is centred on table mm (x0 + col * step, y0 + row * step); the overview puts
    # table mm (x, y) at (left + (x - x0_mm) * scale, top + (y1_mm - y) * scale).
    s = em.step_mm * fit.scale
    ox, oy = em.origin_mm
    m = np.array(
        [
            [s, 0, fit.left_px + (ox - fit.x0_mm) * fit.scale],
            [0, -s, fit.top_px + (fit.y1_mm - oy) * fit.scale],
        ]
    )
    h, w = img.shape[:2]
    layer = cv2.warpAffine(colour, m, (w, h), flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(seen, m, (w, h), flags=cv2.INTER_NEAREST) > 0
    x, y, rw, rh = rect
    inside = np.zeros_like(mask)
    inside[y : y + rh, x : x + rw] = True
    mask &= inside
    img[mask] = (img[mask] * (1 - ALPHA) + layer[mask] * ALPHA).astype(np.uint8)
    put_text(
        img,
        f"camera error {np.nanmin(em.values):.1f}-{em.max_mm:.1f} mm (blue-red)",
        (x + rw - 8, y + rh - 8),
        0.4,
        style.DIM,
        anchor="right",
    )
