"""The referee service: the one server that orders and numbers every change (ZeroMQ Guide,
Clone pattern). ROUTER takes snapshots and commands; PUB broadcasts numbered updates; private
messages go back over ROUTER to the entitled seat's own connections only.

A subscriber that cannot keep up: PUB drops messages for it once its queue holds
PUB_HWM messages (ZeroMQ never blocks the referee for a slow reader); the subscriber sees the
jump in `seq` and re-syncs by snapshot.

Staying up: no message can stop the loop - whatever handling one raises is logged and answered
with an "internal" error. A message over MAX_WIRE_BYTES is cut off by ZeroMQ (ZMQ_MAXMSGSIZE):
that peer's connection is dropped before anything is allocated, and its socket reconnects.

Joined connections (`_joined`): routing id -> the seat it joined and the CURVE key it joined with.
A seat keeps at most MAX_CONNECTIONS_PER_SEAT (the least recently heard is dropped and gets
"not_joined" next time, which `Connection` answers by joining again). Dead ones go as soon as a
send to them fails (ROUTER_MANDATORY says the peer is gone; ZMTP heartbeats cut silent peers).
A routing id cannot pass a seat on: under --secure every message and every private send checks
that the key now behind that id is the one that joined; without --secure only ids the ROUTER
assigned itself (never reused) may join (see `_assigned`).
"""

from __future__ import annotations

import errno
import itertools
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import zmq

from referee.keys import SeatAuthenticator, server_keypair
from referee.protocol import (
    MAX_WIRE_BYTES,
    TOPIC_EVENT,
    TOPIC_STATE,
    ProtocolError,
    encode,
    error_reply,
    parse_request,
)
from referee.session import GameSession, Outcome

log = logging.getLogger("tabletop.referee")

PUB_HWM = 10_000
ROUTER_HWM = 10_000
HEARTBEAT_S = 1.0
CLOSE_WAIT_S = 60.0  # a loaded machine may take seconds to finish a batch of 1,000 requests
MAX_CONNECTIONS_PER_SEAT = 8  # a player's terminal, their screen, a few reconnects
# ZMTP PING every ZMTP_HEARTBEAT_MS; a peer that answers nothing for ZMTP_TIMEOUT_MS (a machine
# gone without closing its TCP connection) is disconnected. Peers' libzmq answers by itself.
ZMTP_HEARTBEAT_MS = 5_000
ZMTP_TIMEOUT_MS = 20_000
# PUB only ever receives subscriptions to "state" / "event", but the limit applies to the CURVE
# handshake too: its INITIATE (vouch and metadata) is over 256 bytes, and at 256 no --secure
# subscriber ever connected (displays saw the snapshot, never an update).
MAX_SUBSCRIPTION_BYTES = 1024


class BindError(Exception):
    """An address the referee cannot listen on; `port` and `errno` say which and why."""

    def __init__(self, endpoint: str, error: zmq.ZMQError) -> None:
        self.endpoint = endpoint
        self.errno = error.errno
        self.port = endpoint.rpartition(":")[2]
        self.host = endpoint.partition("://")[2].rpartition(":")[0]
        if error.errno == errno.EADDRINUSE:
            reason = f"port {self.port} is already in use (another referee?)"
        elif error.errno in (errno.EADDRNOTAVAIL, errno.ENODEV):
            reason = f"{self.host} is not an address of this machine"
        else:
            reason = f"cannot listen on {endpoint}: {error.strerror}"
        super().__init__(reason)


@dataclass
class _Joined:
    seat: str
    user: str | None  # the CURVE key's name it joined with (--secure), else None
    heard: int  # when it last sent something, in message order (the least recent is dropped first)


def _bind(sock: zmq.Socket, endpoint: str) -> None:
    try:
        sock.bind(endpoint)
    except zmq.ZMQError as exc:
        raise BindError(endpoint, exc) from None


