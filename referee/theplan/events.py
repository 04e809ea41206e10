"""Events and how to split them by who may see them.

An event is a JSON-able dict:
    {"type": str,
     "public": {...},                 # anyone may see it (the PUB channel, displays)
     "private": {player: {...}},      # only that player's own connection (a dealt hand, an acknowledgement)
     "secret": {...}}                 # the referee's own store only, never sent (the seed, a Ghost's hand)
"private" and "secret" are left out when empty. The service publishes `public_event(e)` and sends
`private_events_for(e, player)` to that player's own connection only (same shape as Master Plan).
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


def private_events_for(event: Event, player: str) -> dict | None:
    """The event as `player` may see it (public payload plus their private part), or None when the
    event holds nothing private for them (then the public event is all they get)."""
    part = event.get("private", {}).get(player)
    return None if part is None else {"type": event["type"], **event.get("public", {}), **part}
