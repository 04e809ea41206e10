"""The camera side of the referee: frames -> vision -> Observations, and a camera thread that
feeds them into the service loop.

`TableWatcher` runs vision on one frame (card detector, recogniser, pawns, tracker) and returns
the tracked Observation in table mm. `CameraThread` reads a frame source in its own thread and
sends each Observation over an inproc PAIR socket that the service polls (`service.feeds`), so
vision never blocks players' commands and the game state lives only in the service thread. A
camera that fails or stops is reported (status in the public state) and reopened; the game and
the tracker keep their state meanwhile.
"""

from __future__ import annotations

import logging
import multiprocessing as mp
import os
import pickle
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import zmq

from calibration import Calibration
from referee.masterplan_camera import CameraFeed, SessionTarget, SetupNotFound, TableSetup, table_setup
from referee.service import RefereeService
from vision import projected
from vision.incremental import IncrementalReader
from vision.observation import FrameReading, Observation
from vision.pawns import DEFAULT_COLORS, PawnColors
from vision.pipeline import FrameReader
from vision.sources import SourceError
from vision.table import TableMap
from vision.tracker import Tracker
from vision.undistort import FrameMap

log = logging.getLogger("tabletop.camera")

Frame = tuple[int, float, np.ndarray]
# For this long after the state changed both the projector's old and new pictures may be in a frame.
LIGHT_CHANGE_S = 1.0


class FrameVision:
    """The per-frame part of vision (no memory between frames, so frames may be read in
    parallel): undistort, scale, then cards, faces and pawns -> (FrameReading, image it read).

    `scale` < 1 runs the detector on a smaller copy of each frame (corners are mapped back
    through the full-size calibration). `pawn_colors` limits pawn colours to those in play.
    """

    def __init__(
        self, calibration: Calibration, pawn_colors: Iterable[str] | None = None, scale: float = 1.0
    ) -> None:
        if not 0.2 <= scale <= 1.0:
            raise ValueError(f"scale must be between 0.2 and 1, not {scale}")
        if not calibration.has_table:
            raise ValueError("the calibration has no table step: run 'tabletop calibrate table' first")
        self.calibration = calibration
        self.scale = scale
        self.pawn_colors = None if pawn_colors is None else list(pawn_colors)
        # Undistort each frame once (one remap) and map its pixels to the table with the plain
        # homography: the detector asks for mm at thousands of points per frame, and undoing
        # the lens point by point costs far more than one remap of the image.
        self.frame_map = FrameMap(
            calibration.image_size,
            calibration.camera_matrix if calibration.has_lens else None,
            calibration.distortion if calibration.has_lens else None,
            scale,
        )
        h = np.asarray(calibration.image_to_table, dtype=np.float64) @ np.diag([1 / scale, 1 / scale, 1.0])
        def to_mm(px: np.ndarray) -> np.ndarray:
            p = np.asarray(px, dtype=np.float64).reshape(-1, 1, 2)
            return cv2.perspectiveTransform(p, h).reshape(-1, 2)

        # Each corner's sigma takes the calibration's error where the corner lies on the table
        # (its error map), so a far corner's jump is judged with its real uncertainty.
        table = TableMap(
            to_mm,
            (calibration.card_short_mm, calibration.card_long_mm),
            floor_at=calibration.mapping_sigma_mm_at_table,
        )
        colors = None
        if self.pawn_colors is not None:
            unknown = [c for c in self.pawn_colors if c not in DEFAULT_COLORS]
            if unknown:
                raise ValueError(
                    f"unknown pawn colour(s) {', '.join(unknown)}; known: {', '.join(DEFAULT_COLORS)}"
                )
            colors = PawnColors({c: DEFAULT_COLORS[c] for c in self.pawn_colors})
        self.reader = FrameReader(table, pawn_colors=colors)
        self._frame_to_mm = h

    def light(self, picture: np.ndarray) -> np.ndarray:
        """Where the projector's `picture` (drawn at the calibrated projector size) lights the
        frames this reads (their pixels, undistorted and scaled), grown by projected.GROW_MM."""
        if not self.calibration.has_projector:
            raise ValueError("the calibration has no projector step: run 'tabletop calibrate projector'")
        to_projector = np.asarray(self.calibration.table_to_projector, np.float64) @ self._frame_to_mm
        w, h = self.frame_map.size
        mm_per_px = float(np.median(self.reader.table.mm_per_px(np.array([[w / 2, h / 2]]))))
        return projected.projected_light(picture, to_projector, (w, h), projected.GROW_MM / mm_per_px)

    def read(self, image: np.ndarray) -> tuple[FrameReading, np.ndarray]:
        image = self.prepare(image)
        return self.reader.read(image), image

    def prepare(self, image: np.ndarray) -> np.ndarray:
        """The frame as vision reads it: undistorted, scaled."""
        self.frame_map.check(image)
        return self.frame_map.whole(image)


