"""Cards cut by the frame's edge, checked against the renderer's truth (whose corners of a cut
card lie outside the image): a card showing three corners, a card beside its own shadow on a
white table, faces showing three corners whose clearest outline is a printed frame, and no
card invented from a printed frame near the frame's edge."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from bench.baseline import quad_iou
from bench.vision import POSE
from vision.detector import CardPlacer
from vision.map_detector import MapCardDetector
from vision.synthetic import PRESETS, Camera, Card, Renderer, Scene, random_scene
from vision.table import TableMap

# Cases the hand-written rules detector placed and the card map (placed at the card's size by
# `CardPlacer`) does not yet: kept as strict expected failures, so that one placed again shows.
MISPLACED_CUT = pytest.mark.xfail(
    strict=True, reason="issue 20: the card map misses or misplaces this card cut by the frame (4-24 px off)"
)

CAM = Camera.for_resolution("1080p", pose=POSE)
TABLE = TableMap.from_homography(CAM.image_to_table)


def _read(preset: str, scene: Scene, seed: int) -> tuple[dict, list[np.ndarray]]:
    cv2.setNumThreads(1)
    frame = Renderer(CAM, PRESETS[preset]).render(scene, seed)
    return frame.truth, [np.asarray(c.corners_px) for c in MapCardDetector(table=TABLE).detect(frame.image)]


def _worst_corner_px(truth_card: dict, found: list[np.ndarray]) -> float:
    """The worst corner error (px) of the detection nearest the true card (any start corner)."""
    tp = np.asarray(truth_card["corners_px"])
    return min(
        (min(np.linalg.norm(np.roll(d, r, axis=0) - tp, axis=1).max() for r in range(4)) for d in found),
        default=np.inf,
    )


def _out_of_view(truth_card: dict) -> int:
    return sum(not (0 <= x < CAM.width and 0 <= y < CAM.height) for x, y in truth_card["corners_px"])


@pytest.mark.parametrize(
    ("preset", "card"),
    [
        # Off the right edge, 63 % in view: the sides to the hidden corner show 6 % and 15 % of
        # their length; the blob is a pentagon whose two short sides meet beyond the frame.
        ("wood", Card(1, "Rocket Boots", (1085.0, 300.0), 140.0, False)),
        pytest.param("white", Card(1, "Rocket Boots", (1085.0, 300.0), 140.0, False), marks=MISPLACED_CUT),
        # Off the bottom edge, a face.
        pytest.param("harsh", Card(1, "Supply Drop", (500.0, 140.0), 50.0, True), marks=MISPLACED_CUT),
    ],
)
def test_card_showing_three_corners_alone(preset, card):
    truth, found = _read(preset, Scene(cards=(card,)), 3)
    (tc,) = truth["cards"]
    assert _out_of_view(tc) == 1
    assert len(found) == 1
    assert _worst_corner_px(tc, found) < 3.0


@MISPLACED_CUT
def test_card_back_cut_by_the_frame_beside_its_shadow_on_a_white_table():
    # 85 % in view off the bottom edge; just outside its seen sides lie its own shadow and the
    # table a little brighter than elsewhere: the table all the same, under other light.
    seed = 1050024
    truth, found = _read("white", random_scene(seed), seed)
    card = next(c for c in truth["cards"] if c["id"] == 2)
    assert _out_of_view(card) == 2
    assert _worst_corner_px(card, found) < 2.5


def test_no_card_from_the_printed_panel_of_a_face_showing_three_corners():
    # A face on a white table off the left edge: its printed panel (inside a green frame) is the
    # clearest outline, about a card's width one way; placed by the card's size along its sides
    # it would put a corner out of view that the card shows. Every detection must be the card.
    card = Card(1, "Teleporter", (120.0, 400.0), 20.0, True)
    truth, found = _read("white", Scene(cards=(card,)), 3)
    (tc,) = truth["cards"]
    assert _out_of_view(tc) == 1
    for d in found:
        assert quad_iou(np.asarray(tc["corners_mm"]), TABLE.to_mm(d)) >= 0.9


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("preset", "seed", "card_id", "hidden", "worst_px"),
    [
        # A back 95 % in view across the bottom edge: along the cut both its light border and its
        # dark pattern reach the frame's edge.
        pytest.param("white_on_white", 2000022, 9, 2, 2.5, marks=MISPLACED_CUT),
        pytest.param("harsh", 2000022, 9, 2, 2.5, marks=MISPLACED_CUT),
        pytest.param("wood", 2000022, 9, 2, 2.5, marks=MISPLACED_CUT),
        # A face whose green printed frame inside a white border is the clearest outline; the
        # card's edge on the white table lies a border's width further out.
        pytest.param("white", 2000026, 1, 2, 2.5, marks=MISPLACED_CUT),
        # A face 60 % in view whose clearest outline is the white panel inside its blue frame.
        ("white", 2000022, 2, 2, 2.5),
        # A face showing three corners whose panel lies further from the card's far edge (a
        # title band) than from its sides.
        pytest.param("white", 2000036, 6, 1, 2.5, marks=MISPLACED_CUT),
        # A face lying long side across, 80 % in view, whose blue side bands span a card's
        # width the other way: only the card around them, not a card from them.
        ("white", 2000020, 6, 2, 2.5),
        # A back across the bottom edge, 85 % in view: one corner out; its sides to that corner
        # leave the frame after 62 % and 22 % of their length (too little to fit the latter).
        ("wood", 2000009, 3, 1, 2.0),
        # A face, 80 % in view, the same way.
        ("dark_cloth", 1050020, 1, 1, 2.0),
        # A face showing three corners, its hidden corner 80 px out: on wood the clearest outline
        # of the whole card is a ring (its white border, darker frame inside), whose hull is the
        # card's; on a white table its red frame, whose sides meet the frame's edge soon either
        # way round (the one showing more of the side to the hidden corner fits worse).
        ("wood", 2000040, 12, 1, 2.5),
        pytest.param("white", 2000040, 12, 1, 2.5, marks=MISPLACED_CUT),
        ("white_on_white", 2000040, 12, 1, 2.5),
        ("white", 1061246, 6, 1, 2.5),
        # Faces whose hidden corner is hardly out of view: both sides to it show a long stretch
        # and the line past either other corner would run far over the table. Fitted as a
        # whole: from its green frame, a pawn on it; from its red frame; from its thin orange
        # frame, whose two edges rival each other (the card's edge is a border's width out).
        ("white", 1061247, 10, 1, 2.5),
        ("white_on_white", 1050354, 1, 1, 2.5),
        ("white_on_white", 1050354, 3, 1, 2.5),
        # A face 92 % in view across the bottom edge, touching a neighbour found whole: past the
        # corner beside the neighbour lies that neighbour, not the table; under harsh light their
        # outlines merge in every map, and the part of the blob the neighbour leaves is the cut
        # card's part in view.
        pytest.param("wood", 2000065, 9, 2, 1.5, marks=MISPLACED_CUT),
        pytest.param("harsh", 2000065, 9, 2, 1.5, marks=MISPLACED_CUT),
        # A back whose hidden corner is hardly out of view (9 px): its side there runs along the
        # frame's border, too little of it cut off to fit the card as cut; placed by the size.
        ("white", 2000069, 2, 1, 1.5),
        # A back 65 % in view across the bottom edge, a neighbour's corner touching its top left
        # corner: past that corner along its far edge lies the neighbour, across the edge's line
        # (no step: the edge ends at the corner).
        ("wood", 2000106, 2, 2, 2.0),
        # A face lying long side across, half in view: its share in view as completed wavers
        # about a half.
        ("wood", 2000104, 6, 2, 2.0),
        # A face 79 % in view whose green band along the cut was fitted as a printed frame's side:
        # the card around it took a grain line above and a "side" in the padding beyond the frame.
        ("wood", 2000109, 8, 2, 2.0),
        # The same on a white table: light letters on its green band end 2 px before the frame's
        # edge, where the fit of the cut side stopped.
        ("white", 2000109, 8, 2, 2.0),
        # A face showing three corners, one 3 px in view: a slanted side running off the bottom
        # edge, whose fit took edges from the border's replicated pixels beyond the frame.
        ("white", 2000080, 9, 1, 2.0),
        # A face lying long side across, 86 % in view, whose blue side bands span a card's width
        # the other way: the card's top edge runs on past the bands' corners (its white border
        # on the white table passed for the table there).
        ("white", 2000129, 1, 2, 2.0),
        # Faces 92 % in view across the bottom edge beside other cards: read from the straight
        # sides of what the found cards leave of their blob, the frame's edge passed for the
        # card's bottom and the top was placed by the size 30 px beyond the card's own edge.
        ("wood", 1096307, 12, 2, 2.0),
        ("wood", 1096332, 4, 2, 2.0),
        # A tilted face showing three corners (one on the last row), 67 % in view: no map encloses
        # it (its white border's ring filled in by the edges' dilation, its orange frame broken
        # by the art and the title), but its edges hang together. On white on white its title
        # band's and frame's edges passed for the card's on two sides, 4 % short of its length.
        ("white", 2000110, 8, 1, 1.5),
        ("white_on_white", 2000110, 8, 1, 1.5),
    ],
)
def test_card_cut_by_the_frame_is_fitted_to_its_own_edges(preset, seed, card_id, hidden, worst_px):
    truth, found = _read(preset, random_scene(seed), seed)
    card = next(c for c in truth["cards"] if c["id"] == card_id)
    assert _out_of_view(card) == hidden
    assert _worst_corner_px(card, found) < worst_px
    # Nothing else there: every detection overlapping the card is the card.
    tp = np.asarray(card["corners_mm"])
    for d in found:
        iou = quad_iou(tp, TABLE.to_mm(d))
        assert iou < 0.05 or iou > 0.9


def test_a_card_whose_side_lies_on_the_frame_border_is_placed_by_its_size():
    # A back in full view 4-8 px below the top edge, where the frame's border rows (the table's
    # darker edge band, the floor beyond) rival its edge: fitted to them it was 66 mm wide.
    seed = 2000063
    truth, found = _read("white_on_white", random_scene(seed), seed)
    card = next(c for c in truth["cards"] if c["id"] == 2)
    assert _out_of_view(card) == 0
    assert min(np.asarray(card["corners_px"])[:, 1]) < 9.0
    assert _worst_corner_px(card, found) < 2.5
    tp = np.asarray(card["corners_mm"])
    for d in found:
        iou = quad_iou(tp, TABLE.to_mm(d))
        assert iou < 0.05 or iou > 0.9


def test_a_rough_quad_whose_sides_meet_far_out_of_view_is_no_card():
    # Two nearly parallel outline sides from the frame's edge meet thousands of px away: fitting
    # that as a cut card sampled past OpenCV's remap limit and stopped the demo (sample frames 5, 15).
    cv2.setNumThreads(1)
    image = Renderer(CAM, PRESETS["wood"]).render(random_scene(2000009), 2000009).image
    h = image.shape[0]
    q = np.array([[900.0, -40000.0], [1000.0, -40000.0], [1300.0, h - 0.5], [600.0, h - 0.5]])
    table = np.median(image[:40].reshape(-1, 3), axis=0)
    assert CardPlacer(TABLE)._fit_cut(image, q, 2, 1, h - 0.5, reach=5.0, table=table) == []