class RefereeService:
    """`session` may be given later (`service.session = ...`): the CLI binds the ports before it
    creates the game file, so a port in use leaves no file behind."""

    def __init__(
        self,
        session: GameSession | None,
        router_endpoint: str = "tcp://127.0.0.1:5555",
        pub_endpoint: str = "tcp://127.0.0.1:5556",
        keydir: str | Path | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        context: zmq.Context | None = None,
    ) -> None:
        self._session = session
        self.heartbeat_s = heartbeat_s
        self._stop = threading.Event()
        self._idle = threading.Event()  # set while no serve loop runs
        self._idle.set()
        self.ctx = context or zmq.Context.instance()
        self.secure = keydir is not None
        # Read the server key before starting anything, so a missing one leaves no thread behind.
        server_keys = server_keypair(keydir) if keydir is not None else None
        self._auth: SeatAuthenticator | None = None
        if keydir is not None:
            self._auth = SeatAuthenticator(self.ctx, keydir)
            self._auth.start()
        self.router = self.ctx.socket(zmq.ROUTER)
        self.pub = self.ctx.socket(zmq.PUB)
        self.router.setsockopt(zmq.RCVHWM, ROUTER_HWM)
        self.router.setsockopt(zmq.SNDHWM, ROUTER_HWM)
        # A send to a peer that is gone raises EHOSTUNREACH instead of vanishing: that is how dead
        # connections leave the join table.
        self.router.setsockopt(zmq.ROUTER_MANDATORY, 1)
        self.router.setsockopt(zmq.MAXMSGSIZE, MAX_WIRE_BYTES)
        self.pub.setsockopt(zmq.SNDHWM, PUB_HWM)
        self.pub.setsockopt(zmq.MAXMSGSIZE, MAX_SUBSCRIPTION_BYTES)
        for sock in (self.router, self.pub):
            sock.setsockopt(zmq.LINGER, 0)
            sock.setsockopt(zmq.HEARTBEAT_IVL, ZMTP_HEARTBEAT_MS)
            sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, ZMTP_TIMEOUT_MS)
            if server_keys is not None:
                public, secret = server_keys
                sock.curve_secretkey = secret
                sock.curve_publickey = public
                sock.curve_server = True
        try:
            _bind(self.router, router_endpoint)
            _bind(self.pub, pub_endpoint)
        except BindError:
            self.close()
            raise
        self.router_endpoint = self.router.getsockopt_string(zmq.LAST_ENDPOINT)
        self.pub_endpoint = self.pub.getsockopt_string(zmq.LAST_ENDPOINT)
        self._joined: dict[bytes, _Joined] = {}
        self._clock = itertools.count()
        self.feeds: list[tuple[zmq.Socket, Callable[[zmq.Socket], None]]] = []
        # Called with (seq, public state) each time the state is published, in the service's
        # thread (the camera learns what the projector now lights).
        self.state_listeners: list[Callable[[int, dict[str, Any]], None]] = []

    @property
    def session(self) -> GameSession:
        if self._session is None:
            raise RuntimeError("the referee service has no game yet")
        return self._session

    @session.setter
    def session(self, session: GameSession) -> None:
        self._session = session

    def joined(self, seat: str | None = None) -> list[bytes]:
        """Routing ids of the connections that joined `seat` (any seat if None)."""
        return [i for i, j in list(self._joined.items()) if seat is None or j.seat == seat]

    # ---- life cycle -----------------------------------------------------------------------------
    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        # ZeroMQ sockets are not thread-safe: closing them under a serve loop still running in
        # another thread (a test or bench that gave up waiting) can wedge the whole context.
        self.stop()
        if not self._idle.wait(CLOSE_WAIT_S):
            raise RuntimeError(f"the referee's serve loop did not stop within {CLOSE_WAIT_S:g} s")
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
        self._idle.clear()
        try:
            while not self._stop.is_set() and not (until and until()):
                now = time.monotonic()
                if now >= next_beat:
                    next_beat = now + self.heartbeat_s
                    self._guarded("the heartbeat", self.publish_state)
                timeout_ms = max(0, int((next_beat - time.monotonic()) * 1000))
                for sock, _ in poller.poll(min(timeout_ms, 100)):
                    if sock is self.router:
                        self._guarded("reading requests", self._drain_router)
                    else:
                        self._guarded("a feed", handlers[sock], sock)
        finally:
            self._idle.set()

    @staticmethod
    def _guarded(what: str, fn: Callable[..., None], *args: Any) -> None:
        # The last line of defence: whatever goes wrong in one step is logged, never fatal.
        try:
            fn(*args)
        except Exception:
            log.exception("%s failed inside the referee; it goes on", what)

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
                try:
                    done.append(self._on_request(frames))
                except Exception:
                    # Parse, session or join table: one message must never stop the referee.
                    log.exception("a request failed inside the referee; answered with an error")
                    reply = error_reply(
                        None, "internal", "the referee could not process this message (a bug; it goes on)"
                    )
                    done.append((frames[0].bytes, Outcome(reply)))
        for identity, outcome in done:
            self._send(identity, outcome.reply)
        # One delivery for the lot: events in seq order, then one state message (a state per
        # command would be newer than the events still to come and make mirrors re-sync).
        self.deliver(
            Outcome({}, [u for _, o in done for u in o.updates], [m for _, o in done for m in o.private])
        )

    def _on_request(self, frames: list[zmq.Frame]) -> tuple[bytes, Outcome]:
        identity = frames[0].bytes
        user = frames[-1].get("User-Id") if self.secure else None
        try:
            if len(frames) < 2:
                raise ProtocolError("bad_json", "empty message; send one JSON object")
            request = parse_request(frames[-1].bytes)
        except ProtocolError as exc:
            log.warning("refused a malformed request: %s", exc.message)
            return identity, Outcome(error_reply(exc.request_id, exc.code, exc.message))
        if request.type == "join" and not self.secure and not _assigned(identity):
            refusal = error_reply(
                request.id,
                "own_routing_id",
                "this connection chose its own ZeroMQ routing id, which another could reuse: "
                "leave ZMQ_ROUTING_ID unset to join a seat (or run the referee with --secure)",
            )
            return identity, Outcome(refusal)
        try:
            outcome = self.session.handle(request, self._joined_seat(identity, user), user)
        except Exception as exc:  # a bug in a rules engine must not take the table down
            log.exception("request %s failed inside the referee", request.id)
            outcome = Outcome(
                error_reply(request.id, "internal", f"the referee could not process this ({exc})")
            )
        if outcome.joined is not None:
            self._bind_seat(identity, outcome.joined, user)
        if outcome.renewed is not None:
            for other in self.joined(outcome.renewed):
                if other != identity:
                    del self._joined[other]
        return identity, outcome

    # ---- the join table -----------------------------------------------------------------------
    def _joined_seat(self, identity: bytes, user: str | None) -> str | None:
        entry = self._joined.get(identity)
        if entry is None:
            return None
        if entry.user != user or not self._same_peer(identity, entry):
            # Another key now speaks through this routing id: it inherits nothing.
            del self._joined[identity]
            return None
        entry.heard = next(self._clock)
        return entry.seat

    def _same_peer(self, identity: bytes, entry: _Joined) -> bool:
        """Is the connection behind `identity` now still one with the key that joined? Ids the
        ROUTER assigned are never reused; for an id the client chose, the authenticator saw which
        key last connected with it (before that connection could receive anything)."""
        if self._auth is None or _assigned(identity):
            return True
        return self._auth.peer_key(identity) == entry.user

    def _bind_seat(self, identity: bytes, seat: str, user: str | None) -> None:
        self._joined.pop(identity, None)
        same_seat = [(e.heard, i) for i, e in self._joined.items() if e.seat == seat]
        for _, oldest in sorted(same_seat)[: max(0, len(same_seat) - MAX_CONNECTIONS_PER_SEAT + 1)]:
            del self._joined[oldest]
        self._joined[identity] = _Joined(seat, user, next(self._clock))

    # ---- out -----------------------------------------------------------------------------------
    def deliver(self, outcome: Outcome) -> None:
        """Publish an outcome's updates and private messages (already stored by the session)."""
        for seq, event in outcome.updates:
            self.pub.send_multipart([TOPIC_EVENT, encode({"seq": seq, "event": event})])
        for seat, seq, payload in outcome.private:
            message = {"type": "private", "seq": seq, "player": seat, "event": payload}
            for identity, entry in list(self._joined.items()):
                if entry.seat != seat:
                    continue
                # Under --secure only a connection whose key belongs to the seat hears its secrets.
                entitled = (not self.secure or entry.user == seat) and self._same_peer(identity, entry)
                if not entitled or not self._send(identity, message):
                    del self._joined[identity]
        if outcome.updates:
            self.publish_state()

    def publish_state(self) -> None:
        state = {"seq": self.session.seq, "state": self.session.public_state()}
        self.pub.send_multipart([TOPIC_STATE, encode(state)])
        for listener in self.state_listeners:
            listener(state["seq"], state["state"])

    def _send(self, identity: bytes, message: dict[str, Any]) -> bool:
        """Send to one connection; False when it is gone (its table entry can go too)."""
        try:
            payload = encode(message)
        except (TypeError, ValueError):  # something in the answer JSON cannot hold: a bug of ours
            log.exception("could not encode a message for a client")
            payload = encode(
                error_reply(message.get("id"), "internal", "the referee could not encode its answer (a bug)")
            )
        try:
            self.router.send_multipart([identity, payload], zmq.NOBLOCK)
        except zmq.ZMQError as exc:
            if exc.errno == errno.EHOSTUNREACH:
                return False
            log.info("dropped a message to a client that is not reading (%s)", exc.strerror)
        return True


def _assigned(identity: bytes) -> bool:
    """Routing ids the ROUTER makes up itself start with a zero byte (a counter from a random start,
    never reused). A client may announce such an id too, but to step into a departed connection's
    seat it would have to guess that connection's id (one in 2**32), and the network is open anyway
    without --secure."""
    return identity[:1] == b"\0"
