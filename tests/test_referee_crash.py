"""`kill -9` the referee in the middle of a burst of commands: nothing acknowledged is lost."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time

import pytest

from referee.client import Connection, ServiceUnavailable, StateMirror
from referee.protocol import encode
from referee.session import GameSession
from referee.store import EventStore
from referee.theplan import ThePlanGame
from tests.service_helpers import free_port_pair

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")

SEATS = ["ann", "bob", "cat"]
SEED = 11


def start_referee(db, port, resume=False):
    args = [
        sys.executable,
        "-m",
        "tabletop",
        "referee",
        "--game",
        "theplan",
        "--db",
        str(db),
        "--port",
        str(port),
    ]
    args += ["--resume"] if resume else ["--players", ",".join(SEATS), "--seed", str(SEED)]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    probe = Connection(f"tcp://127.0.0.1:{port}")
    try:
        probe.request("ping", timeout_s=10, retries=1)
    finally:
        probe.close()
    return proc


@pytest.mark.slow  # real referee processes killed, restarted or spawned: seconds each
def test_kill_9_during_a_burst_loses_no_acknowledged_command_and_clients_resync(tmp_path):
    db, port = tmp_path / "game.sqlite", free_port_pair()
    endpoint = f"tcp://127.0.0.1:{port}"
    proc = start_referee(db, port)
    twin, _ = ThePlanGame.setup({"seats": SEATS}, SEED)  # the same seed: the same shuffles
    conns = {p: Connection(endpoint) for p in SEATS}
    for seat, conn in conns.items():
        assert conn.join(seat)["ok"]
    mirror = StateMirror(endpoint, f"tcp://127.0.0.1:{port + 1}")
    rng = random.Random(2)
    acked: list[tuple[str, str]] = []  # (seat, command id)
    kill_after = 40
    in_flight = None
    try:
        for i in range(200):
            actors = twin.to_act()
            player = rng.choice(actors)
            command = rng.choice(twin.legal_commands(player))
            body = command.to_dict()
            kind = body.pop("type")
            in_flight = (f"c{i}", command, player)
            if len(acked) == kill_after:
                # Send without waiting, then kill at once: this command may or may not have landed.
                conns[player].sock.send(encode({"id": in_flight[0], "type": kind, "player": player, **body}))
                os.kill(proc.pid, signal.SIGKILL)
                break
            reply = conns[player].request(kind, id=f"c{i}", **body)
            assert reply["ok"], reply
            acked.append((player, f"c{i}"))
            twin.apply(command)
    finally:
        proc.wait(10)
    assert len(acked) == kill_after

    store = EventStore(db, readonly=True)
    for seat, cid in acked:
        assert store.reply_for(cid, seat) is not None, f"acknowledged command {cid} was lost"
    store.close()

    proc = start_referee(db, port, resume=True)
    try:
        # Resumed state is the twin's after every acknowledged command (plus, perhaps, the one in flight).
        store = EventStore(db, readonly=True)  # the referee holds the file: read beside it
        resumed = GameSession.resume(store)
        if store.reply_for(in_flight[0], in_flight[2]) is not None:
            twin.apply(in_flight[1])
        assert resumed.public_state() == twin.public_view()
        store.close()
        # Clients carry on: the mirror notices and re-syncs, players re-join and keep playing.
        for seat, conn in conns.items():
            for _attempt in range(3):
                try:
                    assert conn.join(seat)["ok"]
                    break
                except ServiceUnavailable:
                    time.sleep(0.5)
        player = twin.to_act()[0]
        body = twin.legal_commands(player)[0].to_dict()
        kind = body.pop("type")
        assert conns[player].request(kind, id="after-restart", **body)["ok"]
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            mirror.poll(0.2)
            if mirror.seq >= resumed.seq + 1 and mirror.state.get("players"):
                break
        mirror.resync()
        twin.apply(twin.legal_commands(player)[0])
        assert mirror.state == twin.public_view()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(10)
        mirror.close()
        for conn in conns.values():
            conn.close()
