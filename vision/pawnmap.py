"""The learned pawn map (issue 26): per pixel of the frame read at the size its weights name
(1280 px: pieces are small), where a game piece stands (`piece`) and where its foot touches the
table (`foot`, a peak per foot). Trained by `python -m vision.train.pawnmap` on the randomised
renders with pieces; which player a piece is, and whether it is anyone's, is its colour's to
say (learnt at setup), not the map's. Not yet what the referee reads pawns with (`vision.pawns`
is): `python -m bench.pawns --pawn-map ONNX` measures it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.cardmap import MAP_LONG_SIDE, MODELS, Weights, map_to_frame, network_input

OUTPUTS = ("piece", "foot")  # the network's outputs, in order (logits)
FOOT_PEAK = 0.5  # a foot: a local maximum of the foot map at least this likely (unless the weights say)
PIECE_REACH = 3  # map px around a foot where its piece's pixels are looked for
# A piece is a player's when its hue lies this near the player's learnt colour's (degrees in
# CIELAB's a*b* plane) with at least this share of its chroma (a white or black piece has next to
# none). Players' colours lie further apart (`vision.synthetic.pieces.MIN_PLAYER_HUE_GAP`).
PLAYER_HUE_DEG = 20.0
PLAYER_CHROMA = 0.4


def foot_peaks(foot: np.ndarray, peak: float = FOOT_PEAK) -> np.ndarray:
    """Feet (N x 2, x y in map px, sub-pixel) from the foot map's probabilities: its local maxima
    (3 x 3) of at least `peak`, each placed between its neighbours by a parabola on each axis."""
    foot = np.asarray(foot, np.float32)
    top = (foot >= cv2.dilate(foot, np.ones((3, 3), np.uint8))) & (foot >= peak)
    i, j = np.nonzero(top)
    h, w = foot.shape
    pad = np.pad(foot, 1, mode="edge")
    out = np.empty((len(i), 2))
    for k, (y, x) in enumerate(zip(i.tolist(), j.tolist())):
        b = pad[y + 1, x + 1]
        at = []
        for (a, c), inside in (((pad[y + 1, x], pad[y + 1, x + 2]), 0 < x < w - 1), ((pad[y, x + 1], pad[y + 2, x + 1]), 0 < y < h - 1)):
            den = a - 2 * b + c
            at.append(float(np.clip(0.5 * (a - c) / den, -0.5, 0.5)) if inside and den < -1e-6 else 0.0)
        out[k] = (x + at[0], y + at[1])
    return out


@dataclass(frozen=True)
class PawnMapReading:
    piece: np.ndarray  # h x w float32, probability a map pixel shows a standing piece
    foot: np.ndarray  # h x w float32, peaks where pieces' feet touch the table
    scale: float  # frame px per map px, as `CardMapReading.scale`
    colours: np.ndarray  # h x w x 3 uint8, the frame's BGR at the map's size (each pixel's mean)

    def to_frame(self, pts: np.ndarray) -> np.ndarray:
        return map_to_frame(pts, self.scale)


@dataclass(frozen=True)
class PieceSighting:
    """A standing piece the map found: its foot (frame px) and colour (BGR, the median of the
    pixels the map calls its own)."""

    foot_px: tuple[float, float]
    bgr: tuple[int, int, int]
    likely: float  # the foot map's peak


class PawnMap(Weights):
    """Loads the network once; `read(image)` maps a BGR frame, `pieces(reading)` lists the pieces."""

    def __init__(self, path: str | Path = MODELS / "pawnmap.onnx") -> None:
        super().__init__(
            path, "the pawn map's weights are missing (none ship yet: python -m vision.train.pawnmap --export CHECKPOINT)"
        )
        self.long_side = int(self.card.get("input_long_side", MAP_LONG_SIDE))
        self.stride = int(self.card.get("output_stride", 2))
        # How likely a foot's peak must be: chosen per weights on their validation renders.
        self.foot_peak = float(self.card.get("foot_peak", FOOT_PEAK))

    def read(self, image: np.ndarray) -> PawnMapReading:
        """The map of a BGR frame, read once at the weights' size."""
        h, w = image.shape[:2]
        small, size = network_input(image, self.long_side)
        logits = self.run(cv2.dnn.blobFromImage(small))[0]
        mh, mw = size[1] // self.stride, size[0] // self.stride
        p = 1.0 / (1.0 + np.exp(-logits[:, :mh, :mw]))
        colours = cv2.resize(small[: size[1], : size[0]], (mw, mh), interpolation=cv2.INTER_AREA)
        return PawnMapReading(p[0], p[1], self.stride * max(h, w) / self.long_side, colours)


