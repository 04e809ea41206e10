"""Cards found but fitted a few mm off on some side: the corners are the card's own.

Rendered bench scenes where a side used to keep to another line parallel to the card's edge -
a grain line of a wooden table beyond it, a neighbour's shadow, the inner edge of the card's
printed border - while the card's size or shape on the table showed that side was not the
card's. Truth from the renderer, compared in table mm.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
import shapely

from bench.vision import POSE
from vision.map_detector import MapCardDetector
from vision.synthetic import PRESETS, Camera, Renderer, random_conditions, random_scene
from vision.table import TableMap

# Cards the hand-written rules detector placed on their edges and the card map does not yet
# (1.6-1.9 mm off): strict expected failures, so that one placed right again shows.
OFF_EDGE = pytest.mark.xfail(strict=True, reason="issue 20: the card map places this card 1.6-1.9 mm off")

CAM = Camera.for_resolution("1080p", pose=POSE)  # the bench's view, ~1.7-2.2 px per mm
TABLE = TableMap.from_homography(CAM.image_to_table)


def _corner_errors_mm(cond: str, seed: int, card: int) -> np.ndarray:
    """Per corner, how far (mm) the detection nearest to the true card is from its corners."""
    cv2.setNumThreads(1)
    conditions = random_conditions(seed) if cond == "random" else PRESETS[cond]
    frame = Renderer(CAM, conditions).render(random_scene(seed), seed)
    truth = np.array(next(c for c in frame.truth["cards"] if c["id"] == card)["corners_mm"])
    found = MapCardDetector(table=TABLE).detect(frame.image)
    errs = [np.linalg.norm(np.roll(c.corners_mm, k, axis=0) - truth, axis=1) for c in found for k in range(4)]
    return min(errs, key=lambda e: e.max())


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    "cond, seed, card, what",
    [
        # Top side on a dark grain line 4-6 mm beyond a white card on wood: 93 mm long, within
        # the size tolerance; the card's own edge is the side moved in to the card's size.
        ("harsh", 1050033, 5, "grain line beyond the card"),
        # A white card on white with a pawn on it: one long side on the shadow of the card above,
        # 8 degrees off square on the table, the other on its printed green frame.
        pytest.param("white_on_white", 1050027, 5, "a neighbour's shadow, not square", marks=OFF_EDGE),
        # A face-down card on white: the card's size reached by moving the wrong sides out, one
        # side 5 mm beyond the card and the other on the border's inner edge.
        ("white_on_white", 2000018, 4, "shifted by a border's width"),
        # Cards read from what the found cards leave of a blob: a white card's side on the edge
        # of the card below it, 5 mm beyond; a face-down card's on its border's inner edge.
        ("white", 2000007, 1, "a neighbour's edge, from a blob's rest"),
        ("dark_cloth", 2000005, 3, "a border's inner edge, from a blob's sides"),
        # A face-down card whose sides lie on its shadow's far flank: a weakly supported card-sized
        # guess moved from such a fit must not stand in for the card's own clean fit.
        pytest.param("random", 2000014, 3, "a poorly supported guess", marks=OFF_EDGE),
        # A grey back on white whose rim merges into its shadow's penumbra: one soft ramp, which a
        # card | band | table fit with a band darker than both (no dip in the profile) moved 1 mm
        # into the card on two sides; the fit, 86.8 mm long, was then no card at all.
        ("white_on_white", 1061251, 12, "an edge merging into its shadow"),
        # Two touching backs on a dark cloth, read from the blob they make: one short side on the
        # inner edge of the card's white rim, the other as far beyond on the neighbour's rim, so
        # the fit had the card's size 4-5 mm along from it; the rim's colour beyond that side
        # shows it lies inside the card.
        ("dark_cloth", 2000043, 11, "moved along by a rim's width"),
        # A back with a light rim on a white table: on the two lit sides the rim's inner edge is
        # clearer than the card's, on the two shadowed ones the shadow's far flank, so the fit
        # (60.8 x 85.7 mm) lay 3.5 mm inside the card on two adjacent sides; the rim, darkened
        # by the shadow on the other sides, showed it only up to a brightness factor.
        ("random", 2000093, 5, "on the rim on two adjacent sides"),
        # A back's rim merging into its shadow's penumbra in one soft ramp: fitted at the ramp's
        # steepest point the card was 65.4 mm wide; the ramp's foot is its edge, as its size says.
        ("random", 2000050, 4, "an edge at its ramp's foot"),
        # A grey-rimmed back on white in a frame with 5 px of motion blur: its edge and its
        # shadow's penumbra make ramps 3-5 px wide, whose steepest points lay 2-3 px beyond the
        # card (66.2 mm wide, more than a penumbra's worth); the card's edges lie on those ramps,
        # where its size puts them.
        pytest.param("random", 2000098, 7, "an edge on a blurred ramp", marks=OFF_EDGE),
    ],
)
def test_card_fitted_to_its_own_edges(cond: str, seed: int, card: int, what: str) -> None:
    e = _corner_errors_mm(cond, seed, card)
    # A side on the wrong line put two corners 3.5-10 mm off; the card's edges are fitted to a
    # few tenths of a mm in this view (bench corner RMS ~0.4 mm).
    assert e.max() < 1.5, f"{what}: corner errors {np.round(e, 2)} mm"


def test_gap_between_grey_backs_on_white() -> None:
    """Two face-down cards with grey rims on a white table, 64 mm apart: their edges merge into
    their shadows' penumbrae, and fitted 0.2-1 mm outside the cards on every side the gap came
    out 62.6 mm - a reach verdict the wrong way. The cards' known size puts the sides back."""
    cv2.setNumThreads(1)
    seed = 1072371
    frame = Renderer(CAM, random_conditions(seed)).render(random_scene(seed), seed)
    truth = {c["id"]: np.array(c["corners_mm"]) for c in frame.truth["cards"]}
    found = [c.corners_mm for c in MapCardDetector(table=TABLE).detect(frame.image)]

    def nearest(t: np.ndarray) -> np.ndarray:
        return min(found, key=lambda f: np.linalg.norm(f.mean(axis=0) - t.mean(axis=0)))

    true_gap = shapely.distance(shapely.Polygon(truth[4]), shapely.Polygon(truth[5]))
    gap = shapely.distance(shapely.Polygon(nearest(truth[4])), shapely.Polygon(nearest(truth[5])))
    assert true_gap > 63.5
    assert abs(gap - true_gap) < 0.8, f"gap {gap:.2f} mm, truly {true_gap:.2f} mm"
