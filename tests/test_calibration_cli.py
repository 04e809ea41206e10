"""`tabletop calibrate ...` on folders of rendered photos, and the calibration file's validation."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from bench.calibration import (
    Scene,
    SimCamera,
    board_layer_on_table,
    intrinsics_views,
    page_layer,
    table_pose,
    table_texture,
)
from calibration import BoardPlacement, BoardSpec, Calibration, CalibrationError, load_calibration
from tabletop.cli import main

CAM = SimCamera(
    width=800, height=450, fx=667.0, fy=667.0, cx=400.7, cy=224.1, dist=(-0.1, 0.04, 0.0, 0.0, 0.0)
)


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    root = tmp_path_factory.mktemp("calib")
    layer, spec = page_layer("a4")
    (root / "views").mkdir()
    for i, img in enumerate(intrinsics_views(CAM, 7, 11, layer, spec)):
        cv2.imwrite(str(root / "views" / f"view_{i:02d}.png"), img)
    (root / "views" / "notes.txt").write_text("not a photo")
    rvec, tvec = table_pose(height_mm=700.0, tilt_deg=20.0, target_mm=(300.0, 250.0))
    place = BoardPlacement((100.0, 120.0), 0.0)
    cv2.imwrite(
        str(root / "table.png"),
        Scene(CAM, rvec, tvec, [table_texture(1), board_layer_on_table(layer, spec, place)], seed=3).render(),
    )
    layer97, _ = page_layer("a4", 0.97)
    cv2.imwrite(
        str(root / "table97.png"),
        Scene(
            CAM, rvec, tvec, [table_texture(1), board_layer_on_table(layer97, spec, place)], seed=3
        ).render(),
    )
    # The same 97 % print on a table as white as the paper: its edges cannot be seen.
    cv2.imwrite(
        str(root / "table97_white.png"),
        Scene(
            CAM, rvec, tvec, [board_layer_on_table(layer97, spec, place)], background=0.92, seed=3
        ).render(),
    )
    cv2.imwrite(str(root / "empty.png"), Scene(CAM, rvec, tvec, [table_texture(1)], seed=3).render())
    sharp = Scene(CAM, rvec, tvec, [table_texture(1), board_layer_on_table(layer, spec, place)], seed=3)
    cv2.imwrite(str(root / "blurred.png"), cv2.GaussianBlur(sharp.render(), (0, 0), 3))
    layer57, spec57 = page_layer("a4", board=BoardSpec((5, 7), 30.0, 22.0))
    cv2.imwrite(
        str(root / "board57.png"),
        Scene(
            CAM, rvec, tvec, [table_texture(1), board_layer_on_table(layer57, spec57, place)], seed=3
        ).render(),
    )
    (root / "corrupt.png").write_bytes(b"\x89PNG\r\n\x1a\nthis is not really a png")
    return root


def one_error_line(capsys) -> str:
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1, err
    assert err[0].startswith("tabletop: error:") and "Traceback" not in err[0]
    return err[0]


def test_a_group_calibrates_a_table_from_photos(photos, capsys, monkeypatch):
    monkeypatch.chdir(photos)
    assert main(["calibrate", "intrinsics", "views"]) == 0
    out = capsys.readouterr().out
    assert "reprojection error" in out and "coverage" in out
    assert re.search(r"views cover \d+ % of the image", out) and "lens views: " in out
    assert (
        main(["calibrate", "table", "table.png", "--origin", "100", "120", "--measured-square-mm", "25.1"])
        == 0
    )
    out = capsys.readouterr().out
    assert "print scale: 99." in out or "print scale: 100." in out
    assert main(["calibrate", "card-size", "--long", "89", "--short", "64"]) == 0
    assert main(["calibrate", "show", "--image-size", "800x450"]) == 0
    out = capsys.readouterr().out
    assert "reach 64.0 mm" in out and re.search(r"lens views: cover \d+ % of the image; ", out)
    data = json.loads((photos / "calibration.json").read_text())
    assert data["version"] == 1
    for key in (
        "image_size",
        "camera_matrix",
        "distortion",
        "image_to_table",
        "table_extent_mm",
        "card_mm",
        "corner_sigma_mm",
        "projector_size",
        "table_to_projector",
        "steps",
    ):
        assert key in data
    assert data["image_size"] == [800, 450] and data["card_mm"] == {"long": 89.0, "short": 64.0}
    assert {"intrinsics", "table", "card_size"} <= set(data["steps"]) and "date" in data["steps"]["table"]
    cal = load_calibration(photos / "calibration.json", image_size=(800, 450))
    assert abs(cal.camera_matrix[0, 0] / CAM.fx - 1) < 0.01
    # The board's bottom-left corner is where the user said: (100, 120) mm.
    rvec, tvec = table_pose(height_mm=700.0, tilt_deg=20.0, target_mm=(300.0, 250.0))
    seen = CAM.project(np.array([[100.0, 120.0, 0.0]]), rvec, tvec)
    assert np.abs(cal.pixels_to_table_mm(seen) - [100, 120]).max() < 0.5
    assert 0 < cal.corner_sigma_mm < 2 and cal.corner_sigma_mm_at(seen)[0] > 0

    # The camera now gives another size: a clear message, not wrong millimetres.
    assert main(["calibrate", "show", "--image-size", "1280x720"]) == 2
    assert "made for 800x450 images but the camera now gives 1280x720" in one_error_line(capsys)
    # A new lens calibration makes the table step stale until it is re-run.
    assert main(["calibrate", "intrinsics", "views"]) == 0
    capsys.readouterr()
    with pytest.raises(CalibrationError, match="table step was fitted before"):
        load_calibration(photos / "calibration.json")
    assert main(["calibrate", "show"]) == 2
    assert "run 'tabletop calibrate table' again" in one_error_line(capsys)


def test_board_printed_at_97_percent_is_refused_then_accepted_with_its_measured_size(
    photos, capsys, monkeypatch
):
    monkeypatch.chdir(photos)
    assert main(["calibrate", "table", "table97.png", "--calibration", "c97.json"]) == 2
    assert "printed at 9" in one_error_line(capsys)
    assert not (photos / "c97.json").exists()  # bad input changes nothing
    assert (
        main(
            [
                "calibrate",
                "table",
                "table97.png",
                "--calibration",
                "c97.json",
                "--measured-square-mm",
                "24.25",
            ]
        )
        == 2
    )
    assert "24.25 mm instead of 25 mm" in one_error_line(capsys)
    assert (
        main(
            [
                "calibrate",
                "table",
                "table97.png",
                "--calibration",
                "c97.json",
                "--measured-square-mm",
                "24.25",
                "--use-measured-size",
            ]
        )
        == 0
    )


def test_print_scale_is_never_left_unchecked_on_a_white_table(photos, capsys, monkeypatch):
    """Issue 25.2: a 97 % print on a table as white as paper was accepted, 23 mm RMS wrong."""
    monkeypatch.chdir(photos)
    table = [
        "calibrate",
        "table",
        "table97_white.png",
        "--origin",
        "100",
        "120",
        "--calibration",
        "white.json",
    ]
    assert main(table) == 2
    line = one_error_line(capsys)
    assert "print scale could not be checked" in line and "--measured-bar-mm" in line
    assert not (photos / "white.json").exists()
    # --use-measured-size without a measurement would take the board's size on trust.
    assert main([*table, "--use-measured-size"]) == 2
    assert "--use-measured-size needs your measurement" in one_error_line(capsys)
    # The ruler tells: the 100 mm bar measures 97 mm.
    assert main([*table, "--measured-bar-mm", "97"]) == 2
    assert "97 mm instead of 100 mm" in one_error_line(capsys)
    assert main([*table, "--measured-bar-mm", "97", "--use-measured-size"]) == 0
    capsys.readouterr()
    # With the measured size the table's scale is right (taken on trust it was 3 % off).
    cal = load_calibration(photos / "white.json", require=(), allow_stale=True)
    rvec, tvec = table_pose(height_mm=700.0, tilt_deg=20.0, target_mm=(300.0, 250.0))
    seen = CAM.project(np.array([[100.0, 120.0, 0.0], [400.0, 300.0, 0.0]]), rvec, tvec)
    a, b = cal.pixels_to_table_mm(seen)
    assert abs(np.linalg.norm(a - b) / np.linalg.norm([300, 180]) - 1) < 0.01


@pytest.mark.parametrize(
    "args, words",
    [
        (["calibrate", "table", "empty.png", "--calibration", "x.json"], "no calibration board found"),
        (["calibrate", "table", "corrupt.png", "--calibration", "x.json"], "not a readable image"),
        # issue 25.4: say why the board was not found
        (["calibrate", "table", "blurred.png", "--calibration", "x.json"], "too blurred (motion or focus)"),
        (
            ["calibrate", "table", "board57.png", "--calibration", "x.json"],
            "the board in view has 5 x 7 squares but the board spec says 7 x 9 squares of 25 mm",
        ),
        (["calibrate", "table", "missing.png"], "not found"),
        (
            ["calibrate", "intrinsics", "empty.png", "--calibration", "x.json"],
            "board was not found in any photo",
        ),
        (["calibrate", "show", "--calibration", "nothing.json"], "not found"),
        (["calibrate", "projector", "table.png", "--calibration", "nothing.json"], "not found"),
        (["calibrate", "projector-pattern", "--size", "big"], "must look like 1920x1080"),
        (["calibrate", "card-size", "--long", "88"], "or both --long MM and --short MM"),
    ],
)
def test_bad_input_is_one_clear_line(photos, capsys, monkeypatch, args, words):
    monkeypatch.chdir(photos)
    assert main(args) == 2
    assert words in one_error_line(capsys)


@pytest.mark.parametrize(
    "content, words",
    [
        ('{"version": 1, "image_size": [640, 48', "corrupt"),
        ("[1, 2]", "not a calibration"),
        ('{"image_size": [640, 480]}', "no 'version'"),
        ('{"version": 9, "image_size": [640, 480]}', "version 9"),
        ('{"version": 1}', "no image_size"),
        ('{"version": 1, "image_size": [640, 480], "image_to_table": [[1, 0], [0, 1]]}', "3 x 3"),
        (
            '{"version": 1, "image_size": [640, 480], "camera_matrix": [[1,0,0],[0,1,0],[0,0,1]]}',
            "both be present",
        ),
        ('{"version": 1, "image_size": [640, 480], "card_mm": {"long": 50, "short": 70}}', "not a card"),
    ],
)
def test_corrupt_or_incomplete_calibration_file_is_explained(tmp_path, capsys, content, words):
    path = tmp_path / "calibration.json"
    path.write_text(content)
    with pytest.raises(CalibrationError, match=words):
        load_calibration(path)
    assert main(["calibrate", "show", "--calibration", str(path)]) == 2
    assert words in one_error_line(capsys)


def test_a_step_the_caller_needs_is_named(tmp_path):
    path = tmp_path / "c.json"
    Calibration((640, 480)).save(path)
    with pytest.raises(CalibrationError, match="no table step yet: run 'tabletop calibrate table'"):
        load_calibration(path)
    with pytest.raises(CalibrationError, match="calibrate projector"):
        load_calibration(path, require=("projector",))
    assert load_calibration(path, require=()).effective_reach_mm == 63.0


def test_card_size_from_detect_json(photos, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(photos)
    Calibration((800, 450), image_to_table=np.eye(3)).save(tmp_path / "c.json")  # 1 px = 1 mm
    cards = [
        [[0, 0], [63.2, 0], [63.2, 88.1], [0, 88.1]],
        [[200, 0], [262.8, 0], [262.8, 87.9], [200, 87.9]],
        [[0, 200], [88, 200], [88, 263], [0, 263]],
    ]
    lines = [
        json.dumps(
            {
                "image": "a.png",
                "width": 800,
                "height": 450,
                "elapsed_ms": 1,
                "cards": [{"corners_px": c, "face": "down", "name": None, "score": 1} for c in cards],
                "pawns": [],
            }
        )
    ]
    (tmp_path / "cards.json").write_text("\n".join(lines) + "\n")
    assert (
        main(
            [
                "calibrate",
                "card-size",
                "--detections",
                str(tmp_path / "cards.json"),
                "--calibration",
                str(tmp_path / "c.json"),
                "--reach-mm",
                "60",
            ]
        )
        == 0
    )
    data = json.loads((tmp_path / "c.json").read_text())
    assert data["card_mm"]["short"] == pytest.approx(63.0, abs=0.2) and data["card_mm"][
        "long"
    ] == pytest.approx(88.0, abs=0.2)
    assert data["reach_mm"] == 60.0 and data["reach_source"] == "entered"
    (tmp_path / "bad.json").write_text("{not json")
    assert (
        main(
            [
                "calibrate",
                "card-size",
                "--detections",
                str(tmp_path / "bad.json"),
                "--calibration",
                str(tmp_path / "c.json"),
            ]
        )
        == 2
    )
    assert "not the JSON that 'tabletop detect --json' prints" in one_error_line(capsys)


def test_targets_and_projector_pattern_commands(tmp_path, capsys):
    assert main(["calibrate", "targets", "--out", str(tmp_path / "t"), "--paper", "letter"]) == 0
    assert (tmp_path / "t" / "board_letter.pdf").exists() and (tmp_path / "t" / "board_letter.json").exists()
    assert (
        main(["calibrate", "projector-pattern", "--size", "1280x720", "--out", str(tmp_path / "p.png")]) == 0
    )
    img = cv2.imread(str(tmp_path / "p.png"), cv2.IMREAD_GRAYSCALE)
    assert img.shape == (720, 1280)
    assert json.loads((tmp_path / "p.json").read_text())["size"] == [1280, 720]


def test_camera_that_does_not_exist_is_a_clear_error_without_traceback(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "tabletop",
            "calibrate",
            "table",
            "--camera",
            "97",
            "--calibration",
            str(tmp_path / "c.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert out.returncode == 2
    lines = [line for line in out.stderr.splitlines() if line.strip() and not line.startswith("[")]
    assert lines and lines[-1].startswith("tabletop: error: camera 97 could not be opened")
    assert "Traceback" not in out.stderr


def test_every_calibrate_step_has_help(capsys):
    for step in (
        "targets",
        "intrinsics",
        "table",
        "card-size",
        "projector-pattern",
        "projector",
        "projector-crosses",
        "projector-check",
        "show",
    ):
        with pytest.raises(SystemExit) as exc:
            main(["calibrate", step, "--help"])
        assert exc.value.code == 0
        assert "usage: tabletop calibrate " + step in capsys.readouterr().out


# ---- issue 22.11: the sample's board, board.json beside the photos, a spec for another board ----
REPO = Path(__file__).resolve().parents[1]


def _readme_sample_commands() -> list[str]:
    """The calibration walk-through's commands for the bundled sample, as the README gives them."""
    text = (REPO / "README.md").read_text()
    block = text.split("Try it on the bundled sample", 1)[1].split("```", 2)[1]
    lines = [line.strip() for line in block.splitlines() if line.strip().startswith("tabletop calibrate")]
    assert lines, "the README's sample walk-through lost its commands"
    return lines


