"""`tabletop demo` end to end on the first frames of the bundled sample game, checked against
its script (sample_images/script.json), and the CLI's errors for the camera options."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from referee.session import GameSession
from referee.store import EventStore
from tabletop.cli import main as cli_main

SAMPLES = Path(__file__).resolve().parents[1] / "sample_images"
FRAMES = 20  # setup and Monster Nash's first turn: two cards placed, then he draws (frame 17)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    out = tmp_path_factory.mktemp("demo")
    code = cli_main(
        ["demo", "--samples", str(SAMPLES), "--frames", str(FRAMES), "--out", str(out), "--no-window"]
    )
    return out, code


def _script() -> dict:
    return json.loads((SAMPLES / "script.json").read_text())


def test_demo_summary_matches_the_script(demo: tuple[Path, int]) -> None:
    out, code = demo
    assert code == 0
    summary = json.loads((out / "summary.json").read_text())
    script = _script()
    # every placement the script finished (and the camera could confirm) inside the frames run
    expected = [
        e["player"] for e in script["entries"] if e["type"] == "place_card" and e["frames"][1] + 1 < FRAMES
    ]
    assert [p["player"] for p in summary["placements"]] == expected == ["Monster Nash", "Monster Nash"]
    # the players' own commands (Nash ends his Add step and draws) were all accepted
    said = [(c["command"]["type"], c["command"]["player"]) for c in summary["player_commands"]]
    assert said == [("skip_step", "Monster Nash"), ("draw", "Monster Nash")]
    assert all(c["reply"]["ok"] for c in summary["player_commands"])
    assert summary["falls"] == [] and summary["winner"] is None and summary["jumps"] == []


def test_demo_outputs(demo: tuple[Path, int]) -> None:
    out, _ = demo
    video = cv2.VideoCapture(str(out / "overview.mp4"))
    frames = 0
    while video.read()[0]:
        frames += 1
    assert frames == FRAMES
    # H.264 (browsers play it), not MPEG-4 part 2.
    av = pytest.importorskip("av")
    with av.open(str(out / "overview.mp4")) as container:
        assert container.streams.video[0].codec_context.name == "h264"
    projector = cv2.imread(str(out / "projector.png"))
    assert projector is not None and projector.shape[:2] == (960, 1280)  # the demo's virtual projector
    # the event file is a real game: it replays to the same public state
    store = EventStore(out / "game.sqlite")
    try:
        state = GameSession.resume(store).public_state()
    finally:
        store.close()
    assert state["current"] == "Ms. Fyre" and state["step"] == "add"
    assert [t["space"] for t in state["table"] if t["kind"] == "space"] == ["S5", "S6"]
    # the calibration came from the sample's ChArUco photos through the calibration API
    cal = json.loads((out / "calibration.json").read_text())
    assert cal["steps"]["table"]["holdout_rms_mm"] < 0.5


def test_demo_without_samples_says_where_it_looked(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = cli_main(["demo", "--samples", str(tmp_path / "nowhere"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "sample game" in err[0]


def test_referee_camera_without_calibration(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = cli_main(
        [
            "referee",
            "--game",
            "masterplan",
            "--players",
            "A:Z-Mask,B:Ms. Fyre,C:Monster Nash",
            "--images",
            str(SAMPLES / "frames"),
            "--calibration",
            str(tmp_path / "missing.json"),
            "--db",
            str(tmp_path / "g.sqlite"),
        ]
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "calibrat" in err[0]


def test_referee_camera_refuses_the_plan(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = cli_main(
        ["referee", "--game", "theplan", "--players", "A,B,C", "--images", str(SAMPLES / "frames")]
    )
    assert code == 2 and "Master Plan" in capsys.readouterr().err
