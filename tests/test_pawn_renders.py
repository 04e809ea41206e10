"""Game pieces in the randomised renders (their truth) and bench.pawns' scoring of hand-made cases."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from bench.pawns import PawnScore, Report, colour_blobs, score_pawns, surface
from vision.pawnmap import card_under
from vision.synthetic.pieces import DISTRACTOR_KINDS, PAWN_KINDS, PieceTruth, project
from vision.synthetic.randomised import random_camera, training_sample

SIZE = (320, 240)
SEEDS = range(70_100_000, 70_100_024)  # not the bench's report seeds


@pytest.fixture(scope="module")
def samples():
    return [training_sample(s, SIZE, pieces=True) for s in SEEDS]


def test_no_pieces_unless_asked():
    s = training_sample(SEEDS[0], SIZE)
    assert s.pieces == [] and s.player_colours == []


def test_pieces_leave_the_cards_where_they_were(samples):
    for seed, s in zip(SEEDS[:6], samples):
        plain = training_sample(seed, SIZE)
        # The same cards in the same order (less any a piece hides wholly: a tiny one far away).
        rest = iter(plain.quads)
        assert all(any(np.array_equal(q, r) for r in rest) for q in s.quads)
        assert len(s.quads) >= len(plain.quads) - len(s.pieces)


def test_same_seed_same_pieces(samples):
    again = training_sample(SEEDS[1], SIZE, pieces=True)
    np.testing.assert_array_equal(again.image, samples[1].image)
    assert again.pieces == samples[1].pieces


def test_kinds_and_colours(samples):
    pieces = [p for s in samples for p in s.pieces]
    assert any(p.pawn for p in pieces) and any(not p.pawn for p in pieces)
    for s in samples:
        for p in s.pieces:
            if p.kind in DISTRACTOR_KINDS:
                assert not p.pawn
            else:
                assert p.kind in PAWN_KINDS and p.pawn
                assert tuple(p.bgr) in [tuple(c) for c in s.player_colours]


def test_foot_inside_the_card_it_stands_on(samples):
    on_cards = 0
    for s in samples:
        for p in s.pieces:
            if p.card is None:
                continue
            on_cards += 1
            q = s.quads[p.card].astype(np.float32)
            # The card's rim is anti-aliased: the foot's pixel may be the one just past it.
            assert cv2.pointPolygonTest(q, p.foot_px, True) >= -1.5, (p, s.quads[p.card])
    assert on_cards > 5


def test_foot_follows_the_table_homography_and_the_top_stands_off():
    rng = np.random.default_rng(3)
    for _ in range(5):
        hom, proj = random_camera(rng, 1024, 768, 3.0)
        foot = np.array([[20.0, -35.0]])
        on_table = project(proj, np.array([[20.0, -35.0, 0.0]]))
        via_hom = np.c_[foot, 1.0] @ hom.T
        np.testing.assert_allclose(on_table, via_hom[:, :2] / via_hom[:, 2:], atol=1e-6)
        top = project(proj, np.array([[20.0, -35.0, -30.0]]))  # 30 mm up (z points into the table)
        # Nearer the camera: the top is drawn larger about the nadir, never on the foot.
        assert np.linalg.norm(top - on_table) > 0.5


def _piece(x, y, pawn=True, kind="pawn", card=None, size=20.0, radius=6.0, hidden=False, mm=None):
    return PieceTruth(kind, pawn, (0, 0, 200), "matte", (x, y), mm, card, False, hidden, 1.0, size, radius)


def test_scoring_found_missed_and_false():
    pieces = [
        _piece(100, 100, card=2),  # found, on the right card
        _piece(300, 300),  # missed
        _piece(500, 100, pawn=False, kind="coin"),  # a report here is false
        _piece(600, 400, radius=1.0),  # too small to count: its report counts neither way
        _piece(50, 400, hidden=True),  # found under a hand, named on a wrong card
    ]
    reports = [Report((105, 100), 2), Report((502, 100), None), Report((700, 50), None), Report((600, 401), None),
               Report((55, 400), 0)]
    s = score_pawns(pieces, reports, (800, 600))
    assert (s.pawns, s.found, s.right_card) == (3, 2, 1)
    assert (s.false_empty, s.false_distractor) == (1, 1)
    assert (s.small, s.small_found) == (1, 1)
    assert s.errors_px == [5.0, 5.0]
    assert s.by_surface == {"card": [1, 1], "table": [1, 0], "under hand": [1, 1]}
    assert s.distractors == {"coin": [1, 1]}
    assert s.recall == pytest.approx(2 / 3) and s.precision == pytest.approx(2 / 4)


def test_scoring_takes_nearest_pairs_and_measures_mm():
    pieces = [_piece(100, 100, mm=(50.0, 50.0)), _piece(120, 100, mm=(60.0, 50.0))]
    to_mm = np.array([[0.5, 0, 0], [0, 0.5, 0], [0, 0, 1.0]])  # 2 px a mm
    s = score_pawns(pieces, [Report((121, 100), None), Report((104, 100), None)], (800, 600), to_mm=to_mm)
    assert s.found == 2 and s.false == 0
    assert sorted(s.errors_px) == [1.0, 4.0] and sorted(s.errors_mm) == [0.5, 2.0]
    total = PawnScore()
    total.add(s)
    total.add(s)
    assert total.found == 4 and total.by_kind == {"pawn": [4, 4]}


def test_surface_names():
    assert surface(_piece(0, 0, card=1)) == "card"
    assert surface(_piece(0, 0)) == "table"
    assert surface(_piece(0, 0, hidden=True, card=1)) == "under hand"


def test_baseline_finds_a_saturated_disc_on_a_card():
    img = np.full((240, 320, 3), 120, np.uint8)
    card = np.array([[40, 40], [200, 40], [200, 220], [40, 220]], np.float64)
    cv2.fillPoly(img, [card.astype(np.int32)], (235, 235, 235))
    cv2.circle(img, (100, 120), 9, (30, 30, 220), -1)
    blobs = colour_blobs(img)
    assert len(blobs) == 1
    (x, y), bgr = blobs[0]
    assert abs(x - 100) < 1 and abs(y - 120) < 1 and bgr[2] > 200
    assert card_under((x, y), [card]) == 0 and card_under((260.0, 10.0), [card]) is None


def test_hidden_and_overhanging_pieces_occur_and_say_so(samples):
    pieces = [p for s in samples for p in s.pieces]
    assert any(p.hidden for p in pieces) and any(p.overhang for p in pieces)
    for p in pieces:
        assert 0.0 <= p.seen <= 1.0
        assert p.hidden == (p.seen < 0.9)
        assert p.size_px >= p.radius_px * 0.9  # the silhouette reaches at least its footprint's rim
