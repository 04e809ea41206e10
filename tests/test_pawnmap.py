"""The pawn map's data (issue 26): the renders' piece map, the targets the network learns, how
its feet are read back and scored."""

from __future__ import annotations

import numpy as np
import pytest

from vision.pawnmap import foot_peaks
from vision.synthetic.pieces import PieceTruth
from vision.synthetic.randomised import training_sample
from vision.train.pawntargets import PIECE_KINDS, pawn_targets, score_feet, scored

SEEDS = range(80_000_000, 80_000_012)  # the pawn map's own training seeds


def _piece(kind: str, foot: tuple[float, float], seen: float = 1.0, radius: float = 6.0) -> PieceTruth:
    return PieceTruth(kind, kind != "coin", (0, 0, 200), "matte", foot, None, None, False, seen < 0.5, seen, 12.0, radius)


@pytest.fixture(scope="module")
def samples():
    return [training_sample(s, (640, 480), pieces=True) for s in SEEDS]


def test_the_piece_map_names_each_piece_where_it_shows(samples) -> None:
    for s in samples:
        assert s.piece_instances.shape == s.image.shape[:2]
        assert s.piece_instances.max() <= len(s.pieces)
        for k, p in enumerate(s.pieces, start=1):
            ys, xs = np.nonzero(s.piece_instances == k)
            if p.seen < 0.5:
                continue
            assert len(xs), f"piece {k} ({p.kind}) shows {p.seen:.0%} but has no pixel"
            # Its pixels lie around its foot (a standing piece leans toward the camera).
            assert np.hypot(xs.mean() - p.foot_px[0], ys.mean() - p.foot_px[1]) <= p.size_px + 1


def test_without_pieces_a_sample_has_no_piece_map() -> None:
    assert training_sample(80_000_000, (320, 240)).piece_instances is None


def test_the_targets_read_back_to_every_scored_foot(samples) -> None:
    feet = 0
    for s in samples:
        t = pawn_targets(s, stride=2)
        assert t.shape == (3, 240, 320)
        found = (foot_peaks(t[1]) + 0.5) * 2 - 0.5  # map px -> input px
        want = [p for p in s.pieces if scored(p)]
        assert len(found) == len(want)
        for p in want:
            assert np.hypot(*(found - p.foot_px).T).min() < 1.0
        feet += len(want)
    assert feet >= 20  # the seeds hold feet to check


def test_coins_and_dice_are_no_piece_and_no_foot(samples) -> None:
    seen_one = False
    for s in samples:
        t = pawn_targets(s, stride=2)
        for k, p in enumerate(s.pieces, start=1):
            if p.kind in PIECE_KINDS or p.seen < 0.5:
                continue
            seen_one = True
            mask = (s.piece_instances == k)[::2, ::2]  # the map pixel at each pixel's top-left
            assert t[0][mask].max(initial=0) < 1.0  # only shares at a neighbour's border
            j, i = round((p.foot_px[0] + 0.5) / 2 - 0.5), round((p.foot_px[1] + 0.5) / 2 - 0.5)
            if 0 <= i < 240 and 0 <= j < 320:
                assert t[1][i, j] < 0.5
    assert seen_one


def test_hidden_pieces_are_not_scored_either_way() -> None:
    s = training_sample(80_000_000, (640, 480), pieces=True)
    hidden = _piece("pawn", (100.0, 100.0), seen=0.2)
    s.pieces.append(hidden)
    t = pawn_targets(s, stride=2)
    assert t[2][50, 50] == 0.0 and t[1][50, 50] < 0.5


def test_a_foot_is_read_between_map_pixels() -> None:
    yy, xx = np.mgrid[0:30, 0:40]
    foot = np.exp(-((xx - 10.3) ** 2 + (yy - 7.8) ** 2) / 2).astype(np.float32)
    foot += 0.9 * np.exp(-((xx - 30) ** 2 + (yy - 20) ** 2) / 2).astype(np.float32)
    got = foot_peaks(foot)
    assert got.shape == (2, 2)
    assert np.abs(got[np.argmin(got[:, 0])] - (10.3, 7.8)).max() < 0.15
    assert np.abs(got[np.argmax(got[:, 0])] - (30, 20)).max() < 1e-9
    assert len(foot_peaks(foot * 0.4)) == 0  # none likely enough


