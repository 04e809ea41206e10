"""Whole, fully visible cards the 1080p bench view used to miss, and a box it used to report over
the bare table between two cards; each a rendered scene whose truth the renderer knows."""

from __future__ import annotations

import numpy as np
import pytest
import shapely

from bench.vision import POSE
from vision.map_detector import MapCardDetector
from vision.synthetic import (
    PRESETS,
    Camera,
    CameraPose,
    Card,
    Renderer,
    Scene,
    random_conditions,
    random_scene,
)
from vision.table import TableMap

CAM = Camera.for_resolution("1080p", pose=POSE)
TABLE = TableMap.from_homography(CAM.image_to_table)


def _read(condition: str, seed: int) -> tuple[list[dict], list[np.ndarray]]:
    """The scene's true cards and the detected cards' corners, both in mm on the table."""
    conditions = random_conditions(seed) if condition == "random" else PRESETS[condition]
    frame = Renderer(CAM, conditions).render(random_scene(seed), seed)
    found = [TABLE.to_mm(np.asarray(c.corners_px)) for c in MapCardDetector(table=TABLE).detect(frame.image)]
    return frame.truth["cards"], found


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = shapely.Polygon(a), shapely.Polygon(b)
    return pa.intersection(pb).area / pa.union(pb).area


def _best_iou(card: dict, found: list[np.ndarray]) -> float:
    return max((_iou(np.asarray(card["corners_mm"]), f) for f in found), default=0.0)


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("condition", "seed", "ids"),
    [
        # Face-up cards with a coloured border round a cream panel: their own outline merged with
        # wood grain or a neighbour, and the panel is hollowed out by the art and lettering that
        # touch it from inside (a gun's barrel, a bomb's fuse, the title).
        ("harsh", 1050031, [8]),  # Laser Gun
        ("harsh", 2000000, [5]),  # Bomb
        ("white", 2000001, [12]),  # Laser Gun
        ("random", 2000007, [1]),  # Laser Gun on a cream table
        # A Bomb and a back nearly touching on dark cloth: one blob, the Bomb's panel hollowed.
        ("dark_cloth", 1060032, [11, 12]),
        # A light-rimmed back touching another: read from the blob's sides, the fit kept to the
        # rim's inner edge on one side (6 % short) until grown to the card.
        ("dark_cloth", 2000005, [1]),
        # Laser Gun on harsh wood: no map outlined the card; its cream panel's fit at a wide
        # search strayed along one side to the title's letters and was thrown away as weak.
        ("harsh", 1072367, [2]),
        # Light-rimmed backs on dark cloth whose outline merged with a neighbour touching them at
        # a corner or along a side: read from two straight stretches of the blob's outline round
        # one of the card's corners. A nub left on the rest of the blob turned and grew its box
        # (a face-up card's corner); the blob gave no rough quad (another back); an L of two
        # backs, one with a pawn on it.
        ("dark_cloth", 2000071, [2]),
        ("dark_cloth", 2000074, [11]),
        ("dark_cloth", 2000078, [1]),
        # A face on a white table with a corner on the frame's last row: its side along the
        # frame's border is the card's own edge (fitted at the card's size), not the border's.
        ("white_on_white", 2000084, [1]),
        # A white-bordered face on a white table in a lamp's glare, a pawn on it: border and table
        # both clipped white, no edge of the card to fit at all. The rules placed it by its size
        # around its clean printed frame (`_placed_around_frame`, deleted in session 30: it placed
        # no card of the calibrated diagnostic renders or the project's renders).
        pytest.param(
            "random",
            2000125,
            [9],
            marks=pytest.mark.xfail(
                strict=True, reason="issue 20: a white card clipped white in glare has no edge"
            ),
        ),
    ],
)
def test_whole_card_in_view_is_found(condition, seed, ids):
    truth, found = _read(condition, seed)
    cards = {c["id"]: c for c in truth}
    for i in ids:
        assert cards[i]["visible_fraction"] > 0.9  # in view, at most a pawn on it
        assert _best_iou(cards[i], found) > 0.9, f"card {i} missed"


@pytest.mark.slow  # a large rendered scene
def test_no_box_over_the_table_between_two_cards():
    # Harsh light on wood: the gap between two cards is a card wide, and two grain lines a card's
    # length apart close it; the fit kept to the neighbours' rims' inner edges, inside them.
    truth, found = _read("harsh", 2000016)
    false = [
        f.mean(axis=0).round().tolist()
        for f in found
        if max(_iou(np.asarray(c["corners_mm"]), f) for c in truth) < 0.5
    ]
    assert false == []
    assert all(_best_iou(c, found) > 0.9 for c in truth if c["visible_fraction"] > 0.99)


@pytest.mark.parametrize("seed", [0, 3])
def test_no_box_over_the_wood_beside_backs_at_the_tables_edge(seed):
    # Two backs a card's length apart on the wood table's near edge, the floor beyond it in view
    # (the frame's border is mostly floor): the wood between them, or between one and the table's
    # side, bounded by their edges, a grain line and the table's edge, was fitted as a card from
    # the straight stretches of a blob's outline. It shows the table inside, the cards outside.
    cam = Camera.for_resolution(
        "1080p", pose=CameraPose(height_mm=850.0, tilt_deg=5.0, target_mm=(330.0, 240.0))
    )
    table = TableMap.from_homography(cam.image_to_table)
    scene = Scene(cards=(Card(0, "Bomb", (119.5, 44.0)), Card(1, "Bomb", (270.5, 44.0))))
    frame = Renderer(cam, PRESETS["wood"]).render(scene, seed=seed)
    found = [table.to_mm(np.asarray(c.corners_px)) for c in MapCardDetector(table=table).detect(frame.image)]
    truth = frame.truth["cards"]
    assert len(found) == 2
    assert all(max(_iou(np.asarray(c["corners_mm"]), f) for c in truth) > 0.9 for f in found)