class TableWatcher:
    """Vision for one table over time: `see(index, time_s, image) -> Observation` (table mm);
    `track(reading, image, index, time_s)` for frames read elsewhere (`read_in_parallel`).

    Consecutive frames of one camera are read incrementally (`vision.incremental`): only where
    the picture changed and has come to rest, so a still table costs a few milliseconds a frame.

    `projector`, when the referee drives one: the picture it shows for a public state (the CLI
    gives `display.projector.render_projector`). `show(seq, state)` says the state published;
    from then on its light is painted out of the frames before they are read
    (`vision.projected`), with the light before it for LIGHT_CHANGE_S (the projector and the
    camera lag behind the state).
    """

    def __init__(
        self,
        calibration: Calibration,
        pawn_colors: Iterable[str] | None = None,
        scale: float = 1.0,
        projector: Callable[[dict[str, Any]], np.ndarray] | None = None,
    ) -> None:
        self.vision = FrameVision(calibration, pawn_colors, scale)
        self.reader = IncrementalReader(self.vision.reader, frame_map=self.vision.frame_map)
        self.tracker = Tracker()
        self.projector = projector
        self.shown: tuple[int, dict[str, Any]] | None = None  # the latest state published (seq, state)
        self._drawn_seq: int | None = None
        self._lit: np.ndarray | None = None  # the light of the latest state
        self._lit_changing: np.ndarray | None = None  # ... with the light before it
        self._lit_since = -np.inf

    def show(self, seq: int, state: dict[str, Any]) -> None:
        """The referee published `state` (any thread: the picture is drawn in the camera's)."""
        self.shown = (seq, state)

    def lit(self, time_s: float) -> np.ndarray | None:
        """Where the projector lights the frame taken at `time_s`, as far as the referee knows."""
        shown = self.shown
        if self.projector is not None and shown is not None and shown[0] != self._drawn_seq:
            self._drawn_seq, self._lit_since, before = shown[0], time_s, self._lit
            try:
                self._lit = self.vision.light(self.projector(shown[1]))
            except Exception:  # a picture it cannot draw must not stop the camera
                log.exception(
                    "could not draw the projector's picture of state %d: the camera reads the frames "
                    "with that light in them", shown[0]
                )
                self._lit = None
            masks = [m for m in (self._lit, before) if m is not None]
            # (once per change, not per frame)
            self._lit_changing = masks[0] | masks[-1] if masks else None
        return self._lit_changing if time_s - self._lit_since < LIGHT_CHANGE_S else self._lit

    def see(self, index: int, time_s: float, image: np.ndarray) -> Observation:
        reading = self.reader.read(image, time_s, self.lit(time_s))
        # The undistorted picture is made only when the reader looked at the table again.
        image = self.reader.image() if self.reader.looked_again else None
        return self.tracker.update(reading, image, index, time_s)

    def track(self, reading: FrameReading, image: np.ndarray, index: int, time_s: float) -> Observation:
        return self.tracker.update(reading, image, index, time_s)


_worker_vision: FrameVision | None = None


def _worker_start(calibration: dict[str, Any], pawn_colors: list[str] | None, scale: float) -> None:
    global _worker_vision
    cv2.setNumThreads(1)  # one frame per process: the processes share the cores
    _worker_vision = FrameVision(Calibration.from_json(calibration), pawn_colors, scale)


def _worker_read(path: str) -> tuple[FrameReading, np.ndarray]:
    image = cv2.imread(path)
    if image is None:
        raise ValueError(f"{path} is not a readable image")
    assert _worker_vision is not None
    return _worker_vision.read(image)


def read_in_parallel(
    paths: list[Path], vision: FrameVision, workers: int | None = None
) -> Iterator[tuple[FrameReading, np.ndarray]]:
    """(reading, image) for image files in order, read by `workers` processes (default: one per
    core). A recorded game only: a live camera's frames come one at a time."""
    workers = workers or os.cpu_count() or 1
    if workers <= 1:
        for p in paths:
            yield _read_one(vision, p)
        return
    # spawn, not fork: a forked child inherits OpenCV's thread pool in whatever state it was
    # in and can hang on its first parallel call
    ctx = mp.get_context("spawn")
    args = (vision.calibration.to_json(), vision.pawn_colors, vision.scale)
    with ctx.Pool(workers, initializer=_worker_start, initargs=args) as pool:
        yield from pool.imap(_worker_read, [str(p) for p in paths], chunksize=1)


