"""Where things lie for the training renders: cards scattered, in grids (touching to 10 mm gaps),
in played piles, in solitaire-like cascades, in a deck, fanned in a held hand; props and hands
around them. Everything is a `Thing` in table millimetres, listed in painter's order.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.synthetic.card_designs import DeckStyle, outer_size_mm, random_deck_style
from vision.synthetic.clutter import Prop, random_prop
from vision.synthetic.layouts import convex_overlap


@dataclass
class Thing:
    kind: str  # "card", "edge" (a layer of a deck's side), "prop", "hand"
    centre_mm: tuple[float, float]
    angle_deg: float  # turns the art counter-clockwise in the table's x-right, y-down raster
    style: DeckStyle | None = None
    prop: Prop | None = None
    face_up: bool = True
    ignore: bool = False  # its pixels are not scored (deck, held fan)
    height_mm: float = 0.0  # above the table, for its shadow
    scale: float = 1.0  # > 1: held closer to the camera than the table


def _rot(a_deg: float) -> np.ndarray:
    a = np.radians(a_deg)
    return np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])


def thing_corners_mm(t: Thing, size_mm: tuple[float, float]) -> np.ndarray:
    """Corners (4 x 2, table mm) of a w x h rectangle placed like t: art's top-left first."""
    w, h = size_mm[0] * t.scale / 2, size_mm[1] * t.scale / 2
    local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    return local @ _rot(t.angle_deg).T + np.asarray(t.centre_mm)


def _inside(poly: np.ndarray, p: np.ndarray) -> float:
    return cv2.pointPolygonTest(poly.astype(np.float32), (float(p[0]), float(p[1])), True)


def _point_in(rng: np.random.Generator, poly: np.ndarray, reach: float = 0.0) -> np.ndarray:
    """A random point inside the polygon, or up to `reach` mm outside it."""
    lo, hi = poly.min(axis=0) - reach, poly.max(axis=0) + reach
    for _ in range(50):
        p = rng.uniform(lo, hi)
        if _inside(poly, p) >= -reach:
            return p
    return poly.mean(axis=0)


def _card(style: DeckStyle, c, a, rng: np.random.Generator, **kw) -> Thing:
    face_up = kw.pop("face_up", bool(rng.random() < 0.75))
    return Thing("card", (float(c[0]), float(c[1])), float(a), style=style, face_up=face_up, **kw)


def _scatter(rng, style, foot, n: int, allow_overlap: bool) -> list[Thing]:
    w, h = outer_size_mm(style)
    out: list[Thing] = []
    quads: list[np.ndarray] = []
    for _ in range(n * 6):
        if len(out) >= n:
            break
        t = _card(style, _point_in(rng, foot, 0.4 * h), rng.uniform(0, 360), rng)
        q = thing_corners_mm(t, (w, h))
        if not allow_overlap and any(convex_overlap(q, o, 0.3) for o in quads):
            continue
        out.append(t)
        quads.append(q)
    return out


def _grid(rng, style, foot, n_max: int) -> list[Thing]:
    w, h = outer_size_mm(style)
    if rng.random() < 0.35:  # cards laid landscape (SET, many tableaux)
        cell, turn = (h, w), 90.0
    else:
        cell, turn = (w, h), 0.0
    gap = 0.0 if rng.random() < 0.3 else rng.uniform(0.0, 10.0)
    gx, gy = gap, gap if rng.random() < 0.6 else rng.uniform(0, 10)
    ext = np.ptp(foot, axis=0).min()
    cols = int(rng.integers(1, max(2, int(ext / (cell[0] + gx)) + 2)))
    rows = int(rng.integers(1, max(2, int(ext / (cell[1] + gy)) + 2)))
    while rows * cols > n_max:
        rows, cols = max(1, rows - 1), max(1, cols - 1)
    centre = _point_in(rng, foot)
    ang = rng.uniform(0, 360)
    rot = _rot(ang)
    jitter = rng.uniform(0, 1.5)  # hand-laid cards are never perfectly aligned
    out = []
    for i in range(rows):
        for j in range(cols):
            if rng.random() < 0.08:
                continue
            off = np.array([(j - (cols - 1) / 2) * (cell[0] + gx), (i - (rows - 1) / 2) * (cell[1] + gy)])
            if gap > 0:
                off = off + rng.normal(0, 0.3 * jitter, 2)
            c = centre + rot @ off
            a = ang + turn + (rng.normal(0, jitter) if gap > 1.5 else rng.normal(0, 0.2)) + 180 * (rng.random() < 0.5)
            out.append(_card(style, c, a, rng))
    return out


def _pile(rng, style, foot) -> list[Thing]:
    w, h = outer_size_mm(style)
    c = _point_in(rng, foot)
    base = rng.uniform(0, 360)
    spread = rng.uniform(5, 180)
    n = int(rng.integers(2, 8))
    return [
        _card(style, c + rng.uniform(-0.45, 0.45, 2) * (w, h), base + rng.uniform(-spread, spread) / 2, rng, face_up=True)
        for _ in range(n)
    ]


def _cascade(rng, style, foot) -> list[Thing]:
    """Columns of overlapping cards each showing a strip (solitaire, a played row)."""
    w, h = outer_size_mm(style)
    c0 = _point_in(rng, foot)
    ang = rng.uniform(0, 360)
    rot = _rot(ang)
    step = rng.uniform(0.15, 0.5) * h
    out = []
    ncol = int(rng.integers(1, 5))
    gap = rng.uniform(2, 15)
    for j in range(ncol):
        for i in range(int(rng.integers(2, 7))):
            off = np.array([(j - (ncol - 1) / 2) * (w + gap), i * step])
            out.append(_card(style, c0 + rot @ off, ang + rng.normal(0, 0.7), rng, face_up=True))
    return out


