"""The light model (`vision.light.fit_light`) on a card a glare washes nearly white, against the
light the samples were made with."""

from __future__ import annotations

import numpy as np

from vision.light import fit_light

TOL, CLIPPED = 40.0, 248


def _glared_card(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(seen, printed, wash terms, pawn mask) of a card sampled on a 30 x 42 grid: white paper
    with dark print in the middle, under a gain and a white glare that clips the paper; a blue
    disc stands on most of the dark print."""
    rng = np.random.default_rng(seed)
    v, u = np.mgrid[0:42, 0:30].astype(np.float64)
    u, v = (u - 14.5) / 35.0, (v - 20.5) / 35.0
    printed = np.full(u.shape + (3,), 235.0)
    ink = np.hypot(u, v) < 0.22
    printed[ink] = 25.0
    printed[(np.abs(u) > 0.33) & ~ink] = (60.0, 60.0, 200.0)  # a red frame at the sides
    gain = np.array([1.1, 1.2, 1.25])
    glare = 60.0 * np.exp(-(u**2 + v**2) / 0.3)
    seen = printed * gain + glare[..., None]
    pawn = np.hypot(u, v - 0.02) < 0.2
    seen[pawn] = np.array([150.0, 70.0, 25.0]) * gain + glare[pawn][:, None]
    seen = np.clip(seen + rng.normal(0, 2.0, seen.shape), 0, 255).round()
    wash = np.stack([np.ones_like(u), u, v, u * u, v * v, u * v], -1)
    return seen.reshape(-1, 3), printed.reshape(-1, 3), wash.reshape(-1, 6), pawn.ravel()


def test_clipped_levels_keep_the_light_from_explaining_a_pawn_on_a_glared_card():
    seen, printed, wash, pawn = _glared_card(7)
    unclipped = seen.max(axis=1) < CLIPPED
    assert unclipped.mean() < 0.3 and pawn[unclipped].mean() > 0.5  # the cause: mostly the pawn
    # Fitted to the unclipped samples alone, the light explains the pawn as print.
    alone = fit_light(seen[unclipped], printed[unclipped], wash[unclipped], TOL)
    assert alone is not None and alone[1][pawn[unclipped]].mean() > 0.9
    # The clipped levels say the light is at least that bright there: the pawn is left out.
    fit = fit_light(seen, printed, wash, TOL, clipped=CLIPPED)
    assert fit is not None
    explained = fit[1]
    assert explained[pawn].mean() < 0.05
    assert explained[~pawn].mean() > 0.9
