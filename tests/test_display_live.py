"""Display clients against a real referee service on loopback: frames only on change, every
update applied, a seat's own view, the CLI headless and in a real X window under Xvfb."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import pytest

from display import style
from display.live import DisplayLoop, OverviewFeed, PlayerFeed
from display.sinks import FrameFolder, VideoFile
from referee.client import Connection, StateMirror
from referee.keys import create_keys
from tests.display_helpers import PLACEMENTS, free_port_pair, masterplan_config, running_referee

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")


def frames(folder: Path) -> list[Path]:
    return sorted(folder.glob("frame-*.png"))


def place(conns: dict[str, Connection], service, seat: str) -> None:
    """seat places its card of PLACEMENTS, then draws (through the seat's own connection)."""
    corners, sigma = PLACEMENTS[seat]
    card = conns[seat].request("view")["view"]["hand"][0]["card"]
    assert conns[seat].request("place_card", corners=corners, card=card, sigma_mm=sigma)["ok"]
    if service.session.public_state()["step"] == "add":
        assert conns[seat].request("skip_step")["ok"]
    assert conns[seat].request("draw")["ok"]


def step_until(loop: DisplayLoop, done, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not done() and time.monotonic() < deadline:
        loop.step(0.1)


def test_headless_overview_writes_a_frame_per_change_and_none_without(tmp_path):
    with running_referee("masterplan", masterplan_config(), tmp_path) as service:
        conns = {p: Connection(service.router_endpoint) for p in ("ann", "bob", "cat")}
        for seat, conn in conns.items():
            assert conn.join(seat)["ok"]
        mirror = StateMirror(service.router_endpoint, service.pub_endpoint)
        out = tmp_path / "frames"
        loop = DisplayLoop(OverviewFeed(mirror, (960, 540)), FrameFolder(out))
        assert loop.step(0.1)  # the snapshot is drawn at once
        assert len(frames(out)) == 1
        # Heartbeats (every 0.2 s here) repeat the same state: nothing is redrawn or written.
        quiet_until = time.monotonic() + 1.0
        while time.monotonic() < quiet_until:
            assert not loop.step(0.1)
        assert len(frames(out)) == 1

        place(conns, service, "ann")
        step_until(
            loop, lambda: mirror.seq == service.session.seq and mirror.state == service.session.public_state()
        )
        assert len(frames(out)) >= 2
        written = len(frames(out))

        # Several commands arrive while the display is busy: one step applies all, one picture.
        place(conns, service, "cat")
        place(conns, service, "bob")
        time.sleep(0.5)
        drawn = loop.pictures
        assert loop.step(0.1)
        assert loop.pictures == drawn + 1
        assert mirror.seq == service.session.seq
        assert mirror.state == service.session.public_state()
        assert len(frames(out)) == written + 1
        # The last frame is the overview of the referee's state: ann may jump to S1 (green).
        last = cv2.imread(str(frames(out)[-1]))
        assert last.shape == (540, 960, 3)
        assert (np.linalg.norm(last.astype(float) - style.VERDICT_BGR["legal"], axis=-1) < 30).sum() > 200
        mirror.close()
        for conn in conns.values():
            conn.close()


def test_player_view_comes_over_the_seats_own_connection(tmp_path):
    with running_referee("masterplan", masterplan_config(), tmp_path) as service:
        ann = Connection(service.router_endpoint)
        assert ann.join("ann")["ok"]
        mirror = StateMirror(service.router_endpoint, service.pub_endpoint)
        feed = PlayerFeed(mirror, ann, (800, 480))
        loop = DisplayLoop(feed, FrameFolder(tmp_path / "ann"))
        assert loop.step(0.1)
        truth = service.session.game.player_view("ann")
        assert feed.view["you"] == "ann"
        assert feed.view["hand"] == truth["hand"]
        # Nobody else's hand reaches this screen.
        others = {c["card"] for p in ("bob", "cat") for c in service.session.game.player_view(p)["hand"]}
        assert not others & {c["card"] for c in feed.view["hand"]}
        place({"ann": ann}, service, "ann")  # ann places a card and draws one: her view changes
        now = service.session.game.player_view("ann")
        step_until(loop, lambda: feed.view["hand"] == now["hand"])
        assert feed.view["hand"] == now["hand"] != truth["hand"]
        assert list(feed.view["known_face_down"]) == ["S1"]  # the card she placed, known to her alone
        assert len(frames(tmp_path / "ann")) >= 2
        mirror.close()
        ann.close()


def test_video_sink_holds_one_frame_per_distinct_picture(tmp_path):
    path = tmp_path / "overview.mp4"
    sink = VideoFile(path, fps=5)
    a = np.zeros((240, 320, 3), np.uint8)
    b = a.copy()
    b[:] = (0, 200, 0)
    for picture in (a, a, b, b, b, a):
        sink.show(picture)
    sink.close()
    cap = cv2.VideoCapture(str(path))
    count = 0
    while cap.read()[0]:
        count += 1
    assert count == sink.written == 3


# ---- the CLI -----------------------------------------------------------------------------------
def start_display(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "tabletop", "display", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def stop(proc: subprocess.Popen) -> tuple[str, str]:
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return out, err


def test_cli_without_a_display_runs_headless_and_says_so(tmp_path):
    port = free_port_pair()
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    with running_referee("masterplan", masterplan_config(), tmp_path, port=port):
        proc = start_display(["overview", "--connect", f"tcp://127.0.0.1:{port}"], env, tmp_path)
        folder = tmp_path / "tabletop-overview-frames"
        deadline = time.monotonic() + 20
        while not frames(folder) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        out, err = stop(proc)
    assert proc.returncode == 0, err
    assert "no display (DISPLAY is not set): running headless" in out
    assert len(frames(folder)) == 1


@pytest.mark.slow  # spawns a process per case
def test_cli_errors_are_one_clear_line(tmp_path):
    port = free_port_pair()
    cases = [
        (["overview", "--connect", f"tcp://127.0.0.1:{port}"], "no referee answers at"),
        (["projector", "--calibration", str(tmp_path / "none.json")], "no projector calibration"),
        (["player", "--connect", f"tcp://127.0.0.1:{port}"], "--player SEAT"),
        (["overview", "--size", "10x10"], "--size"),
    ]
    for args, words in cases:
        out = subprocess.run(
            [sys.executable, "-m", "tabletop", "display", *args], capture_output=True, text=True, timeout=60
        )
        lines = [line for line in out.stderr.splitlines() if line.strip()]
        assert out.returncode == 2, (args, out.stderr)
        assert len(lines) == 1 and words in lines[0], (args, out.stderr)


def test_cli_player_view_on_a_secure_referee_needs_the_seats_own_key(tmp_path):
    keydir = create_keys(tmp_path / "keys", ["ann", "bob", "cat"])
    port = free_port_pair()
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    secret = keydir / "secret"
    common = ["player", "--connect", f"tcp://127.0.0.1:{port}", "--server-key", str(keydir / "server.key")]
    with running_referee("masterplan", masterplan_config(), tmp_path, port=port, keydir=keydir):
        wrong = subprocess.run(
            [sys.executable, "-m", "tabletop", "display", *common, "--player", "ann", "--key", str(secret / "bob.key_secret")],
            capture_output=True, text=True, timeout=60, env=env,
        )  # fmt: skip
        assert wrong.returncode == 2 and wrong.stderr.startswith("tabletop: error: cannot show ann's view"), (
            wrong.stderr
        )
        assert not (tmp_path / "ann").exists()
        proc = start_display(
            [*common, "--player", "ann", "--key", str(secret / "ann.key_secret"), "--out", str(tmp_path / "ann")],
            env, tmp_path,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not frames(tmp_path / "ann") and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.1)
        out, err = stop(proc)
    assert proc.returncode == 0, err
    assert len(frames(tmp_path / "ann")) == 1


def _owns_display(proc: subprocess.Popen, n: int) -> bool:
    """Whether this Xvfb process is the server of display :n - the lock file holds the owner's pid,
    so a display started by another test run on the same machine is never mistaken for ours."""
    try:
        owner = int(Path(f"/tmp/.X{n}-lock").read_text().strip())
    except (OSError, ValueError):
        return False
    return owner == proc.pid and Path(f"/tmp/.X11-unix/X{n}").exists()


def start_xvfb() -> tuple[subprocess.Popen, int]:
    for n in range(70, 200):
        if Path(f"/tmp/.X11-unix/X{n}").exists() or Path(f"/tmp/.X{n}-lock").exists():
            continue
        proc = subprocess.Popen(
            ["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while proc.poll() is None and not _owns_display(proc, n) and time.monotonic() < deadline:
            time.sleep(0.05)
        if proc.poll() is None and _owns_display(proc, n):
            return proc, n
        # Another run took this number between our check and the server's start: try the next.
        proc.kill()
        proc.wait(10)
    raise RuntimeError("Xvfb did not start on any display number from :70 to :199")


@pytest.fixture
def xvfb():
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (apt-get install xvfb x11-apps imagemagick)")
    if shutil.which("xwd") is None or shutil.which("convert") is None:
        pytest.skip(
            "xwd and ImageMagick's convert are needed for the screenshot (apt-get install x11-apps imagemagick)"
        )
    proc, n = start_xvfb()
    try:
        yield f":{n}"
    finally:
        proc.terminate()
        proc.wait(10)


def screenshot(display: str, path: Path) -> np.ndarray:
    xwd = subprocess.run(
        ["xwd", "-root", "-silent", "-display", display], capture_output=True, timeout=20, check=True
    )
    subprocess.run(["convert", "xwd:-", str(path)], input=xwd.stdout, timeout=20, check=True)
    img = cv2.imread(str(path))
    assert img is not None, "the screenshot could not be read"
    return img


def test_overview_window_under_xvfb_shows_the_table(tmp_path, xvfb):
    port = free_port_pair()
    env = dict(os.environ, DISPLAY=xvfb)
    with running_referee("masterplan", masterplan_config(), tmp_path, port=port) as service:
        conns = {p: Connection(service.router_endpoint) for p in ("ann", "bob", "cat")}
        for seat, conn in conns.items():
            assert conn.join(seat)["ok"]
        for seat in ("ann", "cat", "bob"):
            place(conns, service, seat)
        proc = start_display(
            ["overview", "--connect", f"tcp://127.0.0.1:{port}", "--size", "1024x600"], env, tmp_path
        )
        try:
            shot = None
            deadline = time.monotonic() + 60  # it stops at the first whole picture; a loaded machine is slow
            while time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.5)
                shot = screenshot(xvfb, tmp_path / "screen.png")
                # The window manager-less X server may show a window half painted for a moment:
                # wait until the whole picture is there (or time runs out and the asserts say why).
                if all(n > need for n, need in zip(_table_pixels(shot), (100_000, 300, 200))):
                    break
        finally:
            out, err = stop(proc)
            for conn in conns.values():
                conn.close()
    assert proc.returncode == 0, err
    assert "showing window 'tabletop overview'" in out
    assert shot is not None
    # On the screen: the felt of the table, the Trophy in gold, and S1's legal-green highlight.
    felt, gold, green = _table_pixels(shot)
    assert felt > 100_000
    assert gold > 300
    assert green > 200


def _table_pixels(shot: np.ndarray) -> tuple[int, int, int]:
    """Pixels of the table's felt, the Trophy's gold and the legal-green highlight."""
    px = shot.astype(float)
    felt = np.linalg.norm(px - style.FELT, axis=-1) < 12
    gold = np.linalg.norm(px - style.TROPHY, axis=-1) < 30
    green = np.linalg.norm(px - style.VERDICT_BGR["legal"], axis=-1) < 30
    return int(felt.sum()), int(gold.sum()), int(green.sum())
