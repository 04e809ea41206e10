"""Reading a 30 frames/s stream incrementally: the same answers as reading every frame whole,
checked against the renderer's truth, with work only where the table changed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vision.incremental import IncrementalReader
from vision.pipeline import FrameReader
from vision.synthetic import PRESETS, Camera, CameraPose, Card, Pawn, Renderer, Scene
from vision.synthetic.stream import table_stream
from vision.table import TableMap
from vision.tracker import Tracker, TrackerSettings

CAM = Camera.for_resolution("720p", pose=CameraPose(height_mm=750.0, tilt_deg=15.0, target_mm=(600.0, 400.0)))
TABLE = TableMap.from_homography(CAM.image_to_table)

START = Scene(
    cards=(
        Card(1, "Bomb", (470, 300), 8, True),
        Card(2, "Laser Gun", (610, 320), -15, False),
        Card(3, "Teleporter", (540, 470), 95, True),
        Card(4, "Switch", (720, 460), 180, False),
        Card(5, "Trapdoor", (420, 500), 0, False),
    ),
    pawns=(Pawn("p1", "red", (470, 300), 1), Pawn("p2", "blue", (540, 470), 3, "disc")),
)
PLACED = START.replace(cards=START.cards + (Card(6, "Rocket Boots", (760, 300), 30, True),))
JUMPED = PLACED.replace(
    pawns=(dataclasses.replace(PLACED.pawns[0], center_mm=(760, 300), on_card=6),) + PLACED.pawns[1:]
)
FLIPPED = JUMPED.replace(cards=tuple(c.flipped(True) if c.id == 5 else c for c in JUMPED.cards))


def _reader() -> FrameReader:
    return FrameReader(table=TABLE)


def _same(a, b) -> None:
    """Two readings of the same table agree: the same cards (corners within 1.5 px: the frames
    differ in their sensor noise, which moves a corner beside a pawn by up to ~1 px), faces,
    names and pawns."""
    assert len(a.cards) == len(b.cards)
    for x, y in zip(a.cards, b.cards):
        assert np.abs(np.array(x.corners_px) - np.array(y.corners_px)).max() < 1.5
        assert (x.face, x.name) == (y.face, y.name)
    assert sorted((p.color, p.card) for p in a.pawns) == sorted((p.color, p.card) for p in b.pawns)


@pytest.fixture(scope="module")
def stream():
    renderer = Renderer(CAM, PRESETS["green_felt"])
    return list(
        table_stream(renderer, [START, PLACED, JUMPED, FLIPPED], hold_frames=9, reach_frames=3, seed=4)
    )


def test_stream_read_incrementally_ends_as_a_whole_read(stream):
    full = _reader()
    inc = IncrementalReader(FrameReader(table=TABLE, faces=full.faces))
    tracker = Tracker(TrackerSettings(confirm_s=0.2))  # each table state is held 0.3 s
    events = []
    for f in stream:
        reading = inc.read(f.frame.image, f.time_s)
        events.extend(tracker.update(reading, f.frame.image, f.index, f.time_s).events)
    last = stream[-1].frame
    _same(inc.read(last.image, stream[-1].time_s + 1 / 30), full.read(last.image))
    # Every card of the final table, found where the renderer put it.
    truth = {c["id"]: np.array(c["corners_px"]) for c in last.truth["cards"]}
    final = inc.read(last.image, stream[-1].time_s + 2 / 30)
    assert len(final.cards) == len(truth) == 6
    for c in final.cards:
        assert min(np.abs(np.array(c.corners_px) - t).max() for t in truth.values()) < 1.0
    # The tracker, fed incrementally, saw what happened: nothing else.
    kinds = [(e.kind, e.name if e.kind != "pawn_moved" else e.pawn) for e in events]
    assert ("placed", "Rocket Boots") in kinds
    assert ("pawn_moved", "red") in kinds
    assert ("flipped", "Trapdoor") in kinds
    assert not any(k in ("removed", "moved") for k, _ in kinds)
    moved = [e for e in events if e.kind == "pawn_moved" and e.pawn == "red"][-1]
    placed = [e for e in events if e.kind == "placed" and e.name == "Rocket Boots"][0]
    assert moved.to_card == placed.card_id
    # Read again only after a change: the first frame, then a few reads per change (the hand
    # may rest over the table for a moment) - not the still frames in between.
    assert 4 <= inc.reads <= 12 < inc.frames


def test_still_table_is_not_read_again(stream):
    inc = IncrementalReader(_reader())
    holds = [f for f in stream if f.scene is START][:5]  # the first still frames, fresh noise each
    first = inc.read(holds[0].frame.image, holds[0].time_s)
    for f in holds[1:]:
        again = inc.read(f.frame.image, f.time_s)
        assert all(a is b for a, b in zip(again.cards, first.cards))  # the very same sightings
    assert inc.reads == 1


def test_moving_hand_waits_until_the_table_is_still(stream):
    inc = IncrementalReader(_reader())
    reach = [f for f in stream if f.frame.truth.get("hands")]
    inc.read(stream[0].frame.image, stream[0].time_s)
    for f in reach[:3]:  # the hand comes in: every frame differs from the one before
        inc.read(f.frame.image, f.time_s)
    assert inc.reads == 1


def test_new_frame_size_is_read_whole_and_bad_frames_are_refused(stream):
    inc = IncrementalReader(_reader())
    img = stream[0].frame.image
    inc.read(img)
    inc.read(np.ascontiguousarray(img[:, :-64]))
    assert inc.reads == 2
    with pytest.raises(ValueError, match="one flat colour"):
        inc.read(np.zeros((720, 1280, 3), np.uint8))
    with pytest.raises(ValueError, match="empty or not a picture"):
        inc.read(np.zeros((0, 0, 3), np.uint8))


def test_frame_map_small_copy_is_the_whole_undistorted_frame_averaged_down(stream):
    import cv2

    from vision.undistort import FrameMap

    raw = stream[0].frame.image
    k = np.array([[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]])
    fmap = FrameMap((1280, 720), k, np.array([-0.12, 0.05, 0.001, -0.001, 0.0]))
    whole = fmap.whole(raw)
    small = fmap.small(raw, 320).astype(float)
    ref = cv2.resize(whole, (320, 180), interpolation=cv2.INTER_AREA).astype(float)
    # The same picture averaged down either way (the raw frame averaged down is off by 1.4)
    assert np.mean(np.abs(small - ref)) < 1.0
    with pytest.raises(ValueError, match="calibrate this camera"):
        fmap.check(np.zeros((480, 640, 3), np.uint8))
