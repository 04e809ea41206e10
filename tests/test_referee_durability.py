"""The event file under faults (issue 21): command ids per seat, one referee per file, a damaged
log refused with what can be saved, an atomic start, the -wal file and --export, clients that
re-join a restarted referee, seeds nobody can see, and group commit. Real referee processes,
real SQLite files, real SIGKILLs."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
import zmq

from referee.client import Connection, StateMirror
from referee.games import GAMES
from referee.protocol import Request, encode
from referee.session import GameSession
from referee.store import EventStore, GameRecord, StoreError, export
from tests.service_helpers import free_port_pair, referee_args, running_referee, start_referee_process

# Waits on processes, sockets or a browser with timeouts: one at a time (pyproject.toml).
pytestmark = pytest.mark.xdist_group("processes")

SEATS = ["ann", "bob", "cat"]
CONFIG = {"seats": SEATS}


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tabletop", *args], capture_output=True, text=True, timeout=timeout
    )


def stop(proc: subprocess.Popen) -> tuple[str, str]:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    return proc.communicate(timeout=20)


def play(session: GameSession, commands: int, seed: int = 1) -> list[tuple[str, str]]:
    """Random legal commands straight into a session; returns (seat, id) of each."""
    rng, sent = random.Random(seed), []
    for i in range(commands):
        if not session.game.to_act():
            break  # the game is over
        seat = rng.choice(session.game.to_act())
        body = rng.choice(session.game.legal_commands(seat)).to_dict()
        reply = session.handle(Request(f"c{i}", body["type"], seat, body), seat).reply
        assert reply["ok"], reply
        sent.append((seat, f"c{i}"))
    return sent


def stored_game(path, commands: int = 40) -> int:
    store = EventStore(path)
    session = GameSession.start("theplan", CONFIG, 5, store)
    play(session, commands)
    store.close()
    return session.seq


def legal(session_or_game, seat: str) -> tuple[str, dict]:
    game = getattr(session_or_game, "game", session_or_game)
    body = game.legal_commands(seat)[0].to_dict()
    return body.pop("type"), body


# ---- 4: command ids belong to the seat that sent them -------------------------------------------
def test_the_same_command_id_from_two_seats_is_two_commands(tmp_path):
    with running_referee("theplan", CONFIG, tmp_path) as service:
        ann, bob = Connection(service.router_endpoint), Connection(service.router_endpoint)
        try:
            assert ann.join("ann")["ok"] and bob.join("bob")["ok"]
            kind, body = legal(service.session, "ann")
            first = ann.request(kind, id="x1", **body)
            kind, body = legal(service.session, "bob")
            second = bob.request(kind, id="x1", **body)
            assert first["ok"] and second["ok"] and "duplicate" not in second
            assert second["seq"] > first["seq"]  # Bob's command was applied
            again = ann.request("anything", id="x1")
            assert again.get("duplicate") is True and again["seq"] == first["seq"]
        finally:
            ann.close()
            bob.close()


def _downgrade_to_version_1(path) -> None:
    """Rewrite a file in the layout of store schema 1 (no hash chain, one global id table)."""
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE events1 (seq INTEGER PRIMARY KEY, command_id TEXT, body TEXT NOT NULL);
        INSERT INTO events1 SELECT seq, command_id, body FROM events;
        DROP TABLE events; ALTER TABLE events1 RENAME TO events;
        CREATE TABLE commands1 (id TEXT PRIMARY KEY, seat TEXT, reply TEXT NOT NULL);
        INSERT INTO commands1 SELECT id, scope, reply FROM commands;
        DROP TABLE commands; ALTER TABLE commands1 RENAME TO commands;
        DELETE FROM meta WHERE key = 'head';
        UPDATE meta SET value = '1' WHERE key = 'schema';
        """
    )
    db.commit()
    db.close()


