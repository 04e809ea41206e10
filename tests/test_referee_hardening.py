"""Issue 21: the referee stays up whatever arrives from outside, and seats stay their players'.
Real sockets on loopback, real referee processes where the item is about a process."""

from __future__ import annotations

import json
import logging
import os
import socket
import stat
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest
import zmq
from zmq.utils.monitor import recv_monitor_message

from bench.service import run_fuzz
from referee.client import Connection, StateMirror
from referee.keys import client_keypair, create_keys, public_key_file, server_keypair
from referee.protocol import MAX_WIRE_BYTES
from referee.service import MAX_CONNECTIONS_PER_SEAT, RefereeService
from referee.session import GameSession
from referee.store import EventStore
from tests.service_helpers import free_port_pair, running_referee

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")

SEATS = ["ann", "bob", "cat"]
CONFIG = {"seats": SEATS}
HUGE_NUMBER = b'{"v":1,"id":"x","type":"ping","n":1' + b"0" * 4400 + b"}"


def tabletop(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabletop", *args], capture_output=True, text=True, timeout=timeout
    )


@contextmanager
def referee_process(tmp_path, port: int, *extra: str):
    args = ["referee", "--game", "theplan", "--players", ",".join(SEATS), "--seed", "3"]
    args += ["--db", str(tmp_path / "game.sqlite"), "--port", str(port), *extra]
    proc = subprocess.Popen(
        [sys.executable, "-m", "tabletop", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        probe = Connection(f"tcp://127.0.0.1:{port}")
        probe.request("ping", timeout_s=15, retries=1)
        probe.close()
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


def ask(sock: zmq.Socket, raw: bytes | dict) -> dict:
    sock.send(raw if isinstance(raw, bytes) else json.dumps({"v": 1, **raw}).encode())
    assert sock.poll(5000), "no answer"
    return json.loads(sock.recv())


def dealer(endpoint: str, routing_id: bytes | None = None, keys=None, server_public=None) -> zmq.Socket:
    sock = zmq.Context.instance().socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    if routing_id is not None:
        sock.setsockopt(zmq.ROUTING_ID, routing_id)
    if keys is not None:
        sock.curve_serverkey = server_public
        sock.curve_publickey, sock.curve_secretkey = keys
    sock.connect(endpoint)
    return sock


# ---- 1. one message must not stop the referee ---------------------------------------------------
def test_a_4400_digit_number_gets_a_clear_error_and_the_referee_process_keeps_serving(tmp_path):
    port = free_port_pair()
    with referee_process(tmp_path, port) as proc:
        sock = dealer(f"tcp://127.0.0.1:{port}")
        reply = ask(sock, HUGE_NUMBER)
        assert reply["error"]["code"] == "bad_json" and "characters" in reply["error"]["message"]
        assert ask(sock, {"id": "p", "type": "ping"})["ok"]
        assert proc.poll() is None
        sock.close(0)


def test_an_answer_that_cannot_be_encoded_becomes_an_internal_error_and_the_loop_goes_on(tmp_path):
    with running_referee("theplan", CONFIG, tmp_path) as service:
        sock = dealer(service.router_endpoint)
        # The camera's status rides along with the public state; a value JSON cannot hold there
        # breaks the snapshot's reply and every heartbeat until it goes.
        service.session.annotations["camera"] = {"state": object()}
        broken = ask(sock, {"id": "s1", "type": "snapshot"})
        assert broken["ok"] is False and broken["error"]["code"] == "internal"
        assert broken["id"] == "s1"
        del service.session.annotations["camera"]
        assert ask(sock, {"id": "s2", "type": "snapshot"})["ok"]
        sock.close(0)


def test_fuzzing_with_ten_thousand_hostile_messages_crashes_nothing(tmp_path):
    report = run_fuzz(10_000, seed=21, db_dir=tmp_path)
    assert report.sent == 10_000
    assert report.crashes == 0, report
    assert report.errors_logged == 0, report  # nothing got as far as the last-resort guards
    assert report.codes["bad_json"] > 1000 and report.codes["ok"] > 100


# ---- 2. memory: ZMQ_MAXMSGSIZE --------------------------------------------------------------
def test_a_message_over_the_wire_limit_is_cut_off_and_everyone_else_goes_on(tmp_path):
    with running_referee("theplan", CONFIG, tmp_path) as service:
        ann = Connection(service.router_endpoint)
        assert ann.join("ann")["ok"]
        sock = dealer(service.router_endpoint)
        assert ask(sock, {"id": "before", "type": "ping"})["ok"]
        # 16 MiB: libzmq refuses it from its size header and drops the connection unread.
        sock.send(b"x" * (16 * 1024 * 1024))
        assert MAX_WIRE_BYTES < 16 * 1024 * 1024
        # The sender's socket reconnects by itself; it gets answers again once it has.
        answered = False
        deadline = time.monotonic() + 10
        n = 0
        while not answered and time.monotonic() < deadline:
            n += 1
            sock.send(json.dumps({"v": 1, "id": f"after-{n}", "type": "ping"}).encode())
            answered = bool(sock.poll(500))
        assert answered
        assert ann.request("view")["ok"] and ann.seat == "ann"
        assert Connection(service.router_endpoint).request("snapshot")["ok"]
        sock.close(0)


# ---- 3. the join table stays bounded ------------------------------------------------------------
def commit_or_withdraw(conn: Connection, service) -> dict:
    options = [c.to_dict() for c in service.session.game.legal_commands("ann")]
    command = next(c for c in options if c["type"] in ("commit_plan", "withdraw_plan"))
    kind = command.pop("type")
    return conn.request(kind, **command)


def test_many_join_and_close_cycles_leave_a_bounded_join_table_and_dead_ones_go(tmp_path):
    with running_referee("theplan", CONFIG, tmp_path) as service:
        ann = Connection(service.router_endpoint)
        joined = ann.join("ann")
        token = joined["token"]
        for i in range(300):
            # A flaky phone: connect, join with the seat's token, vanish.
            again = Connection(service.router_endpoint)
            assert again.join("ann", token=token)["ok"]
            again.close()
            if i % 50 == 0:
                assert len(service.joined("ann")) <= MAX_CONNECTIONS_PER_SEAT
        assert len(service.joined("ann")) <= MAX_CONNECTIONS_PER_SEAT
        # Ann's first connection was the least recently heard and lost its place; its next command
        # is answered "not_joined" and Connection joins again with the token it remembers.
        assert commit_or_withdraw(ann, service)["ok"]
        # Each private message to a dead connection fails once (ROUTER_MANDATORY) and takes it out.
        deadline = time.monotonic() + 10
        while len(service.joined("ann")) > 1 and time.monotonic() < deadline:
            assert commit_or_withdraw(ann, service)["ok"]
        assert len(service.joined("ann")) == 1
        assert ann.poll_private(0.5), "Ann's live connection still hears her private messages"


# ---- 13. --secure binds a key to its seat on every message --------------------------------------
def wait_for_handshake(sock: zmq.Socket, connect_to: str) -> None:
    address = f"inproc://hs-{id(sock)}"
    sock.monitor(address, zmq.EVENT_HANDSHAKE_SUCCEEDED)
    monitor = zmq.Context.instance().socket(zmq.PAIR)
    monitor.connect(address)
    sock.connect(connect_to)
    assert monitor.poll(5000), "no handshake"
    assert recv_monitor_message(monitor)["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED
    sock.disable_monitor()
    monitor.close(0)


def connected_as(routing_id: bytes, keypair, server_public: bytes, endpoint: str) -> zmq.Socket:
    """A DEALER the referee's ROUTER knows by `routing_id`, checked with a ping. The monitor's
    disconnect event comes from ZeroMQ's I/O thread: for a moment after it the ROUTER may still
    hold the old connection under that id, and then takes the new one's first message for its
    id (so that message gets no answer). Such a connection is dropped and made again."""
    for attempt in range(10):
        sock = zmq.Context.instance().socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 0)
        sock.setsockopt(zmq.ROUTING_ID, routing_id)
        sock.curve_serverkey = server_public
        sock.curve_publickey, sock.curve_secretkey = keypair
        wait_for_handshake(sock, endpoint)
        sock.send(json.dumps({"v": 1, "id": f"hello-{attempt}", "type": "ping"}).encode())
        if sock.poll(1000):
            assert json.loads(sock.recv())["ok"]
            return sock
        sock.close(0)
    raise AssertionError(f"the referee never took a connection under {routing_id!r}")


@contextmanager
def watched_referee(tmp_path, keydir):
    """A referee whose ROUTER reports disconnections to the test (the monitor is set up before
    the serve thread owns the socket)."""
    store = EventStore(tmp_path / "theplan.sqlite")
    service = RefereeService(
        GameSession.start("theplan", CONFIG, 1, store), "tcp://127.0.0.1:*", "tcp://127.0.0.1:*", keydir
    )
    service.router.monitor("inproc://router-events", zmq.EVENT_DISCONNECTED)
    events = zmq.Context.instance().socket(zmq.PAIR)
    events.connect("inproc://router-events")
    thread = threading.Thread(target=service.serve, daemon=True)
    thread.start()
    try:
        yield service, events
    finally:
        service.stop()
        thread.join(5)
        events.close(0)
        service.close()
        store.close()


@pytest.mark.slow  # real referee processes killed, restarted or spawned: seconds each
@pytest.mark.parametrize("thief", ["bob", "display"])
def test_a_routing_id_reused_by_another_key_inherits_neither_seat_nor_secrets(tmp_path, thief):
    keydir = create_keys(tmp_path / "keys", SEATS + ["display"])
    server_public = public_key_file(keydir / "server.key")

    def keys(name):
        return client_keypair(keydir / "secret" / f"{name}.key_secret")

    with watched_referee(tmp_path, keydir) as (service, router_events):
        endpoint = service.router_endpoint
        ann_phone = dealer(endpoint, b"ann-phone", keys("ann"), server_public)
        assert ask(ann_phone, {"id": "j", "type": "join", "player": "ann"})["ok"]
        ann_phone.close(0)
        # The referee must have seen Ann's phone go: ZeroMQ would park a second connection under
        # a routing id still in use instead of giving it that id.
        assert router_events.poll(5000), "the referee never saw Ann's phone disconnect"
        assert recv_monitor_message(router_events)["event"] == zmq.EVENT_DISCONNECTED
        # Another key connects under Ann's routing id and only listens...
        listener = connected_as(b"ann-phone", keys(thief), server_public, endpoint)
        # ...while Ann, on another connection, gets private messages.
        ann = Connection(endpoint, server_public, keys("ann"))
        assert ann.join("ann")["ok"]
        assert commit_or_withdraw(ann, service)["ok"]
        assert ann.poll_private(2.0), "Ann hears her own private message"
        assert not listener.poll(500), "another key under Ann's old routing id heard her secrets"
        assert b"ann-phone" not in service.joined("ann")
        # Nor can it act for Ann or read her hand through that routing id.
        for kind in ("view", "withdraw_plan", "commit_plan"):
            reply = ask(listener, {"id": f"steal-{kind}", "type": kind, "player": "ann"})
            assert reply["ok"] is False and reply["error"]["code"] in ("not_joined", "not_your_seat")
        listener.close(0)


def test_without_secure_a_connection_that_chose_its_own_routing_id_cannot_join(tmp_path):
    with running_referee("theplan", CONFIG, tmp_path) as service:
        sock = dealer(service.router_endpoint, b"ann-phone")
        reply = ask(sock, {"id": "j", "type": "join", "player": "ann"})
        assert reply["error"]["code"] == "own_routing_id" and "ZMQ_ROUTING_ID" in reply["error"]["message"]
        assert ask(sock, {"id": "p", "type": "ping"})["ok"]
        sock.close(0)


# ---- 14. key files --------------------------------------------------------------------------------
def test_secret_keys_are_written_private_and_a_readable_one_is_warned_about(tmp_path, caplog):
    keydir = create_keys(tmp_path / "keys", ["ann", "display"])
    secrets = [keydir / "server.key_secret", *sorted((keydir / "secret").glob("*.key_secret"))]
    assert len(secrets) == 3
    for path in secrets:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((keydir / "secret").stat().st_mode) & 0o077 == 0
    for path in [keydir / "server.key", *(keydir / "public").glob("*.key")]:
        assert stat.S_IMODE(path.stat().st_mode) & 0o044 == 0o044, "public keys are meant to be handed out"
    # Still ZeroMQ's certificate format.
    public, secret = client_keypair(keydir / "secret" / "ann.key_secret")
    assert public == public_key_file(keydir / "public" / "ann.key") and len(secret) == 40
    with caplog.at_level(logging.WARNING, logger="tabletop.keys"):
        server_keypair(keydir)
        assert not caplog.records
        os.chmod(keydir / "server.key_secret", 0o644)
        server_keypair(keydir)
    assert "chmod 600" in caplog.text and "server.key_secret" in caplog.text


# ---- 15. seat tokens -----------------------------------------------------------------------------
def test_a_held_seat_is_joined_again_only_with_its_token_and_the_token_stays_private(tmp_path):
    with running_referee("theplan", CONFIG, tmp_path) as service:
        raw_sub = zmq.Context.instance().socket(zmq.SUB)
        raw_sub.setsockopt(zmq.SUBSCRIBE, b"")
        raw_sub.connect(service.pub_endpoint)
        mirror = StateMirror(service.router_endpoint, service.pub_endpoint)  # the SUB is connected
        ann, bob = Connection(service.router_endpoint), Connection(service.router_endpoint)
        first = ann.join("ann")
        token = first["token"]
        assert len(token) >= 16 and ann.tokens == {"ann": token}
        assert bob.join("bob")["token"] != token
        thief = Connection(service.router_endpoint)
        taken = thief.join("ann")
        assert taken["error"]["code"] == "seat_taken"
        assert taken["error"]["message"] == (
            "seat ann is taken; to re-join as ann give the token shown when ann joined"
        )
        assert thief.join("ann", token="guess")["error"]["code"] == "bad_token"
        assert thief.request("view", player="ann")["error"]["code"] == "not_joined"
        # The player on another machine, with the token.
        again = Connection(service.router_endpoint)
        rejoined = again.join("ann", token=token)
        assert rejoined["ok"] and rejoined["token"] == token
        # Ann's first connection, pushed out of the table, joins again by itself with its token.
        for _ in range(MAX_CONNECTIONS_PER_SEAT):
            Connection(service.router_endpoint).join("ann", token=token)
        assert ann.request("view")["ok"]
        # The token never leaves in public: not on PUB, not to Bob, not in the event file.
        assert commit_or_withdraw(ann, service)["ok"]
        mirror.poll(0.5)
        published = b""
        while raw_sub.poll(200):
            published += b"".join(raw_sub.recv_multipart())
        assert published and token.encode() not in published
        assert all(token not in json.dumps(m) for m in bob.poll_private(0.2))
        assert token.encode() not in (tmp_path / "theplan.sqlite").read_bytes()
        raw_sub.close(0)
        mirror.close()


def test_secure_seats_need_no_token(tmp_path):
    keydir = create_keys(tmp_path / "keys", SEATS)
    server_public = public_key_file(keydir / "server.key")
    with running_referee("theplan", CONFIG, tmp_path, keydir=keydir) as service:
        keys = client_keypair(keydir / "secret" / "ann.key_secret")
        first = Connection(service.router_endpoint, server_public, keys).join("ann")
        second = Connection(service.router_endpoint, server_public, keys).join("ann")
        assert first["ok"] and second["ok"] and "token" not in first and "token" not in second


# ---- 5. ports, addresses, keys at the command line -------------------------------------------------
@pytest.mark.parametrize("taken", [0, 1])
def test_a_port_in_use_is_one_clear_line_exit_2_and_leaves_no_game_file(tmp_path, taken):
    port = free_port_pair()
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", port + taken))
        squatter.listen()
        out = tabletop(
            "referee", "--game", "theplan", "--players", "a,b,c", "--db", str(tmp_path / "g.sqlite"),
            "--port", str(port),
        )  # fmt: skip
    assert out.returncode == 2, out.stderr
    assert out.stderr.strip().splitlines()[-1] == (
        f"tabletop: error: port {port + taken} is already in use (another referee?); choose another with --port"
    )
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "g.sqlite").exists()


def test_an_address_that_is_not_this_machines_is_named(tmp_path):
    out = tabletop(
        "referee", "--game", "theplan", "--players", "a,b,c", "--db", str(tmp_path / "g.sqlite"),
        "--bind", "192.0.2.1", "--port", str(free_port_pair()),
    )  # fmt: skip
    assert out.returncode == 2
    assert "192.0.2.1 is not an address of this machine; check --bind" in out.stderr
    assert not (tmp_path / "g.sqlite").exists()


@pytest.mark.slow  # real referee processes killed, restarted or spawned: seconds each
def test_client_accepts_host_port_and_prints_the_seat_token(tmp_path):
    port = free_port_pair()
    with running_referee("theplan", CONFIG, tmp_path, port=port):
        out = tabletop("client", "--connect", f"127.0.0.1:{port}", "--player", "ann", "--do", "state")
        assert out.returncode == 0, out.stderr
        assert "joined as ann" in out.stdout and "your seat token: " in out.stdout
        token = out.stdout.split("your seat token: ")[1].split()[0]
        # The same player from another terminal: refused without the token, welcome with it.
        refused = tabletop("client", "--connect", f"127.0.0.1:{port}", "--player", "ann", "--do", "state")
        assert refused.returncode == 2 and "seat ann is taken" in refused.stderr
        back = tabletop(
            "client", "--connect", f"127.0.0.1:{port}", "--player", "ann", "--token", token, "--do", "state"
        )
        assert back.returncode == 0, back.stderr


@pytest.mark.parametrize("address", ["localhost", "tcp://127.0.0.1", "ipc:///tmp/x:5555", "a b:5555"])
def test_client_with_a_bad_address_gets_one_line_and_exit_2(address):
    out = tabletop("client", "--connect", address, "--player", "ann")
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "is not a referee address; give HOST:PORT" in out.stderr


def test_a_keyless_client_hears_at_once_that_the_referee_runs_secure(tmp_path):
    keydir = create_keys(tmp_path / "keys", SEATS)
    port = free_port_pair()
    with running_referee("theplan", CONFIG, tmp_path, port=port, keydir=keydir):
        out = tabletop("client", "--connect", f"127.0.0.1:{port}", "--player", "ann", timeout=30)
        assert out.returncode == 2
        # Said precisely, or (when the referee's ERROR loses a race with its closing) as the likely cause.
        assert "runs with --secure" in out.stderr and "pass --server-key" in out.stderr
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
        stranger = tmp_path / "stranger"
        create_keys(stranger, ["ann"])
        out = tabletop(
            "client", "--connect", f"127.0.0.1:{port}", "--player", "ann",
            "--server-key", str(keydir / "server.key"), "--key", str(stranger / "secret" / "ann.key_secret"),
        )  # fmt: skip
        assert out.returncode == 2 and "does not know your key" in out.stderr
