"""Pawns on randomised renders with game pieces (`training_sample(..., pieces=True)`), per kind and
per surface, for the pipeline's pawn finder (`vision.pipeline.FrameReader`, `vision/pawns.py`)
against a colour-threshold baseline in the same run; without a calibration and with the exact one.

    python -m bench.pawns [--frames 24] [--seed 70000000] [--quick]

Seeds start at 70e6, which no training and no other bench uses. Each frame is 1280 x 960. The
reader is given the frame's player colours (as learned at setup), as PawnColors. A pawn counts
when its foot is in the frame and its footprint's radius is at least MIN_RADIUS_PX (smaller
ones are counted apart and not scored either way). A report is on a piece when it lies within
the piece's drawn reach from its foot (`PieceTruth.size_px`, at least MIN_MATCH_PX), nearest
pairs first: on a pawn it finds it, on a distractor (coin, die, token, white/black/wooden/pink
piece) it is false, and off every piece it is false too ("empty": table or card print). "On the
right card": found, and the card the report names (the reader's card, matched to the truth's
by IoU as in bench.labelled_photos) is the card the foot stands on, or both say none. Foot error:
report to true foot, px, and mm through the frame's exact homography (frames whose lens bends
lines have none; with a calibration they are left out, as in bench.randomised).
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass, field

import cv2
import numpy as np

from bench.labelled_photos import match_quads
from vision.pawnmap import PawnMap, card_under, find_pawns
from vision.pawns import PawnColors
from vision.pipeline import FrameReader
from vision.synthetic.pieces import METAL_BGR
from vision.synthetic.randomised import BENCH_SIZE, training_sample
from vision.table import TableMap

FIRST_SEED = 70_000_000
MIN_RADIUS_PX = 4.0  # a footprint 8 px across: smaller pieces are a few pixels, not scored
MIN_MATCH_PX = 4.0
SURFACES = ("card", "overhang", "table", "under hand")


@dataclass(frozen=True)
class Report:
    """A pawn as a finder reports it: where its foot is (image px), which truth card (index into
    the sample's quads) it is said to stand on, and its player's index (None: not said)."""

    foot_px: tuple[float, float]
    card: int | None
    player: int | None = None


@dataclass
class PawnScore:
    pawns: int = 0
    found: int = 0
    right_card: int = 0
    right_colour: int = 0
    false_empty: int = 0
    false_distractor: int = 0
    small: int = 0  # pawns too small to count
    small_found: int = 0
    errors_px: list[float] = field(default_factory=list)
    errors_mm: list[float] = field(default_factory=list)
    by_kind: dict[str, list[int]] = field(default_factory=dict)  # kind -> [pawns, found]
    by_surface: dict[str, list[int]] = field(default_factory=dict)
    distractors: dict[str, list[int]] = field(default_factory=dict)  # kind -> [pieces, reported as pawns]
    ms: float = 0.0
    frames: int = 0

    def add(self, o: PawnScore) -> None:
        for k in ("pawns", "found", "right_card", "right_colour", "false_empty", "false_distractor", "small",
                  "small_found", "ms", "frames"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.errors_px += o.errors_px
        self.errors_mm += o.errors_mm
        for mine, theirs in ((self.by_kind, o.by_kind), (self.by_surface, o.by_surface),
                             (self.distractors, o.distractors)):
            for k, (n, f) in theirs.items():
                cell = mine.setdefault(k, [0, 0])
                cell[0] += n
                cell[1] += f

    @property
    def false(self) -> int:
        return self.false_empty + self.false_distractor

    @property
    def recall(self) -> float:
        return self.found / self.pawns if self.pawns else float("nan")

    @property
    def precision(self) -> float:
        return self.found / (self.found + self.false) if self.found + self.false else float("nan")

    @property
    def card_ok(self) -> float:
        return self.right_card / self.pawns if self.pawns else float("nan")

    def cells(self) -> str:
        return (f"{_pc(self.recall)} {_pc(self.precision)} {_pc(self.card_ok)} {self.false_empty:6d}"
                f" {self.false_distractor:6d} {_quant(self.errors_px)} {_quant(self.errors_mm)}"
                f" {self.ms / max(self.frames, 1):6.0f}")


HEAD = f"{'recall':>6s} {'prec':>6s} {'card':>6s} {'f_empt':>6s} {'f_dist':>6s} {'px med/p90':>11s} {'mm med/p90':>11s} {'ms':>6s}"


def _pc(v: float) -> str:
    return "     -" if np.isnan(v) else f"{100 * v:6.1f}"


def _quant(v: list[float]) -> str:
    return f"{'-':>11s}" if not v else f"{np.median(v):5.1f}/{np.percentile(v, 90):5.1f}"


def surface(p) -> str:
    """Where a piece stands, as the scores are split: under a hand (partly hidden), overhanging a
    card edge, on a card, or on the bare table."""
    if p.hidden:
        return "under hand"
    if p.overhang:
        return "overhang"
    return "card" if p.card is not None else "table"


def distractor_kind(p) -> str:
    return "gold coin" if p.kind == "coin" and tuple(p.bgr) == METAL_BGR["gold"] else p.kind


def score_pawns(pieces: list, reports: list[Report], size: tuple[int, int] = BENCH_SIZE,
                players: list[tuple[int, int, int]] | None = None,
                to_mm: np.ndarray | None = None) -> PawnScore:
    """One frame's reports against its pieces (`PieceTruth`s); `to_mm` (image px -> table mm) gives
    the foot error in mm; `players` (BGR) the player index of each pawn for the colour check."""
    w, h = size
    s = PawnScore(frames=1)
    inside = [0 <= p.foot_px[0] < w and 0 <= p.foot_px[1] < h for p in pieces]
    counted = [ok and p.pawn and p.radius_px >= MIN_RADIUS_PX for p, ok in zip(pieces, inside)]
    # Nearest pairs first, each piece and each report used once.
    pairs = []
    for i, p in enumerate(pieces):
        reach = max(p.size_px, MIN_MATCH_PX)
        for j, r in enumerate(reports):
            d = float(np.hypot(r.foot_px[0] - p.foot_px[0], r.foot_px[1] - p.foot_px[1]))
            if d <= reach:
                pairs.append((d, i, j))
    on: dict[int, int] = {}  # report -> piece
    for _, i, j in sorted(pairs):
        if j not in on and i not in on.values():
            on[j] = i
    of = {i: j for j, i in on.items()}
    for i, p in enumerate(pieces):
        if not p.pawn:
            if inside[i]:
                cell = s.distractors.setdefault(distractor_kind(p), [0, 0])
                cell[0] += 1
                cell[1] += i in of
            continue
        if not counted[i]:
            if inside[i]:
                s.small += 1
                s.small_found += i in of
            continue
        j = of.get(i)
        s.pawns += 1
        for table, key in ((s.by_kind, p.kind), (s.by_surface, surface(p))):
            cell = table.setdefault(key, [0, 0])
            cell[0] += 1
            cell[1] += j is not None
        if j is None:
            continue
        r = reports[j]
        s.found += 1
        s.right_card += r.card == p.card
        if players is not None and r.player is not None:
            s.right_colour += players[r.player] == tuple(p.bgr)
        s.errors_px.append(float(np.hypot(r.foot_px[0] - p.foot_px[0], r.foot_px[1] - p.foot_px[1])))
        if to_mm is not None and p.foot_mm is not None:
            q = to_mm @ [r.foot_px[0], r.foot_px[1], 1.0]
            s.errors_mm.append(float(np.hypot(q[0] / q[2] - p.foot_mm[0], q[1] / q[2] - p.foot_mm[1])))
    for j in range(len(reports)):
        if j not in on:
            s.false_empty += 1
        elif not pieces[on[j]].pawn:
            s.false_distractor += 1
    return s


# ---- the colour-threshold baseline ---------------------------------------------------------------------
BASE_SATURATION, BASE_VALUE = 110, 60
# A piece seen from above covers a small share of a card (pawns.py's own notion of size): a blob
# of this share of the median card area the reader found, or of these px without any card.
BASE_CARD_SHARE = (0.005, 0.15)
BASE_AREA_PX = (40, (BENCH_SIZE[0] / 12) ** 2)
BASE_FILL = 0.4  # blob area / its box: a piece is compact
BASE_HUE_DIST = 12  # OpenCV hue units from a player's colour (as vision.pawns.MAX_HUE_DIST)


def colour_blobs(image: np.ndarray, area_px: tuple[float, float] = BASE_AREA_PX,
                 players: list[tuple[int, int, int]] | None = None
                 ) -> list[tuple[tuple[float, float], tuple[int, int, int]]]:
    """Saturated blobs of plausible size (area_px: least and greatest), of a player's hue when
    `players` (BGR) are given - what the reader is told too: (centroid px, mean BGR) each."""
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV)
    mask = (hsv[..., 1] >= BASE_SATURATION) & (hsv[..., 2] >= BASE_VALUE)
    if players:
        hues = cv2.cvtColor(np.uint8([players]), cv2.COLOR_BGR2HSV)[0, :, 0].astype(np.int16)
        d = np.abs(np.arange(256, dtype=np.int16)[:, None] - hues[None, :])
        near = (np.minimum(d, 180 - d) <= BASE_HUE_DIST).any(axis=1) & (np.arange(256) < 180)
        mask &= near[hsv[..., 0]]
    mask = mask.astype(np.uint8)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(mask)
    out = []
    for k in range(1, n):
        x, y, bw, bh, area = stats[k]
        if area_px[0] <= area <= area_px[1] and area >= BASE_FILL * bw * bh:
            bgr = cv2.mean(image[y:y + bh, x:x + bw], (labels[y:y + bh, x:x + bw] == k).astype(np.uint8))[:3]
            out.append(((float(centroids[k][0]), float(centroids[k][1])), tuple(int(c) for c in bgr)))
    return out


def nearest_player(bgr: tuple[int, int, int], players: list[tuple[int, int, int]]) -> int | None:
    """The player whose colour's hue is nearest (OpenCV hue, 0..180)."""
    if not players:
        return None
    hues = cv2.cvtColor(np.uint8([[bgr, *players]]), cv2.COLOR_BGR2HSV)[0, :, 0].astype(float)
    d = np.abs(hues[1:] - hues[0])
    return int(np.argmin(np.minimum(d, 180 - d)))


# ---- the run ------------------------------------------------------------------------------------------
def pawn_map_reports(pawn_map: PawnMap, image: np.ndarray, players: list[tuple[int, int, int]],
                     found: list[np.ndarray], to_truth: dict[int, int]) -> list[Report]:
    """The learned pawn map's pawns (`vision.pawnmap.find_pawns`), on the reader's cards `found`."""
    names = {f"player{k}": c for k, c in enumerate(players)}
    return [Report(foot, to_truth.get(k) if k is not None else None, int(who[6:]))
            for who, foot, k in find_pawns(pawn_map, image, found, names)]


def read_frame(reader: FrameReader, sample, players: list[tuple[int, int, int]],
               pawn_map: PawnMap | None = None) -> tuple[list[Report], list[Report], float, float, list[Report], float]:
    """(reader's reports, baseline's reports, ms of each, and the pawn map's reports and ms when
    one is given); all name cards by the truth's index, the baseline and the pawn map through the
    reader's own cards."""
    reader.pawn_colors = PawnColors({f"player{k}": c for k, c in enumerate(players)})
    t0 = time.perf_counter()
    r = reader.read(sample.image)
    t1 = time.perf_counter()
    found = [np.asarray(c.corners_px, np.float64) for c in r.cards]
    area = BASE_AREA_PX
    if found:
        card = float(np.median([abs(cv2.contourArea(q.astype(np.float32))) for q in found]))
        area = (max(4.0, BASE_CARD_SHARE[0] * card), BASE_CARD_SHARE[1] * card)
    blobs = colour_blobs(sample.image, area, players)
    t2 = time.perf_counter()
    to_truth = {j: i for i, j in match_quads(sample.quads, found).items()}
    ours = [Report(p.center_px, to_truth.get(p.card) if p.card is not None else None, int(p.color[6:]))
            for p in r.pawns]
    base = []
    for foot, bgr in blobs:
        k = card_under(foot, found)
        base.append(Report(foot, to_truth.get(k) if k is not None else None, nearest_player(bgr, players)))
    learned = [] if pawn_map is None else pawn_map_reports(pawn_map, sample.image, players, found, to_truth)
    t3 = time.perf_counter()
    return ours, base, (t1 - t0) * 1e3, (t2 - t1) * 1e3, learned, (t3 - t2) * 1e3


def scored_frames(frames: int, seed: int, calibrated: bool):
    """The first `frames` samples from `seed` on with at least one pawn that counts (the renders
    draw cards from 12 px across, where a pawn is a few pixels), and with a calibration only
    those whose lens keeps lines straight. Yields (seed, sample): the seeds' range, printed with
    the figures, shows how many were passed over."""
    sd, done = seed, 0
    while done < frames:
        sample = training_sample(sd, BENCH_SIZE, pieces=True)
        sd += 1
        if calibrated and sample.table_to_image is None:
            continue
        if not any(p.pawn and p.radius_px >= MIN_RADIUS_PX and 0 <= p.foot_px[0] < BENCH_SIZE[0]
                   and 0 <= p.foot_px[1] < BENCH_SIZE[1] for p in sample.pieces):
            continue
        done += 1
        yield sd - 1, sample


def run(frames: int, seed: int, calibrated: bool, out=print, pawn_map: PawnMap | None = None
        ) -> tuple[PawnScore, PawnScore]:
    reader = None if calibrated else FrameReader(find_faces=False)
    ours, base, learned = PawnScore(), PawnScore(), PawnScore()
    last = seed
    for sd, sample in scored_frames(frames, seed, calibrated):
        last = sd
        to_mm = None if sample.table_to_image is None else np.linalg.inv(sample.table_to_image)
        if calibrated:
            reader = FrameReader(TableMap.from_homography(to_mm, sample.card_size_mm), find_faces=False)
        got, blobs, ms_ours, ms_base, mapped, ms_map = read_frame(reader, sample, sample.player_colours, pawn_map)
        so = score_pawns(sample.pieces, got, BENCH_SIZE, sample.player_colours, to_mm)
        sb = score_pawns(sample.pieces, blobs, BENCH_SIZE, sample.player_colours, to_mm)
        sm = score_pawns(sample.pieces, mapped, BENCH_SIZE, sample.player_colours, to_mm)
        so.ms, sb.ms, sm.ms = ms_ours, ms_base, ms_map
        ours.add(so)
        base.add(sb)
        learned.add(sm)
    how = "exact calibration (frames with a bent lens left out)" if calibrated else "no calibration"
    n_dist = sum(n for n, _ in ours.distractors.values())
    out(f"pawns on randomised renders, {how}: {frames} frames with a pawn to score, seeds {seed}..{last},"
        f" {ours.pawns} pawns (+{ours.small} too small to score), {n_dist} distractors")
    out(f"{'':10s} {HEAD}")
    out(f"{'pawns.py':10s} {ours.cells()}")
    out(f"{'baseline':10s} {base.cells()}")
    if pawn_map is not None:
        out(f"{'pawn map':10s} {learned.cells()}   ({pawn_map.path.name}, {pawn_map.model['version']};"
            f" ms: the map and its pieces, after the reader's cards)")
    out(f"ratios: recall {ours.recall / max(base.recall, 1e-9):.2f}x the baseline's,"
        f" precision {ours.precision / max(base.precision, 1e-9):.2f}x,"
        f" on the right card {ours.card_ok / max(base.card_ok, 1e-9):.2f}x")
    out(f"right player colour, of those found: pawns.py {_share(ours.right_colour, ours.found)},"
        f" baseline {_share(base.right_colour, base.found)}")
    out(f"recall by kind (pawns.py / baseline): {_split(ours.by_kind, base.by_kind)}")
    out(f"recall by surface (pawns.py / baseline): {_split(ours.by_surface, base.by_surface, SURFACES)}")
    out(f"distractors reported as pawns (pawns.py / baseline): {_split(ours.distractors, base.distractors)}")
    out(f"  and of {ours.small} pawns too small to score: pawns.py found {ours.small_found}, baseline {base.small_found}")
    if pawn_map is not None:
        out(f"pawn map: right player colour {_share(learned.right_colour, learned.found)}; recall by kind"
            f" {_split(learned.by_kind, base.by_kind)}; by surface {_split(learned.by_surface, base.by_surface, SURFACES)};"
            f" distractors reported {_split(learned.distractors, base.distractors)} (pawn map / baseline)")
    return ours, base


def _share(k: int, n: int) -> str:
    return f"{100 * k / n:.0f} % of {n}" if n else "-"


def _split(a: dict[str, list[int]], b: dict[str, list[int]], keys=None) -> str:
    keys = keys or sorted(set(a) | set(b))
    cells = []
    for k in keys:
        n, fa = a.get(k, [0, 0])
        fb = b.get(k, [0, 0])[1]
        cells.append(f"{k} {100 * fa / n:.0f} / {100 * fb / n:.0f} % of {n}" if n else f"{k} -")
    return ", ".join(cells)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.pawns", description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=24)
    ap.add_argument("--quick", action="store_true", help="8 frames")
    ap.add_argument("--seed", type=int, default=FIRST_SEED)
    ap.add_argument("--pawn-map", metavar="ONNX", help="also score a learned pawn map's weights (vision.pawnmap)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(1)
    frames = 8 if args.quick else args.frames
    pawn_map = PawnMap(args.pawn_map) if args.pawn_map else None
    for calibrated in (False, True):
        run(frames, args.seed, calibrated, pawn_map=pawn_map)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
