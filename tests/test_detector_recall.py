"""Card detector recall on rendered frames whose truth the renderer knows: cases the candidate
stage used to miss (light-rimmed card backs on dark cloth, white-bordered faces on a white table,
whose printed frame is the strongest outline)."""

from __future__ import annotations

import functools
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.vision import POSE
from vision.map_detector import MapCardDetector
from vision.synthetic import PRESETS, Camera, Card, Renderer, Scene
from vision.table import TableMap


# Cases the hand-written rules detector read and the card map does not yet: kept as strict
# expected failures, so that one read right again shows.
def _known(why: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"issue 20: the card map {why}")


CAM = Camera.for_resolution("1080p", pose=POSE)
TABLE = TableMap.from_homography(CAM.image_to_table)


def _missed(cards: list[Card], preset: str, tol_px: float = 2.0, seed: int = 3) -> list[int]:
    """Ids of the true cards no detection matches with every corner within tol_px."""
    frame = Renderer(CAM, PRESETS[preset]).render(Scene(cards=tuple(cards)), seed)
    found = [np.asarray(c.corners_px) for c in MapCardDetector(table=TABLE).detect(frame.image)]
    missed = []
    for tc in frame.truth["cards"]:
        tp = np.asarray(tc["corners_px"])
        # The detector's corner order may start at another corner of the same card.
        errs = [
            min(np.linalg.norm(np.roll(d, r, axis=0) - tp, axis=1).max() for r in range(4)) for d in found
        ]
        if not errs or min(errs) > tol_px:
            missed.append(tc["id"])
    assert len(found) <= len(cards), "a detection that is no card"
    return missed


def test_card_backs_with_a_light_rim_on_dark_cloth():
    # The rim's inner edge is as strong as the card's own edge: a wide edge search sees two.
    cards = [
        Card(1, "Switch", (684.0, 408.0), 178.7, False),
        Card(2, "Trapdoor", (615.5, 397.0), -5.9, False),
        Card(3, "Bomb", (520.0, 300.0), 30.0, False),
    ]
    assert _missed(cards, "dark_cloth") == []


def test_white_bordered_faces_on_a_white_table():
    # The printed frame inside the border is the strongest outline; the card is the card-sized
    # rectangle around it, whose short and long borders differ.
    cards = [
        Card(1, "Trapdoor", (357.0, 533.0), 176.0, True),
        Card(2, "Supply Drop", (418.0, 488.0), 355.1, True),
        Card(3, "Rocket Boots", (616.7, 547.1), 268.2, True),
        Card(4, "Control Panel", (603.5, 150.6), 276.1, True),
    ]
    assert _missed(cards, "white") == []


@pytest.mark.parametrize(
    ("card", "seed"),
    [
        (Card(8, "Rocket Boots", (865.8, 627.3), 41.9, True), 4),
        (Card(2, "Teleporter", (652.7, 267.7), 298.5, True), 3),
    ],
)
def test_white_border_a_few_px_wide_on_a_white_table(card, seed):
    # The card's own edge is a faint line 6-7 px outside its printed frame; a fit's second, wider
    # pass used to reach the frame's strong edge and settle there (a 58 x 85 mm "card").
    assert _missed([card], "white_on_white", seed=seed) == []


def test_card_backs_with_light_rims_nearly_touching_on_dark_cloth():
    # The two rims merge into one blob; each card's outline holds its rim's inner edge, 7 px in,
    # within the search of a rough quad from the blob's sides.
    cards = [
        Card(6, "Trapdoor", (740.1, 240.8), 274.7, False),
        Card(8, "Empty Lair", (700.3, 314.0), 184.9, False),
    ]
    assert _missed(cards, "dark_cloth") == []


