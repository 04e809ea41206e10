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
    quads = [
        np.array([[20, 30], [60, 30], [60, 86], [20, 86]], float),
        np.array([[60, 30], [100, 30], [100, 86], [60, 86]], float),
    ]
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


def _hand_drawn(cards: list[tuple[int, int, int, int]], shape=(100, 140)) -> tuple[np.ndarray, np.ndarray]:
    """(interior, boundary) of axis-aligned cards (x0, y0, x1, y1 map px, exclusive ends): each
    card's interior certain, its outermost ring of pixels boundary, as the network draws them."""
    interior = np.zeros(shape, np.float32)
    boundary = np.zeros(shape, np.float32)
    for x0, y0, x1, y1 in cards:
        interior[y0:y1, x0:x1] = 1.0
        boundary[y0:y1, x0:x1] = 1.0
        boundary[y0 + 1 : y1 - 1, x0 + 1 : x1 - 1] = 0.0
    return interior, boundary


def _on_boxes(regions: list, boxes: list[tuple[int, int, int, int]]) -> None:
    """Each region, left to right, is the box (x0, y0, x1, y1) of hand-drawn map pixels, to
    about a pixel (its outline runs on the pixels' outer edges)."""
    assert len(regions) == len(boxes)
    for reg, (x0, y0, x1, y1) in zip(sorted(regions, key=lambda r: r.contour[:, 0].min()), boxes):
        assert np.abs(reg.contour.min(axis=0) - (x0 - 0.5, y0 - 0.5)).max() <= 1.5
        assert np.abs(reg.contour.max(axis=0) - (x1 - 0.5, y1 - 0.5)).max() <= 1.5


def test_touching_cards_with_a_faint_boundary_are_two_regions():
    # White cards touching on a white table: the map draws their shared edge faintly (0.35, under
    # the 0.5 cut); the core splits there into two card-shaped parts.
    interior, boundary = _hand_drawn([(20, 20, 48, 60), (48, 20, 76, 60)])
    boundary[21:59, 47:49] = 0.35
    regions = card_regions(CardMapReading(interior, boundary, 1.0))
    assert len(regions) == 2
    _on_boxes(regions, [(20, 20, 48, 60), (48, 20, 76, 60)])


def test_a_faint_printed_frame_does_not_split_a_card():
    # A card's printed frame, 3 px inside its edge, drawn faintly as boundary: the core inside the
    # frame and the thin ring outside it are no two cards.
    interior, boundary = _hand_drawn([(30, 20, 58, 60)])
    boundary[23:57, 33:55] = 0.3
    boundary[24:56, 34:54] = 0.0
    regions = card_regions(CardMapReading(interior, boundary, 1.0))
    assert len(regions) == 1
    assert np.abs(regions[0].contour.min(axis=0) - (29.5, 19.5)).max() <= 1.5
    assert np.abs(regions[0].contour.max(axis=0) - (57.5, 59.5)).max() <= 1.5


def test_touching_small_cards_are_two_regions_on_a_full_resolution_map():
    # Two cards 12 x 17 frame px touching, their targets on a map at the frame's own resolution
    # (stride 1, scale 1): each comes back on its own, to about a pixel.
    quads = [
        np.array([[20, 30], [32, 30], [32, 47], [20, 47]], float),
        np.array([[32, 30], [44, 30], [44, 47], [32, 47]], float),
    ]
    inst, _ = instances_from_quads((80, 80), quads, [])
    t = targets_from_instances(inst, np.zeros(inst.shape, bool), stride=1)
    regions = card_regions(CardMapReading(t.interior, t.boundary, 1.0))
    assert len(regions) == 2
    for r, q in zip(sorted(regions, key=lambda r: r.contour[:, 0].min()), quads):
        assert np.abs(r.contour.min(axis=0) - q.min(axis=0)).max() <= 1.5
        assert np.abs(r.contour.max(axis=0) - q.max(axis=0)).max() <= 1.5


def test_cores_of_touching_cards_lie_apart_by_a_share_of_the_card():
    # Two 40 x 56 px cards side by side and a third, 80 x 112, apart: each core is its card
    # shrunk by a fifth of its short side, so the two touching ones' cores are 16 px apart.
    quads = [
        np.array([[20, 30], [60, 30], [60, 86], [20, 86]], float),
        np.array([[60, 30], [100, 30], [100, 86], [60, 86]], float),
        np.array([[110, 20], [190, 20], [190, 132], [110, 132]], float),
    ]
    inst, _ = instances_from_quads((160, 200), quads, [])
    t = targets_from_instances(inst, np.zeros(inst.shape, bool), stride=1)
    assert not (t.core > t.interior).any()
    for k, q in enumerate(quads, start=1):
        ys, xs = np.nonzero((t.core > 0) & (inst == k))
        inset = 0.2 * min(np.ptp(q, axis=0))
        assert abs(xs.min() - q[:, 0].min() - inset) <= 1.5 and abs(q[:, 0].max() - xs.max() - inset) <= 1.5
        assert abs(ys.min() - q[:, 1].min() - inset) <= 1.5 and abs(q[:, 1].max() - ys.max() - inset) <= 1.5


def test_a_card_cut_by_the_frame_keeps_its_core_up_to_the_frame():
    inst = np.zeros((100, 100), np.int32)
    inst[0:40, 30:70] = 1  # runs off the top
    t = targets_from_instances(inst, np.zeros(inst.shape, bool), stride=1)
    ys, _ = np.nonzero(t.core)
    assert ys.min() == 0 and 28 <= ys.max() <= 34


def test_touching_cards_the_map_merges_are_told_apart_by_their_cores():
    # White cards touching on white: the map draws no boundary between them at all, but their
    # cores lie apart; each grows back to its own card, meeting the other at their shared edge.
    interior, boundary = _hand_drawn([(20, 20, 48, 60), (48, 20, 76, 60)])
    boundary[21:59, 46:50] = 0.0
    core = np.zeros_like(interior)
    core[26:54, 26:42] = 1.0
    core[26:54, 54:70] = 1.0
    assert len(card_regions(CardMapReading(interior, boundary, 1.0))) == 1
    regions = card_regions(CardMapReading(interior, boundary, 1.0, core=core))
    assert len(regions) == 2
    _on_boxes(regions, [(20, 20, 48, 60), (48, 20, 76, 60)])


def test_one_core_does_not_split_a_card():
    # A card whose core the map drew in two pieces across its middle print, each too thin to be
    # a card's, and a card with one core: each stays one region, as the map outlines it.
    interior, boundary = _hand_drawn([(20, 20, 48, 60), (60, 20, 88, 60)])
    core = np.zeros_like(interior)
    core[26:38, 26:42] = 1.0
    core[41:54, 30:34] = 1.0
    core[26:54, 66:82] = 1.0
    regions = card_regions(CardMapReading(interior, boundary, 1.0, core=core))
    assert len(regions) == 2
    _on_boxes(regions, [(20, 20, 48, 60), (60, 20, 88, 60)])
