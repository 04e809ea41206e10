"""The learned card map: per pixel of a reduced frame, how likely it is card interior and card
boundary (`vision/models/cardmap.onnx`, trained by `python -m vision.train`; its model card is
`vision/models/cardmap.json`). Run with cv2.dnn, so nothing beyond OpenCV is needed at run time.

The map decides *what* is a card; the card's outline is then measured on the frame's own
edges (`vision.edges`). `card_regions` turns the map into one region per card: the interior
with the boundary band taken out, so cards that touch fall apart.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODELS = Path(__file__).resolve().parent / "models"
MAP_LONG_SIDE = 512  # the frame's long side as the network reads it (as it was trained)
STRIDE = 32  # the network's input sides must be multiples of this


@dataclass(frozen=True)
class CardMapReading:
    interior: np.ndarray  # h x w float32, probability each map pixel is inside a card
    boundary: np.ndarray  # h x w float32, ... lies on a card's edge
    scale: float  # frame px per map px: map pixel (i, j)'s centre is frame ((j + .5) s - .5, (i + .5) s - .5)

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        """Map pixel coordinates (x, y) -> frame pixel coordinates."""
        return (np.asarray(pts, np.float64) + 0.5) * self.scale - 0.5

    def to_map(self, pts: np.ndarray) -> np.ndarray:
        """Frame pixel coordinates (x, y) -> map pixel coordinates."""
        return (np.asarray(pts, np.float64) + 0.5) / self.scale - 0.5


@dataclass(frozen=True)
class CardRegion:
    contour: np.ndarray  # N x 2, frame px: the outline of the card's visible part, as the map sees it
    area_px: float  # in frame px
    confidence: float  # mean interior probability over the region


class CardMap:
    """Loads the network once; `read(image)` maps a BGR frame."""

    def __init__(self, path: str | Path = MODELS / "cardmap.onnx") -> None:
        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"the card map's weights are missing: {path} (reinstall the package)")
        self.path = path
        self._net = cv2.dnn.readNetFromONNX(str(path))
        card = path.with_suffix(".json")
        self.card = json.loads(card.read_text()) if card.exists() else {}

    @property
    def model(self) -> dict:
        """File name and version of the weights, so a result can be traced to them."""
        return {"file": self.path.name, "version": self.card.get("version", "unversioned")}

    def read(self, image: np.ndarray) -> CardMapReading:
        h, w = image.shape[:2]
        k = MAP_LONG_SIDE / max(h, w)
        size = (max(1, round(w * k)), max(1, round(h * k)))
        small = cv2.resize(image, size, interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
        if small.ndim == 2:
            small = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
        ph, pw = -size[1] % STRIDE, -size[0] % STRIDE
        if ph or pw:
            small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
        self._net.setInput(cv2.dnn.blobFromImage(small))
        logits = self._net.forward()[0]
        mh, mw = size[1] // 2, size[0] // 2
        p = 1.0 / (1.0 + np.exp(-logits[:, :mh, :mw]))
        return CardMapReading(p[0], p[1], scale=2.0 * max(h, w) / MAP_LONG_SIDE)


@lru_cache(maxsize=1)
def default_map() -> CardMap:
    return CardMap()


def card_regions(reading: CardMapReading, min_area_px: float = 0.0) -> list[CardRegion]:
    """One region per card the map sees: connected cores of interior off the boundary band,
    each grown back over the band it lost (the band is two map pixels wide, one each side)."""
    core = ((reading.interior > 0.5) & (reading.boundary < 0.5)).astype(np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(core, connectivity=4)
    out = []
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    min_map_area = max(4.0, min_area_px / reading.scale**2)
    for i in range(1, n):
        x, y, w, h, a = stats[i]
        if a < min_map_area * 0.5:
            continue
        x0, y0 = max(0, x - 2), max(0, y - 2)
        own = (labels[y0 : y + h + 2, x0 : x + w + 2] == i).astype(np.uint8)
        grown = cv2.dilate(own, kernel)
        contours, _ = cv2.findContours(grown, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        cnt = max(contours, key=cv2.contourArea).reshape(-1, 2) + [x0, y0]
        area = cv2.contourArea(cnt.astype(np.float32)) * reading.scale**2
        if area < min_area_px:
            continue
        conf = float(reading.interior[labels == i].mean())
        out.append(CardRegion(reading.to_frame(cnt), float(area), conf))
    return out
