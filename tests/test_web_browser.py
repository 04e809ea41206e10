"""The web view in a real browser (Debian's chromium, headless, driven by playwright) against a
real referee and gateway on real sockets: three phones play a whole game of The Plan and three
turns each of Master Plan (placements tapped on the table, jumps tapped on highlighted cards)
through the pages alone, while every WebSocket frame each browser receives is captured and
checked for other seats' secrets. Slow: a browser and hundreds of taps.

TABLETOP_SCREENSHOTS=DIR keeps the screenshots (phone /play, desktop /table) in DIR."""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest
from service_helpers import free_port_pair, running_referee
from web_helpers import DESKTOP, PHONE, assert_no_other_seats_secrets, browser, running_gateway

from referee.games import GAMES
from tabletop.commands.web import card_texts

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("processes")]
PlaywrightTimeout = pytest.importorskip("playwright.sync_api", reason="pip install playwright").TimeoutError
SEATS = ["ann", "bob", "cat"]


class Phone:
    """One browser page on a seat's link (or /table), with every message its socket received."""

    def __init__(self, context, url: str) -> None:
        self.page = context.new_page()
        self.frames: list[dict] = []
        self.errors: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        self.page.goto(url)

    def _frame(self, payload) -> None:
        self.frames.extend(json.loads(payload))  # a frame is a JSON array of messages

    def seq(self) -> int:
        return int(self.page.evaluate("document.body.dataset.seq || -1"))

    def idle(self) -> None:
        self.page.wait_for_function("document.body.dataset.pending === '0'", timeout=10_000)

    def buttons(self):
        return self.page.locator(".actions button:not([disabled]), .card button:not([disabled])")

    def tap_table(self, x_mm: float, y_mm: float) -> None:
        """Tap the table drawing at table millimetres (x, y): the inverse of the page's own mapping."""
        point = self.page.evaluate(
            """([x, y]) => {
                const svg = document.querySelector('svg.table');
                const vb = svg.viewBox.baseVal;
                const p = svg.createSVGPoint();
                p.x = x; p.y = 2 * vb.y + vb.height - y;
                const q = p.matrixTransform(svg.getScreenCTM());
                return [q.x, q.y];
            }""",
            [x_mm, y_mm],
        )
        self.page.mouse.click(point[0], point[1])


def _open_pages(chromium, web) -> tuple[Phone, dict[str, Phone]]:
    """/table on a desktop screen and each seat's link on its own phone (a context each)."""
    base = f"http://127.0.0.1:{web.port}"
    tokens = web.gateway.links.tokens()
    table = Phone(chromium.new_context(viewport=DESKTOP), f"{base}/table")
    phones = {
        s: Phone(chromium.new_context(viewport=PHONE, has_touch=True), f"{base}/play/{tokens[s]}")
        for s in SEATS
    }
    return table, phones


