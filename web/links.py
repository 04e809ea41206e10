"""Seat links: each seat's secret web address carries the referee's own seat token (the one a
first `join` is answered with), so there is one mechanism, not two. The gateway takes every
free seat at start with one holder connection per seat and keeps it: while a seat is held, only
its token joins it (referee/session.py, `_claim`). Renewing a token (the referee's `new_token`)
revokes a link: the old token stops working and its connections are cut off.

With a --secure referee there are no referee tokens: each seat's CURVE key proves the seat, and
the gateway, which holds the keys (`SeatKeys`), makes each link's token itself and renews it
itself (closing the pages of the old one). The keys never leave the gateway."""

from __future__ import annotations

import hmac
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

import zmq

from referee.client import Connection, ServiceUnavailable


def seats_of(state: dict[str, Any]) -> list[str]:
    """The seats of a public state: The Plan lists "seats", Master Plan its "players". A physical
    table of The Plan lists its steward under "reporters": it gets a link like a seat."""
    seats = state.get("seats")
    if isinstance(seats, list) and all(isinstance(s, str) for s in seats):
        reporters = state.get("reporters") or []
        return [*seats, *(r for r in reporters if isinstance(r, str))]
    return [
        p["name"] for p in state.get("players", []) if isinstance(p, dict) and isinstance(p.get("name"), str)
    ]


@dataclass(frozen=True)
class SeatKeys:
    """A --secure referee's keys as the gateway uses them: the server's public key, each seat's key
    pair, and an observer's (e.g. `display`) for the public feed."""

    server_public: bytes
    seats: dict[str, tuple[bytes, bytes]] = field(default_factory=dict)
    observer: tuple[bytes, bytes] | None = None

    def feed_keys(self) -> tuple[bytes, bytes] | None:
        return self.observer or next(iter(self.seats.values()), None)


class SeatLinks:
    def __init__(
        self, router_endpoint: str, context: zmq.Context | None = None, keys: SeatKeys | None = None
    ) -> None:
        self.endpoint = router_endpoint
        self.ctx = context or zmq.Context.instance()
        self.keys = keys
        # Tokens of an earlier gateway (a restart): joined with, so its links stay good.
        self.saved: dict[str, str] = {}
        # Whether a saved token may take a free seat. A free seat is either this game's, at a
        # referee restarted with --resume (it forgot its tokens), or a new game's, where an old
        # game's links must not work: only a caller who knows the file is this game's says yes.
        self.saved_for_free_seats = True
        self._holders: dict[str, Connection] = {}
        self._tokens: dict[str, str] = {}  # seat -> its token
        self.not_held: dict[str, str] = {}  # seat -> why the gateway could not take it, in words
        self._refused: set[str] = set()  # seats the referee refused (held by another): not asked again
        self._lock = threading.Lock()  # holders are ZeroMQ sockets: one thread at a time

    def take(self, seats: list[str]) -> None:
        """Join every seat not yet held. A seat someone else joined first (a terminal) stays theirs:
        its link is theirs to give (`tabletop client` prints the token)."""
        with self._lock:
            for seat in seats:
                if self.keys is not None:  # the key is the proof: the link's token is ours
                    if seat in self.keys.seats:
                        # No referee holds these tokens to tell this game from another's: an
                        # earlier token is kept only from a file surely this game's.
                        kept = self.saved.get(seat) if self.saved_for_free_seats else None
                        self._tokens.setdefault(seat, kept or secrets.token_urlsafe(16))
                    else:
                        self.not_held[seat] = "no key for this seat in the --keys folder"
                    continue
                if seat in self._holders or seat in self._refused:
                    continue
                conn = Connection(self.endpoint, context=self.ctx)
                saved = self.saved.get(seat)
                try:
                    if saved and not self.saved_for_free_seats:
                        reply = conn.join(seat)  # a free seat: a new token; a held one: ours, maybe
                        if (reply.get("error") or {}).get("code") == "seat_taken":
                            reply = conn.join(seat, token=saved)
                    else:
                        reply = conn.join(seat, token=saved)
                except ServiceUnavailable as exc:
                    conn.close()
                    self.not_held[seat] = str(exc)
                    continue
                if reply.get("ok") and "token" in reply:
                    self._holders[seat], self._tokens[seat] = conn, reply["token"]
                    self.not_held.pop(seat, None)
                else:
                    conn.close()
                    self._refused.add(seat)
                    error = reply.get("error") or {}
                    self.not_held[seat] = error.get("message", "the referee gave no token (is it --secure?)")

    def tokens(self) -> dict[str, str]:
        with self._lock:
            return dict(self._tokens)

    def seat_for(self, token: str) -> str | None:
        """The seat whose link carries `token`, compared in constant time."""
        with self._lock:
            for seat, held in self._tokens.items():
                if hmac.compare_digest(held.encode(), token.encode(errors="replace")):
                    return seat
        return None

    def renew(self, seat: str) -> str:
        """Revoke the seat's link and issue a new one; returns the new token. Raises KeyError for a
        seat the gateway does not hold and ServiceUnavailable when the referee does not answer."""
        with self._lock:
            if self.keys is not None:
                if seat not in self._tokens:
                    raise KeyError(seat)
                self._tokens[seat] = secrets.token_urlsafe(16)
                return self._tokens[seat]
            holder = self._holders[seat]
            reply = holder.new_token()
            if not reply.get("ok"):
                error = reply.get("error") or {}
                raise ServiceUnavailable(error.get("message", "the referee did not renew the token"))
            self._tokens[seat] = reply["token"]
            return reply["token"]

    def seat_keys(self, seat: str) -> tuple[bytes | None, tuple[bytes, bytes] | None]:
        """(server public key, the seat's key pair) for a seat's connection; (None, None) without --secure."""
        if self.keys is None:
            return None, None
        return self.keys.server_public, self.keys.seats[seat]

    def drain(self) -> None:
        """Drop what the holders received: they only hold seats (the pages have their own
        connections), but the referee sends each joined connection its seat's private messages."""
        with self._lock:
            for holder in self._holders.values():
                holder.poll_private()

    def close(self) -> None:
        with self._lock:
            for holder in self._holders.values():
                holder.close()
            self._holders.clear()
