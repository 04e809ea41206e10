"""Which training frame comes next: most at random, a share by how badly the map did on it.

The map is weakest on whole classes of frames (checkered and striped cloth, white tables,
overlapping cards: `bench.randomised` by surface and layout), and those are a small part of the
pool. Drawing a share of the frames by their last loss gives such classes more of the steps
without a rule naming any of them; the uniform rest keeps every frame in view.
"""

from __future__ import annotations

import numpy as np

# How much of an item's kept loss a new measurement replaces: a frame's loss varies with its
# random crop and augmentation, so one bad crop should not decide its weight.
UPDATE = 0.3


class HardSampler:
    """Draws indices 0..n-1: with probability `share` in proportion to each item's loss (a running
    mean of the losses reported for it; items not yet seen count as the mean of those seen), else
    uniformly."""

    def __init__(self, n: int, share: float, losses: np.ndarray | None = None) -> None:
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"the hard share must lie in 0..1, not {share}")
        self.share = share
        self.loss = np.full(n, np.nan) if losses is None else np.asarray(losses, np.float64).copy()
        if self.loss.shape != (n,):
            raise ValueError(f"kept losses for {self.loss.shape[0]} items, the pool has {n}")

    def draw(self, rng: np.random.Generator, among: np.ndarray) -> int:
        """One index of `among` (the items a batch may use, e.g. the landscape frames)."""
        if self.share > 0 and rng.random() < self.share:
            seen = self.loss[among]
            known = seen[~np.isnan(seen)]
            if known.size:
                w = np.where(np.isnan(seen), known.mean(), seen)
                return int(among[rng.choice(len(among), p=w / w.sum())])
        return int(among[rng.integers(len(among))])

    def report(self, index: int, loss: float) -> None:
        old = self.loss[index]
        self.loss[index] = loss if np.isnan(old) else (1 - UPDATE) * old + UPDATE * loss
