"""The referee service over real ZeroMQ sockets on loopback, with a real SQLite event file."""

from __future__ import annotations

import json
import random
import threading
import time

import pytest
import zmq

from referee.client import Connection, StateMirror
from referee.keys import client_keypair, create_keys, public_key_file
from tests.service_helpers import running_referee

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")

PLAN_SEATS = ["ann", "bob", "cat"]
MASTER_CONFIG = {
    "players": [
        {"name": "ann", "villain": "Z-Mask"},
        {"name": "bob", "villain": "Ms. Fyre"},
        {"name": "cat", "villain": "Monster Nash"},
    ]
}


def to_act(game) -> list[str]:
    who = game.to_act()
    return [] if who is None else ([who] if isinstance(who, str) else list(who))


def play_random(service, conns, rng, max_commands, on_step=None):
    """A random legal-command agent for every seat, each command sent over its own connection."""
    game = service.session.game
    sent = 0
    while sent < max_commands:
        actors = [p for p in to_act(game) if p in conns]
        if not actors:
            break
        player = rng.choice(actors)
        command = rng.choice(game.legal_commands(player)).to_dict()
        kind = command.pop("type")
        reply = conns[player].request(kind, **command)
        assert reply["ok"], reply
        sent += 1
        if on_step:
            on_step(sent)
    return sent


def drain(mirror: StateMirror, service, timeout_s=5.0):
    deadline = time.monotonic() + timeout_s
    while mirror.seq < service.session.seq and time.monotonic() < deadline:
        mirror.poll(0.1)
    mirror.poll(0.3)  # the state message after the last event


@pytest.mark.parametrize("game, config", [("theplan", {"seats": PLAN_SEATS}), ("masterplan", MASTER_CONFIG)])
def test_a_whole_game_through_sockets_and_a_late_joiner_ends_with_the_same_state(tmp_path, game, config):
    with running_referee(game, config, tmp_path) as service:
        early = StateMirror(service.router_endpoint, service.pub_endpoint)
        conns = {p: Connection(service.router_endpoint) for p in service.session.seats()}
        for seat, conn in conns.items():
            assert conn.join(seat)["ok"]
        late: list[StateMirror] = []

        def join_late(step: int) -> None:
            if step == 25:
                late.append(StateMirror(service.router_endpoint, service.pub_endpoint))

        sent = play_random(service, conns, random.Random(3), 120, join_late)
        assert sent >= 25
        drain(early, service)
        drain(late[0], service)
        truth = service.session.public_state()
        assert early.state == truth
        assert late[0].state == truth
        # The early subscriber saw every public event exactly once, in order, with no gap.
        seqs = [seq for seq, _ in early.events]
        assert seqs == list(range(seqs[0], service.session.seq + 1))
        stored = {seq: e for seq, e in service.session.store.events()}
        adapter = service.session.adapter
        for seq, event in early.events:
            assert event == adapter.public_event(stored[seq])


@pytest.mark.parametrize("game, config", [("theplan", {"seats": PLAN_SEATS}), ("masterplan", MASTER_CONFIG)])
def test_private_messages_reach_only_their_own_seat_and_never_pub(tmp_path, game, config):
    with running_referee(game, config, tmp_path) as service:
        raw_sub = zmq.Context.instance().socket(zmq.SUB)
        raw_sub.setsockopt(zmq.SUBSCRIBE, b"")
        raw_sub.connect(service.pub_endpoint)
        time.sleep(0.3)  # let the subscription reach the publisher before the game moves
        conns = {p: Connection(service.router_endpoint) for p in PLAN_SEATS}
        for seat, conn in conns.items():
            conn.join(seat)
        play_random(service, conns, random.Random(5), 60)
        time.sleep(0.3)
        published = []
        while raw_sub.poll(100):
            published.append(raw_sub.recv_multipart())
        raw_sub.close(0)
        assert published
        stored = [e for _, e in service.session.store.events()]
        secrets = []
        for event in stored:
            for seat, part in event.get("private", {}).items():
                secrets.append((seat, part))
        assert secrets, "the game dealt no private information; the test would prove nothing"
        pub_text = b"\n".join(frame for msg in published for frame in msg).decode()
        for event in stored:
            public = json.dumps(service.session.adapter.public_event(event), sort_keys=True)
            for part in event.get("private", {}).values():
                for key, value in part.items():
                    # The private value never rides along in the public version of its event.
                    assert f'"{key}": {json.dumps(value, sort_keys=True)}' not in public
            assert "secret" not in public
        assert '"seed"' not in pub_text
        for seat, conn in conns.items():
            private = conn.poll_private(0.3)
            assert private, f"{seat} got no private messages"
            assert {m["player"] for m in private} == {seat}


