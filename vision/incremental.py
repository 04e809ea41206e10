"""Read a camera stream at frame rate: look again only where the table changed.

A camera over a table sees the same picture frame after frame; what changes is where a hand
moves, a card is laid or a pawn jumps. `IncrementalReader.read(image)` compares a small copy of
each frame with the picture its current reading describes. Where nothing changed, the reading
stands (the same `CardSeen` objects, which tells the tracker nothing was looked at again). A
changed region is re-read - cards, faces and pawns, by the full `FrameReader` on a crop that
holds every card it touches - once it has been still for `settle_s`, so a moving hand costs only
the comparison. (Frames further apart than `settle_s`, a few a second, are re-read at once
where they changed: between two such frames the table had time to come to rest.) A full read is made on the first frame, when the frame size
changes, and every `refresh_frames` frames as a safety net.

The result for a region is the full reader's result on that crop; tests check that a stream
read this way ends where reading its last frame whole ends.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from vision.observation import CardSeen, FrameReading, PawnSeen
from vision.pipeline import FrameReader, check_image
from vision.undistort import FrameMap


@dataclass(frozen=True)
class IncrementalSettings:
    small_long_side: int = 320  # frames are compared at this size (px, long side)
    # Grey-level change on the small copy that counts as a change. Sensor noise is averaged
    # away by the reduction (1080p -> 320 px: 36 pixels each); a card edge moved by 1 mm or a
    # pawn shifts far more than this.
    change_level: int = 10
    settle_s: float = 0.05  # a changed region is re-read once it has been still this long
    stream_fps: float = 30.0  # frame rate assumed when `read` is not given the frames' times
    refresh_frames: int | None = 300  # a whole-frame read at least this often (None: never)
    margin_cards: float = 0.6  # a changed region grows by this many card long edges


Box = tuple[int, int, int, int]  # x0, y0, x1, y1 (x1, y1 exclusive)


@dataclass
class _Region:
    """Where to look again: `core` (full-frame px) holds the changed area and every known card it
    touches; `crop` adds context around it, so the reader sees the core as in a whole frame."""

    core: list[int]
    parts: list[Box]  # the changed areas (small-copy px) it answers for
    crop: Box = (0, 0, 0, 0)

    def contains(self, pt: tuple[float, float]) -> bool:
        x0, y0, x1, y1 = self.core
        return x0 <= pt[0] < x1 and y0 <= pt[1] < y1

    def touches(self, corners: np.ndarray) -> bool:
        x0, y0, x1, y1 = self.core
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        return bool(lo[0] < x1 and hi[0] >= x0 and lo[1] < y1 and hi[1] >= y0)

    def overlaps(self, other: _Region) -> bool:
        a, b = self.core, other.core
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    def cover(self, corners: np.ndarray, pad: int, w: int, h: int) -> bool:
        """Grow the core to hold `corners` with `pad` px to spare; True if it grew."""
        lo = np.floor(corners.min(axis=0)).astype(int) - pad
        hi = np.ceil(corners.max(axis=0)).astype(int) + pad + 1
        new = [
            max(min(self.core[0], int(lo[0])), 0),
            max(min(self.core[1], int(lo[1])), 0),
            min(max(self.core[2], int(hi[0])), w),
            min(max(self.core[3], int(hi[1])), h),
        ]
        grew = new != self.core
        self.core = new
        return grew


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
        self._raw: np.ndarray | None = None  # the latest frame, as it came
        self._image: np.ndarray | None = None  # ... and as vision reads it, once needed
        self.looked_again = False  # the latest frame was read (whole or in part)
        self._reading: FrameReading | None = None
        self._ref: np.ndarray | None = None  # small copy of what the reading describes
        self._prev: np.ndarray | None = None  # small copy of the previous frame
        self._moved_at: np.ndarray | None = None  # per small pixel: last time seen before a change
        self._prev_t = 0.0
        self._frames_since_full = 0
        self._identity: FrameMap | None = None
        self.full_reads = 0
        self.region_reads = 0

    def reset(self) -> None:
        """Forget everything: the next frame is read whole (e.g. after the camera moved)."""
        self._reading = None

    # ------------------------------------------------------------------------------------------
    def image(self) -> np.ndarray:
        """The latest frame as vision reads it (made on demand: most frames never need it)."""
        if self._image is None:
            assert self._raw is not None, "read a frame first"
            self._image = self._map(self._raw).whole(self._raw)
        return self._image

    def read(self, image: np.ndarray, time_s: float | None = None) -> FrameReading:
        """The reading of camera frame `image`; `time_s` is when it was taken (default: frames
        `stream_fps` apart)."""
        t0 = time.perf_counter()
        if time_s is None:
            time_s = self._prev_t + 1.0 / self.settings.stream_fps
        if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
            check_image(image)  # raises the reader's own message
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        fmap = self._map(image)
        fmap.check(image)
        self._raw, self._image, self.looked_again = image, None, False
        w, h = fmap.size
        small = fmap.small(image, self.settings.small_long_side)
        check_image(small)  # a covered lens or a dead camera says so, as a whole read would
        s = self.settings
        r = self._reading
        due = s.refresh_frames is not None and self._frames_since_full >= s.refresh_frames
        if (
            r is None
            or (r.width, r.height) != (w, h)
            or self._ref is None
            or self._ref.shape != small.shape
            or due
        ):
            return self._read_whole(small, time_s, t0)
        self._frames_since_full += 1
        moving = _differs(small, self._prev, s.change_level)
        # A change seen now happened after the previous frame: the region is known to be at rest
        # from the previous frame's time on, at best.
        self._moved_at[moving > 0] = self._prev_t
        self._prev, self._prev_t = small, time_s
        changed = _differs(small, self._ref, s.change_level)
        if not cv2.countNonZero(changed):
            return self._stand(r, t0)
        k = w / small.shape[1]
        regions = self._settled_regions(changed, k, time_s)
        if not regions:
            return self._stand(r, t0)
        for reg in regions:
            x0, y0, x1, y1 = reg.core  # refreshed where it is read again, and no further
            self._ref[int(np.ceil(y0 / k)) : int(y1 // k), int(np.ceil(x0 / k)) : int(x1 // k)] = small[
                int(np.ceil(y0 / k)) : int(y1 // k), int(np.ceil(x0 / k)) : int(x1 // k)
            ]
            for sx0, sy0, sx1, sy1 in reg.parts:
                self._ref[sy0:sy1, sx0:sx1] = small[sy0:sy1, sx0:sx1]
        self._reading = self._reread(regions, r, t0)
        self.looked_again = True
        self.region_reads += len(regions)
        return self._reading

    # ------------------------------------------------------------------------------------------
    def _map(self, raw: np.ndarray) -> FrameMap:
        if self.frame_map is not None:
            return self.frame_map
        size = (raw.shape[1], raw.shape[0])
        if self._identity is None or self._identity.raw_size != size:
            self._identity = FrameMap(size)
        return self._identity

    def _read_whole(self, small: np.ndarray, time_s: float, t0: float) -> FrameReading:
        image = self.image()
        check_image(image)
        self._reading = self.reader.read_checked(image)
        self.looked_again = True
        self._ref, self._prev, self._prev_t = small.copy(), small, time_s
        self._moved_at = np.full(small.shape[:2], -np.inf)
        self._frames_since_full = 0
        self.full_reads += 1
        return _with_elapsed(self._reading, t0)

    def _stand(self, r: FrameReading, t0: float) -> FrameReading:
        return _with_elapsed(r, t0)

    def _card_px(self) -> float:
        """A card's long edge in full-frame pixels (for how far a change may reach)."""
        r = self._reading
        if r is not None and r.cards:
            return float(np.median([_long_side(np.array(c.corners_px)) for c in r.cards]))
        table = self.reader.table
        if table is not None and r is not None:
            centre = np.array([[r.width / 2, r.height / 2]])
            return max(table.card_size_mm) / float(table.mm_per_px(centre)[0])
        return max(r.width, r.height) / 8 if r is not None else 100.0

    def _settled_regions(self, changed: np.ndarray, k: float, time_s: float) -> list[_Region]:
        """Regions to read again: the changed areas grown by part of a card and over every known
        card they touch (merged where they meet), whose crop has been still for `settle_s`."""
        s = self.settings
        assert self._reading is not None
        w, h = self._reading.width, self._reading.height
        card = self._card_px()
        grow = max(1, int(round(s.margin_cards * card / k)))
        mask = cv2.dilate(changed, cv2.getStructuringElement(cv2.MORPH_RECT, (2 * grow + 1,) * 2))
        n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
        old = [np.array(c.corners_px) for c in self._reading.cards]
        regions = []
        for i in range(1, n):
            x, y, bw, bh, _ = stats[i]
            core = [
                int(x * k),
                int(y * k),
                min(int(np.ceil((x + bw) * k)), w),
                min(int(np.ceil((y + bh) * k)), h),
            ]
            regions.append(_Region(core, [(int(x), int(y), int(x + bw), int(y + bh))]))
        # Every known card a region touches is read again whole; regions that meet are one.
        while True:
            for reg in regions:
                grew = True
                while grew:  # a card it grows over may touch another
                    grew = False
                    for q in old:
                        if reg.touches(q):
                            grew |= reg.cover(q, 6, w, h)
            merged = False
            for i in range(len(regions)):
                for j in range(i + 1, len(regions)):
                    a, b = regions[i], regions[j]
                    if a.overlaps(b):
                        a.core = [min(a.core[0], b.core[0]), min(a.core[1], b.core[1]),
                                  max(a.core[2], b.core[2]), max(a.core[3], b.core[3])]  # fmt: skip
                        a.parts += b.parts
                        del regions[j]
                        merged = True
                        break
                if merged:
                    break
            if not merged:
                break
        ctx = int(0.5 * card)
        out = []
        for reg in regions:
            x0, y0, x1, y1 = reg.core
            reg.crop = (max(x0 - ctx, 0), max(y0 - ctx, 0), min(x1 + ctx, w), min(y1 + ctx, h))
            cx0, cy0, cx1, cy1 = reg.crop
            box = self._moved_at[int(cy0 // k) : int(np.ceil(cy1 / k)), int(cx0 // k) : int(np.ceil(cx1 / k))]
            if box.size and time_s - box.max() < s.settle_s:
                continue  # something still moves there or next to it (a hand): wait
            out.append(reg)
        return out

    def _reread(self, regions: list[_Region], r: FrameReading, t0: float) -> FrameReading:
        w, h = r.width, r.height
        assert self._raw is not None
        fmap = self._map(self._raw)
        old = [np.array(c.corners_px) for c in r.cards]
        cards: list[CardSeen] = []
        pawns: list[tuple[PawnSeen, int | None]] = []  # pawn, index into `cards`
        old_index: dict[int, int] = {}
        for i, (c, q) in enumerate(zip(r.cards, old)):
            if not any(reg.touches(q) for reg in regions):
                old_index[i] = len(cards)
                cards.append(c)
        for p in r.pawns:
            if not any(reg.contains(p.center_px) for reg in regions):
                pawns.append((p, None if p.card is None else old_index.get(p.card)))
        table = self.reader.table
        nadir = self.reader.nadir_px(w, h)
        news: list[tuple[PawnSeen, int | None]] = []
        for reg in regions:
            x0, y0, x1, y1 = reg.crop
            crop = (
                self._image[y0:y1, x0:x1] if self._image is not None else fmap.crop(self._raw, x0, y0, x1, y1)
            )
            if crop.shape[0] < 32 or crop.shape[1] < 32:
                continue
            sub = FrameReader(
                table=None if table is None else table.shifted(x0, y0),
                faces=self.reader.faces,
                pawn_colors=self.reader.pawn_colors,
                settings=self.reader.detector.settings,
                find_faces=self.reader.faces is not None,
            ).read_checked(crop, None if nadir is None else (nadir[0] - x0, nadir[1] - y0))
            index: dict[int, int] = {}
            for i, c in enumerate(sub.cards):
                q = np.array(c.corners_px) + (x0, y0)
                # Only the core's cards are news; the context's stand as they were read before.
                if not reg.contains(tuple(q.mean(axis=0))) or _cut_by(q, reg.crop, w, h):
                    continue
                index[i] = len(cards)
                cards.append(_shift_card(c, x0, y0))
            for p in sub.pawns:
                p = _shift_pawn(p, x0, y0)
                if reg.contains(p.center_px):
                    news.append((p, None if p.card is None else index.get(p.card)))
        # One sighting per colour, as a whole read gives: where the table just changed first.
        seen: set[str] = set()
        kept = []
        for p, ci in news + pawns:
            if p.color not in seen:
                seen.add(p.color)
                kept.append((p, ci))
        pawns = kept
        # The full reader's order: top to bottom, then left to right.
        order = sorted(
            range(len(cards)),
            key=lambda i: (min(y for _, y in cards[i].corners_px), min(x for x, _ in cards[i].corners_px)),
        )
        new_pos = {old_i: new_i for new_i, old_i in enumerate(order)}
        out_pawns = tuple(
            PawnSeen(p.color, p.center_px, p.center_mm, None if ci is None else new_pos[ci])
            for p, ci in pawns
        )
        reading = FrameReading(w, h, 0.0, tuple(cards[i] for i in order), _pawn_order(out_pawns))
        return _with_elapsed(reading, t0)


def _differs(a: np.ndarray, b: np.ndarray, level: int) -> np.ndarray:
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


def _cut_by(q: np.ndarray, crop: Box, w: int, h: int) -> bool:
    """A card (full-frame px) touching an edge of the crop that is not an edge of the frame."""
    x0, y0, x1, y1 = crop
    lo, hi = q.min(axis=0), q.max(axis=0)
    return bool(
        (lo[0] < x0 + 2 and x0 > 0)
        or (lo[1] < y0 + 2 and y0 > 0)
        or (hi[0] > x1 - 3 and x1 < w)
        or (hi[1] > y1 - 3 and y1 < h)
    )


def _shift_card(c: CardSeen, dx: int, dy: int) -> CardSeen:
    return CardSeen(
        corners_px=tuple((x + dx, y + dy) for x, y in c.corners_px),
        sigma_px=c.sigma_px,
        face=c.face,
        name=c.name,
        score=c.score,
        corners_mm=c.corners_mm,
        sigma_mm=c.sigma_mm,
    )


def _shift_pawn(p: PawnSeen, dx: int, dy: int) -> PawnSeen:
    return PawnSeen(p.color, (p.center_px[0] + dx, p.center_px[1] + dy), p.center_mm, p.card)


def _pawn_order(pawns: tuple[PawnSeen, ...]) -> tuple[PawnSeen, ...]:
    # Keep the reader's convention per colour (its likeliest sighting first), colours in order.
    return tuple(sorted(pawns, key=lambda p: p.color))
