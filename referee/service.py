"""The referee service: the one server that orders and numbers every change (ZeroMQ Guide,
Clone pattern). ROUTER takes snapshots and commands; PUB broadcasts numbered updates; private
messages go back over ROUTER to the entitled seat's own connections only.

A subscriber that cannot keep up: PUB drops messages for it once its queue holds
PUB_HWM messages (ZeroMQ never blocks the referee for a slow reader); the subscriber sees the
jump in `seq` and re-syncs by snapshot.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq

from referee.keys import SeatAuthenticator, server_keypair
from referee.protocol import TOPIC_EVENT, TOPIC_STATE, ProtocolError, encode, error_reply, parse_request
from referee.session import GameSession, Outcome

log = logging.getLogger("tabletop.referee")

PUB_HWM = 10_000
ROUTER_HWM = 10_000
HEARTBEAT_S = 1.0


class RefereeService:
    def __init__(
        self,
        session: GameSession,
        router_endpoint: str = "tcp://127.0.0.1:5555",
        pub_endpoint: str = "tcp://127.0.0.1:5556",
        keydir: str | Path | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        context: zmq.Context | None = None,
    ) -> None:
        self.session = session
        self.heartbeat_s = heartbeat_s
        self.ctx = context or zmq.Context.instance()
        self.secure = keydir is not None
        self._auth: SeatAuthenticator | None = None
        if keydir is not None:
            self._auth = SeatAuthenticator(self.ctx, keydir)
            self._auth.start()
        self.router = self.ctx.socket(zmq.ROUTER)
        self.pub = self.ctx.socket(zmq.PUB)
        self.router.setsockopt(zmq.RCVHWM, ROUTER_HWM)
        self.router.setsockopt(zmq.SNDHWM, ROUTER_HWM)
        self.router.setsockopt(zmq.ROUTER_MANDATORY, 0)  # a vanished client's reply is dropped, not an error
        self.pub.setsockopt(zmq.SNDHWM, PUB_HWM)
        for sock in (self.router, self.pub):
            sock.setsockopt(zmq.LINGER, 0)
            if keydir is not None:
                public, secret = server_keypair(keydir)
                sock.curve_secretkey = secret
                sock.curve_publickey = public
                sock.curve_server = True
        self.router.bind(router_endpoint)
        self.pub.bind(pub_endpoint)
        self.router_endpoint = self.router.getsockopt_string(zmq.LAST_ENDPOINT)
        self.pub_endpoint = self.pub.getsockopt_string(zmq.LAST_ENDPOINT)
        self._joined: dict[bytes, str] = {}  # connection identity -> seat it joined as
        self._stop = threading.Event()
        self.feeds: list[tuple[zmq.Socket, Callable[[zmq.Socket], None]]] = []

    # ---- life cycle -----------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        self.router.close(0)
        self.pub.close(0)
        if self._auth is not None:
            self._auth.stop()

    def serve(self, until: Callable[[], bool] | None = None) -> None:
        poller = zmq.Poller()
        poller.register(self.router, zmq.POLLIN)
        for sock, _ in self.feeds:
            poller.register(sock, zmq.POLLIN)
        handlers = {sock: fn for sock, fn in self.feeds}
        next_beat = time.monotonic()
        while not self._stop.is_set() and not (until and until()):
            now = time.monotonic()
            if now >= next_beat:
                self.publish_state()
                next_beat = now + self.heartbeat_s
            timeout_ms = max(0, int((next_beat - time.monotonic()) * 1000))
            for sock, _ in poller.poll(min(timeout_ms, 100)):
                if sock is self.router:
                    self._drain_router()
                else:
                    handlers[sock](sock)

    # ---- requests ------------------------------------------------------------------------------
    def _drain_router(self) -> None:
        # Take everything waiting, but in bounded batches so heartbeats keep their rhythm.
        # Group commit: the commands that arrived together are stored in one transaction (one
        # fsync); replies and updates go out only after it, so nothing is acknowledged unsynced.
        done: list[tuple[bytes, Outcome]] = []
        with self.session.store.batch():
            for _ in range(1000):
                try:
                    frames = self.router.recv_multipart(zmq.NOBLOCK, copy=False)
                except zmq.Again:
                    break
                done.append(self._on_request(frames))
        for identity, outcome in done:
            self._send(identity, outcome.reply)
        # One delivery for the lot: events in seq order, then one state message (a state per
        # command would be newer than the events still to come and make mirrors re-sync).
        self.deliver(
            Outcome({}, [u for _, o in done for u in o.updates], [m for _, o in done for m in o.private])
        )

    def _on_request(self, frames: list[zmq.Frame]) -> tuple[bytes, Outcome]:
        identity = frames[0].bytes
        bound = None
        if self.secure:
            bound = frames[-1].get("User-Id")
        try:
            if len(frames) < 2:
                raise ProtocolError("bad_json", "empty message; send one JSON object")
            request = parse_request(frames[-1].bytes)
        except ProtocolError as exc:
            log.warning("refused a malformed request: %s", exc.message)
            return identity, Outcome(error_reply(exc.request_id, exc.code, exc.message))
        try:
            outcome = self.session.handle(request, self._joined.get(identity), bound)
        except Exception as exc:  # a bug in a rules engine must not take the table down
            log.exception("request %s failed inside the referee", request.id)
            outcome = Outcome(
                error_reply(request.id, "internal", f"the referee could not process this ({exc})")
            )
        if outcome.joined is not None:
            self._joined[identity] = outcome.joined
        return identity, outcome

    def deliver(self, outcome: Outcome) -> None:
        """Publish an outcome's updates and private messages (already stored by the session)."""
        for seq, event in outcome.updates:
            self.pub.send_multipart([TOPIC_EVENT, encode({"seq": seq, "event": event})])
        for seat, seq, payload in outcome.private:
            message = {"type": "private", "seq": seq, "player": seat, "event": payload}
            for identity, joined in self._joined.items():
                if joined == seat:
                    self._send(identity, message)
        if outcome.updates:
            self.publish_state()

    def publish_state(self) -> None:
        state = {"seq": self.session.seq, "state": self.session.public_state()}
        self.pub.send_multipart([TOPIC_STATE, encode(state)])

    def _send(self, identity: bytes, message: dict[str, Any]) -> None:
        try:
            self.router.send_multipart([identity, encode(message)], zmq.NOBLOCK)
        except zmq.ZMQError:
            log.info("dropped a message to a client that is gone or not reading")
