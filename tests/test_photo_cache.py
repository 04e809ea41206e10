"""Rebuilding the real-photo cache from repository snapshots: a tiny bare repo made here, with
one large PNG, a broken file, and a row whose repository was never fetched."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.train.photos import main

HEADER = "image\trepo\tcommit\tpath\tlicence\tattribution\twidth\theight\tcards_by_eye\ttable\tview\tnotes\n"
ROOT = Path(__file__).resolve().parents[1]
# Fixed identity and no user config, so the commit works on any machine.
GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def _git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, text=True
    ).stdout.strip()


def _row(image: str, repo: str, commit: str, path: str, w: int, h: int) -> str:
    return f"{image}\t{repo}\t{commit}\t{path}\tMIT\tt\t{w}\t{h}\t1\twood\ttop-down\t\n"


@pytest.fixture
def snapshot(tmp_path: Path) -> tuple[Path, str]:
    """MIRRORS/alice+cards/repo.git: a bare repo whose one commit holds a 2400x1200 PNG of a card,
    a file that is not an image, and a LICENSE. Returns (mirrors, commit)."""
    work = tmp_path / "work"
    (work / "photos").mkdir(parents=True)
    img = np.full((1200, 2400, 3), (40, 90, 30), np.uint8)
    cv2.rectangle(img, (900, 300), (1500, 900), (235, 235, 235), -1)
    cv2.imwrite(str(work / "photos" / "table.png"), img)
    (work / "photos" / "broken.jpg").write_bytes(b"\xff\xd8 not really a jpeg")
    (work / "LICENSE").write_text("MIT License\n")
    _git("init", "-q", cwd=work)
    _git("add", ".", cwd=work)
    _git("commit", "-q", "-m", "photos", cwd=work)
    commit = _git("rev-parse", "HEAD", cwd=work)
    mirrors = tmp_path / "mirrors"
    (mirrors / "alice+cards").mkdir(parents=True)
    _git("clone", "-q", "--bare", str(work), str(mirrors / "alice+cards" / "repo.git"), cwd=tmp_path)
    return mirrors, commit


def test_a_snapshot_photo_is_shrunk_to_1600_and_checked(tmp_path: Path, snapshot, capsys) -> None:
    mirrors, commit = snapshot
    manifest = tmp_path / "SOURCES.tsv"
    manifest.write_text(
        HEADER + _row("alice__cards/photos_table.jpg", "alice/cards", commit, "photos/table.png", 1600, 800)
    )
    out = tmp_path / "cache"
    args = [
        "--mirrors",
        str(mirrors),
        "--out",
        str(out),
        "--manifest",
        str(manifest),
        "--shared",
        str(tmp_path / "none"),
    ]
    assert main(args) == 0
    written = out / "alice__cards" / "photos_table.jpg"
    assert written.read_bytes()[:2] == b"\xff\xd8"  # JPEG, whatever the original's format
    img = cv2.imread(str(written))
    assert img.shape == (800, 1600, 3)
    assert np.abs(img[400, 800].astype(int) - 235).max() < 8  # the card, not stretched off-centre
    assert (out / "alice__cards" / "LICENSE").read_text() == "MIT License\n"
    assert "alice__cards: 1 written, 0 missing" in capsys.readouterr().out
    assert main([*args, "--check"]) == 0


def test_missing_snapshot_bad_image_and_absent_commit_are_one_line_each(tmp_path: Path, snapshot) -> None:
    mirrors, commit = snapshot
    manifest = tmp_path / "SOURCES.tsv"
    manifest.write_text(
        HEADER
        + _row("bob__gone/a.jpg", "bob/gone", "0" * 40, "a.jpg", 100, 100)
        + _row("alice__cards/broken.jpg", "alice/cards", commit, "photos/broken.jpg", 100, 100)
        + _row("alice__cards/old.jpg", "alice/cards", "1" * 40, "photos/table.png", 1600, 800)
        + _row("alice__cards/wrong.jpg", "alice/cards", commit, "photos/table.png", 1200, 600)
    )
    out = tmp_path / "cache"
    cmd = [sys.executable, "-m", "vision.train.photos", "--mirrors", str(mirrors), "--out", str(out)]
    cmd += ["--manifest", str(manifest), "--shared", str(tmp_path / "none")]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, check=False)
    text = p.stdout + p.stderr
    assert p.returncode == 1
    assert "Traceback" not in text
    assert "bob__gone: 0 written, 1 missing; no snapshot of bob/gone" in text
    assert "fetch github:bob/gone" in text
    assert "alice__cards/broken.jpg: cannot decode photos/broken.jpg" in text
    assert "not in the snapshot: used HEAD" in text  # the absent commit fell back, and said so
    assert "alice__cards/wrong.jpg: size 1600x800, manifest says 1200x600" in text
    assert (out / "alice__cards" / "old.jpg").is_file()

    p = subprocess.run([*cmd, "--check"], cwd=ROOT, capture_output=True, text=True, check=False)
    assert p.returncode == 1 and "Traceback" not in p.stdout + p.stderr
    assert "bob__gone/a.jpg: missing" in p.stdout
    assert "alice__cards/wrong.jpg: size 1600x800, manifest says 1200x600" in p.stdout


def test_a_photo_the_shared_folder_keeps_needs_no_snapshot(tmp_path: Path, capsys) -> None:
    # Rows record the original repository; the project's copy is shared/<owner>_<name>/<file>.
    shared = tmp_path / "shared"
    (shared / "carol_set").mkdir(parents=True)
    cv2.imwrite(str(shared / "carol_set" / "deal.jpg"), np.full((1000, 2000, 3), 128, np.uint8))
    (shared / "carol_set" / "LICENSE").write_text("MIT\n")
    manifest = tmp_path / "SOURCES.tsv"
    manifest.write_text(
        HEADER + _row("carol__set/pics_deal.jpg", "carol/set", "2" * 40, "pics/deal.jpg", 1600, 800)
    )
    out = tmp_path / "cache"
    args = ["--mirrors", str(tmp_path / "no-mirrors"), "--out", str(out), "--manifest", str(manifest)]
    assert main([*args, "--shared", str(shared)]) == 0
    assert cv2.imread(str(out / "carol__set" / "pics_deal.jpg")).shape == (800, 1600, 3)
    assert (out / "carol__set" / "LICENSE").read_text() == "MIT\n"
    assert "licence from the shared folder" in capsys.readouterr().out


def test_a_row_can_name_a_frame_of_a_gif_and_a_crop_of_it(tmp_path: Path, capsys) -> None:
    # A GIF of three flat grey frames (60, 130, 200) of 64x48, with a white square at a different
    # place in each; rows take frame 2 whole and frame 1 cropped to its square.
    from PIL import Image

    work = tmp_path / "work"
    work.mkdir()
    frames = []
    for k, grey in enumerate((60, 130, 200)):
        a = np.full((48, 64, 3), grey, np.uint8)
        a[10:20, 5 + 20 * k : 15 + 20 * k] = 255
        frames.append(Image.fromarray(a))
    frames[0].save(work / "clip.gif", save_all=True, append_images=frames[1:], duration=100, loop=0)
    cv2.imwrite(str(work / "still #2.png"), np.full((20, 30, 3), 90, np.uint8))  # a '#' in a plain name
    (work / "LICENCE").write_text("MIT Licence\n")
    _git("init", "-q", cwd=work)
    _git("add", ".", cwd=work)
    _git("commit", "-q", "-m", "clip", cwd=work)
    commit = _git("rev-parse", "HEAD", cwd=work)
    mirrors = tmp_path / "mirrors"
    (mirrors / "dan+clips").mkdir(parents=True)
    _git("clone", "-q", "--bare", str(work), str(mirrors / "dan+clips" / "repo.git"), cwd=tmp_path)
    manifest = tmp_path / "SOURCES.tsv"
    manifest.write_text(
        HEADER
        + _row("dan__clips/clip_f2.jpg", "dan/clips", commit, "clip.gif#frame=2", 64, 48)
        + _row(
            "dan__clips/clip_f1_square.jpg", "dan/clips", commit, "clip.gif#frame=1&crop=25,10,10,10", 10, 10
        )
        + _row("dan__clips/clip_f9.jpg", "dan/clips", commit, "clip.gif#frame=9", 64, 48)
        + _row("dan__clips/still_2.jpg", "dan/clips", commit, "still #2.png", 30, 20)
    )
    out = tmp_path / "cache"
    args = ["--mirrors", str(mirrors), "--out", str(out), "--manifest", str(manifest)]
    assert main([*args, "--shared", str(tmp_path / "none")]) == 1  # frame 9 does not exist
    text = capsys.readouterr().out
    assert "dan__clips/clip_f9.jpg: no frame 9 (the file has 3)" in text
    f2 = cv2.imread(str(out / "dan__clips" / "clip_f2.jpg"))
    assert f2.shape == (48, 64, 3)
    assert abs(int(f2[40, 10, 1]) - 200) < 8 and f2[15, 50].min() > 235  # frame 2: grey 200, square right
    square = cv2.imread(str(out / "dan__clips" / "clip_f1_square.jpg"))
    assert square.shape == (10, 10, 3) and square.min() > 230  # frame 1's square, nothing else
    assert cv2.imread(str(out / "dan__clips" / "still_2.jpg")).shape == (20, 30, 3)
    assert (out / "dan__clips" / "LICENSE").read_text() == "MIT Licence\n"  # LICENCE spelling too