def test_an_old_file_is_upgraded_on_its_first_resume(tmp_path):
    db, port = tmp_path / "old.sqlite", free_port_pair()
    seq = stored_game(db)
    _downgrade_to_version_1(db)
    proc = start_referee_process(db, port, "--resume")
    conn = Connection(f"tcp://127.0.0.1:{port}")
    try:
        assert conn.request("ping")["seq"] == seq
    finally:
        conn.close()
        _, err = stop(proc)
    assert "upgraded" in err and "hash chain" in err
    store = EventStore(db, readonly=True)
    assert store.version == 2 and store.check() is None
    assert store.reply_for("c0", "ann") or store.reply_for("c0", "bob") or store.reply_for("c0", "cat")
    store.close()


# ---- 6: one referee per file ------------------------------------------------------------------
@pytest.mark.slow  # real referee processes killed, restarted or spawned: seconds each
def test_a_second_referee_on_a_running_game_is_refused_and_a_killed_ones_lock_does_not_block(tmp_path):
    db, port, other = tmp_path / "game.sqlite", free_port_pair(), free_port_pair()
    first = start_referee_process(db, port, "--players", "ann,bob,cat", "--seed", "3")
    try:
        second = cli(*referee_args(db, other, "--resume")[3:])
        assert second.returncode == 2
        line = second.stderr.strip()
        assert "\n" not in line and "Traceback" not in line
        assert f"game.sqlite is in use by another referee (pid {first.pid}, started " in line
        assert line.endswith("stop it first")
    finally:
        first.kill()  # SIGKILL: the kernel drops its flock
        first.wait(10)
    again = start_referee_process(db, port, "--resume")
    stop(again)
    assert again.returncode == 0