def _wait_until(predicate, page, timeout: float = 15.0, what: str = "") -> None:
    """Wait on `page` (playwright delivers the frames it captured only while it is called into,
    so a plain sleep would see none) until predicate() holds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(
                f"timed out waiting for {what}; the page shows: {page.locator('main').inner_text()[:3000]}"
            )
        page.wait_for_timeout(40)


def _latest_seq(table: Phone) -> int:
    return max((f["seq"] for f in list(table.frames) if f["kind"] in ("state", "snapshot")), default=-1)


def _latest_state(table: Phone) -> dict:
    frames = [f for f in list(table.frames) if f["kind"] in ("state", "snapshot")]
    assert frames, "the table page got no state"
    return frames[-1]["state"]


def _shoot(page, name: str, tmp_path: Path) -> Path:
    folder = Path(os.environ.get("TABLETOP_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 10_000  # a picture, not a blank
    return path


def test_three_phones_play_a_whole_game_of_the_plan_through_the_pages(tmp_path):
    config = GAMES["theplan"].make_config(SEATS, {"bribes": "yes"})
    rnd = random.Random(3)
    started = time.monotonic()
    with running_referee("theplan", config, tmp_path, port=free_port_pair()) as service:
        with running_gateway(service.router_endpoint) as web, browser() as chromium:
            table, phones = _open_pages(chromium, web)
            taps = 0
            while not table.page.locator(".result").count():
                acted = False
                for seat in rnd.sample(SEATS, len(SEATS)):
                    phone = phones[seat]
                    phone.idle()
                    buttons = phone.buttons()
                    # Counted once: the page may redraw (and hold fewer buttons) at any moment.
                    n = buttons.count()
                    if not n:
                        continue
                    before = table.seq()
                    try:  # the page may redraw between counting its buttons and the tap
                        buttons.nth(rnd.randrange(n)).click(timeout=2_000)
                    except PlaywrightTimeout:
                        continue
                    phone.idle()
                    if not phone.page.locator(".banner.error").count():
                        _wait_until(
                            lambda b=before: table.seq() > b, table.page, what="the table to show the move"
                        )
                    taps += 1
                    acted = True
                    break
                if not acted:
                    table.page.wait_for_timeout(50)
                assert taps < 500, "the game did not end"
            assert "won" in table.page.locator(".result").inner_text()
            table.page.wait_for_timeout(500)
            assert not any(p.errors for p in [table, *phones.values()]), [p.errors for p in phones.values()]
            print(f"\nThe Plan: {taps} taps in {time.monotonic() - started:.1f} s")
    assert_no_other_seats_secrets({s: p.frames for s, p in phones.items()}, table.frames)
    assert any(f["kind"] == "private" for f in phones["ann"].frames)


def _mp_config():
    return GAMES["masterplan"].make_config(["ann:Z-Mask", "bob:Dr. Badmahn", "cat:Plutonian Poacher"], {})


def test_three_turns_each_of_master_plan_with_placements_and_jumps_tapped_on_phones(tmp_path):
    started = time.monotonic()
    with running_referee("masterplan", _mp_config(), tmp_path, port=free_port_pair()) as service:
        with running_gateway(service.router_endpoint, card_texts=card_texts()) as web, browser() as chromium:
            table, phones = _open_pages(chromium, web)

            def state() -> dict:
                """The public state as the table page got it, once it is as new as every phone's."""
                newest = max(p.seq() for p in phones.values())
                _wait_until(lambda: _latest_seq(table) >= newest, table.page, what="the table to catch up")
                return _latest_state(table)

            placed = jumps = 0
            for turn in range(15):  # three turns each at least: a placement, then jumps where there are
                if turn >= 9 and placed >= 3 and jumps >= 3:
                    break
                seat = state()["current"]
                phone = phones[seat]
                phone.page.wait_for_selector(".turn.yours", timeout=10_000)
                mine = next(s for s in state()["table"] if seat in s["pawns"])
                xs = [c[0] for c in mine["corners"]]
                ys = [c[1] for c in mine["corners"]]
                if state()["step"] == "move" and any(m.get("allowed") for m in state()["moves"]):
                    target = phone.page.locator(".space.jump polygon")
                    phone.page.wait_for_selector(".space.jump", timeout=10_000)
                    assert "mm" in phone.page.locator(".jumps li").first.inner_text()  # gap and verdict shown
                    before = state()["players"]
                    target.first.click()
                    phone.idle()
                    _wait_until(lambda b=before: state()["players"] != b, phone.page, what="the jump")
                    jumps += 1
                    _resolve(phone, seat, state)
                if state()["current"] == seat and state()["step"] == "add" and not state()["game_over"]:
                    count = len(state()["table"])
                    phone.page.locator(".hand .card").first.click()
                    assert "tap the table" in phone.page.locator(".hint").first.inner_text()
                    # A free spot 10 mm from the card the pawn stands on: within reach.
                    phone.tap_table(*_free_spot(state()["table"], xs, ys))
                    phone.idle()
                    _wait_until(
                        lambda c=count: len(state()["table"]) > c, what="the placement", page=phone.page
                    )
                    placed += 1
                    if turn == 1:
                        _shoot(phone.page, "web-play-phone.png", tmp_path)
                _resolve(phone, seat, state, until_turn_ends=True)
            _wait_until(lambda: table.seq() == service.session.seq, table.page, what="the table to catch up")
            _shoot(table.page, "web-table-desktop.png", tmp_path)
            # The other sizes, to look at: /play on a desktop, /table on a phone.
            phones["ann"].page.set_viewport_size(DESKTOP)
            _shoot(phones["ann"].page, "web-play-desktop.png", tmp_path)
            table.page.set_viewport_size(PHONE)
            _shoot(table.page, "web-table-phone.png", tmp_path)
            assert not any(p.errors for p in [table, *phones.values()])
            print(f"\nMaster Plan: {placed} placements, {jumps} jumps in {time.monotonic() - started:.1f} s")
    assert placed >= 3 and jumps >= 3
    assert_no_other_seats_secrets({s: p.frames for s, p in phones.items()}, table.frames)
    # The table never learns a face-down card's name.
    for frame in table.frames:
        for space in (frame.get("state") or {}).get("table", []):
            assert space["face_up"] or space["name"] is None


