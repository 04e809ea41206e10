"""The camera side of `tabletop referee --camera N | --video FILE | --images DIR`.

Setup comes from the camera: the referee watches until it sees every starting card (named by
villain) and the Trophy, then starts the game with those outlines. With --resume the stored
game continues and the camera finds the cards again by position. The camera then runs in its own
thread (referee.camera.CameraThread) and feeds the service loop.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import count

from calibration import CalibrationError, load_calibration
from display.projector import render_projector
from referee.camera import CameraThread, Frame, TableWatcher, session_feed, wait_for_setup
from referee.games import GAMES, SetupError
from referee.masterplan_camera import TableSetup
from referee.service import RefereeService
from referee.session import GameSession, new_seed
from referee.store import EventStore
from tabletop.commands import CommandError
from vision.sources import CameraSource, FolderSource, SourceError, VideoSource

IMAGES_FPS = 2.0  # photos of a table: one every half second (the sample game's pace)


class Watch:
    """A started game and the camera that keeps watching it."""

    def __init__(self, session: GameSession, setup: TableSetup, thread: CameraThread) -> None:
        self.session = session
        self.setup = setup
        self.thread = thread

    def attach(self, service: RefereeService) -> None:
        status = self.session.annotations.setdefault("camera", {"state": "watching"})
        self.thread.attach(service, session_feed(service, self.setup), status)
        service.state_listeners.append(self.thread.watcher.show)
        self.thread.start()

    def stop(self) -> None:
        self.thread.stop()


def _source(args: argparse.Namespace, size: tuple[int, int]) -> Iterable[Frame]:
    if args.camera is not None:
        # the calibration holds for one resolution: ask the camera for that one
        return CameraSource(args.camera, size=size, retry=True)
    if args.video:
        return VideoSource(args.video)
    return FolderSource(args.images, fps=IMAGES_FPS)


def _renumbered(source: Iterable[Frame]) -> Callable[[], Iterator[Frame]]:
    """Frames numbered on across reopenings, with time that never goes back (the tracker
    confirms what stays still for half a second)."""
    numbers = count()
    offset = {"last": 0.0}

    def frames() -> Iterator[Frame]:
        base = offset["last"]
        for _, t, image in source:
            offset["last"] = base + t
            yield next(numbers), base + t, image
        offset["last"] += 1.0

    return frames


def start_watching(
    args: argparse.Namespace,
    store: EventStore,
    options: dict[str, str],
    parse_pawns: Callable[[str | None, list[str] | None], dict[str, str] | None],
) -> Watch:
    try:
        cal = load_calibration(args.calibration, require=("table",), allow_stale=("projector",))
    except CalibrationError as exc:
        raise CommandError(f"{exc} (the camera needs 'tabletop calibrate intrinsics' and 'table')") from None
    try:
        source = _source(args, tuple(cal.image_size))
    except SourceError as exc:
        raise CommandError(str(exc)) from None
    open_frames = _renumbered(source)
    colors_given = parse_pawns(args.pawns, None)
    # With a projector the referee knows what it lights: the camera paints that light out of
    # each frame before reading it (vision.projected).
    projector = partial(render_projector, calibration=cal) if cal.has_projector and cal.projector_size else None
    watcher = TableWatcher(cal, pawn_colors=list(colors_given) if colors_given else None, projector=projector)
    if args.resume:
        session = GameSession.resume(store)
        setup = TableSetup({}, [], {}, dict(colors_given or {}))  # cards are found again by position
        frames: Iterator[Frame] | None = None
    else:
        if not args.players:
            raise CommandError("say who is playing: --players 'Ann:Z-Mask,Bob:Ms. Fyre,Cy:Monster Nash'")
        if options.get("deck", "physical") != "physical":
            raise CommandError("with a camera the cards are real: leave out --option deck=digital")
        options = {**options, "deck": "physical"}
        adapter = GAMES["masterplan"]
        players = [p.strip() for p in args.players.split(",") if p.strip()]
        config = adapter.make_config(players, options)
        villains = {p["name"]: p["villain"] for p in config["players"]}
        colors = parse_pawns(args.pawns, list(villains))
        frames = open_frames()
        print(
            "waiting for the camera to see every starting card and the Trophy "
            f"({', '.join(villains.values())}, Trophy)...",
            flush=True,
        )
        try:
            setup, _ = wait_for_setup(
                frames, watcher, villains, colors, lambda m: print(f"  {m}", file=sys.stderr)
            )
        except (SourceError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        for note in setup.notes:
            print(f"  setup: {note}")
        config.update(setup.config_layout())
        seed = args.seed if args.seed is not None else new_seed()
        try:
            session = GameSession.start("masterplan", config, seed, store)
        except SetupError as exc:
            raise CommandError(f"the camera's setup cannot be played: {exc}") from None
    first = {"frames": frames}

    def reopen() -> Iterator[Frame]:
        # the frames left over from the setup first, then the source again after a failure
        pending, first["frames"] = first["frames"], None
        return pending if pending is not None else open_frames()

    live = args.camera is not None
    thread = CameraThread(reopen, watcher, max_retries=None if live else 0)
    return Watch(session, setup, thread)
