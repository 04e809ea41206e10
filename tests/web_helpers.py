"""A real web gateway on loopback for the tests (uvicorn on an ephemeral port, in a thread),
and a headless Debian chromium driven by playwright - skipped, saying why, where there is none."""

from __future__ import annotations

import json
import shutil
from contextlib import contextmanager

import pytest

from web.app import Gateway
from web.server import WebServer, listen

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


@contextmanager
def running_gateway(
    router_endpoint: str,
    take_seats: bool = True,
    card_texts: dict | None = None,
    keys=None,
    links_file=None,
    links_for_free_seats: bool = True,
):
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    gateway = Gateway(
        router_endpoint,
        f"http://127.0.0.1:{port}",
        card_texts,
        keys=keys,
        links_file=links_file,
        links_for_free_seats=links_for_free_seats,
    )
    server = WebServer(gateway, sock).start()
    try:
        if take_seats:
            assert server.gateway.take_seats(15), "the gateway never reached the referee"
        yield server
    finally:
        server.stop()


@contextmanager
def browser():
    """A headless chromium; the test skips when Debian's chromium or playwright is missing (CI
    installs chromium with apt; `playwright install` downloads are not used)."""
    if CHROMIUM is None:
        pytest.skip("no chromium on this machine: apt-get install chromium")
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install playwright)"
    )
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


PAGE_KINDS = {"status", "snapshot", "event", "state", "view", "private", "reply", "queued", "error"}


def assert_no_other_seats_secrets(seat_frames: dict[str, list[dict]], table_frames: list[dict]) -> None:
    """What every seat's page received, frame by frame, against the secrets of the others:
    - its views and private messages are its own seat's only;
    - what it got of the game's public feed is exactly what the /table page got (nothing rides along);
    - no other seat's committed Plan is named in a frame between its commit and the reveal (by the
      referee's seq; each seat's commit is the seq of its own private plan_committed message);
    - the table is sent no hand, no seat's view, no options."""
    public = {json.dumps(f, sort_keys=True) for f in table_frames if f["kind"] in ("event", "state")}
    reveals = sorted(
        f["seq"] for f in table_frames if f["kind"] == "event" and f["event"]["type"] == "plans_revealed"
    )
    commits = [
        (seat, f["event"]["plan"], f["seq"])
        for seat, frames in seat_frames.items()
        for f in frames
        if f["kind"] == "private" and f["event"].get("type") == "plan_committed"
    ]
    for seat, frames in seat_frames.items():
        assert {f["kind"] for f in frames} <= PAGE_KINDS
        for frame in frames:
            if frame["kind"] == "view":
                assert frame["seat"] == seat
                you = frame["view"].get("you")
                assert you == seat or (isinstance(you, dict) and you["player"] == seat)
            elif frame["kind"] == "private":
                assert frame["player"] == seat
            elif frame["kind"] in ("event", "state"):
                assert json.dumps(frame, sort_keys=True) in public, (
                    f"{seat} got a public frame the table did not"
                )
        for other, plan, committed in commits:
            if other == seat:
                continue
            revealed = min((s for s in reveals if s > committed), default=10**9)
            leaked = [f for f in frames if committed <= f.get("seq", -1) < revealed and plan in json.dumps(f)]
            assert not leaked, f"{seat} saw {other}'s committed {plan} before the reveal: {leaked[:1]}"
    for frame in table_frames:
        assert frame["kind"] in PAGE_KINDS - {"view", "private", "reply", "queued"}
        text = json.dumps(frame)
        assert '"hand": [' not in text and '"you_can"' not in text and '"known_face_down"' not in text
