"""The command line contract: help, version, and one clear line with exit code 2 on bad usage."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tabletop.cli import build_parser, main

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabletop", *args], capture_output=True, text=True, timeout=120
    )


def test_help_lists_every_subcommand():
    out = run_cli("--help")
    assert out.returncode == 0
    subcommands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert subcommands, "no subcommands registered"
    for name in subcommands:
        assert name in out.stdout


@pytest.mark.slow  # spawns a process per subcommand
def test_every_subcommand_has_help(capsys):
    # In this process: one interpreter start per subcommand costs seconds and tests nothing more
    # (the console script itself is run by the tests around this one).
    subcommands = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    for name in subcommands:
        with pytest.raises(SystemExit) as exit_:
            main([name, "--help"])
        assert exit_.value.code == 0, name
        assert "usage:" in capsys.readouterr().out, name


def test_version():
    out = run_cli("--version")
    assert out.returncode == 0
    assert out.stdout.startswith("tabletop-referee ")


@pytest.mark.parametrize(
    "args", [["--no-such-flag"], ["no-such-command"], ["bench", "no-such-bench"], ["demo", "--camera", "x"]]
)
def test_bad_usage_exits_2_with_one_line_and_no_traceback(args):
    out = run_cli(*args)
    assert out.returncode == 2
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("tabletop: error:")
    assert "Traceback" not in out.stderr


def test_demo_says_what_it_will_do(capsys):
    # the demo itself runs end to end in tests/test_demo.py
    with pytest.raises(SystemExit) as exit_:
        main(["demo", "--help"])
    assert exit_.value.code == 0
    assert "sample_images" in capsys.readouterr().out


def test_geometry_benchmark_runs_and_prints_ratios(capsys):
    assert main(["bench", "geometry", "--quick"]) == 0
    out = capsys.readouterr().out
    assert "naive/build" in out
    assert "200" in out


def test_output_piped_into_a_reader_that_stops_early_is_no_error():
    # `tabletop detect ... | head -1`: the reader closes the pipe; we stop quietly (exit 0,
    # nothing on stderr), as other command-line tools do, not with "error: Broken pipe".
    # The pipe's read end is closed before the child starts, so its first write fails.
    frame = sorted((Path(__file__).parents[1] / "sample_images" / "frames").glob("*.jpg"))[0]
    r, w = os.pipe()
    os.close(r)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "tabletop", "detect", str(frame)],
            stdout=w,
            stderr=subprocess.PIPE,
            timeout=120,
        )
    finally:
        os.close(w)
    assert out.returncode == 0, out.stderr
    assert out.stderr == b""


def test_real_photo_benchmark_scores_a_folder_of_photos(tmp_path, capsys):
    # Any folder of photos will do (the real ones live outside the repository): a sample frame.
    frame = sorted((Path(__file__).parents[1] / "sample_images" / "frames").glob("*.jpg"))[0]
    (tmp_path / "table.jpg").write_bytes(frame.read_bytes())
    from bench.real_photos import main as bench_main

    assert bench_main(["--quick", "--photos", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "table.jpg" in out and "half size" in out and "ratios:" in out
    assert bench_main(["--photos", str(tmp_path / "none")]) == 2
    assert "no photos" in capsys.readouterr().out


# ---- issue 22.12-14: detect on folders and patterns, damaged photos, a wrong --faces file ------
FRAMES = Path(__file__).parents[1] / "sample_images" / "frames"


@pytest.fixture(scope="module")
def photo_folder(tmp_path_factory) -> Path:
    """Two small table photos, a note, and a sub-folder whose photo is not to be read."""
    import cv2

    root = tmp_path_factory.mktemp("photos")
    for name, frame in (("b.jpg", "frame_0000.jpg"), ("a.png", "frame_0040.jpg")):
        img = cv2.resize(cv2.imread(str(FRAMES / frame)), (960, 540))
        cv2.imwrite(str(root / name), img)
    (root / "notes.txt").write_text("not a photo")
    (root / "older").mkdir()
    (root / "older" / "c.jpg").write_bytes((root / "b.jpg").read_bytes())
    return root


def _images_read(stdout: str) -> list[str]:
    return [Path(json.loads(line)["image"]).name for line in stdout.splitlines() if line.startswith("{")]


def test_detect_reads_a_folder_and_a_pattern_the_shell_left_alone(photo_folder):
    out = run_cli("detect", "--json", str(photo_folder))
    assert out.returncode == 0, out.stderr
    assert _images_read(out.stdout) == ["a.png", "b.jpg"]  # sorted, images only, not older/
    out = run_cli("detect", "--json", str(photo_folder / "*.jpg"))  # no shell here: we expand it
    assert out.returncode == 0, out.stderr
    assert _images_read(out.stdout) == ["b.jpg"]
    for args, words in (
        ([str(photo_folder / "*.gif")], "no photos match"),
        ([str(photo_folder / "older" / "nothing")], "no such file or folder"),
        ([str(photo_folder.parent)], "holds no photos"),
    ):
        out = run_cli("detect", *args)
        err = out.stderr.strip().splitlines()
        assert out.returncode == 2 and len(err) == 1 and words in err[0] and "Traceback" not in err[0]


def test_a_jpeg_cut_short_is_reported_and_skipped_and_the_others_are_read(photo_folder, tmp_path):
    data = (photo_folder / "b.jpg").read_bytes()
    (tmp_path / "cut.jpg").write_bytes(data[: len(data) // 2])
    (tmp_path / "whole.jpg").write_bytes(data)
    (tmp_path / "tail.jpg").write_bytes(data + b"extra data a phone appends")  # no damage
    out = run_cli("detect", "--json", str(tmp_path))
    assert out.returncode == 2  # documented: 2 when any photo was damaged
    assert _images_read(out.stdout) == ["tail.jpg", "whole.jpg"]
    err = out.stderr.strip().splitlines()
    assert err == [f"tabletop: {tmp_path / 'cut.jpg'} is damaged or cut short (the JPEG ends early); skipped"]


def test_faces_that_are_no_face_library_are_a_clear_error(photo_folder):
    out = run_cli("detect", str(photo_folder / "b.jpg"), "--faces", str(photo_folder / "b.jpg"))
    err = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(err) == 1, err
    assert "is not a face library" in err[0] and "enroll-faces" in err[0]
    assert "pickle" not in err[0] and "Traceback" not in err[0]


# ---- issue 22.15: bench finds the shared photos from the clone's root and passes options on -----
def test_bench_real_photos_looks_beside_the_clone_and_takes_the_benchmarks_own_options(
    photo_folder, tmp_path
):
    clone, shared = tmp_path / "clone", tmp_path / "shared" / "real_photos"
    clone.mkdir()
    shared.mkdir(parents=True)
    (shared / "table.jpg").write_bytes((photo_folder / "b.jpg").read_bytes())
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])}

    def bench(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "tabletop", "bench", *args],
            cwd=clone,
            capture_output=True,
            text=True,
            timeout=300,
            env=env,
        )

    out = bench("--quick", "real_photos")
    assert out.returncode == 0, out.stderr
    assert f"1 photos under {shared}" in out.stdout and "table.jpg" in out.stdout
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(shared, elsewhere)
    out = bench("real_photos", "--quick", "--photos", str(elsewhere))  # passed on, not refused
    assert out.returncode == 0, out.stderr
    assert f"1 photos under {elsewhere}" in out.stdout
    out = bench("real_photos", "--photos", str(tmp_path / "none"))
    assert out.returncode == 2 and "no photos" in out.stdout


# ---- issue 22.16: an --out that names a file for a command that writes a folder ---------------
@pytest.mark.parametrize(
    "args, accepted",
    [
        (["demo", "--out", "y.gif"], "give a folder name"),
        (["display", "overview", "--out", "y.gif"], "NAME.mp4 / NAME.avi for one video file"),
    ],
)
def test_out_that_looks_like_a_file_is_refused_not_made_a_folder(tmp_path, args, accepted):
    out = subprocess.run(
        [sys.executable, "-m", "tabletop", *args],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
    )
    err = out.stderr.strip().splitlines()
    assert out.returncode == 2 and len(err) == 1, out.stderr
    assert "--out y.gif looks like a file name" in err[0] and accepted in err[0]
    assert not (tmp_path / "y.gif").exists()
