"""Things on a table that are NOT cards: papers, books, phones, boxes, coins, dice, pawns, pens,
cups, and hands with arms. Each is a flat picture with an alpha (how it looks from above) and a
height (how far its shadow falls). Several are rectangles on purpose: the network must learn
that a rectangle is not yet a card.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synthetic.card_designs import (
    fill_outline,
    noise_picture,
    random_colour,
    rounded_rect_mm,
    text_lines,
)

PROP_KINDS = ("paper", "sticky", "envelope", "receipt", "book", "notebook", "placemat", "phone", "cardbox",
              "coaster", "coin", "dice", "meeple", "pen", "cup")
PROP_P = np.array([0.2, 0.07, 0.05, 0.05, 0.06, 0.06, 0.04, 0.06, 0.06, 0.04, 0.07, 0.07, 0.07, 0.05, 0.05])
# Grids of small square things (a keyboard's keys, a calculator's): each key is a rounded
# rectangle with a clean edge, the very thing a card is, only many, small, and in a body.
KEYS_KINDS = ("keyboard", "keypad")
SKIN = ((175, 200, 240), (140, 175, 225), (110, 150, 205), (80, 120, 175), (55, 85, 130), (40, 60, 95))


@dataclass(frozen=True)
class Prop:
    kind: str
    size_mm: tuple[float, float]  # (width, height) of its picture
    height_mm: float  # above the table: sets the shadow's reach and softness


def random_prop(rng: np.random.Generator, kind: str | None = None) -> Prop:
    kind = kind or str(rng.choice(PROP_KINDS, p=PROP_P / PROP_P.sum()))
    if kind in KEYS_KINDS:  # apart from the table below, which draws every kind's size at each call
        keyboard = (rng.uniform(280, 450), rng.uniform(105, 160))
        keypad = (rng.uniform(65, 90), rng.uniform(110, 165))  # drawn either way, as the renders measured were
        return Prop(kind, keyboard, 25.0) if kind == "keyboard" else Prop(kind, keypad, 12.0)
    sizes = {
        "paper": [(210, 297), (216, 279), (148, 210)][int(rng.integers(0, 3))],
        "sticky": (76, 76) if rng.random() < 0.6 else (51, 76),
        "envelope": (110, 220) if rng.random() < 0.5 else (162, 229),
        "receipt": (80, rng.uniform(120, 300)),
        "book": (rng.uniform(110, 190), rng.uniform(170, 250)),
        "notebook": (rng.uniform(90, 210), rng.uniform(140, 297)),
        "placemat": (rng.uniform(280, 330), rng.uniform(400, 460)),
        "phone": (rng.uniform(65, 78), rng.uniform(140, 165)),
        "cardbox": (rng.uniform(60, 100), rng.uniform(90, 140)),
        "coaster": (rng.uniform(85, 110),) * 2,
        "coin": (rng.uniform(16, 32),) * 2,
        "dice": (rng.uniform(12, 20),) * 2,
        "meeple": (rng.uniform(14, 30),) * 2,
        "pen": (rng.uniform(8, 13), rng.uniform(120, 150)),
        "cup": (rng.uniform(75, 95),) * 2,
    }
    heights = {"book": 25, "phone": 8, "cardbox": 25, "coin": 2, "dice": 16, "meeple": 18, "pen": 8,
               "cup": 90, "notebook": 6, "coaster": 3}
    w, h = sizes[kind]
    return Prop(kind, (float(w), float(h)), float(heights.get(kind, 0.2)))


def _print_page(img: np.ndarray, rng: np.random.Generator, u: float, margin_mm: float) -> None:
    """A printed page: paragraphs of text, sometimes a ruled table or a photo."""
    h, w = img.shape[:2]
    m = margin_mm * u
    y = m
    ink = (int(rng.integers(10, 70)),) * 3
    while y < h - m:
        r = rng.random()
        block = rng.uniform(15, 60) * u
        y1 = min(h - m, y + block)
        if r < 0.15 and y1 - y > 4:  # a photo
            x1 = int(rng.uniform(0.4, 1.0) * (w - 2 * m) + m)
            if x1 - int(m) > 2 and int(y1) - int(y) > 2:
                img[int(y):int(y1), int(m):x1] = noise_picture(rng, int(y1) - int(y), x1 - int(m))
        elif r < 0.3:  # a ruled table
            rows, cols = int(rng.integers(3, 9)), int(rng.integers(2, 6))
            for i in range(rows + 1):
                yy = int(y + (y1 - y) * i / rows)
                cv2.line(img, (int(m), yy), (int(w - m), yy), ink, 1)
            for j in range(cols + 1):
                xx = int(m + (w - 2 * m) * j / cols)
                cv2.line(img, (xx, int(y)), (xx, int(y1)), ink, 1)
        else:
            text_lines(img, rng, m, y, w - m, y1, rng.uniform(2.5, 5) * u, ink)
        y = y1 + rng.uniform(4, 12) * u


def prop_art(rng: np.random.Generator, p: Prop, u: float) -> tuple[np.ndarray, np.ndarray]:
    """(BGR, alpha) of prop p seen from above, drawn at u px/mm, centred in its raster."""
    w_mm, h_mm = p.size_mm
    W, H = max(3, int(np.ceil(w_mm * u))), max(3, int(np.ceil(h_mm * u)))
    img = np.zeros((H, W, 3), np.uint8)
    alpha = np.full((H, W), 255, np.uint8)
    k = p.kind
    cx, cy = W / 2, H / 2
    if k in ("paper", "receipt", "sticky", "envelope", "notebook"):
        paper = {"sticky": random_colour(rng, sat=(0.3, 0.7), val=(0.85, 1.0)),
                 "envelope": (230, 235, 238) if rng.random() < 0.5 else (120, 170, 205)}.get(
            k, (int(rng.integers(228, 256)),) * 3)
        img[:] = paper
        if k == "paper":
            _print_page(img, rng, u, rng.uniform(10, 25))
        elif k == "receipt":
            text_lines(img, rng, 5 * u, 5 * u, W - 5 * u, H - 5 * u, 3 * u, (90, 90, 90))
        elif k == "sticky":
            for _ in range(int(rng.integers(1, 5))):  # handwriting scribbles
                pts = np.c_[np.linspace(0.15, 0.85, 12) * W, (rng.uniform(0.2, 0.8) + 0.03 * rng.standard_normal(12)) * H]
                cv2.polylines(img, [np.int32(pts)], False, (120, 40, 20), max(1, int(0.5 * u)), cv2.LINE_AA)
        elif k == "envelope":
            cv2.polylines(img, [np.int32([(0, 0), (cx, 0.45 * H), (W, 0)])], False, (150, 150, 150),
                          max(1, int(0.4 * u)), cv2.LINE_AA)
        else:  # notebook: ruled lines, a margin, spiral holes
            step = rng.uniform(5, 8) * u
            for y in np.arange(15 * u, H, step):
                cv2.line(img, (0, int(y)), (W, int(y)), (200, 170, 150), 1)
            cv2.line(img, (int(25 * u), 0), (int(25 * u), H), (150, 150, 230), 1)
            if rng.random() < 0.6:
                text_lines(img, rng, 28 * u, 15 * u, W - 8 * u, rng.uniform(0.3, 0.9) * H, step * 0.8, (140, 60, 30))
            for y in np.arange(8 * u, H - 4 * u, 8 * u):
                cv2.circle(img, (int(5 * u), int(y)), max(1, int(2 * u)), (60, 60, 60), -1, cv2.LINE_AA)
    elif k in ("book", "cardbox", "placemat"):
        col = random_colour(rng)
        img[:] = col
        if k == "placemat":
            per = rng.uniform(2, 8) * u
            ys, xs = np.ogrid[0:H, 0:W]
            weave = ((xs // max(1, per) + ys // max(1, per)) % 2).astype(np.float32)
            img[:] = np.clip(img * (0.85 + 0.15 * weave[..., None]), 0, 255).astype(np.uint8)
            if rng.random() < 0.5:
                alpha = fill_outline((H, W), _ellipse_mm(w_mm, h_mm), u)
        else:
            pic = (int(0.15 * W), int(0.25 * H), int(0.85 * W), int(0.7 * H))
            if pic[2] - pic[0] > 2 and pic[3] - pic[1] > 2 and rng.random() < 0.7:
                img[pic[1]:pic[3], pic[0]:pic[2]] = noise_picture(rng, pic[3] - pic[1], pic[2] - pic[0])
            cv2.putText(img, "TITLE", (int(0.15 * W), int(0.15 * H)), cv2.FONT_HERSHEY_DUPLEX, W / 180,
                        random_colour(rng), max(1, int(W / 90)), cv2.LINE_AA)
            side = max(1, int(rng.uniform(2, 6) * u))  # a visible side face: darker band
            img[:, :side] = (img[:, :side] * 0.6).astype(np.uint8)
            if k == "book":
                img[-side:, :] = (235, 240, 240)  # page block
    elif k == "phone":
        alpha = fill_outline((H, W), rounded_rect_mm(w_mm, h_mm, rng.uniform(6, 11)), u)
        img[:] = (20, 20, 22) if rng.random() < 0.7 else random_colour(rng)
        b = int(3 * u)
        if H - 2 * b > 1 and W - 2 * b > 1:
            on = rng.random() < 0.5
            img[b:H - b, b:W - b] = noise_picture(rng, H - 2 * b, W - 2 * b) if on else (12, 12, 14)
    elif k in ("coaster", "coin", "cup"):
        alpha = fill_outline((H, W), _ellipse_mm(w_mm, h_mm), u)
        if k == "coin":
            metal = np.array(rng.choice([(60, 140, 190), (180, 180, 180), (40, 100, 160)]), np.float32)
            ys, xs = (g.astype(np.float32) for g in np.ogrid[0:H, 0:W])
            shade = 1 + 0.35 * ((xs - cx) - (ys - cy)) / max(W, 1)
            img[:] = np.clip(metal * shade[..., None], 0, 255).astype(np.uint8)
            cv2.circle(img, (int(cx), int(cy)), int(0.4 * W), tuple(int(c * 0.7) for c in metal), max(1, int(u * 0.6)),
                       cv2.LINE_AA)
        elif k == "coaster":
            img[:] = random_colour(rng)
            cv2.circle(img, (int(cx), int(cy)), int(0.38 * W), random_colour(rng), max(1, int(2 * u)), cv2.LINE_AA)
        else:  # cup from above: rim ring, inside wall, coffee
            img[:] = random_colour(rng, sat=(0, 0.5), val=(0.7, 1.0))
            cv2.circle(img, (int(cx), int(cy)), int(0.44 * W), tuple(int(c * 0.8) for c in img[0, 0]), -1, cv2.LINE_AA)
            cv2.circle(img, (int(cx), int(cy)), int(0.36 * W), (30, 50, 80) if rng.random() < 0.7 else (200, 200, 210),
                       -1, cv2.LINE_AA)
    elif k == "dice":
        alpha = fill_outline((H, W), rounded_rect_mm(w_mm, h_mm, 0.15 * w_mm), u)
        col = np.array(random_colour(rng) if rng.random() < 0.6 else (240, 240, 240), np.float32)
        img[:] = col.astype(np.uint8)
        pip = (20, 20, 20) if col.mean() > 120 else (240, 240, 240)
        n = int(rng.integers(1, 7))
        spots = {1: [(0, 0)], 2: [(-1, -1), (1, 1)], 3: [(-1, -1), (0, 0), (1, 1)], 4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
                 5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)], 6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)]}[n]
        for dx, dy in spots:
            cv2.circle(img, (int(cx + dx * 0.27 * W), int(cy + dy * 0.27 * H)), max(1, int(0.08 * W)), pip, -1, cv2.LINE_AA)
    elif k == "meeple":
        img[:] = random_colour(rng, sat=(0.5, 1.0), val=(0.3, 0.95))
        a = np.zeros((H, W), np.uint8)
        s = W / 2
        cv2.circle(a, (int(cx), int(cy - 0.55 * s)), max(1, int(0.3 * s)), 255, -1, cv2.LINE_AA)
        body = [(cx - 0.95 * s, cy - 0.1 * s), (cx + 0.95 * s, cy - 0.1 * s), (cx + 0.35 * s, cy + 0.1 * s),
                (cx + 0.7 * s, cy + 0.95 * s), (cx, cy + 0.6 * s), (cx - 0.7 * s, cy + 0.95 * s), (cx - 0.35 * s, cy + 0.1 * s)]
        cv2.fillPoly(a, [np.int32(body)], 255, cv2.LINE_AA)
        cv2.fillPoly(a, [np.int32([(cx - 0.3 * s, cy - 0.35 * s), (cx + 0.3 * s, cy - 0.35 * s),
                                   (cx + 0.4 * s, cy + 0.2 * s), (cx - 0.4 * s, cy + 0.2 * s)])], 255, cv2.LINE_AA)
        alpha = a
    elif k == "pen":
        alpha = fill_outline((H, W), rounded_rect_mm(w_mm, h_mm, 0.45 * w_mm), u)
        img[:] = random_colour(rng)
        img[: int(0.12 * H)] = (40, 40, 40)
        xs = np.arange(W, dtype=np.float32)
        img[:] = np.clip(img * (0.75 + 0.5 * np.sin(np.pi * xs / W))[None, :, None], 0, 255).astype(np.uint8)
    elif k in KEYS_KINDS:
        alpha = fill_outline((H, W), rounded_rect_mm(w_mm, h_mm, rng.uniform(2, 10)), u)
        _keys(img, rng, u, k == "keypad")
    return img, alpha


def _keys(img: np.ndarray, rng: np.random.Generator, u: float, keypad: bool) -> None:
    """A body with rows of keys: each key a cap a little lighter or darker than the body, lit from
    one side, with a letter on it; a keyboard's rows hold wider keys and a space bar."""
    H, W = img.shape[:2]
    dark = rng.random() < 0.65
    body = np.array((rng.uniform(15, 60),) * 3 if dark else (rng.uniform(170, 235),) * 3, np.float32)
    if rng.random() < 0.15:
        body = np.array(random_colour(rng, sat=(0.1, 0.6)), np.float32)
    img[:] = body.astype(np.uint8)
    pitch = rng.uniform(15, 20) if not keypad else rng.uniform(13, 18)
    gap = rng.uniform(0.12, 0.3) * pitch
    cap = np.clip(body + rng.uniform(-25, 35), 0, 255)
    ink = (235, 235, 235) if cap.mean() < 120 else (30, 30, 30)
    margin = rng.uniform(5, 18)
    top = margin + (rng.uniform(25, 40) if keypad else rng.uniform(0, 25))  # a calculator's display
    if keypad and top - margin > 8:
        cv2.rectangle(img, (int(margin * u), int(margin * u)), (int(W - margin * u), int((top - 5) * u)),
                      (int(rng.uniform(90, 160)),) * 3, -1)
    rows = int((H / u - top - margin) // pitch)
    light = rng.uniform(0.1, 0.3)
    right = W / u - margin
    for r in range(rows):
        y = top + r * pitch
        x = margin
        while x + pitch - gap <= right:
            span = 1.0
            if not keypad and rng.random() < 0.12:
                span = float(rng.choice([1.25, 1.5, 1.75, 2.0]))
            if not keypad and r == rows - 1 and rows > 3 and abs(x - 0.35 * W / u) < pitch:
                span = 6.0  # the space bar
            w_key = min(span * pitch, right - x) - gap
            x0, y0, x1, y1 = (int(v * u) for v in (x, y, x + w_key, y + pitch - gap))
            if x1 - x0 >= 2 and y1 - y0 >= 2:
                cv2.rectangle(img, (x0, y0), (x1, y1), tuple(float(c) for c in cap * (1 - light)), -1)
                inset = max(1, int(0.12 * (y1 - y0)))
                cv2.rectangle(img, (x0 + inset // 2, y0), (x1 - inset, y1 - inset),
                              tuple(float(c) for c in np.clip(cap * (1 + light), 0, 255)), -1)
                if y1 - y0 > 8 and rng.random() < 0.85:
                    cv2.putText(img, chr(int(rng.integers(65, 91))), (x0 + inset + 1, y0 + int(0.45 * (y1 - y0))),
                                cv2.FONT_HERSHEY_SIMPLEX, (y1 - y0) / 60, ink, 1, cv2.LINE_AA)
            x += span * pitch
            if not keypad and rng.random() < 0.04:
                x += pitch * 0.5  # the gap before the arrows and the number pad


def _ellipse_mm(w: float, h: float, n: int = 48) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.c_[w / 2 * np.cos(t), h / 2 * np.sin(t)]


def hand_art(rng: np.random.Generator, u: float, arm_mm: float = 650.0) -> tuple[np.ndarray, np.ndarray, tuple]:
    """(BGR, alpha, size_mm) of a hand reaching in from above: fingertips at the raster's top,
    the arm running down past its bottom edge (placed so the arm leaves the frame)."""
    palm_w = rng.uniform(75, 95)
    wrist_w = rng.uniform(55, 70)
    W_mm, H_mm = palm_w + 60, 190 + arm_mm
    W, H = max(4, int(W_mm * u)), max(4, int(H_mm * u))
    skin = np.array(SKIN[int(rng.integers(0, len(SKIN)))], np.float32) * rng.uniform(0.85, 1.1)
    a = np.zeros((H, W), np.uint8)
    c = W / 2

    def cap(p0, p1, r):  # a limb: thick line with round ends
        q0, q1 = (int(p0[0] * u), int(p0[1] * u)), (int(p1[0] * u), int(p1[1] * u))
        cv2.line(a, q0, q1, 255, max(1, int(2 * r * u)), cv2.LINE_AA)
        for q in (q0, q1):
            cv2.circle(a, q, max(1, int(r * u)), 255, -1, cv2.LINE_AA)

    cm = c / u
    palm_top = 85.0
    spread = rng.uniform(0.0, 0.25)
    curl = rng.uniform(0.4, 1.0)  # fingers seen foreshortened when bent
    for fx in np.linspace(-0.36, 0.36, 4):
        ang = (fx * spread * 3)
        length = (70 + 10 * (1 - abs(fx) * 2.5)) * curl
        x0 = cm + fx * palm_w
        cap((x0, palm_top + 5), (x0 + np.sin(ang) * length, palm_top + 5 - np.cos(ang) * length), rng.uniform(7.5, 9.5))
    side = 1 if rng.random() < 0.5 else -1
    cap((cm + side * 0.45 * palm_w, palm_top + 60), (cm + side * (0.5 * palm_w + 35), palm_top + 10), 10)
    cv2.ellipse(a, (int(c), int((palm_top + 45) * u)), (int(palm_w / 2 * u), int(55 * u)), 0, 0, 360, 255, -1, cv2.LINE_AA)
    cap((cm, palm_top + 90), (cm + rng.uniform(-30, 30), H_mm), wrist_w / 2 + 4)
    xs = np.arange(W, dtype=np.float32)[None, :]
    img = np.empty((H, W, 3), np.float32)
    # Round limbs: darker towards their sides; a sleeve over the forearm part of the time.
    shade = np.broadcast_to(1 - 0.25 * ((xs - c) / (W / 2)) ** 2, (H, W))
    img[:] = skin * shade[..., None]
    if rng.random() < 0.7:
        sleeve_from = (palm_top + rng.uniform(130, 300)) * u
        cloth = np.array(random_colour(rng, sat=(0.0, 0.9), val=(0.1, 0.9)), np.float32)
        img[int(sleeve_from):] = cloth * shade[int(sleeve_from):, :, None]
        cuff = max(1, int(8 * u))
        a[int(sleeve_from):, :] = cv2.dilate(a[int(sleeve_from):, :], np.ones((1, 2 * cuff + 1), np.uint8))
    return np.clip(img, 0, 255).astype(np.uint8), a, (W_mm, H_mm)