@pytest.mark.parametrize("preset", ["wood", "dark_cloth"])
def test_cards_running_off_the_frame_are_completed_with_the_card_size(preset):
    # Cards 1 and 2 run off the bottom of the frame (62 % and 84 % in view; 2 is a back, whose
    # printed frame is the strongest outline): their hidden corners are where the card's size puts
    # them along the sides that leave the frame. Card 3 is 6 % in view: too little to place it.
    cards = [
        Card(1, "Tripwire", (719.0, 131.0), 0.0, True),
        Card(2, "Bomb", (500.0, 150.0), 8.0, False),
        Card(3, "Switch", (300.0, 92.0), 95.0, True),
        Card(4, "Trapdoor", (900.0, 160.0), 80.0, False),
    ]
    frame = Renderer(CAM, PRESETS[preset]).render(Scene(cards=tuple(cards)), 3)
    found = [np.asarray(c.corners_px) for c in MapCardDetector(table=TABLE).detect(frame.image)]
    truth = {tc["id"]: np.asarray(tc["corners_px"]) for tc in frame.truth["cards"]}
    assert truth[1][:, 1].max() > CAM.height + 60 and truth[2][:, 1].max() > CAM.height + 30
    assert len(found) == 3
    for cid in (1, 2, 4):
        err = min(
            np.linalg.norm(np.roll(d, r, axis=0) - truth[cid], axis=1).max() for d in found for r in range(4)
        )
        assert err < 1.0, f"card {cid}: worst corner {err:.2f} px off"


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("preset", "cards", "tol_px"),
    [
        # Half a back in view: a strip far wider than a card's shape, on no card's aspect.
        ("green_felt", [Card(5, "Switch", (711.9, 120.4), 90.2, False)], 2.0),
        # Turned: the blob's outline along the frame's edge keeps 7 px off it.
        ("dark_cloth", [Card(10, "Switch", (585.4, 131.7), 111.3, False)], 2.0),
        # A face whose box reaches past the frame's edge.
        ("green_felt", [Card(7, "Control Panel", (319.7, 127.6), -2.5, True)], 2.0),
        # A side running off the frame nearly touches the neighbouring face (not the table
        # outside it); that neighbour's edge pulls the side by a px or two.
        (
            "harsh",
            [
                Card(1, "Switch", (816.5, 142.5), 267.6, True),
                Card(3, "Tripwire", (727.3, 123.3), 266.9, False),
                Card(6, "Trapdoor", (691.5, 217.0), 73.3, True),
            ],
            3.0,
        ),
    ],
)
def test_cards_half_out_of_the_frame(preset, cards, tol_px):
    # 50-86 % in view, two corners; the other two are where the card's size puts them.
    assert _missed(cards, preset, tol_px) == []


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("preset", "card", "tol_px"),
    [
        pytest.param(
            "white",
            Card(4, "Laser Gun", (309.8, 124.7), 265.5, True),
            2.0,
            marks=_known("misplaces this cut card"),
        ),
        ("green_felt", Card(4, "Switch", (665.1, 128.4), 264.1, True), 2.0),
        ("harsh", Card(3, "Trapdoor", (430.0, 126.1), 98.3, True), 2.0),
        # The strip just outside a white card on a white table is its own shadow: the table in
        # shade, not something else.
        ("white", Card(6, "Supply Drop", (333.9, 138.2), 176.5, True), 2.0),
        ("white_on_white", Card(7, "Laser Gun", (614.1, 140.4), 183.6, True), 2.0),
        # Faint sides (white on white) vouched for by the card's width in mm.
        ("white_on_white", Card(5, "Bomb", (324.5, 133.0), 3.3, True), 3.0),
    ],
)
def test_face_with_a_light_border_running_off_the_frame(preset, card, tol_px):
    # 55-73 % in view. The face's coloured frame, open towards the frame's edge where its inside
    # (the light panel) runs out of view, is a U in every map, not a quad: its hull is the printed
    # frame cut by the frame's edge, from which the fit steps out by the border to the card.
    assert _missed([card], preset, tol_px) == []


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("preset", "card"),
    [
        ("dark_cloth", Card(1, "Bomb", (1045.0, 140.0), 90.0, True)),
        pytest.param(
            "green_felt",
            Card(1, "Bomb", (1040.0, 145.0), 95.0, False),
            marks=_known("misplaces this cut card"),
        ),
        ("wood", Card(1, "Bomb", (155.0, 140.0), 90.0, False)),
        ("wood", Card(1, "Bomb", (150.0, 145.0), 80.0, True)),
    ],
)
def test_card_running_off_a_corner_of_the_frame(preset, card):
    # 67-79 % in view, one corner: the two sides meeting there are the card's edges (a light
    # rim's inner edge, whose outside is the rim, gives way to the card's edge further out), and
    # the one seen longer than a card's short side is its long side.
    assert _missed([card], preset, tol_px=1.0) == []


@pytest.mark.parametrize("preset", ["dark_cloth", "wood"])
def test_card_corner_just_inside_a_corner_of_the_frame_is_not_guessed(preset):
    # The card's second corner lies just inside the frame, the side from it leaves the frame
    # near the frame's corner: a side fitted along the frame's edge would span the table between
    # them. Both seen sides are shorter than a card's short side: no way to place it.
    frame = Renderer(CAM, PRESETS[preset]).render(
        Scene(cards=(Card(1, "Bomb", (1042.0, 138.0), 0.0, True),)), 3
    )
    assert MapCardDetector(table=TABLE).detect(frame.image) == []


