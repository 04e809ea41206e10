"""Game pieces standing on the table for the randomised renders, with their truth.

Pawns (plastic pawn, cone, wooden meeple, disc/chip, cardboard standee in a base) in the players'
colours - any hues, chosen per frame -, and distractors that are not pawns: coins (gold ones too),
dice, tokens of other colours, and white, black, wooden or pink pieces. A piece stands up: it is
drawn in pseudo-3D by the frame's own camera (a 3 x 4 projection of table mm, z into the table),
so in an oblique view its top is displaced from its foot along the projected vertical. Each
piece is a stack of parts (rings of a solid of revolution, boxes, upright silhouettes) drawn
bottom first, with a soft contact shadow at its foot.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

PAWN_KINDS = ("pawn", "cone", "meeple", "disc", "standee")
DISTRACTOR_KINDS = ("coin", "dice", "token", "pale")  # pale: a pawn-shaped piece in white/black/wood/pink
MATERIALS = ("matte", "glossy", "wood")
# Not players' colours (BGR): a white, black, natural wood or pink piece is not a player's pawn.
NEUTRAL_BGR = {"white": (232, 236, 238), "black": (32, 30, 30), "wood": (95, 150, 200), "pink": (190, 160, 250)}
METAL_BGR = {"gold": (40, 165, 215), "silver": (185, 185, 185), "copper": (60, 110, 175)}
MIN_PLAYER_HUE_GAP = 25  # OpenCV hue units: two players' colours a person tells apart at a glance


@dataclass(frozen=True)
class Piece:
    """A piece as placed: what it is and where its foot is (table mm)."""

    kind: str  # one of PAWN_KINDS or DISTRACTOR_KINDS
    pawn: bool  # a player's pawn (True) or a distractor (False)
    bgr: tuple[int, int, int]
    material: str  # MATERIALS
    foot_mm: tuple[float, float]
    radius_mm: float  # the footprint's
    height_mm: float
    shape: str  # how it is drawn: "pawn", "cone", "meeple", "disc", "standee", "dice"


@dataclass(frozen=True)
class PieceTruth:
    """A rendered piece's labels."""

    kind: str
    pawn: bool
    bgr: tuple[int, int, int]
    material: str
    foot_px: tuple[float, float]  # where it touches the table, image px of the output frame
    foot_mm: tuple[float, float] | None  # table mm (None when the frame's lens bends lines)
    card: int | None  # index into the sample's quads of the card its foot stands on, None = not on a card
    overhang: bool  # its footprint crosses the edge of what its foot stands on (a card's edge)
    hidden: bool  # partly hidden (under a hand or anything drawn over it)
    seen: float  # share of its pixels that show
    size_px: float  # how far its drawn silhouette reaches from its foot (px): a report within this is on it
    radius_px: float  # its footprint's radius (px, mean over directions)


def player_colours(rng: np.random.Generator, n: int) -> list[tuple[int, int, int]]:
    """n saturated colours of distinct random hues (any hues, not a fixed palette)."""
    hues: list[float] = []
    for _ in range(200):
        if len(hues) == n:
            break
        h = rng.uniform(0, 180)
        if all(min(abs(h - o), 180 - abs(h - o)) >= MIN_PLAYER_HUE_GAP for o in hues):
            hues.append(h)
    return [_hsv(h, rng.uniform(0.6, 1.0), rng.uniform(0.5, 0.95)) for h in hues]


def other_colour(rng: np.random.Generator, players: list[tuple[int, int, int]]) -> tuple[int, int, int]:
    """A saturated colour whose hue is no player's (a token of another game)."""
    taken = [_hue(c) for c in players]
    for _ in range(100):
        h = rng.uniform(0, 180)
        if all(min(abs(h - o), 180 - abs(h - o)) >= MIN_PLAYER_HUE_GAP for o in taken):
            return _hsv(h, rng.uniform(0.6, 1.0), rng.uniform(0.5, 0.95))
    return NEUTRAL_BGR["black"]


