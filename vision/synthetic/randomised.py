"""Randomised training renders for the learned card map: any card, any table, any camera.

    sample = training_sample(seed=7)          # image, instances, quads, ignore
    sample = training_sample(7, pieces=True)  # the same, with game pieces standing on it (.pieces)

How a sample is made (about a few tens of ms):
1. A camera: a homography of the table plane seen tilted up to 60 degrees, any rotation, with a
   scale chosen so the cards come out 12 px .. most of the frame on their short side.
2. At 2x the output size: a random table (vision.synthetic.surfaces) warped once, then cards,
   decks, props, held fans and hands (painter's order), each drawn as a picture at the scale the
   camera sees it and warped into its own small region. Each object's alpha, reduced to 1x,
   writes the instance, layer and ignore maps, so the labels are exactly what is visible.
3. Reduce to 1x with INTER_AREA (anti-aliased edges, as a reduced camera frame); then light,
   shadows, glare, tint, exposure, lens barrel, blur, noise and JPEG (vision.synthetic.photometry).

With `pieces=True` pawns and distractors stand on the cards and table (vision.synthetic.pieces),
drawn under the hands, from a random stream of their own: the cards, table and clutter are those
of the same seed without pieces, so the card-map training data stay as they were.

CLI: python -m vision.synthetic.randomised --seed 0 --count 24 --out DIR [--pieces]
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from vision.synthetic.card_designs import (
    card_art,
    fill_outline,
    outer_size_mm,
    random_deck_style,
    rounded_rect_mm,
)
from vision.synthetic.clutter import KEYS_KINDS, hand_art, prop_art
from vision.synthetic.photometry import (
    add_glare,
    add_projector_light,
    add_sheen,
    barrel_maps,
    barrel_points,
    camera_effects,
    light_field,
)
from vision.synthetic.pieces import (
    Piece,
    PieceTruth,
    draw_piece,
    footprint_px,
    place_pieces,
    player_colours,
    project,
    render_parts,
)
from vision.synthetic.random_layouts import Thing, random_things, thing_corners_mm
from vision.synthetic.surfaces import table_albedo, table_surface
from vision.synthetic.truth import order_clockwise_from_top_left

MAX_TEXTURE_PX = 720  # a picture never needs more pixels than the camera gives it
TABLE_BUDGET_PX = 160_000
HIDDEN_IGNORE = 0.6  # a card hidden by more than this share of its in-frame area is not scored
MIN_SCORED_PX = 12
PROJECTOR_SHARE = 0.4  # of the frames drawn with `projector`, those lit by one


@dataclass
class TrainingSample:
    image: np.ndarray  # H x W x 3 uint8 BGR, as a camera frame scaled down to the network's size
    instances: np.ndarray  # H x W uint16: 0 = no card seen here, k = the visible pixels of card k (1-based)
    quads: list[np.ndarray]  # card k-1's 4 x 2 float64 sharp corners in image px, clockwise from the top-left
    ignore: np.ndarray  # H x W bool: pixels not to score
    # Table mm -> image px, as an exact calibration gives it (None: the lens bends lines, which
    # no homography follows); the frame's deck's card size (mm, short and long), and each quad's
    # own (a second deck of another size may lie among it).
    table_to_image: np.ndarray | None = None
    card_size_mm: tuple[float, float] = (63.0, 88.0)
    quad_sizes_mm: list[tuple[float, float]] = field(default_factory=list)
    # Each quad's card: the share of its in-frame pixels that shows (1.0: nothing lies on it). Its
    # rounded corners and anti-aliased rim are not in its sharp quad's area, so that is no measure.
    seen: list[float] = field(default_factory=list)
    # Game pieces standing in the frame (only with pieces=True), and the players' colours (BGR).
    pieces: list[PieceTruth] = field(default_factory=list)
    player_colours: list[tuple[int, int, int]] = field(default_factory=list)
    # H x W uint16 (pieces=True): 0 = no piece shows here, k = the visible pixels of pieces[k - 1].
    piece_instances: np.ndarray | None = None
    # The table's surface (vision.synthetic.surfaces.TABLE_KINDS, or "white"), to report by surface.
    table_kind: str = ""


# ---- camera ------------------------------------------------------------------------------------------------
def _rx(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _rz(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def random_homography(rng: np.random.Generator, w2: int, h2: int, px_per_mm: float) -> np.ndarray:
    """Table mm (x right, y down; z into the table) -> image px of a pinhole camera looking at the
    table origin, tilted up to 60 degrees, turned any way, with `px_per_mm` at the image centre
    (geometric mean of the two directions)."""
    return random_camera(rng, w2, h2, px_per_mm)[0]


def random_camera(rng: np.random.Generator, w2: int, h2: int, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """`random_homography`'s camera: (table homography, 3 x 4 projection of table mm with z into
    the table), both scaled alike; the projection shows where a point above the table appears."""
    hfov = math.radians(rng.uniform(40, 80))
    f = (w2 / 2) / math.tan(hfov / 2)
    half_diag = math.degrees(math.atan(math.hypot(w2, h2) / 2 / f))
    t_max = max(0.0, min(60.0, 78.0 - half_diag))  # the far corner stays well short of the horizon
    tilt = math.radians(rng.uniform(0, min(20.0, t_max)) if rng.random() < 0.45 else rng.uniform(0, t_max))
    rot = _rz(rng.uniform(0, 2 * np.pi)) @ _rx(tilt) @ _rz(rng.uniform(0, 2 * np.pi))
    dist = f * math.sqrt(math.cos(tilt)) / px_per_mm
    cx, cy = (w2 - 1) / 2 + rng.normal(0, 0.02 * w2), (h2 - 1) / 2 + rng.normal(0, 0.02 * h2)
    k = np.array([[f, 0, cx], [0, f, cy], [0, 0, 1]])
    hom = k @ np.c_[rot[:, 0], rot[:, 1], [0, 0, dist]]  # (as ever: the training renders' cameras stay bit-exact)
    proj = k @ np.c_[rot, [0, 0, dist]]
    return hom / hom[2, 2], proj / hom[2, 2]


def _project(hom: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.c_[pts, np.ones(len(pts))] @ hom.T
    return p[:, :2] / p[:, 2:3]


# ---- compositing -------------------------------------------------------------------------------------------
class _Canvas:
    """The 2x picture plus 1x instance / layer / ignore maps, written object by object."""

    def __init__(self, w: int, h: int) -> None:
        self.w, self.h = w, h
        self.img = np.zeros((2 * h, 2 * w, 3), np.uint8)
        self.inst = np.zeros((h, w), np.uint16)
        self.layer = np.zeros((h, w), np.uint16)
        self.ign = np.zeros((h, w), bool)
        self.piece = np.zeros((h, w), np.uint16)  # k: game piece k-1 shows here (pieces=True)

    def paste(self, bgr: np.ndarray, alpha: np.ndarray, hom: np.ndarray, layer: int, inst: int, ignore: bool):
        """Warp a picture (texture px -> 2x image px by hom) over the canvas. Returns its 1x region
        and mask (where it covers the pixel centre: >= half of the 2x2 block), or None."""
        th, tw = alpha.shape
        corners = _project(hom, np.array([[-0.5, -0.5], [tw - 0.5, -0.5], [tw - 0.5, th - 0.5], [-0.5, th - 0.5]]))
        lo = np.floor(corners.min(axis=0)) - 1
        hi = np.ceil(corners.max(axis=0)) + 2
        x0, y0 = max(0, int(lo[0]) // 2 * 2), max(0, int(lo[1]) // 2 * 2)
        x1, y1 = min(2 * self.w, -(-int(hi[0]) // 2) * 2), min(2 * self.h, -(-int(hi[1]) // 2) * 2)
        if x1 <= x0 or y1 <= y0:
            return None
        shift = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], float) @ hom
        rgba = cv2.warpPerspective(cv2.merge([*cv2.split(bgr), alpha]), shift, (x1 - x0, y1 - y0),
                                   flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        b, g, r, a = cv2.split(rgba)
        a3 = cv2.merge([a, a, a])
        roi = self.img[y0:y1, x0:x1]
        # Integer blending with OpenCV's saturating ops: a few times faster than float numpy.
        roi[:] = cv2.add(cv2.multiply(cv2.merge([b, g, r]), a3, scale=1 / 255),
                         cv2.multiply(roi, cv2.bitwise_not(a3), scale=1 / 255))
        a1 = cv2.resize(a, ((x1 - x0) // 2, (y1 - y0) // 2), interpolation=cv2.INTER_AREA) >= 128
        r1 = (x0 // 2, y0 // 2, x1 // 2, y1 // 2)
        sl = np.s_[r1[1]:r1[3], r1[0]:r1[2]]
        self.inst[sl][a1] = inst
        self.layer[sl][a1] = layer
        self.ign[sl][a1] = ignore
        self.piece[sl][a1] = 0
        return r1, a1

    def paste_piece(self, bgr: np.ndarray, alpha: np.ndarray, box: tuple[int, int, int, int], layer: int,
                    piece: int):
        """A piece drawn in place over the 2x region box (even-aligned); returns its 1x region and mask."""
        x0, y0, x1, y1 = box
        a3 = cv2.merge([alpha, alpha, alpha])
        roi = self.img[y0:y1, x0:x1]
        roi[:] = cv2.add(cv2.multiply(bgr, a3, scale=1 / 255), cv2.multiply(roi, cv2.bitwise_not(a3), scale=1 / 255))
        a1 = cv2.resize(alpha, ((x1 - x0) // 2, (y1 - y0) // 2), interpolation=cv2.INTER_AREA) >= 128
        r1 = (x0 // 2, y0 // 2, x1 // 2, y1 // 2)
        sl = np.s_[r1[1]:r1[3], r1[0]:r1[2]]
        self.inst[sl][a1] = 0
        self.layer[sl][a1] = layer
        self.ign[sl][a1] = False
        self.piece[sl][a1] = piece
        return r1, a1


def _texture_scale(hom2: np.ndarray, corners_mm: np.ndarray, size_mm: tuple[float, float]) -> float:
    """px per mm for an object's picture: the finest the camera sees it, capped."""
    px = _project(hom2, corners_mm)
    edge = np.linalg.norm(np.roll(px, -1, axis=0) - px, axis=1)
    s = max(edge[0] / size_mm[0], edge[2] / size_mm[0], edge[1] / size_mm[1], edge[3] / size_mm[1])
    return float(min(s * 1.1, MAX_TEXTURE_PX / max(size_mm)))


