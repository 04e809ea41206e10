"""The light on a flat printed thing (a card's art): per colour channel, a gain (not negative)
times what is printed plus a wash smooth across it (uneven light, a lamp's glare), fitted
robustly so that what lies on it (a pawn) or what the light clipped is left out. Faces ask it
whether a glare-washed card is the back; pawns whether a pale blob is print or a pawn."""

from __future__ import annotations

import numpy as np


def fit_light(
    seen: np.ndarray,
    printed: np.ndarray,
    wash: np.ndarray,
    tol: float,
    start: float = 0.6,
    rounds: int = 4,
    clipped: float | None = None,
) -> tuple[np.ndarray, np.ndarray] | None:
    """The light that makes `printed` look like `seen` ((n, 3) B G R samples, the same places),
    with the wash's `wash` terms ((n, k), e.g. 1, x, y at each sample): its coefficients (3, 1 + k;
    per channel the gain, then the wash's) and which samples it explains within `tol` (distance
    in B G R levels). Fitted first to the best `start` share of the samples, then to those it
    explains, `rounds` times. With `clipped`, a level at least that bright is one the sensor
    clipped: it says only "at least this" - it pulls the light up to it, never down - and no
    level above 255 is predicted. (On a card a glare washes nearly white, the few unclipped
    levels may be mostly a pawn's: fitted to those alone, the light would explain the pawn.)
    None when too few samples are left to fit."""
    s = np.asarray(seen, np.float64)
    design = np.concatenate([np.asarray(printed, np.float64), np.asarray(wash, np.float64)], axis=1)
    k = design.shape[1] - 3
    cols = np.array([[c, *range(3, 3 + k)] for c in range(3)])  # channel c: its print, the wash
    censored = s >= clipped if clipped is not None else None
    target = s.copy()
    if censored is not None:
        target[censored] = clipped
    explained = np.ones(len(s), bool)
    for i in range(rounds):
        if explained.sum() < 2 * (k + 1):
            return None
        d = design[explained]
        normal, rhs = d.T @ d, d.T @ target[explained]
        # A whisper of damping per column, for a wash term the samples leave undetermined (a
        # card seen along a thin strip); relative, so it biases no well-seen term.
        damp = np.diag(1e-9 * np.diag(normal) + 1e-12)
        coef = np.linalg.solve(
            normal[cols[:, :, None], cols[:, None, :]] + damp[cols[:, :, None], cols[:, None, :]],
            rhs[cols, np.arange(3)[:, None]][..., None],
        )[..., 0]
        for c in np.flatnonzero(coef[:, 0] < 0):  # light adds no negative of the print
            coef[c] = 0.0
            coef[c, 1:] = np.linalg.solve(normal[3:, 3:] + damp[3:, 3:], rhs[3:, c])
        pred = design[:, :3] * coef[:, 0] + design[:, 3:] @ coef[:, 1:].T
        if censored is None:
            miss = s - pred
        else:
            miss = s - np.clip(pred, 0.0, 255.0)
            # A clipped level is missed only by a prediction below it; next round it is taken
            # as what the light predicts there, or the clipping level if that is more.
            miss[censored] = np.maximum(clipped - pred[censored], 0.0)
            target[censored] = np.maximum(pred[censored], clipped)
        err = np.sqrt((miss**2).sum(axis=1))
        if i == 0:
            j = int(start * (len(err) - 1))
            explained = err <= np.partition(err, j)[j]
        else:
            explained = err <= tol
    return coef, explained
