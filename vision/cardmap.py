"""The learned card map: per pixel of a reduced frame, how likely it is card interior, card
boundary and card core (`vision/models/cardmap.onnx`, trained by `python -m vision.train`; its model card is
`vision/models/cardmap.json`). Run with onnxruntime: it reads the map four ways in 60 ms on one
core where cv2.dnn took 143 ms (the same outputs, to 6e-6).

The map decides *what* is a card; the card's outline is then measured on the frame's own
edges (`vision.edges`). `card_regions` turns the map into one region per card: the interior
with the boundary band taken out, so cards that touch fall apart, and parted by the cores where
the band between them is missing.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

MODELS = Path(__file__).resolve().parent / "models"
# The frame's long side as the network reads it. Weights are trained at one size and read at it:
# their model card records it (`input_long_side`); this is what new training runs use.
MAP_LONG_SIDE = 640
STRIDE = 32  # the network's input sides must be multiples of this
# The smallest card the map is made to find: its short side 1/40 of the frame's long side (16 px
# where the network reads the frame: 8 px of a half-resolution map, room for an interior between
# two boundary bands).
# A referee's 1080p camera over a 1.2 m table sees a playing card about 100 px across (1/19).
SMALLEST_CARD = 1 / 40
# A frame whose cards have a median short side under this where the network reads it (input px)
# is read again FINER times as fine (up to the camera's own pixels), once: a card this small
# keeps an interior of a few map pixels between its two boundary bands, and cards that touch
# merge (diagnostic renders, 644 cards: recall 51.6 -> 63.2 %). Once, not four ways, because four
# cost four times the pixels: such a frame costs about twice one of large cards. The finer
# reading loses some of the frame's larger cards (seeds 64e6, cards 48-96 px: 37 -> 29 % found),
# so the first reading's cards stay where the finer finds none (`vision.map_detector`).
SMALL_CARDS_INPUT_PX = 32
FINER = 2
# A card's core, as weights that mark it learnt it (`vision.train.targets`): its pixels further
# from its own edge than this share of its half-width (the furthest any of its pixels lies), the
# card shrunk by a fifth of its short side on each side. Cores of cards that touch lie two fifths
# of a card's width apart whatever the card's size, where the boundary band between them is a
# pixel or two, and faint (text detectors' shrunk kernels).
CORE_SHARE = 0.4
# How far (map px) a card's seed grows back over the card around it: the seed is its interior off
# the boundary band, two pixels wide and a blurred one a little wider; or its core (a seed split by
# its cores), whose edge lies CORE_SHARE / (1 - CORE_SHARE) of its own half-width inside the
# card's, and two pixels more (the edge's blur, a core drawn thin).
GROWTH_STEPS = 4
CORE_GROWTH_SLACK = 2
# A boundary this faint still splits a seed into cards, if it leaves card-like parts (each at
# least this share of the seed, filling its least box this much); so do cores.
WEAK_BOUNDARY = 0.25
SPLIT_SHARE = 0.2
BOX_FILL = 0.75
# The cores of two touching cards are each about a fifth of the seed they share (three cards: a
# seventh).
CORE_SPLIT_SHARE = 0.1


@dataclass(frozen=True)
class CardMapReading:
    interior: np.ndarray  # h x w float32, probability each map pixel is inside a card
    boundary: np.ndarray  # h x w float32, ... lies on a card's edge
    scale: float  # frame px per map px: map pixel (i, j)'s centre is frame ((j + .5) s - .5, (i + .5) s - .5)
    # ... lies in a card's core (its middle, `CORE_SHARE`); None from weights that do not mark it
    core: np.ndarray | None = None

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        """Map pixel coordinates (x, y) -> frame pixel coordinates."""
        return map_to_frame(pts, self.scale)

    def to_map(self, pts: np.ndarray) -> np.ndarray:
        """Frame pixel coordinates (x, y) -> map pixel coordinates."""
        return (np.asarray(pts, np.float64) + 0.5) / self.scale - 0.5


@dataclass(frozen=True)
class CardRegion:
    contour: np.ndarray  # N x 2, frame px: the outline of the card's visible part, as the map sees it
    area_px: float  # in frame px
    confidence: float  # mean interior probability over the region


class Weights:
    """A network's ONNX weights, loaded once for onnxruntime, with the model card beside them."""

    def __init__(self, path: str | Path, missing: str) -> None:
        import onnxruntime

        path = Path(path)
        if not path.exists():
            raise FileNotFoundError(f"{missing}: {path}")
        self.path = path
        options = onnxruntime.SessionOptions()
        # As many threads as OpenCV is told to use: one in a frame reader of its own process.
        options.intra_op_num_threads = max(1, cv2.getNumThreads())
        options.inter_op_num_threads = 1
        self._session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self._input = self._session.get_inputs()[0]
        card = path.with_suffix(".json")
        self.card = json.loads(card.read_text()) if card.exists() else {}

    def run(self, blob: np.ndarray) -> np.ndarray:
        """The network's first output for a batch (N x C x H x W float32): one item at a time
        where the weights take one."""
        blob = np.ascontiguousarray(blob, dtype=np.float32)
        if self._input.shape[0] != 1 or len(blob) == 1:
            return self._session.run(None, {self._input.name: blob})[0]
        return np.concatenate([self._session.run(None, {self._input.name: blob[i : i + 1]})[0] for i in range(len(blob))])

    @property
    def model(self) -> dict:
        """File name and version of the weights, so a result can be traced to them."""
        return {"file": self.path.name, "version": self.card.get("version", "unversioned")}