def _read_one(vision: FrameVision, path: Path) -> tuple[FrameReading, np.ndarray]:
    image = cv2.imread(str(path))
    if image is None:
        raise ValueError(f"{path} is not a readable image")
    return vision.read(image)


def wait_for_setup(
    frames: Iterator[Frame],
    watcher: TableWatcher,
    villains: dict[str, str],
    pawn_colors: dict[str, str] | None = None,
    on_wait: Callable[[str], None] | None = None,
) -> tuple[TableSetup, Observation]:
    """Watch until one observation shows every starting card and the Trophy."""
    last = ""
    for index, t, image in frames:
        obs = watcher.see(index, t, image)
        try:
            return table_setup(obs, villains, pawn_colors), obs
        except SetupNotFound as exc:
            if on_wait is not None and str(exc) != last:
                on_wait(str(exc))
            last = str(exc)
    raise SourceError("the frames ended before the camera saw the starting cards and the Trophy")


class CameraThread:
    """Frames from `open_frames()` through `watcher`, each Observation sent to the service loop.

    `open_frames` is called again after a failure (a camera that stopped), after `retry_s`.
    `attach(service, feed)` registers the receiving end in `service.feeds`.
    """

    def __init__(
        self,
        open_frames: Callable[[], Iterable[Frame]],
        watcher: TableWatcher,
        context: zmq.Context | None = None,
        retry_s: float = 2.0,
        max_retries: int | None = None,
    ) -> None:
        self.open_frames = open_frames
        self.watcher = watcher
        self.ctx = context or zmq.Context.instance()
        self.retry_s = retry_s
        self.max_retries = max_retries
        self.endpoint = f"inproc://camera-{id(self):x}"
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.receiver = self.ctx.socket(zmq.PAIR)
        self.receiver.bind(self.endpoint)

    # ---- service side -------------------------------------------------------------------------
    def attach(self, service: RefereeService, feed: CameraFeed, status: dict[str, Any]) -> None:
        """Hand Observations to `feed` inside the service loop and publish what it did."""

        def on_message(sock: zmq.Socket) -> None:
            while True:
                try:
                    kind, payload = pickle.loads(sock.recv(zmq.NOBLOCK))
                except zmq.Again:
                    return
                if kind == "status":
                    status.update(payload, last_problem=payload.get("message"))
                    log.warning("camera: %s", payload.get("message"))
                    service.publish_state()
                    continue
                status.pop("message", None)  # frames again: the problem is over (last_problem stays)
                before = len(feed.notices)
                for sent in feed.observe(payload):
                    log.info("camera, frame %d: %s", sent.frame, sent.describe())
                waited = status.get("waiting_for")
                status.update(feed.status(), frame=payload.frame, state="watching")
                for notice in list(feed.notices)[before:]:
                    log.info("camera, frame %d: %s", notice.frame, notice.message)
                if status.get("waiting_for") != waited and status.get("waiting_for"):
                    # said once when it changes: a game that does not go on says what it needs
                    log.info("%s", status["waiting_for"])
                if len(feed.notices) != before or status.get("waiting_for") != waited:
                    service.publish_state()

        service.feeds.append((self.receiver, on_message))

    # ---- camera side --------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self.receiver.close(0)

    def _run(self) -> None:
        sender = self.ctx.socket(zmq.PAIR)
        sender.connect(self.endpoint)
        failures = 0
        try:
            while not self._stop.is_set():
                try:
                    # A camera opened again may have moved or changed its exposure: look anew.
                    self.watcher.reader.reset()
                    for index, t, image in self.open_frames():
                        if self._stop.is_set():
                            return
                        obs = self.watcher.see(index, t, image)
                        sender.send(pickle.dumps(("obs", obs)))
                        failures = 0
                    message = "the camera's frames ended"
                except (SourceError, ValueError) as exc:  # ValueError: vision refused a frame
                    message = f"camera problem: {exc}"
                failures += 1
                if self.max_retries is not None and failures > self.max_retries:
                    sender.send(pickle.dumps(("status", {"state": "stopped", "message": message})))
                    return
                retry = f"{message}; trying again in {self.retry_s:.0f} s (the game is kept)"
                sender.send(pickle.dumps(("status", {"state": "retrying", "message": retry})))
                self._stop.wait(self.retry_s)
        finally:
            sender.close(0)


def session_feed(service: RefereeService, setup: TableSetup) -> CameraFeed:
    """A CameraFeed whose commands go through `service`'s session and out over its PUB."""
    return CameraFeed(SessionTarget(service.session, service.deliver), setup)
