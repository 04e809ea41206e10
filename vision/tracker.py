"""Tracker: stable card ids over frames, and confirmed events for the referee.

- A card counts as placed only after it has been seen, still, for `confirm_s` seconds.
- A placed card that is not found is `hidden`, never removed on that alone: it is removed only
  when the table shows through where it lay - its region looks like the table band around it,
  and that band looks as it did when the card was last seen (so a hand over the card and its
  surroundings is an occlusion, not a removal) - for `confirm_s`.
- A placed card seen still at a new place more than `move_mm` (or `move_px`) away for
  `confirm_s` is moved; a face change held for `confirm_s` is a flip.
- A pawn whose card changes and stays changed for `confirm_s` makes `pawn_moved`; a pawn out of
  sight (carried) makes nothing until it is seen again.

Usage: `tracker = Tracker(); obs = tracker.update(reading, image, frame_index, time_s)`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.observation import CardSeen, FrameReading, Observation, TrackedCard, TrackedPawn, VisionEvent


@dataclass(frozen=True)
class TrackerSettings:
    confirm_s: float = 0.5
    still_px: float = 2.0  # per-frame corner motion still counted as "still"
    move_mm: float = 3.0
    move_px: float = 6.0  # without a calibration
    match_fraction: float = 0.6  # a detection matches a track within this share of a card's short edge
    clear_tol: float = 14.0  # Lab distance under which two colours are "the same surface"
    # ... and under which the band around a card is unchanged since it was last seen: tighter,
    # since a sleeve close to the cloth's colour over card and band must not pass for the cloth.
    ring_tol: float = 8.0
    # A move counts only on a clean outline (detector score): a card half under a hand is fitted
    # less well, and its outline must not pass for a move.
    clean_score: float = 0.9


@dataclass
class _Track:
    id: int
    seen: CardSeen
    first_s: float
    still_since_s: float
    placed: bool = False
    anchor: np.ndarray | None = None  # corners at the last confirmed position
    face: str = "unknown"
    name: str | None = None
    pending_face: tuple[str, str | None, float] | None = None
    last_seen_frame: int = 0
    hidden: bool = False
    clear_since_s: float | None = None
    ring_lab: np.ndarray | None = None  # the table band around the card when last seen
    clean_since_s: float | None = None  # seen with a clean outline, unmoved, since
    unmoved: CardSeen | None = None  # the last sighting found within move_mm of the anchor


@dataclass
class _PawnTrack:
    color: str
    center_px: tuple[float, float]
    center_mm: tuple[float, float] | None
    card_id: int | None
    pending: tuple[int | None, float] | None = None
    hidden: bool = False


@dataclass
class Tracker:
    settings: TrackerSettings = field(default_factory=TrackerSettings)

    def __post_init__(self) -> None:
        self._tracks: list[_Track] = []
        self._pawns: dict[str, _PawnTrack] = {}
        self._next_id = 1

    def update(
        self, reading: FrameReading, image: np.ndarray | None, frame: int, time_s: float
    ) -> Observation:
        """`image` is the picture `reading` was made from, or None when the reader did not look
        at the table again (`vision.incremental`: nothing changed since its last look)."""
        s = self.settings
        events: list[VisionEvent] = []
        # Each colour sample converts only its own crop to Lab.
        colour = image if image is not None and image.ndim == 3 else None
        matched: set[int] = set()
        # Match detections to tracks: nearest centre within a share of the card's size.
        pairs = []
        if reading.cards and self._tracks:
            det = np.array([c.corners_px for c in reading.cards], dtype=np.float64)  # n x 4 x 2
            trk = np.array([t.seen.corners_px for t in self._tracks], dtype=np.float64)
            dist = np.linalg.norm(det.mean(axis=1)[:, None, :] - trk.mean(axis=1)[None, :, :], axis=2)
            sides = np.linalg.norm(np.roll(det, -1, axis=1) - det, axis=2)
            short = np.minimum(sides[:, 0] + sides[:, 2], sides[:, 1] + sides[:, 3]) / 2
            for di, ti in zip(*np.nonzero(dist < s.match_fraction * short[:, None])):
                pairs.append((float(dist[di, ti]), int(di), int(ti)))
        used_d: set[int] = set()
        for _, di, ti in sorted(pairs):
            if di in used_d or ti in matched:
                continue
            used_d.add(di)
            matched.add(ti)
            self._seen(self._tracks[ti], reading.cards[di], colour, frame, time_s, events)
        for di, c in enumerate(reading.cards):
            if di not in used_d:
                t = _Track(self._next_id, c, time_s, time_s, face=c.face, name=c.name, last_seen_frame=frame)
                self._next_id += 1
                t.ring_lab = _ring(colour, np.array(c.corners_px))
                self._tracks.append(t)
        keep = []
        for ti, t in enumerate(self._tracks):
            if ti in matched or t.last_seen_frame == frame:
                keep.append(t)
                continue
            if not t.placed:
                continue  # never confirmed: forget it quietly
            t.hidden = True
            self._confirm_face_while_hidden(t, frame, time_s, events)
            if image is not None:
                clear = self._table_shows(t, colour)
                if clear and t.clear_since_s is None:
                    t.clear_since_s = time_s
                elif not clear:
                    t.clear_since_s = None
            # (No picture: the table looks as at the last look, so a clear place stays clear.)
            if t.clear_since_s is not None and time_s - t.clear_since_s >= s.confirm_s:
                events.append(VisionEvent("removed", frame, time_s, t.id, face=t.face, name=t.name))
                continue
            keep.append(t)
        self._tracks = keep
        self._update_pawns(reading, frame, time_s, events)
        cards = tuple(
            TrackedCard(
                t.id,
                t.seen.corners_px,
                t.seen.sigma_px,
                t.seen.corners_mm,
                t.seen.sigma_mm,
                t.face,
                t.name,
                t.hidden,
                t.last_seen_frame,
                t.seen.face_distance if (t.seen.face, t.seen.name) == (t.face, t.name) else math.inf,
            )
            for t in self._tracks
            if t.placed
        )
        pawns = tuple(
            TrackedPawn(p.color, p.center_px, p.center_mm, p.card_id, p.hidden) for p in self._pawns.values()
        )
        return Observation(frame, time_s, reading.width, reading.height, cards, pawns, tuple(events))

    # ------------------------------------------------------------------------------------------
    def _seen(
        self, t: _Track, c: CardSeen, colour, frame: int, time_s: float, events: list[VisionEvent]
    ) -> None:
        s = self.settings
        # The same CardSeen as last frame: the reader did not look at this card again (nothing
        # changed around it), so the image says nothing new about its surroundings either.
        reread = c is not t.seen
        now = np.array(c.corners_px)
        if reread and np.max(np.linalg.norm(now - np.array(t.seen.corners_px), axis=1)) > s.still_px:
            t.still_since_s = time_s
            t.clean_since_s = None
        if c.score < s.clean_score:
            t.clean_since_s = None
        elif t.clean_since_s is None:
            t.clean_since_s = time_s
        t.seen = c
        t.hidden = False
        t.clear_since_s = None
        t.last_seen_frame = frame
        if reread or t.ring_lab is None:
            t.ring_lab = _ring(colour, now)
        still = time_s - t.still_since_s >= s.confirm_s
        if not t.placed:
            if still:
                t.placed = True
                t.anchor = now
                t.face, t.name = c.face, c.name
                events.append(VisionEvent("placed", frame, time_s, t.id, face=t.face, name=t.name))
            return
        clean = t.clean_since_s is not None and time_s - t.clean_since_s >= s.confirm_s
        if still and clean and c is not t.unmoved:
            if self._moved(t, c):
                t.anchor = now
                events.append(VisionEvent("moved", frame, time_s, t.id, face=t.face, name=t.name))
            t.unmoved = c  # at the anchor now: no need to measure this same sighting again
        if c.face != "unknown" and (c.face, c.name) != (t.face, t.name):
            if t.pending_face is None or t.pending_face[:2] != (c.face, c.name):
                t.pending_face = (c.face, c.name, time_s)
            elif time_s - t.pending_face[2] >= s.confirm_s:
                flipped = c.face != t.face
                t.face, t.name = c.face, c.name
                t.pending_face = None
                if flipped:
                    events.append(VisionEvent("flipped", frame, time_s, t.id, face=t.face, name=t.name))
        else:
            t.pending_face = None

    def _confirm_face_while_hidden(
        self, t: _Track, frame: int, time_s: float, events: list[VisionEvent]
    ) -> None:
        """A card out of sight (a hand over it) keeps the face it last showed: nothing contradicts
        it, so a new face seen once and then covered is confirmed after `confirm_s` as if seen.
        At a few frames a second a card may show its new face in a single frame before a hand
        takes it away (a Trapdoor flipped and destroyed)."""
        if t.pending_face is None or time_s - t.pending_face[2] < self.settings.confirm_s:
            return
        face, name, _ = t.pending_face
        flipped = face != t.face
        t.face, t.name, t.pending_face = face, name, None
        if flipped:
            events.append(VisionEvent("flipped", frame, time_s, t.id, face=t.face, name=t.name))

    def _moved(self, t: _Track, c: CardSeen) -> bool:
        if t.anchor is None:
            return False
        d = float(np.max(np.linalg.norm(np.array(c.corners_px) - t.anchor, axis=1)))
        if c.corners_mm is not None:
            # Pixels to mm at this card: its short edge in both.
            k = _short_px(np.array(c.corners_mm)) / max(_short_px(np.array(c.corners_px)), 1e-6)
            return d * k > self.settings.move_mm
        return d > self.settings.move_px

    def _table_shows(self, t: _Track, colour) -> bool:
        """True when the card's place looks like the table band around it, and that band is
        unchanged since the card was last seen (nothing is over the area)."""
        if colour is None or t.ring_lab is None:
            return False
        q = np.array(t.seen.corners_px)
        ring = _ring(colour, q)
        inside = _inside(colour, q)
        if ring is None or inside is None:
            return False
        tol = self.settings.clear_tol
        ring_same = float(np.linalg.norm(ring - t.ring_lab)) < self.settings.ring_tol
        looks_table = float(np.linalg.norm(inside - ring)) < tol
        return ring_same and looks_table

    def _update_pawns(
        self, reading: FrameReading, frame: int, time_s: float, events: list[VisionEvent]
    ) -> None:
        s = self.settings
        ids = {}
        for di, c in enumerate(reading.cards):
            for t in self._tracks:
                if t.seen is c and t.placed:
                    ids[di] = t.id
        seen_colors = set()
        for p in reading.pawns:
            if p.color in seen_colors:
                continue  # one pawn per colour: the first (largest) sighting
            seen_colors.add(p.color)
            card_id = ids.get(p.card) if p.card is not None else None
            pt = self._pawns.get(p.color)
            if pt is None:
                self._pawns[p.color] = _PawnTrack(p.color, p.center_px, p.center_mm, card_id)
                continue
            pt.center_px, pt.center_mm, pt.hidden = p.center_px, p.center_mm, False
            if card_id is None and pt.pending is not None and pt.pending[0] is not None:
                # Seen off the cards (carried, or something of its colour passing by) after it
                # was seen standing on a new card: that says nothing against where it stood.
                self._pawn_stays(pt, frame, time_s, events)
            elif card_id == pt.card_id:
                pt.pending = None
            elif pt.pending is None or pt.pending[0] != card_id:
                pt.pending = (card_id, time_s)
            elif time_s - pt.pending[1] >= s.confirm_s:
                self._pawn_settled(pt, frame, time_s, events)
        for color, pt in self._pawns.items():
            if color not in seen_colors:
                pt.hidden = True
                # Out of sight after it was seen standing on a new card: nothing says it left, so
                # it stands there (as a covered card stays put).
                if pt.pending is not None and pt.pending[0] is not None:
                    self._pawn_stays(pt, frame, time_s, events)

    def _pawn_stays(self, pt: _PawnTrack, frame: int, time_s: float, events: list[VisionEvent]) -> None:
        """No sighting contradicts the pawn's pending place: confirm it once `confirm_s` passed."""
        assert pt.pending is not None
        if time_s - pt.pending[1] >= self.settings.confirm_s:
            self._pawn_settled(pt, frame, time_s, events)

    def _pawn_settled(self, pt: _PawnTrack, frame: int, time_s: float, events: list[VisionEvent]) -> None:
        assert pt.pending is not None
        to = pt.pending[0]
        events.append(
            VisionEvent("pawn_moved", frame, time_s, None, pawn=pt.color, from_card=pt.card_id, to_card=to)
        )
        pt.card_id, pt.pending = to, None


