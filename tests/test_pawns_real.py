"""Pawns against print: real photos of cards with no pawn on them (skipped when the photos are
absent), and rendered pawns on cards whose art is not known (they must still be found)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.pawns import camera_nadir_px, find_pawns
from vision.pipeline import FrameReader
from vision.synthetic import PRESETS, Camera, CameraPose, Card, Pawn, Renderer, Scene
from vision.table import TableMap

PHOTOS = Path(__file__).resolve().parents[2] / "shared" / "real_photos"
POSE = CameraPose(height_mm=820.0, tilt_deg=12.0, target_mm=(600.0, 390.0))
CAM = Camera.for_resolution("1080p", pose=POSE)

# (photo, crop as fractions x0 y0 x1 y1, scale): SET symbols (flat filled shapes on white cards),
# a Magic card's red frame, and painted art in orange, red and yellow (alpha_deck's middle rows,
# cropped: the whole grid of 40 cards takes long to read). Halved where a card stays ~100 px
# across or more (the detector is what takes the time); alpha_deck at full size - halved, two
# patches of its painted art still pass for pawns (a known limit, see `_stands_up`).
REAL = [
    ("vimalloc_set-solver/set.jpg", (0, 0, 1, 1), 0.5),
    ("vimalloc_set-solver/filter_cards5.jpg", (0, 0, 1, 1), 0.5),
    ("tmikonen_magic_card_detector/geyser_twister_fireball.jpg", (0, 0, 1, 1), 0.5),
    ("tmikonen_magic_card_detector/alpha_deck.jpg", (0, 0.2, 1, 0.8), 1.0),
]


@pytest.mark.skipif(not PHOTOS.is_dir(), reason=f"real photos not present at {PHOTOS}")
@pytest.mark.parametrize("name,crop,scale", REAL)
def test_print_on_real_cards_is_no_pawn(
    name: str, crop: tuple[float, float, float, float], scale: float
) -> None:
    image = cv2.imread(str(PHOTOS / name))
    h, w = image.shape[:2]
    x0, y0, x1, y1 = crop
    image = image[int(y0 * h) : int(y1 * h), int(x0 * w) : int(x1 * w)]
    if scale != 1.0:
        image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    reading = FrameReader().read(image)
    assert len(reading.cards) >= 2  # the cards are there: their print is what is looked at
    assert reading.pawns == ()


def _nadir() -> tuple[float, float]:
    return camera_nadir_px(TableMap.from_homography(CAM.image_to_table).to_mm, CAM.width, CAM.height)


@pytest.mark.parametrize("preset", ["ideal", "white"])
def test_pawns_on_cards_of_unknown_art_stand_up(preset: str) -> None:
    # With no art to explain print, a pawn must show that it stands (its side or base darker
    # than it and the card, a sharp outline): discs and standees on light faces do, even with no
    # shadow at all ("ideal" light).
    table = TableMap.from_homography(CAM.image_to_table)
    nx, ny = (float(v) for v in table.to_mm(np.array([_nadir()]))[0])
    spots = [(nx - 200 + 100 * i, ny + 200 + 90 * (i % 2)) for i in range(4)]
    names = ["Switch", "Teleporter", "Laser Gun", "Rocket Boots"]
    cards = tuple(Card(i + 1, names[i], spots[i], 10 * i, True) for i in range(4))
    styles = [("red", "disc"), ("green", "standee"), ("purple", "standee"), ("blue", "standee")]
    pawns = tuple(Pawn(c, c, spots[i], i + 1, st) for i, (c, st) in enumerate(styles))
    f = Renderer(CAM, PRESETS[preset]).render(Scene(cards=cards, pawns=pawns), 7)
    corners = [np.array(c["corners_px"]) for c in f.truth["cards"]]
    seen = find_pawns(f.image, corners, arts=[None] * len(corners), nadir_px=_nadir())
    on = {p.color: p.card_index for p in seen}
    assert {c: on.get(c) for c, _ in styles} == {"red": 0, "green": 1, "purple": 2, "blue": 3}
