"""What the pawn map (`vision.pawnmap`) should say for a render with pieces, and how its feet
are scored; numpy and OpenCV only (no torch), so the runtime's tests can use it too."""

from __future__ import annotations

import cv2
import numpy as np

from vision.synthetic.pieces import PAWN_KINDS
from vision.train.targets import map_size

# The map marks every piece a player could own - pawns, cones, meeples, discs, standees, and the
# same shapes in colours no player has - and not coins or dice: whose a piece is, and whether it
# is anyone's, is its colour's to say (learnt at setup from the pieces on the starting cards).
PIECE_KINDS = (*PAWN_KINDS, "pale", "token")  # "pale": a pawn's shape in white, black, wood or pink
# A piece is scored when at least this share of it shows (one under a hand is neither asked for
# nor held against the map) and its footprint has at least this radius (px of the map's input).
SEEN_MIN = 0.5
RADIUS_MIN_PX = 2.0
FOOT_SIGMA = 0.25  # the foot's Gaussian, a share of the footprint's radius (at least 0.7 map px)


def scored(p) -> bool:
    """Whether the map is asked to find the piece `p` (a `PieceTruth`)."""
    return p.kind in PIECE_KINDS and p.seen >= SEEN_MIN and p.radius_px >= RADIUS_MIN_PX


def pawn_targets(sample, stride: int = 2) -> np.ndarray:
    """(piece, foot, weight), 3 x h x w float32 at the map's size, of a render with pieces:
    `piece` the share of each map pixel a piece of `PIECE_KINDS` covers; `foot` the scored feet's
    Gaussians, exactly 1 at the map pixel nearest each; `weight` 0 around the feet of the other
    pieces of those kinds (mostly hidden, or tiny): neither asked for nor held against the map."""
    h, w = map_size(sample.image.shape, stride)
    kinds = np.array([False] + [p.kind in PIECE_KINDS for p in sample.pieces])
    piece = cv2.resize(kinds[sample.piece_instances].astype(np.float32), (w, h), interpolation=cv2.INTER_AREA)
    foot = np.zeros((h, w), np.float32)
    weight = np.ones((h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for p in sample.pieces:
        if p.kind not in PIECE_KINDS:
            continue
        # Map pixel j covers input px [j * stride, (j + 1) * stride).
        u, v = ((np.asarray(p.foot_px) + 0.5) / stride - 0.5).tolist()
        sigma = max(0.7, FOOT_SIGMA * p.radius_px / stride)
        if scored(p):
            np.maximum(foot, np.exp(-((xx - u) ** 2 + (yy - v) ** 2) / (2 * sigma**2)), out=foot)
            j, i = round(u), round(v)
            if 0 <= i < h and 0 <= j < w:
                foot[i, j] = 1.0
        else:
            cv2.circle(weight, (round(u), round(v)), max(2, round(3 * sigma)), 0.0, -1)
    return np.stack([piece, foot, weight])


def score_feet(found: np.ndarray, pieces: list) -> tuple[int, int, int]:
    """(scored pieces, of them found, false reports) for feet `found` (N x 2, input px): a report
    is on a piece within its drawn reach (`size_px`, at least 3 px) of its foot, nearest pairs
    first; one on a piece neither scored nor a coin or die (hidden, tiny) is neither right nor
    false."""
    pairs = sorted(
        (float(np.hypot(*(f - p.foot_px))), i, k)
        for i, f in enumerate(np.asarray(found, np.float64).reshape(-1, 2))
        for k, p in enumerate(pieces)
        if np.hypot(*(f - p.foot_px)) <= max(3.0, p.size_px)
    )
    used_f, used_p, hit, neither = set(), set(), 0, 0
    for _, i, k in pairs:
        if i in used_f or k in used_p:
            continue
        used_f.add(i)
        used_p.add(k)
        if scored(pieces[k]):
            hit += 1
        elif pieces[k].kind in PIECE_KINDS:
            neither += 1
    return sum(scored(p) for p in pieces), hit, len(found) - hit - neither
