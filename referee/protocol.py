"""The wire protocol (docs/architecture.md, "Wire protocol"), version 1: what a message may hold and how a
bad one is answered. Shared by the service, the clients and the displays; no sockets here.

Requests (DEALER -> ROUTER), one JSON object per message:
    {"v": 1, "id": "<unique per request>", "type": "<type>", "player": "<seat>", ...}
  service types: "snapshot" (public state + its seq + "recent": the last public events as
  [{"seq", "event"}]), "join" (bind this connection to a seat,
  answered with that seat's private view; private messages then reach it), "view" (the joined
  seat's private view again), "ping"; every other type is a command of the game's rules engine.
Replies: {"v": 1, "id": ..., "ok": true, ...} or {"v": 1, "id": ..., "ok": false,
  "error": {"code": ..., "message": ...}}.
Updates (PUB), two frames [topic, json]: topic "event" {"v", "seq", "event"} for each public
  event, and "state" {"v", "seq", "state"} - the full public state after event `seq`, also sent
  about once a second as a heartbeat. Event seqs increase by exactly 1; a subscriber that sees a
  jump (or a state newer than its last event) missed something and re-syncs by snapshot.
Private (ROUTER -> the seat's own connections only): {"v", "type": "private", "seq", "player",
  "event"}.
Seat tokens (without --secure): the first "join" of a seat is answered with a secret "token";
  once a seat is held, a join from another connection must carry {"token": "<that token>"} or is
  refused ("seat_taken" without one, "bad_token" with a wrong one). With --secure the CURVE key
  is the proof and no token is issued. Without --secure only a connection whose routing id the
  referee assigned may join ("own_routing_id" otherwise). Tokens live in the referee's memory only: after a restart
  the first join of a seat takes it again, keeping the token it brings (16-64 of A-Z a-z 0-9 _ -) or
  getting a new one. "new_token" from a joined connection renews its seat's token: the old one stops
  working and the seat's other connections are cut off (revoking a link).
Limits: a message over MAX_MESSAGE_BYTES is answered "too_large"; one over MAX_WIRE_BYTES is never
  read (ZeroMQ drops that connection; the client's socket reconnects by itself). Numbers longer than
  MAX_NUMBER_CHARS characters, NaN/Infinity and nesting deeper than MAX_DEPTH are "bad_json".
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from referee.errors import RefereeError

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 64 * 1024
# ZMQ_MAXMSGSIZE of the referee's ROUTER: above it libzmq drops the connection before allocating
# anything, so a 256 MiB frame never reaches memory. Kept above MAX_MESSAGE_BYTES so that a message
# only a little too big still gets a "too_large" reply that says why.
MAX_WIRE_BYTES = 4 * MAX_MESSAGE_BYTES
# No field of any command needs more: seats, spaces and card ids are short, millimetres have a few
# decimals. A bound also keeps int() away from its 4,300-digit ValueError and its quadratic cost.
MAX_NUMBER_CHARS = 32
MAX_DEPTH = 16  # the deepest command holds corner lists ([[x, y], ...]) inside an object
SERVICE_TYPES = frozenset({"snapshot", "join", "view", "ping", "new_token"})
TOPIC_STATE = b"state"
TOPIC_EVENT = b"event"

_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class ProtocolError(RefereeError):
    """A request the service cannot take; `code` is stable, `message` is for a person."""

    def __init__(self, code: str, message: str, request_id: str | None = None) -> None:
        super().__init__(code, message)
        self.request_id = request_id


@dataclass(frozen=True)
class Request:
    id: str
    type: str
    player: str | None
    body: dict[str, Any]  # the whole message, as sent (the engine reads its own fields)


def _parse_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise ProtocolError(
            "bad_json", f"a number of {len(text)} characters; numbers here have at most {MAX_NUMBER_CHARS}"
        )
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise ProtocolError(
            "bad_json", f"a number of {len(text)} characters; numbers here have at most {MAX_NUMBER_CHARS}"
        )
    value = float(text)
    if not math.isfinite(value):  # 1e999 parses to inf, which no reply could carry back as JSON
        raise ProtocolError("bad_json", f"the number {text} is too large")
    return value


def _refuse_constant(name: str) -> Any:
    raise ProtocolError("bad_json", f"{name} is not a JSON number; send finite numbers only")


def _check_text(value: Any) -> None:
    """Text that is real Unicode (the depth was checked before decoding). A lone surrogate
    ("\\ud800") is valid JSON but no UTF-8: it would fail later, in the store or in the reply."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise ProtocolError(
                    "bad_json",
                    "the message holds a lone UTF-16 surrogate (\\ud800-\\udfff); send valid Unicode",
                ) from None