def _free_spot(table: list[dict], xs: list[float], ys: list[float]) -> tuple[float, float]:
    """The centre of an upright 63 x 88 mm card 10 mm beside the card spanning xs, ys, on no other."""
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    candidates = [
        (cx, max(ys) + 54),
        (min(xs) - 41.5, cy),
        (max(xs) + 41.5, cy),
        (min(xs) - 41.5, max(ys) + 54),
        (max(xs) + 41.5, max(ys) + 54),
    ]
    for x, y in candidates:
        if all(
            x + 31.5 < min(c[0] for c in s["corners"]) - 1
            or x - 31.5 > max(c[0] for c in s["corners"]) + 1
            or y + 44 < min(c[1] for c in s["corners"]) - 1
            or y - 44 > max(c[1] for c in s["corners"]) + 1
            for s in table
        ):
            return x, y
    raise AssertionError("no free spot beside the pawn's card")


def _resolve(phone: Phone, seat: str, state, until_turn_ends: bool = False) -> None:
    """Answer what the referee waits for from this seat (a card's choice) by tapping its first
    button; with until_turn_ends, then end the steps (skip, draw) until the turn passes on."""
    for _ in range(20):
        s = state()
        if s["game_over"]:
            return
        waiting = s.get("waiting")
        mine = (waiting and waiting.get("player") == seat) or (until_turn_ends and s["current"] == seat)
        if not mine:
            return
        phone.idle()
        before = phone.seq()
        if waiting and waiting.get("for") == "report_positions":
            phone.tap_table(600, 400 + 100 * len(s["table"]))
        else:
            buttons = phone.page.locator(".actions button")
            _wait_until(lambda b=buttons: b.count() > 0, phone.page, what=f"{seat}'s options")
            buttons.first.click()
        phone.idle()
        _wait_until(
            lambda b=before: phone.seq() > b or phone.page.locator(".banner.error").count(),
            phone.page,
            what="the answer",
        )
    raise AssertionError(f"{seat}'s turn did not end")


def test_a_too_close_to_call_jump_asks_the_phone_for_the_measurement(tmp_path):
    """A card the camera placed with corner uncertainty lies 62.5 mm away: the page shows the jump in
    amber with its gap, and after the tap asks whether the card's short edge bridged the gap."""
    from referee.client import Connection

    config = GAMES["masterplan"].make_config(SEATS, {"close_calls": "ask"})
    with running_referee("masterplan", config, tmp_path, port=free_port_pair()) as service:
        with running_gateway(service.router_endpoint, card_texts=card_texts()) as web, browser() as chromium:
            table, phones = _open_pages(chromium, web)
            first = _latest_state_when_ready(table)["current"]
            for _ in range(3):  # the first round, reported over plain connections with the seats' tokens
                seat = _latest_state_when_ready(table)["current"]
                conn = Connection(service.router_endpoint)
                view = conn.join(seat, token=web.gateway.links.tokens()[seat])["view"]
                if seat == first:
                    start = next(s for s in view["table"] if s["space"] == f"start:{seat}")
                    x0, y0 = start["corners"][0][0], max(c[1] for c in start["corners"]) + 62.5
                    corners = [[x0, y0], [x0 + 63, y0], [x0 + 63, y0 + 88], [x0, y0 + 88]]
                    placed = conn.request(
                        "place_card", card=view["hand"][0]["card"], corners=corners, sigma_mm=1.0
                    )
                    assert placed["ok"], placed
                before = service.session.seq
                assert conn.request("draw")["ok"]
                conn.close()
                _wait_until(lambda b=before: _latest_seq(table) > b, table.page, what="the draw")
            phone = phones[first]
            phone.page.wait_for_selector(".space.jump.verdict-too_close_to_call", timeout=10_000)
            assert "62.5 mm, too close to call" in phone.page.locator(".jumps li").first.inner_text()
            phone.page.locator(".space.jump polygon").first.click()
            phone.page.wait_for_selector("button:has-text('Measured: within reach')", timeout=10_000)
            assert phone.page.locator("button:has-text('Measured: out of reach')").count() == 1
            phone.page.locator("button:has-text('Measured: within reach')").click()
            _wait_until(
                lambda: (
                    next(p for p in _latest_state(table)["players"] if p["name"] == first)["position"] == "S1"
                ),
                table.page,
                what="the pawn on S1",
            )


