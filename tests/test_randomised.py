"""Randomised training renders: deterministic, labels agree with the geometry, and the hard
layouts (touching, overlapping, cut by the frame) do occur."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest
from shapely.geometry import Polygon

from vision.synthetic.card_designs import LIGHT_PIPS, card_art, random_deck_style
from vision.synthetic.randomised import TrainingSample, training_sample

SEEDS = range(16)


@pytest.fixture(scope="module")
def samples() -> list[TrainingSample]:
    return [training_sample(s) for s in SEEDS]


def test_same_seed_same_sample() -> None:
    a, b = training_sample(5), training_sample(5)
    assert np.array_equal(a.image, b.image)
    assert np.array_equal(a.instances, b.instances)
    assert np.array_equal(a.ignore, b.ignore)
    assert len(a.quads) == len(b.quads) and all(np.array_equal(p, q) for p, q in zip(a.quads, b.quads))
    assert not np.array_equal(a.image, training_sample(6).image)


def test_shapes_and_types(samples: list[TrainingSample]) -> None:
    for s in samples[:4]:
        assert s.image.shape == (384, 512, 3) and s.image.dtype == np.uint8
        assert s.instances.shape == (384, 512) and s.instances.dtype == np.uint16
        assert s.ignore.shape == (384, 512) and s.ignore.dtype == bool
        assert all(q.shape == (4, 2) and q.dtype == np.float64 for q in s.quads)
    other = training_sample(1, size=(320, 240))
    assert other.image.shape == (240, 320, 3) and other.instances.shape == (240, 320)


def test_instance_ids_are_the_quads(samples: list[TrainingSample]) -> None:
    for s in samples:
        ids = set(np.unique(s.instances).tolist()) - {0}
        assert ids <= set(range(1, len(s.quads) + 1))


def test_quads_start_top_left_and_run_clockwise(samples: list[TrainingSample]) -> None:
    for s in samples:
        for q in s.quads:
            x, y = q[:, 0], q[:, 1]
            area2 = np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)
            assert area2 > 0  # clockwise on screen (v points down) = positive shoelace sum
            assert np.argmin(q.sum(axis=1) + 1e-9 * q[:, 1]) == 0


def test_visible_pixels_lie_inside_their_quad(samples: list[TrainingSample]) -> None:
    kernel = np.ones((5, 5), np.uint8)  # 2 px of slack: anti-aliasing and a slight lens barrel
    for s in samples:
        h, w = s.instances.shape
        for k, q in enumerate(s.quads, start=1):
            inside = np.zeros((h + 400, w + 400), np.uint8)  # room for corners beyond the frame
            cv2.fillPoly(inside, [np.round((q + 200) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
            inside = cv2.dilate(inside, kernel)[200 : 200 + h, 200 : 200 + w].astype(bool)
            mine = s.instances == k
            assert not np.any(mine & ~inside), f"card {k} has pixels outside its quad"


def _pairs(s: TrainingSample):
    polys = [Polygon(q) for q in s.quads]
    for i in range(len(polys)):
        for j in range(i + 1, len(polys)):
            yield polys[i], polys[j]


def test_hard_layouts_occur(samples: list[TrainingSample]) -> None:
    touching = overlapping = cut = empty = 0
    for s in samples:
        h, w = s.instances.shape
        empty += not s.quads
        cut += any(
            (q[:, 0].min() < 0) | (q[:, 1].min() < 0) | (q[:, 0].max() > w - 1) | (q[:, 1].max() > h - 1)
            for q in s.quads
        )
        for a, b in _pairs(s):
            shared = a.intersection(b).area / min(a.area, b.area)
            if shared > 0.05:
                overlapping += 1
            elif shared < 0.02 and a.distance(b) < 1.0 and a.exterior.distance(b.exterior) < 1.0:
                touching += 1
    assert touching > 0 and overlapping > 0 and cut > 0


def test_calibration_truth_measures_every_card_at_the_decks_size(samples: list[TrainingSample]) -> None:
    # The exact calibration a calibrated benchmark gives the detector: each scored card's corners,
    # taken back to the table, are a rectangle of its size - mostly the frame's deck's.
    calibrated = [s for s in samples if s.table_to_image is not None]
    assert len(calibrated) >= len(samples) // 2
    assert any(s.table_to_image is None for s in [training_sample(k) for k in range(16, 40)])
    decks = [size == s.card_size_mm for s in samples for size in s.quad_sizes_mm]
    assert sum(decks) > 0.7 * len(decks)
    for s in calibrated:
        to_mm = np.linalg.inv(s.table_to_image)
        assert len(s.quad_sizes_mm) == len(s.quads)
        for q, size in zip(s.quads, s.quad_sizes_mm):
            mm = cv2.perspectiveTransform(q.reshape(-1, 1, 2), to_mm).reshape(-1, 2)
            sides = np.linalg.norm(np.roll(mm, -1, axis=0) - mm, axis=1)
            short, long = sorted([(sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2])
            assert short == pytest.approx(size[0], rel=1e-6)
            assert long == pytest.approx(size[1], rel=1e-6)
            diag = np.linalg.norm(mm[2] - mm[0]), np.linalg.norm(mm[3] - mm[1])
            assert diag[0] == pytest.approx(diag[1], rel=1e-6)


def test_each_sample_names_its_table_surface(samples: list[TrainingSample]) -> None:
    from vision.synthetic.surfaces import TABLE_KINDS

    kinds = [s.table_kind for s in samples]
    assert set(kinds) <= set(TABLE_KINDS) | {"white"}
    assert len(set(kinds)) >= 4  # the draw varies the surface, and the bench reports by it


def test_dark_decks_print_their_pips_in_a_colour_that_stands_out() -> None:
    """Some pip decks are black, navy or deep red with gold, silver or white pips (real decks
    are): each such card's pips are far from its stock, and light decks keep red and black."""
    rng = np.random.default_rng(7)
    styles = [s for s in (random_deck_style(rng) for _ in range(400)) if s.face == "pips"]
    dark = [s for s in styles if sum(s.stock) < 300]
    assert 0.15 < len(dark) / len(styles) < 0.5
    assert all(s.pips_bgr == LIGHT_PIPS for s in styles if s not in dark)
    for s in dark[:8]:
        assert (np.abs(np.array(s.pips_bgr) - s.stock).sum(axis=1) > 150).all()
        art, alpha, _ = card_art(np.random.default_rng(1), replace(s, border="none", frame_line=False), True, 6.0)
        inside = art[alpha > 0.99].astype(int)
        # The pips and the rank are printed in the deck's inks: a visible share of the face.
        inked = (np.abs(inside[:, None] - np.array(s.pips_bgr)[None]).sum(axis=2) < 40).any(axis=1)
        assert inked.mean() > 0.01


