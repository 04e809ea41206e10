"""The event store: one SQLite file per game, append-only, WAL mode (docs/architecture.md, "Event store").

Every event a command produces is appended - and synced to disk - together with the command's
reply in one transaction, before anything is published or acknowledged; so a referee killed at
any moment (even `kill -9`) has lost no acknowledged command, and a restart replays the file.
`batch()` lets the service commit several commands with one fsync (group commit); their replies
still wait for that commit.

One writer per file: the writer holds an exclusive `flock` on the sidecar `FILE.lock` (which
names it: pid, host, start time). The kernel drops the lock when the process dies, so a killed
referee never blocks its own restart. Readers (`--export`, tests) open the file read-only.

Integrity: each event row carries `hash = sha256(previous hash + its stored body)` (the body is
the whole event, secrets included), and `meta.head` holds the last seq and hash, written in the
same transaction. `verify()` checks SQLite's pages (quick_check), that seqs run 1, 2, 3... and
the chain up to the head, and names the intact prefix that `export(..., upto=N)` can save.

The file holds secrets (hands, face-down identities, the seed): it is the referee's own record,
never something to publish.

Schema history: version 1 had no hash chain and one global command-id table; version 2 scopes
command ids to the seat that sent them and chains the events. A version 1 file is upgraded on its
first resume (after its seqs are checked; the chain is computed then, so it vouches only for what
the file held at that moment).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
import socket
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger("tabletop.referee")

SCHEMA_VERSION = 2
GENESIS = "00" * 32  # the "previous hash" of event 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    command_id TEXT,
    body TEXT NOT NULL,
    hash TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS commands (
    scope TEXT NOT NULL,
    id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    reply TEXT NOT NULL,
    PRIMARY KEY (scope, id)
);
"""


class StoreError(Exception):
    """The event file is missing, in use, of another game, or damaged; the message says what to do."""


@dataclass(frozen=True)
class GameRecord:
    """What a stored game was started with: enough to rebuild it by replay."""

    game: str
    seed: int
    config: dict[str, Any]
    versions: dict[str, Any]


@dataclass(frozen=True)
class Damage:
    """What `check()` found wrong, and how many events from the start are intact."""

    what: str
    intact: int


def chain_hash(previous: str, body: str) -> str:
    """The hash of an event: sha256 over the previous event's hash and this event's stored body."""
    return hashlib.sha256(bytes.fromhex(previous) + body.encode("utf-8")).hexdigest()


def scope_of(seat: str | None) -> str:
    """Command ids are unique per seat; a connection that joined no seat has its own scope ("")."""
    return seat or ""


