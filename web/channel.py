"""One browser page's seat: its own ZeroMQ connection to the referee (a DEALER joined with the
seat's token), driven by one thread, because ZeroMQ sockets are not thread-safe and a slow reply
must hold up only this page. What it passes to the page is this seat's alone: its view (hand,
legal commands), its private messages and the replies to its commands."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

import zmq

from referee.client import Connection, ServiceUnavailable
from referee.protocol import SERVICE_TYPES

log = logging.getLogger("tabletop.web")

Send = Callable[[dict[str, Any]], None]
MAX_WAITING = 32  # commands a page may have in flight; a flood beyond it is refused, not queued
_REFRESH = "refresh"
_STOP = "stop"
# Fields of Connection.request itself, and the envelope the gateway writes: a page cannot set them.
RESERVED_FIELDS = frozenset({"id", "v", "timeout_s", "retries"})
RETRY_S = 1.0


class CommandRefused(Exception):
    """A page's message that is not a command the gateway may pass on; the text is for a player."""


def check_command(message: Any) -> tuple[str, dict[str, Any]]:
    """(the page's request id, the command) from what a page sent, or CommandRefused. The command
    goes to the referee unchanged; only the service's own requests (join, new_token, ...) and the
    envelope are kept from pages: a page acts for its seat through its link, nothing else."""
    if not isinstance(message, dict) or not isinstance(message.get("command"), dict):
        raise CommandRefused('send {"id": "...", "command": {"type": "...", ...}}')
    rid = message.get("id")
    if not isinstance(rid, str) or not 0 < len(rid) <= 100:
        raise CommandRefused('"id" must be a short text that names this request')
    command = message["command"]
    kind = command.get("type")
    if not isinstance(kind, str) or not kind:
        raise CommandRefused('a command needs a "type", e.g. "skip_step"')
    if kind in SERVICE_TYPES:
        raise CommandRefused(f"{kind!r} is not a command of the game")
    if RESERVED_FIELDS & command.keys():
        raise CommandRefused(f"a command may not set {', '.join(sorted(RESERVED_FIELDS & command.keys()))}")
    return rid, dict(command)


class SeatChannel:
    """Messages to `send` (from this channel's thread): {"kind": "view", "seat", "seq", "view"},
    {"kind": "private", ...the referee's private message}, {"kind": "reply", "id", "ok", "error"},
    {"kind": "refused", "code", "message"} (the link does not work: the page stops)."""

    def __init__(
        self,
        router_endpoint: str,
        seat: str,
        token: str,
        send: Send,
        context: zmq.Context | None = None,
        server_public: bytes | None = None,
        client_keys: tuple[bytes, bytes] | None = None,
    ) -> None:
        """`server_public` and `client_keys`: the seat's CURVE keys for a --secure referee (then the
        key proves the seat and `token` is the gateway's own, never sent)."""
        self.endpoint, self.seat, self.token, self.send = router_endpoint, seat, token, send
        self._keys = (server_public, client_keys)
        self.ctx = context or zmq.Context.instance()
        self._queue: queue.Queue[Any] = queue.Queue()
        self._waiting = 0
        self._lock = threading.Lock()
        self._refresh_queued = False
        self.closed = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"web-seat-{seat}", daemon=True)

    def start(self) -> SeatChannel:
        self._thread.start()
        return self

    def submit(self, rid: str, command: dict[str, Any]) -> bool:
        """Queue a checked command; False when the page already has MAX_WAITING in flight."""
        with self._lock:
            if self._waiting >= MAX_WAITING:
                return False
            self._waiting += 1
        self._queue.put((rid, command))
        return True

    def refresh(self) -> None:
        """The public state moved on: fetch this seat's view again (once, however often asked)."""
        with self._lock:
            if self._refresh_queued:
                return
            self._refresh_queued = True
        self._queue.put(_REFRESH)

    def close(self) -> None:
        self._queue.put(_STOP)

    # ---- the thread ---------------------------------------------------------------------------
    def _run(self) -> None:
        conn: Connection | None = None
        try:
            while conn is None and not self.closed.is_set():
                conn = self._join()
            while conn is not None and not self.closed.is_set():
                self._step(conn)
        except Exception:
            log.exception("a seat channel failed")
            self.send(
                {"kind": "refused", "code": "internal", "message": "the gateway lost this page; reload it"}
            )
        finally:
            self.closed.set()
            if conn is not None:
                conn.close()

    def _join(self) -> Connection | None:
        conn = Connection(self.endpoint, *self._keys, context=self.ctx)
        proof = {} if self._keys[1] is not None else {"token": self.token}
        try:
            reply = conn.request("join", timeout_s=2.0, retries=0, player=self.seat, **proof)
        except ServiceUnavailable:
            conn.close()
            self.send({"kind": "status", "up": False, "message": "waiting for the referee to take your seat"})
            if self._wait_or_stop(RETRY_S):
                self.closed.set()
            return None
        if not reply.get("ok"):
            conn.close()
            self._refuse(reply)
            return None
        self.send({"kind": "view", "seat": reply["player"], "seq": reply["seq"], "view": reply["view"]})
        return conn

    def _wait_or_stop(self, seconds: float) -> bool:
        try:
            return self._queue.get(timeout=seconds) == _STOP
        except queue.Empty:
            return False

    def _refuse(self, reply: dict[str, Any]) -> None:
        error = reply.get("error") or {}
        code = error.get("code", "refused")
        if code in ("bad_token", "seat_taken", "not_joined"):
            message = "this seat link no longer works (it was renewed); ask the host for your new link"
        else:
            message = error.get("message", "the referee refused this seat")
        self.send({"kind": "refused", "code": code, "message": message})
        self.closed.set()

    def _step(self, conn: Connection) -> None:
        try:
            item = self._queue.get(timeout=0.25)
        except queue.Empty:
            item = None
        try:
            if item == _STOP:
                self.closed.set()
                return
            if item == _REFRESH:
                with self._lock:
                    self._refresh_queued = False
                self._view(conn)
            elif item is not None:
                rid, command = item
                with self._lock:
                    self._waiting -= 1
                self._command(conn, rid, command)
            for message in conn.poll_private():
                self.send({"kind": "private", **message})
        except ServiceUnavailable as exc:
            if item not in (None, _REFRESH, _STOP):
                self.send(
                    {
                        "kind": "reply",
                        "id": item[0],
                        "ok": False,
                        "error": {"code": "unavailable", "message": str(exc)},
                    }
                )
            self.send(
                {"kind": "status", "up": False, "message": "the referee does not answer; waiting for it"}
            )

    def _view(self, conn: Connection) -> None:
        reply = conn.request("view", timeout_s=2.0, retries=1)
        if reply.get("ok"):
            self.send({"kind": "view", "seat": reply["player"], "seq": reply["seq"], "view": reply["view"]})
        elif (reply.get("error") or {}).get("code") == "not_joined":
            self._refuse(reply)  # Connection re-joined with its token and was refused: revoked

    def _command(self, conn: Connection, rid: str, command: dict[str, Any]) -> None:
        kind = command.pop("type")
        reply = conn.request(kind, timeout_s=3.0, retries=1, **command)
        error = reply.get("error")
        self.send({"kind": "reply", "id": rid, "ok": bool(reply.get("ok")), "error": error})
        if error and error.get("code") == "not_joined":
            self._refuse(reply)
        elif reply.get("ok"):
            self._view(conn)
