"""Without a calibration, a card-shaped thing that is no card is not reported.

A price tag or a coaster of card shape is no card. Without a calibration no size rule decides
(issue 20: cards of any size are found, the card map decides what is a card); the hand-written
rules used to drop what was off the size the other cards gave at its place in the picture."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.map_detector import MapCardDetector
from vision.synthetic import PRESETS, Camera, CameraPose, Card, Renderer, Scene, Sheet

REAL = Path(__file__).resolve().parents[2] / "shared" / "real_photos"
# A phone held at an angle: far cards are much smaller than near ones.
CAM = Camera.for_resolution(
    "1080p", pose=CameraPose(height_mm=500.0, tilt_deg=35.0, target_mm=(420.0, 330.0))
)
CARDS = tuple(
    Card(i, name, centre, angle, True)
    for i, (name, centre, angle) in enumerate(
        [
            ("Bomb", (300, 260), 10),
            ("Teleporter", (420, 250), -15),
            ("Switch", (540, 270), 80),
            ("Rocket Boots", (320, 420), 100),
            ("Supply Drop", (450, 440), 5),
            ("Control Panel", (570, 420), 10),
        ]
    )
)


def _tag() -> Sheet:
    """A white price tag with black print, card-shaped (aspect 1.45) but 40 x 58 mm."""
    img = np.full((580, 400, 3), 245, np.uint8)
    for k, y in enumerate(range(90, 500, 70)):
        cv2.rectangle(img, (50, y), (350 - 40 * (k % 3), y + 30), (30, 30, 30), -1)
    return Sheet(img, (420, 345), (40.0, 58.0), 20.0, "price tag")


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize("preset", ["wood", "dark_cloth"])
# The card map reports the rendered tag (white, black print) as a seventh card.
@pytest.mark.xfail(strict=True, reason="issue 20: the card map takes this price tag for a card")
def test_a_price_tag_of_card_shape_is_no_card(preset):
    frame = Renderer(CAM, PRESETS[preset]).render(Scene(cards=CARDS, sheets=(_tag(),)), seed=5)
    found = MapCardDetector().detect(frame.image)
    truth = [np.array(c["corners_px"]) for c in frame.truth["cards"]]
    assert len(found) == len(CARDS)
    for t in truth:  # each card found on its corners (in whichever order they are listed)
        assert min(_corner_error(f.corners_px, t) for f in found) < 2.0


def _corner_error(q: np.ndarray, t: np.ndarray) -> float:
    return min(
        float(np.linalg.norm(np.roll(o, r, axis=0) - t, axis=1).max()) for o in (q, q[::-1]) for r in range(4)
    )


@pytest.mark.skipif(not REAL.is_dir(), reason="real photos not present (../shared/real_photos)")
def test_real_price_tag_among_set_cards_is_no_card_at_half_size():
    img = cv2.imread(str(REAL / "vimalloc_set-solver" / "filter_cards3.jpg"))
    half = cv2.resize(img, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
    found = MapCardDetector().detect(half)
    assert len(found) == 7
    # The "GAP 17.99" tag lies at about (540, 270) in the half-size photo, between the cards.
    assert all(np.linalg.norm(f.corners_px.mean(axis=0) - (540, 270)) > 40 for f in found)
