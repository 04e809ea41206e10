"""The wire protocol (DESIGN.md "Wire protocol"), version 1: what a message may hold and how a
bad one is answered. Shared by the service, the clients and the displays; no sockets here.

Requests (DEALER -> ROUTER), one JSON object per message:
    {"v": 1, "id": "<unique per request>", "type": "<type>", "player": "<seat>", ...}
  service types: "snapshot" (public state + its seq), "join" (bind this connection to a seat,
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
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = 1
MAX_MESSAGE_BYTES = 64 * 1024
SERVICE_TYPES = frozenset({"snapshot", "join", "view", "ping"})
TOPIC_STATE = b"state"
TOPIC_EVENT = b"event"

_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class ProtocolError(Exception):
    """A request the service cannot take; `code` is stable, `message` is for a person."""

    def __init__(self, code: str, message: str, request_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.request_id = request_id


@dataclass(frozen=True)
class Request:
    id: str
    type: str
    player: str | None
    body: dict[str, Any]  # the whole message, as sent (the engine reads its own fields)


def parse_request(raw: bytes) -> Request:
    """Check size, JSON, version and the common fields; the engine checks the rest."""
    if len(raw) > MAX_MESSAGE_BYTES:
        raise ProtocolError("too_large", f"message of {len(raw)} bytes; the limit is {MAX_MESSAGE_BYTES}")
    try:
        msg = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise ProtocolError(
            "bad_json", f"not a JSON message ({type(exc).__name__}); send one JSON object"
        ) from None
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
