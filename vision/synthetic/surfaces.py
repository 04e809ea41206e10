"""Random table surfaces for the training renders, drawn flat in table millimetres.

Each kind is a cheap numpy/OpenCV formula over a top-down raster (the camera's homography
then foreshortens it), so checks, stripes and grain shrink with distance as on a real table.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synthetic.card_designs import random_colour
from vision.synthetic.textures import smooth_noise

TABLE_KINDS = ("plain", "wood", "felt", "cloth", "checkered", "gingham", "striped", "marble", "pattern",
               "speckle")
TABLE_P = (0.16, 0.16, 0.12, 0.08, 0.1, 0.07, 0.08, 0.08, 0.08, 0.07)


def _plain_colour(rng: np.random.Generator) -> np.ndarray:
    """Any table colour, with extra weight on the hard ones: white, near-black, grey, navy, green."""
    k = rng.random()
    if k < 0.2:
        c = (rng.uniform(200, 250),) * 3
    elif k < 0.32:
        c = (rng.uniform(10, 45),) * 3
    elif k < 0.45:
        c = (rng.uniform(60, 190),) * 3
    elif k < 0.52:
        c = (rng.uniform(70, 110), rng.uniform(30, 50), rng.uniform(15, 30))  # navy
    elif k < 0.6:
        c = (rng.uniform(30, 70), rng.uniform(90, 140), rng.uniform(20, 50))  # green felt
    else:
        c = random_colour(rng, sat=(0.05, 0.9), val=(0.1, 0.95))
    return np.array(c, np.float32) * rng.uniform(0.97, 1.03, 3).astype(np.float32)


def table_albedo(
    rng: np.random.Generator, shape: tuple[int, int], px_per_mm: float, white: bool = False
) -> np.ndarray:
    """A uint8 BGR raster of a random table surface, `shape` = (rows, cols) at px_per_mm;
    `white`: a plain white-ish table (the white-cards-on-white-table case)."""
    return table_surface(rng, shape, px_per_mm, white)[0]


def table_surface(
    rng: np.random.Generator, shape: tuple[int, int], px_per_mm: float, white: bool = False
) -> tuple[np.ndarray, str]:
    """`table_albedo`'s raster and its kind (one of TABLE_KINDS, or "white"), so a bench can
    report by surface as the independent evaluation did."""
    h, w = shape
    kind = "plain" if white else str(rng.choice(TABLE_KINDS, p=TABLE_P))
    base = _plain_colour(rng)
    if white:
        base = np.array([rng.uniform(215, 250)] * 3, np.float32) * rng.uniform(0.97, 1.03, 3).astype(np.float32)
    mm_h, mm_w = h / px_per_mm, w / px_per_mm
    ys = (np.arange(h, dtype=np.float32) / px_per_mm)[:, None]
    xs = (np.arange(w, dtype=np.float32) / px_per_mm)[None, :]
    mottle = smooth_noise(rng, shape, (max(2, int(mm_h / 150)), max(2, int(mm_w / 150))))
    lum = 1 + rng.uniform(0.0, 0.06) * mottle
    if kind == "plain":
        img = base * lum[..., None]
    elif kind == "wood":
        tone = np.array(rng.choice([(40, 75, 125), (25, 45, 80), (80, 130, 180), (110, 160, 205), (30, 40, 55),
                                    (60, 100, 150)]), np.float32) * rng.uniform(0.8, 1.15)
        grain = smooth_noise(rng, shape, (max(2, int(mm_h / 2)), max(2, int(mm_w / 80))))
        warp = smooth_noise(rng, shape, (max(2, int(mm_h / 100)), max(2, int(mm_w / 150))))
        rings = np.sin((ys + 6 * warp) * rng.uniform(0.4, 1.5) + grain)
        plank_mm = rng.uniform(60, 250)
        plank = (ys // plank_mm).astype(int) % 16
        ptone = rng.uniform(0.85, 1.12, 16).astype(np.float32)[plank]
        seam = (ys % plank_mm) < 0.9
        lum2 = (1 + 0.08 * grain + rng.uniform(0.03, 0.09) * rings) * ptone * np.where(seam, 0.6, 1.0)
        img = tone * (lum2 * lum)[..., None]
    elif kind in ("felt", "cloth"):
        fibre = cv2.GaussianBlur(rng.standard_normal(shape, dtype=np.float32), (0, 0), 0.7)
        if kind == "cloth":
            per = rng.uniform(0.8, 2.5)
            weave = np.sin(xs * 2 * np.pi / per) * np.sin(ys * 2 * np.pi / per)
            lum = lum + 0.08 * weave
        img = base * (lum + rng.uniform(0.03, 0.12) * fibre)[..., None]
    elif kind in ("checkered", "gingham"):
        size = rng.uniform(4, 45)
        c2 = np.array(random_colour(rng, val=(0.1, 0.9)), np.float32)
        if kind == "checkered":
            t = (((xs // size) + (ys // size)) % 2).astype(np.float32)
            img = base + (c2 - base) * t[..., None]
        else:  # gingham: overlapping translucent stripes give three tones
            a = ((xs // size) % 2).astype(np.float32)
            b = ((ys // size) % 2).astype(np.float32)
            t = 0.5 * (a + b)
            base = np.array((rng.uniform(225, 250),) * 3, np.float32)
            img = base + (c2 - base) * t[..., None]
        img *= lum[..., None]
    elif kind == "striped":
        n = int(rng.integers(2, 5))
        colours = np.array([base] + [random_colour(rng) for _ in range(n - 1)], np.float32)
        widths = rng.uniform(2, 40, n)
        period = widths.sum()
        edges = np.cumsum(widths)
        pos = (xs + rng.uniform(-0.4, 0.4) * ys) % period  # (h, w) by broadcasting
        # Stripe of each position through a 0.1 mm lookup table (searchsorted per pixel is slow).
        lut = np.minimum(np.searchsorted(edges, np.arange(0, period + 0.1, 0.1)), n - 1)
        idx = lut[(pos * 10).astype(np.int32)]
        img = colours[idx] * lum[..., None]
    elif kind == "marble":
        base = np.array(rng.choice([(235, 235, 232), (200, 200, 205), (40, 38, 38), (180, 195, 215)]), np.float32)
        turb = smooth_noise(rng, shape, (max(2, int(mm_h / 120)), max(2, int(mm_w / 120))))
        turb += 0.25 * smooth_noise(rng, shape, (max(2, int(mm_h / 30)), max(2, int(mm_w / 30))))
        # Few thin veins of varying strength: |sin| is near 0 only along sparse wandering lines.
        f = rng.uniform(0.003, 0.015)
        veins = np.sqrt(np.sqrt(np.abs(np.sin((xs * f + ys * f * rng.uniform(-1, 1)) * 2 * np.pi + 2.5 * turb))))
        strength = np.clip(0.6 + 0.5 * smooth_noise(rng, shape, (3, 3)), 0, 1)
        vein_c = np.array(random_colour(rng, sat=(0.0, 0.3), val=(0.2, 0.7)), np.float32)
        cloud = 1 + 0.05 * turb
        img = (base * cloud[..., None]) + (vein_c - base) * (strength * (1 - veins))[..., None]
    elif kind == "pattern":
        # One motif tile, repeated (drawing every motif would cost a circle call each).
        step = max(4, int(rng.uniform(15, 60) * px_per_mm))
        tile = np.empty((2 * step, step, 3), np.uint8)
        tile[:] = base.astype(np.uint8)
        motif = [random_colour(rng) for _ in range(2)]
        r = max(1, int(rng.uniform(0.1, 0.3) * step))
        for x, y in ((step / 2, step / 2), (0, 1.5 * step), (step, 1.5 * step)):
            cv2.circle(tile, (int(x), int(y)), r, motif[0], -1, cv2.LINE_AA)
            if r > 3:
                for a in range(0, 360, 72):
                    p = (int(x + 1.3 * r * np.cos(np.radians(a))), int(y + 1.3 * r * np.sin(np.radians(a))))
                    cv2.circle(tile, p, max(1, r // 2), motif[1], -1, cv2.LINE_AA)
        reps = (h // (2 * step) + 1, w // step + 1, 1)
        img = np.tile(tile, reps)[:h, :w].astype(np.float32) * lum[..., None]
    else:  # speckle: laminate / granite dots
        dots = rng.random(shape, dtype=np.float32)
        img = base * (lum - 0.25 * (dots > 0.97) + 0.2 * (dots < 0.02))[..., None]
    # saturating float -> uint8, faster than clip + astype
    return cv2.convertScaleAbs(img), "white" if white else kind
