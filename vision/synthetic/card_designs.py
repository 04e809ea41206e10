"""Random card designs for the training renders: any size, corner radius, border, face and back.

A `DeckStyle` is what the cards of one game share (size, stock, border, face kind, back); each
card then draws its own face from it. Art is drawn at the resolution the camera will see it, so
a 12 px card costs almost nothing. All drawing is seeded through the caller's Generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.card_art import CARD_NAMES, face_image
from vision.synthetic.textures import smooth_noise

# (short, long) side in mm of real card families; the rest get a random aspect.
CARD_SIZES_MM = {
    "poker": (63.0, 88.0),
    "bridge": (57.0, 89.0),
    "tarot": (70.0, 120.0),
    "mini": (44.0, 63.0),
    "set": (57.0, 87.0),
    "uno": (56.0, 87.0),
    "square": (70.0, 70.0),
    "euro": (59.0, 92.0),
    "large": (89.0, 127.0),
}
FACE_KINDS = ("pips", "set", "art", "text", "uno", "mp", "plain")
BACK_KINDS = ("lattice", "dots", "checker", "stripes", "rings", "solid")
SET_COLOURS = ((40, 30, 220), (40, 150, 20), (140, 30, 110))  # red, green, purple (BGR)
# Pips on white stock: red and black suits. Dark decks (black, navy, deep red or green stock) print
# their pips in gold, silver, white or bright red: with none in the renders, the map took the
# black, gold-pipped cards of a validation source for table.
LIGHT_PIPS = ((30, 30, 200), (25, 25, 25))
DARK_STOCKS = ((30, 30, 32), (20, 20, 22), (70, 30, 20), (30, 25, 95), (35, 60, 25))
METALLIC_INKS = ((70, 175, 215), (60, 150, 190), (200, 200, 200), (235, 235, 235), (50, 50, 230))
DARK_PIP_DECKS = 0.3  # share of pip decks printed dark


@dataclass(frozen=True)
class DeckStyle:
    size_mm: tuple[float, float]  # (short, long): the art is drawn portrait
    radius_mm: float
    stock: tuple[int, int, int]  # paper colour of the face
    border: str  # "none" (full bleed), "white", "black", "colour"
    border_mm: float
    border_bgr: tuple[int, int, int]
    frame_line: bool  # a thin frame printed inside the border
    face: str
    back: str
    back_bgr: tuple[tuple[int, int, int], tuple[int, int, int]]
    back_border: bool
    back_step_mm: float
    sleeve_mm: float  # 0 = no sleeve
    wear: float  # 0 clean .. 1 dirty
    accent: tuple[int, int, int]
    pips_bgr: tuple[tuple[int, int, int], tuple[int, int, int]] = LIGHT_PIPS  # (red suits, black suits)


def random_colour(rng: np.random.Generator, sat: tuple[float, float] = (0.3, 1.0), val=(0.2, 0.95)) -> tuple:
    """A BGR colour of any hue (via HSV so saturation and brightness are drawn separately)."""
    hsv = np.array([[[rng.uniform(0, 180), rng.uniform(*sat) * 255, rng.uniform(*val) * 255]]], np.uint8)
    return tuple(int(c) for c in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])


def random_deck_style(rng: np.random.Generator) -> DeckStyle:
    if rng.random() < 0.75:
        size = CARD_SIZES_MM[str(rng.choice(list(CARD_SIZES_MM)))]
    else:  # any game card: aspect 1.0-1.9
        short = rng.uniform(40, 95)
        size = (short, short * rng.uniform(1.0, 1.9))
    face = str(rng.choice(FACE_KINDS, p=[0.24, 0.16, 0.2, 0.12, 0.1, 0.06, 0.12]))
    if face == "mp":
        size = CARD_SIZES_MM["poker"]
    white = (int(rng.integers(225, 256)),) * 3
    stocks = [white, (205, 232, 242), (30, 30, 32), random_colour(rng), (238, 240, 238)]
    stock = stocks[int(rng.choice(5, p=[0.45, 0.15, 0.1, 0.2, 0.1]))]
    pips = LIGHT_PIPS
    if face in ("set", "pips", "mp"):
        stock = stocks[int(rng.choice([0, 1, 4]))]
        if face == "pips" and rng.random() < DARK_PIP_DECKS:
            stock = DARK_STOCKS[int(rng.integers(len(DARK_STOCKS)))]
            red, black = rng.choice(len(METALLIC_INKS), 2)
            pips = (METALLIC_INKS[int(red)], METALLIC_INKS[int(black)])
    border = str(rng.choice(["none", "white", "black", "colour"], p=[0.35, 0.35, 0.12, 0.18]))
    border_bgr = {"white": white, "black": (25, 25, 25), "none": stock}.get(border) or random_colour(rng)
    back_a = random_colour(rng, val=(0.15, 0.8))
    back_b = random_colour(rng) if rng.random() < 0.5 else tuple(int(min(255, c * 1.6 + 40)) for c in back_a)
    return DeckStyle(
        size_mm=(float(size[0]), float(size[1])),
        radius_mm=float(rng.choice([0.0, rng.uniform(0.5, 5.0)], p=[0.12, 0.88])),
        stock=stock,
        border=border,
        border_mm=float(rng.uniform(1.5, 5.5)),
        border_bgr=border_bgr,
        frame_line=bool(rng.random() < 0.35),
        face=face,
        back=str(rng.choice(BACK_KINDS)),
        back_bgr=(back_a, back_b),
        back_border=bool(rng.random() < 0.6),
        back_step_mm=float(rng.uniform(1.5, 8.0)),
        sleeve_mm=float(rng.uniform(0.8, 2.5)) if rng.random() < 0.15 else 0.0,
        wear=float(rng.uniform(0.2, 1.0)) if rng.random() < 0.2 else 0.0,
        accent=random_colour(rng, sat=(0.5, 1.0), val=(0.3, 0.9)),
        pips_bgr=pips,
    )


def outer_size_mm(style: DeckStyle) -> tuple[float, float]:
    """The outline a camera sees: the card, or its sleeve."""
    m = 2 * style.sleeve_mm
    return style.size_mm[0] + m, style.size_mm[1] + m


def rounded_rect_mm(w: float, h: float, r: float, per_corner: int = 5) -> np.ndarray:
    """Outline (N x 2, mm) of a w x h rectangle with corner radius r, centred on the origin."""
    r = min(r, 0.5 * min(w, h))
    if r <= 0.05:
        return np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    pts = []
    for cx, cy, a0 in ((w / 2 - r, -h / 2 + r, -90), (w / 2 - r, h / 2 - r, 0), (-w / 2 + r, h / 2 - r, 90),
                       (-w / 2 + r, -h / 2 + r, 180)):
        for a in np.radians(np.linspace(a0, a0 + 90, per_corner)):
            pts.append((cx + r * np.cos(a), cy + r * np.sin(a)))
    return np.array(pts)


def fill_outline(shape: tuple[int, int], outline_mm: np.ndarray, u: float) -> np.ndarray:
    """Anti-aliased alpha of an outline (mm, centred) in a raster of u px/mm."""
    h, w = shape
    a = np.zeros((h, w), np.uint8)
    pts = (outline_mm * u + [w / 2 - 0.5, h / 2 - 0.5]) * 16
    cv2.fillPoly(a, [np.round(pts).astype(np.int32)], 255, cv2.LINE_AA, shift=4)
    return a


# ---- faces -----------------------------------------------------------------------------------------------
def text_lines(img, rng, x0, y0, x1, y1, line_px: float, ink) -> None:
    """Body text as the camera sees it at card scale: grey word bars (real glyphs when large)."""
    y = y0 + line_px
    big = line_px > 9
    while y < y1:
        x = x0
        end = x1 - rng.uniform(0, 0.3) * (x1 - x0) if rng.random() < 0.25 else x1
        while x < end:
            wl = rng.uniform(1.5, 6) * line_px * 0.5
            if big:
                word = "".join(rng.choice(list("abcdefghiklmnoprstuw"), size=max(1, int(wl / line_px * 1.8))))
                cv2.putText(img, word, (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, line_px / 30, ink, 1,
                            cv2.LINE_AA)
            else:
                cv2.line(img, (int(x), int(y - line_px * 0.3)), (int(min(x + wl, end)), int(y - line_px * 0.3)),
                         ink, max(1, int(line_px * 0.35)))
            x += wl + line_px * 0.6
        y += line_px * 1.5


def _suit(img, c, s: float, suit: int, colour) -> None:
    """A pip: diamond, heart, spade or club, about 2s tall, centred on c."""
    x, y = c
    if suit == 0:
        pts = [(x, y - s), (x + 0.7 * s, y), (x, y + s), (x - 0.7 * s, y)]
        cv2.fillPoly(img, [np.int32(pts)], colour, cv2.LINE_AA)
        return
    r = max(1, int(0.45 * s))
    sign = 1 if suit == 1 else -1  # heart: lobes on top; spade: lobes below
    for dx in (-0.45, 0.45):
        cv2.circle(img, (int(x + dx * s), int(y - sign * 0.3 * s)), r, colour, -1, cv2.LINE_AA)
    if suit == 3:
        cv2.circle(img, (int(x), int(y - 0.5 * s)), r, colour, -1, cv2.LINE_AA)
    tip = [(x - 0.9 * s, y - sign * 0.15 * s), (x + 0.9 * s, y - sign * 0.15 * s), (x, y + sign * s)]
    cv2.fillPoly(img, [np.int32(tip)], colour, cv2.LINE_AA)


def _set_shape(img, rng, c, sw: float, sh: float, kind: int, colour, fill: int, u: float) -> None:
    x, y = c
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    if kind == 0:  # diamond
        pts = np.array([(x - sw, y), (x, y - sh), (x + sw, y), (x, y + sh)])
    elif kind == 1:  # oval (stadium)
        pts = np.c_[x + sw * np.sign(np.cos(t)) * np.abs(np.cos(t)) ** 0.4, y + sh * np.sin(t)]
    else:  # squiggle: a wavy bean
        pts = np.c_[x + sw * np.cos(t), y + sh * np.sin(t) * (1 + 0.35 * np.sin(2 * t)) + 0.3 * sh * np.sin(3 * t)]
    pts = np.int32(np.round(pts))
    th = max(1, int(round(0.5 * u)))
    if fill == 0:
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    elif fill == 1:  # striped: thin lines clipped to the shape
        m = np.zeros(img.shape[:2], np.uint8)
        cv2.fillPoly(m, [pts], 255)
        stripes = np.zeros_like(m)
        step = max(2, int(round(1.2 * u)))
        stripes[:, ::step] = 255
        img[(m > 0) & (stripes > 0)] = colour
    cv2.polylines(img, [pts], True, colour, th, cv2.LINE_AA)


def noise_picture(rng, h: int, w: int) -> np.ndarray:
    """Busy art: smooth colour fields, a gradient sky and a few blobs."""
    base = np.array(random_colour(rng), np.float32)
    n = np.stack([smooth_noise(rng, (h, w), (int(rng.integers(2, 7)),) * 2) for _ in range(3)], -1)
    img = base + 60 * n
    g = np.linspace(-1, 1, h, dtype=np.float32)[:, None, None] * np.array(random_colour(rng), np.float32) * 0.3
    img = np.clip(img + g, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(0, 5))):
        cv2.circle(img, (int(rng.uniform(0, w)), int(rng.uniform(0, h))), int(rng.uniform(0.05, 0.3) * w),
                   random_colour(rng), -1, cv2.LINE_AA)
    return img


def _draw_face(img: np.ndarray, rng: np.random.Generator, st: DeckStyle, u: float, box) -> None:
    """Face content inside box = (x0, y0, x1, y1) px (the part inside the border)."""
    x0, y0, x1, y1 = box
    bw, bh = x1 - x0, y1 - y0
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if bw < 4 or bh < 4:
        return
    ink = (25, 25, 25) if sum(st.stock) > 300 else (235, 235, 235)
    if st.face == "pips":
        red = rng.random() < 0.5
        colour = st.pips_bgr[0] if red else st.pips_bgr[1]
        suit = int(rng.integers(0, 2)) if red else int(rng.integers(2, 4))
        rank = int(rng.integers(1, 14))
        label = {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))
        fs = 6 * u / 22
        th = max(1, int(u * 0.8))
        cv2.putText(img, label, (int(x0 + 1.5 * u), int(y0 + 7.5 * u)), cv2.FONT_HERSHEY_SIMPLEX, fs, colour, th,
                    cv2.LINE_AA)
        _suit(img, (x0 + 3 * u, y0 + 11 * u), 1.8 * u, suit, colour)
        _suit(img, (x1 - 3 * u, y1 - 11 * u), 1.8 * u, suit, colour)
        if rank > 10:  # court card: framed picture
            px0, py0, px1, py1 = int(x0 + 0.17 * bw), int(y0 + 0.12 * bh), int(x1 - 0.17 * bw), int(y1 - 0.12 * bh)
            if px1 - px0 > 2 and py1 - py0 > 2:
                img[py0:py1, px0:px1] = noise_picture(rng, py1 - py0, px1 - px0)
                cv2.rectangle(img, (px0, py0), (px1, py1), colour, max(1, int(0.4 * u)))
        else:
            cols = 1 if rank <= 3 else 2 if rank <= 8 else 3
            rows = int(np.ceil(rank / cols))
            for k in range(rank):
                i, j = divmod(k, cols)
                px = cx + (j - (cols - 1) / 2) * 0.3 * bw
                py = cy + (i - (rows - 1) / 2) * 0.7 * bh / max(rows, 2)
                _suit(img, (px, py), min(0.09 * bw, 0.35 * bh / max(rows, 2)) * 1.1, suit, colour)
    elif st.face == "set":
        n = int(rng.integers(1, 4))
        colour = SET_COLOURS[int(rng.integers(0, 3))]
        kind, fill = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        sw, sh = 0.36 * bw, 0.1 * bh
        for k in range(n):
            _set_shape(img, rng, (cx, cy + (k - (n - 1) / 2) * 0.26 * bh), sw, sh, kind, colour, fill, u)
    elif st.face == "art":
        m = int(0.06 * bw)
        title_h = int(0.1 * bh)
        pic = (int(x0 + m), int(y0 + m + title_h), int(x1 - m), int(y0 + 0.58 * bh))
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), st.accent, -1)
        if pic[2] - pic[0] > 2 and pic[3] - pic[1] > 2:
            img[pic[1]:pic[3], pic[0]:pic[2]] = noise_picture(rng, pic[3] - pic[1], pic[2] - pic[0])
        light = tuple(int(min(255, c * 0.4 + 150)) for c in st.accent)
        cv2.rectangle(img, (int(x0 + m), int(y0 + m)), (int(x1 - m), int(y0 + m + title_h * 0.8)), light, -1)
        cv2.rectangle(img, (int(x0 + m), int(y0 + 0.62 * bh)), (int(x1 - m), int(y1 - m)), light, -1)
        text_lines(img, rng, x0 + 2 * m, y0 + 0.63 * bh, x1 - 2 * m, y1 - 2 * m, 2.2 * u, (40, 40, 40))
    elif st.face == "text":
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y0 + 0.14 * bh)), st.accent, -1)
        text_lines(img, rng, x0 + 2 * u, y0 + 0.2 * bh, x1 - 2 * u, y1 - 3 * u, rng.uniform(2, 3.5) * u, ink)
        if rng.random() < 0.5:
            r = int(0.2 * bw)
            cv2.circle(img, (int(cx), int(y0 + 0.45 * bh)), r, st.accent, -1, cv2.LINE_AA)
    elif st.face == "uno":
        colour = ((40, 40, 210), (20, 200, 240), (60, 160, 40), (180, 100, 20))[int(rng.integers(0, 4))]
        cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), colour, -1)
        cv2.ellipse(img, (int(cx), int(cy)), (int(0.42 * bw), int(0.32 * bh)), -30, 0, 360, (250, 250, 250), -1,
                    cv2.LINE_AA)
        digit = str(int(rng.integers(0, 10)))
        cv2.putText(img, digit, (int(cx - 0.2 * bw), int(cy + 0.15 * bw)), cv2.FONT_HERSHEY_DUPLEX, bw / 45,
                    colour, max(1, int(bw / 14)), cv2.LINE_AA)
        cv2.putText(img, digit, (int(x0 + 2 * u), int(y0 + 8 * u)), cv2.FONT_HERSHEY_DUPLEX, u / 5,
                    (250, 250, 250), max(1, int(u / 2)), cv2.LINE_AA)
    elif st.face == "mp":
        art = face_image(str(rng.choice(CARD_NAMES)), (63.0, 88.0), 4.0)
        h, w = img.shape[:2]
        img[:] = cv2.resize(art, (w, h), interpolation=cv2.INTER_AREA)
    else:  # "plain": a nearly blank card with a small mark (white-on-white cases)
        if rng.random() < 0.6:
            cv2.circle(img, (int(cx), int(cy)), max(1, int(0.12 * bw)), st.accent, max(1, int(0.6 * u)),
                       cv2.LINE_AA)


def _draw_back(img: np.ndarray, rng: np.random.Generator, st: DeckStyle, u: float, box) -> None:
    x0, y0, x1, y1 = (int(round(v)) for v in box)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    a, b = (np.array(c, np.float32) for c in st.back_bgr)
    h, w = y1 - y0, x1 - x0
    yy, xx = (g.astype(np.float32) / u for g in np.ogrid[0:h, 0:w])  # mm
    step = st.back_step_mm
    if st.back == "lattice":
        t = (np.abs(((xx + yy) % step) - step / 2) < 0.4) | (np.abs(((xx - yy) % step) - step / 2) < 0.4)
    elif st.back == "dots":
        t = ((xx % step) - step / 2) ** 2 + ((yy % step) - step / 2) ** 2 < (0.3 * step) ** 2
    elif st.back == "checker":
        t = ((xx // step + yy // step) % 2) == 0
    elif st.back == "stripes":
        t = ((xx + 0.5 * yy) % step) < step / 2
    elif st.back == "rings":
        t = (np.hypot(xx - w / u / 2, yy - h / u / 2) % step) < step / 2
    else:
        t = np.zeros((h, w), bool)
    img[y0:y1, x0:x1] = np.where(np.broadcast_to(t, (h, w))[..., None], b, a).astype(np.uint8)
    if rng.random() < 0.6:  # central emblem, symmetric under a half turn
        r = int(0.25 * w)
        cv2.circle(img, ((x0 + x1) // 2, (y0 + y1) // 2), r, tuple(int(c) for c in b), -1, cv2.LINE_AA)
        cv2.circle(img, ((x0 + x1) // 2, (y0 + y1) // 2), int(r * 0.75), tuple(int(c) for c in a), -1,
                   cv2.LINE_AA)


def card_art(
    rng: np.random.Generator, st: DeckStyle, face_up: bool, u: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """(BGR, alpha, sheen) of one card (its sleeve included) drawn at u px/mm, portrait, centred
    in the raster; `sheen` is how glossy it is (0..1), for the lighting pass."""
    ow, oh = outer_size_mm(st)
    W, H = max(3, int(np.ceil(ow * u))), max(3, int(np.ceil(oh * u)))
    img = np.zeros((H, W, 3), np.uint8)
    w, h = st.size_mm[0] * u, st.size_mm[1] * u
    bx0, by0 = (W - w) / 2, (H - h) / 2
    card = (bx0, by0, bx0 + w, by0 + h)
    bm = st.border_mm * u
    if face_up:
        img[:] = st.border_bgr if st.border != "none" else st.stock
        inner = (card[0] + bm, card[1] + bm, card[2] - bm, card[3] - bm) if st.border != "none" else card
        cv2.rectangle(img, (int(inner[0]), int(inner[1])), (int(inner[2]), int(inner[3])), st.stock, -1)
        _draw_face(img, rng, st, u, inner)
        if st.frame_line:
            cv2.rectangle(img, (int(inner[0] + u), int(inner[1] + u)), (int(inner[2] - u), int(inner[3] - u)),
                          st.accent, max(1, int(0.5 * u)), cv2.LINE_AA)
    else:
        img[:] = (238, 238, 238) if st.back_border else st.back_bgr[0]
        inner = (card[0] + bm, card[1] + bm, card[2] - bm, card[3] - bm) if st.back_border else card
        _draw_back(img, rng, st, u, inner)
    if st.wear > 0:  # dirt and faded ink: multiplicative smudges, lighter edges
        n = smooth_noise(rng, (H, W), (int(rng.integers(3, 9)),) * 2)
        f = 1 - st.wear * 0.18 * np.clip(n, 0, None)
        img[:] = np.clip(img * f[..., None] + st.wear * 12, 0, 255).astype(np.uint8)
    alpha = fill_outline((H, W), rounded_rect_mm(st.size_mm[0], st.size_mm[1], st.radius_mm), u)
    if st.sleeve_mm > 0:
        # Clear plastic: mostly see-through, a visible rim, a glossy sheen over the whole sleeve.
        sleeve = fill_outline((H, W), rounded_rect_mm(ow, oh, 1.0), u)
        rim = cv2.subtract(sleeve, cv2.erode(sleeve, np.ones((3, 3), np.uint8)))
        clear = (sleeve.astype(np.float32) * rng.uniform(0.15, 0.4)).astype(np.uint8)
        card_a = np.maximum(alpha, clear)
        card_a = np.maximum(card_a, (rim * 0.8).astype(np.uint8))
        outside = alpha < 128
        img[outside] = rng.integers(200, 250)
        alpha = card_a
    sheen = float(rng.uniform(0.3, 1.0)) if st.sleeve_mm > 0 else float(rng.uniform(0, 0.7))
    return img, alpha, sheen
