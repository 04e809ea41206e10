"""Display clients: follow the referee's messages, redraw only when something changed, and keep
up - every waiting update is applied before one picture is drawn, so a slow screen skips
pictures, never updates.

The displays never connect to the referee themselves: the CLI (`tabletop display`) connects and
hands them the two small interfaces below (`referee.client.StateMirror` is a PublicMessages,
`referee.client.Connection` a SeatChannel), so drawing depends only on the message schema.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np

from display.overview import render_overview
from display.player import render_player_view
from display.projector import render_projector
from display.sinks import Sink

EVENTS_SHOWN = 40  # the overview lists at most this many recent events


class PublicMessages(Protocol):
    """The referee's public messages, followed: its game, the latest public state with its
    `seq`, and the public events seen since joining as (seq, event)."""

    game: str
    state: Any
    seq: int
    events: list[tuple[int, dict[str, Any]]]

    def poll(self, timeout_s: float = 0.0) -> Any:
        """Apply every update that has arrived (waiting up to timeout_s for the first)."""


class SeatChannel(Protocol):
    """One seat's own joined connection: its private messages and its requests ("view")."""

    seat: str | None

    def poll_private(self) -> list[Any]: ...

    def request(
        self, type: str, timeout_s: float = 5.0, retries: int = 2, **fields: Any
    ) -> dict[str, Any]: ...


class PublicFeed:
    """The public state as the referee publishes it; changed when the state or events moved on."""

    def __init__(self, mirror: PublicMessages) -> None:
        self.mirror = mirror
        self._key: tuple[int, int] | None = None
        self._state: dict[str, Any] | None = None
        self._before = joined_events(mirror)

    def update(self, timeout_s: float) -> bool:
        self.mirror.poll(timeout_s)
        key = (self.mirror.seq, len(self.mirror.events))
        # The heartbeat resends an equal state every second: equal means nothing to redraw.
        if key == self._key and self.mirror.state == self._state:
            return False
        self._key, self._state = key, self.mirror.state
        return True

    def recent_events(self) -> list[dict[str, Any]]:
        """What happened lately: the events from before this display joined, then those since."""
        return (self._before + [event for _, event in self.mirror.events])[-EVENTS_SHOWN:]


def joined_events(mirror: PublicMessages) -> list[dict[str, Any]]:
    """What a display joining late shows before anything new happens: the mirror already holds
    the snapshot's recent public events; a referee that sent none still gets one line saying
    where the game stands, made from the snapshot's state."""
    if mirror.events:
        return []
    state = mirror.state if isinstance(mirror.state, dict) else {}
    if state.get("current") or state.get("turn"):
        return [{"type": "turn_started", "player": state.get("current"), "step": state.get("step"),
                 "turn": state.get("turn"), "round": state.get("round")}]  # fmt: skip
    return []


class OverviewFeed(PublicFeed):
    def __init__(
        self, mirror: PublicMessages, size: tuple[int, int] = (1280, 720), error_map: Any = None
    ) -> None:
        super().__init__(mirror)
        self.size = size
        self.error_map = error_map  # the calibration's ErrorMap: tints the table by camera error

    def picture(self) -> np.ndarray:
        return render_overview(
            self.mirror.game, self.mirror.state, self.recent_events(), self.size, self.error_map
        )


class ProjectorFeed(PublicFeed):
    def __init__(self, mirror: PublicMessages, calibration: Any, size: tuple[int, int] | None = None) -> None:
        super().__init__(mirror)
        self.calibration = calibration
        self.size = size

    def picture(self) -> np.ndarray:
        return render_projector(self.mirror.state, self.calibration, self.size)


class PlayerFeed:
    """One seat's private view, asked over that seat's own joined connection whenever the public
    state moved on or a private message (a drawn card, a peek) arrived."""

    def __init__(
        self, mirror: PublicMessages, seat: SeatChannel, size: tuple[int, int] = (1280, 720)
    ) -> None:
        if seat.seat is None:
            raise ValueError("the player view needs a connection that joined its seat")
        self.mirror, self.seat, self.size = mirror, seat, size
        self.view: dict[str, Any] | None = None
        self._public = PublicFeed(mirror)

    def update(self, timeout_s: float) -> bool:
        moved = self._public.update(timeout_s)
        private = self.seat.poll_private()
        if not (moved or private or self.view is None):
            return False
        reply = self.seat.request("view")
        if not reply.get("ok"):
            raise ValueError(f"the referee refused this seat's view: {reply['error']['message']}")
        changed = reply["view"] != self.view
        self.view = reply["view"]
        return changed

    def picture(self) -> np.ndarray:
        return render_player_view(self.mirror.game, self.view or {}, self.size)


class DisplayLoop:
    """Feed -> picture -> sink, drawing only on change."""

    def __init__(self, feed: OverviewFeed | ProjectorFeed | PlayerFeed, sink: Sink) -> None:
        self.feed, self.sink = feed, sink
        self.pictures = 0  # pictures drawn (each one handed to the sink)
        self.last_draw_ms = 0.0

    def step(self, timeout_s: float = 0.05) -> bool:
        """Apply every waiting update (waiting up to timeout_s for the first); draw once if
        anything changed. True when a picture was drawn."""
        if not self.feed.update(timeout_s):
            return False
        start = time.perf_counter()
        self.sink.show(self.feed.picture())
        self.last_draw_ms = (time.perf_counter() - start) * 1000
        self.pictures += 1
        return True

    def run(self, stop: Callable[[], bool] = lambda: False, idle_s: float = 0.03) -> None:
        """Until the viewer quits (window closed, ESC, q) or `stop()` says so."""
        while not stop():
            self.step(idle_s)
            if not self.sink.pump():
                return