def test_two_backs_at_right_angles_touching_on_dark_cloth():
    # Their light rims merge into one L-shaped blob (3/4 of its hull): no rough quad of one card
    # comes out of it; each card is read from the straight stretches of the blob's outline.
    cards = [
        Card(7, "Supply Drop", (575.76, 242.6), 92.86, False),
        Card(10, "Rocket Boots", (653.03, 199.34), 0.73, False),
    ]
    assert _missed(cards, "dark_cloth") == []


# --- Without a calibration -------------------------------------------------------------------

REAL = Path(__file__).resolve().parents[2] / "shared" / "real_photos"


@functools.cache
def _grid_on_white() -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Dark card backs 6 mm apart in a 3 x 3 grid on a white table, read without a calibration:
    (detections, true corners), px."""
    cards = [
        Card(3 * r + k + 1, "Bomb", (520.0 + 69.0 * k, 330.0 + 94.0 * r), 0.0, False)
        for r in range(3)
        for k in range(3)
    ]
    frame = Renderer(CAM, PRESETS["white"]).render(Scene(cards=tuple(cards)), 5)
    found = [np.asarray(c.corners_px) for c in MapCardDetector().detect(frame.image)]
    return found, [np.asarray(tc["corners_px"]) for tc in frame.truth["cards"]]


def test_uncalibrated_tight_grid_of_dark_cards_on_white_has_no_box_over_two_cards():
    # Every detection lies on one true card and no other; no two on the same card.
    found, truth = _grid_on_white()
    for d in found:
        ious = sorted(_iou(d, t) for t in truth)
        assert ious[-1] > 0.75 and ious[-2] < 0.05, f"a detection that is no card: {d.round(1).tolist()}"
    matched = {max(range(len(truth)), key=lambda k: _iou(d, truth[k])) for d in found}
    assert len(matched) == len(found) >= 7


@_known("reports a card plus the gap around it here (IoU < 0.85 with every card)")
def test_uncalibrated_tight_grid_of_dark_cards_on_white_has_no_card_plus_gap():
    # A box of a card and the gap around it (its sides the neighbours' edges) is not a card:
    # without a size in mm a fit may keep to a back's printed rim (IoU ~0.88), a card plus its
    # gap has < 0.85. (vision.edges now takes the gap as the band beside each card's own
    # edge: worst IoU 0.89, was 0.84.)
    found, truth = _grid_on_white()
    assert all(max(_iou(d, t) for t in truth) > 0.85 for d in found)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = a.astype(np.float32), b.astype(np.float32)
    inter, _ = cv2.intersectConvexConvex(pa, pb)
    return inter / (cv2.contourArea(pa) + cv2.contourArea(pb) - inter)


@functools.cache
def _detect_real(photo: str) -> tuple:
    """The detections (uncalibrated) in a real photo, once per test session: reading a 2000 px
    photo of 40 cards takes seconds."""
    return tuple(MapCardDetector().detect(cv2.imread(str(REAL / photo))))


def _straddles(cards) -> list[int]:
    """Detections whose interior holds a corner of another detection (a box over two cards)."""
    out = []
    for i, c in enumerate(cards):
        poly = np.asarray(c.corners_px, np.float32)
        short = float(np.linalg.norm(poly[1] - poly[0]))
        for j, o in enumerate(cards):
            if i != j and any(
                cv2.pointPolygonTest(poly, (float(x), float(y)), True) > max(4.0, 0.04 * short)
                for x, y in np.asarray(o.corners_px)
            ):
                out.append(i)
                break
    return out


@pytest.mark.slow  # vision over many real photos
@pytest.mark.skipif(not REAL.is_dir(), reason="real photos not present (../shared/real_photos)")
@pytest.mark.parametrize(
    "photo", ["tmikonen_magic_card_detector/alpha_deck.jpg", "vimalloc_set-solver/filter_cards3.jpg"]
)
def test_real_photo_no_detection_straddles_two_cards(photo):
    cards = _detect_real(photo)
    assert cards, "no card found"
    assert _straddles(cards) == []


@pytest.mark.skipif(not REAL.is_dir(), reason="real photos not present (../shared/real_photos)")
@_known("places Timetwister 16 px off its faint outer edge, on its printed frame")
def test_real_photo_white_bordered_card_on_white_is_its_outer_edge():
    # Timetwister, the middle of three white-bordered cards on a white table (tilted camera, a
    # cropped photo): its printed frame is the clean outline, the faint white-on-white edge around
    # it is the card. Corners read off the photo by eye at 3x zoom.
    img = cv2.imread(str(REAL / "tmikonen_magic_card_detector/geyser_twister_fireball.jpg"))
    outer = np.array([[774.0, 128.0], [1236.0, 124.0], [1316.0, 703.0], [701.0, 718.0]])
    cards = MapCardDetector().detect(img)
    errs = [np.linalg.norm(np.asarray(c.corners_px) - outer, axis=1).max() for c in cards]
    assert errs and min(errs) < 8.0, f"nearest detection {min(errs, default=np.inf):.0f} px off"
    assert _straddles(cards) == []


def _nearest_px(cards, corners: list[list[float]]) -> float:
    """Largest corner error (px) of the detection nearest the corners read off a photo by eye."""
    outer = np.array(corners)
    errs = [
        min(
            np.linalg.norm(np.roll(np.asarray(c.corners_px), r, axis=0) - outer, axis=1).max()
            for r in range(4)
        )
        for c in cards
    ]
    return min(errs, default=np.inf)


@pytest.mark.skipif(not REAL.is_dir(), reason="real photos not present (../shared/real_photos)")
def test_real_photo_card_square_to_a_tilted_camera():
    # The SET card with a red S, right of the receipts: lying square to the camera's tilt, its
    # image is a trapezoid 2.4 times as wide as tall, whose shape alone cannot tell the focal
    # length. Seven cards; the envelopes and receipts are none. Corners read by eye at 4x zoom.
    cards = _detect_real("vimalloc_set-solver/filter_cards3.jpg")
    assert len(cards) == 7
    err = _nearest_px(cards, [[1326.0, 462.0], [1614.0, 445.0], [1678.0, 553.0], [1363.0, 577.0]])
    assert err < 8.0, f"nearest detection {err:.0f} px off"


@pytest.mark.skipif(not REAL.is_dir(), reason="real photos not present (../shared/real_photos)")
def test_real_photo_white_bordered_card_whose_printed_frame_is_not_quite_straight():
    # Braingeyser, the left of three white-bordered cards on white (strong perspective, worn
    # corners): its printed frame is a little bent, so the frame is no clean outline by itself,
    # but it is as good as any card's and vouches for the faint white-on-white edge around it.
    img = cv2.imread(str(REAL / "tmikonen_magic_card_detector/geyser_twister_fireball.jpg"))
    cards = MapCardDetector().detect(img)
    assert len(cards) == 3
    err = _nearest_px(cards, [[276.0, 143.0], [732.0, 134.0], [648.0, 713.0], [28.0, 710.0]])
    assert err < 8.0, f"nearest detection {err:.0f} px off"
    assert _straddles(cards) == []


@pytest.mark.slow  # vision over many real photos
@pytest.mark.skipif(not REAL.is_dir(), reason="real photos not present (../shared/real_photos)")
@pytest.mark.parametrize(
    "size", [pytest.param(1.0, marks=_known("reports 41 cards for 40 at full size")), 0.5]
)
def test_real_photo_tight_grid_every_card_once(size):
    # 40 dark-bordered cards in 5 rows of 8, a few mm apart on white: one detection per card.
    # At half size (a webcam's view: a card ~110 px wide) each 2 x 2 block of them fits as one
    # card-shaped box, 4 times a card: it fails the size check, and must not hide its cards.
    img = cv2.imread(str(REAL / "tmikonen_magic_card_detector/alpha_deck.jpg"))
    if size == 1.0:
        cards = _detect_real("tmikonen_magic_card_detector/alpha_deck.jpg")
    else:
        img = cv2.resize(img, None, fx=size, fy=size, interpolation=cv2.INTER_AREA)
        cards = MapCardDetector().detect(img)
    centres = np.array([np.asarray(c.corners_px).mean(axis=0) for c in cards])
    assert len(cards) == 40
    assert _straddles(cards) == []
    # Rows and columns of the grid: 8 centres per row, 5 per column, each cell once.
    rows = np.digitize(centres[:, 1], np.linspace(0, img.shape[0], 6)[1:-1])
    cols = np.digitize(centres[:, 0], np.linspace(0, img.shape[1], 9)[1:-1])
    assert len(set(zip(rows.tolist(), cols.tolist()))) == 40
