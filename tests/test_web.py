"""The web gateway at the WebSocket level, against a real referee on real sockets: a whole game
played by three seat pages, every frame each page received checked for other seats' secrets; bad
links, a revoked link, junk floods, a gateway started before its referee. (The same in a real
browser: tests/test_web_browser.py.)"""

from __future__ import annotations

import json
import random
import threading
import time
import urllib.error
import urllib.request

import pytest
from service_helpers import free_port_pair, running_referee
from web_helpers import assert_no_other_seats_secrets, running_gateway
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from referee.client import Connection
from referee.games import GAMES
from web.app import MAX_PAGES_PER_LINK
from web.channel import MAX_WAITING

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")

SEATS = ["ann", "bob", "cat"]


class WsPage:
    """A page's socket: every message it receives is kept (a frame is an array of them), with the
    time it came."""

    def __init__(self, url: str) -> None:
        self.ws = connect(url, open_timeout=5, max_size=None).__enter__()  # closed by close()
        self.frames: list[tuple[float, dict]] = []
        self.closed_code: int | None = None
        self._n = 0
        self._cv = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            while True:
                raw = self.ws.recv()
                batch = json.loads(raw)
                assert isinstance(batch, list), f"a frame is a JSON array of messages, not {raw[:80]}"
                with self._cv:
                    self.frames.extend((time.monotonic(), message) for message in batch)
                    self._cv.notify_all()
        except ConnectionClosed:
            pass
        finally:
            with self._cv:
                self.closed_code = self.ws.close_code or 1006
                self._cv.notify_all()

    def wait(self, pred, timeout: float = 10.0) -> dict:
        """The first frame (any, from the start) for which pred is true."""
        deadline = time.monotonic() + timeout
        with self._cv:
            while True:
                for _, frame in self.frames:
                    if pred(frame):
                        return frame
                left = deadline - time.monotonic()
                if left <= 0 or self.closed_code is not None:
                    raise AssertionError(
                        f"no such frame in {timeout} s; last: {[f['kind'] for _, f in self.frames[-5:]]}"
                    )
                self._cv.wait(left)

    def latest(self, kind: str) -> dict | None:
        with self._cv:
            return next((f for _, f in reversed(self.frames) if f["kind"] == kind), None)

    def command(self, command: dict, timeout: float = 10.0) -> dict:
        self._n += 1
        rid = f"t{self._n}"
        self.ws.send(json.dumps({"id": rid, "command": command}))
        return self.wait(lambda f: f.get("id") == rid and f["kind"] in ("reply", "error"), timeout)

    def close(self) -> None:
        self.ws.close()


def _url(web, path: str) -> str:
    return f"ws://127.0.0.1:{web.port}{path}"


