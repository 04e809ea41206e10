"""A real referee service on loopback for the tests (ephemeral or given ports, real SQLite)."""

from __future__ import annotations

import subprocess
import sys
import threading
from contextlib import contextmanager

from bench.common import free_port_pair  # noqa: F401  (the referee tests import it from here)
from referee.client import Connection, ServiceUnavailable
from referee.service import RefereeService
from referee.session import GameSession
from referee.store import EventStore


@contextmanager
def running_referee(game: str, config: dict, tmp_path, seed: int = 1, port: int | None = None, keydir=None):
    store = EventStore(tmp_path / f"{game}.sqlite")
    session = GameSession.start(game, config, seed, store)
    if port is None:
        router, pub = "tcp://127.0.0.1:*", "tcp://127.0.0.1:*"
    else:
        router, pub = f"tcp://127.0.0.1:{port}", f"tcp://127.0.0.1:{port + 1}"
    service = RefereeService(session, router, pub, keydir=keydir, heartbeat_s=0.2)
    thread = threading.Thread(target=service.serve, daemon=True)
    thread.start()
    try:
        yield service
    finally:
        service.stop()
        thread.join(5)
        service.close()
        store.close()


def referee_args(db, port: int, *extra: str, game: str = "theplan") -> list[str]:
    """`python -m tabletop referee` from this checkout, on loopback ports port and port + 1."""
    return [
        sys.executable,
        "-m",
        "tabletop",
        "referee",
        "--game",
        game,
        "--db",
        str(db),
        "--port",
        str(port),
        *extra,
    ]


def start_referee_process(db, port: int, *extra: str, game: str = "theplan") -> subprocess.Popen:
    """A real referee process, returned once it answers a ping."""
    proc = subprocess.Popen(
        referee_args(db, port, *extra, game=game), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    probe = Connection(f"tcp://127.0.0.1:{port}")
    try:
        probe.request("ping", timeout_s=10, retries=1)
    except ServiceUnavailable:
        proc.kill()
        out, err = proc.communicate(timeout=10)
        raise AssertionError(f"the referee did not start: {err or out}") from None
    finally:
        probe.close()
    return proc
