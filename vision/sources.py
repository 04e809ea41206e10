"""Frame sources: a webcam, a video file, or a folder of images - each yields (index, time_s, BGR).

A camera that fails to open or stops delivering frames raises `SourceError` with a clear
message; `CameraSource(retry=True)` instead keeps trying to reopen it (the caller's state, such
as the tracker, is untouched while it waits).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp"}


def jpeg_damage(path: str | Path) -> str | None:
    """Why a JPEG file is cut short, or None when it is whole (or no JPEG). OpenCV decodes a
    truncated JPEG anyway - the missing rows grey, a libjpeg warning on stderr only - so the file's
    structure is checked: the segments up to the first scan, then the end marker (FFD9) after it.
    Entropy-coded data never holds FFD9, and searching from the scan on skips an EXIF thumbnail's
    own end marker; data a phone appends after the image's end is no damage."""
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None  # not ours to judge here: opening it reports the problem
    if not data.startswith(b"\xff\xd8"):
        return None
    i, n = 2, len(data)
    while True:
        while i < n and data[i] == 0xFF and i + 1 < n and data[i + 1] == 0xFF:
            i += 1  # fill bytes before a marker
        if i + 4 > n:
            return "the JPEG ends early"
        if data[i] != 0xFF:
            return "the JPEG's structure is broken"
        marker = data[i + 1]
        if marker == 0xD9:
            return "the JPEG ends before its picture"
        if 0xD0 <= marker <= 0xD7 or marker == 0x01:
            i += 2
            continue
        length = int.from_bytes(data[i + 2 : i + 4], "big")
        if marker == 0xDA:  # start of scan: the picture's data, up to the end marker
            return None if data.find(b"\xff\xd9", i + 2 + length) >= 0 else "the JPEG ends early"
        i += 2 + length


class SourceError(OSError):
    """A frame source cannot deliver frames; the message says what to check."""


Frame = tuple[int, float, np.ndarray]


class FolderSource:
    """Images of a folder in name order; time = index / fps. EXIF rotation applied (cv2.imread).

    An unreadable file among the photos (a half-copied JPEG, a stray text file named .png) is
    skipped with a warning and listed in `skipped`: one bad photo must not end a game's replay.
    Its time slot is kept, so the photos after it keep their times.
    """

    def __init__(self, folder: str | Path, fps: float = 10.0) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"{self.folder} is not a folder of images")
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(f"{self.folder} holds no images ({', '.join(sorted(IMAGE_SUFFIXES))})")
        self.fps = fps
        self.skipped: list[Path] = []

    def __iter__(self) -> Iterator[Frame]:
        for i, p in enumerate(self.paths):
            # a JPEG cut short decodes with its lost rows grey: a table that never was
            cut = jpeg_damage(p)
            img = None if cut else cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                if p not in self.skipped:
                    self.skipped.append(p)
                    why = f"damaged or cut short ({cut})" if cut else "not a readable image"
                    log.warning("skipped %s: %s (re-copy or remove it)", p, why)
                continue
            yield i, i / self.fps, img
        if len(self.skipped) == len(self.paths):
            raise SourceError(f"{self.folder}: none of its {len(self.paths)} images can be read")


class VideoSource:
    """Frames of a video file; time from the file's timestamps."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"video file {self.path} not found")

    def __iter__(self) -> Iterator[Frame]:
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            raise SourceError(f"{self.path} cannot be opened as a video")
        try:
            i = 0
            while True:
                ok, img = cap.read()
                if not ok:
                    return
                t = cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
                yield i, t, img
                i += 1
        finally:
            cap.release()


class CameraSource:
    """A webcam by index at a requested resolution, with autofocus and auto-exposure off where
    the camera allows (a refocusing lens moves the corners)."""

    def __init__(
        self,
        index: int,
        size: tuple[int, int] = (1920, 1080),
        retry: bool = True,
        retry_s: float = 1.0,
        max_failures: int = 30,
    ) -> None:
        self.index, self.size, self.retry, self.retry_s, self.max_failures = (
            index,
            size,
            retry,
            retry_s,
            max_failures,
        )
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> cv2.VideoCapture:
        cap = cv2.VideoCapture(self.index)
        if not cap.isOpened():
            cap.release()
            raise SourceError(
                f"camera {self.index} cannot be opened: is it plugged in and not used by another program?"
            )
        cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
        cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        cap.set(cv2.CAP_PROP_AUTOFOCUS, 0)
        cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 0.25)  # V4L2 "manual" mode; ignored where unsupported
        return cap

    def __iter__(self) -> Iterator[Frame]:
        i, failures, t0 = 0, 0, time.monotonic()
        while True:
            if self._cap is None:
                try:
                    self._cap = self._open()
                except SourceError:
                    if not self.retry or failures >= self.max_failures:
                        raise
                    failures += 1
                    time.sleep(self.retry_s)
                    continue
            ok, img = self._cap.read()
            if not ok or img is None:
                self._cap.release()
                self._cap = None
                failures += 1
                if not self.retry or failures >= self.max_failures:
                    raise SourceError(
                        f"camera {self.index} stopped delivering frames: check its cable and power"
                    )
                time.sleep(self.retry_s)
                continue
            failures = 0
            yield i, time.monotonic() - t0, img
            i += 1


def open_source(spec: str | int) -> FolderSource | VideoSource | CameraSource:
    """A source from a command-line value: a number is a webcam, a folder is images, else a video."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return CameraSource(int(spec))
    p = Path(spec)
    if p.is_dir():
        return FolderSource(p)
    return VideoSource(p)
