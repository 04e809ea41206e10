"""A photo of cards laid in a 3 x 4 grid, read without a calibration (`tabletop detect IMAGE`):
every card found on its own edge. Truth from the renderer.

Without a size in mm, a block of cards a few mm apart fits as one card-shaped box, and a
white-bordered face on a white table shows its printed frame far more clearly than its edge."""

from __future__ import annotations

import pytest

from bench.vision import POSE, score_frame
from vision.map_detector import MapCardDetector
from vision.synthetic import PRESETS, Camera, Card, Renderer, Scene
from vision.table import TableMap

CAM = Camera.for_resolution("1080p", pose=POSE)
NAMES = ("Bomb", "Switch", "Trapdoor", "Teleporter", "Rocket Boots", "Supply Drop")
TABLE = TableMap.from_homography(CAM.image_to_table)  # to score in mm only: the detector has none


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("surface", "gap", "face_up"),
    [
        ("dark_cloth", 2.0, True),  # the whole grid fitted as one box, which hid every card in it
        ("green_felt", 4.0, False),  # the same, backs
        # White borders: each card's printed frame, none on its edge. The card map places 8 of
        # the 12 on their edges.
        pytest.param(
            "white",
            2.0,
            True,
            marks=pytest.mark.xfail(strict=True, reason="issue 20: 8 of 12 on their edges"),
        ),
        ("white", 6.0, True),  # ... or a fit that took a neighbour's edge on two sides
    ],
)
def test_every_card_of_a_grid_on_its_edge_without_a_calibration(surface, gap, face_up):
    cards = tuple(
        Card(
            k,
            NAMES[k % len(NAMES)],
            (450 + (k % 4) * (63 + gap), 250 + (k // 4) * (88 + gap)),
            0.0,
            face_up,
        )
        for k in range(12)
    )
    frame = Renderer(CAM, PRESETS[surface]).render(Scene(cards=cards), seed=1)
    found = [c.corners_px for c in MapCardDetector().detect(frame.image)]
    t = score_frame(frame.truth, found, TABLE)
    assert (t.matched, t.det) == (12, 12), f"{t.matched} of 12 found on their edges, {t.det} reported"