def random_piece(rng: np.random.Generator, foot_mm: tuple[float, float], players: list[tuple[int, int, int]],
                 pawn: bool) -> Piece:
    """A pawn in one of `players`' colours, or a distractor."""
    kind = str(rng.choice(PAWN_KINDS if pawn else DISTRACTOR_KINDS, p=None if pawn else [0.35, 0.2, 0.2, 0.25]))
    material = str(rng.choice(MATERIALS, p=[0.4, 0.4, 0.2]))
    if pawn:
        bgr = players[int(rng.integers(0, len(players)))]
    elif kind == "coin":
        bgr, material = METAL_BGR[str(rng.choice(list(METAL_BGR), p=[0.5, 0.3, 0.2]))], "glossy"
    elif kind == "pale":
        name = str(rng.choice(list(NEUTRAL_BGR)))
        bgr, material = NEUTRAL_BGR[name], "wood" if name == "wood" else material
    elif kind == "dice" and rng.random() < 0.4:
        bgr = NEUTRAL_BGR["white"]
    else:
        bgr = other_colour(rng, players)
    shape = kind
    if kind == "pale":
        shape = str(rng.choice(["pawn", "cone", "meeple", "disc"]))
    elif kind in ("coin", "token"):
        shape = "disc"
    if kind == "meeple" or (shape == "meeple" and material != "glossy"):
        material = "wood"
    r, h = {
        "pawn": (rng.uniform(6, 11), rng.uniform(18, 32)),
        "cone": (rng.uniform(6, 10), rng.uniform(14, 26)),
        "meeple": (rng.uniform(8, 13), rng.uniform(16, 26)),
        "disc": (rng.uniform(8, 16), rng.uniform(3, 8)),
        "standee": (rng.uniform(10, 14), rng.uniform(35, 55)),
        "dice": (rng.uniform(6, 9), 0.0),
    }[shape]
    if kind == "coin":
        r, h = rng.uniform(8, 14), rng.uniform(1.5, 2.5)
    elif kind == "token":
        h = rng.uniform(2, 4)
    elif shape == "dice":
        h = 2 * r
    return Piece(kind, pawn, tuple(int(c) for c in bgr), material, (float(foot_mm[0]), float(foot_mm[1])),
                 float(r), float(h), shape)