class CardMap(Weights):
    """Loads the network once; `read(image)` maps a BGR frame."""

    def __init__(self, path: str | Path = MODELS / "cardmap.onnx") -> None:
        super().__init__(path, "the card map's weights are missing (reinstall the package)")
        self.long_side = int(self.card.get("input_long_side", MAP_LONG_SIDE))
        # Input px per map px: 2 for the first weights (a half-resolution map), 1 for a map at the
        # input's own resolution.
        self.stride = int(self.card.get("output_stride", 2))

    def read(self, image: np.ndarray, long_side: int | None = None, four_ways: bool = True) -> CardMapReading:
        """The map of a BGR frame, read with its long side at `long_side` px (the weights' own
        by default), four ways (below) or once."""
        h, w = image.shape[:2]
        long_side = long_side or self.long_side
        small, size = network_input(image, long_side)
        # Read four ways (as is, mirrored left-right, mirrored top-bottom, turned half round), each
        # map turned back and the four averaged: the network learnt cards in every orientation
        # (its training flips and turns them), and where one reading is unsure the others
        # mostly are not (validation photos: recall 55 -> 59 %, precision 78 -> 95 %).
        views = [small, small[:, ::-1], small[::-1], small[::-1, ::-1]] if four_ways else [small]
        out = self.run(cv2.dnn.blobFromImages([np.ascontiguousarray(v) for v in views]))
        if four_ways:
            logits = (out[0] + out[1][:, :, ::-1] + out[2][:, ::-1] + out[3][:, ::-1, ::-1]) / 4
        else:
            logits = out[0]
        mh, mw = size[1] // self.stride, size[0] // self.stride
        p = 1.0 / (1.0 + np.exp(-logits[:, :mh, :mw]))
        return CardMapReading(p[0], p[1], scale=self.stride * max(h, w) / long_side, core=p[2] if len(p) > 2 else None)

    def finer(self, image: np.ndarray, regions: list[CardRegion]) -> CardMapReading | None:
        """The frame read again `FINER` times as fine (up to the camera's own pixels), once,
        when the cards of its first reading's `regions` are small where the network reads the
        frame (see `SMALL_CARDS_INPUT_PX`); else None."""
        native = max(image.shape[:2])
        if not regions or native <= self.long_side:
            return None
        sides = [min(cv2.minAreaRect(r.contour.astype(np.float32))[1]) for r in regions]
        if np.median(sides) * self.long_side / native >= SMALL_CARDS_INPUT_PX:
            return None
        return self.read(image, long_side=min(native, FINER * self.long_side), four_ways=False)


def map_to_frame(pts: np.ndarray, scale: float) -> np.ndarray:
    """Map pixel coordinates (x, y) -> frame pixel coordinates, `scale` frame px per map px: map
    pixel (i, j)'s centre is frame ((j + .5) s - .5, (i + .5) s - .5)."""
    return (np.asarray(pts, np.float64) + 0.5) * scale - 0.5


