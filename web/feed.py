"""The public feed: one StateMirror (subscribe, snapshot, numbered updates, re-sync on a gap) kept
by one thread and fanned out to every page, so 10 table screens cost the referee one subscriber.
It also says whether the referee is reachable, in words for the pages' banner."""

from __future__ import annotations

import json
import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import zmq

from display.words import QUIET, describe_event
from referee.client import ServiceUnavailable, StateMirror, check_referee, updates_endpoint

log = logging.getLogger("tabletop.web")

Message = tuple[dict[str, Any], str]  # a message and its JSON text, encoded once for every page
RECENT = 20  # public events a page gets with its snapshot (the referee's own snapshot keeps 20)
SILENT_S = 3.5  # the referee heartbeats every second: this long without a word means it is down
RETRY_S = 1.0


def encode(message: dict[str, Any]) -> str:
    """A message as the pages get it: compact JSON."""
    return json.dumps(message, separators=(",", ":"))


@dataclass(frozen=True)
class Batch:
    """What the feed hands its listeners at once: the messages of one read of the referee's stream,
    in order (a command's events and the state after them), and what a page that starts right
    after them is given (the status and the snapshot as of the last of them)."""

    messages: list[Message]
    status: dict[str, Any]
    snapshot: dict[str, Any] | None


Listener = Callable[[Batch], None]


