"""Light and camera effects for the training renders, applied to the reduced (network-size) frame:
uneven light, shadows, tint, exposure, glare, lens barrel, blur, sensor noise and JPEG.

Light is smooth, so applying it after the 2x -> 1x reduction changes nothing visible and costs
a quarter as much.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synthetic.textures import smooth_noise


def light_field(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Multiplicative illumination (H x W float32): gradient across the table, lamp falloff,
    low-frequency unevenness and vignetting."""
    xn = (np.arange(w, dtype=np.float32)[None, :] - w / 2) / (w / 2)
    yn = (np.arange(h, dtype=np.float32)[:, None] - h / 2) / (h / 2)
    a = rng.uniform(0, 2 * np.pi)
    f = 1 + rng.uniform(0, 0.45) * (np.cos(a) * xn + np.sin(a) * yn)
    if rng.random() < 0.4:  # a lamp: bright pool fading out
        cx, cy = rng.uniform(-1.2, 1.2, 2)
        f *= 1 - rng.uniform(0.1, 0.5) * np.clip(((xn - cx) ** 2 + (yn - cy) ** 2) / 4, 0, 1)
    f += rng.uniform(0, 0.15) * smooth_noise(rng, (h, w), (3, 4))
    f *= 1 - rng.uniform(0, 0.35) * ((xn ** 2 + yn ** 2) / 2) ** 1.5 * (rng.random() < 0.6)
    return np.clip(f, 0.2, 2.0)


def add_glare(rng: np.random.Generator, img: np.ndarray) -> None:
    """Specular spots of a lamp or window, sometimes clipping to white (in place)."""
    h, w = img.shape[:2]
    for _ in range(int(rng.choice([1, 2, 3], p=[0.6, 0.3, 0.1]))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.02, 0.2) * min(h, w)
        aspect = rng.uniform(0.3, 1.0)
        ang = rng.uniform(0, np.pi)
        x0, x1 = int(max(0, cx - 3 * r)), int(min(w, cx + 3 * r))
        y0, y1 = int(max(0, cy - 3 * r)), int(min(h, cy + 3 * r))
        if x1 <= x0 or y1 <= y0:
            continue
        ys, xs = (g.astype(np.float32) for g in np.ogrid[y0:y1, x0:x1])
        dx, dy = xs - cx, ys - cy
        u = dx * np.cos(ang) + dy * np.sin(ang)
        v = (-dx * np.sin(ang) + dy * np.cos(ang)) / aspect
        blob = np.exp(-(u * u + v * v) / (2 * r * r)) * rng.uniform(40, 320)
        img[y0:y1, x0:x1] += blob[..., None] * np.array([1.0, 1.0, 1.0], np.float32)


def add_sheen(rng: np.random.Generator, img: np.ndarray, inst: np.ndarray, k: int, roi: tuple[int, int, int, int],
              strength: float) -> None:
    """A glossy band across one card (in place): a straight reflection, only where the card shows."""
    x0, y0, x1, y1 = roi
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    ys, xs = (g.astype(np.float32) for g in np.ogrid[y0:y1, x0:x1])
    a = rng.uniform(0, np.pi)
    px, py = rng.uniform(x0, x1), rng.uniform(y0, y1)
    d = (xs - px) * np.cos(a) + (ys - py) * np.sin(a)
    width = rng.uniform(0.05, 0.5) * max(x1 - x0, y1 - y0)
    band = np.exp(-(d / width) ** 2) * strength * rng.uniform(60, 300)
    m = cv2.GaussianBlur((inst[y0:y1, x0:x1] == k).astype(np.float32), (3, 3), 0.6)
    img[y0:y1, x0:x1] += (band * m)[..., None]


