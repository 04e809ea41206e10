"""The card detector on labelled real photos, per source, against the Otsu baseline in the same run.

    python -m bench.labelled_photos [--split test] [--photos DIR]

The labels (data/real_photos/labels/, each card's four sharp corners, checked by eye) are in
the repository; the photos are not (see data/real_photos/README.md): `--photos` is the folder
holding them, as data/real_photos/SOURCES.tsv names them. Photos are read as they are, without
a calibration, as `tabletop detect` reads them. A labelled card is found when a detection covers
it with IoU >= 0.8; its corner error is then the distance of each detected corner to the
labelled one (px of the photo). A detection covering no labelled card and lying mostly in no
ignore region (a deck, a fan, a card cut by the frame) is a false one. The test split is read
here only to report: nothing is tuned on it. For the card map, the cards it missed are classed
by what its regions did with them (`MISSES`), per source.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
import shapely

from bench.baseline import baseline_detect
from vision.detector import side_lengths
from vision.map_detector import MapCardDetector
from vision.pipeline import card_detector
from vision.train.data import PHOTOS, labelled_photos
from vision.train.splits import load as load_splits

ROOT = Path(__file__).resolve().parents[1]
MATCH_IOU = 0.8


@dataclass
class Score:
    cards: int = 0
    found: int = 0
    detections: int = 0
    false: int = 0
    errors_px: list[float] = field(default_factory=list)
    ms: float = 0.0
    photos: int = 0
    # (the card's short side in px, whether it was found) per card, for recall by card size.
    by_size: list[tuple[float, bool]] = field(default_factory=list)
    # Of the card map's misses, how many of each of `MISSES` (uncalibrated runs only).
    misses: dict[str, int] = field(default_factory=dict)

    def add(self, o: Score) -> None:
        for k in ("cards", "found", "detections", "false", "ms", "photos"):
            setattr(self, k, getattr(self, k) + getattr(o, k))
        self.errors_px += o.errors_px
        self.by_size += o.by_size
        for k, n in o.misses.items():
            self.misses[k] = self.misses.get(k, 0) + n

    @property
    def recall(self) -> float:
        return self.found / self.cards if self.cards else float("nan")

    @property
    def precision(self) -> float:
        counted = self.found + self.false
        return self.found / counted if counted else float("nan")

    @property
    def rms_px(self) -> float:
        return float(np.sqrt(np.mean(np.square(self.errors_px)))) if self.errors_px else float("nan")

    def cells(self) -> str:
        return (
            f"{100 * self.recall:6.1f} {100 * self.precision:6.1f} {self.rms_px:6.2f}"
            f" {self.ms / max(self.photos, 1):7.0f}"
        )


def _poly(q: np.ndarray) -> shapely.Polygon:
    p = shapely.Polygon(np.asarray(q, np.float64))
    return p if p.is_valid else p.buffer(0)


def corner_errors(label: np.ndarray, found: np.ndarray) -> list[float]:
    """Distances of each found corner to its labelled one, over the cyclic order that fits best
    (a card near 45 degrees may start its clockwise order at another corner)."""
    best = None
    for k in range(4):
        d = np.linalg.norm(np.roll(found, k, axis=0) - label, axis=1)
        if best is None or d.sum() < best.sum():
            best = d
    return best.tolist()


def match_quads(cards: list[np.ndarray], found: list[np.ndarray]) -> dict[int, int]:
    """{labelled card i: the detection j covering it}: each card in turn takes the unused
    detection of best IoU, if that is at least MATCH_IOU."""
    polys = [_poly(c) for c in cards]
    fpolys = [_poly(f) for f in found]
    used: dict[int, int] = {}
    for i, p in enumerate(polys):
        best, bj = MATCH_IOU, None
        for j, f in enumerate(fpolys):
            if j in used.values():
                continue
            iou = p.intersection(f).area / max(p.union(f).area, 1e-9)
            if iou >= best:
                best, bj = iou, j
        if bj is not None:
            used[i] = bj
    return used


def score_photo(cards: list[np.ndarray], ignore: list[np.ndarray], found: list[np.ndarray]) -> Score:
    s = Score(cards=len(cards), detections=len(found), photos=1)
    polys = [_poly(c) for c in cards]
    fpolys = [_poly(f) for f in found]
    matched = match_quads(cards, found)
    used = set(matched.values())
    for i in range(len(cards)):
        bj = matched.get(i)
        if bj is not None:
            s.found += 1
            s.errors_px += corner_errors(np.asarray(cards[i]), np.asarray(found[bj]))
        s.by_size.append((float(side_lengths(np.asarray(cards[i], np.float64))[0]), bj is not None))
    ign = shapely.unary_union([_poly(p) for p in ignore]) if ignore else None
    for j, f in enumerate(fpolys):
        if j in used:
            continue
        if ign is not None and f.area > 0 and f.intersection(ign).area / f.area > 0.5:
            continue
        if any(f.intersection(p).area / max(f.area, 1e-9) > 0.5 and p.area > f.area for p in polys):
            continue  # inside a found card: its art, counted neither way
        s.false += 1
    return s


# What the map's regions did with a card the detector missed, in turn: no region covers a fifth
# of it; one covering most of it is far larger (merged with a neighbour, or a sheet it lies on);
# two or more cover a fifth of it each; the best region matches it below IoU 0.5 ("partly"),
# below 0.8 ("loosely"), or matches it and no edge fit or outline passed ("no fit").
MISSES = ("not seen", "merged", "split", "outlined partly", "outlined loosely", "outlined, no fit")


def miss_class(card: np.ndarray, regions: list[np.ndarray]) -> str:
    """Which of `MISSES` a missed card (4 x 2, frame px) is, given the map's region outlines."""
    g = shapely.Polygon(card)
    polys = [shapely.Polygon(r).buffer(0) for r in regions if len(r) >= 3]
    shared = [p.intersection(g).area for p in polys]
    covers = [a / g.area for a in shared]
    if max(covers, default=0.0) < 0.2:
        return "not seen"
    best = max(a / (p.area + g.area - a) for p, a in zip(polys, shared))
    if best >= 0.8:
        return "outlined, no fit"
    if sum(c > 0.2 for c in covers) >= 2:
        return "split"
    if any(c > 0.5 and p.area > 1.4 * g.area for p, c in zip(polys, covers)):
        return "merged"
    return "outlined loosely" if best >= 0.5 else "outlined partly"