class PublicFeed:
    """Batches of messages to listeners (called from the feed's thread; they must not block):
    {"kind": "snapshot", "seq", "game", "state", "recent": [{"seq", "event"}]},
    {"kind": "event", "seq", "event", "words", "quiet"}, {"kind": "state", "seq", "state"},
    (events carry their sentence in `words`, the overview's own, so pages need no copy of it;
    `quiet` marks bookkeeping nobody watches for)
    {"kind": "status", "up": bool, "message"}."""

    def __init__(
        self,
        router_endpoint: str,
        context: zmq.Context | None = None,
        server_public: bytes | None = None,
        client_keys: tuple[bytes, bytes] | None = None,
    ) -> None:
        self.endpoint = router_endpoint
        self._keys = (server_public, client_keys)
        self.ctx = context or zmq.Context.instance()
        self._listeners: set[Listener] = set()
        self._lock = threading.Lock()  # listeners and what a new listener is given
        self._stop = threading.Event()
        self._mirror: StateMirror | None = None
        self._snapshot: dict[str, Any] | None = None
        self._recent: deque[dict[str, Any]] = deque(maxlen=RECENT)  # the last event messages, as sent
        self._status: dict[str, Any] = {"kind": "status", "up": False, "message": "connecting to the referee"}
        self.ready = threading.Event()  # set once the first snapshot is in
        self._thread = threading.Thread(target=self._run, name="web-feed", daemon=True)

    def start(self) -> PublicFeed:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)

    # ---- listeners ----------------------------------------------------------------------------
    def add(self, listener: Listener) -> None:
        """Subscribe; the listener gets the status and the current snapshot first, then updates."""
        with self._lock:
            self._listeners.add(listener)
            listener(self._batch(opening(self._status, self._snapshot)))

    def remove(self, listener: Listener) -> None:
        with self._lock:
            self._listeners.discard(listener)

    def snapshot(self) -> dict[str, Any] | None:
        with self._lock:
            return self._snapshot

    @property
    def up(self) -> bool:
        return bool(self._status["up"])

    def _batch(self, messages: list[Message]) -> Batch:
        return Batch(messages, self._status, self._snapshot)

    def _broadcast(self, *messages: dict[str, Any], snapshot: dict[str, Any] | None = None) -> None:
        """Hand the messages to every listener as one batch (one hand-over per read of the stream,
        not one per message and page: each is a thread's wake-up on a busy machine). `snapshot`:
        the feed's new snapshot, as of these messages (set in the same step, so a page that starts
        gets either it or the messages, never both or neither)."""
        encoded = [(message, encode(message)) for message in messages]
        with self._lock:
            if snapshot is not None:
                self._snapshot = snapshot
            for message in messages:
                if message["kind"] == "status":
                    self._status = message
            batch = self._batch(encoded)
            for listener in list(self._listeners):
                try:
                    listener(batch)
                except Exception:  # one broken page must not stop the feed for the others
                    log.exception("a page's listener failed")

    def _set_status(self, up: bool, message: str) -> None:
        if (up, message) != (self._status["up"], self._status["message"]):
            log.info("referee %s: %s", "up" if up else "down", message)
            self._broadcast({"kind": "status", "up": up, "message": message})

    # ---- the thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                if self._mirror is None:
                    self._open()
                else:
                    self._follow(self._mirror)
            except ServiceUnavailable as exc:
                self._set_status(False, str(exc))
                self._stop.wait(RETRY_S)
            except Exception:
                log.exception("the web feed failed; it starts again")
                self._close_mirror()
                self._stop.wait(RETRY_S)
        self._close_mirror()

    def _open(self) -> None:
        # check_referee names what is wrong at once (no referee, wrong port) instead of the
        # mirror's first snapshot timing out three times over.
        check_referee(self.endpoint, *self._keys, timeout_s=1.5, context=self.ctx)
        self._mirror = StateMirror(
            self.endpoint, updates_endpoint(self.endpoint), *self._keys, context=self.ctx
        )
        self._publish_snapshot(self._mirror)
        self._set_status(True, "connected to the referee")
        self.ready.set()

    def _close_mirror(self) -> None:
        if self._mirror is not None:
            self._mirror.close()
            self._mirror = None

    def _publish_snapshot(self, mirror: StateMirror) -> None:
        self._recent = deque((_event(s, e) for s, e in mirror.events[-RECENT:]), maxlen=RECENT)
        snapshot = {
            "kind": "snapshot",
            "seq": mirror.state_seq,
            "game": mirror.game,
            "state": mirror.state,
            "recent": list(self._recent),
        }
        self._last = (mirror.state_seq, mirror.resyncs, mirror.state)
        self._heard = time.monotonic()
        self._broadcast(snapshot, snapshot=snapshot)

    def _follow(self, mirror: StateMirror) -> None:
        seq, resyncs, state = self._last
        new = mirror.poll(0.05)
        if mirror.resyncs != resyncs:  # a gap (or a restarted referee): everyone starts again
            self._publish_snapshot(mirror)
            self._set_status(True, "connected to the referee")
            return
        messages = [_event(event_seq, event) for event_seq, event in new]
        self._recent.extend(messages)
        if new:
            self._heard = time.monotonic()
        if mirror.state is not state:  # a state message came (after a change, or the heartbeat)
            self._heard = time.monotonic()
            self._set_status(True, "connected to the referee")
            if mirror.state_seq != seq or mirror.state != state:
                messages.append({"kind": "state", "seq": mirror.state_seq, "state": mirror.state})
        self._last = (mirror.state_seq, mirror.resyncs, mirror.state)
        if messages and self._snapshot is not None:
            snapshot = {
                **self._snapshot,
                "seq": mirror.state_seq,
                "state": mirror.state,
                "recent": list(self._recent),
            }
            self._broadcast(*messages, snapshot=snapshot)
        silent = time.monotonic() - self._heard
        if silent > SILENT_S:
            self._set_status(False, f"the referee has not been heard from for {SILENT_S:g} s; waiting for it")


def opening(status: dict[str, Any], snapshot: dict[str, Any] | None) -> list[Message]:
    """What a page that starts now is sent first: the status, then the snapshot (once there is one)."""
    return [(m, encode(m)) for m in (status, snapshot) if m is not None]


def _event(seq: int, event: dict[str, Any]) -> dict[str, Any]:
    return {
        "kind": "event",
        "seq": seq,
        "event": event,
        "words": describe_event(event),
        "quiet": event.get("type") in QUIET,
    }