def test_feet_are_scored_nearest_first() -> None:
    pieces = [
        _piece("pawn", (50.0, 50.0)),
        _piece("meeple", (70.0, 50.0)),
        _piece("coin", (200.0, 200.0)),
        _piece("pale", (300.0, 300.0), seen=0.3),  # hidden: neither right nor false
        _piece("cone", (400.0, 100.0), radius=1.0),  # too small to be asked for
    ]
    found = np.array([[52.0, 50.0], [60.5, 50.0], [201.0, 200.0], [301.0, 300.0], [5.0, 5.0]])
    # Scored: pawn, meeple. (52, 50) is on the pawn, (60.5, 50) 9.5 px from the meeple within its
    # 12 px reach; the coin's report and the one on empty table are false; the hidden one neither.
    assert score_feet(found, pieces) == (2, 2, 2)
    assert score_feet(np.zeros((0, 2)), pieces) == (2, 0, 0)


def test_a_piece_takes_the_colour_of_the_region_beside_its_foot() -> None:
    from vision.pawnmap import PawnMapReading, pieces

    h, w = 40, 60
    piece = np.zeros((h, w), np.float32)
    piece[10:16, 20:25] = 0.9  # a red piece, its foot at its lower edge
    piece[30:35, 40:44] = 0.9  # a blue one
    colours = np.full((h, w, 3), 200, np.uint8)
    colours[10:16, 20:25] = (30, 30, 200)
    colours[30:35, 40:44] = (200, 60, 20)
    yy, xx = np.mgrid[0:h, 0:w]
    foot = np.maximum(np.exp(-((xx - 22) ** 2 + (yy - 16) ** 2) / 2), np.exp(-((xx - 42) ** 2 + (yy - 35) ** 2) / 2))
    got = pieces(PawnMapReading(piece, foot.astype(np.float32), 4.0, colours))
    assert len(got) == 2
    red = min(got, key=lambda p: p.foot_px[0])
    blue = max(got, key=lambda p: p.foot_px[0])
    assert red.bgr == (30, 30, 200) and blue.bgr == (200, 60, 20)
    # Map px (22, 16) at 4 frame px per map px: frame ((22.5) 4 - .5, (16.5) 4 - .5).
    assert np.allclose(red.foot_px, (89.5, 65.5), atol=0.01)


def test_a_piece_is_the_player_whose_colour_it_shows() -> None:
    from vision.pawnmap import player_of

    players = {"ann": (40, 40, 210), "bob": (210, 90, 30), "cy": (40, 200, 60)}
    assert player_of((40, 40, 210), players) == "ann"
    assert player_of((25, 25, 130), players) == "ann"  # the same red in the piece's shade
    assert player_of((160, 70, 25), players) == "bob"
    assert player_of((235, 235, 235), players) is None  # a white piece
    assert player_of((30, 30, 32), players) is None  # a black one
    assert player_of((200, 40, 200), players) is None  # a token of a colour no one plays
    assert player_of((40, 40, 210), {}) is None


def test_a_foot_is_on_the_card_it_lies_deepest_in() -> None:
    from vision.pawnmap import card_under

    a = np.array([[0, 0], [100, 0], [100, 140], [0, 140]], float)
    b = a + (90, 0)  # overlapping a's right 10 px
    assert card_under((50.0, 70.0), [a, b]) == 0
    assert card_under((97.0, 70.0), [a, b]) == 1  # 3 px inside a, 7 px inside b
    assert card_under((92.0, 70.0), [a, b]) == 0
    assert card_under((250.0, 70.0), [a, b]) is None
    assert card_under((50.0, 70.0), []) is None