def _deck(rng, style, foot) -> list[Thing]:
    """A stack: side layers stepping out a little, the top card last; all ignored."""
    c = _point_in(rng, foot)
    a = rng.uniform(0, 360)
    d = _rot(rng.uniform(0, 360)) @ np.array([1.0, 0.0])
    n = int(rng.integers(3, 10))
    step = rng.uniform(0.15, 0.45)
    out = [Thing("edge", tuple(c + d * step * (n - k)), a + rng.normal(0, 0.8), style=style, ignore=True,
                 height_mm=0.4 * (n - k)) for k in range(n)]
    out.append(_card(style, c, a, rng, face_up=bool(rng.random() < 0.2), ignore=True, height_mm=0.4 * n + 2))
    return out


def _fan(rng, style, foot) -> list[Thing]:
    """Cards fanned in a hand held over the table, near the frame's edge; the hand on top."""
    w, h = outer_size_mm(style)
    pivot = _point_in(rng, foot, 0.3 * h)
    inward = foot.mean(axis=0) - pivot
    base = np.degrees(np.arctan2(inward[0], -inward[1])) if np.linalg.norm(inward) > 1 else rng.uniform(0, 360)
    n = int(rng.integers(3, 9))
    spread = rng.uniform(6, 15)
    scale = rng.uniform(1.1, 1.5)
    lift = rng.uniform(80, 250)
    out = []
    for k in range(n):
        a = base + (k - (n - 1) / 2) * spread
        c = pivot + _rot(a) @ np.array([0.0, -0.4 * h * scale])
        out.append(_card(style, c, a, rng, face_up=True, ignore=True, height_mm=lift, scale=scale))
    out.append(Thing("hand", tuple(pivot + _rot(base) @ np.array([0.0, 0.25 * h * scale])), base, height_mm=lift + 20,
                     scale=scale))
    return out


def _hand(rng, foot) -> Thing:
    tip = _point_in(rng, foot)
    out = tip - foot.mean(axis=0)
    a = np.degrees(np.arctan2(-out[0], out[1])) + rng.normal(0, 30) if np.linalg.norm(out) > 1 else rng.uniform(0, 360)
    return Thing("hand", (float(tip[0]), float(tip[1])), float(a), height_mm=rng.uniform(40, 300),
                 scale=rng.uniform(1.0, 1.3))


def random_things(
    rng: np.random.Generator, foot: np.ndarray, style: DeckStyle, keys: np.random.Generator | None = None
) -> list[Thing]:
    """Everything on and over the table, in the order it is drawn (bottom first); `foot` is
    what the camera sees of the table (polygon, mm). With `keys` (its own stream, so the rest is
    drawn as without it), a keyboard or a keypad lies on the table a third of the time, under
    whatever else lies there."""
    w, h = outer_size_mm(style)
    area = abs(cv2.contourArea(foot.astype(np.float32)))
    capacity = int(np.clip(area / (w * h), 1, 60))
    under: list[Thing] = []
    if keys is not None and keys.random() < 0.35:
        p = random_prop(keys, "keyboard" if keys.random() < 0.75 else "keypad")
        under.append(Thing("prop", tuple(_point_in(keys, foot, 50)), keys.uniform(0, 360), prop=p,
                           height_mm=p.height_mm))
    n_props = int(rng.choice([0, 1, 2, 4, 8], p=[0.3, 0.25, 0.2, 0.15, 0.1]))
    props = [random_prop(rng) for _ in range(n_props)]
    flat = ("paper", "placemat", "notebook", "receipt", "envelope", "sticky")
    for p in props:
        if p.kind in flat and rng.random() < 0.6:  # cards lie on papers as often as papers on cards
            under.append(Thing("prop", tuple(_point_in(rng, foot, 50)), rng.uniform(0, 360), prop=p,
                               height_mm=p.height_mm))
    main = str(rng.choice(["scatter", "grid", "pile", "cascade", "few", "none"],
                          p=[0.27, 0.32, 0.13, 0.07, 0.15, 0.06]))
    cards: list[Thing] = []
    if main == "scatter":
        cards = _scatter(rng, style, foot, int(rng.integers(1, max(2, capacity // 2 + 1))), rng.random() < 0.4)
    elif main == "grid":
        cards = _grid(rng, style, foot, capacity)
    elif main == "pile":
        cards = _pile(rng, style, foot)
    elif main == "cascade":
        cards = _cascade(rng, style, foot)
    elif main == "few":
        cards = _scatter(rng, style, foot, int(rng.integers(1, 4)), rng.random() < 0.3)
    if rng.random() < 0.25:  # a second game's cards on the same table
        cards += _scatter(rng, random_deck_style(rng), foot, int(rng.integers(1, 5)), True)
    extras: list[Thing] = []
    if rng.random() < 0.2:
        extras += _deck(rng, style, foot)
    on_top = [Thing("prop", tuple(_point_in(rng, foot, 30)), rng.uniform(0, 360), prop=p, height_mm=p.height_mm)
              for p in props if not any(t.prop is p for t in under)]
    order = cards + extras + on_top
    if rng.random() < 0.5:  # props and cards interleave: a pen on one card, a card on a book...
        idx = rng.permutation(len(order))
        order = [order[i] for i in idx]
        order.sort(key=lambda t: t.height_mm > 5)  # tall things stay above flat ones
    if rng.random() < 0.12:
        order += _fan(rng, style, foot)
    for _ in range(int(rng.choice([0, 1, 2], p=[0.7, 0.22, 0.08]))):
        order.append(_hand(rng, foot))
    return under + order
