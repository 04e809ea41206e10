"""The event store: one SQLite file per game, append-only, WAL mode (DESIGN.md "Event store").

Every event a command produces is appended - and synced to disk - together with the command's
reply in one transaction, before anything is published or acknowledged; so a referee killed at
any moment (even `kill -9`) has lost no acknowledged command, and a restart replays the file.
The file holds secrets (hands, face-down identities, the seed): it is the referee's own record,
never something to publish.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    command_id TEXT,
    body TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS commands (
    id TEXT PRIMARY KEY,
    seat TEXT,
    reply TEXT NOT NULL
);
"""


class StoreError(Exception):
    """The event file is missing, of another game, or damaged; the message says what to do."""


@dataclass(frozen=True)
class GameRecord:
    """What a stored game was started with: enough to rebuild it by replay."""

    game: str
    seed: int
    config: dict[str, Any]
    versions: dict[str, Any]


class EventStore:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: the WAL is fsynced at every commit, so an acknowledged command survives a crash.
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"{self.path} is not a readable game file ({exc}); give another --db file"
            ) from None

    # ---- the game this file holds ------------------------------------------------------------
    def record(self) -> GameRecord | None:
        meta = dict(self._db.execute("SELECT key, value FROM meta"))
        if not meta:
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

    def start(self, record: GameRecord) -> None:
        if self.record() is not None:
            raise StoreError(
                f"{self.path} already holds a game; use --resume to continue it, or give a new --db file"
            )
        rows = {
            "game": record.game,
            "seed": str(record.seed),
            "config": json.dumps(record.config, sort_keys=True),
            "versions": json.dumps(record.versions, sort_keys=True),
            "schema": str(SCHEMA_VERSION),
        }
        with self._transaction():
            self._db.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", rows.items())

    # ---- events and replies ------------------------------------------------------------------
    def append(
        self,
        events: Sequence[dict[str, Any]],
        command_id: str | None = None,
        seat: str | None = None,
        reply: dict[str, Any] | None = None,
    ) -> list[int]:
        """Append events (and the command's reply, for idempotent retries) atomically; returns the
        sequence numbers given to the events."""
        seqs = []
        with self._transaction():
            for event in events:
                cur = self._db.execute(
                    "INSERT INTO events (command_id, body) VALUES (?, ?)",
                    (command_id, json.dumps(event, sort_keys=True)),
                )
                seqs.append(int(cur.lastrowid))
            if command_id is not None and reply is not None:
                self._db.execute(
                    "INSERT INTO commands (id, seat, reply) VALUES (?, ?, ?)",
                    (command_id, seat, json.dumps(reply, sort_keys=True)),
                )
        return seqs

    def reply_for(self, command_id: str) -> dict[str, Any] | None:
        row = self._db.execute("SELECT reply FROM commands WHERE id = ?", (command_id,)).fetchone()
        return None if row is None else json.loads(row[0])

    def events(self, after_seq: int = 0) -> Iterator[tuple[int, dict[str, Any]]]:
        for seq, body in self._db.execute(
            "SELECT seq, body FROM events WHERE seq > ? ORDER BY seq", (after_seq,)
        ):
            yield int(seq), json.loads(body)

    def last_seq(self) -> int:
        (seq,) = self._db.execute("SELECT COALESCE(MAX(seq), 0) FROM events").fetchone()
        return int(seq)

    def close(self) -> None:
        self._db.close()

    def _transaction(self) -> _Transaction:
        return _Transaction(self._db)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