def test_a_phone_that_loses_its_socket_comes_back_to_the_current_state(tmp_path):
    import re

    config = GAMES["theplan"].make_config(SEATS, {})
    with running_referee("theplan", config, tmp_path, port=free_port_pair()) as service:
        with running_gateway(service.router_endpoint) as web, browser() as chromium:
            routes = []

            def relay(ws) -> None:  # between the page and the gateway, so the test can cut the line
                ws.connect_to_server()
                routes.append(ws)

            context = chromium.new_context(viewport=PHONE)
            context.route_web_socket(re.compile(r".*/ws/play/.*"), relay)
            ann = Phone(context, f"http://127.0.0.1:{web.port}/play/{web.gateway.links.tokens()['ann']}")
            table, phones = _open_pages(chromium, web)
            ann.page.wait_for_selector(".card button", timeout=10_000)
            routes[-1].close(code=4001, reason="the network dropped")
            ann.page.wait_for_selector("text=Reconnecting", timeout=5_000)
            # While ann is away, bob commits a Plan: ann's page must show it once back.
            phones["bob"].page.locator(".card button").first.click()
            phones["bob"].idle()
            _wait_until(lambda: len(routes) >= 2, ann.page, what="the page to reconnect")
            _wait_until(lambda: ann.seq() == service.session.seq, ann.page, what="ann's page to catch up")
            assert ann.page.locator("text=Reconnecting").count() == 0
            assert "committed" in ann.page.locator("tr[data-player=bob]").inner_text()
            ann.page.locator(".card button").first.click()  # and ann plays on
            ann.idle()
            assert ann.page.locator(".banner.error").count() == 0


def _latest_state_when_ready(table: Phone) -> dict:
    _wait_until(lambda: _latest_seq(table) >= 0, table.page, what="the table's first state")
    return _latest_state(table)


def _centre(corners: list[list[float]]) -> tuple[float, float]:
    return sum(c[0] for c in corners) / 4, sum(c[1] for c in corners) / 4