def test_bad_requests_get_precise_errors_and_the_service_goes_on(tmp_path):
    with running_referee("theplan", {"seats": PLAN_SEATS}, tmp_path) as service:
        sock = zmq.Context.instance().socket(zmq.DEALER)
        sock.connect(service.router_endpoint)

        def ask(raw: bytes) -> dict:
            sock.send(raw)
            assert sock.poll(3000), "no answer"
            return json.loads(sock.recv())

        assert ask(b"\xff\xfe not json")["error"]["code"] == "bad_json"
        assert ask(b"[1, 2, 3]")["error"]["code"] == "bad_json"
        assert ask(b'{"v": 9, "id": "x", "type": "snapshot"}')["error"]["code"] == "bad_version"
        assert ask(b"{" + b" " * 70000 + b"}")["error"]["code"] == "too_large"
        assert ask(b'{"v": 1, "id": "y", "type": "commit_plan", "plan": 1}')["error"]["code"] == "not_joined"
        assert (
            ask(b'{"v": 1, "id": "z", "type": "join", "player": "mallory"}')["error"]["code"]
            == "unknown_seat"
        )
        joined = ask(b'{"v": 1, "id": "j", "type": "join", "player": "ann"}')
        assert joined["ok"]
        other = ask(b'{"v": 1, "id": "o", "type": "commit_plan", "player": "bob", "plan": 1}')
        assert other["error"]["code"] == "not_your_seat"
        bogus = ask(b'{"v": 1, "id": "b", "type": "no_such_command", "player": "ann"}')
        assert bogus["ok"] is False and bogus["error"]["message"]
        sock.close(0)
        # Still serving: a fresh client gets a snapshot.
        conn = Connection(service.router_endpoint)
        assert conn.request("snapshot")["ok"]


def test_a_command_resent_with_the_same_id_is_applied_once(tmp_path):
    with running_referee("theplan", {"seats": PLAN_SEATS}, tmp_path) as service:
        conn = Connection(service.router_endpoint)
        conn.join("ann")
        plan = service.session.game.legal_commands("ann")[0].to_dict()
        plan.pop("type")
        first = conn.request("commit_plan", id="same-id", **plan)
        seq_after = service.session.seq
        again = conn.request("commit_plan", id="same-id", **plan)
        assert first["ok"] and again["ok"] and again.get("duplicate") is True
        assert service.session.seq == seq_after


def test_secure_referee_refuses_unknown_keys_and_binds_each_key_to_its_seat(tmp_path):
    keydir = create_keys(tmp_path / "keys", PLAN_SEATS + ["display"])
    server_public = public_key_file(keydir / "server.key")
    with running_referee("theplan", {"seats": PLAN_SEATS}, tmp_path, keydir=keydir) as service:
        ann_keys = client_keypair(keydir / "secret" / "ann.key_secret")
        ann = Connection(service.router_endpoint, server_public, ann_keys)
        assert ann.join("ann")["ok"]
        refused = ann.request("join", player="bob")
        assert refused["error"]["code"] == "not_your_seat"
        display = StateMirror(
            service.router_endpoint,
            service.pub_endpoint,
            server_public,
            client_keypair(keydir / "secret" / "display.key_secret"),
        )
        assert display.game == "theplan" and display.state["seats"] == PLAN_SEATS
        assert (
            Connection(
                service.router_endpoint,
                server_public,
                client_keypair(keydir / "secret" / "display.key_secret"),
            ).request("join", player="cat")["error"]["code"]
            == "not_your_seat"
        )
        # A key the referee never issued is refused at the socket: no answer at all.
        stranger = zmq.curve_keypair()
        outsider = Connection(service.router_endpoint, server_public, stranger)
        with pytest.raises(Exception, match="did not answer"):
            outsider.request("snapshot", timeout_s=0.5, retries=0)


