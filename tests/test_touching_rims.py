"""Two cards touching side by side, one a little further along than the other (not a grid):
their rims of one colour - white borders in a harsh light, grey ones on a white table - run
on as one strip with no edge between the cards. Each is reported, its touching side placed by
the card's size. Truth from the renderer."""

from __future__ import annotations

import numpy as np
import pytest

from bench.vision import POSE
from vision.map_detector import MapCardDetector
from vision.synthetic import PRESETS, Camera, Renderer, Scene, side_by_side_pairs
from vision.table import TableMap

# Pairs the hand-written rules detector placed and the card map does not yet (2.1-2.4 mm off):
# strict expected failures, so that one placed right again shows.
MERGED_RIMS = pytest.mark.xfail(
    strict=True, reason="issue 20: the card map places one card of this pair 2.1-2.4 mm off"
)

CAM = Camera.for_resolution("1080p", pose=POSE)
TABLE = TableMap.from_homography(CAM.image_to_table)


def _worst_corner_error_mm(truth_mm: np.ndarray, found) -> float:
    return min(
        float(np.linalg.norm(np.roll(c.corners_mm, k, axis=0) - truth_mm, axis=1).max())
        for c in found
        for k in range(4)
    )


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    ("surface", "angle", "shift", "face_up", "seed"),
    [
        ("harsh", 4.0, 12.0, False, 3),
        ("harsh", 23.26, 1.13, False, 917),
        ("white_on_white", -20.23, -14.16, False, 59),
        ("wood", -49.46, -15.99, False, 775),
        # Faces whose white borders merge, 4.65 mm apart along: the pair's outline passed for a
        # 2 x 1 grid and each card was placed half that step off (2.3-2.5 mm).
        pytest.param("wood", 7.94, -4.65, True, 740952, marks=MERGED_RIMS),
        # The same on a dark cloth: a fit on the inner edge of the card's border beside its
        # neighbour (59.5 mm wide, every side clean) moved out to the card's size found no edge
        # there - the two borders run on as one strip - and that side is placed by the size.
        pytest.param("dark_cloth", 26.74, 4.55, True, 959968, marks=MERGED_RIMS),
    ],
)
def test_cards_touching_with_rims_of_one_colour_are_each_found(surface, angle, shift, face_up, seed):
    frame = Renderer(CAM, PRESETS[surface]).render(
        Scene(cards=tuple(side_by_side_pairs(angle, shift, face_up))), seed
    )
    found = MapCardDetector(table=TABLE).detect(frame.image)
    assert len(found) == 6
    for t in frame.truth["cards"]:
        assert _worst_corner_error_mm(np.array(t["corners_mm"]), found) < 1.5, t["id"]
