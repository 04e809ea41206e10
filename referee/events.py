"""Events, shared by both rules engines: what happened, split by who may see it.

Every event has a `type`, a `public` part anyone may see (the PUB channel, displays), `private`
parts keyed by the player entitled to them (a drawn card, a dealt Plan, a peek, a bid) and a
`secret` part for the referee's own event store only (the seed, a Ghost's hand). Each engine
splits an event where it makes it, so nothing is stripped after the fact: the service publishes
`public_event(e)` and sends `private_events_for(e, player)` to that player's connection only.

Stored form (`Event.to_dict`): {"type", "public", "private", "secret"}. The Plan's stored events
leave out an empty "private" or "secret" (`leave_out_empty`); Master Plan's keep them. Both
forms are in existing event stores and recorded games, so both stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# An event in its stored form (Event.to_dict()): how the event store, the service and The Plan's
# own log hold it.
EventDict = dict[str, Any]


@dataclass(frozen=True)
class Event:
    type: str
    public: dict[str, Any]
    private: dict[str, dict[str, Any]] = field(default_factory=dict)
    secret: dict[str, Any] = field(default_factory=dict)

    def to_dict(self, leave_out_empty: bool = False) -> EventDict:
        """The whole event, for the referee's event store (never for broadcast)."""
        data: EventDict = {"type": self.type, "public": self.public}
        if self.private or not leave_out_empty:
            data["private"] = self.private
        if self.secret or not leave_out_empty:
            data["secret"] = self.secret
        return data

    @classmethod
    def from_dict(cls, data: EventDict) -> Event:
        try:
            return cls(data["type"], data["public"], data.get("private", {}), data.get("secret", {}))
        except (KeyError, TypeError):
            raise ValueError("an event needs at least 'type' and 'public'") from None


def as_event(e: Event | EventDict) -> Event:
    return e if isinstance(e, Event) else Event.from_dict(e)


def public_event(e: Event | EventDict) -> dict[str, Any]:
    """What everyone may see: {"type": ..., **public}."""
    ev = as_event(e)
    return {"type": ev.type, **ev.public}


def private_events_for(e: Event | EventDict, player: str) -> dict[str, Any] | None:
    """The event as `player` may see it (public part plus their private part), or None when the
    event has nothing private for them (then the public event is all they get)."""
    ev = as_event(e)
    part = ev.private.get(player)
    if part is None:
        return None
    return {"type": ev.type, **ev.public, **part}
