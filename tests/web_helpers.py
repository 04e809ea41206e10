"""A real web gateway on loopback for the tests (uvicorn on an ephemeral port, in a thread),
and a headless Debian chromium driven by playwright - skipped, saying why, where there is none."""

from __future__ import annotations

import shutil
from contextlib import contextmanager

import pytest

from web.app import Gateway
from web.server import WebServer, listen

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 900}


@contextmanager
def running_gateway(router_endpoint: str, take_seats: bool = True, card_texts: dict | None = None):
    sock = listen("127.0.0.1", 0)
    port = sock.getsockname()[1]
    server = WebServer(Gateway(router_endpoint, f"http://127.0.0.1:{port}", card_texts), sock).start()
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
