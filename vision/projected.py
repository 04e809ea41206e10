"""The referee's own projector light in a camera frame: where it falls, and the frame with it
painted out, so vision reads the table as if the projector were dark.

The projector lights rings, bands and labels a few mm clear of every card
(`display.projector.CLEARANCE_MM`). To the learned card map a ring round a dark card looks like
the card's white rim, and the card and ring become one larger card (tests/test_projector_light.py).
The referee draws that picture itself, so it need not guess where the light is: the picture is
mapped into the frame through the calibration and the lit pixels are filled in from the unlit
table around them.
"""

from __future__ import annotations

import cv2
import numpy as np

# The lit area is grown by this much (table mm) for the projector's blur and the calibration's
# error, and no more: the light keeps 6 mm clear of every card, so 2 mm leaves 4 mm of dark
# table between the fill and each card's edge, beyond the few px the edge fit looks across.
GROW_MM = 2.0
# The fill takes its colour from unlit pixels within this radius of the lit area's edge (px):
# the table beside the light, not the card further away.
FILL_RADIUS_PX = 3


def projected_light(
    picture: np.ndarray, frame_to_projector: np.ndarray, frame_size: tuple[int, int], grow_px: float
) -> np.ndarray:
    """The frame's pixels (uint8 mask, 1 = lit) where the projector's `picture` (BGR or grey,
    black where nothing is lit) falls, grown by `grow_px`. `frame_to_projector` maps the frame's
    pixels to the picture's (a 3 x 3 homography through the table); `frame_size` is (w, h)."""
    lit = (picture.max(axis=2) if picture.ndim == 3 else picture) > 0
    mask = cv2.warpPerspective(
        lit.astype(np.uint8),
        np.asarray(frame_to_projector, np.float64),
        (int(frame_size[0]), int(frame_size[1])),
        flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
    )
    g = int(round(grow_px))
    if g > 0 and mask.any():
        mask = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * g + 1, 2 * g + 1)))
    return mask


def without_light(image: np.ndarray, lit: np.ndarray | None) -> np.ndarray:
    """`image` with its `lit` pixels filled in from the unlit ones beside them (a new image; the
    same one when nothing is lit). Only the box around the light is touched."""
    if lit is None or not lit.any():
        return image
    if lit.shape != image.shape[:2]:
        raise ValueError(f"the light's mask is {lit.shape[1]}x{lit.shape[0]}, the frame {image.shape[1]}x{image.shape[0]}")
    ys, xs = np.nonzero(lit)
    pad = FILL_RADIUS_PX + 1
    y0, y1 = max(int(ys.min()) - pad, 0), min(int(ys.max()) + pad + 1, lit.shape[0])
    x0, x1 = max(int(xs.min()) - pad, 0), min(int(xs.max()) + pad + 1, lit.shape[1])
    out = image.copy()
    out[y0:y1, x0:x1] = cv2.inpaint(
        np.ascontiguousarray(image[y0:y1, x0:x1]), lit[y0:y1, x0:x1], FILL_RADIUS_PX, cv2.INPAINT_TELEA
    )
    return out
