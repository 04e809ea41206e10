"""The card map's targets and its regions: cards that touch are told apart by the boundary band,
and a region comes back as the card's outline in frame pixels. No network involved: the maps are
built from known instances, so these hold whatever the weights."""

import numpy as np

from vision.cardmap import CardMapReading, card_regions
from vision.train.targets import instances_from_quads, targets_from_instances


def _reading(instances: np.ndarray, scale: float = 2.0) -> CardMapReading:
    t = targets_from_instances(instances, np.zeros(instances.shape, bool))
    return CardMapReading(t.interior, t.boundary, scale)


def test_touching_cards_are_two_regions():
    # Two 40 x 56 px cards side by side with no gap, in a 200 x 160 frame.
    quads = [np.array([[20, 30], [60, 30], [60, 86], [20, 86]], float), np.array([[60, 30], [100, 30], [100, 86], [60, 86]], float)]
    inst, ignore = instances_from_quads((160, 200), quads, [])
    assert not ignore.any()
    regions = card_regions(_reading(inst))
    assert len(regions) == 2
    for r, q in zip(sorted(regions, key=lambda r: r.contour[:, 0].min()), quads):
        lo, hi = r.contour.min(axis=0), r.contour.max(axis=0)
        # The region is the card to about a map pixel (2 frame px here).
        assert np.all(np.abs(lo - q.min(axis=0)) <= 3.0) and np.all(np.abs(hi - q.max(axis=0)) <= 3.0)


def test_overlapping_labels_are_not_scored():
    a = np.array([[10, 10], [50, 10], [50, 66], [10, 66]], float)
    b = a + [25, 20]
    inst, ignore = instances_from_quads((100, 100), [a, b], [])
    assert ignore[40, 40] and not ignore[15, 15]
    t = targets_from_instances(inst, ignore)
    assert t.weight[20, 20] == 0 and t.weight[5, 5] == 1


def test_small_specks_are_no_cards():
    inst = np.zeros((120, 120), np.int32)
    inst[10:50, 10:40] = 1
    inst[90:93, 90:93] = 2
    regions = card_regions(_reading(inst, scale=1.0), min_area_px=100)
    assert len(regions) == 1