def _get(web, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{web.port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _theplan(tmp_path, **options):
    config = GAMES["theplan"].make_config(SEATS, options)
    return running_referee("theplan", config, tmp_path, port=free_port_pair())


def _fresh_view(page: WsPage, seq: int) -> dict:
    """The seat's view once it has caught up with public seq `seq`."""
    return page.wait(lambda f: f["kind"] == "view" and f["seq"] >= seq and f is page.latest("view"))["view"]


def _someone_to_act(state: dict, seq: int, pages: dict, table=None) -> tuple[str, list]:
    """A seat that is to act and its options, from views at least as new as `seq`."""
    deadline = time.monotonic() + 5
    while True:
        offered = {s: _fresh_view(pages[s], seq)["you_can"] for s in state["to_act"]}
        seat = next((s for s in state["to_act"] if offered[s]), None)
        if seat is not None:
            return seat, offered[seat]
        latest = {s: (pages[s].latest("view")["seq"], pages[s].latest("view")["view"]["step"]) for s in pages}
        assert time.monotonic() < deadline, (
            f"{state['to_act']} are to act but were offered nothing",
            latest,
            seq,
            [
                (f["kind"], f.get("seq"), f.get("words"), f.get("state", {}).get("to_act"))
                for _, f in table.frames[-12:]
            ],
        )
        time.sleep(0.1)


def test_three_seat_pages_play_a_whole_game_of_the_plan_and_never_see_another_seats_secrets(tmp_path):
    rnd = random.Random(5)
    with _theplan(tmp_path, bribes="yes") as service, running_gateway(service.router_endpoint) as web:
        tokens = web.gateway.links.tokens()
        assert sorted(tokens) == SEATS
        table = WsPage(_url(web, "/ws/table"))
        pages = {seat: WsPage(_url(web, f"/ws/play/{tokens[seat]}")) for seat in SEATS}
        moves = 0
        while True:
            state = table.wait(lambda f: f["kind"] == "state" or f["kind"] == "snapshot")
            seq = max(f["seq"] for _, f in table.frames if f["kind"] in ("state", "snapshot"))
            state = next(
                f for _, f in reversed(table.frames) if f["kind"] in ("state", "snapshot") and f["seq"] == seq
            )["state"]
            if state["result"]:
                break
            seat, options = _someone_to_act(state, seq, pages, table)
            choice = rnd.choice(options)
            reply = pages[seat].command(choice)
            assert reply["kind"] == "reply" and reply["ok"], reply
            table.wait(lambda f, s=seq: f["kind"] == "state" and f["seq"] > s)
            moves += 1
            assert moves < 400, "the game did not end"
        assert state["result"]["winners"]
        time.sleep(0.3)
        for page in [table, *pages.values()]:
            page.close()
    assert_no_other_seats_secrets(
        {seat: [f for _, f in page.frames] for seat, page in pages.items()}, [f for _, f in table.frames]
    )
    assert any(f["kind"] == "private" for _, f in pages["ann"].frames)  # the check had secrets to find


def test_a_command_the_rules_refuse_is_answered_in_words_and_a_page_cannot_act_for_another_seat(tmp_path):
    with _theplan(tmp_path) as service, running_gateway(service.router_endpoint) as web:
        ann = WsPage(_url(web, f"/ws/play/{web.gateway.links.tokens()['ann']}"))
        view = ann.wait(lambda f: f["kind"] == "view")["view"]
        refused = ann.command({"type": "commit_plan", "plan": "not-a-plan"})
        assert not refused["ok"] and "not-a-plan" in refused["error"]["message"]
        other = ann.command({"type": "commit_plan", "player": "bob", "plan": view["you"]["hand"][0]})
        assert not other["ok"] and other["error"]["code"] == "not_your_seat"
        service_words = ann.command({"type": "new_token"})
        assert service_words["kind"] == "error" and "not a command of the game" in service_words["message"]
        table = WsPage(_url(web, "/ws/table"))
        table.wait(lambda f: f["kind"] == "snapshot")
        table.ws.send(json.dumps({"id": "x", "command": {"type": "skip_step"}}))
        assert "table's view" in table.wait(lambda f: f["kind"] == "error")["message"]
        ann.close()
        table.close()


def test_bad_links_get_a_page_that_says_so_and_a_closed_socket(tmp_path):
    with _theplan(tmp_path) as service, running_gateway(service.router_endpoint) as web:
        status, body = _get(web, "/play/not-a-token")
        assert status == 404 and "This seat link does not work" in body and "Traceback" not in body
        status, body = _get(web, "/host/guess")
        assert status == 404 and "Seat links" not in body
        page = WsPage(_url(web, "/ws/play/not-a-token"))
        refusal = page.wait(lambda f: f["kind"] == "refused")
        assert "does not work" in refusal["message"]
        deadline = time.monotonic() + 5
        while page.closed_code is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert page.closed_code == 4403
        status, body = _get(web, f"/play/{web.gateway.links.tokens()['ann']}")
        assert status == 200 and "play.js" in body


def test_a_revoked_link_stops_working_at_once_and_the_new_one_works(tmp_path):
    with _theplan(tmp_path) as service, running_gateway(service.router_endpoint) as web:
        old = web.gateway.links.tokens()["ann"]
        page = WsPage(_url(web, f"/ws/play/{old}"))
        page.wait(lambda f: f["kind"] == "view")
        # The referee's own token works from a terminal too: it is one mechanism.
        terminal = Connection(service.router_endpoint)
        assert terminal.join("ann", token=old)["ok"]
        host = web.gateway.host_link().removeprefix(f"http://127.0.0.1:{web.port}")
        status, body = _get(web, host)
        assert status == 200 and old in body and "<svg" in body  # the link and its QR code
        request = urllib.request.Request(
            f"http://127.0.0.1:{web.port}{host}/renew/ann", method="POST", data=b""
        )
        with urllib.request.urlopen(request, timeout=10) as r:
            assert r.status == 200  # back on the host page, after the 303
            assert old not in r.read().decode()
        new = web.gateway.links.tokens()["ann"]
        assert new != old
        assert "revoked" in page.wait(lambda f: f["kind"] == "refused")["message"]
        assert _get(web, f"/play/{old}")[0] == 404
        # The terminal that joined with the old token is cut off, and cannot join again with it.
        assert terminal.request("view")["error"]["code"] == "not_joined"
        assert Connection(service.router_endpoint).join("ann", token=old)["error"]["code"] == "bad_token"
        fresh = WsPage(_url(web, f"/ws/play/{new}"))
        assert fresh.wait(lambda f: f["kind"] == "view")["seat"] == "ann"
        fresh.close()


def test_junk_and_floods_on_a_socket_are_answered_and_never_stop_the_gateway(tmp_path):
    with _theplan(tmp_path) as service, running_gateway(service.router_endpoint) as web:
        token = web.gateway.links.tokens()["ann"]
        page = WsPage(_url(web, f"/ws/play/{token}"))
        page.wait(lambda f: f["kind"] == "view")
        junk = [
            "",
            "{",
            "[]",
            "null",
            '{"id": 5}',
            '{"id": "a", "command": []}',
            "1e999",
            "[" * 5000 + "]" * 5000,
            '{"id": "a", "command": {"type": "move", "timeout_s": 0}}',
            '{"id": "a", "command": {"type": "\\ud800"}}',
        ]
        for text in junk:
            page.ws.send(text)
        page.ws.send(b"\x00\x01binary")
        errors = [
            page.wait(lambda f, n=n: sum(1 for _, g in page.frames if g["kind"] == "error") > n)
            for n in range(len(junk))
        ]
        assert errors and all("Traceback" not in json.dumps(e) for e in errors)
        # A flood of commands: those beyond what may wait are refused in words, none crash anything.
        for i in range(MAX_WAITING * 4):
            page.ws.send(json.dumps({"id": f"f{i}", "command": {"type": "withdraw_plan"}}))
        page.wait(lambda f: f["kind"] == "error" and "too many commands" in f["message"])
        # A frame over the size limit closes that socket only (the browser's page would reconnect).
        big = WsPage(_url(web, f"/ws/play/{token}"))
        big.wait(lambda f: f["kind"] == "view")
        big.ws.send("x" * 200_000)
        deadline = time.monotonic() + 5
        while big.closed_code is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert big.closed_code == 1009
        # A link opened on many pages at once: the ones beyond the limit are refused in words.
        many = [WsPage(_url(web, f"/ws/play/{token}")) for _ in range(MAX_PAGES_PER_LINK + 2)]
        refusals = [p.wait(lambda f: f["kind"] in ("view", "refused")) for p in many]
        assert sum(r["kind"] == "refused" for r in refusals) >= 2
        assert all("close one and reload" in r["message"] for r in refusals if r["kind"] == "refused")
        for p in many:
            p.close()
        time.sleep(0.5)
        # The gateway still serves: a new page gets its seat, a command still goes through.
        again = WsPage(_url(web, f"/ws/play/{token}"))
        plan = again.wait(lambda f: f["kind"] == "view")["view"]["you"]["hand"][0]
        assert again.command({"type": "commit_plan", "plan": plan})["ok"]
        assert _get(web, "/table")[0] == 200
        for p in (page, again):
            p.close()


def test_a_gateway_started_before_its_referee_says_so_and_takes_the_seats_when_it_comes(tmp_path):
    port = free_port_pair()
    with running_gateway(f"tcp://127.0.0.1:{port}", take_seats=False) as web:
        table = WsPage(_url(web, "/ws/table"))
        down = table.wait(lambda f: f["kind"] == "status" and not f["up"] and "no referee" in f["message"])
        assert "tabletop referee" in down["message"]
        assert _get(web, "/table")[0] == 200
        assert _get(web, "/play/anything")[0] == 404  # no seats yet, so no link works
        config = GAMES["theplan"].make_config(SEATS, {})
        with running_referee("theplan", config, tmp_path, port=port):
            table.wait(lambda f: f["kind"] == "snapshot", timeout=15)
            deadline = time.monotonic() + 10
            while len(web.gateway.links.tokens()) < 3 and time.monotonic() < deadline:
                time.sleep(0.1)
            assert sorted(web.gateway.links.tokens()) == SEATS
            page = WsPage(_url(web, f"/ws/play/{web.gateway.links.tokens()['bob']}"))
            assert page.wait(lambda f: f["kind"] == "view")["seat"] == "bob"
            page.close()
        table.close()


@pytest.mark.slow
def test_pages_survive_a_referee_restart(tmp_path):
    from service_helpers import start_referee_process

    port = free_port_pair()
    db = tmp_path / "heist.sqlite"
    proc = start_referee_process(db, port, "--players", "ann,bob,cat")
    try:
        with running_gateway(f"tcp://127.0.0.1:{port}") as web:
            token = web.gateway.links.tokens()["ann"]
            page = WsPage(_url(web, f"/ws/play/{token}"))
            hand = page.wait(lambda f: f["kind"] == "view")["view"]["you"]["hand"]
            assert page.command({"type": "commit_plan", "plan": hand[0]})["ok"]
            proc.kill()
            proc.wait(10)
            page.wait(lambda f: f["kind"] == "status" and not f["up"], timeout=15)
            proc = start_referee_process(db, port, "--resume")
            page.wait(lambda f: f["kind"] == "status" and f["up"] and f is page.latest("status"), timeout=20)
            # The link handed out before the restart still works, and the seat acts again.
            reply = page.command({"type": "withdraw_plan"}, timeout=20)
            assert reply["ok"], reply
            assert WsPage(_url(web, f"/ws/play/{token}")).wait(lambda f: f["kind"] == "view")["seat"] == "ann"
            page.close()
    finally:
        proc.kill()
        proc.wait(10)


@pytest.mark.parametrize(
    "leak",
    [
        {"kind": "view", "seat": "bob", "seq": 3, "view": {"you": {"player": "bob", "hand": ["p1"]}}},
        {"kind": "private", "player": "bob", "seq": 3, "event": {"type": "plan_committed", "plan": "p9"}},
        {"kind": "state", "seq": 3, "state": {"secret": "p9"}},  # a public frame the table never got
        {"kind": "event", "seq": 4, "event": {"type": "x", "note": "bob has p9"}},
    ],
)
def test_the_secret_check_catches_a_leak(leak):
    commit = {"kind": "private", "player": "bob", "seq": 3, "event": {"type": "plan_committed", "plan": "p9"}}
    reveal = {"kind": "event", "seq": 6, "event": {"type": "plans_revealed"}}
    table = [reveal, {"kind": "event", "seq": 4, "event": {"type": "x", "note": "bob has p9"}}]
    clean = {"ann": [reveal], "bob": [commit, reveal]}
    assert_no_other_seats_secrets(clean, table)
    with pytest.raises(AssertionError):
        assert_no_other_seats_secrets({**clean, "ann": [leak, reveal]}, table)


def test_the_projector_page_shows_the_overlay_of_the_public_state(tmp_path):
    import cv2
    import numpy as np
    from test_display import projector_calibration

    from display.projector import render_projector
    from tabletop.commands.web import projector_renderer

    path = tmp_path / "calibration.json"
    projector_calibration().save(path)
    config = GAMES["masterplan"].make_config(["ann", "bob", "cat"], {})
    with running_referee("masterplan", config, tmp_path, port=free_port_pair()) as service:
        # A first round in which the first player puts a card 10 mm beyond their start: then they
        # have a jump, which the projector paints.
        first = service.session.public_state()["current"]
        for _ in range(3):
            seat = service.session.public_state()["current"]
            conn = Connection(service.router_endpoint)
            view = conn.join(seat)["view"]
            if seat == first:
                start = next(s for s in view["table"] if s["space"] == f"start:{seat}")
                x0, y0 = start["corners"][0][0], max(c[1] for c in start["corners"]) + 10
                corners = [[x0, y0], [x0 + 63, y0], [x0 + 63, y0 + 88], [x0, y0 + 88]]
                assert conn.request("place_card", card=view["hand"][0]["card"], corners=corners)["ok"]
            assert conn.request("draw")["ok"]
            conn.close()
        with running_gateway(service.router_endpoint) as web:
            web.gateway.projector = projector_renderer(str(path))
            status, body = _get(web, "/projector")
            assert status == 200 and "/projector.png" in body
            with urllib.request.urlopen(f"http://127.0.0.1:{web.port}/projector.png", timeout=10) as r:
                shown = cv2.imdecode(np.frombuffer(r.read(), np.uint8), cv2.IMREAD_COLOR)
            state = web.gateway.feed.snapshot()["state"]
            assert state["moves"], "the first player should have a jump to paint"
            expected = render_projector(state, projector_calibration())
            assert expected.any() and shown.shape == expected.shape and np.array_equal(shown, expected)
            web.gateway.projector = None
            status, body = _get(web, "/projector.png")
            assert status == 404 and "--calibration" in body


def _played_file(tmp_path, game: str, seed: int = 98765432109876543210987) -> tuple[str, dict]:
    """A game file of a few hundred random legal commands, and the final public state."""
    from referee.protocol import Request
    from referee.session import GameSession
    from referee.store import EventStore

    path = tmp_path / f"{game}-played.sqlite"
    store = EventStore(path)
    session = GameSession.start(game, GAMES[game].make_config(SEATS, {}), seed, store)
    rnd = random.Random(seed)
    for i in range(300):
        state = session.public_state()
        acting = state["to_act"] if "to_act" in state else [state["current"]]
        options = [(s, o) for s in acting if s for o in session.player_state(s)["you_can"]]
        if not options:
            break
        seat, choice = rnd.choice(options)
        hand = session.player_state(seat).get("hand")
        if game == "masterplan" and state["step"] == "add" and hand and rnd.random() < 0.5:
            x, y = 700 + 80 * (i % 10), 300 + 100 * (i // 10)  # out of everyone's reach: stays face down
            corners = [[x, y], [x + 63, y], [x + 63, y + 88], [x, y + 88]]
            choice = {"type": "place_card", "card": hand[0]["card"], "corners": corners}
        body = {**choice, "v": 1, "id": f"r{i}"}
        assert session.handle(Request(f"r{i}", choice["type"], seat, body), seat).reply["ok"]
    final = session.public_state()
    store.close()
    return str(path), final


@pytest.mark.parametrize("game", ["theplan", "masterplan"])
def test_a_replay_steps_through_the_public_states_and_holds_no_secret(tmp_path, game):
    from referee.replay import public_replay
    from referee.store import EventStore

    path, final = _played_file(tmp_path, game)
    replay = public_replay(path)
    assert replay["game"] == game and len(replay["steps"]) > 20
    assert replay["steps"][-1]["state"] == final  # the last step is where the game stands
    assert [s["seq"] for s in replay["steps"]] == sorted({s["seq"] for s in replay["steps"]})
    store = EventStore(path, readonly=True)
    record, events = store.record(), [e for _, e in store.events()]
    store.close()
    text = json.dumps(replay)
    assert str(record.seed) not in text and '"secret"' not in text and '"private"' not in text

    # Every value that only ever lived in a private part (a hand's card, a Plan never shown, a
    # face-down card's name) is absent.
    def values(tree) -> set[str]:
        if isinstance(tree, dict):
            return set().union(*(values(v) for v in tree.values())) if tree else set()
        if isinstance(tree, list):
            return set().union(*(values(v) for v in tree)) if tree else set()
        return {json.dumps(tree)} if isinstance(tree, str) and len(tree) > 3 else set()

    private = set().union(*(values(e.get("private", {})) for e in events))
    public = set().union(*(values(e.get("public", {})) for e in events))
    hidden = private - public - values(final)
    assert not [v for v in hidden if v in text]
    if game == "theplan":
        assert hidden, "the game should have kept Plans secret"
    else:  # Master Plan's secrets are the names of face-down cards (and the hands, never in a state)
        spaces = [space for step in replay["steps"] for space in step["state"]["table"]]
        assert any(not s["face_up"] for s in spaces) and all(
            s["face_up"] or s["name"] is None for s in spaces
        )
        assert all("hand" not in p for step in replay["steps"] for p in step["state"]["players"])


def test_the_replay_page_and_its_data_are_served_when_asked_for(tmp_path):
    from referee.replay import public_replay

    path, _ = _played_file(tmp_path, "theplan")
    with running_gateway("tcp://127.0.0.1:1", take_seats=False) as web:
        assert _get(web, "/replay")[0] == 404 and "--replay" in _get(web, "/replay")[1]
        web.gateway.replay = public_replay(path)
        assert _get(web, "/replay")[0] == 200
        status, body = _get(web, "/replay.json")
        steps = json.loads(body)["steps"]
        assert status == 200 and steps[-1]["words"] and steps[0]["state"]


def test_the_web_package_and_its_static_files_are_installed():
    """pip installs only what pyproject names: a package left out installs nothing of it (the
    tests, run from the clone, would not notice)."""
    import fnmatch
    from pathlib import Path

    tomllib = pytest.importorskip("tomllib")
    root = Path(__file__).resolve().parent.parent
    setup = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]
    packages = [p.name for p in root.iterdir() if (p / "__init__.py").is_file() and p.name != "tests"]
    assert "web" in packages
    for name in packages:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in setup["packages"]["find"]["include"]), name
    assert "static/*" in setup["package-data"]["web"]
    assert (root / "web" / "static" / "play.js").is_file()


def test_a_secure_referee_is_reached_with_each_seats_own_key(tmp_path):
    from referee.keys import create_keys
    from tabletop.commands.web import load_seat_keys

    keydir = create_keys(tmp_path / "keys", [*SEATS, "display"])
    keys = load_seat_keys(str(keydir))
    assert sorted(keys.seats) == SEATS and keys.observer is not None
    config = GAMES["theplan"].make_config(SEATS, {})
    with running_referee("theplan", config, tmp_path, port=free_port_pair(), keydir=keydir) as service:
        with running_gateway(service.router_endpoint, keys=keys) as web:
            tokens = web.gateway.links.tokens()
            assert sorted(tokens) == SEATS
            ann = WsPage(_url(web, f"/ws/play/{tokens['ann']}"))
            view = ann.wait(lambda f: f["kind"] in ("view", "refused"), 15)
            assert view["kind"] == "view", ann.frames
            assert view["seat"] == "ann" and view["view"]["you"]["player"] == "ann"
            assert ann.command({"type": "commit_plan", "plan": view["view"]["you"]["hand"][0]})["ok"]
            ann.wait(lambda f: f["kind"] == "state" and f["seq"] > view["seq"])
            # Renewing a link is the gateway's own under --secure: the old page is closed.
            web.gateway.renew("ann")
            assert "revoked" in ann.wait(lambda f: f["kind"] == "refused")["message"]
            assert _get(web, f"/play/{tokens['ann']}")[0] == 404
            bob = WsPage(_url(web, f"/ws/play/{web.gateway.links.tokens()['bob']}"))
            assert bob.wait(lambda f: f["kind"] == "view")["seat"] == "bob"
            bob.close()


def test_a_gateway_started_again_on_its_links_file_serves_the_same_links(tmp_path):
    links = tmp_path / "links.json"
    with _theplan(tmp_path) as service:
        with running_gateway(service.router_endpoint, links_file=links) as web:
            first = web.gateway.links.tokens()
        assert json.loads(links.read_text()) == first and links.stat().st_mode & 0o077 == 0
        # Without the file a new gateway gets no seat: the referee still holds them for the old links.
        with running_gateway(service.router_endpoint) as web:
            assert web.gateway.links.tokens() == {} and "taken" in web.gateway.links.not_held["ann"]
        with running_gateway(service.router_endpoint, links_file=links) as web:
            assert web.gateway.links.tokens() == first
            page = WsPage(_url(web, f"/ws/play/{first['cat']}"))
            assert page.wait(lambda f: f["kind"] == "view")["seat"] == "cat"
            page.close()
            renewed = web.gateway.renew("cat")
            assert json.loads(links.read_text())["cat"] == renewed != first["cat"]


def test_a_links_file_that_may_be_another_games_wins_back_only_the_seats_the_referee_holds(tmp_path):
    """The default file of `tabletop web` (by the referee's address) may hold an earlier game's
    tokens: they win back the seats a running referee still holds for them (a gateway restart),
    and never take the free seats of a new game."""
    links = tmp_path / "state" / "tabletop" / "web-links.json"
    for game in ("one", "two"):
        (tmp_path / game).mkdir()
    with _theplan(tmp_path / "one") as service:
        with running_gateway(service.router_endpoint, links_file=links, links_for_free_seats=False) as web:
            first = web.gateway.links.tokens()
        assert json.loads(links.read_text()) == first and sorted(first) == SEATS
        assert links.stat().st_mode & 0o077 == 0 and links.parent.stat().st_mode & 0o077 == 0
        with running_gateway(service.router_endpoint, links_file=links, links_for_free_seats=False) as web:
            assert web.gateway.links.tokens() == first  # the restart keeps every link
            page = WsPage(_url(web, f"/ws/play/{first['bob']}"))
            assert page.wait(lambda f: f["kind"] == "view")["seat"] == "bob"
            page.close()
    with _theplan(tmp_path / "two") as service:  # a new game: the old links must not open it
        with running_gateway(service.router_endpoint, links_file=links, links_for_free_seats=False) as web:
            fresh = web.gateway.links.tokens()
            assert sorted(fresh) == SEATS and not set(fresh.values()) & set(first.values())
            assert _get(web, f"/play/{first['ann']}")[0] == 404
        assert json.loads(links.read_text()) == fresh


def test_a_replay_reads_a_game_file_while_its_referee_runs(tmp_path):
    from referee.replay import public_replay

    with _theplan(tmp_path) as service:
        conn = Connection(service.router_endpoint)
        plan = conn.join("ann")["view"]["you"]["hand"][0]
        assert conn.request("commit_plan", plan=plan)["ok"]
        replay = public_replay(tmp_path / "theplan.sqlite")
        assert replay["steps"][-1]["seq"] == service.session.seq
        assert plan not in json.dumps(replay)  # committed face down: not public yet
        conn.close()