class EventStore:
    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._lock_fd: int | None = None
        self._batch_depth = 0
        self._batch_open = False
        self._broken: str | None = None
        if readonly and not self.path.exists():
            raise StoreError(f"there is no game file {self.path}; check the --db path")
        if not readonly:
            self._lock_fd = _take_lock(self.path)
        try:
            if readonly:
                self._db = sqlite3.connect(
                    f"{self.path.resolve().as_uri()}?mode=ro",
                    uri=True,
                    isolation_level=None,
                    check_same_thread=False,
                )
                self._db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
            else:
                self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
                self._db.execute("PRAGMA journal_mode=WAL")
                # FULL: the WAL is fsynced at every commit, so an acknowledged command survives a crash.
                self._db.execute("PRAGMA synchronous=FULL")
                if not {"meta", "events", "commands"} <= self._tables():
                    # One transaction (executescript would commit each table): a kill here leaves
                    # an empty file, not half a schema.
                    with self._raw_transaction():
                        self._create_tables()
            self.version = self._shape()
            self._head = self._stored_head()
        except sqlite3.DatabaseError as exc:
            self._release()
            raise StoreError(
                f"{self.path} is not a readable game file ({exc}); give another --db file"
            ) from None

    # ---- the game this file holds ------------------------------------------------------------
    def record(self) -> GameRecord | None:
        meta = self._meta()
        if "game" not in meta:
            return None
        try:
            return GameRecord(
                game=meta["game"],
                seed=int(meta["seed"]),
                config=json.loads(meta["config"]),
                versions=json.loads(meta["versions"]),
            )
        except (KeyError, ValueError) as exc:
            raise StoreError(
                f"{self.path} has a damaged header ({exc}); start a new game with another --db"
            ) from None

    def _meta(self) -> dict[str, str]:
        try:
            return dict(self._db.execute("SELECT key, value FROM meta"))
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is damaged: its header cannot be read ({exc}); nothing in it can be "
                "trusted, start a new game with another --db"
            ) from None

    def start(self, record: GameRecord, events: Sequence[dict[str, Any]]) -> list[int]:
        """Write the header and the setup events in ONE transaction: a start cut short by a crash
        leaves an empty file, never a header without events."""
        self._writable(upgraded=False)  # start rewrites the schema anyway
        if self.last_seq() > 0:
            raise StoreError(
                f"{self.path} already holds a game; use --resume to continue it, or give a new --db file"
            )
        with self._transaction():
            # A header without events is a start that older versions left half done: nothing was
            # played, so it is replaced (with any leftovers of the old schema).
            self._reset_schema()
            self._write_record(record)
            return self._insert_events(events, None)

    # ---- events and replies ------------------------------------------------------------------
    def append(
        self,
        events: Sequence[dict[str, Any]],
        command_id: str | None = None,
        seat: str | None = None,
        reply: dict[str, Any] | None = None,
    ) -> list[int]:
        """Append events (and the command's reply, for idempotent retries) atomically; returns the
        sequence numbers given to the events. Inside `batch()` they reach the disk at its end."""
        self._writable()
        with self._transaction():
            seqs = self._insert_events(events, command_id)
            if command_id is not None and reply is not None:
                self._db.execute(
                    "INSERT INTO commands (scope, id, seq, reply) VALUES (?, ?, ?, ?)",
                    (scope_of(seat), command_id, self._head[0], json.dumps(reply, sort_keys=True)),
                )
        return seqs

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Group commit: every append inside is one transaction, committed (one fsync) on leaving.
        Whoever acknowledges those appends must do so only after this block has exited."""
        if self._batch_depth:
            self._batch_depth += 1
            try:
                yield
            finally:
                self._batch_depth -= 1
            return
        self._batch_depth = 1
        head = self._head
        try:
            yield
        except BaseException:
            if self._batch_open:
                self._db.execute("ROLLBACK")
                self._head = head
            raise
        else:
            if self._batch_open:
                self._commit(head)
        finally:
            self._batch_depth = 0
            self._batch_open = False

    def reply_for(self, command_id: str, seat: str | None = None) -> dict[str, Any] | None:
        if self.version == 1:  # an old file opened read-only: ids were global then
            row = self._db.execute("SELECT reply FROM commands WHERE id = ?", (command_id,)).fetchone()
        else:
            row = self._db.execute(
                "SELECT reply FROM commands WHERE scope = ? AND id = ?", (scope_of(seat), command_id)
            ).fetchone()
        return None if row is None else json.loads(row[0])

    def events(self, after_seq: int = 0, upto: int | None = None) -> Iterator[tuple[int, dict[str, Any]]]:
        last = upto if upto is not None else 2**62
        for seq, body in self._db.execute(
            "SELECT seq, body FROM events WHERE seq > ? AND seq <= ? ORDER BY seq", (after_seq, last)
        ):
            yield int(seq), json.loads(body)

    def last_seq(self) -> int:
        (seq,) = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        return int(seq)

    # ---- integrity -----------------------------------------------------------------------------
    def check(self) -> Damage | None:
        """What is wrong with this file, if anything, and how long its intact prefix is."""
        problems = []
        try:
            pages = [row[0] for row in self._db.execute("PRAGMA quick_check")]
        except sqlite3.DatabaseError as exc:
            pages = [str(exc)]
        if pages != ["ok"]:
            said = " ".join(" ".join(pages[:3]).replace("*** in database main ***", "").split())
            problems.append(f"its pages are damaged (SQLite: {said[:160]})")
        head = self._stored_head()  # as on disk now (a reader's may have moved on since it opened)
        found = self._walk_chain(head)
        if found is not None:
            problems.append(found.what)
            intact = found.intact
        else:
            intact = head[0]
        return Damage("; ".join(problems), intact) if problems else None

    def verify(self) -> int:
        """Refuse a damaged file with one line saying what can be saved; for the writer, upgrade
        an old file and checkpoint the WAL into the file. Returns the last seq."""
        damage = self.check()
        if damage is not None:
            raise StoreError(self.damage_message(damage))
        if not self.readonly:
            if self.version == 1:
                self._upgrade()
            self.checkpoint()
        return self._head[0]

    def damage_message(self, damage: Damage) -> str:
        name = self.path.name
        if damage.intact == 0:
            return f"{name} is damaged: {damage.what}; nothing in it can be saved, start a new game with another --db"
        game = self._meta().get("game") or "GAME"
        saved = self.path.with_name(f"{self.path.stem}-upto{damage.intact}{self.path.suffix}")
        return (
            f"{name} is damaged: {damage.what}. The events up to {damage.intact} are intact: save them with "
            f"`tabletop referee --db {self.path} --export {saved} --upto {damage.intact}`, then continue "
            f"with `tabletop referee --game {game} --db {saved} --resume`"
        )

    # ---- life cycle ----------------------------------------------------------------------------
    def checkpoint(self) -> None:
        """Move the WAL into the file and empty it, so the .sqlite alone holds the game."""
        if not self.readonly and self._broken is None:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()

    def close(self) -> None:
        try:
            if self._batch_depth == 0:
                self.checkpoint()  # a clean stop leaves one self-contained file
        except sqlite3.DatabaseError as exc:
            log.warning(
                "could not checkpoint %s at close (%s); its -wal file still holds events", self.path, exc
            )
        finally:
            self._db.close()
            self._release()

    # ---- internals -----------------------------------------------------------------------------
    def _writable(self, upgraded: bool = True) -> None:
        if self.readonly:
            raise StoreError(f"{self.path} was opened read-only")
        if self._broken is not None:
            raise StoreError(self._broken)
        if upgraded and self.version != SCHEMA_VERSION:
            raise StoreError(f"{self.path} is in an old format; resume it once to upgrade it")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        if self._batch_depth:
            if not self._batch_open:
                self._db.execute("BEGIN IMMEDIATE")
                self._batch_open = True
            # A failed append inside a batch would leave half a command in the open transaction:
            # undo just it (the session's game, already changed in memory, can no longer be
            # trusted either, so the store refuses everything after).
            head = self._head
            self._db.execute("SAVEPOINT one_command")
            try:
                yield
            except BaseException as exc:
                self._db.execute("ROLLBACK TO one_command")
                self._head = head
                self._fail(exc)
                raise
            self._db.execute("RELEASE one_command")
            return
        head = self._head
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException as exc:
            self._db.execute("ROLLBACK")
            self._head = head
            if isinstance(exc, sqlite3.DatabaseError):
                self._fail(exc)
            raise
        self._commit(head)

    def _commit(self, head: tuple[int, str]) -> None:
        try:
            if self._head != head:
                self._db.execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('head', ?)",
                    (f"{self._head[0]} {self._head[1]}",),
                )
            self._db.execute("COMMIT")
        except sqlite3.DatabaseError as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            self._head = head
            self._fail(exc)
            raise StoreError(self._broken) from None

    def _fail(self, exc: BaseException) -> None:
        if isinstance(exc, sqlite3.DatabaseError):
            self._broken = (
                f"could not write to {self.path} ({exc}); stop the referee and continue with --resume"
            )

    def _insert_events(self, events: Sequence[dict[str, Any]], command_id: str | None) -> list[int]:
        seqs = []
        seq, previous = self._head
        for event in events:
            body = json.dumps(event, sort_keys=True)
            seq, previous = seq + 1, chain_hash(previous, body)
            self._db.execute(
                "INSERT INTO events (seq, command_id, body, hash) VALUES (?, ?, ?, ?)",
                (seq, command_id, body, previous),
            )
            seqs.append(seq)
        self._head = (seq, previous)
        return seqs

    def _write_record(self, record: GameRecord) -> None:
        rows = {
            "game": record.game,
            "seed": str(record.seed),
            "config": json.dumps(record.config, sort_keys=True),
            "versions": json.dumps(record.versions, sort_keys=True),
            "schema": str(SCHEMA_VERSION),
        }
        self._db.executemany("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", rows.items())

    def _reset_schema(self) -> None:
        for table in ("meta", "events", "commands"):
            self._db.execute(f"DROP TABLE IF EXISTS {table}")
        self._create_tables()
        self.version = SCHEMA_VERSION
        self._head = (0, GENESIS)

    def _create_tables(self) -> None:
        for statement in _SCHEMA.split(";"):
            if statement.strip():
                self._db.execute(statement)

    def _tables(self) -> set[str]:
        return {row[0] for row in self._db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}

    def _columns(self, table: str) -> set[str]:
        return {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}

    def _shape(self) -> int:
        if not {"meta", "events", "commands"} <= self._tables():
            raise sqlite3.DatabaseError("it has no event tables")
        return 2 if "hash" in self._columns("events") else 1

    def _stored_head(self) -> tuple[int, str]:
        if self.version == 1:
            return (self.last_seq(), GENESIS)
        seq, _, digest = self._meta().get("head", f"0 {GENESIS}").partition(" ")
        return (int(seq), digest)

    def _walk_chain(self, head: tuple[int, str]) -> Damage | None:
        """Seqs 1, 2, 3... each chained to the one before (version 2), ending at the stored head."""
        expected, previous = 1, GENESIS
        try:
            for seq, body, *stored in self._db.execute(
                "SELECT seq, body, hash FROM events ORDER BY seq"
                if self.version == 2
                else "SELECT seq, body FROM events ORDER BY seq"
            ):
                if seq != expected:
                    missing = f"{expected}" if seq == expected + 1 else f"{expected} to {seq - 1}"
                    return Damage(f"event {missing} is missing after {expected - 1}", expected - 1)
                try:
                    json.loads(body)
                except (TypeError, ValueError):
                    return Damage(f"event {seq} is unreadable", seq - 1)
                if stored:
                    previous = chain_hash(previous, body)
                    if stored[0] != previous:
                        return Damage(
                            f"event {seq} was altered (it does not match the events before it)", seq - 1
                        )
                expected += 1
        except sqlite3.DatabaseError as exc:
            return Damage(f"event {expected} cannot be read ({exc})", expected - 1)
        last = expected - 1
        if self.version == 2:
            head_seq, head_hash = head
            if last < head_seq:
                return Damage(
                    f"the events after {last} are missing (the last one written was {head_seq})", last
                )
            if last > head_seq or (last and head_hash != previous):
                return Damage(f"the events after {head_seq} were not written by the referee", head_seq)
        return None

    def _command_rows(self, upto: int) -> list[tuple[str, str, int, str]]:
        """(scope, id, seq, reply) of the remembered commands whose events are all within `upto`.
        Version 1 kept refusals and one global id space: refusals are dropped (they are no longer
        stored: they change nothing) and each id is scoped to the seat that sent it."""
        if self.version == 2:
            return list(
                self._db.execute("SELECT scope, id, seq, reply FROM commands WHERE seq <= ?", (upto,))
            )
        rows = []
        for cid, seat, reply in self._db.execute("SELECT id, seat, reply FROM commands"):
            answer = json.loads(reply)
            if answer.get("ok") and int(answer.get("seq", 0)) <= upto:
                rows.append((scope_of(seat), cid, int(answer.get("seq", 0)), reply))
        return rows

    def _upgrade(self) -> None:
        """Version 1 -> 2 in one transaction: commands scoped by seat, the hash chain computed."""
        count = self.last_seq()
        with self._raw_transaction():
            commands = self._command_rows(count)
            events = list(self._db.execute("SELECT seq, command_id, body FROM events ORDER BY seq"))
            self._db.execute("DROP TABLE commands")
            self._db.execute("ALTER TABLE events RENAME TO events_v1")
            self._create_tables()
            previous = GENESIS
            for seq, command_id, body in events:
                previous = chain_hash(previous, body)
                self._db.execute(
                    "INSERT INTO events (seq, command_id, body, hash) VALUES (?, ?, ?, ?)",
                    (seq, command_id, body, previous),
                )
            self._db.execute("DROP TABLE events_v1")
            self._db.executemany("INSERT INTO commands (scope, id, seq, reply) VALUES (?, ?, ?, ?)", commands)
            self._db.executemany(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                [("schema", str(SCHEMA_VERSION)), ("head", f"{count} {previous}")],
            )
        self.version, self._head = SCHEMA_VERSION, (count, previous)
        log.info(
            "upgraded %s to store format %d: hash chain computed over its %d events, command ids scoped by seat",
            self.path,
            SCHEMA_VERSION,
            count,
        )

    @contextmanager
    def _raw_transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _import(self, source: EventStore, record: GameRecord, upto: int) -> None:
        """Fill this new file with `source`'s header, events 1..upto and their remembered replies."""
        with self._transaction():
            self._write_record(record)
            for seq, command_id, body in source._db.execute(
                "SELECT seq, command_id, body FROM events WHERE seq <= ? ORDER BY seq", (upto,)
            ):
                previous = chain_hash(self._head[1], body)
                self._db.execute(
                    "INSERT INTO events (seq, command_id, body, hash) VALUES (?, ?, ?, ?)",
                    (seq, command_id, body, previous),
                )
                self._head = (seq, previous)
            try:
                commands = source._command_rows(upto)
            except sqlite3.DatabaseError as exc:
                # Salvage the game anyway; only idempotent retries of earlier commands are lost.
                log.warning(
                    "the stored replies in %s cannot be read (%s); the copy has none, so a command "
                    "re-sent from before the copy would be applied again",
                    source.path,
                    exc,
                )
                commands = []
            self._db.executemany("INSERT INTO commands (scope, id, seq, reply) VALUES (?, ?, ?, ?)", commands)

    def _release(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the descriptor drops the flock
            self._lock_fd = None


def export(source: str | Path, target: str | Path, upto: int | None = None) -> int:
    """Copy a game into one new self-contained file (no -wal), safely even while a referee is
    writing it: everything is read in one read transaction. `upto` keeps only events 1..upto
    (the intact prefix of a damaged file). Returns the number of events copied."""
    source, target = Path(source), Path(target)
    if target.exists():
        raise StoreError(f"{target} already exists; give --export a new file name")
    src = EventStore(source, readonly=True)
    try:
        src._db.execute("BEGIN")  # one snapshot, whatever a running referee appends meanwhile
        record = src.record()
        if record is None:
            raise StoreError(f"{source} holds no game yet; there is nothing to export")
        last = src.last_seq()
        if upto is not None and not 0 < upto <= last:
            raise StoreError(f"--upto {upto}: {source.name} holds events 1 to {last}")
        damage = src.check()
        if damage is not None and (upto is None or upto > damage.intact):
            raise StoreError(src.damage_message(damage))
        count = upto if upto is not None else last
        part = target.with_name(target.name + ".part")
        for leftover in (part, Path(f"{part}-wal"), Path(f"{part}-shm")):
            leftover.unlink(missing_ok=True)
        out = EventStore(part)
        try:
            out._import(src, record, count)
        finally:
            out.close()  # checkpoints: the copy is one file
            Path(f"{part}.lock").unlink(missing_ok=True)
        os.replace(part, target)  # a half-written copy never looks like a game
    finally:
        src.close()
    return count


# ---- the writer's lock -------------------------------------------------------------------------
def lock_path(path: Path) -> Path:
    return path.with_name(path.name + ".lock")


def _take_lock(path: Path) -> int:
    where = lock_path(path)
    try:
        fd = os.open(where, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(f"cannot open {path} ({exc.strerror}); check the --db path") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = _holder(fd)
        os.close(fd)
        raise StoreError(f"{path.name} is in use by another referee ({holder}); stop it first") from None
    me = {"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()}
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(me).encode(), 0)
    return fd


def _holder(fd: int) -> str:
    try:
        info = json.loads(os.pread(fd, 4096, 0).decode())
        started = time.localtime(float(info["started"]))
        when = time.strftime("%H:%M" if started[:3] == time.localtime()[:3] else "%Y-%m-%d %H:%M", started)
        host = "" if info.get("host") == socket.gethostname() else f" on {info.get('host')}"
        return f"pid {int(info['pid'])}{host}, started {when}"
    except (ValueError, KeyError, TypeError, UnicodeDecodeError):
        return "it is just starting"