# A JSON string (its escapes included), which may hold brackets that nest nothing.
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def _nesting(raw: bytes) -> int:
    """How deep the brackets outside strings nest (an unclosed one counts): a list of lists of
    numbers is 2."""
    depth = deepest = 0
    for b in _STRING.sub(b"", raw).translate(None, _NOT_BRACKETS):
        depth += 1 if b in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def loads(raw: bytes) -> Any:
    """Decode untrusted JSON within the protocol's bounds; every failure is a ProtocolError."""
    # Depth first, before the decoder: it recurses once per level, and a frame 5,000 levels deep
    # takes it near the interpreter's recursion limit, where anything else that runs then (a
    # finaliser in a collection) fails.
    if _nesting(raw) > MAX_DEPTH:
        raise ProtocolError("bad_json", f"the message nests deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(
            raw.decode("utf-8"),
            parse_int=_parse_int,
            parse_float=_parse_float,
            parse_constant=_refuse_constant,
        )
    except ProtocolError:
        raise
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError, ValueError) as exc:
        raise ProtocolError(
            "bad_json", f"not a JSON message ({type(exc).__name__}); send one JSON object"
        ) from None
    _check_text(value)
    return value


def parse_request(raw: bytes) -> Request:
    """Check size, JSON, version and the common fields; the engine checks the rest."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"message of {len(raw)} bytes; the limit is {MAX_MESSAGE_BYTES}")
    msg = loads(raw)
    if not isinstance(msg, dict):
        raise ProtocolError("bad_json", "a request is a JSON object with v, id and type")
    rid = msg.get("id")
    rid_ok = isinstance(rid, str) and 0 < len(rid) <= 100
    request_id = rid if rid_ok else None
    if msg.get("v") != PROTOCOL_VERSION:
        raise ProtocolError(
            "bad_version",
            f'protocol version {msg.get("v")!r} is not spoken here; send "v": {PROTOCOL_VERSION}',
            request_id,
        )
    if not rid_ok:
        raise ProtocolError("bad_field", '"id" must be a non-empty string of at most 100 characters', None)
    kind = msg.get("type")
    if not isinstance(kind, str) or not _TYPE_RE.match(kind):
        raise ProtocolError("bad_field", '"type" must name a request, e.g. "snapshot" or "move"', request_id)
    player = msg.get("player")
    if player is not None and not (isinstance(player, str) and 0 < len(player) <= 40):
        raise ProtocolError(
            "bad_field", '"player" must be a seat name (a string of at most 40 characters)', request_id
        )
    return Request(id=rid, type=kind, player=player, body=msg)


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps({"v": PROTOCOL_VERSION, **message}, sort_keys=True, separators=(",", ":")).encode()


def ok_reply(request_id: str, **fields: Any) -> dict[str, Any]:
    return {"id": request_id, "ok": True, **fields}


def error_reply(request_id: str | None, code: str, message: str) -> dict[str, Any]:
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message}}


def decode(raw: bytes) -> dict[str, Any]:
    """Decode a message from the service (clients trust the service but still check the version)."""
    msg = json.loads(raw.decode("utf-8"))
    if not isinstance(msg, dict) or msg.get("v") != PROTOCOL_VERSION:
        raise ProtocolError("bad_version", "the referee speaks another protocol version; update this client")
    return msg
