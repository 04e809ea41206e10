"""The web view's latency: from a command sent to the referee to the browsers' DOM showing its
last event, on loopback, with 6 seat pages (/play) and 10 /table viewers in a headless chromium,
against the terminal client's own mirror (StateMirror, what `tabletop client` shows from) in the
same run. Goal: median <= 50 ms, p99 <= 150 ms.

    python -m bench.web [--commands N]

A game of The Plan for 6 seats, driven by legal random commands over plain connections; each
page writes down when each public seq first reached its DOM (window.seqShown, wall-clock ms, the
same clock as this process's time.time()).
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import threading
import time
from pathlib import Path

from bench.common import free_port_pair
from referee.client import Connection, StateMirror, updates_endpoint
from referee.games import GAMES
from referee.service import RefereeService
from referee.session import GameSession
from referee.store import EventStore
from web.app import Gateway
from web.server import WebServer, listen

SEATS = ["ann", "bob", "cat", "dan", "eve", "fay"]
TABLES = 10


def _stats(samples: list[float]) -> str:
    if not samples:
        return "no samples"
    ordered = sorted(samples)
    p99 = ordered[min(len(ordered) - 1, int(round(0.99 * (len(ordered) - 1))))]
    return f"median {statistics.median(ordered):6.1f} ms, p99 {p99:6.1f} ms ({len(ordered)} samples)"


def run(commands: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("bench.web needs Debian's chromium (apt-get install chromium)")
    tmp = Path(tempfile.mkdtemp(prefix="bench-web-"))
    port = free_port_pair()
    store = EventStore(tmp / "bench.sqlite")
    config = GAMES["theplan"].make_config(SEATS, {})
    session = GameSession.start("theplan", config, 17, store)
    service = RefereeService(session, f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.1:{port + 1}")
    threading.Thread(target=service.serve, daemon=True).start()
    sock = listen("127.0.0.1", 0)
    web = WebServer(
        Gateway(service.router_endpoint, f"http://127.0.0.1:{sock.getsockname()[1]}"), sock
    ).start()
    assert web.gateway.take_seats(15), "the gateway did not reach the referee"
    tokens = web.gateway.links.tokens()
    base = f"http://127.0.0.1:{web.port}"
    # The terminal client's view of the game: a StateMirror polled in its own thread.
    terminal: dict[int, float] = {}
    stop = threading.Event()

    def follow() -> None:
        mirror = StateMirror(service.router_endpoint, updates_endpoint(service.router_endpoint))
        while not stop.is_set():
            for seq, _ in mirror.poll(0.05):
                terminal.setdefault(seq, time.time() * 1000)
        mirror.close()

    threading.Thread(target=follow, daemon=True).start()
    drivers = {s: Connection(service.router_endpoint) for s in SEATS}
    for seat, conn in drivers.items():
        conn.join(seat, token=tokens[seat])
    sent: dict[int, float] = {}  # the last seq of each command -> when it was sent (ms)
    rnd = random.Random(3)
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        plays = [browser.new_page(viewport={"width": 390, "height": 844}) for _ in SEATS]
        tables = [browser.new_page(viewport={"width": 1280, "height": 800}) for _ in range(TABLES)]
        for page, seat in zip(plays, SEATS):
            page.goto(f"{base}/play/{tokens[seat]}")
        for page in tables:
            page.goto(f"{base}/table")
        pages = plays + tables
        for page in pages:
            page.wait_for_function("window.seqShown !== undefined", timeout=20_000)
        time.sleep(1.0)
        for _ in range(commands):
            state = drivers[SEATS[0]].request("snapshot")["state"]
            if state.get("result"):
                break
            options = [(s, o) for s in state["to_act"] for o in drivers[s].request("view")["view"]["you_can"]]
            if not options:
                break
            seat, choice = rnd.choice(options)
            fields = {k: v for k, v in choice.items() if k not in ("type", "player")}
            t0 = time.time() * 1000
            reply = drivers[seat].request(choice["type"], **fields)
            assert reply.get("ok"), reply
            sent[reply["seq"]] = t0
            # Let every page catch up before the next command, so each latency is one event's own.
            for page in pages:
                page.wait_for_function(
                    f"window.seqShown && window.seqShown[{reply['seq']}] !== undefined", timeout=20_000
                )
        shown = [page.evaluate("window.seqShown") for page in pages]
        browser.close()
    stop.set()
    web.stop()
    service.stop()
    service.close()
    store.close()
    out: dict[str, list[float]] = {"table": [], "play": [], "terminal": []}
    for index, times in enumerate(shown):
        kind = "play" if index < len(plays) else "table"
        out[kind] += [times[str(seq)] - t0 for seq, t0 in sent.items() if str(seq) in times]
    out["terminal"] = [terminal[seq] - t0 for seq, t0 in sent.items() if seq in terminal]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.web", description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=60, help="commands to time (default: %(default)s)")
    args = parser.parse_args(argv)
    result = run(args.commands)
    print(f"command -> shown, {len(SEATS)} seat pages + {TABLES} /table pages in chromium, loopback:")
    print(f"  web /table pages:          {_stats(result['table'])}")
    print(f"  web /play pages:           {_stats(result['play'])}")
    print(f"  terminal client (mirror):  {_stats(result['terminal'])}")
    web_all = result["table"] + result["play"]
    ratio = statistics.median(web_all) / max(statistics.median(result["terminal"]), 1e-3)
    print(f"  web / terminal median: {ratio:.1f}x   (goal for the web: median <= 50 ms, p99 <= 150 ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
