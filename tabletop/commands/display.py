"""`tabletop display`: the overview screen, the projector overlay or one player's private view,
following a running referee."""

from __future__ import annotations

import argparse
import signal
import threading
from pathlib import Path

from calibration import CalibrationError, load_calibration
from display.live import DisplayLoop, OverviewFeed, PlayerFeed, ProjectorFeed
from display.projector import NoProjectorCalibration
from display.sinks import VIDEO_SUFFIXES, SinkError, open_sink
from referee.client import Connection, ServiceUnavailable, StateMirror, updates_endpoint
from tabletop.commands import CommandError
from tabletop.commands.client import connect_args
from tabletop.commands.paths import out_folder

DESCRIPTION = """\
Follow a running 'tabletop referee' and draw the game, redrawing whenever it changes.
  overview   the whole table (cards, pawns, reach, every jump's gap and verdict) or The Plan's
             museum, collections and scores - for a screen beside the table
  projector  Master Plan's legal moves painted onto the table (needs 'tabletop calibrate projector');
             use --fullscreen on the projector's screen
  player     one seat's private view (hand, peeks, secret Plan) - show it only to that player
Without a screen (no DISPLAY) or with --out, pictures go to PNG frames (--out FOLDER) or a video
(--out FILE.mp4), a new frame each time the picture changes."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "display",
        help="show the game: overview screen, projector overlay, or a player's private view",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("view", choices=["overview", "projector", "player"], help="what to show")
    p.add_argument(
        "--connect",
        default="tcp://127.0.0.1:5555",
        help="the referee's command address (default: %(default)s)",
    )
    p.add_argument("--player", metavar="SEAT", help="the seat whose private view to show (player view)")
    p.add_argument(
        "--calibration",
        default="calibration.json",
        metavar="FILE",
        help="calibration file with a projector step (projector view; default: %(default)s)",
    )
    p.add_argument(
        "--error-map",
        action="store_true",
        help="overview: tint the table by the calibration's expected error in mm (from --calibration)",
    )
    p.add_argument("--out", metavar="PATH", help="write PNG frames to this folder, or a .mp4/.avi video")
    p.add_argument("--fullscreen", action="store_true", help="fill the screen (for the projector)")
    p.add_argument(
        "--size", metavar="WxH", help="picture size (default: 1280x720; projector: its calibrated size)"
    )
    p.add_argument(
        "--server-key", metavar="FILE", help="the referee's public key (server.key), with --secure"
    )
    p.add_argument("--key", metavar="FILE", help="your key file (NAME.key_secret), with --secure")
    p.add_argument(
        "--token", help="the seat's token (player view of a seat already joined, without --secure)"
    )
    p.set_defaults(run=run)


def _size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    w, sep, h = text.lower().partition("x")
    if not sep or not w.isdigit() or not h.isdigit() or int(w) < 320 or int(h) < 240:
        raise CommandError(f"--size {text!r} must be WIDTHxHEIGHT of at least 320x240, e.g. 1920x1080")
    return int(w), int(h)


def _connect(args: argparse.Namespace) -> tuple[StateMirror, Connection | None]:
    endpoint, server_public, keys = connect_args(args)
    try:
        mirror = StateMirror(endpoint, updates_endpoint(endpoint), server_public, keys)
        seat = None
        if args.view == "player":
            seat = Connection(endpoint, server_public, keys)
            joined = seat.join(args.player, token=args.token)
            if not joined.get("ok"):
                mirror.close()
                seat.close()
                raise CommandError(f"cannot show {args.player}'s view: {joined['error']['message']}")
    except ServiceUnavailable as exc:
        raise CommandError(f"lost the referee at {endpoint}: {exc}") from None
    return mirror, seat


def run(args: argparse.Namespace) -> int:
    size = _size(args.size)
    if args.out and Path(args.out).suffix.lower() not in VIDEO_SUFFIXES:
        out_folder(args.out, files=" for PNG frames, or NAME.mp4 / NAME.avi for one video file")
    if args.view == "player" and not args.player:
        raise CommandError("say whose view to show: tabletop display player --player SEAT")
    calibration = None
    if args.view == "projector":
        try:
            calibration = load_calibration(args.calibration, require=("projector",))
        except CalibrationError as exc:
            raise CommandError(f"no projector calibration: {exc}") from None
    error_map = None
    if args.error_map:
        if args.view != "overview":
            raise CommandError("--error-map is for the overview: tabletop display overview --error-map")
        try:
            error_map = load_calibration(args.calibration, require=("table",), allow_stale=True).error_map
        except CalibrationError as exc:
            raise CommandError(f"no table calibration for --error-map: {exc}") from None
        if error_map is None:
            raise CommandError(
                f"{args.calibration} has no error map yet: run 'tabletop calibrate table' again (after 'intrinsics')"
            )
    mirror, seat = _connect(args)
    try:
        if args.view == "overview":
            feed = OverviewFeed(mirror, size or (1280, 720), error_map)
        elif args.view == "projector":
            if mirror.game != "masterplan":
                raise CommandError("the projector paints Master Plan's moves; this referee runs The Plan")
            feed = ProjectorFeed(mirror, calibration, size)
        else:
            assert seat is not None
            feed = PlayerFeed(mirror, seat, size or (1280, 720))
        title = f"tabletop {args.view}" + (f" {args.player}" if args.view == "player" else "")
        try:
            sink, where = open_sink(args.out, title, args.fullscreen)
        except SinkError as exc:
            raise CommandError(str(exc)) from None
        print(f"{args.view} of the {mirror.game} game at {args.connect}: {where}", flush=True)
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        loop = DisplayLoop(feed, sink)
        try:
            loop.run(stop.is_set)
        except KeyboardInterrupt:
            pass
        except (SinkError, NoProjectorCalibration) as exc:
            raise CommandError(str(exc)) from None
        except ServiceUnavailable as exc:
            raise CommandError(f"lost the referee: {exc}") from None
        finally:
            sink.close()
        print(f"{args.view}: {loop.pictures} pictures drawn")
        return 0
    finally:
        mirror.close()
        if seat is not None:
            seat.close()