@pytest.fixture(scope="module")
def sample_copy(tmp_path_factory):
    root = tmp_path_factory.mktemp("sample")
    shutil.copytree(REPO / "sample_images" / "charuco", root / "sample_images" / "charuco")
    return root


def _tabletop(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabletop", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )


def test_readme_walkthrough_on_the_sample_gives_the_demos_calibration(sample_copy):
    from referee.sample import SampleGame

    for line in _readme_sample_commands():
        done = _tabletop(sample_copy, *shlex.split(line)[1:])
        assert done.returncode == 0, done.stderr
        # the sample's board.json is picked up by itself, and said so
        assert "board.json found beside the photos (7 x 5 squares of 38 mm)" in done.stdout
        assert "None" not in done.stdout
    assert "print scale: 100." in done.stdout or "print scale: 99.9" in done.stdout
    cal_file = re.search(r"--calibration (\S+)", line).group(1)
    ours = load_calibration(sample_copy / cal_file)
    demo = SampleGame.load(REPO / "sample_images").calibrate()
    # The same pixels land on the same table millimetres (the table scale included).
    w, h = demo.image_size
    u, v = np.meshgrid(np.linspace(0.2, 0.8, 7) * w, np.linspace(0.3, 0.9, 7) * h)
    px = np.column_stack([u.ravel(), v.ravel()])
    a, b = ours.pixels_to_table_mm(px), demo.pixels_to_table_mm(px)
    assert np.abs(a - b).max() < 1.0
    span = np.linalg.norm(a[0] - a[-1]) / np.linalg.norm(b[0] - b[-1])
    assert abs(span - 1) < 0.002


def test_a_spec_for_another_board_is_refused_not_silently_used(sample_copy, tmp_path):
    photo = str(sample_copy / "sample_images" / "charuco" / "table_pose_1.jpg")
    standard = tmp_path / "standard.json"
    standard.write_text(
        json.dumps({"squares": [7, 9], "square_mm": 25, "marker_mm": 18, "dictionary": "DICT_5X5_100"})
    )
    # The sheet around the board shows its squares are 38 mm, not 25.
    done = _tabletop(tmp_path, "calibrate", "table", photo, "--board", str(standard))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "printed at 152" in done.stderr and "meant to be 38 mm" in done.stderr and "--board" in done.stderr
    assert not (tmp_path / "calibration.json").exists()
    # So does the ruler.
    done = _tabletop(
        tmp_path, "calibrate", "table", photo, "--board", str(standard), "--measured-square-mm", "38"
    )
    assert done.returncode == 2 and "meant to be 38 mm" in done.stderr
    # The sample's own board file, in OpenCV's names, is read as it is.
    board = str(sample_copy / "sample_images" / "charuco" / "board.json")
    done = _tabletop(tmp_path, "calibrate", "table", photo, "--board", board, "--origin", "467", "235")
    assert done.returncode == 0, done.stderr
    assert "None" not in done.stdout and "297 x 210 mm paper" in done.stdout