def network_input(image: np.ndarray, long_side: int) -> tuple[np.ndarray, tuple[int, int]]:
    """The frame as the network reads it: BGR, its long side `long_side` px, padded (edge pixels
    repeated) to sides multiples of `STRIDE`; and its size (w, h) before the padding."""
    h, w = image.shape[:2]
    k = long_side / max(h, w)
    size = (max(1, round(w * k)), max(1, round(h * k)))
    small = cv2.resize(image, size, interpolation=cv2.INTER_AREA if k < 1 else cv2.INTER_LINEAR)
    if small.ndim == 2:
        small = cv2.cvtColor(small, cv2.COLOR_GRAY2BGR)
    ph, pw = -size[1] % STRIDE, -size[0] % STRIDE
    if ph or pw:
        small = cv2.copyMakeBorder(small, 0, ph, 0, pw, cv2.BORDER_REPLICATE)
    return small, size


@lru_cache(maxsize=1)
def default_map() -> CardMap:
    return CardMap()


def card_regions(reading: CardMapReading, min_area_px: float = 0.0) -> list[CardRegion]:
    """One region per card the map sees. Seeds (interior off the boundary band, split where the
    map says one holds several cards: `_seeds`) tell cards apart, touching ones too; each seed
    then takes back the card pixels around it (geodesic growth within the interior, a pixel a
    step, so two cards' growth meets on their shared boundary), and the region's outline is the
    card's edge as the map places it."""
    card = reading.interior > 0.5
    min_map_area = max(4.0, min_area_px / reading.scale**2)
    n, labels, stats, reach = _seeds((card & (reading.boundary < 0.5)).astype(np.uint8), reading, min_map_area)
    small = {i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] < 0.25 * min_map_area}
    if small:
        labels[np.isin(labels, list(small))] = 0  # specks of interior are no card's seed
    grown = labels.astype(np.float32)
    kernel = np.ones((3, 3), np.uint8)
    for step in range(int(reach.max(initial=0))):
        free = card & (grown == 0)
        if not free.any():
            break
        # Only the seeds that reach this far grow on.
        growing = np.where(reach[grown.astype(np.int32)] > step, grown, 0)
        grown = np.where(free, cv2.dilate(growing, kernel), grown)
    grown = grown.astype(np.int32)
    # Each region's mean interior probability, all regions in one pass over the map.
    sums = np.bincount(grown.ravel(), weights=reading.interior.ravel(), minlength=n)
    counts = np.bincount(grown.ravel(), minlength=n)
    out = []
    for i in range(1, n):
        if i in small:
            continue
        x, y, w, h, _ = stats[i]
        pad = int(reach[i]) + 1
        x0, y0 = max(0, x - pad), max(0, y - pad)
        own = (grown[y0 : y + h + pad, x0 : x + w + pad] == i).astype(np.uint8)
        contours, _ = cv2.findContours(own, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        if not contours:
            continue
        cnt = max(contours, key=cv2.contourArea).reshape(-1, 2) + [x0, y0]
        # The outline runs through the outermost card pixels' centres, half a pixel inside the
        # edge: moved out by that half pixel.
        cnt = _outward(cnt.astype(np.float64), 0.5)
        area = cv2.contourArea(cnt.astype(np.float32)) * reading.scale**2
        if area < min_area_px:
            continue
        conf = float(sums[i] / max(counts[i], 1))
        out.append(CardRegion(reading.to_frame(cnt), float(area), conf))
    return out


def _seeds(
    seed: np.ndarray, reading: CardMapReading, min_map_area: float
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """Connected seeds (as `cv2.connectedComponentsWithStats`), and how far each grows back. A
    seed is split where the map drew a faint boundary through it: two cards that touch, white on
    white or under blur, often get a boundary line too weak for the 0.5 cut, and one seed holds
    both. Else, from weights that mark cores, where it holds several: touching cards whose shared
    edge the map did not draw at all. A seed splits only into card-like parts (filled boxes of a
    card's area): a card's printed frame or pattern, drawn as faint boundary too, leaves a ring or
    specks, not two solid cards. A part grows back `GROWTH_STEPS`, a core as far as its card's
    edge lies (`CORE_SHARE`)."""
    n, labels, stats, _ = cv2.connectedComponentsWithStats(seed, connectivity=4)
    weak = reading.boundary < WEAK_BOUNDARY
    core = None if reading.core is None else reading.core > 0.5
    kept = np.zeros(labels.shape, np.uint8)
    reach_at = np.zeros(labels.shape, np.float32)
    for i in range(1, n):
        x, y, w, h, area = stats[i]
        win = np.s_[y : y + h, x : x + w]
        own = labels[win] == i
        parts, cores = None, False
        if area >= 2 * min_map_area:
            parts = _card_parts(own & weak[win], max(min_map_area, SPLIT_SHARE * area))
            if parts is None and core is not None:
                parts = _card_parts(own & core[win], max(0.25 * min_map_area, CORE_SPLIT_SHARE * area))
                cores = parts is not None
            if parts is None:
                # Last, a card partly under another: its part is the rest of a box the other's
                # covers. Not first: a faint line across touching cards then splits them where
                # their cores split them better (diagnostic renders, 62e6: 177 -> 175 found).
                parts = _card_parts(own & weak[win], max(min_map_area, SPLIT_SHARE * area), overlapping=True)
        for part in parts or [own]:
            kept[win][part] = 1
            grow = GROWTH_STEPS
            if cores:
                half_width = cv2.distanceTransform(part.astype(np.uint8), cv2.DIST_L2, 3).max()
                grow = np.ceil(half_width * CORE_SHARE / (1 - CORE_SHARE)) + CORE_GROWTH_SLACK
            reach_at[win][part] = grow
    if kept.sum() == seed.sum():
        reach = np.full(n, GROWTH_STEPS, np.float32)
        reach[0] = 0
        return n, labels, stats, reach
    # Parts of one seed are apart (the line between them), so labelling again finds each.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(kept, connectivity=4)
    reach = np.zeros(n, np.float32)
    np.maximum.at(reach, labels.ravel(), reach_at.ravel())
    reach[0] = 0
    return n, labels, stats, reach


def _card_parts(mask: np.ndarray, min_area: float, overlapping: bool = False) -> list[np.ndarray] | None:
    """The connected parts of `mask` of at least `min_area` px, when there are two or more and
    each fills its least box as a card (seen in perspective) does. `overlapping`: where the
    other parts do not lie in it (a card partly under another shows the rest of it), while no
    part lies mostly inside another's box (that is print on one card: a frame and its ring)."""
    m, sub, st, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=4)
    parts = [sub == j for j in range(1, m) if st[j, cv2.CC_STAT_AREA] >= min_area]
    if len(parts) < 2:
        return None
    sizes = [int(np.count_nonzero(p)) for p in parts]
    for i, part in enumerate(parts):
        rect = cv2.minAreaRect(cv2.findNonZero(part.astype(np.uint8)))
        hidden = 0
        if overlapping:
            box = np.zeros(part.shape, np.uint8)
            cv2.fillConvexPoly(box, np.round(cv2.boxPoints(rect) * 16).astype(np.int32), 1, cv2.LINE_8, shift=4)
            inside = [int(np.count_nonzero(parts[j] & box.astype(bool))) if j != i else 0 for j in range(len(parts))]
            if any(n > 0.5 * sizes[j] for j, n in enumerate(inside)):
                return None
            hidden = sum(inside)
        if sizes[i] < BOX_FILL * max(rect[1][0] * rect[1][1] - hidden, 1.0):
            return None
    return parts


def _outward(cnt: np.ndarray, d: float) -> np.ndarray:
    """The closed outline `cnt` (N x 2) with every point moved `d` along its outward normal."""
    nxt, prv = np.roll(cnt, -1, axis=0), np.roll(cnt, 1, axis=0)
    t = nxt - prv
    n = np.stack([t[:, 1], -t[:, 0]], axis=1)
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)
    # Outward for a contour of either orientation: the normal pointing away from its centre.
    sign = np.sign(np.sum((cnt - cnt.mean(axis=0)) * n)) or 1.0
    return cnt + sign * d * n