def project(proj: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Table points (N x 3 mm, z into the table: up is -z) -> image px by a 3 x 4 projection."""
    p = np.c_[pts, np.ones(len(pts))] @ proj.T
    return p[:, :2] / p[:, 2:3]


def camera_centre(proj: np.ndarray) -> np.ndarray:
    """The camera's position (table mm, 3-vector) from its projection."""
    return -np.linalg.solve(proj[:, :3], proj[:, 3])


def footprint_px(proj: np.ndarray, p: Piece, n: int = 24) -> np.ndarray:
    """The piece's footprint circle on the table, in image px."""
    return project(proj, _ring(p.foot_mm, p.radius_mm, 0.0, n))


def draw_piece(rng: np.random.Generator, proj: np.ndarray, p: Piece) -> tuple[list[tuple[np.ndarray, tuple]], np.ndarray]:
    """The piece's parts as (polygon px, BGR) in painter's order, and its footprint polygon (px)."""
    c = np.asarray(p.foot_mm, float)
    col = np.array(p.bgr, float)
    side, top = tuple(col * 0.62), tuple(col)
    r, h = p.radius_mm, p.height_mm
    parts: list[tuple[np.ndarray, tuple]] = []

    def solid(rings: list[tuple[float, float]], side_col, top_col) -> None:
        # A solid of revolution: each pair of rings' hull in the side colour, the top ring's disc on top.
        for (r0, z0), (r1, z1) in zip(rings, rings[1:]):
            a, b = project(proj, _ring(c, r0, -z0)), project(proj, _ring(c, max(r1, 0.05), -z1))
            parts.append((cv2.convexHull(np.vstack([a, b]).astype(np.float32)).reshape(-1, 2), side_col))
        rt, zt = rings[-1]
        if rt > 0.3:
            parts.append((project(proj, _ring(c, rt, -zt)), top_col))

    if p.shape == "pawn":  # base, waist, a neck up into the ball head
        head_r = min(0.55 * r, 0.3 * h)
        solid([(r, 0), (r, 0.12 * h), (0.45 * r, 0.35 * h), (0.3 * r, h - head_r)], side, top)
        centre = project(proj, np.array([[c[0], c[1], -(h - head_r)]]))[0]
        rim = project(proj, _ring(c, head_r, -(h - head_r)))
        rad = float(np.linalg.norm(rim - centre, axis=1).max())
        parts.append((_circle_px(centre, rad), top))
    elif p.shape == "cone":
        solid([(r, 0), (0.08 * r, h)], side, top)
    elif p.shape == "disc":
        solid([(r, 0), (r, h)], side, top)
        if p.kind == "coin":  # a raised rim: a darker ring inside the top
            parts.append((project(proj, _ring(c, 0.8 * r, -h)), tuple(col * 0.8)))
            parts.append((project(proj, _ring(c, 0.72 * r, -h)), top))
    elif p.shape == "dice":
        s = r
        sq = np.array([[-s, -s], [s, -s], [s, s], [-s, s]]) @ _rot2(rng.uniform(0, 90)).T + c
        lo, hi = np.c_[sq, np.zeros(4)], np.c_[sq, np.full(4, -h)]
        a, b = project(proj, lo), project(proj, hi)
        parts.append((cv2.convexHull(np.vstack([a, b]).astype(np.float32)).reshape(-1, 2), side))
        parts.append((b, top))
        pip = (20, 20, 20) if col.mean() > 120 else (240, 240, 240)
        for q in (np.zeros(2), *([np.array([0.5, 0.5]) * s, np.array([-0.5, -0.5]) * s] if rng.random() < 0.6 else [])):
            parts.append((project(proj, _ring(c + q, 0.16 * s, -h - 0.01, 12)), pip))
    elif p.shape == "meeple":  # an upright silhouette facing the camera, a few mm thick
        w = 2 * r
        # Legs apart, arms out, round head: the outline in order round it, (sideways, up) x (w, h).
        outline = [(-0.5, 0), (-0.12, 0), (0, 0.25), (0.12, 0), (0.5, 0), (0.3, 0.45), (0.5, 0.55), (0.45, 0.68),
                   (0.17, 0.68), (0.2, 0.82), (0.1, 0.97), (0, 1.0), (-0.1, 0.97), (-0.2, 0.82), (-0.17, 0.68),
                   (-0.45, 0.68), (-0.5, 0.55), (-0.3, 0.45)]
        thick = min(0.45 * w, 9.0)
        back = _upright(proj, c, [(x * w, y * h) for x, y in outline], -thick / 2)
        front = _upright(proj, c, [(x * w, y * h) for x, y in outline], thick / 2)
        parts.append((back, side))
        for k in range(len(front)):  # its sides: one quad per edge of the outline (keeps it concave)
            parts.append((np.array([back[k], back[k - 1], front[k - 1], front[k]]), side))
        parts.append((front, top))
    else:  # standee: a dark base, an upright printed figure
        base = (40, 40, 40) if rng.random() < 0.7 else tuple(col * 0.4)
        solid([(r, 0), (r, 4.0)], tuple(np.array(base) * 0.7), base)
        w = 1.7 * r
        fig = _upright(proj, c, [(-w / 2, 4), (w / 2, 4), (w / 2, h), (-w / 2, h)], 0.0)
        parts.append((fig, top))
        inner = fig.mean(axis=0) + (fig - fig.mean(axis=0)) * 0.7
        parts.append((inner, tuple(np.minimum(col * 1.3 + 40, 255))))
    return parts, footprint_px(proj, p)


def _upright(proj: np.ndarray, c: np.ndarray, pts: list[tuple[float, float]], toward: float) -> np.ndarray:
    """A flat upright shape standing at c facing the camera: (sideways, up) mm -> image px;
    `toward` mm shifts it toward the camera."""
    cam = camera_centre(proj)[:2]
    view = c - cam
    n = float(np.linalg.norm(view))
    view = np.array([0.0, 1.0]) if n < 1e-6 else view / n
    side = np.array([view[1], -view[0]])
    q = np.array([[*(c + side * s - view * toward), -up] for s, up in pts])
    return project(proj, q)


def _ring(c, radius: float, z: float, n: int = 28) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[c[0] + radius * np.cos(a), c[1] + radius * np.sin(a), np.full(n, z)]


def _circle_px(centre: np.ndarray, rad: float, n: int = 24) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[centre[0] + rad * np.cos(a), centre[1] + rad * np.sin(a)]


def _rot2(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _hsv(h: float, s: float, v: float) -> tuple[int, int, int]:
    px = cv2.cvtColor(np.uint8([[[int(h) % 180, int(s * 255), int(v * 255)]]]), cv2.COLOR_HSV2BGR)[0, 0]
    return tuple(int(x) for x in px)


def _hue(bgr) -> float:
    return float(cv2.cvtColor(np.uint8([[bgr]]), cv2.COLOR_BGR2HSV)[0, 0, 0])


def render_parts(rng: np.random.Generator, parts: list[tuple[np.ndarray, tuple]], material: str,
                 box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(BGR, alpha) of the parts drawn into the region box = (x0, y0, x1, y1) of the 2x canvas,
    the material's look added: grain for wood, a highlight for glossy plastic."""
    x0, y0, x1, y1 = box
    img = np.zeros((y1 - y0, x1 - x0, 3), np.uint8)
    alpha = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for poly, col in parts:
        q = np.round((poly - [x0, y0]) * 16).astype(np.int32)
        colour = tuple(int(np.clip(v, 0, 255)) for v in col)
        cv2.fillPoly(img, [q], colour, cv2.LINE_8, shift=4)
        # The colour reaches a pixel past the edge so the anti-aliased alpha never shows black.
        cv2.polylines(img, [q], True, colour, 2, cv2.LINE_8, shift=4)
        cv2.fillPoly(alpha, [q], 255, cv2.LINE_AA, shift=4)
    if material == "wood" and img.size:
        grain = np.sin(np.arange(img.shape[1], dtype=np.float32) * rng.uniform(0.5, 1.5) + rng.uniform(0, 6))
        shade = 1 + 0.07 * grain[None, :, None] + rng.normal(0, 0.03, img.shape[:2])[..., None]
        img = np.clip(img * shade, 0, 255).astype(np.uint8)
    elif material == "glossy" and parts:
        top = parts[-1][0] - [x0, y0]
        centre = top.mean(axis=0) + (top.max(axis=0) - top.min(axis=0)) * rng.uniform(-0.25, 0.25, 2)
        rad = max(1.0, 0.18 * float(np.ptp(top[:, 0])))
        spot = np.zeros(alpha.shape, np.float32)
        cv2.circle(spot, (int(centre[0]), int(centre[1])), int(rad), 1.0, -1, cv2.LINE_AA)
        spot = cv2.GaussianBlur(spot, (0, 0), max(0.5, rad / 2)) * rng.uniform(0.4, 0.9)
        img = np.clip(img + spot[..., None] * (255 - img.astype(np.float32)), 0, 255).astype(np.uint8)
    return img, alpha


PLACES = ("card", "overhang", "table")


def place_pieces(rng: np.random.Generator, frame_mm: np.ndarray, cards_mm: list[np.ndarray],
                 players: list[tuple[int, int, int]]) -> list[Piece]:
    """Pawns (1-6) and distractors (0-3) placed apart from each other: on a card, overhanging a
    card's edge, or on the bare table, feet inside what the camera sees (`frame_mm`, polygon)."""
    n_pawns, n_other = int(rng.integers(1, 7)), int(rng.integers(0, 4))
    out: list[Piece] = []
    frame = frame_mm.astype(np.float32)
    lo, hi = frame_mm.min(axis=0), frame_mm.max(axis=0)
    for k in range(n_pawns + n_other):
        piece = random_piece(rng, (0.0, 0.0), players, pawn=k < n_pawns)
        r = piece.radius_mm
        for _ in range(30):
            where = str(rng.choice(PLACES, p=[0.5, 0.2, 0.3])) if cards_mm else "table"
            if where == "table":
                foot = rng.uniform(lo, hi)
            else:
                q = cards_mm[int(rng.integers(0, len(cards_mm)))]
                if where == "card":
                    u, v = rng.uniform(0.15, 0.85, 2)
                    foot = q[0] + u * (q[1] - q[0]) + v * (q[3] - q[0])
                else:  # on an edge, the foot a little in or out
                    e = int(rng.integers(0, 4))
                    a, b = q[e], q[(e + 1) % 4]
                    along = b - a
                    out_n = np.array([along[1], -along[0]]) / max(float(np.linalg.norm(along)), 1e-9)
                    if np.dot(out_n, a - q.mean(axis=0)) < 0:
                        out_n = -out_n
                    foot = a + rng.uniform(0.1, 0.9) * along + out_n * rng.uniform(-0.6, 0.6) * r
            if cv2.pointPolygonTest(frame, (float(foot[0]), float(foot[1])), True) < 2 * r:
                continue
            if any(np.hypot(*(foot - o.foot_mm)) < 1.2 * (r + o.radius_mm) for o in out):
                continue
            out.append(Piece(**{**piece.__dict__, "foot_mm": (float(foot[0]), float(foot[1]))}))
            break
    return out
