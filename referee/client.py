"""Clients of the referee service: a mirror of the public state (Clone pattern) for displays,
and a seat's connection for players. Used by `tabletop client`, the displays and the tests."""

from __future__ import annotations

import itertools
import os
import re
import time
import uuid
from collections import deque
from typing import Any

import zmq
from zmq.utils.monitor import recv_monitor_message

from referee.protocol import TOPIC_EVENT, TOPIC_STATE, decode, encode

CONNECT_TIMEOUT_S = 3.0
_ENDPOINT_RE = re.compile(r"^tcp://(\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(\d{1,5})$")


class ServiceUnavailable(Exception):
    """The referee did not answer in time; the message says what to check."""


def normalise_endpoint(text: str) -> str:
    """The referee's command address as ZeroMQ wants it. 'host:port' is what people type, so
    tcp:// is added when missing; anything else that is not tcp://HOST:PORT is a ValueError."""
    text = text.strip()
    endpoint = text if "://" in text else f"tcp://{text}"
    match = _ENDPOINT_RE.match(endpoint)
    if match is None or not 0 < int(match.group(2)) < 65535:
        raise ValueError(
            f"{text!r} is not a referee address; give HOST:PORT, e.g. 192.168.1.20:5555 or tcp://192.168.1.20:5555"
        )
    return endpoint


def updates_endpoint(router_endpoint: str) -> str:
    """The PUB address that goes with a command address: the same host, the port + 1."""
    head, _, port = normalise_endpoint(router_endpoint).rpartition(":")
    return f"{head}:{int(port) + 1}"


def check_referee(
    endpoint: str,
    server_public: bytes | None = None,
    client_keys: tuple[bytes, bytes] | None = None,
    timeout_s: float = CONNECT_TIMEOUT_S,
    context: zmq.Context | None = None,
) -> None:
    """Connect once and make sure a referee answers a ping, or raise ServiceUnavailable saying
    what is wrong: no referee there, --secure on one side only, a key it does not know. The
    handshake's outcome comes from the socket's monitor events, so a mismatch is named at once
    instead of after a silent timeout."""
    ctx = context or zmq.Context.instance()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    _secure(sock, server_public, client_keys)
    address = f"inproc://tabletop-check-{uuid.uuid4().hex}"
    sock.monitor(
        address,
        zmq.EVENT_HANDSHAKE_SUCCEEDED
        | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL
        | zmq.EVENT_HANDSHAKE_FAILED_AUTH
        | zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL,
    )
    monitor = ctx.socket(zmq.PAIR)
    monitor.setsockopt(zmq.LINGER, 0)
    monitor.connect(address)
    deadline = time.monotonic() + timeout_s
    try:
        sock.connect(endpoint)
        shook_hands = False
        vague: tuple[int, int] | None = None
        while not shook_hands and (left := deadline - time.monotonic()) > 0:
            if not monitor.poll(int(left * 1000) + 1):
                break
            event = recv_monitor_message(monitor)
            if event["event"] == zmq.EVENT_HANDSHAKE_SUCCEEDED:
                shook_hands = True
            elif event["event"] == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:
                # Often the referee's ERROR lost in a race with its closing the connection (EPIPE);
                # the socket tries again every 100 ms, and one attempt usually says why.
                vague = (event["event"], event["value"])
                deadline = min(deadline, time.monotonic() + 1.0)
            else:
                raise ServiceUnavailable(
                    _handshake_failure(endpoint, event["event"], event["value"], client_keys)
                )
        if not shook_hands and vague is not None:
            raise ServiceUnavailable(_handshake_failure(endpoint, *vague, client_keys))
        if not shook_hands:
            raise ServiceUnavailable(
                f"no referee answers at {endpoint} (nothing there in {timeout_s:g} s): start one with "
                "'tabletop referee ...' or check the address"
            )
        sock.send(encode({"id": "check", "type": "ping"}))
        if not sock.poll(int(timeout_s * 1000)):
            raise ServiceUnavailable(
                f"something at {endpoint} took the connection but no referee answered in {timeout_s:g} s"
            )
        decode(sock.recv())
    finally:
        sock.disable_monitor()
        monitor.close(0)
        sock.close(0)


def _handshake_failure(endpoint: str, event: int, value: int, keys: tuple[bytes, bytes] | None) -> str:
    if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
        return (
            f"the referee at {endpoint} does not know your key; use the NAME.key_secret its host made "
            "with 'tabletop keys create' for the key folder it runs with"
        )
    if event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL and value == zmq.PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH:
        if keys is None:
            return (
                f"the referee at {endpoint} runs with --secure: pass --server-key (its server.key) "
                "and --key (your NAME.key_secret)"
            )
        return f"the referee at {endpoint} does not run with --secure: leave out --server-key and --key"
    if event == zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL:
        if keys is None:
            return (
                f"the referee at {endpoint} refused the connection: if it runs with --secure, pass "
                "--server-key (its server.key) and --key (your NAME.key_secret); if this is its updates "
                "port, give the command port"
            )
        return f"the secure handshake with {endpoint} failed: is --server-key the server.key of this referee?"
    return (
        f"{endpoint} does not speak the referee's protocol; give the command port "
        "(the updates port is the command port + 1)"
    )