def map_misses(detector: MapCardDetector | None, cards: list[np.ndarray], scored: Score) -> dict[str, int]:
    """Of the cards `scored` (one frame's) left unfound, how many of each of `MISSES`, by the
    regions of the detector's last map; none without a detector."""
    out: dict[str, int] = {}
    if detector is None:
        return out
    for c, (_, found) in zip(cards, scored.by_size):
        if not found:
            k = miss_class(c, [r.contour for r in detector.last_regions])
            out[k] = out.get(k, 0) + 1
    return out


def misses_line(misses: dict[str, int]) -> str:
    return ", ".join(f"{k} {misses.get(k, 0)}" for k in MISSES)


def corners_of(detector):
    """`detect(image) -> [4 x 2 corners]` of a detector (its cards' corners alone)."""
    return lambda img: [c.corners_px for c in detector.detect(img)]


def run(
    split: str, photos: Path, out=print, check: Path | None = None
) -> tuple[dict[str, Score], dict[str, Score]]:
    """Per source: (ours, baseline)."""
    det = card_detector(check=check)
    detect = corners_of(det)
    ours: dict[str, Score] = {}
    base: dict[str, Score] = {}
    for photo in labelled_photos(photos, set(load_splits()[split])):
        img = cv2.imread(str(photo.image_path), cv2.IMREAD_COLOR)
        if img is None:
            out(f"{photo.image_path}: not a readable image, skipped")
            continue
        source, cards, ignore = photo.source, photo.cards, photo.ignore
        t0 = time.perf_counter()
        got = detect(img)
        t1 = time.perf_counter()
        b = baseline_detect(img, (max(img.shape[:2]) / 70) ** 2)
        t2 = time.perf_counter()
        s, sb = score_photo(cards, ignore, got), score_photo(cards, ignore, b)
        s.ms, sb.ms = (t1 - t0) * 1e3, (t2 - t1) * 1e3
        s.misses = map_misses(det, cards, s)
        ours.setdefault(source, Score()).add(s)
        base.setdefault(source, Score()).add(sb)
    return ours, base


