"""What the card map should say for a frame: per pixel of the map (at the input's resolution
divided by the network's stride), card interior, card boundary, card core, and where not to
score it. Made from a render's instance map or from a real
photo's labelled corners; numpy, OpenCV and the runtime's own constants only (no torch), so the
runtime's tests can use it too."""

from __future__ import annotations

from dataclasses import dataclass, fields

import cv2
import numpy as np

from vision.cardmap import CORE_SHARE

# The boundary band: the pixels on both sides of the line where one card's visible region meets
# anything else, widened by this many map pixels. Two map px cut touching cards apart and leave a
# core even in a card 12 map px wide.
BOUNDARY_RADIUS = 0


@dataclass
class MapTargets:
    interior: np.ndarray  # h x w float32 0/1
    boundary: np.ndarray  # h x w float32 0/1
    weight: np.ndarray  # h x w float32: 0 where not scored
    core: np.ndarray  # h x w float32 0/1 (`vision.cardmap.CORE_SHARE`)

    def maps(self) -> tuple[np.ndarray, ...]:
        """The maps in field order, uncopied (`dataclasses.astuple` copies each)."""
        return tuple(getattr(self, f.name) for f in fields(self))


def map_size(shape: tuple[int, ...], stride: int = 2) -> tuple[int, int]:
    """(rows, cols) of the map for an input of `shape`: the network divides each side by its stride."""
    return shape[0] // stride, shape[1] // stride


def targets_from_instances(instances: np.ndarray, ignore: np.ndarray, stride: int = 2) -> MapTargets:
    """`instances`: H x W ints, 0 = no card, k = card k's visible pixels; `ignore`: H x W bool;
    the targets at the map's size for a network of `stride`."""
    h, w = map_size(instances.shape, stride)
    inst = cv2.resize(instances.astype(np.int32).astype(np.float32), (w, h), interpolation=cv2.INTER_NEAREST)
    inst = inst.astype(np.int32)
    interior = inst > 0
    # A pixel is on an edge when a neighbour has another label and one of the two is a card.
    pad = np.pad(inst, 1, mode="edge")
    edge = np.zeros_like(interior)
    for dy, dx in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        other = pad[1 + dy : 1 + dy + h, 1 + dx : 1 + dx + w]
        edge |= (other != inst) & ((other > 0) | interior)
    k = 2 * BOUNDARY_RADIUS + 1
    boundary = cv2.dilate(edge.astype(np.uint8), np.ones((k, k), np.uint8)) > 0
    ign = cv2.resize(ignore.astype(np.uint8), (w, h), interpolation=cv2.INTER_NEAREST)
    ign = cv2.dilate(ign, np.ones((3, 3), np.uint8)) > 0
    return MapTargets(*(m.astype(np.float32) for m in (interior, boundary, ~ign, card_cores(inst, edge))))


def card_cores(inst: np.ndarray, edge: np.ndarray) -> np.ndarray:
    """Of an instance map, each card's core (`CORE_SHARE`); `edge` marks the pixels on a card's
    edge (next to another label)."""
    inside = ((inst > 0) & ~edge).astype(np.uint8)
    # Beyond the frame is no edge: a card cut by it keeps the core of what shows.
    dist = cv2.distanceTransform(cv2.copyMakeBorder(inside, 1, 1, 1, 1, cv2.BORDER_REPLICATE), cv2.DIST_L2, 3)[1:-1, 1:-1]
    furthest = np.zeros(int(inst.max()) + 1, np.float32)
    np.maximum.at(furthest, inst.ravel(), dist.ravel())
    return (inst > 0) & (dist > CORE_SHARE * furthest[inst])


def instances_from_quads(
    shape: tuple[int, int], quads: list[np.ndarray], ignore_polygons: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """A labelled photo's instance map and ignore mask. Which of two overlapping cards lies on
    top is not labelled, so where labelled cards overlap nothing is scored."""
    h, w = shape
    inst = np.zeros((h, w), np.int32)
    count = np.zeros((h, w), np.uint8)
    for k, q in enumerate(quads, start=1):
        m = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(m, np.round(q * 16).astype(np.int32), 1, cv2.LINE_8, shift=4)
        inst[m > 0] = k
        count += m
    # Filled polygons take in the pixels their outline touches, so cards that touch share a line
    # of pixels: only a true overlap (wider than that) is left unscored.
    ignore = cv2.dilate(cv2.erode((count > 1).astype(np.uint8), np.ones((3, 3), np.uint8)), np.ones((3, 3), np.uint8)) > 0
    for p in ignore_polygons:
        m = np.zeros((h, w), np.uint8)
        cv2.fillPoly(m, [np.round(np.asarray(p) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
        ignore |= m > 0
    return inst, ignore