def barrel_maps(w: int, h: int, k: float) -> tuple[np.ndarray, np.ndarray]:
    """remap() maps for a slight barrel, normalised so the frame's corners stay put (nothing from
    outside the rendered frame is needed)."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    cx, cy = (w - 1) / 2, (h - 1) / 2
    norm = np.hypot(cx, cy)
    x, y = (xs - cx) / norm, (ys - cy) / norm
    g = (1 + k * (x * x + y * y)) / (1 + k)
    return (x * g * norm + cx).astype(np.float32), (y * g * norm + cy).astype(np.float32)


def barrel_points(pts: np.ndarray, w: int, h: int, k: float) -> np.ndarray:
    """Where the barrel of `barrel_maps` puts undistorted points (inverse of its map, by Newton)."""
    cx, cy = (w - 1) / 2, (h - 1) / 2
    norm = np.hypot(cx, cy)
    p = (np.asarray(pts, float) - [cx, cy]) / norm
    ru = np.linalg.norm(p, axis=1)
    rd = ru.copy()
    for _ in range(12):  # solve rd (1 + k rd^2) / (1 + k) = ru
        fval = rd * (1 + k * rd * rd) / (1 + k) - ru
        rd -= fval / ((1 + 3 * k * rd * rd) / (1 + k))
    scale = np.where(ru > 1e-12, rd / np.maximum(ru, 1e-12), 1.0)
    return p * scale[:, None] * norm + [cx, cy]


def motion_kernel(rng: np.random.Generator) -> np.ndarray:
    length = rng.uniform(2, 7)
    n = int(np.ceil(length)) | 1
    k = np.zeros((n, n), np.float32)
    a = rng.uniform(0, np.pi)
    c = n // 2
    for t in np.linspace(-length / 2, length / 2, 4 * n):
        k[int(round(c + t * np.sin(a))), int(round(c + t * np.cos(a)))] = 1
    return k / k.sum()


def camera_effects(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Blur, sensor noise, clipping and JPEG on a float32 BGR frame -> uint8."""
    r = rng.random()
    if r < 0.35:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.6))
    elif r < 0.5:
        img = cv2.filter2D(img, -1, motion_kernel(rng))
    sigma = rng.uniform(0, 7) if rng.random() < 0.8 else 0.0
    if sigma > 0:
        h, w = img.shape[:2]
        # Luma noise per pixel, chroma noise blotchier (demosaicing spreads it): cheaper too.
        noise = rng.standard_normal((h, w, 1), dtype=np.float32)
        if rng.random() < 0.6:
            chroma = rng.standard_normal(((h + 1) // 2, (w + 1) // 2, 3), dtype=np.float32) * rng.uniform(0.3, 1.0)
            noise = noise + cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
        shot = cv2.sqrt(cv2.max(img, 1.0) * (sigma * sigma / 128))  # brighter pixels: more photon noise
        img = img + noise * shot
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.75:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 96))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


# What the referee's projector paints (`display.projector`, drawn here again from the geometry
# alone: vision does not import display): rings a little outside cards, reach arcs and bands,
# lines and labels in mm, in light colours. The card map must not take a lit ring for a card's
# edge, nor the ring and the card inside it for one larger card.
PROJECTOR_COLOURS = (
    (255, 255, 255),
    (120, 255, 255),
    (150, 255, 150),
    (255, 230, 150),
    (120, 190, 255),
    (255, 150, 255),
)