@pytest.mark.slow  # a load test: many sockets, many commands
def test_many_subscribers_and_players_lose_and_duplicate_nothing(tmp_path):
    seats = ["p1", "p2", "p3", "p4", "p5", "p6"]
    with running_referee("theplan", {"seats": seats}, tmp_path) as service:
        mirrors = [StateMirror(service.router_endpoint, service.pub_endpoint) for _ in range(20)]
        conns = {p: Connection(service.router_endpoint) for p in seats}
        for seat, conn in conns.items():
            conn.join(seat)
        game = service.session.game
        lock = threading.Lock()
        answered: list[dict] = []

        def player(seat: str, rng: random.Random) -> None:
            # Each seat fires its share of commands concurrently; some are legal, some come out of turn
            # or are stale by the time they arrive: every one must be answered exactly once.
            for i in range(-(-1000 // len(seats))):
                with lock:
                    options = game.legal_commands(seat)
                command = rng.choice(options).to_dict() if options else {"type": "withdraw_plan"}
                kind = command.pop("type")
                reply = conns[seat].request(kind, id=f"{seat}-{i}", **command)
                answered.append(reply)

        threads = [threading.Thread(target=player, args=(s, random.Random(i))) for i, s in enumerate(seats)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        assert len(answered) >= 1000
        assert len({r["id"] for r in answered}) == len(answered)
        accepted = [r for r in answered if r["ok"]]
        assert accepted
        for mirror in mirrors:
            drain(mirror, service)
            assert mirror.state == service.session.public_state()
            seqs = [s for s, _ in mirror.events]
            assert len(seqs) == len(set(seqs))


def test_a_subscriber_that_drops_off_and_reconnects_resyncs_by_snapshot(tmp_path):
    with running_referee("theplan", {"seats": PLAN_SEATS}, tmp_path) as service:
        mirror = StateMirror(service.router_endpoint, service.pub_endpoint)
        conns = {p: Connection(service.router_endpoint) for p in PLAN_SEATS}
        for seat, conn in conns.items():
            conn.join(seat)
        rng = random.Random(9)
        play_random(service, conns, rng, 10)
        drain(mirror, service)
        # The display's network goes away: its SUB socket is gone while the game moves on.
        mirror.sub.disconnect(service.pub_endpoint)
        missed_from = mirror.seq
        play_random(service, conns, rng, 15)
        assert service.session.seq > missed_from + 1
        mirror.sub.connect(service.pub_endpoint)
        time.sleep(0.3)
        resyncs = mirror.resyncs
        play_random(service, conns, rng, 5)
        drain(mirror, service)
        assert mirror.resyncs > resyncs, "the gap in seq should have triggered a new snapshot"
        assert mirror.state == service.session.public_state()
        assert mirror.seq == service.session.seq


def test_a_secure_subscriber_gets_the_updates_not_only_the_snapshot(tmp_path):
    # The PUB's size limit once cut the CURVE handshake (its INITIATE is over 256 bytes): a
    # --secure display got its snapshot over ROUTER and then never a single update.
    keydir = create_keys(tmp_path / "keys", PLAN_SEATS + ["display"])
    server_public = public_key_file(keydir / "server.key")
    with running_referee("theplan", {"seats": PLAN_SEATS}, tmp_path, keydir=keydir) as service:
        display = StateMirror(
            service.router_endpoint,
            service.pub_endpoint,
            server_public,
            client_keypair(keydir / "secret" / "display.key_secret"),
        )
        ann = Connection(
            service.router_endpoint, server_public, client_keypair(keydir / "secret" / "ann.key_secret")
        )
        plan = ann.join("ann")["view"]["you"]["hand"][0]
        deadline = time.monotonic() + 10
        heard = display.state
        while display.state is heard and time.monotonic() < deadline:  # a heartbeat: subscribed
            display.poll(0.1)
        assert display.state is not heard, "no update reached the secure subscriber"
        assert ann.request("commit_plan", plan=plan)["ok"]
        while display.seq < service.session.seq and time.monotonic() < deadline:
            display.poll(0.1)
        assert display.seq == service.session.seq and display.resyncs == 1
        display.close()
        ann.close()