def _tex_to_table(t: Thing, u: float, shape: tuple[int, int], centre_mm) -> np.ndarray:
    """Homography: picture px -> table mm for a picture centred on centre_mm, turned by t.angle."""
    th, tw = shape
    a = math.radians(t.angle_deg)
    s = t.scale / u
    c, sn = math.cos(a) * s, math.sin(a) * s
    ox, oy = (tw - 1) / 2, (th - 1) / 2
    return np.array([[c, -sn, centre_mm[0] - c * ox + sn * oy], [sn, c, centre_mm[1] - sn * ox - c * oy], [0, 0, 1]])


def _draw_table(rng: np.random.Generator, cv: _Canvas, hom2: np.ndarray, white: bool) -> str:
    """Draws the table under the whole view; returns its surface's kind."""
    w2, h2 = 2 * cv.w, 2 * cv.h
    foot = _project(np.linalg.inv(hom2), np.array([[0, 0], [w2, 0], [w2, h2], [0, h2]], float))
    lo, hi = foot.min(axis=0), foot.max(axis=0)
    area = float(np.prod(hi - lo))
    centre_scale = math.sqrt(abs(np.linalg.det(hom2[:2, :2])))  # rough px/mm of the view
    r = min(centre_scale, math.sqrt(TABLE_BUDGET_PX / max(area, 1.0)))
    shape = (int((hi[1] - lo[1]) * r) + 2, int((hi[0] - lo[0]) * r) + 2)
    albedo, kind = table_surface(rng, shape, r, white)
    if rng.random() < 0.15:  # the table ends in view: floor or another surface beyond its edge
        p = rng.uniform(0.15, 0.85, 2) * [shape[1], shape[0]]
        a = rng.uniform(0, 2 * np.pi)
        ys, xs = np.ogrid[0 : shape[0], 0 : shape[1]]
        d = (xs - p[0]) * math.cos(a) + (ys - p[1]) * math.sin(a)
        beyond = table_albedo(rng, shape, r)
        albedo = np.where((d > 0)[..., None], (beyond * rng.uniform(0.3, 0.8)).astype(np.uint8), albedo)
        albedo[(d > 0) & (d < max(1.0, 15 * r))] = (albedo[(d > 0) & (d < max(1.0, 15 * r))] * 0.6).astype(np.uint8)
    to_mm = np.array([[1 / r, 0, lo[0]], [0, 1 / r, lo[1]], [0, 0, 1]])
    cv.img[:] = cv2.warpPerspective(albedo, hom2 @ to_mm, (w2, h2), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REFLECT)
    return kind