def add_projector_light(
    rng: np.random.Generator,
    img: np.ndarray,
    table_to_image: np.ndarray,
    cards_mm: list[np.ndarray],
    px_per_mm: float,
) -> None:
    """Add, in place, a projector's picture falling on `img` (H x W x 3 float, 0..255): for some
    of the cards (`cards_mm`, table mm, each 4 x 2) a ring a few mm outside it, a band or an arc
    at a reach's distance, a line to a neighbour and a label; `table_to_image` maps mm to px.
    Light adds in proportion to what the surface reflects."""
    import shapely

    h, w = img.shape[:2]
    pic = np.zeros((h, w, 3), np.float32)

    def to_px(pts_mm: np.ndarray) -> np.ndarray:
        p = np.c_[pts_mm, np.ones(len(pts_mm))] @ table_to_image.T
        return p[:, :2] / p[:, 2:3]

    def lay(layer: np.ndarray, colour: tuple, level: float) -> None:
        np.maximum(pic, layer[..., None].astype(np.float32) / 255 * level * np.float32(colour), out=pic)

    def fill(geom: shapely.Geometry, colour: tuple, level: float) -> None:
        layer = np.zeros((h, w), np.uint8)
        for poly in getattr(geom, "geoms", [geom]):
            if poly.is_empty:
                continue
            rings = [np.asarray(poly.exterior.coords)] + [np.asarray(r.coords) for r in poly.interiors]
            pts = [np.round(to_px(r) * 16).astype(np.int32) for r in rings]
            cv2.fillPoly(layer, pts, 255, cv2.LINE_AA, shift=4)
        lay(layer, colour, level)

    lit = [c for c in cards_mm if rng.random() < 0.7] or cards_mm[:1]
    short = float(
        np.median([min(np.linalg.norm(c[1] - c[0]), np.linalg.norm(c[2] - c[1])) for c in cards_mm])
    )
    join = "round" if rng.random() < 0.6 else "mitre"
    for c in lit:
        card = shapely.Polygon(c)
        colour = PROJECTOR_COLOURS[int(rng.integers(len(PROJECTOR_COLOURS)))]
        gap, width = rng.uniform(0.5, 8.0), rng.uniform(1.0, 12.0)  # (the referee's: 6 and 9 mm)
        ring = card.buffer(gap + width, join_style=join).difference(card.buffer(gap, join_style=join))
        fill(ring, colour, rng.uniform(0.6, 1.0))
        kind = rng.random()
        reach = short * rng.uniform(0.4, 1.8)
        if kind < 0.3:  # a band of where a pawn may land, faint
            band = card.buffer(reach).difference(card.buffer(gap + width + rng.uniform(1, 5)))
            fill(band, colour, rng.uniform(0.1, 0.35))
        elif kind < 0.6:  # an arc at the reach
            centre = card.centroid
            a0 = rng.uniform(0, 2 * np.pi)
            t = np.linspace(a0, a0 + rng.uniform(0.5, 2 * np.pi), 64)
            arc = shapely.LineString(np.c_[centre.x + reach * np.cos(t), centre.y + reach * np.sin(t)])
            fill(arc.buffer(rng.uniform(0.5, 2.5)), colour, rng.uniform(0.5, 1.0))
        if len(cards_mm) > 1 and rng.random() < 0.3:  # a line to another card, with its length
            other = cards_mm[int(rng.integers(len(cards_mm)))]
            a, b = c.mean(axis=0), other.mean(axis=0)
            if np.linalg.norm(b - a) > 1:
                fill(shapely.LineString([a, b]).buffer(rng.uniform(0.5, 2.0)), colour, rng.uniform(0.5, 1.0))
        if rng.random() < 0.4:  # a label beside it
            at = np.round(to_px(c.max(axis=0)[None] + rng.uniform(1, 8, 2))[0]).astype(int)
            scale = max(0.25, 4.0 * px_per_mm / 22)
            layer = np.zeros((h, w), np.uint8)
            text = f"{int(rng.integers(5, 200))} mm"
            cv2.putText(
                layer,
                text,
                tuple(at),
                cv2.FONT_HERSHEY_SIMPLEX,
                scale,
                255,
                max(1, int(scale * 2)),
                cv2.LINE_AA,
            )
            lay(layer, colour, rng.uniform(0.6, 1.0))
    pic = cv2.GaussianBlur(pic, (0, 0), rng.uniform(0.4, 1.5))  # the projector's focus
    img += pic * (img / 255.0) * np.float32(rng.uniform(0.4, 1.0))
