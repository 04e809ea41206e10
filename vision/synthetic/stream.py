"""A camera stream at frame rate: the table still most of the time, a hand reaching in for each
change (a card laid, moved or flipped, a pawn jumped) and going away again.

    for frame in table_stream(renderer, [scene0, scene1, ...], seed=3):
        frame.index, frame.time_s, frame.frame.image, frame.scene

Between keyframes a and b: the hand comes in from the seat nearest the change over
`reach_frames` frames (over scene a), the change happens under it, it goes away over
`reach_frames` frames (over scene b), then b is held still for `hold_frames` frames. Every frame
has its own sensor noise, as a real camera's do.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from vision.synthetic.render import Frame, Renderer
from vision.synthetic.scene import Hand, Scene


@dataclass(frozen=True)
class StreamFrame:
    index: int
    time_s: float
    frame: Frame
    scene: Scene  # what lies on the table (without the hand)


def change_point(a: Scene, b: Scene) -> tuple[float, float] | None:
    """Where b differs from a (mm): the mean centre of the cards and pawns that changed."""
    pts = []
    ca, cb = {c.id: c for c in a.cards}, {c.id: c for c in b.cards}
    for cid in set(ca) | set(cb):
        if ca.get(cid) != cb.get(cid):
            pts.extend(c.center_mm for c in (ca.get(cid), cb.get(cid)) if c is not None)
    pa, pb = {p.color: p for p in a.pawns}, {p.color: p for p in b.pawns}
    for col in set(pa) | set(pb):
        if pa.get(col) != pb.get(col):
            pts.extend(p.center_mm for p in (pa.get(col), pb.get(col)) if p is not None)
    if not pts:
        return None
    return tuple(np.mean(np.array(pts, dtype=float), axis=0))  # type: ignore[return-value]


def table_stream(
    renderer: Renderer,
    scenes: Sequence[Scene],
    fps: float = 30.0,
    hold_frames: int = 10,
    reach_frames: int = 5,
    seed: int = 0,
) -> Iterator[StreamFrame]:
    """Frames of the table going through `scenes` in order (see the module doc)."""
    index = 0

    def shot(scene: Scene, hand: Hand | None) -> StreamFrame:
        nonlocal index
        shown = scene if hand is None else scene.replace(hands=(hand,))
        f = StreamFrame(index, index / fps, renderer.render(shown, seed * 100_003 + index), scene)
        index += 1
        return f

    for _ in range(hold_frames):
        yield shot(scenes[0], None)
    for a, b in zip(scenes, scenes[1:]):
        target = change_point(a, b)
        if target is not None:
            seat = (target[0], -250.0)  # the player reaches across the near edge
            path = [
                np.array(seat) + (np.array(target) - seat) * (i + 1) / reach_frames
                for i in range(reach_frames)
            ]
            for tip in path:
                yield shot(a, Hand(tip_mm=tuple(tip), from_mm=seat, height_mm=55.0))
            for tip in reversed(path):
                yield shot(b, Hand(tip_mm=tuple(tip), from_mm=seat, height_mm=55.0))
        for _ in range(hold_frames):
            yield shot(b, None)
