"""Procedural table surfaces (wood, green felt, dark cloth, white) and the floor around them.

Textures are drawn in a top-down raster of the table (rows run from far to near), seeded, from
smooth noise made by enlarging small random grids (fast, and free of tiling seams).
"""

from __future__ import annotations

import cv2
import numpy as np

SURFACE_BGR = {
    "wood": (40, 75, 125),
    "green_felt": (60, 120, 35),
    "dark_cloth": (38, 32, 30),
    "white": (225, 230, 233),
}


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Zero-mean, unit-ish noise varying over about `cells` cells along (rows, cols)."""
    small = rng.standard_normal((max(2, cells[0]), max(2, cells[1]))).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def surface_texture(
    surface: str,
    shape: tuple[int, int],
    px_per_mm: float,
    seed: int,
    base_bgr: tuple[int, int, int] | None = None,
    strength: float = 1.0,
) -> np.ndarray:
    """A float32 BGR albedo image (0..255) of the surface, `shape` = (rows, cols)."""
    rng = np.random.default_rng(seed)
    h, w = shape
    base = np.array(base_bgr or SURFACE_BGR[surface], np.float32)
    mm_h, mm_w = h / px_per_mm, w / px_per_mm
    if surface == "wood":
        # Planks along x: grain = stretched noise along rows, plus rings, plus plank seams.
        grain = smooth_noise(rng, shape, (int(mm_h / 1.5), int(mm_w / 60)))
        fine = smooth_noise(rng, shape, (int(mm_h / 0.7), int(mm_w / 8)))
        warp = smooth_noise(rng, shape, (int(mm_h / 120), int(mm_w / 200))) * 6.0
        rows = np.arange(h, dtype=np.float32)[:, None] / px_per_mm
        rings = np.sin((rows + warp * 8) * 0.9 + grain * 1.5)
        lum = 1.0 + 0.10 * grain + 0.05 * fine + 0.06 * rings
        plank_mm = 140.0
        plank = (rows // plank_mm).astype(int)
        tone = rng.uniform(0.85, 1.12, size=int(mm_h // plank_mm) + 2).astype(np.float32)
        lum = lum * tone[plank]
        seam = (np.abs(rows - (plank + 1) * plank_mm) < 0.8) | (np.abs(rows - plank * plank_mm) < 0.8)
        lum = np.where(seam, lum * 0.55, lum)
        colour = base[None, None, :] * (1 + strength * (lum[..., None] - 1))
        colour[..., 2] += strength * 10 * grain
    elif surface == "green_felt":
        mottle = smooth_noise(rng, shape, (int(mm_h / 80), int(mm_w / 80)))
        fibre = rng.standard_normal(shape).astype(np.float32)
        fibre = cv2.GaussianBlur(fibre, (0, 0), 0.6)
        lum = 1.0 + strength * (0.05 * mottle + 0.05 * fibre)
        colour = base[None, None, :] * lum[..., None]
    elif surface == "dark_cloth":
        ys, xs = np.mgrid[0:h, 0:w].astype(np.float32) / px_per_mm
        weave = 0.5 * (np.sin(xs * 2 * np.pi / 1.2) * np.sin(ys * 2 * np.pi / 1.2))
        mottle = smooth_noise(rng, shape, (int(mm_h / 60), int(mm_w / 60)))
        fibre = rng.standard_normal(shape).astype(np.float32)
        lum = 1.0 + strength * (0.10 * weave + 0.08 * mottle + 0.07 * fibre)
        colour = base[None, None, :] * lum[..., None]
    elif surface == "white":
        mottle = smooth_noise(rng, shape, (int(mm_h / 100), int(mm_w / 100)))
        fibre = rng.standard_normal(shape).astype(np.float32)
        fibre = cv2.GaussianBlur(fibre, (0, 0), 0.8)
        lum = 1.0 + strength * (0.012 * mottle + 0.012 * fibre)
        colour = base[None, None, :] * lum[..., None]
    else:
        raise ValueError(f"unknown surface {surface!r}")
    return np.clip(colour, 0, 255).astype(np.float32)


def floor_texture(shape: tuple[int, int], seed: int, base_bgr: tuple[int, int, int]) -> np.ndarray:
    """What lies beyond the table: a darker, blurry floor."""
    rng = np.random.default_rng(seed + 7919)
    n = smooth_noise(rng, shape, (max(2, shape[0] // 60), max(2, shape[1] // 60)))
    base = np.array(base_bgr, np.float32)
    return np.clip(base[None, None, :] * (1 + 0.15 * n[..., None]), 0, 255).astype(np.float32)