def _secure(sock: zmq.Socket, server_public: bytes | None, client_keys: tuple[bytes, bytes] | None) -> None:
    if server_public is None:
        return
    if client_keys is None:
        raise ValueError("a secure referee needs your key pair (the .key_secret file it gave you)")
    sock.curve_serverkey = server_public
    sock.curve_publickey, sock.curve_secretkey = client_keys


class Connection:
    """A DEALER connection to the referee's ROUTER: requests with ids, retried with the same id
    (the referee applies a command once however often it arrives), and private messages.

    A restarted referee (`--resume`) has forgotten which connection joined which seat and answers
    `not_joined`: the connection then re-sends the join it last sent, verbatim (so whatever that
    join carried, a seat token too, goes again), and retries the request once with the same id - a
    request refused as not_joined was never applied."""

    def __init__(
        self,
        router_endpoint: str,
        server_public: bytes | None = None,
        client_keys: tuple[bytes, bytes] | None = None,
        context: zmq.Context | None = None,
    ) -> None:
        self.ctx = context or zmq.Context.instance()
        self.endpoint = router_endpoint
        self._server_public, self._client_keys = server_public, client_keys
        self._ids = (f"{os.getpid():x}-{id(self):x}-{n}" for n in itertools.count(1))
        self.private: deque[dict[str, Any]] = deque(maxlen=10_000)
        self.seat: str | None = None
        # Seat -> its token from the join reply, sent again on every re-join of that seat.
        self.tokens: dict[str, str] = {}
        self.join_request: dict[str, Any] | None = None  # the last join sent, without its id
        self.rejoins = 0
        self._connect()

    def _connect(self) -> None:
        self.sock = self.ctx.socket(zmq.DEALER)
        self.sock.setsockopt(zmq.LINGER, 0)
        _secure(self.sock, self._server_public, self._client_keys)
        self.sock.connect(self.endpoint)

    def request(self, type: str, timeout_s: float = 5.0, retries: int = 2, **fields: Any) -> dict[str, Any]:
        rid = fields.pop("id", None) or next(self._ids)
        message = {"id": rid, "type": type, **fields}
        if type == "join":
            if message.get("player") in self.tokens:
                message.setdefault("token", self.tokens[message["player"]])
            self.join_request = {k: v for k, v in message.items() if k != "id"}
        elif self.seat is not None and type not in ("snapshot", "ping"):
            message.setdefault("player", self.seat)
        reply = self._exchange(message, timeout_s, retries)
        if (
            type != "join"
            and not reply.get("ok")
            and (reply.get("error") or {}).get("code") == "not_joined"
            and self.join_request is not None
            and self._rejoin(timeout_s)
        ):
            # A restarted referee, or one that let this connection's seat go (it keeps a few
            # per seat): joined again, so the request is sent once more.
            reply = self._exchange(message, timeout_s, retries)
        return reply

    def _exchange(self, message: dict[str, Any], timeout_s: float, retries: int) -> dict[str, Any]:
        rid = message["id"]
        for _attempt in range(retries + 1):
            self.sock.send(encode(message))
            deadline = time.monotonic() + timeout_s
            while (left := deadline - time.monotonic()) > 0:
                if not self.sock.poll(int(left * 1000) + 1):
                    break
                reply = decode(self.sock.recv())
                if reply.get("type") == "private":
                    self.private.append(reply)
                elif reply.get("id") == rid:
                    if message["type"] == "join" and reply.get("ok"):
                        self.seat = reply["player"]
                        if "token" in reply:
                            self.tokens[reply["player"]] = reply["token"]
                    return reply
            # No answer: reconnect (the old socket may hold a stale queue) and resend the same id.
            self.sock.close(0)
            self._connect()
            if self.join_request is not None and message["type"] != "join":
                self._rejoin(timeout_s)
        raise ServiceUnavailable(
            f"the referee at {self.endpoint} did not answer in {timeout_s:g} s; is 'tabletop referee' running? "
            "(if it runs with --secure, pass its server.key and your key)"
        )

    def _rejoin(self, timeout_s: float) -> bool:
        """Send the last join again (a new id: it is a new request); True if the referee took it."""
        assert self.join_request is not None
        self.rejoins += 1
        join = {"id": next(self._ids), **self.join_request}
        if join.get("player") in self.tokens:  # the token this seat was given since
            join["token"] = self.tokens[join["player"]]
        try:
            reply = self._exchange(join, timeout_s, retries=0)
        except ServiceUnavailable:
            return False
        return bool(reply.get("ok"))

    def join(self, seat: str, token: str | None = None) -> dict[str, Any]:
        """Join `seat`; `token` is the seat's token from an earlier join (a re-join from another
        connection or machine). This connection remembers the token it is given."""
        return self.request("join", player=seat, **({"token": token} if token else {}))

    def new_token(self) -> dict[str, Any]:
        """Renew the joined seat's token (the old one stops working, the seat's other connections
        are cut off); this connection remembers the new one."""
        reply = self.request("new_token")
        if reply.get("ok"):
            self.tokens[reply["player"]] = reply["token"]
        return reply

    def poll_private(self, timeout_s: float = 0.0) -> list[dict[str, Any]]:
        """Private messages that arrived (also those received while waiting for replies)."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = max(0.0, deadline - time.monotonic())
            if not self.sock.poll(int(left * 1000)):
                break
            msg = decode(self.sock.recv())
            if msg.get("type") == "private":
                self.private.append(msg)
            if timeout_s == 0:
                continue
        out = list(self.private)
        self.private.clear()
        return out

    def close(self) -> None:
        self.sock.close(0)


class StateMirror:
    """The public state kept in step with the referee: subscribe first, then snapshot, then apply
    only newer updates; on a gap in seq, snapshot again (ZeroMQ Guide, Clone pattern)."""

    def __init__(
        self,
        router_endpoint: str,
        pub_endpoint: str,
        server_public: bytes | None = None,
        client_keys: tuple[bytes, bytes] | None = None,
        context: zmq.Context | None = None,
    ) -> None:
        self.ctx = context or zmq.Context.instance()
        self.sub = self.ctx.socket(zmq.SUB)
        self.sub.setsockopt(zmq.LINGER, 0)
        self.sub.setsockopt(zmq.RCVHWM, 100_000)
        _secure(self.sub, server_public, client_keys)
        self.sub.setsockopt(zmq.SUBSCRIBE, TOPIC_STATE)
        self.sub.setsockopt(zmq.SUBSCRIBE, TOPIC_EVENT)
        self.sub.connect(pub_endpoint)
        self.conn = Connection(router_endpoint, server_public, client_keys, self.ctx)
        self.seq = -1
        self.state: dict[str, Any] = {}
        # The seq `state` belongs to: events newer than it may have come already (their state
        # message follows them), so a relay must not label the state with `seq`.
        self.state_seq = -1
        self.game = ""  # which game the referee runs: "masterplan" or "theplan"
        # The public events seen, in order: the snapshot's recent ones, then every one applied.
        self.events: list[tuple[int, dict[str, Any]]] = []
        self.resyncs = 0
        self.resync()

    def resync(self) -> None:
        reply = self.conn.request("snapshot")
        if not reply.get("ok"):
            raise ServiceUnavailable(f"the referee refused a snapshot: {reply.get('error')}")
        self.seq, self.state, self.game = reply["seq"], reply["state"], reply["game"]
        self.state_seq = self.seq
        # The snapshot's latest public events fill in history this mirror did not see (a new
        # connection, or a gap), so "what just happened" is never empty.
        known = {seq for seq, _ in self.events}
        missed = [(r["seq"], r["event"]) for r in reply.get("recent", []) if r["seq"] not in known]
        if missed:
            self.events = sorted([*self.events, *missed], key=lambda item: item[0])
        self.resyncs += 1

    def poll(self, timeout_s: float = 0.0) -> list[tuple[int, dict[str, Any]]]:
        """Apply every waiting update; returns the new public events (seq, event)."""
        new: list[tuple[int, dict[str, Any]]] = []
        deadline = time.monotonic() + timeout_s
        while True:
            left = max(0.0, deadline - time.monotonic())
            if not self.sub.poll(int(left * 1000) if not new else 0):
                return new
            topic, raw = self.sub.recv_multipart()
            msg = decode(raw)
            seq = msg["seq"]
            if topic == TOPIC_EVENT:
                if seq <= self.seq:
                    continue  # already in the snapshot
                if seq != self.seq + 1:
                    self.resync()  # missed updates: the snapshot covers them
                    continue
                self.seq = seq
                self.events.append((seq, msg["event"]))
                new.append((seq, msg["event"]))
            elif topic == TOPIC_STATE:
                if seq > self.seq:
                    self.resync()  # a newer state than our last event: we missed events
                elif seq == self.seq:
                    self.state, self.state_seq = msg["state"], seq

    def close(self) -> None:
        self.sub.close(0)
        self.conn.close()
