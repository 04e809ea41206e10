"""Photographic conditions of a rendered frame: surface, light, lens and sensor.

A new condition is one more field here (with a default that changes nothing) and one line in
the renderer that applies it. Presets name the tables that players really have.
"""

from __future__ import annotations

import dataclasses
import random
from dataclasses import dataclass

SURFACES = ("wood", "green_felt", "dark_cloth", "white")


@dataclass(frozen=True)
class Conditions:
    """Everything about a frame that is not the scene's geometry."""

    surface: str = "wood"
    surface_bgr: tuple[int, int, int] | None = None  # None: the surface's usual colour
    surface_texture: float = 1.0  # 0 = flat colour, 1 = the surface's usual grain
    card_stock_bgr: tuple[int, int, int] | None = None  # tint of the white card stock; None = as drawn
    floor_bgr: tuple[int, int, int] = (55, 60, 70)  # seen beyond the table's edge
    # Light: a soft key light from azimuth/elevation (shadows), uneven illumination, tint.
    exposure: float = 1.0
    light_azimuth_deg: float = 120.0  # direction the light comes from, in the table plane (0 = +x)
    light_elevation_deg: float = 55.0
    uneven_light: float = 0.25  # peak-to-peak relative illumination change across the table
    tint_bgr: tuple[float, float, float] = (0.95, 1.0, 1.05)  # white balance (warm by default)
    vignetting: float = 0.25  # relative darkening at the image corners
    shadow_strength: float = 0.45  # how dark a full shadow is (0 = none)
    shadow_softness_mm: float = 2.0  # penumbra per 10 mm of height of the object casting it
    glare: float = 0.0  # peak added brightness (0..1) of the light's reflection
    glare_radius_px: float = 120.0
    # Sensor and lens.
    noise_sigma: float = 3.0  # grey levels, at mid-grey (shot noise grows with brightness)
    defocus_sigma_px: float = 0.6
    motion_blur_px: float = 0.0
    motion_angle_deg: float = 0.0
    jpeg_quality: int | None = 90  # None: no compression (lossless frame)

    def __post_init__(self) -> None:
        if self.surface not in SURFACES:
            raise ValueError(f"unknown table surface {self.surface!r}; choose one of {', '.join(SURFACES)}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError("jpeg_quality must be 1..100 or None")

    def replace(self, **changes: object) -> Conditions:
        return dataclasses.replace(self, **changes)  # type: ignore[arg-type]

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


PRESETS: dict[str, Conditions] = {
    "wood": Conditions(surface="wood"),
    "green_felt": Conditions(surface="green_felt", tint_bgr=(1.0, 1.0, 1.0), uneven_light=0.2),
    "dark_cloth": Conditions(surface="dark_cloth", exposure=1.1, noise_sigma=4.0, tint_bgr=(1.05, 1.0, 0.95)),
    "white": Conditions(surface="white", shadow_strength=0.35, glare=0.15),
    # White cards on a near-white cloth under flat light: the low-contrast case.
    "white_on_white": Conditions(
        surface="white",
        surface_bgr=(232, 238, 242),
        card_stock_bgr=(240, 244, 246),
        uneven_light=0.1,
        shadow_strength=0.15,
        vignetting=0.1,
    ),
    # Overexposed and warm with a strong reflection and a bit of camera shake.
    "harsh": Conditions(surface="wood", exposure=1.25, glare=0.5, motion_blur_px=3.0, motion_angle_deg=20.0),
    "ideal": Conditions(
        surface="green_felt",
        uneven_light=0.0,
        vignetting=0.0,
        shadow_strength=0.0,
        noise_sigma=0.0,
        defocus_sigma_px=0.0,
        jpeg_quality=None,
        tint_bgr=(1.0, 1.0, 1.0),
    ),
}


def random_conditions(seed: int, surface: str | None = None) -> Conditions:
    """Plausible random conditions: a preset's surface with light, lens and sensor varied."""
    rng = random.Random(seed)
    surf = surface or rng.choice(SURFACES)
    base = PRESETS["green_felt" if surf == "green_felt" else surf]
    return base.replace(
        exposure=rng.uniform(0.8, 1.2),
        light_azimuth_deg=rng.uniform(0, 360),
        light_elevation_deg=rng.uniform(35, 80),
        uneven_light=rng.uniform(0.0, 0.45),
        tint_bgr=(rng.uniform(0.85, 1.05), 1.0, rng.uniform(0.95, 1.2)),
        vignetting=rng.uniform(0.0, 0.4),
        shadow_strength=rng.uniform(0.15, 0.6),
        glare=rng.choice([0.0, 0.0, rng.uniform(0.1, 0.6)]),
        glare_radius_px=rng.uniform(60, 250),
        noise_sigma=rng.uniform(1.0, 6.0),
        defocus_sigma_px=rng.uniform(0.0, 1.2),
        motion_blur_px=rng.choice([0.0, 0.0, rng.uniform(1.0, 5.0)]),
        motion_angle_deg=rng.uniform(0, 180),
        jpeg_quality=rng.randint(70, 95),
    )