def _deck_edge(st, u: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One layer of a deck's side: the stock colour, darkened, with the card's outline."""
    ow, oh = outer_size_mm(st)
    W, H = max(3, int(math.ceil(ow * u))), max(3, int(math.ceil(oh * u)))
    col = np.array(st.back_bgr[0] if rng.random() < 0.5 else st.stock, np.float32) * rng.uniform(0.45, 0.8)
    img = np.empty((H, W, 3), np.uint8)
    img[:] = col.astype(np.uint8)
    return img, fill_outline((H, W), rounded_rect_mm(st.size_mm[0], st.size_mm[1], st.radius_mm), u)


# The frame size the benches, the card check and the 8-bit calibration draw randomised frames at
# (a webcam's 4:3; the map's training pool draws its own, smaller ones).
BENCH_SIZE = (1280, 960)


def training_sample(
    seed: int, size: tuple[int, int] = (512, 384), pieces: bool = False, keys: bool = False, projector: bool = False
) -> TrainingSample:
    """One randomised frame and its labels; the same seed gives the same sample. With `pieces`
    game pieces stand in it too (`TrainingSample.pieces`), drawn from their own random stream;
    with `keys`, now and then a keyboard or a keypad (`random_things`), from another; with
    `projector`, now and then a projector's light on the table (`add_projector_light`), from a
    third."""
    rng = np.random.default_rng(seed)
    prng = np.random.default_rng([seed, 0x9A7])  # the pieces' own: the rest is drawn as without them
    krng = np.random.default_rng([seed, 0x4E75]) if keys else None  # the keys' own, likewise
    jrng = np.random.default_rng([seed, 0x9E0]) if projector else None  # the projector's own
    players = player_colours(prng, int(prng.integers(2, 7))) if pieces else []
    w, h = size
    style = random_deck_style(rng)
    white = rng.random() < 0.08  # white cards on a white table: the case real photos failed on
    if white:
        paper = (int(rng.integers(225, 256)),) * 3
        style = replace(style, stock=paper, border=str(rng.choice(["none", "white"])), border_bgr=paper,
                        face=str(rng.choice(["set", "pips", "plain", "text"])))
    short = min(w, h)
    if rng.random() < 0.1:  # one or two huge cards filling much of the frame
        card_px = rng.uniform(short / 3, 0.85 * short)
    else:
        card_px = math.exp(rng.uniform(math.log(12), math.log(short / 3)))
    ow, oh = outer_size_mm(style)
    hom2, proj2 = random_camera(rng, 2 * w, 2 * h, 2 * card_px / ow)
    # 1x pixel j covers 2x pixels 2j, 2j+1 (centres at integers): u1 = (u2 - 0.5) / 2.
    hom1 = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]]) @ hom2
    cv = _Canvas(w, h)
    table_kind = _draw_table(rng, cv, hom2, white)
    foot = _project(np.linalg.inv(hom2), np.array([[0, 0], [2 * w, 0], [2 * w, 2 * h], [0, 2 * h]], float))
    things = random_things(rng, foot, style, krng)

    cards: list[tuple[np.ndarray, int, tuple[float, float]]] = []  # (quad 1x, provisional id, size mm) per scored card
    full_px: dict[int, int] = {}
    rois: dict[int, tuple[int, int, int, int]] = {}
    shadows: list[tuple[int, tuple, np.ndarray, float]] = []
    piece_shadows: list[tuple[int, tuple, np.ndarray, float]] = []
    sheens: list[tuple[int, float, tuple]] = []
    cards_mm: list[np.ndarray] = []  # scored cards' sharp corners (table mm), where pieces go
    placed: list[_Placed] = []  # the pieces drawn, with what their feet stand on
    # Held things (a hand, a fan of cards held up: scale > 1) come last; the pieces go under them.
    first_hand = next((i for i, t in enumerate(things) if t.kind == "hand" or t.scale > 1.0), len(things))
    # Layers 2, 4, ...: the pieces stand on layer 2k + 1, above what lies on the table, under the hands.
    for k, t in enumerate(things + [None]):
        if pieces and k == first_hand:
            placed = _draw_pieces(prng, cv, proj2, hom2, place_pieces(prng, foot, cards_mm, players),
                                  2 * k + 1, piece_shadows)
            if placed and prng.random() < 0.35:  # a hand reaching over one of them
                _draw_hand_over(prng, cv, hom2, placed, 2 * k + 2, piece_shadows)
        if t is None:
            break
        layer = 2 * k + 2
        if t.kind in ("card", "edge"):
            st = t.style
            size_mm = outer_size_mm(st)
            corners = thing_corners_mm(t, size_mm)
            u = _texture_scale(hom2, corners, (size_mm[0] * t.scale, size_mm[1] * t.scale)) * t.scale
            if t.kind == "card":
                bgr, alpha, sheen = card_art(rng, st, t.face_up, u)
            else:
                bgr, alpha = _deck_edge(st, u, rng)
                sheen = 0.0
            centre = t.centre_mm
        elif t.kind == "prop":
            size_mm = t.prop.size_mm
            corners = thing_corners_mm(t, size_mm)
            u = _texture_scale(hom2, corners, size_mm)
            bgr, alpha = prop_art(krng if t.prop.kind in KEYS_KINDS else rng, t.prop, u)
            centre, sheen = t.centre_mm, 0.0
        else:
            bgr, alpha, u, centre = _hand_in_place(rng, hom2, t)
            sheen = 0.0
        scored = t.kind == "card" and not t.ignore
        pid = len(cards) + 1 if scored else 0
        hom = hom2 @ _tex_to_table(t, u, alpha.shape, centre)
        got = cv.paste(bgr, alpha, hom, layer, pid, t.ignore)
        if got is None:
            continue
        r1, a1 = got
        if scored:
            cards.append((_project(hom1, corners), pid, (min(size_mm), max(size_mm))))
            cards_mm.append(corners)
            full_px[pid] = int(a1.sum())
            rois[pid] = r1
            if sheen > 0.3:
                sheens.append((pid, sheen, r1))
        if t.height_mm > 1.0:
            shadows.append((layer, r1, a1, t.height_mm))

    # Labels: renumber the cards that show, ignore those mostly hidden.
    counts = np.bincount(cv.inst.ravel(), minlength=len(cards) + 1)
    lut = np.zeros(len(cards) + 1, np.uint16)
    quads: list[np.ndarray] = []
    sizes: list[tuple[float, float]] = []
    seen: list[float] = []
    for quad, pid, size in cards:
        vis = int(counts[pid])
        if vis == 0:
            continue
        quads.append(quad)
        sizes.append(size)
        seen.append(vis / max(full_px[pid], 1))
        lut[pid] = len(quads)
        if vis < (1 - HIDDEN_IGNORE) * full_px[pid] or vis < MIN_SCORED_PX:
            x0, y0, x1, y1 = rois[pid]
            cv.ign[y0:y1, x0:x1] |= cv.inst[y0:y1, x0:x1] == pid
    inst = lut[cv.inst]

    img = cv2.resize(cv.img, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    # Shadows: each raised thing darkens what lies below it (lower layer), offset along the light.
    light = light_field(rng, h, w)
    if shadows or piece_shadows:
        lamp = rng if shadows else prng  # (a frame with no other shadow draws as it did without pieces)
        az = lamp.uniform(0, 2 * np.pi)
        reach = math.tan(math.radians(lamp.uniform(5, 55)))  # lamp's angle from straight up
        soft = lamp.uniform(0.02, 0.2)
        depth = lamp.uniform(0.25, 0.7)
        px_mm = card_px / ow
        for layer, (x0, y0, x1, y1), a1, height in shadows + piece_shadows:
            dx, dy = (math.cos(az) * reach * height * px_mm, math.sin(az) * reach * height * px_mm)
            sigma = 0.5 + soft * height * px_mm
            pad = int(3 * sigma) + 2
            # Only the region the shadow can reach: the silhouette shifted, grown by the blur.
            bx0, by0 = max(0, int(x0 + min(dx, 0)) - pad), max(0, int(y0 + min(dy, 0)) - pad)
            bx1, by1 = min(w, int(x1 + max(dx, 0)) + pad + 1), min(h, int(y1 + max(dy, 0)) + pad + 1)
            if bx1 <= bx0 or by1 <= by0:
                continue
            sil = np.zeros((by1 - by0, bx1 - bx0), np.float32)
            m = np.float32([[1, 0, x0 + dx - bx0], [0, 1, y0 + dy - by0]])
            cv2.warpAffine(a1.astype(np.float32), m, (bx1 - bx0, by1 - by0), sil, flags=cv2.INTER_LINEAR,
                           borderMode=cv2.BORDER_TRANSPARENT)
            sil = cv2.GaussianBlur(sil, (0, 0), sigma)
            light[by0:by1, bx0:bx1] *= 1 - depth * sil * (cv.layer[by0:by1, bx0:bx1] < layer)
    if rng.random() < 0.8:
        # Contact shadows: a card or sheet is never perfectly flat or thin, so a faint dark line
        # falls beside each edge of it on whatever lies below (the cue white-on-white cards give).
        d = rng.uniform(0.5, 2.5)
        ang = rng.uniform(0, 2 * np.pi)
        m = np.float32([[1, 0, d * math.cos(ang)], [0, 1, d * math.sin(ang)]])
        above = cv2.warpAffine(cv.layer, m, (w, h), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        edge = cv2.GaussianBlur((above > cv.layer).astype(np.float32), (0, 0), rng.uniform(0.4, 1.2))
        light *= 1 - rng.uniform(0.08, 0.4) * edge
    # White balance / colour temperature (warm or cool, plus a random cast) and exposure, in one pass.
    warm = rng.normal(0, 0.08)
    gains = np.float32(math.exp(rng.normal(0, 0.3))) * np.array(
        [1 - warm, 1.0, 1 + warm] * rng.uniform(0.92, 1.08, 3), np.float32)
    img *= cv2.merge([light * gains[0], light * gains[1], light * gains[2]])
    # Over-exposure, but not past what auto-exposure allows: a frame blown out to white would
    # label cards nobody can see.
    mid = float(np.median(img[::8, ::8]))
    limit = rng.uniform(190, 225)
    if mid > limit:
        img *= np.float32(limit / mid)
    if jrng is not None and cards_mm and jrng.random() < PROJECTOR_SHARE:
        add_projector_light(jrng, img, hom1, cards_mm, card_px / ow)
    for pid, sheen, (x0, y0, x1, y1) in sheens:
        if lut[pid] and rng.random() < 0.5:
            add_sheen(rng, img, inst, lut[pid], (x0, y0, x1, y1), sheen)
    if rng.random() < 0.3:
        add_glare(rng, img)
    ign = cv.ign
    table_to_image: np.ndarray | None = hom1
    half = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]])
    truths = _piece_truths(cv, placed, half @ proj2, lut)
    # The piece map in the truths' order (a piece too small to draw a pixel has none).
    relabel = np.zeros(len(placed) + 1, np.uint16)
    relabel[[i for i, pl in enumerate(placed, start=1) if pl.full_px]] = np.arange(1, len(truths) + 1)
    piece_map = relabel[cv.piece]
    if rng.random() < 0.25:  # slight lens barrel
        table_to_image = None
        k = rng.uniform(0.01, 0.06)
        truths = [replace(p, foot_px=tuple(float(v) for v in barrel_points(np.array([p.foot_px]), w, h, k)[0]))
                  for p in truths]
        mx, my = barrel_maps(w, h, k)
        img = cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        inst = cv2.remap(inst, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        ign = cv2.remap(ign.view(np.uint8), mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE) > 0
        piece_map = cv2.remap(piece_map, mx, my, cv2.INTER_NEAREST, borderMode=cv2.BORDER_REPLICATE)
        quads = [barrel_points(q, w, h, k) for q in quads]
    image = camera_effects(rng, img)
    quads = [np.ascontiguousarray(q[order_clockwise_from_top_left(q)], dtype=np.float64) for q in quads]
    return TrainingSample(
        image=image,
        instances=inst.astype(np.uint16),
        quads=quads,
        ignore=ign.astype(bool),
        table_to_image=table_to_image,
        card_size_mm=(min(ow, oh), max(ow, oh)),
        quad_sizes_mm=sizes,
        seen=seen,
        pieces=truths,
        player_colours=players,
        piece_instances=piece_map if pieces else None,
        table_kind=table_kind,
    )


def _hand_in_place(rng: np.random.Generator, hom2: np.ndarray, t: Thing) -> tuple[np.ndarray, np.ndarray, float, tuple]:
    """A hand's (BGR, alpha, px per mm, centre mm): fingertips at t.centre_mm, the arm running
    out along the art's +y."""
    u = min(_texture_scale(hom2, thing_corners_mm(t, (100, 100)), (100 * t.scale, 100 * t.scale)) * t.scale,
            MAX_TEXTURE_PX / 840)
    bgr, alpha, size_mm = hand_art(rng, u)
    a = math.radians(t.angle_deg)
    off = (size_mm[1] / 2 - 5) * t.scale
    return bgr, alpha, u, (t.centre_mm[0] - math.sin(a) * off, t.centre_mm[1] + math.cos(a) * off)


@dataclass
class _Placed:
    piece: Piece
    under: int  # provisional id of the card showing where its foot is (0: none)
    overhang: bool
    full_px: int  # its pixels when drawn (before anything went over it)
    size_px: float
    radius_px: float


def _to_1x(p2: np.ndarray) -> np.ndarray:
    return 0.5 * p2 - 0.25


def _draw_pieces(rng: np.random.Generator, cv: _Canvas, proj2: np.ndarray, hom2: np.ndarray, placed: list[Piece],
                 layer: int, shadows: list) -> list[_Placed]:
    """Draw the pieces over the canvas (contact shadow first); what each foot stands on is read
    from the instance map before any is drawn, so it is what the camera shows there."""
    out: list[_Placed] = []
    for p in placed:
        foot = _to_1x(project(proj2, np.array([[*p.foot_mm, 0.0]])))[0]
        ring = _to_1x(footprint_px(proj2, p))
        def at(q):  # noqa: E306 - the instance under a 1x point (0 outside the frame)
            x, y = int(round(q[0])), int(round(q[1]))
            return int(cv.inst[y, x]) if 0 <= x < cv.w and 0 <= y < cv.h else -1
        under = max(at(foot), 0)
        rim = [at(q) for q in ring]
        over = any(v >= 0 and v != under for v in rim)
        out.append(_Placed(p, under, over, 0, 0.0, float(np.linalg.norm(ring - foot, axis=1).mean())))
    for i, pl in enumerate(out, start=1):
        parts, fp = draw_piece(rng, proj2, pl.piece)
        pts = np.vstack([poly for poly, _ in parts] + [fp])
        centre = fp.mean(axis=0)
        grown = centre + (fp - centre) * 1.3  # the contact shadow reaches past the footprint
        sigma = max(0.7, 0.15 * float(np.ptp(fp[:, 0])))
        pad = 3 * sigma + 4  # the blurred shadow fades out inside the region it is drawn in
        lo = np.floor(np.vstack([pts, grown]).min(axis=0) - pad)
        hi = np.ceil(np.vstack([pts, grown]).max(axis=0) + pad)
        x0, y0 = max(0, int(lo[0]) // 2 * 2), max(0, int(lo[1]) // 2 * 2)
        x1, y1 = min(2 * cv.w, -(-int(hi[0]) // 2) * 2), min(2 * cv.h, -(-int(hi[1]) // 2) * 2)
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        dark = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(dark, [np.round((grown - [x0, y0]) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, shift=4)
        dark = cv2.GaussianBlur(dark, (0, 0), sigma)
        roi = cv.img[y0:y1, x0:x1]
        roi[:] = (roi * (1 - rng.uniform(0.3, 0.6) * dark)[..., None]).astype(np.uint8)
        bgr, alpha = render_parts(rng, parts, pl.piece.material, (x0, y0, x1, y1))
        r1, a1 = cv.paste_piece(bgr, alpha, (x0, y0, x1, y1), layer, i)
        pl.full_px = int(a1.sum())
        foot2 = project(proj2, np.array([[*pl.piece.foot_mm, 0.0]]))[0]
        pl.size_px = float(np.linalg.norm(pts - foot2, axis=1).max()) / 2
        if pl.piece.height_mm > 1.0:
            shadows.append((layer, r1, a1, pl.piece.height_mm))
    return out


def _draw_hand_over(rng: np.random.Generator, cv: _Canvas, hom2: np.ndarray, placed: list[_Placed], layer: int,
                    shadows: list) -> None:
    """A hand whose fingers end on or beside one of the pieces, partly hiding it."""
    p = placed[int(rng.integers(0, len(placed)))].piece
    d = rng.uniform(0, 2 * np.pi)
    reach = p.radius_mm * rng.uniform(0.2, 1.2)
    tip = (p.foot_mm[0] + math.cos(d) * reach, p.foot_mm[1] + math.sin(d) * reach)
    t = Thing("hand", tip, float(rng.uniform(0, 360)), height_mm=float(rng.uniform(20, 60)))
    bgr, alpha, u, centre = _hand_in_place(rng, hom2, t)
    got = cv.paste(bgr, alpha, hom2 @ _tex_to_table(t, u, alpha.shape, centre), layer, 0, False)
    if got is not None:
        shadows.append((layer, got[0], got[1], t.height_mm))


HIDDEN_SEEN = 0.9  # a piece less than this share of which shows is partly hidden


def _piece_truths(cv: _Canvas, placed: list[_Placed], proj1: np.ndarray, lut: np.ndarray) -> list[PieceTruth]:
    out = []
    for i, pl in enumerate(placed, start=1):
        if pl.full_px == 0:
            continue  # too small or outside to draw a pixel
        p = pl.piece
        seen = float((cv.piece == i).sum()) / pl.full_px
        foot = project(proj1, np.array([[*p.foot_mm, 0.0]]))[0]
        card = int(lut[pl.under]) - 1 if 0 < pl.under < len(lut) and lut[pl.under] else None
        out.append(PieceTruth(p.kind, p.pawn, p.bgr, p.material, (float(foot[0]), float(foot[1])), p.foot_mm, card,
                              pl.overhang, seen < HIDDEN_SEEN, seen, pl.size_px, pl.radius_px))
    return out


# ---- CLI: samples and a contact sheet to look at ---------------------------------------------------------
def colour_instances(inst: np.ndarray) -> np.ndarray:
    """A random colour per instance (0 stays black), for people to look at."""
    pal = np.random.default_rng(12345).integers(60, 256, (int(inst.max()) + 1, 3)).astype(np.uint8)
    pal[0] = 0
    return pal[inst]


def contact_row(s: TrainingSample) -> np.ndarray:
    """image | instances (coloured, quads drawn; pieces' feet: green a pawn, red not, a line to
    the card it stands on) | ignore (white over the dimmed image)."""
    inst = colour_instances(s.instances)
    img = s.image.copy()
    for q in s.quads:
        cv2.polylines(inst, [np.round(q * 4).astype(np.int32)], True, (255, 255, 255), 1, cv2.LINE_AA, shift=2)
    for p in s.pieces:
        foot = (int(round(p.foot_px[0])), int(round(p.foot_px[1])))
        colour = (0, 255, 0) if p.pawn else (0, 0, 255)
        cv2.circle(inst, foot, 3 if p.hidden else 2, colour, 1 if p.hidden else -1, cv2.LINE_AA)
        if p.card is not None:
            cv2.line(inst, foot, tuple(int(v) for v in s.quads[p.card].mean(axis=0)), colour, 1, cv2.LINE_AA)
    ign = (s.image // 3).copy()
    ign[s.ignore] = (255, 255, 255)
    return np.hstack([img, inst, ign])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=24)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--size", type=int, nargs=2, default=(512, 384), metavar=("W", "H"))
    ap.add_argument("--pieces", action="store_true", help="game pieces standing in the frames")
    ap.add_argument("--keys", action="store_true", help="now and then a keyboard or a keypad on the table")
    ap.add_argument("--projector", action="store_true", help="now and then a projector's light on the table")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    t0 = time.perf_counter()
    for i in range(args.count):
        s = training_sample(args.seed + i, tuple(args.size), args.pieces, args.keys, args.projector)
        stem = args.out / f"sample_{args.seed + i:06d}"
        cv2.imwrite(f"{stem}_image.png", s.image)
        cv2.imwrite(f"{stem}_instances.png", s.instances)
        cv2.imwrite(f"{stem}_ignore.png", s.ignore.astype(np.uint8) * 255)
        np.save(f"{stem}_quads.npy", np.array(s.quads, np.float64).reshape(-1, 4, 2))
        rows.append(contact_row(s))
    dt = (time.perf_counter() - t0) / max(1, args.count)
    sheet = np.vstack(rows)
    cv2.imwrite(str(args.out / "contact_sheet.png"), sheet)
    print(f"{args.count} samples in {args.out} ({dt * 1000:.1f} ms each incl. writing); contact_sheet.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