def test_a_switch_is_reported_from_the_phone_by_tapping_where_both_cards_lie_now(tmp_path):
    """Seed 11 deals ann a Switch. Everyone places a card above their start (ann her Switch) and
    bob and cat end their next turns over plain connections; ann's phone then jumps onto the
    Switch, chooses the two other cards, and taps where each of them lies after the swap."""
    from referee.client import Connection

    config = GAMES["masterplan"].make_config(SEATS, {})
    with running_referee("masterplan", config, tmp_path, seed=11, port=free_port_pair()) as service:
        with running_gateway(service.router_endpoint, card_texts=card_texts()) as web, browser() as chromium:
            table, phones = _open_pages(chromium, web)
            conns = {s: Connection(service.router_endpoint) for s in SEATS}
            views = {
                s: conn.join(s, token=web.gateway.links.tokens()[s])["view"] for s, conn in conns.items()
            }
            for turn in range(5):  # bob, cat, ann place; bob and cat then end their turns
                state = _latest_state_when_ready(table)
                seat = state["current"]
                assert seat != "ann" or turn == 2, state
                conn = conns[seat]
                if state["step"] == "move":
                    assert conn.request("skip_step")["ok"]
                if turn < 3:
                    start = next(s for s in views[seat]["table"] if s["space"] == f"start:{seat}")
                    x0 = start["corners"][0][0]
                    hand = conn.request("view")["view"]["hand"]
                    card = next(h for h in hand if (h["name"] == "Switch") == (seat == "ann"))
                    corners = [[x0, 98], [x0 + 63, 98], [x0 + 63, 186], [x0, 186]]
                    assert conn.request("place_card", card=card["card"], corners=corners)["ok"]
                before = service.session.seq
                assert conn.request("draw")["ok"]
                _wait_until(lambda b=before: _latest_seq(table) > b, table.page, what=f"{seat}'s draw")
            for conn in conns.values():
                conn.close()
            phone = phones["ann"]
            phone.page.wait_for_selector(".space.jump", timeout=10_000)
            phone.page.locator(".space.jump polygon").first.click()
            _wait_until(
                lambda: (_latest_state(table).get("waiting") or {}).get("for") == "choose_target",
                table.page,
                what="the Switch's choice",
            )
            spaces = {s["space"]: s for s in _latest_state(table)["table"]}
            a, b = sorted(s for s, space in spaces.items() if space["kind"] == "space" and not space["pawns"])
            phone.page.locator(f"button:has-text('Choose {a} and {b}')").click(timeout=10_000)
            phone.page.wait_for_selector(f"text=Tap where {a} lies now (1 of 2)", timeout=10_000)
            # The exact swap the referee lists is a button too, but the cards lie where they were put:
            # a little off from each other's old place. The hint follows the table's state and the
            # buttons the seat's own options, two messages that may reach the page apart: wait for both.
            swapped = f"button:has-text('{a} and {b} swapped')"
            phone.page.wait_for_selector(swapped, timeout=10_000)
            assert phone.page.locator(swapped).count() == 1
            (ax, ay), (bx, by) = _centre(spaces[a]["corners"]), _centre(spaces[b]["corners"])
            phone.tap_table(bx + 4, by - 3)
            phone.page.wait_for_selector(f"text=Tap where {b} lies now (2 of 2)", timeout=5_000)
            assert phone.page.locator(f"[data-ghost='{a}']").count() == 1
            before = _latest_seq(table)
            phone.tap_table(ax - 2, ay + 5)
            phone.idle()
            _wait_until(lambda: _latest_seq(table) > before, table.page, what="the swap")
            moved = {s["space"]: _centre(s["corners"]) for s in _latest_state(table)["table"]}
            assert moved[a] == pytest.approx((bx + 4, by - 3), abs=3)
            assert moved[b] == pytest.approx((ax - 2, ay + 5), abs=3)
            assert phone.page.locator(".banner.error").count() == 0
            assert not any(p.errors for p in [table, *phones.values()])


