"""Cards laid edge to edge in 3 x 3 grids (players lay cards so): every card reported by itself.

Backs with light rims on a dark cloth, touching or 0.5-1 mm apart, merge into one blob whose
inner lines barely show: the grid's fitted outline and the card's size place the cards. Truth
from the renderer.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from bench.vision import POSE
from vision.card_art import CARD_NAMES
from vision.map_detector import MapCardDetector
from vision.synthetic import PRESETS, Camera, Card, Renderer, Scene
from vision.table import TableMap

CAM = Camera.for_resolution("1080p", pose=POSE)  # the bench's ~1000 x 560 mm view at 1920x1080


def _grid(centre: tuple[float, float], angle: float, gap: float, face_up: bool, first_id: int) -> list[Card]:
    a = math.radians(angle)
    turn = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    cards = []
    for i in range(3):
        for j in range(3):
            c = np.asarray(centre) + turn @ [(i - 1) * (63 + gap), (j - 1) * (88 + gap)]
            k = first_id + len(cards)
            cards.append(Card(k, CARD_NAMES[k % len(CARD_NAMES)], (float(c[0]), float(c[1])), angle, face_up))
    return cards


def _detect(surface: str, gap: float, angles: tuple[float, float], face_up: bool, seed: int):
    scene = Scene(
        cards=tuple(
            _grid((350, 400), angles[0], gap, face_up, 1) + _grid((850, 400), angles[1], gap, face_up, 10)
        )
    )
    frame = Renderer(CAM, PRESETS[surface]).render(scene, seed)
    return frame, MapCardDetector(table=TableMap.from_homography(CAM.image_to_table)).detect(frame.image)


def _corner_errors_mm(truth_mm: np.ndarray, found) -> np.ndarray:
    """Corner errors (mm) of the detection closest to the true card, any starting corner."""
    errs = [
        np.linalg.norm(np.roll(c.corners_mm, k, axis=0) - truth_mm, axis=1) for c in found for k in range(4)
    ]
    return min(errs, key=lambda e: e.max())


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("surface", "gap", "angles", "face_up", "seed"),
    [
        ("dark_cloth", 0.5, (18, 103), False, 8),  # no card of the landscape grid was found
        ("dark_cloth", 0.0, (-15, 22), False, 10),  # touching: no card of either grid was found
        ("dark_cloth", 1.0, (18, 103), False, 8),
    ],
)
def test_every_card_of_a_grid_is_found_where_it_lies(surface, gap, angles, face_up, seed):
    frame, found = _detect(surface, gap, angles, face_up, seed)
    assert len(found) == len(frame.truth["cards"])
    for tc in frame.truth["cards"]:
        e = _corner_errors_mm(np.array(tc["corners_mm"]), found)
        assert e.max() < 1.5, f"card {tc['id']} corner errors {np.round(e, 2)} mm"
