"""The card check: a second look at each card the map and the edge fit report, by a small network
that sees the card at a size of its own with its surroundings (trained by `python -m
vision.train.cardcheck`, its model card beside its .onnx). No weights are shipped yet: the
first ones dropped plain playing cards of real photos (README, "Vision v2"); try weights with
`--check FILE` in `bench.randomised` and `bench.labelled_photos`.

The card map reads the whole frame at 640 px, where a key of a keyboard or a square of a check
cloth is a few pixels: it cannot see that such a thing sits in a grid of its equals, nor read
what is printed on it. The check warps each reported card upright to `CARD_LONG` px, with the
frame around it (a key's neighbours, a page's text) and the map's own reading of it, and says
how likely it is a card placed on its real edges.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.cardmap import CardMapReading, Weights

CROP = 64  # px, the check's input side
# The card's long side in the crop; the rest of the crop is what lies around it (a third of the
# card's long side beyond each end).
CARD_LONG = 40
CHANNELS = 6  # B, G, R; the map's interior and boundary; inside the frame (not beyond its edge)


class CardCheck(Weights):
    """Loads the network once; `scores(image, reading, quads)` gives each quad's probability of
    being a card placed on its edges."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, "no card check weights (train them with python -m vision.train.cardcheck)")

    def scores(self, image: np.ndarray, reading: CardMapReading, quads: list[np.ndarray]) -> np.ndarray:
        if not quads:
            return np.zeros(0, np.float32)
        blob = crops(image, reading, quads).astype(np.float32) / 255.0 - 0.5
        logits = self.run(blob).reshape(-1)
        return (1.0 / (1.0 + np.exp(-logits))).astype(np.float32)


def crops(image: np.ndarray, reading: CardMapReading, quads: list[np.ndarray]) -> np.ndarray:
    """N x CHANNELS x CROP x CROP uint8: each quad (4 x 2 frame px, clockwise from the top-left)
    warped upright (long side vertical) to `CARD_LONG` px at its own aspect, centred, with the
    frame's pixels, the map's interior and boundary (x 255) and the frame's extent around it."""
    pyramid = [image]
    inside = np.full(image.shape[:2], 255, np.uint8)
    interior = np.round(reading.interior * 255).astype(np.uint8)
    boundary = np.round(reading.boundary * 255).astype(np.uint8)
    out = np.zeros((len(quads), CHANNELS, CROP, CROP), np.uint8)
    for n, q in enumerate(quads):
        q = np.asarray(q, np.float64)
        dst = _upright(q)
        long_px = max(np.hypot(*(q[1] - q[0])), np.hypot(*(q[2] - q[1])), 1.0)
        # Sampled from a level of the frame halved until the card is at most twice the crop's
        # size: a bilinear warp of a far larger card would alias its print.
        level = 0
        while long_px / 2 ** (level + 1) >= 2 * CARD_LONG and min(pyramid[level].shape[:2]) >= 2 * CROP:
            level += 1
            if level == len(pyramid):
                pyramid.append(cv2.pyrDown(pyramid[-1]))
        k = 2.0**level
        m = cv2.getPerspectiveTransform(dst, ((q + 0.5) / k - 0.5).astype(np.float32))
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        px = cv2.warpPerspective(pyramid[level], m, (CROP, CROP), flags=flags, borderMode=cv2.BORDER_CONSTANT)
        out[n, :3] = px.transpose(2, 0, 1) if px.ndim == 3 else px[None]
        m = cv2.getPerspectiveTransform(dst, reading.to_map(q).astype(np.float32))
        out[n, 3] = cv2.warpPerspective(interior, m, (CROP, CROP), flags=flags, borderMode=cv2.BORDER_CONSTANT)
        out[n, 4] = cv2.warpPerspective(boundary, m, (CROP, CROP), flags=flags, borderMode=cv2.BORDER_CONSTANT)
        m = cv2.getPerspectiveTransform(dst, q.astype(np.float32))
        out[n, 5] = cv2.warpPerspective(inside, m, (CROP, CROP), flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP)
    return out


def _upright(q: np.ndarray) -> np.ndarray:
    """Where q's corners go in the crop: a rectangle of q's aspect, long side vertical, centred.
    Returns 4 x 2 float32, corner i of the rectangle for corner i of q."""
    s = [np.hypot(*(q[(i + 1) % 4] - q[i])) for i in range(4)]
    across, down = (s[0] + s[2]) / 2, (s[1] + s[3]) / 2  # q's first side runs across
    short = CARD_LONG * min(across, down) / max(across, down, 1e-9)
    x0, x1 = (CROP - short) / 2, (CROP + short) / 2
    y0, y1 = (CROP - CARD_LONG) / 2, (CROP + CARD_LONG) / 2
    rect = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32)
    if across > down:
        # q lies across: turned a quarter (its corner 0 to the rectangle's bottom-left), so its long
        # side stands.
        rect = np.roll(rect, 1, axis=0)
    return rect