def test_keyboards_come_from_their_own_stream_and_are_never_cards(samples: list[TrainingSample]) -> None:
    """With keys, some frames gain a keyboard or a keypad under the cards; the others are drawn
    exactly as without keys, and no frame gains or loses a card."""
    changed = 0
    for s, plain in zip(SEEDS, samples):
        keyed = training_sample(s, keys=True)
        assert len(keyed.quads) == len(plain.quads)
        if not np.array_equal(keyed.image, plain.image):
            changed += 1
        else:
            assert np.array_equal(keyed.instances, plain.instances)
    assert 2 <= changed <= 10, changed  # a third of the frames draw one (some fall off the frame)


def test_projector_light_comes_from_its_own_stream_and_is_no_card(samples: list[TrainingSample]) -> None:
    """With the projector, some frames are lit by its rings, arcs and labels: their labels are
    those drawn without it (light is no card) and the light adds (the camera's noise, brighter
    where it is brighter, and JPEG aside); the other frames are drawn exactly as before."""
    lit = 0
    for s, plain in zip(SEEDS, samples):
        shown = training_sample(s, projector=True)
        assert np.array_equal(shown.instances, plain.instances) and np.array_equal(shown.ignore, plain.ignore)
        if np.array_equal(shown.image, plain.image):
            continue
        lit += 1
        gain = shown.image.astype(int) - plain.image.astype(int)
        assert (gain.max(axis=2) > 20).sum() > 1000 and (gain < -12).mean() < 0.01
    assert 3 <= lit <= 11, lit  # four frames in ten


def test_a_keyboard_is_rows_of_keys_in_a_body() -> None:
    from vision.synthetic.clutter import prop_art, random_prop

    rng = np.random.default_rng(4)
    bgr, alpha = prop_art(rng, random_prop(rng, "keyboard"), 2.0)
    grey = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).astype(np.float32)
    rows = np.abs(np.diff(grey, axis=0)).mean(axis=1)  # edges of the key rows across the body
    assert alpha.mean() > 200 and (rows > 8).sum() >= 8