# ---- 7: a damaged log is refused, with what can be saved -----------------------------------------
def _delete_event(where: str):
    def damage(path, last: int) -> int:
        seq = {"middle": last // 2, "last": last}[where]
        db = sqlite3.connect(path)
        db.execute("DELETE FROM events WHERE seq = ?", (seq,))
        db.commit()
        db.close()
        return seq - 1

    return damage


def _alter_event(path, last: int) -> int:
    db = sqlite3.connect(path)
    db.execute("UPDATE events SET body = substr(body, 1, length(body) - 1) || ', \"x\": 1}' WHERE seq = 20")
    db.commit()
    db.close()
    return 19


def _scribble_on_a_page(path, last: int) -> int | None:
    pages = os.path.getsize(path) // 4096
    with open(path, "r+b") as f:
        f.seek(4096 * (pages * 2 // 3))
        f.write(random.Random(0).randbytes(4096))
    return None  # where the damage falls depends on SQLite's layout


@pytest.mark.slow  # real referee processes killed, restarted or spawned: seconds each
@pytest.mark.parametrize(
    "damage, said",
    [
        (_delete_event("middle"), "is missing after"),
        (_delete_event("last"), "are missing (the last one written was"),
        (_alter_event, "was altered"),
        (_scribble_on_a_page, "is damaged"),
    ],
    ids=["middle-event-deleted", "last-event-deleted", "event-altered", "page-overwritten"],
)
def test_a_damaged_log_is_refused_with_what_can_be_saved_and_the_saved_part_resumes(tmp_path, damage, said):
    db, port = tmp_path / "game.sqlite", free_port_pair()
    last = stored_game(db, commands=120)
    intact = damage(db, last)
    refused = cli(*referee_args(db, port, "--resume")[3:])
    assert refused.returncode == 2, refused.stdout
    line = refused.stderr.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith("tabletop: error: game.sqlite is damaged: ") and said in line
    found = re.search(
        r"[Tt]he events up to (\d+) are intact: save them with `tabletop (referee [^`]+)`", line
    )
    assert found, line
    assert intact is None or int(found.group(1)) == intact
    saved = cli(*shlex.split(found.group(2)))
    assert saved.returncode == 0, saved.stderr
    copy = tmp_path / f"game-upto{found.group(1)}.sqlite"
    proc = start_referee_process(copy, port, "--resume")
    conn = Connection(f"tcp://127.0.0.1:{port}")
    try:
        assert conn.request("ping")["seq"] == int(found.group(1))
        assert conn.join("ann")["ok"]
    finally:
        conn.close()
        stop(proc)


def test_export_refuses_a_damaged_file_unless_told_what_to_keep(tmp_path):
    db = tmp_path / "game.sqlite"
    last = stored_game(db)
    _delete_event("middle")(db, last)
    with pytest.raises(StoreError, match=f"--upto {last // 2 - 1}"):
        export(db, tmp_path / "copy.sqlite")
    with pytest.raises(StoreError, match="is missing"):
        export(db, tmp_path / "copy.sqlite", upto=last // 2)
    assert export(db, tmp_path / "copy.sqlite", upto=last // 2 - 1) == last // 2 - 1


# ---- 8: the start is one transaction ----------------------------------------------------------
@pytest.mark.slow  # real referee processes killed, restarted or spawned: seconds each
def test_a_kill_during_the_start_leaves_a_file_that_starts_or_resumes(tmp_path):
    rng = random.Random(4)
    for attempt in range(6):
        db, port = tmp_path / f"g{attempt}.sqlite", free_port_pair()
        proc = subprocess.Popen(
            referee_args(db, port, "--players", "ann,bob,cat", "--seed", "9"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        while not db.exists() and proc.poll() is None:
            time.sleep(0.001)
        time.sleep(rng.uniform(0, 0.03))  # somewhere in the start
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        store = EventStore(db)
        try:
            session = GameSession.resume(store)
            assert session.seq > 0
        except StoreError as exc:
            assert "holds no game yet" in str(exc)
            assert GameSession.start("theplan", CONFIG, 9, store).seq > 0
        finally:
            store.close()


def test_a_header_without_events_left_by_an_old_version_is_started_again(tmp_path):
    db = tmp_path / "game.sqlite"
    stored_game(db, commands=0)
    sql = sqlite3.connect(db)
    sql.execute("DELETE FROM events")
    sql.commit()
    sql.close()
    store = EventStore(db)
    with pytest.raises(StoreError, match="holds no game yet"):
        GameSession.resume(store)
    assert GameSession.start("theplan", CONFIG, 2, store).seq > 0
    store.close()


# ---- 9: the -wal file, checkpoints and --export ------------------------------------------------
def drive(conns: dict[str, Connection], twin, commands: int, seed: int = 7) -> list[tuple[str, str]]:
    """Random legal commands over the wire, mirrored on a twin game; returns (seat, id) of each."""
    rng, acked = random.Random(seed), []
    for i in range(commands):
        seat = rng.choice(twin.to_act())
        body = rng.choice(twin.legal_commands(seat)).to_dict()
        kind = body.pop("type")
        reply = conns[seat].request(kind, id=f"d{i}", **body)
        assert reply["ok"], reply
        GAMES["theplan"].apply(twin, {"type": kind, **body, "player": seat})
        acked.append((seat, f"d{i}"))
    return acked


@pytest.mark.slow  # real referee processes killed, restarted or spawned: seconds each
def test_export_makes_one_whole_file_while_the_referee_runs_and_after_a_kill_9(tmp_path):
    db, port = tmp_path / "game.sqlite", free_port_pair()
    proc = start_referee_process(db, port, "--players", "ann,bob,cat", "--seed", "3")
    twin, _ = GAMES["theplan"].setup(CONFIG, 3)
    conns = {seat: Connection(f"tcp://127.0.0.1:{port}") for seat in SEATS}
    try:
        for seat, conn in conns.items():
            assert conn.join(seat)["ok"]
        acked = drive(conns, twin, 30)
        last = conns["ann"].request("ping")["seq"]
        live = cli("referee", "--db", str(db), "--export", str(tmp_path / "live.sqlite"))
        assert live.returncode == 0, live.stderr
        proc.kill()  # SIGKILL: the last events are only in game.sqlite-wal
        proc.wait(10)
    finally:
        for conn in conns.values():
            conn.close()
    assert os.path.getsize(f"{db}-wal") > 0
    after = cli("referee", "--db", str(db), "--export", str(tmp_path / "after.sqlite"))
    assert after.returncode == 0, after.stderr
    for name in ("live.sqlite", "after.sqlite"):
        assert not (tmp_path / f"{name}-wal").exists()
        alone = tmp_path / "alone" / name  # the single file, copied without anything beside it
        alone.parent.mkdir(exist_ok=True)
        shutil.copy(tmp_path / name, alone)
        store = EventStore(alone, readonly=True)
        assert store.check() is None and store.last_seq() == last
        assert all(store.reply_for(cid, seat) for seat, cid in acked)
        store.close()
    # A resume checkpoints the WAL into the file; a clean stop does too.
    proc = start_referee_process(db, port, "--resume")
    try:
        assert not os.path.exists(f"{db}-wal") or os.path.getsize(f"{db}-wal") == 0
    finally:
        stop(proc)
    assert proc.returncode == 0
    only = tmp_path / "only" / "game.sqlite"
    only.parent.mkdir()
    shutil.copy(db, only)
    store = EventStore(only)
    assert GameSession.resume(store).public_state() == GAMES["theplan"].public_view(twin)
    store.close()


# ---- 10: clients re-join a restarted referee by themselves --------------------------------------
def test_a_connected_client_rejoins_a_restarted_referee_by_itself(tmp_path):
    db, port = tmp_path / "game.sqlite", free_port_pair()
    proc = start_referee_process(db, port, "--players", "ann,bob,cat", "--seed", "3")
    twin, _ = GAMES["theplan"].setup(CONFIG, 3)
    conn = Connection(f"tcp://127.0.0.1:{port}")
    try:
        assert conn.join("ann")["ok"]
        kind, body = legal(twin, "ann")
        assert conn.request(kind, **body)["ok"]
        GAMES["theplan"].apply(twin, {"type": kind, **body, "player": "ann"})
        proc.kill()
        proc.wait(10)
        proc = start_referee_process(db, port, "--resume")
        # The same connection, never told to join again: the view and the next command just work.
        assert conn.request("view")["ok"]
        kind, body = legal(twin, "ann")
        reply = conn.request(kind, **body)
        assert reply["ok"], reply
        assert conn.rejoins >= 1
    finally:
        conn.close()
        stop(proc)


# ---- 12: the seed is nowhere a player can see -------------------------------------------------
def test_the_seed_is_in_no_public_message_reply_or_console_line(tmp_path):
    db, port = tmp_path / "game.sqlite", free_port_pair()
    ctx = zmq.Context.instance()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"")
    sub.connect(f"tcp://127.0.0.1:{port + 1}")
    proc = start_referee_process(db, port, "--players", "ann,bob,cat")
    seen: list[str] = []
    conns = {seat: Connection(f"tcp://127.0.0.1:{port}") for seat in SEATS}
    try:
        for seat, conn in conns.items():
            seen.append(json.dumps(conn.join(seat)))
        # The subscription is live once the first heartbeat arrives: only then drive the game, so
        # that every event it publishes is scanned too.
        assert sub.poll(10_000), "no state heartbeat on the updates port"
        store = EventStore(db, readonly=True)
        twin = GAMES["theplan"].replay(CONFIG, 0, [e for _, e in store.events()])  # seed: from the events
        store.close()
        drive(conns, twin, 20)
        for conn in conns.values():
            seen += [json.dumps(conn.request(kind)) for kind in ("snapshot", "view", "ping")]
        while sub.poll(500):
            seen.extend(frame.decode() for frame in sub.recv_multipart())
        seen.extend(json.dumps(m) for conn in conns.values() for m in conn.poll_private(0.2))
    finally:
        for conn in conns.values():
            conn.close()
        sub.close(0)
        out, err = stop(proc)
    store = EventStore(db, readonly=True)
    seed = store.record().seed
    store.close()
    assert seed.bit_length() > 128  # 256 random bits
    assert len(seen) > 50
    everything = "\n".join([*seen, out, err])
    for form in (str(seed), f"{seed:x}", f"{seed:X}"):
        assert form not in everything


@pytest.mark.parametrize("game", ["theplan", "masterplan"])
def test_a_256_bit_seed_sets_up_and_replays_identically(game):
    adapter = GAMES[game]
    config = adapter.make_config(["Ann", "Bob", "Cy"], {}) if game == "masterplan" else CONFIG
    seed = 2**255 + 987654321
    first, events = adapter.setup(config, seed)
    second, again = adapter.setup(config, seed)
    other, different = adapter.setup(config, seed + 1)
    assert events == again and events != different
    assert adapter.public_view(adapter.replay(config, seed, events)) == adapter.public_view(first)


# ---- 11: group commit ---------------------------------------------------------------------------
def test_a_batch_reaches_the_file_at_its_end_and_a_failed_batch_leaves_nothing(tmp_path):
    path = tmp_path / "game.sqlite"
    store = EventStore(path)
    store.start(GameRecord("theplan", 1, CONFIG, {}), [{"type": "a"}])
    reader = EventStore(path, readonly=True)
    with store.batch():
        assert store.append([{"type": "b"}], "x", "ann", {"id": "x", "ok": True}) == [2]
        assert store.append([{"type": "c"}, {"type": "d"}], "x", "bob", {"id": "x", "ok": True}) == [3, 4]
        assert reader.last_seq() == 1  # nothing is on disk (or acknowledged) before the commit
    assert reader.last_seq() == 4
    with pytest.raises(RuntimeError):
        with store.batch():
            store.append([{"type": "e"}])
            raise RuntimeError("the service failed mid-batch")
    assert store.append([{"type": "f"}]) == [5]
    assert store.check() is None and reader.check() is None
    reader.close()
    store.close()


def test_pipelined_commands_from_every_seat_are_each_answered_once_and_published_in_order(tmp_path):
    with running_referee("theplan", CONFIG, tmp_path) as service:
        endpoint = service.router_endpoint
        conns = {seat: Connection(endpoint) for seat in SEATS}
        mirror = StateMirror(endpoint, service.pub_endpoint)
        try:
            for seat, conn in conns.items():
                assert conn.join(seat)["ok"]
            seats = SEATS[:2]  # a third commit would end the round; two keep committing and withdrawing
            plans = {seat: service.session.game.legal_commands(seat)[0].to_dict() for seat in seats}
            for i in range(30):  # everything is sent before any answer is read
                for seat in seats:
                    body = dict(plans[seat]) if i % 2 == 0 else {"type": "withdraw_plan"}
                    conns[seat].sock.send(encode({"id": f"p{i}", "player": seat, **body}))
            replies = []
            for seat in seats:
                mine = []
                while len(mine) < 30 and conns[seat].sock.poll(10_000):
                    msg = json.loads(conns[seat].sock.recv())
                    if msg.get("type") != "private":
                        mine.append(msg)
                assert [r["id"] for r in mine] == [f"p{i}" for i in range(30)]
                replies += mine
            assert all(r["ok"] for r in replies), [r for r in replies if not r["ok"]][:3]
            last = max(r["seq"] for r in replies)
            deadline = time.monotonic() + 20
            while mirror.seq < last and time.monotonic() < deadline:
                mirror.poll(0.2)
            assert [seq for seq, _ in mirror.events] == list(range(mirror.events[0][0], last + 1))
            assert mirror.resyncs == 1  # one state message per batch, never ahead of its events
        finally:
            mirror.close()
            for conn in conns.values():
                conn.close()