def figures(scores: dict[str, Score]) -> dict:
    """Per source and over all: photos, cards, recall, precision and corner RMS (px)."""
    tot = Score()
    out = {}
    for src in sorted(scores):
        tot.add(scores[src])
        out[src] = _figures(scores[src])
    out["all"] = _figures(tot)
    return out


def _figures(s: Score) -> dict:
    # None where there is no figure (no detection, no card found): JSON has no NaN.
    def fig(v: float, n: int) -> float | None:
        return None if math.isnan(v) else round(v, n)

    return {
        "photos": s.photos,
        "cards": s.cards,
        "recall": fig(s.recall, 4),
        "precision": fig(s.precision, 4),
        "corner_rms_px": fig(s.rms_px, 3),
    }


def report(
    split: str, photos: Path, out=print, card: Path | None = None, check: Path | None = None
) -> int:
    ours, base = run(split, photos, out, check)
    if not ours:
        out(
            f"real photos ({split} split): none of its labelled photos are under {photos}; rebuild them"
            " (data/real_photos/README.md) and give their folder with --photos"
        )
        return 2
    out(f"real photos, {split} split, labelled by hand, no calibration; the card map{' and card check' if check else ''}")
    head = f"{'recall':>6s} {'prec':>6s} {'rms_px':>6s} {'ms':>7s}"
    out(f"{'source':34s} {'photos':>6s} {'cards':>5s}  {head}   baseline: {head}")
    tot, btot = Score(), Score()
    for src in sorted(ours):
        s, b = ours[src], base[src]
        out(f"{src:34s} {s.photos:6d} {s.cards:5d}  {s.cells()}   {'':10s}{b.cells()}")
        tot.add(s)
        btot.add(b)
    out(f"{'ALL':34s} {tot.photos:6d} {tot.cards:5d}  {tot.cells()}   {'':10s}{btot.cells()}")
    if tot.misses:
        out(f"map misses by what the map's regions did (all sources): {misses_line(tot.misses)}")
        for src in sorted(ours):
            if ours[src].misses:
                out(f"   {src:31s} {misses_line(ours[src].misses)}")
    out(
        f"ratios: recall {tot.recall / max(btot.recall, 1e-9):.2f}x the baseline's,"
        f" precision {tot.precision / max(btot.precision, 1e-9):.2f}x"
    )
    if card is not None:
        # The weights' own card records what they scored, and how to score them again.
        d = json.loads(card.read_text())
        d.setdefault("test", {})[split] = {
            "command": f"python -m bench.labelled_photos --split {split}",
            "map": figures(ours),
            "otsu_baseline": figures(base),
        }
        card.write_text(json.dumps(d, indent=1, allow_nan=False) + "\n")
        out(f"figures written to {card}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.labelled_photos", description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="test", choices=("train", "validation", "test"))
    ap.add_argument("--photos", type=Path, default=PHOTOS, help="folder holding the photos")
    ap.add_argument("--quick", action="store_true", help="(every photo is read; kept for `tabletop bench`)")
    ap.add_argument("--check", type=Path, help="the map's reports pass the card check with these weights (.onnx)")
    ap.add_argument(
        "--write-card", action="store_true", help="record the map's figures in its model card (vision/models/cardmap.json)"
    )
    args = ap.parse_args(argv)
    if args.check and not args.check.exists():
        ap.error(f"--check {args.check}: no such file (train the check with python -m vision.train.cardcheck)")
    cv2.setNumThreads(1)
    card = ROOT / "vision" / "models" / "cardmap.json" if args.write_card and not args.check else None
    return report(args.split, args.photos, card=card, check=args.check)


if __name__ == "__main__":
    raise SystemExit(main())
