"""Pawns by colour, each assigned to the card it stands on.

A pawn is a compact blob of a player's colour (saturated, bright enough), of a plausible size
relative to a card. Printed art can share a player's colour, so on a card whose face (or back) is
known, colour the enrolled art explains is not a pawn: a pawn is what differs from the art.
Player colours are configurable (`PawnColors`) and learnable from one frame (`PawnColors.learn`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.synthetic.scene import PAWN_COLORS

# Player colours (BGR) of the default pawns: the renderer's, as its art is the default deck.
# White and black are left out: colour alone cannot find them.
DEFAULT_COLORS: dict[str, tuple[int, int, int]] = {
    name: bgr for name, bgr in PAWN_COLORS.items() if name not in ("white", "black")
}
MIN_SATURATION = 150
MIN_VALUE = 90
MAX_HUE_DIST = 12  # OpenCV hue units (0..180)
MIN_CONTRAST = 30.0  # Lab distance between a pawn and its surroundings


@dataclass
class PawnColors:
    colors: dict[str, tuple[int, int, int]] = field(default_factory=lambda: dict(DEFAULT_COLORS))

    def hues(self) -> dict[str, float]:
        out = {}
        for name, bgr in self.colors.items():
            hsv = cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0]
            out[name] = float(hsv[0])
        return out

    @classmethod
    def learn(
        cls, image: np.ndarray, points_px: dict[str, tuple[float, float]], radius: int = 6
    ) -> PawnColors:
        """Player colours from one frame: the median colour around where each pawn stands."""
        colors = {}
        h, w = image.shape[:2]
        for name, (u, v) in points_px.items():
            x0, x1 = max(int(u) - radius, 0), min(int(u) + radius + 1, w)
            y0, y1 = max(int(v) - radius, 0), min(int(v) + radius + 1, h)
            patch = image[y0:y1, x0:x1].reshape(-1, 3)
            if len(patch) == 0:
                raise ValueError(f"the point for {name!r} is outside the image")
            colors[name] = tuple(int(c) for c in np.median(patch, axis=0))
        return cls(colors)


@dataclass(frozen=True)
class PawnSighting:
    color: str
    center_px: tuple[float, float]  # where it stands (foot of the figure), image pixels
    area_px: float
    card_index: int | None  # index into the frame's cards, None = off the cards


def find_pawns(
    image: np.ndarray,
    cards_px: list[np.ndarray],
    colors: PawnColors | None = None,
    art_masks: list[tuple[tuple[int, int, int, int], np.ndarray] | None] | None = None,
) -> list[PawnSighting]:
    """Pawns in `image`. `cards_px` are the frame's card corners; `art_masks[i]` (ROI, mask of
    pixels the card's enrolled art explains) removes printed colour from card i."""
    colors = colors or PawnColors()
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0].astype(np.int16), hsv[..., 1], hsv[..., 2]
    chroma = (sat >= MIN_SATURATION) & (val >= MIN_VALUE)
    if art_masks:
        for item in art_masks:
            if item is None:
                continue
            (x0, y0, x1, y1), explained = item
            chroma[y0:y1, x0:x1] &= ~explained
    if cards_px:
        card_area = float(np.median([abs(cv2.contourArea(c.astype(np.float32))) for c in cards_px]))
    else:
        card_area = image.shape[0] * image.shape[1] / 150.0
    on_cards = np.zeros(hue.shape, np.uint8)
    for c in cards_px:
        cv2.fillPoly(on_cards, [np.round(c).astype(np.int32)], 255)
    off = on_cards == 0
    n_off = max(int(off.sum()), 1)
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2Lab).astype(np.float32)
    out: list[PawnSighting] = []
    for name, h0 in colors.hues().items():
        dh = np.abs(hue - h0)
        dh = np.minimum(dh, 180 - dh)
        m = (chroma & (dh <= MAX_HUE_DIST)).astype(np.uint8) * 255
        # A colour the table itself is made of (red-brown wood) is looked for on the cards only.
        if np.count_nonzero(m[off]) > 0.03 * n_off:
            m[off] = 0
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
        n, labels, stats, _ = cv2.connectedComponentsWithStats(m)
        for k in range(1, n):
            x, y, w, h, area = stats[k]
            if not (0.02 * card_area <= area <= 0.5 * card_area):
                continue
            if max(w, h) > 4 * min(w, h) or area < 0.3 * w * h:
                continue  # a thin strip (a card's printed frame), not a standing figure
            own = labels[y : y + h, x : x + w] == k
            # A pawn stands out from what surrounds it; a patch of grain or print does not much.
            y0, y1 = max(y - h // 2, 0), min(y + h + h // 2, labels.shape[0])
            x0, x1 = max(x - w // 2, 0), min(x + w + w // 2, labels.shape[1])
            ring = np.ones((y1 - y0, x1 - x0), bool)
            ring[y - y0 : y - y0 + h, x - x0 : x - x0 + w] &= ~own
            ring &= m[y0:y1, x0:x1] == 0
            if ring.any():
                inside_lab = lab[y : y + h, x : x + w][own].mean(axis=0)
                ring_lab = lab[y0:y1, x0:x1][ring].mean(axis=0)
                if float(np.linalg.norm(inside_lab - ring_lab)) < MIN_CONTRAST:
                    continue
            ys, xs = np.nonzero(own)
            # Where it stands: the bottom of the figure as the camera sees it.
            bottom = ys >= ys.max() - max(2, 0.15 * h)
            foot = (float(xs[bottom].mean() + x), float(ys.max() + y - 0.1 * h))
            on = None
            for i, c in enumerate(cards_px):
                if cv2.pointPolygonTest(c.astype(np.float32), foot, False) >= 0:
                    on = i
                    break
            out.append(PawnSighting(name, foot, float(area), on))
    # One pawn seen as two colours (the shaded side of a yellow disc reads orange): the bigger wins.
    out.sort(key=lambda p: -p.area_px)
    kept: list[PawnSighting] = []
    for p in out:
        if all(
            np.hypot(p.center_px[0] - k.center_px[0], p.center_px[1] - k.center_px[1])
            > 0.8 * np.sqrt(k.area_px)
            for k in kept
        ):
            kept.append(p)
    # Per colour, the biggest sighting first: the likeliest pawn.
    kept.sort(key=lambda p: (p.color, -p.area_px))
    return kept


def art_explained_mask(
    image: np.ndarray, corners_px: np.ndarray, art: np.ndarray, tol: float = 60.0
) -> tuple[tuple[int, int, int, int], np.ndarray] | None:
    """Pixels of the card whose colour the enrolled art (upright, the right way round) explains."""
    h, w = image.shape[:2]
    q = np.asarray(corners_px, np.float32)
    x0, y0 = np.maximum(np.floor(q.min(axis=0)).astype(int), 0)
    x1, y1 = np.minimum(np.ceil(q.max(axis=0)).astype(int) + 1, [w, h])
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    ah, aw = art.shape[:2]
    src = np.array([[0, 0], [aw - 1, 0], [aw - 1, ah - 1], [0, ah - 1]], np.float32)
    m = cv2.getPerspectiveTransform(src, (q - np.array([x0, y0], np.float32)).astype(np.float32))
    warped = cv2.warpPerspective(art, m, (int(x1 - x0), int(y1 - y0)), flags=cv2.INTER_AREA)
    roi = image[y0:y1, x0:x1].astype(np.float32)
    wf = warped.astype(np.float32)
    inside = cv2.warpPerspective(np.full((ah, aw), 255, np.uint8), m, (int(x1 - x0), int(y1 - y0))) > 0
    # Per-channel gain: the frame's light and white balance on this card.
    gain = (roi[inside].mean(axis=0) + 1) / (wf[inside].mean(axis=0) + 1)
    diff = np.sqrt(((roi - wf * gain) ** 2).sum(axis=2))
    diff = cv2.erode(diff, np.ones((3, 3), np.uint8))  # a 1-px misalignment is not a pawn
    return (int(x0), int(y0), int(x1), int(y1)), inside & (diff < tol)
