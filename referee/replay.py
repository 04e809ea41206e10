"""A stored game as everyone at the table saw it, step by step: each public event with the public
state after it. For replays in a browser (`tabletop web --replay FILE`); public parts only - the
file's secrets (the seed, hands, face-down names, Plans before their reveal) never leave."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.games import GAMES
from referee.store import EventStore, StoreError


def public_replay(path: str | Path) -> dict[str, Any]:
    """{"game", "steps": [{"seq", "event", "state"}]} for the game file at `path`, read-only (a
    referee may be running it). A state is rebuilt by replaying the events up to it: the engines
    are deterministic, so it is the public state the referee published at that seq."""
    if not Path(path).is_file():
        raise StoreError(f"{path} is not a game file (tabletop referee --db FILE writes one)")
    store = EventStore(path, readonly=True)
    try:
        record = store.record()
        if record is None:
            raise StoreError(f"{path} holds no game")
        adapter = GAMES.get(record.game)
        if adapter is None:
            raise StoreError(f"{path} holds a game this referee does not know: {record.game!r}")
        events = [event for _, event in store.events()]
    finally:
        store.close()
    steps: list[dict[str, Any]] = []

    def step(game: Any, count: int) -> None:
        steps.append(
            {
                "seq": count,
                "event": adapter.public_event(events[count - 1]),
                "state": adapter.public_view(game),
            }
        )

    try:
        adapter.replay(record.config, record.seed, events, each=step)
    except (ValueError, KeyError, TypeError) as exc:
        raise StoreError(
            f"{path} does not replay with these rules ({exc}); it was written by another version"
        ) from None
    return {"game": record.game, "steps": steps}
