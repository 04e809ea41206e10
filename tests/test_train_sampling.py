"""The training sampler that gives the frames the map does worst on a share of the steps."""

from __future__ import annotations

import numpy as np
import pytest

from vision.train.sampling import UPDATE, HardSampler


def _counts(sampler: HardSampler, among: np.ndarray, n: int = 4000, seed: int = 1) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.bincount([sampler.draw(rng, among) for _ in range(n)], minlength=len(sampler.loss))


def test_without_a_hard_share_every_frame_is_as_likely():
    s = HardSampler(4, 0.0)
    for i, loss in enumerate((0.1, 0.1, 0.1, 9.0)):
        s.report(i, loss)
    c = _counts(s, np.arange(4))
    assert c.min() > 900 and c.max() < 1100


def test_a_hard_share_draws_frames_by_their_loss_and_keeps_the_rest_in_view():
    s = HardSampler(4, 0.5)
    for i, loss in enumerate((0.1, 0.1, 0.1, 2.7)):
        s.report(i, loss)
    c = _counts(s, np.arange(4))
    # Half uniform (1/4 each), half by loss (0.9 of it to the last): 0.575 and 0.1375 of the draws.
    assert 0.54 < c[3] / c.sum() < 0.61
    assert all(0.11 < c[i] / c.sum() < 0.17 for i in range(3))


def test_draws_stay_among_the_frames_offered_and_unseen_ones_count_as_the_mean():
    s = HardSampler(6, 1.0)
    s.report(4, 1.0)  # frame 5 unseen: weighs as frame 4, the mean of those seen
    c = _counts(s, np.array([4, 5]))
    assert c[[0, 1, 2, 3]].sum() == 0
    assert abs(c[4] - c[5]) < 250


def test_a_frames_loss_is_a_running_mean_and_the_kept_losses_resume():
    s = HardSampler(2, 0.5)
    s.report(0, 1.0)
    s.report(0, 2.0)
    assert s.loss[0] == pytest.approx((1 - UPDATE) * 1.0 + UPDATE * 2.0)
    again = HardSampler(2, 0.5, s.loss)
    assert np.array_equal(again.loss, s.loss, equal_nan=True)
    with pytest.raises(ValueError, match="the pool has 3"):
        HardSampler(3, 0.5, s.loss)
    with pytest.raises(ValueError, match="0..1"):
        HardSampler(2, 1.5)
