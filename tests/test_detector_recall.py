"""Card detector recall on rendered frames whose truth the renderer knows: cases the candidate
stage used to miss (light-rimmed card backs on dark cloth, white-bordered faces on a white table,
whose printed frame is the strongest outline)."""

from __future__ import annotations

import numpy as np

from bench.vision import POSE
from vision.detector import CardDetector
from vision.synthetic import PRESETS, Camera, Card, Renderer, Scene
from vision.table import TableMap

CAM = Camera.for_resolution("1080p", pose=POSE)
TABLE = TableMap.from_homography(CAM.image_to_table)


def _missed(cards: list[Card], preset: str, tol_px: float = 2.0) -> list[int]:
    """Ids of the true cards no detection matches with every corner within tol_px."""
    frame = Renderer(CAM, PRESETS[preset]).render(Scene(cards=tuple(cards)), 3)
    found = [np.asarray(c.corners_px) for c in CardDetector(table=TABLE).detect(frame.image)]
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
