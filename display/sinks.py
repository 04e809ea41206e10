"""Where pictures go: a real window (OpenCV highgui), numbered PNG frames, or a video file.

A sink's `show(picture)` is called only when the picture changed; `pump()` keeps a window
responsive between changes and says whether the viewer wants to go on (ESC or q stops).
"""

from __future__ import annotations

import os
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Protocol, TextIO

import cv2
import numpy as np

VIDEO_SUFFIXES = {".mp4": "h264", ".avi": "MJPG"}
# PyAV's H.264 encoders in order of choice: the wheels on PyPI bundle libx264; openh264 on
# builds without it.
H264_ENCODERS = ("libx264", "libopenh264")


class SinkError(Exception):
    """The output cannot be opened; the message says what to change."""


class Sink(Protocol):
    def show(self, picture: np.ndarray) -> None: ...
    def pump(self) -> bool: ...
    def close(self) -> None: ...
    def describe(self) -> str: ...


def display_problem() -> str | None:
    """Why no window can open here, or None when a screen is available."""
    if not sys.platform.startswith("linux"):
        return None
    display = os.environ.get("DISPLAY", "")
    if not display:
        return "no display (DISPLAY is not set)"
    head, _, rest = display.partition(":")
    number = rest.split(".")[0]
    # A local X server listens on a socket; Qt aborts the whole process when it cannot connect,
    # so look before opening a window.
    if head in ("", "unix") and number.isdigit() and not Path(f"/tmp/.X11-unix/X{number}").exists():
        return f"no X server on DISPLAY={display}"
    return None


class Window:
    """An OpenCV window; `fullscreen` for the projector."""

    def __init__(self, title: str, fullscreen: bool = False) -> None:
        self.title = title
        flags = cv2.WINDOW_NORMAL if fullscreen else cv2.WINDOW_AUTOSIZE
        try:
            cv2.namedWindow(title, flags)
            if fullscreen:
                cv2.setWindowProperty(title, cv2.WND_PROP_FULLSCREEN, cv2.WINDOW_FULLSCREEN)
        except cv2.error as exc:
            raise SinkError(
                f"cannot open a window ({exc.err.strip() or exc}); use --out PATH instead"
            ) from None
        self.shown = 0

    def show(self, picture: np.ndarray) -> None:
        cv2.imshow(self.title, picture)
        self.shown += 1

    def pump(self) -> bool:
        key = cv2.waitKey(1) & 0xFF
        if key in (27, ord("q")):
            return False
        try:
            return cv2.getWindowProperty(self.title, cv2.WND_PROP_VISIBLE) >= 1
        except cv2.error:
            return False  # the window was closed

    def close(self) -> None:
        try:
            cv2.destroyWindow(self.title)
            cv2.waitKey(1)
        except cv2.error:
            pass

    def describe(self) -> str:
        return f"window '{self.title}' (ESC or q to quit)"


