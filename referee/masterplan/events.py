"""Events: what happened, split into a public part and per-player private parts.

Every event has a `type`, a `public` payload anyone may see, `private` payloads keyed by the
player entitled to them (a drawn card's identity, a peek, a placed card's identity), and a
`secret` payload for the referee's own log only (the seed). The service publishes
`public_event(e)` and sends `private_events_for(e, player)` to that player's connection only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Event:
    type: str
    public: dict[str, Any]
    private: dict[str, dict[str, Any]] = field(default_factory=dict)
    secret: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The whole event, for the referee's event store (never for broadcast)."""
        return {"type": self.type, "public": self.public, "private": self.private, "secret": self.secret}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Event:
        try:
            return cls(data["type"], data["public"], data.get("private", {}), data.get("secret", {}))
        except (KeyError, TypeError):
            raise ValueError("an event needs at least 'type' and 'public'") from None


def as_event(e: Event | dict[str, Any]) -> Event:
    return e if isinstance(e, Event) else Event.from_dict(e)


def public_event(e: Event | dict[str, Any]) -> dict[str, Any]:
    """What everyone may see: {"type": ..., **public}."""
    ev = as_event(e)
    return {"type": ev.type, **ev.public}


def private_events_for(e: Event | dict[str, Any], player: str) -> dict[str, Any] | None:
    """The event as `player` may see it (public part plus their private part), or None when the
    event has nothing private for them (then the public event is all they get)."""
    ev = as_event(e)
    part = ev.private.get(player)
    if part is None:
        return None
    return {"type": ev.type, **ev.public, **part}