def _short_px(p: np.ndarray) -> float:
    s = np.linalg.norm(np.roll(p, -1, axis=0) - p, axis=1)
    return float(min((s[0] + s[2]) / 2, (s[1] + s[3]) / 2))


def _masks(image: np.ndarray, q: np.ndarray, grows: tuple[float, ...]):
    """The Lab crop around the card grown by max(grows), and one mask per grow factor in it; None
    when the largest leaves the image. Only the crop is converted: a frame holds many cards."""
    c = q.mean(axis=0)
    polys = [c + (q - c) * g for g in grows]
    big = polys[int(np.argmax(grows))]
    x0, y0 = np.floor(big.min(axis=0)).astype(int)
    x1, y1 = np.ceil(big.max(axis=0)).astype(int)
    if x0 < 0 or y0 < 0 or x1 >= image.shape[1] or y1 >= image.shape[0]:
        return None
    lab = cv2.cvtColor(image[y0 : y1 + 1, x0 : x1 + 1], cv2.COLOR_BGR2Lab)
    masks = []
    for poly in polys:
        m = np.zeros(lab.shape[:2], np.uint8)
        cv2.fillPoly(m, [np.round(poly - [x0, y0]).astype(np.int32)], 1)
        masks.append(m > 0)
    return lab, masks


def _inside(image, q: np.ndarray) -> np.ndarray | None:
    got = _masks(image, q, (0.8,))
    if got is None:
        return None
    lab, (m,) = got
    return np.median(lab[m].reshape(-1, 3), axis=0).astype(np.float32)


def _ring(image, q: np.ndarray) -> np.ndarray | None:
    if image is None:
        return None
    got = _masks(image, q, (1.35, 1.08))
    if got is None:
        return None
    lab, (outer, inner) = got
    return np.median(lab[outer & ~inner].reshape(-1, 3), axis=0).astype(np.float32)
