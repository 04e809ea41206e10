"""The projector lights the table around the cards while the camera watches it: its light must not
change what vision reads. A real game state's projector picture is cast onto a rendered table
(through a projector square above it) and the frame is read with and without that light, as the
referee's camera reads it: told where its own projector lights (`FrameVision.light`)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration import Calibration
from display.projector import render_projector
from referee.camera import LIGHT_CHANGE_S, FrameVision, TableWatcher
from tests.display_helpers import masterplan_state
from vision.synthetic import PRESETS, Camera, CameraPose, Card, Renderer, Scene
from vision.synthetic.scene import Projection

# The near half of the table: the starting cards, S1-S3 and the light around them (not the Trophy).
CAM = Camera.for_resolution("1080p", pose=CameraPose(height_mm=850.0, tilt_deg=5.0, target_mm=(330.0, 240.0)))
PROJECTOR = (1280, 960)
TABLE_MM = (1200.0, 900.0)


def _square_projector() -> tuple[Calibration, tuple[float, float, float, float]]:
    """The camera's calibration with a projector straight above the table, and the table
    rectangle (mm) its picture covers."""
    w, h = TABLE_MM
    k = min(PROJECTOR[0] / w, PROJECTOR[1] / h)
    ox, oy = (PROJECTOR[0] - k * w) / 2, (PROJECTOR[1] + k * h) / 2
    to_projector = np.array([[k, 0, ox], [0, -k, oy], [0, 0, 1]])
    cal = Calibration(
        image_size=(1920, 1080),
        image_to_table=CAM.image_to_table,
        projector_size=PROJECTOR,
        table_to_projector=to_projector,
    )
    return cal, (-ox / k, (oy - PROJECTOR[1]) / k, (PROJECTOR[0] - ox) / k, oy / k)


def _scene(state: dict) -> Scene:
    """The cards of `state` lying on the table where the game has them (face down)."""
    cards = []
    for i, s in enumerate(state["table"]):
        q = np.array(s["corners"], dtype=float)
        angle = math.degrees(math.atan2(*(q[1] - q[0])[::-1]))
        cards.append(Card(i, "Bomb", tuple(q.mean(axis=0)), angle, False))
    return Scene(cards=tuple(cards))


@pytest.mark.slow  # many rendered scenes, seconds each
@pytest.mark.parametrize(
    "preset",
    [
        "dark_cloth",
        "green_felt",
        "white",
        "wood",
    ],
)
def test_projector_light_does_not_change_what_the_camera_reads(preset):
    state, _ = masterplan_state()
    cal, extent = _square_projector()
    picture = render_projector(state, cal)
    assert picture.max() > 0  # ann has destinations: rings and the reach band are lit
    renderer = Renderer(CAM, PRESETS[preset])
    scene = _scene(state)
    dark = renderer.render(scene, seed=3)
    lit = renderer.render(scene.replace(projection=Projection(picture, extent, 0.8)), seed=3)
    assert np.abs(lit.image.astype(int) - dark.image.astype(int)).max() > 20  # the light shows
    vision = FrameVision(cal)
    light = vision.light(picture)
    assert light[np.abs(lit.image.astype(int) - dark.image).max(axis=2) > 20].all()  # all the light
    seen_dark, seen_lit = vision.reader.read(dark.image), vision.reader.read(lit.image, light)
    # A projector that is off (or shows nothing yet) where the referee thinks it lights: the same.
    seen_masked = vision.reader.read(dark.image, light)
    truth = [c for c in dark.truth["cards"] if c["visible_fraction"] > 0.99]
    assert len(truth) == len(state["table"]) - 1  # all but the Trophy are in view
    # Every card found in the dark is found in the light, nothing else is, and no corner moves by
    # more than 1.5 px (a ring lit 1 mm outside a card pulled it by up to ~3.5 px on white; the projector
    # now keeps display.projector.CLEARANCE_MM of dark around every card).
    assert len(seen_dark.cards) == len(truth) == len(seen_lit.cards) == len(seen_masked.cards)
    for c in seen_lit.cards + seen_masked.cards:
        q = np.array(c.corners_px)
        moved = min(
            np.linalg.norm(np.roll(q, r, axis=0) - np.array(d.corners_px), axis=1).max()
            for d in seen_dark.cards
            for r in range(4)
        )
        assert moved < 1.5


def test_the_camera_paints_out_the_light_of_each_state_the_referee_publishes():
    state, _ = masterplan_state()
    cal, _ = _square_projector()
    drawn = []

    def projector(s: dict) -> np.ndarray:
        drawn.append(s)
        return render_projector(s, cal)

    watcher = TableWatcher(cal, projector=projector)
    assert watcher.lit(0.0) is None  # nothing published yet: nothing lit
    watcher.show(7, state)
    rings = watcher.lit(0.0)
    assert rings.shape == (1080, 1920) and 0 < rings.mean() < 0.2
    watcher.show(7, state)  # the heartbeat publishes the same state again: not drawn again
    assert watcher.lit(0.3) is rings and len(drawn) == 1
    # The next state lights nothing; for a moment the projector may still show the rings.
    watcher.show(8, {**state, "moves": []})
    assert (watcher.lit(0.5) == rings).all()
    assert not watcher.lit(0.5 + LIGHT_CHANGE_S).any()
    assert len(drawn) == 2
    # Without a projector nothing is painted out.
    plain = TableWatcher(cal)
    plain.show(7, state)
    assert plain.lit(0.0) is None
    # A picture that cannot be drawn leaves the frames as they are (and says so in the log).
    watcher.projector = lambda s: render_projector({**s, "table": None}, cal)
    watcher.show(9, state)
    assert not watcher.lit(5.0).any()  # (for a moment, the picture before: nothing lit)
    assert watcher.lit(5.0 + LIGHT_CHANGE_S) is None