def test_a_physical_table_of_the_plan_is_reported_by_the_stewards_phone_and_played_on_the_phones(tmp_path):
    """mode=physical: the steward gets a link too; its page offers the pieces still face down as
    their printed faces (tap what was turned over) and each seat's Plan as a choice of the Plans
    not seen yet. Two turns: the steward reports, the players act on their phones between."""
    config = GAMES["theplan"].make_config(SEATS, {"mode": "physical"})
    rnd = random.Random(5)
    with running_referee("theplan", config, tmp_path, port=free_port_pair()) as service:
        with running_gateway(service.router_endpoint) as web, browser() as chromium:
            tokens = web.gateway.links.tokens()
            assert set(tokens) == {*SEATS, "steward"}
            table, phones = _open_pages(chromium, web)
            steward = Phone(
                chromium.new_context(viewport=PHONE, has_touch=True),
                f"http://127.0.0.1:{web.port}/play/{tokens['steward']}",
            )
            page = steward.page
            for turn in (1, 2):
                page.wait_for_selector("text=Treasures turned over: 0 of 5", timeout=15_000)
                assert page.locator("button[data-type=report_reveal][disabled]").count() == 1
                for what, wanted in (("treasures", 5), ("trinkets", 3)):
                    for n in range(wanted):
                        page.locator(f".reveal.{what} .pile button:not([disabled])").nth(n).click()
                    page.wait_for_selector(f".reveal.{what} .turned button >> nth={wanted - 1}")
                # Put one back and turn over another: what is reported is what is picked at the end.
                page.locator(".reveal.treasures .turned button").first.click()
                page.locator(".reveal.treasures .pile button:not([disabled])").last.click()
                picked = page.eval_on_selector_all(
                    ".reveal.treasures .turned button", "bs => bs.map(b => b.dataset.picked)"
                )
                if turn == 1:
                    _shoot(page, "web-steward-phone.png", tmp_path)
                page.locator("button[data-type=report_reveal]").click()
                steward.idle()
                _wait_until(lambda: _latest_state(table)["phase"] == "report_plans", page, what="the reveal")
                got = sorted(_latest_state(table)["face_up"]["treasures"])
                assert set(picked) <= set(got), (got, picked)  # what lay face up before stays
                for seat in SEATS:
                    select = page.locator(f"select[data-seat={seat}]")
                    # The table's feed can be ahead of the steward's page: wait for its choices.
                    page.wait_for_selector(
                        f"select[data-seat={seat}] option:not([value=''])", state="attached"
                    )
                    options = select.locator("option").evaluate_all(
                        "os => os.map(o => o.value).filter(v => v)"
                    )
                    select.select_option(rnd.choice(options))
                    page.locator(f"button[data-type=report_plan][data-seat={seat}]").click()
                    steward.idle()
                    assert page.locator(".banner.error").count() == 0, page.locator(
                        ".banner.error"
                    ).inner_text()
                    _wait_until(
                        lambda s=seat: (
                            _latest_state(table)["players"][s]["committed"]
                            or _latest_state(table)["phase"] != "report_plans"
                        ),
                        page,
                        what=f"{seat}'s Plan",
                    )
                # The players act on their phones until the steward is asked again (or the game ends).
                for _ in range(60):
                    _wait_until(
                        lambda: _latest_seq(table) >= service.session.seq, table.page, what="the table"
                    )
                    state = _latest_state(table)
                    if state["phase"] == "reveal" and state["turn_number"] > turn or state.get("result"):
                        break
                    acting = [s for s in state["to_act"] if s in phones]
                    if not acting:
                        table.page.wait_for_timeout(50)
                        continue
                    phone = phones[acting[0]]
                    phone.idle()
                    buttons = phone.buttons()
                    _wait_until(lambda b=buttons: b.count() > 0, phone.page, what=f"{acting[0]}'s options")
                    before = table.seq()
                    buttons.nth(rnd.randrange(buttons.count())).click()
                    phone.idle()
                    _wait_until(lambda b=before: table.seq() > b, table.page, what="the move")
                else:
                    raise AssertionError("the turn did not end")
            assert not any(p.errors for p in [table, steward, *phones.values()])
    # The steward's page gets the public feed and its own view only; the players' pages no secret.
    assert_no_other_seats_secrets(
        {**{s: p.frames for s, p in phones.items()}, "steward": steward.frames}, table.frames
    )


def test_a_pages_seq_counts_the_events_a_snapshot_brings_and_the_state_after_them():
    """The feed may snapshot between a command's events and the state after them: then the snapshot
    holds the state before them and the events in `recent`. The page's seq must count both, or it
    waits forever for events it will never be sent again (CI saw a reconnected phone stuck so)."""
    import functools
    import threading
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    from web.app import STATIC

    class Quiet(SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(STATIC))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with browser() as chromium:
            page = chromium.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/style.css")
            seqs = page.evaluate(
                """async () => {
                    const { PublicMirror } = await import("/net.js");
                    const event = (seq) => ({ kind: "event", seq, event: {}, words: `event ${seq}`, quiet: false });
                    const m = new PublicMirror(), seen = [];
                    m.apply({ kind: "snapshot", seq: 4, game: "theplan", state: { at: 4 }, recent: [event(4), event(5)] });
                    seen.push(m.seq, m.events.length);
                    seen.push(m.apply(event(5)), m.seq);
                    m.apply({ kind: "state", seq: 5, state: { at: 5 } });
                    seen.push(m.seq, m.state.at);
                    m.apply({ kind: "state", seq: 6, state: { at: 6 } }); // a quiet event's state alone
                    seen.push(m.seq);
                    m.apply({ kind: "snapshot", seq: 7, game: "theplan", state: { at: 7 }, recent: [] });
                    seen.push(m.seq, m.events.length);
                    return seen;
                }"""
            )
    finally:
        server.shutdown()
        server.server_close()
    assert seqs == [5, 2, False, 5, 5, 5, 6, 7, 0]
