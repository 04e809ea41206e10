"""Events and how to split them by who may see them.

An event is a JSON-able dict:
    {"type": str,
     "public": {...},                 # anyone may see it (the PUB channel, displays)
     "private": {player: {...}},      # only that player's own connection (a dealt hand, an acknowledgement)
     "secret": {...}}                 # the referee's own store only, never sent (the seed, a Ghost's hand)
"private" and "secret" are left out when empty.
"""

from __future__ import annotations

from typing import Any

Event = dict[str, Any]


def make_event(
    kind: str, public: dict | None = None, private: dict | None = None, secret: dict | None = None
) -> Event:
    e: Event = {"type": kind, "public": public or {}}
    if private:
        e["private"] = private
    if secret:
        e["secret"] = secret
    return e


def public_event(event: Event) -> dict:
    """What everyone may see: the type and the public payload."""
    return {"type": event["type"], **event.get("public", {})}


def private_event_for(event: Event, player: str) -> dict | None:
    """The part only `player` may see, or None when the event holds nothing private for them."""
    part = event.get("private", {}).get(player)
    return None if part is None else {"type": event["type"], **part}


def event_seen_by(event: Event, player: str) -> dict:
    """The event as `player` sees it: the public payload plus their own private part."""
    return {"type": event["type"], **event.get("public", {}), **event.get("private", {}).get(player, {})}