def pieces(reading: PawnMapReading, peak: float = FOOT_PEAK) -> list[PieceSighting]:
    """The pieces of a reading: one per foot, coloured by the piece the map marks beside it (the
    region of `piece` over 0.5 most of the pixels within PIECE_REACH map px hold)."""
    feet = foot_peaks(reading.foot, peak)
    _, labels = cv2.connectedComponents((reading.piece > 0.5).astype(np.uint8), connectivity=8)
    h, w = labels.shape
    colour_of: dict[int, np.ndarray] = {}  # a marked region's median colour, once per region
    out = []
    for u, v in feet.tolist():
        x, y = min(max(round(u), 0), w - 1), min(max(round(v), 0), h - 1)
        near = labels[max(y - PIECE_REACH, 0) : y + PIECE_REACH + 1, max(x - PIECE_REACH, 0) : x + PIECE_REACH + 1]
        ids, counts = np.unique(near[near > 0], return_counts=True)
        if len(ids):
            k = int(ids[np.argmax(counts)])
            if k not in colour_of:
                colour_of[k] = np.median(reading.colours[labels == k], axis=0)
            bgr = colour_of[k]
        else:  # no piece marked beside the foot: its own pixel's colour
            bgr = reading.colours[y, x]
        foot = reading.to_frame(np.array([u, v]))
        out.append(PieceSighting((float(foot[0]), float(foot[1])), tuple(int(c) for c in bgr), float(reading.foot[y, x])))
    return out


def player_of(bgr: tuple[int, int, int], players: dict[str, tuple[int, int, int]]) -> str | None:
    """The player whose learnt colour the piece's is: nearest in hue (its angle in CIELAB's a*b*
    plane), within PLAYER_HUE_DEG, and with at least PLAYER_CHROMA of that colour's chroma; None
    when it is no one's (a coin, a white, black or wooden piece, a token of another game). Hue
    and a share of the chroma, not a distance: a piece's shaded side keeps its lit top's hue
    with less of everything else."""
    if not players:
        return None
    lab = cv2.cvtColor(np.uint8([[bgr, *players.values()]]), cv2.COLOR_BGR2LAB)[0].astype(np.float64)
    a, b = lab[:, 1] - 128, lab[:, 2] - 128
    hue, chroma = np.degrees(np.arctan2(b, a)), np.hypot(a, b)
    d = np.abs((hue[1:] - hue[0] + 180) % 360 - 180)
    k = int(np.argmin(d))
    if d[k] > PLAYER_HUE_DEG or chroma[0] < PLAYER_CHROMA * chroma[1 + k]:
        return None
    return list(players)[k]


def card_under(foot_px: tuple[float, float], quads: list[np.ndarray]) -> int | None:
    """The card (index into `quads`, frame px) the foot stands on: of those holding it, the one
    it lies deepest in (a foot overhanging an edge is on the card it is on), None when off every
    card."""
    best, depth = None, 0.0
    for k, q in enumerate(quads):
        d = cv2.pointPolygonTest(np.asarray(q, np.float32), (float(foot_px[0]), float(foot_px[1])), True)
        if d >= depth:
            best, depth = k, d
    return best


def find_pawns(
    pawn_map: PawnMap, image: np.ndarray, quads: list[np.ndarray], players: dict[str, tuple[int, int, int]]
) -> list[tuple[str, tuple[float, float], int | None]]:
    """The pawns of a frame: (player, foot px, card index into `quads` or None) for each piece
    the map finds in a player's learnt colour."""
    out = []
    for p in pieces(pawn_map.read(image), pawn_map.foot_peak):
        who = player_of(p.bgr, players)
        if who is not None:
            out.append((who, p.foot_px, card_under(p.foot_px, quads)))
    return out
