"""The card detector on real phone photos, as they are and as a camera might have taken them.

    python -m bench.real_photos [--quick] [--photos DIR]

The photos (`../shared/real_photos/` from the clone's root by default; they are not in this
repository) are real cards on real tables, unlabelled. Each is read as it is (without a
calibration, as `tabletop detect` reads it): the count of cards found against the count by eye.
Then as other cameras and rooms would show it - smaller, turned, darker, brighter, noisier,
compressed harder, out of focus, seen at a slant, warmer light, a shadow across - with each
card's outline from the photo as it is carried through the variant's known transform: a card is
found again when a detection covers it (IoU >= 0.9), and a detection covering none is extra.
This measures how steady the detector is under a change of camera, not whether the first outline
was right (the counts by eye say that much). The baseline (grey, Otsu, findContours,
approxPolyDP with 4 vertices, minAreaRect; `bench.vision.baseline_detect`) is scored the same
way, against the same outlines, in the same run; then ms per photo for both.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

from bench.baseline import baseline_detect, quad_iou
from vision.pipeline import card_detector

# Cards counted by eye in each photo (shared/real_photos/README.md describes them).
CARDS_BY_EYE = {
    "alpha_deck.jpg": 40,
    "geyser_twister_fireball.jpg": 3,
    "filter_cards1.jpg": 8,
    "filter_cards2.jpg": 7,
    "filter_cards3.jpg": 7,
    "filter_cards4.jpg": 7,
    "filter_cards5.jpg": 12,
    "set.jpg": 12,
}
SHARED_PHOTOS = Path("..") / "shared" / "real_photos"  # beside the clone, from its root


def default_photos() -> list[Path]:
    """Where the shared photos may be: ../shared/real_photos from the current folder (the clone's
    root), then from the clone this code runs from - never from this file's place when installed,
    which is inside the virtual environment."""
    roots = [Path.cwd()]
    source = Path(__file__).resolve().parents[1]
    if (source / "pyproject.toml").is_file():  # running from a clone, not an installed copy
        roots.append(source)
    return list(dict.fromkeys((r / SHARED_PHOTOS).resolve() for r in roots))


def variants(img: np.ndarray, seed: int, quick: bool) -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
    """(name, picture, 3 x 3 map from the photo's pixels to the picture's) of each variant."""
    h, w = img.shape[:2]
    ident = np.eye(3)
    for k, name in ((0.5, "half size"), (0.35, "0.35 size")):
        size = (round(w * k), round(h * k))
        yield (
            name,
            cv2.resize(img, size, interpolation=cv2.INTER_AREA),
            np.diag([size[0] / w, size[1] / h, 1]),
        )
    yield (
        "turned 90",
        cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE),
        np.array([[0, -1, h - 1], [1, 0, 0], [0, 0, 1.0]]),
    )
    if quick:
        return
    yield (
        "turned 180",
        cv2.rotate(img, cv2.ROTATE_180),
        np.array([[-1, 0, w - 1], [0, -1, h - 1], [0, 0, 1.0]]),
    )
    m = np.vstack([cv2.getRotationMatrix2D((w / 2, h / 2), 13, 0.85), [0, 0, 1]])
    yield "turned 13", cv2.warpAffine(img, m[:2], (w, h), borderMode=cv2.BORDER_REPLICATE), m
    f = img.astype(np.float32) / 255
    yield "darker", np.clip(f**1.8 * 0.6 * 255, 0, 255).astype(np.uint8), ident
    yield "brighter", np.clip(img * 1.5 + 20, 0, 255).astype(np.uint8), ident
    noise = np.random.default_rng(seed).normal(0, 8, img.shape)
    yield "sensor noise", np.clip(img + noise, 0, 255).astype(np.uint8), ident
    _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 35])
    yield "jpeg 35", cv2.imdecode(buf, cv2.IMREAD_COLOR), ident
    yield "defocus 3 px", cv2.GaussianBlur(img, (0, 0), 3), ident
    src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    dst = np.float32([[w * 0.08, h * 0.05], [w * 0.92, 0], [w, h], [0, h * 0.97]])
    p = cv2.getPerspectiveTransform(src, dst)
    yield "slanted", cv2.warpPerspective(img, p, (w, h), borderMode=cv2.BORDER_REPLICATE), p
    yield "warm light", np.clip(img * np.array([0.7, 0.95, 1.2]), 0, 255).astype(np.uint8), ident
    shade = np.linspace(0.35, 1.0, w, dtype=np.float32)[None, :, None]
    yield "shadow", (img * shade).astype(np.uint8), ident


def _found_again(want: list[np.ndarray], got: list[np.ndarray]) -> tuple[int, int]:
    """(cards of `want` covered by a detection of `got`, detections covering none)."""
    hit = sum(any(quad_iou(q, g) >= 0.9 for g in got) for q in want)
    extra = sum(not any(quad_iou(q, g) >= 0.9 for q in want) for g in got)
    return hit, extra


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.real_photos", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="three variants only")
    ap.add_argument(
        "--photos", type=Path, help=f"folder of photos (default {SHARED_PHOTOS} from the clone's root)"
    )
    ap.add_argument("--seed", type=int, default=1, help="seed of the sensor noise")
    args = ap.parse_args(argv)
    if args.photos is None:
        looked = default_photos()
        args.photos = next((c for c in looked if c.is_dir()), looked[0])
        if not args.photos.is_dir():
            print(
                "bench.real_photos: the shared photos are not here (looked in "
                f"{', '.join(str(c) for c in looked)}; they are not in the repository): run from the "
                "clone's root with them in ../shared/real_photos, or give the folder with --photos DIR"
            )
            return 2
    photos = sorted(p for p in args.photos.rglob("*.jpg")) if args.photos.is_dir() else []
    if not photos:
        print(f"bench.real_photos: no photos (*.jpg) under {args.photos}; give the folder with --photos")
        return 2
    cv2.setNumThreads(1)
    detector = card_detector()
    print(f"bench.real_photos: {len(photos)} photos under {args.photos}, no calibration, one thread\n")
    print(f"{'photo':28s} {'by eye':>6s} {'found':>6s} {'baseline':>8s} {'ms':>7s} {'base ms':>7s}")
    rows: dict[str, list[int]] = {}  # variant -> [ours found, ours extra, base found, base extra, total]
    t_ours = t_base = 0.0
    for path in photos:
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if img is None:
            print(f"{path.name:28s} not a readable image, skipped")
            continue
        min_area = (max(img.shape[:2]) / 70) ** 2
        t0 = time.perf_counter()
        ref = [c.corners_px for c in detector.detect(img)]
        t1 = time.perf_counter()
        base = baseline_detect(img, min_area)
        t2 = time.perf_counter()
        t_ours, t_base = t_ours + t1 - t0, t_base + t2 - t1
        eye = CARDS_BY_EYE.get(path.name)
        print(
            f"{path.name:28s} {eye if eye is not None else '?':>6} {len(ref):6d} {len(base):8d}"
            f" {(t1 - t0) * 1e3:7.0f} {(t2 - t1) * 1e3:7.0f}"
        )
        for name, pic, m in variants(img, args.seed, args.quick):
            want = [cv2.perspectiveTransform(q.reshape(-1, 1, 2), m).reshape(-1, 2) for q in ref]
            ours = _found_again(want, [c.corners_px for c in detector.detect(pic)])
            theirs = _found_again(want, baseline_detect(pic, min_area * abs(np.linalg.det(m[:2, :2]))))
            r = rows.setdefault(name, [0, 0, 0, 0, 0])
            for k, v in enumerate((*ours, *theirs, len(want))):
                r[k] += v
    print("\nthe photos' cards found again in each variant (extra: detections covering no card)")
    print(f"{'variant':14s} {'detector':>14s} {'baseline':>14s}")
    tot = [0, 0, 0, 0, 0]
    for name, r in rows.items():
        print(f"{name:14s} {r[0]:5d}/{r[4]:<3d} +{r[1]:<3d} {r[2]:5d}/{r[4]:<3d} +{r[3]:<3d}")
        tot = [a + b for a, b in zip(tot, r)]
    print(f"{'all':14s} {tot[0]:5d}/{tot[4]:<3d} +{tot[1]:<3d} {tot[2]:5d}/{tot[4]:<3d} +{tot[3]:<3d}")
    share, bshare = tot[0] / max(tot[4], 1), tot[2] / max(tot[4], 1)
    print(
        f"\nratios: {100 * share:.1f} % of cards found again vs the baseline's {100 * bshare:.1f} %"
        f" ({share / max(bshare, 1e-9):.2f}x); time per photo {t_ours / max(t_base, 1e-9):.0f}x the baseline's"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
