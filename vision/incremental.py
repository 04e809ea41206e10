"""Read a camera stream at frame rate: look again only when the table changed and came to rest.

A camera over a table sees the same picture frame after frame; what changes is where a hand
moves, a card is laid or a pawn jumps. `IncrementalReader.read(image)` compares a small copy of
each frame (320 px, each pixel an average of many, so sensor noise does not count) with the
picture its current reading was made from. While nothing changed, the reading stands: the same
`CardSeen` objects, which tells the tracker that nothing was looked at again. When a changed
area has been still for `settle_s`, the frame is read again whole by the `FrameReader`, so a
moving hand costs only the comparison and every reading is exactly what reading that frame
whole gives. (Frames further apart than `settle_s`, a few a second, are read at once where
they changed: between two such frames the table had time to come to rest.) Areas still moving
then stay marked as changed, to be read once they rest. A whole read is also made on the first
frame, when the frame size changes, and every `refresh_frames` frames as a safety net.

Reading only a crop around the change would be cheaper still, but the detector's maps and
thresholds follow the whole picture, and a crop read can then see a card (one held in the air
over the table, say) that the whole read rejects: every reading is a whole one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from vision.observation import FrameReading
from vision.pipeline import FrameReader, check_image
from vision.undistort import FrameMap


@dataclass(frozen=True)
class IncrementalSettings:
    small_long_side: int = 320  # frames are compared at this size (px, long side)
    # Grey-level change on the small copy that counts as a change. Sensor noise is averaged
    # away by the reduction (1080p -> 320 px: 36 pixels each); a card edge moved by 1 mm or a
    # pawn shifts far more than this.
    change_level: int = 10
    settle_s: float = 0.05  # a changed area is read once it has been still this long
    stream_fps: float = 30.0  # frame rate assumed when `read` is not given the frames' times
    refresh_frames: int | None = 300  # a whole read at least this often (None: never)
    # A changed area counts with this much of its surroundings (in card long edges): a hand
    # reaching for a card moves next to it.
    margin_cards: float = 0.6


class IncrementalReader:
    """`read(image) -> FrameReading` for consecutive frames of one camera; see the module doc."""

    def __init__(
        self,
        reader: FrameReader,
        settings: IncrementalSettings | None = None,
        frame_map: FrameMap | None = None,
    ) -> None:
        """`frame_map` turns camera frames into the picture `reader` reads (the lens undone);
        by default frames are read as they come."""
        self.reader = reader
        self.settings = settings or IncrementalSettings()
        self.frame_map = frame_map
        self._identity: FrameMap | None = None
        self._raw: np.ndarray | None = None  # the latest frame, as it came
        self._image: np.ndarray | None = None  # ... and as vision reads it, once needed
        self._lit: np.ndarray | None = None  # ... where the projector lights it
        self.looked_again = False  # the latest frame was read
        self._reading: FrameReading | None = None
        self._ref: np.ndarray | None = None  # small copy of what the reading was made from
        self._prev: np.ndarray | None = None  # small copy of the previous frame
        self._moved_at: np.ndarray | None = None  # per small pixel: last time seen before a change
        self._prev_t = 0.0
        self._frames_since_full = 0
        self.reads = 0  # frames read whole (the first, and after every change)
        self.frames = 0  # frames given

    def reset(self) -> None:
        """Forget everything: the next frame is read whole (e.g. after the camera moved)."""
        self._reading = None

    def image(self) -> np.ndarray:
        """The latest frame as vision reads it (made on demand: most frames never need it)."""
        if self._image is None:
            assert self._raw is not None, "read a frame first"
            self._image = self._map(self._raw).whole(self._raw)
        return self._image

    # ------------------------------------------------------------------------------------------
    def read(self, image: np.ndarray, time_s: float | None = None, lit: np.ndarray | None = None) -> FrameReading:
        """The reading of camera frame `image`; `time_s` is when it was taken (default: frames
        `stream_fps` apart); `lit`: where the referee's projector lights it, in the pixels of
        `image()` (`FrameReader.read`)."""
        t0 = time.perf_counter()
        s = self.settings
        if time_s is None:
            time_s = self._prev_t + 1.0 / s.stream_fps
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            check_image(image)  # raises the reader's own message
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        fmap = self._map(image)
        fmap.check(image)
        self._raw, self._image, self.looked_again = image, None, False
        self._lit = lit
        self.frames += 1
        small = fmap.small(image, s.small_long_side)
        check_image(small)  # a covered lens or a dead camera says so, as a whole read would
        r = self._reading
        due = s.refresh_frames is not None and self._frames_since_full >= s.refresh_frames
        if r is None or self._ref is None or self._ref.shape != small.shape or due:
            self._ref = small.copy()
            self._moved_at = np.full(small.shape[:2], -np.inf)
            return self._read_whole(small, time_s, t0)
        self._frames_since_full += 1
        moving = _differs(small, self._prev, s.change_level)
        # A change seen now happened after the previous frame: the area is known to be at rest
        # from the previous frame's time on, at best.
        self._moved_at[moving > 0] = self._prev_t
        self._prev, self._prev_t = small, time_s
        changed = _differs(small, self._ref, s.change_level)
        if not cv2.countNonZero(changed):
            return _with_elapsed(r, t0)
        settled = self._settled(changed, fmap.size[0] / small.shape[1], time_s)
        if not settled:
            return _with_elapsed(r, t0)
        for x0, y0, x1, y1 in settled:  # what is read now; areas still moving stay changed
            self._ref[y0:y1, x0:x1] = small[y0:y1, x0:x1]
        return self._read_whole(small, time_s, t0)

    # ------------------------------------------------------------------------------------------
    def _map(self, raw: np.ndarray) -> FrameMap:
        if self.frame_map is not None:
            return self.frame_map
        size = (raw.shape[1], raw.shape[0])
        if self._identity is None or self._identity.raw_size != size:
            self._identity = FrameMap(size)
        return self._identity

    def _read_whole(self, small: np.ndarray, time_s: float, t0: float) -> FrameReading:
        self._reading = self.reader.read_checked(self.image(), self._lit)
        self._prev, self._prev_t = small, time_s
        self._frames_since_full = 0
        self.looked_again = True
        self.reads += 1
        return _with_elapsed(self._reading, t0)

    def _card_px(self) -> float:
        """A card's long edge in the picture's pixels (for how far a change may reach)."""
        r = self._reading
        assert r is not None
        if r.cards:
            return float(np.median([_long_side(np.array(c.corners_px)) for c in r.cards]))
        table = self.reader.table
        if table is not None:
            centre = np.array([[r.width / 2, r.height / 2]])
            return max(table.card_size_mm) / float(table.mm_per_px(centre)[0])
        return max(r.width, r.height) / 8

    def _settled(self, changed: np.ndarray, k: float, time_s: float) -> list[tuple[int, int, int, int]]:
        """Boxes (small-copy px) of the changed areas, with part of a card around them, that
        have been still for `settle_s`."""
        s = self.settings
        grow = max(1, int(round(s.margin_cards * self._card_px() / k)))
        mask = cv2.dilate(changed, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * grow + 1,) * 2))
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        out = []
        for x, y, bw, bh, _ in stats[1:n]:
            if time_s - self._moved_at[y : y + bh, x : x + bw].max() >= s.settle_s:
                out.append((int(x), int(y), int(x + bw), int(y + bh)))
        return out


def _differs(a: np.ndarray, b: np.ndarray, level: int) -> np.ndarray:
    """uint8 mask (0/1) of the small-copy pixels where a and b differ by more than `level`."""
    d = cv2.absdiff(a, b)
    if d.ndim == 3:
        b0, g0, r0 = cv2.split(d)
        d = cv2.max(cv2.max(b0, g0), r0)
    _, m = cv2.threshold(d, level, 1, cv2.THRESH_BINARY)
    # A lone pixel over the level is noise or JPEG; anything real covers a few.
    return cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((2, 2), np.uint8))


def _with_elapsed(r: FrameReading, t0: float) -> FrameReading:
    return FrameReading(r.width, r.height, (time.perf_counter() - t0) * 1e3, r.cards, r.pawns)


def _long_side(q: np.ndarray) -> float:
    s = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    return float(max((s[0] + s[2]) / 2, (s[1] + s[3]) / 2))