class FrameFolder:
    """frame-000001.png, frame-000002.png, ... one per distinct picture."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SinkError(f"cannot write frames to {self.folder}: {exc.strerror}") from None
        self.written = 0
        self._last: np.ndarray | None = None

    def show(self, picture: np.ndarray) -> None:
        if self._last is not None and np.array_equal(picture, self._last):
            return
        self.written += 1
        path = self.folder / f"frame-{self.written:06d}.png"
        if not cv2.imwrite(str(path), picture):
            raise SinkError(f"cannot write {path}: is the disk full or the folder read-only?")
        self._last = picture.copy()

    def pump(self) -> bool:
        return True

    def close(self) -> None:
        pass

    def describe(self) -> str:
        return f"PNG frames in {self.folder}/ (a new frame each time the picture changes)"


class VideoEncoder:
    """Frames -> a video file. An .mp4 is H.264 (yuv420p, moov atom first) through PyAV, which
    browsers and phones play; when this PyAV has no H.264 encoder, OpenCV's MPEG-4 part 2 (mp4v)
    with a note on stderr. An .avi is OpenCV's MJPG. The size is fixed by the first frame."""

    def __init__(self, path: str | Path, fps: float, warn: TextIO | None = None) -> None:
        self.path = Path(path)
        self.fps = fps
        self.codec = VIDEO_SUFFIXES.get(self.path.suffix.lower())
        if self.codec is None:
            raise SinkError(f"{self.path}: a video must end in {' or '.join(VIDEO_SUFFIXES)}")
        if not self.path.parent.exists():
            raise SinkError(f"cannot write {self.path}: folder {self.path.parent} does not exist")
        self.warn = warn if warn is not None else sys.stderr
        self.size: tuple[int, int] | None = None
        self._av: Any = None  # (container, stream) when writing H.264
        self._cv: cv2.VideoWriter | None = None

    def write(self, picture: np.ndarray) -> None:
        if self.size is None:
            self._open(picture.shape[1], picture.shape[0])
        assert self.size is not None
        if picture.shape[1::-1] != self.size:
            picture = cv2.resize(picture, self.size)
        if self._av is not None:
            import av

            container, stream = self._av
            for packet in stream.encode(av.VideoFrame.from_ndarray(picture, format="bgr24")):
                container.mux(packet)
        else:
            assert self._cv is not None
            self._cv.write(picture)

    def _open(self, w: int, h: int) -> None:
        if self.codec == "h264":
            w, h = w - w % 2, h - h % 2  # 4:2:0 chroma needs even sides
            problem = self._open_h264(w, h)
            if problem is None:
                self.size = (w, h)
                return
            print(f"note: {problem}; writing {self.path} as MPEG-4 part 2 (mp4v), which browsers do not play",
                  file=self.warn)  # fmt: skip
            self.codec = "mp4v"
        self._cv = cv2.VideoWriter(str(self.path), cv2.VideoWriter_fourcc(*self.codec), self.fps, (w, h))
        if not self._cv.isOpened():
            raise SinkError(
                f"cannot write video {self.path} (codec {self.codec}); use --out FOLDER for PNG frames"
            )
        self.size = (w, h)

    def _open_h264(self, w: int, h: int) -> str | None:
        """Start the H.264 stream; the reason when it cannot be had here."""
        try:
            import av
        except ImportError:
            return "PyAV (package 'av') is not installed"
        encoder = next((c for c in H264_ENCODERS if c in av.codecs_available), None)
        if encoder is None:
            return "this PyAV has no H.264 encoder"
        try:
            container = av.open(str(self.path), "w", options={"movflags": "+faststart"})
            stream = container.add_stream(encoder, rate=Fraction(self.fps).limit_denominator(1000))
            stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
            if encoder == "libx264":
                stream.options = {"preset": "veryfast", "crf": "23"}
        except (av.FFmpegError, OSError, ValueError) as exc:
            return f"H.264 encoder {encoder} failed to start ({exc})"
        self._av = (container, stream)
        return None

    def close(self) -> None:
        if self._av is not None:
            container, stream = self._av
            for packet in stream.encode():  # flush the frames the encoder still holds
                container.mux(packet)
            container.close()
            self._av = None
        if self._cv is not None:
            self._cv.release()
            self._cv = None


class VideoFile:
    """A video with one frame per distinct picture, each held for 1/fps seconds."""

    def __init__(self, path: str | Path, fps: float = 5.0) -> None:
        self.path = Path(path)
        self._encoder = VideoEncoder(path, fps)
        self._last: np.ndarray | None = None
        self.written = 0

    def show(self, picture: np.ndarray) -> None:
        if self._last is not None and np.array_equal(picture, self._last):
            return
        self._encoder.write(picture)
        self._last = picture.copy()
        self.written += 1

    def pump(self) -> bool:
        return True

    def close(self) -> None:
        self._encoder.close()

    def describe(self) -> str:
        return f"video {self.path} (a frame each time the picture changes)"


def open_sink(
    out: str | None, title: str, fullscreen: bool = False, fallback: str | None = None
) -> tuple[Sink, str]:
    """The sink for `--out` (a folder or a .mp4/.avi file), else a window when a screen exists,
    else PNG frames in `fallback`. Returns the sink and a line saying where pictures go."""
    if out:
        sink: Sink = VideoFile(out) if Path(out).suffix.lower() in VIDEO_SUFFIXES else FrameFolder(out)
        return sink, f"writing {sink.describe()}"
    problem = display_problem()
    if problem is None:
        sink = Window(title, fullscreen)
        return sink, f"showing {sink.describe()}"
    folder = fallback or f"{title.replace(' ', '-').lower()}-frames"
    sink = FrameFolder(folder)
    return sink, f"{problem}: running headless, writing {sink.describe()} (choose with --out PATH)"
