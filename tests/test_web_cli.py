"""`tabletop web` and `tabletop referee --web` as a person runs them: real processes, real ports."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from service_helpers import free_port_pair, referee_args, start_referee_process

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")

LINK_RE = re.compile(r"^  (\w+): (http://\S+/play/(\S+))$", re.M)


@pytest.fixture(autouse=True)
def _state_folder(tmp_path, monkeypatch):
    """`tabletop web` keeps its links in the user's state folder: here the test's own."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))


def _free_port() -> int:
    return free_port_pair()


def _read_links(proc: subprocess.Popen, seats: int, timeout: float = 30.0) -> tuple[str, dict[str, str]]:
    """What the command printed up to its last seat link: (all of it, seat -> link)."""
    out = ""
    deadline = time.monotonic() + timeout
    while len(LINK_RE.findall(out)) < seats:
        assert time.monotonic() < deadline, f"no seat links printed: {out!r}"
        line = proc.stdout.readline()
        assert line or proc.poll() is None, f"it stopped: {out}{proc.stderr.read()}"
        out += line
    return out, {seat: link for seat, link, _ in LINK_RE.findall(out)}


@pytest.mark.slow
def test_tabletop_web_prints_a_link_per_seat_that_opens_the_seats_page(tmp_path):
    port, web_port = free_port_pair(), _free_port()
    referee = start_referee_process(tmp_path / "heist.sqlite", port, "--players", "ann,bob,cat")
    web = subprocess.Popen(
        [sys.executable, "-m", "tabletop", "web", "--connect", f"127.0.0.1:{port}", "--port", str(web_port),
         "--web-bind", "127.0.0.1", "--no-qr"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        out, links = _read_links(web, 3)
        assert sorted(links) == ["ann", "bob", "cat"] and f"http://127.0.0.1:{web_port}/table" in out
        assert "host page" in out
        with urllib.request.urlopen(links["bob"], timeout=5) as page:
            assert page.status == 200 and "play.js" in page.read().decode()
    finally:
        web.terminate()
        referee.kill()
        web.wait(10)
        referee.wait(10)


@pytest.mark.slow
def test_tabletop_referee_web_serves_the_web_view_beside_the_referee_with_qr_codes(tmp_path):
    port, web_port = free_port_pair(), _free_port()
    args = referee_args(tmp_path / "heist.sqlite", port, "--players", "ann,bob,cat", "--web", str(web_port),
                        "--web-bind", "127.0.0.1")  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, links = _read_links(proc, 3)
        assert "█" in out or "▀" in out  # the QR codes, drawn in the terminal
        with urllib.request.urlopen(f"http://127.0.0.1:{web_port}/table", timeout=5) as page:
            assert page.status == 200
        with urllib.request.urlopen(links["cat"], timeout=5) as page:
            assert page.status == 200
    finally:
        proc.terminate()
        proc.wait(10)


def test_bad_web_usage_is_one_line_and_exit_code_2(tmp_path):
    bad = subprocess.run(
        [sys.executable, "-m", "tabletop", "web", "--connect", "not an address"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2 and "is not a referee address" in bad.stderr and "Traceback" not in bad.stderr
    demo = subprocess.run(
        [sys.executable, "-m", "tabletop", "demo", "--web", "8080"], capture_output=True, text=True
    )
    assert demo.returncode == 2 and "--web goes with --camera" in demo.stderr
    port = _free_port()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", port))
        taken.listen(1)
        busy = subprocess.run(
            [sys.executable, "-m", "tabletop", "web", "--port", str(port), "--web-bind", "127.0.0.1"],
            capture_output=True, text=True, timeout=30,
        )  # fmt: skip
    assert busy.returncode == 2 and f"web port {port}" in busy.stderr and "Traceback" not in busy.stderr


@pytest.mark.slow
def test_a_secure_referee_with_web_acts_for_each_seat_with_its_key(tmp_path):
    from referee.keys import create_keys

    keydir = create_keys(tmp_path / "keys", ["ann", "bob", "cat", "display"])
    port, web_port = free_port_pair(), _free_port()
    args = referee_args(tmp_path / "heist.sqlite", port, "--players", "ann,bob,cat", "--secure", str(keydir),
                        "--web", str(web_port), "--web-bind", "127.0.0.1", "--no-qr")  # fmt: skip
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, links = _read_links(proc, 3)
        with urllib.request.urlopen(links["ann"], timeout=5) as page:
            assert page.status == 200
    finally:
        proc.terminate()
        proc.wait(10)


@pytest.mark.slow
def test_the_seat_links_survive_a_restart_of_the_web_view_by_default(tmp_path):
    """No --links: `tabletop web` keeps its tokens by the referee's address in the user's state
    folder (XDG_STATE_HOME), `tabletop referee --web` beside its --db; started again, each prints
    the same links (the referee --resume'd for the second), and a new game gets new ones."""
    port = free_port_pair()
    referee = start_referee_process(tmp_path / "heist.sqlite", port, "--players", "ann,bob,cat")
    web_args = [sys.executable, "-m", "tabletop", "web", "--connect", f"127.0.0.1:{port}", "--port",
                str(_free_port()), "--web-bind", "127.0.0.1", "--no-qr"]  # fmt: skip
    printed = []
    try:
        for _ in range(2):
            web = subprocess.Popen(web_args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                printed.append(
                    {seat: link.rsplit("/", 1)[1] for seat, link in _read_links(web, 3)[1].items()}
                )
            finally:
                web.terminate()
                web.wait(10)
    finally:
        referee.kill()
        referee.wait(10)
    assert printed[0] == printed[1] and sorted(printed[0]) == ["ann", "bob", "cat"]
    (kept,) = (tmp_path / "state" / "tabletop").iterdir()
    assert kept.stat().st_mode & 0o077 == 0 and printed[0]["ann"] in kept.read_text()

    db = tmp_path / "beside.sqlite"
    tokens = []
    for extra in (["--players", "ann,bob,cat"], ["--resume"], None):
        if extra is None:  # a new game in the same file: the old links must not open it
            for path in tmp_path.glob("beside.sqlite*"):
                if not path.name.endswith(".web-links"):
                    path.unlink()
            extra = ["--players", "ann,bob,cat"]
        args = referee_args(db, free_port_pair(), *extra, "--web", str(_free_port()), "--web-bind", "127.0.0.1",
                            "--no-qr")  # fmt: skip
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            tokens.append({seat: link.rsplit("/", 1)[1] for seat, link in _read_links(proc, 3)[1].items()})
        finally:
            proc.terminate()
            proc.wait(10)
    assert tokens[0] == tokens[1] and not set(tokens[2].values()) & set(tokens[0].values())
    assert Path(f"{db}.web-links").stat().st_mode & 0o077 == 0
