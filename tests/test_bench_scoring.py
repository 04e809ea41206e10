"""How the real-photo and randomised benches score a detector: found, false, ignored, corner
error - on outlines written here, not produced by any detector."""

import numpy as np

from bench.labelled_photos import corner_errors, score_photo

CARD = np.array([[100.0, 100.0], [163.0, 100.0], [163.0, 188.0], [100.0, 188.0]])


def test_a_card_found_in_any_corner_order_has_its_corner_error():
    found = np.roll(CARD + [1.0, 0.0], 2, axis=0)  # another starting corner, 1 px to the right
    s = score_photo([CARD], [], [found])
    assert (s.cards, s.found, s.false) == (1, 1, 0)
    assert np.allclose(s.errors_px, 1.0)
    assert np.allclose(corner_errors(CARD, CARD), 0.0)


def test_a_loose_outline_is_no_find_and_counts_as_false():
    s = score_photo([CARD], [], [CARD * 1.3 - 40])
    assert (s.found, s.false) == (0, 1)


def test_detections_on_ignored_regions_or_inside_a_found_card_count_neither_way():
    deck = CARD + [300.0, 0.0]
    art = np.array([[110.0, 110.0], [150.0, 110.0], [150.0, 150.0], [110.0, 150.0]])
    s = score_photo([CARD], [deck], [CARD, deck + 0.5, art])
    assert (s.found, s.false, s.detections) == (1, 0, 3)
    assert s.recall == 1.0 and s.precision == 1.0


def test_figures_without_a_card_found_are_null_not_nan():
    # A source where nothing was detected has no precision and no corner error: the model card
    # must stay strict JSON (no NaN).
    import json

    from bench.labelled_photos import Score, _figures

    f = _figures(Score(cards=1, photos=1))
    assert f["recall"] == 0.0 and f["precision"] is None and f["corner_rms_px"] is None
    json.dumps(f, allow_nan=False)
