"""Displays (docs/architecture.md, "Layers"): pictures of the game drawn from the referee's
messages, and the clients that follow a running referee and show them.

Pure pictures (BGR numpy images; the same input always gives the same picture):
    render_overview(game, state, events=None, size=(1280, 720))   the whole table / The Plan
    render_projector(state, calibration, size=None)                the legal moves on the table
    render_player_view(game, view, size=(1280, 720))               one seat's private view
`state` is the referee's public state (`StateMirror.state`), `events` its public events,
`view` a seat's answer to "view"/"join", `calibration` a `calibration.Calibration`.
All their text (and `tabletop detect --annotate`'s) is drawn by `display.text.put_text` with the
bundled DejaVu Sans, so names in any alphabet show as written.

Clients (`display.live`): OverviewFeed / ProjectorFeed / PlayerFeed + a sink (`display.sinks`:
Window, FrameFolder, VideoFile) in a DisplayLoop; `tabletop display` connects to the referee and
wires them up, handing the feeds the referee's messages (`display.live.PublicMessages`,
`SeatChannel`). Uses only the referee's message schema and a calibration - never the rules
engines, the referee's client, geometry or vision.
"""

from display.overview import render_overview
from display.player import render_player_view
from display.projector import NoProjectorCalibration, render_projector

__all__ = ["NoProjectorCalibration", "render_overview", "render_player_view", "render_projector"]
