"""The card detector on randomised renders: tables, cards, clutter and cameras far from the
project's own (`vision.synthetic.randomised`), from seeds no training run uses (training takes
0..N; these start at 60e6). Without a calibration, or with `--calibrated` with the exact one (the
table's homography and the deck's card size; frames whose lens bends lines are left out).

    python -m bench.randomised [--frames 24] [--seed 60000000] [--calibrated]
                               [--size 1920x1080]

Each frame is 1280 x 960 as a camera takes it (or `--size`). A card counts when it lies wholly in the frame, at
least 95 % of it shows and its short side is at least 1/40 of the frame's width (32 px: the
smallest card the map is made to find, `vision.cardmap.SMALLEST_CARD`; how many smaller ones are
found anyway is printed apart, as is recall by card size, by layout (apart, touching another
card, or overlapping one) and by table surface, the independent evaluation's classes, and, for
the map without a calibration, what its regions did with each missed card: `bench.labelled_photos.MISSES`); it is
found when a detection covers it with IoU >= 0.8 (corner error then measured as in
bench.labelled_photos). The time each frame takes is printed as issue 20's speed goal states it
(median and slowest frame; one thread). A detection covering no card of the frame, and not
lying mostly on an ignored one (a deck, a fan) or on a card that does not count, is false. The
Otsu baseline is scored the same way in the same run.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import cv2
import numpy as np
import shapely

from bench.baseline import baseline_detect
from bench.labelled_photos import Score, corner_errors, corners_of, map_misses, misses_line, score_photo
from vision.cardmap import SMALLEST_CARD
from vision.detector import side_lengths
from vision.pipeline import card_detector
from vision.synthetic.randomised import BENCH_SIZE, TrainingSample, training_sample
from vision.table import TableMap

FIRST_SEED = 60_000_000


def frame_truth(sample: TrainingSample, calibrated: bool = False) -> tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]:
    """(cards that count, outlines not to score, cards too small to count) of a randomised sample.
    A card counts when it lies wholly in the frame, at least 95 % of it shows and its short side
    is at least what the map is made to find (`SMALLEST_CARD`; smaller ones are the third list,
    also not scored). With a calibration only the deck's cards count: one of another size is not
    the game's card (nor a false one)."""
    h, w = sample.image.shape[:2]
    counted, ignore, small = [], [], []
    for k, q in enumerate(sample.quads, start=1):
        if calibrated and sample.quad_sizes_mm[k - 1] != sample.card_size_mm:
            ignore.append(q)
            continue
        inside = (q[:, 0] >= 1).all() and (q[:, 0] <= w - 2).all() and (q[:, 1] >= 1).all() and (q[:, 1] <= h - 2).all()
        if not (inside and sample.seen[k - 1] >= 0.95):
            ignore.append(q)
        elif side_lengths(q)[0] < SMALLEST_CARD * w:
            ignore.append(q)
            small.append(q)
        else:
            counted.append(q)
    contours, _ = cv2.findContours(sample.ignore.astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    ignore += [c.reshape(-1, 2).astype(np.float64) for c in contours if len(c) >= 3]
    return counted, ignore, small


# With a calibration a card running off the frame is completed by its size: such cards are
# scored apart when at least this share of them is in view and nothing lies on them.
CUT_IN_VIEW = 0.5


def cut_cards(sample: TrainingSample) -> list[np.ndarray]:
    """The deck's cards running off the frame (whole quads, corners beyond it) with at least
    CUT_IN_VIEW of them in view and nothing on them, no smaller than the map is made to find."""
    h, w = sample.image.shape[:2]
    frame = shapely.box(-0.5, -0.5, w - 0.5, h - 0.5)
    out = []
    for k, q in enumerate(sample.quads):
        if sample.quad_sizes_mm[k] != sample.card_size_mm or sample.seen[k] < 0.95:
            continue
        card = shapely.Polygon(q)
        share = card.intersection(frame).area / card.area
        if CUT_IN_VIEW <= share < 0.999 and side_lengths(q)[0] >= SMALLEST_CARD * w:
            out.append(q)
    return out


def placed_whole(card: np.ndarray, found: list[np.ndarray], tol: float = 0.05) -> bool:
    """Whether a detection puts each of the card's four corners, those beyond the frame too,
    within `tol` of its short side (a card completed, not just the part in view)."""
    short = side_lengths(card)[0]
    return any(max(corner_errors(card, np.asarray(f))) < tol * short for f in found)


def calibrated_detector(sample: TrainingSample):
    """`detect(image) -> [4 x 2 corners]` with the sample's exact calibration."""
    table = TableMap.from_homography(np.linalg.inv(sample.table_to_image), sample.card_size_mm)
    return corners_of(card_detector(table=table))


def run(
    frames: int,
    seed: int,
    calibrated: bool = False,
    out=print,
    keys: bool = False,
    check: Path | None = None,
    size: tuple[int, int] = BENCH_SIZE,
) -> tuple[Score, Score]:
    # With a calibration each frame gets its own detector (its table and card size).
    uncalibrated = None if calibrated else card_detector(check=check)
    detect = None if calibrated else corners_of(uncalibrated)
    ours, base, tiny = Score(), Score(), Score()
    by_layout: dict[str, list[bool]] = {}
    by_table: dict[str, Score] = {}
    bent = 0
    cut_found, cut_cards_seen = 0, 0
    times_ms = []
    for s in range(seed, seed + frames):
        sample = training_sample(s, size, keys=keys)
        if calibrated:
            if sample.table_to_image is None:
                bent += 1
                continue
            detect = calibrated_detector(sample)
        cards, ignore, small = frame_truth(sample, calibrated)
        t0 = time.perf_counter()
        got = detect(sample.image)
        t1 = time.perf_counter()
        b = baseline_detect(sample.image, (max(size) / 70) ** 2)
        t2 = time.perf_counter()
        so, sb = score_photo(cards, ignore, got), score_photo(cards, ignore, b)
        if calibrated:
            cut = cut_cards(sample)
            cut_cards_seen += len(cut)
            cut_found += sum(placed_whole(q, got) for q in cut)
        so.ms, sb.ms = (t1 - t0) * 1e3, (t2 - t1) * 1e3
        times_ms.append(so.ms)
        for kind, (_, found) in zip(card_layouts(cards, sample.quads), so.by_size):
            by_layout.setdefault(kind, []).append(found)
        so.misses = map_misses(uncalibrated, cards, so)
        by_table.setdefault(sample.table_kind, Score()).add(so)
        ours.add(so)
        base.add(sb)
        tiny.add(score_photo(small, [], got))
    head = f"{'recall':>6s} {'prec':>6s} {'rms_px':>6s} {'ms':>7s}"
    how = f"exact calibration ({bent} frames with a bent lens left out)" if calibrated else "no calibration"
    out(f"randomised renders {size[0]} x {size[1]}, {how}: {frames} frames, seeds {seed}..{seed + frames - 1},"
        f" {ours.cards} cards")
    out(f"{'':10s} {head}")
    out(f"{'map':10s} {ours.cells()}")
    out(f"{'baseline':10s} {base.cells()}")
    out(f"map time per frame (one thread): {time_line(times_ms)}")
    out(f"map recall by the card's short side: {recall_by_size(ours, size[0])}")
    out(f"map recall by layout: {recall_by_layout(by_layout)}")
    out(f"map recall / precision by table: {by_surface(by_table)}")
    if ours.misses:
        out(f"map misses by what the map's regions did: {misses_line(ours.misses)}")
    if calibrated:
        out(f"map: of {cut_cards_seen} cards running off the frame ({100 * CUT_IN_VIEW:.0f} % or more in view,"
            f" not scored above) {cut_found} placed whole (every corner within 5 % of the short side)")
    out(f"   and of {tiny.cards} cards smaller than it is made to find (short side < {SMALLEST_CARD * size[0]:.0f} px,"
        f" not scored above): {tiny.found}")
    return ours, base


# Short side (px of a 1280 px wide frame; scaled with the frame's width): a referee's 1080p camera
# over a 1.2 m table sees a playing card about 100 px across; the renders also draw cards far
# smaller and far larger.
SIZE_BANDS_PX = (48, 96, 192)


# Cards closer than this (px) touch: the gap a camera cannot see between two laid side by side.
TOUCH_PX = 2.0
# A card another covers (or that covers one) by more than this share of its area overlaps it.
OVERLAP_SHARE = 0.01
LAYOUTS = ("apart", "touching", "overlapping")


def card_layouts(cards: list[np.ndarray], quads: list[np.ndarray]) -> list[str]:
    """Each counted card's layout among all the frame's cards (counted or not): "overlapping"
    when it and another cover each other, else "touching" when one lies within TOUCH_PX, else
    "apart"."""
    if not cards:
        return []
    polys = shapely.polygons(np.asarray(quads, np.float64))
    out = []
    for c in cards:
        me = shapely.Polygon(c)
        others = polys[[not np.array_equal(q, c) for q in quads]]
        if (shapely.area(shapely.intersection(others, me)) > OVERLAP_SHARE * me.area).any():
            out.append("overlapping")
        elif (shapely.distance(others, me) <= TOUCH_PX).any():
            out.append("touching")
        else:
            out.append("apart")
    return out


def recall_by_layout(by_layout: dict[str, list[bool]]) -> str:
    return ", ".join(
        f"{k} {100 * sum(by_layout[k]) / len(by_layout[k]):.0f} % of {len(by_layout[k])}" if by_layout.get(k) else f"{k} -"
        for k in LAYOUTS
    )


def by_surface(by_table: dict[str, Score]) -> str:
    def pct(x: float) -> str:
        return "-" if np.isnan(x) else f"{100 * x:.0f}"

    return ", ".join(
        f"{k} {pct(v.recall)} / {pct(v.precision)} % of {v.cards}" for k, v in sorted(by_table.items()) if v.cards
    )


def time_line(times_ms: list[float]) -> str:
    """Median, 90th percentile and slowest of the frames' times: issue 20's goal is a median of
    150 ms and no frame over 400 ms for a whole 1080p frame."""
    if not times_ms:
        return "-"
    median, p90 = np.percentile(times_ms, [50, 90])
    return f"median {median:.0f} ms, 90 % under {p90:.0f} ms, slowest {max(times_ms):.0f} ms"


def recall_by_size(score: Score, width: int = BENCH_SIZE[0]) -> str:
    k = width / BENCH_SIZE[0]
    edges = (SMALLEST_CARD * width, *(k * b for b in SIZE_BANDS_PX), np.inf)
    cells = []
    for lo, hi in zip(edges, edges[1:]):
        hits = [f for side, f in score.by_size if lo <= side < hi]
        name = f">={lo:.0f}" if hi == np.inf else f"{lo:.0f}-{hi:.0f}"
        cells.append(f"{name} px {100 * sum(hits) / len(hits):.0f} % of {len(hits)}" if hits else f"{name} px -")
    return ", ".join(cells)


def frame_size(text: str) -> tuple[int, int]:
    """WIDTHxHEIGHT, e.g. 1920x1080 -> (1920, 1080), for argparse."""
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: give the frame's size as WIDTHxHEIGHT, e.g. 1920x1080") from None
    if not (160 <= w <= 8000 and 120 <= h <= 8000):
        raise argparse.ArgumentTypeError(f"{text!r}: a frame from 160x120 to 8000x8000")
    return w, h


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.randomised", description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--quick", action="store_true", help="8 frames")
    ap.add_argument("--seed", type=int, default=FIRST_SEED)
    ap.add_argument("--calibrated", action="store_true", help="give the detector the exact calibration")
    ap.add_argument("--keys", action="store_true", help="frames hold a keyboard or a keypad now and then")
    ap.add_argument("--check", type=Path, help="the map's reports pass the card check with these weights (.onnx; no calibration)")
    ap.add_argument("--size", type=frame_size, default=BENCH_SIZE, help="frame size WxH (default 1280x960)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    if args.check and args.calibrated:
        ap.error("--check is a second look at the map's cards without a calibration: leave out --calibrated")
    if args.check and not args.check.exists():
        ap.error(f"--check {args.check}: no such file (train the check with python -m vision.train.cardcheck)")
    run(
        8 if args.quick else args.frames,
        args.seed,
        args.calibrated,
        keys=args.keys,
        check=args.check,
        size=args.size,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
