"""Hand labels of real photos: every card as its four sharp corners, snapped onto its edges.

One JSON per photo at ``data/real_photos/labels/<source_id>/<stem>.json`` (the format is in
``data/real_photos/labels/LABELLING.md``). The workflow, from the repository's root::

    python -m vision.labelling propose PHOTO...           # draft from the detector (uncalibrated)
    python -m vision.labelling overlay PHOTO --grid 100   # draw the labels; look at the PNG
    python -m vision.labelling add PHOTO x,y x,y x,y x,y  # a card from rough corners, snapped
    python -m vision.labelling remove PHOTO 3             # a false quad
    python -m vision.labelling ignore PHOTO deck x,y x,y x,y ...
    python -m vision.labelling check PHOTO                # after looking at the final overlay
    python -m vision.labelling validate                   # every label file, format and geometry
    python -m vision.labelling stats

PHOTO is a path, or ``<source_id>/<file>`` under one of the photo roots (``IMAGE_ROOTS``, or the
colon-separated ``LABEL_IMAGE_ROOTS``). Coordinates are plain cv2 pixel coordinates of the image as
``cv2.imread`` loads it (x right, y down, pixel centres at whole numbers).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import shapely

from vision.detector import order_corners
from vision.edges import refine_quad
from vision.pipeline import card_detector
from vision.train.data import DATA, LABELS, PHOTOS
from vision.train.photos import SHARED

# The detector's draft for each photo, as proposed (for its recall on real photos; see `recall`).
DRAFTS = DATA / "drafts"
IMAGE_ROOTS = (SHARED, PHOTOS)
WHYS = ("cut by frame", "deck", "fan", "blurred")
# Sharp corners of a rounded card may lie a little outside the frame (px).
OUTSIDE_MARGIN_PX = 3.0
MIN_SIDE_PX = 8.0
# Snapping: reach as a share of the card's short side (tried in turn), and how far the fit may move
# a corner from its rough place (share of the short side, at least SNAP_MOVE_MIN_PX): a click is
# good to +-10 px, and a fit further off has locked onto another line (a border's inner edge).
# Closest first: on a large card a wide reach also takes in rival lines (a white border's inner
# edge), so a good click is snapped from a few px, and a poorer one from further out.
SNAP_REACHES = (0.0, 0.02, 0.035, 0.05, 0.08)
SNAP_MIN_REACH_PX = 5.0
SNAP_MOVE_SHARE, SNAP_MOVE_MIN_PX = 0.05, 15.0
SNAP_MIN_SUPPORT = 0.45
# Two labels are the same card when they overlap this much (intersection over union).
SAME_CARD_IOU = 0.8

Quad = np.ndarray  # 4 x 2 float


# ----------------------------------------------------------------------------------------------
# Files


def image_path(name: str) -> Path:
    """The photo for a path or a ``<source_id>/<file>`` name under a photo root."""
    p = Path(name)
    if p.is_file():
        return p.resolve()
    env = os.environ.get("LABEL_IMAGE_ROOTS")
    roots = [Path(r) for r in env.split(":")] if env else list(IMAGE_ROOTS)
    for root in roots:
        if (root / name).is_file():
            return (root / name).resolve()
    raise SystemExit(f"no photo {name!r} (looked in {', '.join(map(str, roots))})")


def image_key(path: Path) -> str:
    """``<source_id>/<file name>``: the photo's name in its label."""
    return f"{path.parent.name}/{path.name}"


def label_path(path: Path, root: Path | None = None) -> Path:
    """Where the photo's label lives under `root` (by default `LABELS`)."""
    return (LABELS if root is None else root) / path.parent.name / f"{path.stem}.json"


def read_image(path: Path) -> np.ndarray:
    img = cv2.imread(str(path))
    if img is None:
        raise SystemExit(f"cannot read {path}")
    return img


def new_label(path: Path, img: np.ndarray) -> dict[str, Any]:
    h, w = img.shape[:2]
    return {"image": image_key(path), "width": w, "height": h, "cards": [], "ignore": [], "checked": False}


def load_label(path: Path, root: Path | None = None) -> dict[str, Any] | None:
    f = label_path(path, root)
    return json.loads(f.read_text()) if f.is_file() else None


def _points(q: Any) -> list[list[float]]:
    return [
        [round(float(x), 2), round(float(y), 2)] for x, y in np.asarray(q, dtype=np.float64).reshape(-1, 2)
    ]


def save_label(path: Path, label: dict[str, Any], root: Path | None = None) -> Path:
    """Write `label` (keys in the documented order, coordinates to 2 decimals), one card a line."""
    cards = [{"corners": _points(c["corners"]), "snapped": bool(c["snapped"])} for c in label["cards"]]
    ignore = [{"polygon": _points(g["polygon"]), "why": g["why"]} for g in label["ignore"]]
    lines = [
        "{",
        f'  "image": {json.dumps(label["image"])},',
        f'  "width": {int(label["width"])},',
        f'  "height": {int(label["height"])},',
        '  "cards": [' + ",".join("\n    " + json.dumps(c) for c in cards) + ("\n  ]," if cards else "],"),
        '  "ignore": [' + ",".join("\n    " + json.dumps(g) for g in ignore) + ("\n  ]," if ignore else "],"),
        f'  "checked": {json.dumps(bool(label["checked"]))}',
        "}",
    ]
    f = label_path(path, root)
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text("\n".join(lines) + "\n")
    return f


# ----------------------------------------------------------------------------------------------
# Geometry and validation


def _signed_area(q: Quad) -> float:
    """Shoelace area; positive for clockwise on screen (y down)."""
    x, y = q[:, 0], q[:, 1]
    return float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y) / 2)


def _convex_clockwise(q: Quad) -> bool:
    d1 = np.roll(q, -1, axis=0) - q
    d2 = np.roll(q, -2, axis=0) - np.roll(q, -1, axis=0)
    cross = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0]
    return bool(np.all(cross > 0))


def short_side(q: Quad) -> float:
    s = np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1)
    return float(min(s[0] + s[2], s[1] + s[3]) / 2)


def quad_problems(q: Any, width: int, height: int) -> list[str]:
    """What is wrong with one card's corners (nothing: an empty list)."""
    a = np.asarray(q, dtype=np.float64)
    if a.shape != (4, 2) or not np.all(np.isfinite(a)):
        return ["not 4 corners of 2 finite numbers"]
    out = []
    if not _convex_clockwise(a):
        out.append("not a convex quad in clockwise order (on screen)")
    elif not np.allclose(order_corners(a), a):
        out.append("does not start at the corner nearest the top-left")
    m = OUTSIDE_MARGIN_PX
    if (
        a[:, 0].min() < -0.5 - m
        or a[:, 1].min() < -0.5 - m
        or a[:, 0].max() > width - 0.5 + m
        or (a[:, 1].max() > height - 0.5 + m)
    ):
        out.append("a corner lies outside the image")
    if np.linalg.norm(np.roll(a, -1, axis=0) - a, axis=1).min() < MIN_SIDE_PX:
        out.append(f"a side shorter than {MIN_SIDE_PX:g} px")
    return out


def label_problems(label: dict[str, Any]) -> list[str]:
    """Everything wrong with a label: its format, each card, each ignore polygon, duplicates."""
    keys = ["image", "width", "height", "cards", "ignore", "checked"]
    if list(label) != keys:
        return [f"keys {list(label)} are not {keys}"]
    out = []
    if not isinstance(label["image"], str) or label["image"].count("/") != 1:
        out.append("image is not '<source_id>/<file name>'")
    w, h = label["width"], label["height"]
    if not (isinstance(w, int) and isinstance(h, int) and w > 0 and h > 0):
        return out + ["width/height are not positive integers"]
    if not isinstance(label["checked"], bool):
        out.append("checked is not true/false")
    polys = []
    for i, c in enumerate(label["cards"]):
        if sorted(c) != ["corners", "snapped"] or not isinstance(c["snapped"], bool):
            out.append(f"card {i}: keys must be corners and snapped (true/false)")
            continue
        out += [f"card {i}: {p}" for p in quad_problems(c["corners"], w, h)]
        polys.append((i, shapely.Polygon(c["corners"])))
    for (i, a), (j, b) in ((x, y) for k, x in enumerate(polys) for y in polys[k + 1 :]):
        if a.is_valid and b.is_valid and a.intersection(b).area > SAME_CARD_IOU * a.union(b).area:
            out.append(f"cards {i} and {j} are the same card")
    for i, g in enumerate(label["ignore"]):
        if sorted(g) != ["polygon", "why"]:
            out.append(f"ignore {i}: keys must be polygon and why")
            continue
        if g["why"] not in WHYS and not str(g["why"]).startswith("other: "):
            out.append(f"ignore {i}: why {g['why']!r} is not one of {WHYS} or 'other: ...'")
        p = np.asarray(g["polygon"], dtype=np.float64)
        if p.ndim != 2 or p.shape[0] < 3 or p.shape[1] != 2 or not shapely.Polygon(p).is_valid:
            out.append(f"ignore {i}: not a simple polygon of 3 or more points")
    return out


# ----------------------------------------------------------------------------------------------
# Snapping


@dataclass
class Snap:
    corners: Quad  # ordered as `order_corners`
    snapped: bool
    note: str


def snap_quad(img: np.ndarray, rough: Any) -> Snap:
    """The card's sharp corners from rough ones: `refine_quad` on the photo (as the detector reads
    it), at reaches from 5 px to 8 % of the card's size, closest first; the rough corners (snapped
    false) when no reach gives a fit with its sides well supported and its corners near."""
    q = order_corners(np.asarray(rough, dtype=np.float64).reshape(4, 2))
    s = short_side(q)
    limit = max(SNAP_MOVE_MIN_PX, SNAP_MOVE_SHARE * s)
    why = []
    for reach in sorted({max(SNAP_MIN_REACH_PX, share * s) for share in SNAP_REACHES}):
        fit = refine_quad(img, q, reach=reach, passes=2)
        if fit is None:
            why.append(f"reach {reach:.1f}: no fit")
            continue
        c = order_corners(fit.corners)
        # Near 45 degrees the fit and the rough corners may start at different corners: the move
        # is the least over the four ways of pairing them round.
        move = min(float(np.linalg.norm(np.roll(c, k, axis=0) - q, axis=1).max()) for k in range(4))
        sup = [x.support for x in fit.sides]
        res = [x.residual_px for x in fit.sides]
        desc = (
            f"reach {reach:.1f}: moved up to {move:.1f} px, support "
            + " ".join(f"{v:.2f}" for v in sup)
            + ", residual "
            + " ".join(f"{v:.2f}" for v in res)
        )
        if move > limit or min(sup) < SNAP_MIN_SUPPORT or not _convex_clockwise(c):
            why.append(desc + " (rejected)")
            continue
        return Snap(c, True, desc)
    return Snap(q, False, "kept rough: " + "; ".join(why))


# ----------------------------------------------------------------------------------------------
# Drawing


def _to_out(p: Any, x0: float, y0: float, s: float) -> np.ndarray:
    """Image px -> output px: a pixel centre at whole numbers in both (the crop's top-left pixel's
    centre at (0, 0) before scaling)."""
    a = np.asarray(p, dtype=np.float64).reshape(-1, 2)
    return (a - [x0, y0] + 0.5) * s - 0.5


def _fixed(p: np.ndarray) -> np.ndarray:
    return np.round(p * 16).astype(np.int32)  # cv2 drawing with shift=4


def _text(
    img: np.ndarray, text: str, org: tuple[int, int], size: float, colour: tuple[int, int, int]
) -> None:
    thick = max(1, round(size * 2))
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, (0, 0, 0), thick + 2, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, size, colour, thick, cv2.LINE_AA)


def render_overlay(
    img: np.ndarray,
    label: dict[str, Any] | None,
    grid: float = 0.0,
    crop: Sequence[float] | None = None,
    scale: float | None = None,
) -> np.ndarray:
    """The photo (optionally a crop, scaled) with the label drawn on it: cards green (yellow when
    not snapped) with their index and corner circles, ignore polygons red hatched, and a labelled
    grid every `grid` image px."""
    h, w = img.shape[:2]
    x0, y0, x1, y1 = (0, 0, w, h) if crop is None else (int(v) for v in crop)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        raise SystemExit("empty crop")
    s = scale or min(1280 / max(x1 - x0, y1 - y0), 8.0)
    part = img[y0:y1, x0:x1]
    out = cv2.resize(
        part,
        (round((x1 - x0) * s), round((y1 - y0) * s)),
        interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR,
    )
    font = 0.5
    if grid > 0:
        layer = out.copy()
        for gx in np.arange(math.ceil(x0 / grid) * grid, x1, grid):
            u = int(round(_to_out([gx, 0], x0, y0, s)[0, 0]))
            cv2.line(layer, (u, 0), (u, out.shape[0]), (255, 255, 0), 1)
        for gy in np.arange(math.ceil(y0 / grid) * grid, y1, grid):
            v = int(round(_to_out([0, gy], x0, y0, s)[0, 1]))
            cv2.line(layer, (0, v), (out.shape[1], v), (255, 255, 0), 1)
        cv2.addWeighted(layer, 0.6, out, 0.4, 0, out)
        for gx in np.arange(math.ceil(x0 / grid) * grid, x1, grid):
            u = int(round(_to_out([gx, 0], x0, y0, s)[0, 0]))
            _text(out, f"{gx:g}", (u + 2, 14), font, (255, 255, 0))
        for gy in np.arange(math.ceil(y0 / grid) * grid, y1, grid):
            v = int(round(_to_out([0, gy], x0, y0, s)[0, 1]))
            _text(out, f"{gy:g}", (2, v - 3), font, (255, 255, 0))
    if label is None:
        return out
    for g in label["ignore"]:
        p = _fixed(_to_out(g["polygon"], x0, y0, s))
        mask = np.zeros(out.shape[:2], np.uint8)
        cv2.fillPoly(mask, [p], 255, cv2.LINE_8, 4)
        hatch = np.zeros_like(mask)
        for k in range(-out.shape[0], out.shape[1], 12):
            cv2.line(hatch, (k, 0), (k + out.shape[0], out.shape[0]), 255, 2)
        on = (mask > 0) & (hatch > 0)
        out[on] = (0.4 * out[on] + 0.6 * np.array([0, 0, 255])).astype(np.uint8)
        cv2.polylines(out, [p], True, (0, 0, 255), 2, cv2.LINE_AA, 4)
    r = max(3.0, min(2.0 * s, 10.0))
    for i, c in enumerate(label["cards"]):
        q = _to_out(c["corners"], x0, y0, s)
        colour = (0, 255, 0) if c["snapped"] else (0, 230, 255)
        cv2.polylines(out, [_fixed(q)], True, colour, 1, cv2.LINE_AA, 4)
        for k, pt in enumerate(_fixed(q)):
            cv2.circle(
                out,
                (int(pt[0]), int(pt[1])),
                int(r * 16),
                (255, 0, 255) if k == 0 else colour,
                1,
                cv2.LINE_AA,
                4,
            )
        cx, cy = q.mean(axis=0)
        if -20 < cx < out.shape[1] + 20 and -20 < cy < out.shape[0] + 20:
            _text(out, str(i), (int(cx) - 8, int(cy) + 8), 0.9, colour)
    return out


def corner_sheet(
    img: np.ndarray,
    label: dict[str, Any],
    cards: Sequence[int] | None = None,
    size: int = 40,
    scale: float = 3.0,
) -> np.ndarray:
    """One zoomed tile around each corner of each card (`size` image px square, `scale` times
    larger), a card's four corners in a row and two cards a row: every corner at a glance."""
    idx = range(len(label["cards"])) if cards is None else cards
    tiles = []
    for i in idx:
        for k, (x, y) in enumerate(label["cards"][i]["corners"]):
            x0, y0 = round(x) - size // 2, round(y) - size // 2
            t = np.zeros((round(size * scale), round(size * scale), 3), np.uint8)
            cx0, cy0 = max(x0, 0), max(y0, 0)
            cx1, cy1 = min(x0 + size, img.shape[1]), min(y0 + size, img.shape[0])
            if cx1 > cx0 and cy1 > cy0:
                part = render_overlay(img, label, crop=(cx0, cy0, cx1, cy1), scale=scale)
                u, v = round((cx0 - x0) * scale), round((cy0 - y0) * scale)
                t[v : v + part.shape[0], u : u + part.shape[1]] = part[: t.shape[0] - v, : t.shape[1] - u]
            _text(t, f"{i}.{k}", (3, 16), 0.5, (255, 255, 255))
            cv2.rectangle(t, (0, 0), (t.shape[1] - 1, t.shape[0] - 1), (90, 90, 90), 1)
            tiles.append(t)
    if not tiles:
        return np.zeros((10, 10, 3), np.uint8)
    per_row = 8
    tiles += [np.zeros_like(tiles[0])] * (-len(tiles) % per_row)
    return np.vstack([np.hstack(tiles[r : r + per_row]) for r in range(0, len(tiles), per_row)])


# ----------------------------------------------------------------------------------------------
# Commands


def _xy(s: str) -> list[float]:
    try:
        x, y = (float(v) for v in s.split(","))
    except ValueError:
        raise SystemExit(f"not a point x,y: {s!r}") from None
    return [x, y]


def _load_or_new(path: Path, img: np.ndarray | None = None) -> dict[str, Any]:
    label = load_label(path)
    if label is None:
        label = new_label(path, read_image(path) if img is None else img)
    return label


def _store(path: Path, label: dict[str, Any], unchecked: bool = True) -> None:
    """Save after an edit: an edited label is no longer checked. Prints its problems, if any."""
    if unchecked:
        label["checked"] = False
    f = save_label(path, label)
    for p in label_problems(label):
        print(f"  ! {p}")
    print(
        f"{f.relative_to(DATA.parents[1]) if f.is_relative_to(DATA.parents[1]) else f}: {len(label['cards'])} cards, "
        f"{len(label['ignore'])} ignored, checked={label['checked']}"
    )


def cmd_propose(args: argparse.Namespace) -> None:
    for name in args.images:
        path = image_path(name)
        if load_label(path) is not None and not args.force:
            print(f"{image_key(path)}: label exists, left alone")
            continue
        img = read_image(path)
        label = new_label(path, img)
        cards = card_detector().detect(img)
        label["cards"] = [{"corners": _points(order_corners(c.corners_px)), "snapped": True} for c in cards]
        save_label(path, label, DRAFTS)
        _store(path, label)


def cmd_overlay(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    crop = [float(v) for v in args.crop.split(",")] if args.crop else None
    out = render_overlay(read_image(path), load_label(path), args.grid, crop, args.scale)
    dest = (
        Path(args.output) if args.output else Path("/tmp/labelling") / f"{path.parent.name}_{path.stem}.png"
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(dest), out)
    print(dest)


def cmd_corners(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    label = load_label(path)
    if label is None:
        raise SystemExit("no label")
    out = corner_sheet(read_image(path), label, args.cards or None, args.size, args.scale)
    dest = (
        Path(args.output)
        if args.output
        else Path("/tmp/labelling") / f"{path.parent.name}_{path.stem}_corners.png"
    )
    dest.parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(dest), out)
    print(dest)


def cmd_transfer(args: argparse.Namespace) -> None:
    """Labels of one photo onto a resized copy of it (the same photo at another resolution):
    coordinates scaled about pixel corners, snapped cards snapped again in the copy."""
    src, dst = image_path(args.source), image_path(args.dest)
    label = load_label(src)
    if label is None:
        raise SystemExit("no label for the source photo")
    img = read_image(dst)
    h, w = img.shape[:2]
    sx, sy = w / label["width"], h / label["height"]
    if abs(sx / sy - 1) > 0.01:
        raise SystemExit(f"not a resized copy: scales {sx:.4f} x {sy:.4f}")

    def scaled(p: Any) -> np.ndarray:
        return (np.asarray(p, dtype=np.float64) + 0.5) * [sx, sy] - 0.5

    out = new_label(dst, img)
    for i, c in enumerate(label["cards"]):
        q = order_corners(scaled(c["corners"]))
        if c["snapped"]:
            got = snap_quad(img, q)
            print(f"card {i}: {got.note}")
            q, snapped = got.corners, got.snapped
        else:
            snapped = False
        out["cards"].append({"corners": _points(q), "snapped": snapped})
    out["ignore"] = [{"polygon": _points(scaled(g["polygon"])), "why": g["why"]} for g in label["ignore"]]
    _store(dst, out)


def cmd_show(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    label = load_label(path)
    if label is None:
        raise SystemExit("no label")
    print(f"{label['image']} {label['width']}x{label['height']} checked={label['checked']}")
    for i, c in enumerate(label["cards"]):
        q = np.asarray(c["corners"])
        pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in q)
        print(f"  card {i}: {pts}  short {short_side(q):.0f} px{'' if c['snapped'] else '  (not snapped)'}")
    for i, g in enumerate(label["ignore"]):
        print(f"  ignore {i} ({g['why']}): " + " ".join(f"{x:.0f},{y:.0f}" for x, y in g["polygon"]))
    for p in label_problems(label):
        print(f"  ! {p}")


def cmd_add(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    img = read_image(path)
    label = _load_or_new(path, img)
    rough = np.array([_xy(p) for p in args.corners])
    if args.no_snap:
        got = Snap(order_corners(rough), False, "not snapped (asked)")
    else:
        got = snap_quad(img, rough)
    print(f"card {len(label['cards'])}: {got.note}")
    label["cards"].append({"corners": _points(got.corners), "snapped": got.snapped})
    _store(path, label)


def cmd_snap(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    img = read_image(path)
    label = _load_or_new(path, img)
    for i in args.index:
        got = snap_quad(img, label["cards"][i]["corners"])
        print(f"card {i}: {got.note}")
        if got.snapped or args.keep_failed is False:
            label["cards"][i] = {"corners": _points(got.corners), "snapped": got.snapped}
    _store(path, label)


def cmd_move(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    label = _load_or_new(path)
    card = label["cards"][args.index]
    q = np.asarray(card["corners"], dtype=np.float64)
    q[args.corner] = _xy(args.point)
    label["cards"][args.index] = {"corners": _points(order_corners(q)), "snapped": False}
    _store(path, label)


def _delete(args: argparse.Namespace, key: str) -> None:
    """Delete the entries `args.index` of the label's `key` list ("cards" or "ignore")."""
    path = image_path(args.image)
    label = _load_or_new(path)
    for i in sorted(set(args.index), reverse=True):
        del label[key][i]
    _store(path, label)


def cmd_remove(args: argparse.Namespace) -> None:
    _delete(args, "cards")


def cmd_ignore(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    label = _load_or_new(path)
    if args.why not in WHYS and not args.why.startswith("other: "):
        raise SystemExit(f"why must be one of {WHYS} or 'other: ...'")
    label["ignore"].append({"polygon": [_xy(p) for p in args.points], "why": args.why})
    _store(path, label)


def cmd_to_ignore(args: argparse.Namespace) -> None:
    """Cards made ignore polygons (their outline clipped to the image), e.g. a card cut by the frame."""
    path = image_path(args.image)
    label = _load_or_new(path)
    frame = shapely.box(-0.5, -0.5, label["width"] - 0.5, label["height"] - 0.5)
    for i in sorted(set(args.index), reverse=True):
        poly = shapely.Polygon(label["cards"].pop(i)["corners"]).intersection(frame)
        label["ignore"].append({"polygon": [list(p) for p in poly.exterior.coords[:-1]], "why": args.why})
    _store(path, label)


def cmd_unignore(args: argparse.Namespace) -> None:
    _delete(args, "ignore")


def cmd_check(args: argparse.Namespace) -> None:
    path = image_path(args.image)
    label = _load_or_new(path)
    problems = label_problems(label)
    if problems:
        raise SystemExit("not checked: " + "; ".join(problems))
    label["checked"] = True
    _store(path, label, unchecked=False)


def _label_files(root: Path) -> list[Path]:
    return sorted(root.glob("*/*.json"))


def cmd_validate(args: argparse.Namespace) -> None:
    bad = 0
    files = _label_files(Path(args.dir))
    for f in files:
        try:
            label = json.loads(f.read_text())
            problems = label_problems(label)
            if not problems and Path(label["image"]) != Path(f.parent.name) / Path(label["image"]).name:
                problems = ["image is not under this source's directory"]
            if not problems and Path(label["image"]).stem != f.stem:
                problems = ["file name does not match the image's"]
        except (ValueError, KeyError, TypeError) as e:
            problems = [f"unreadable: {e}"]
        if problems:
            bad += 1
            print(f"{f}: " + "; ".join(problems))
    print(f"{len(files)} label files, {bad} with problems")
    if bad:
        sys.exit(1)


def cmd_stats(args: argparse.Namespace) -> None:
    rows: dict[str, list[int]] = {}
    for f in _label_files(Path(args.dir)):
        label = json.loads(f.read_text())
        r = rows.setdefault(f.parent.name, [0, 0, 0, 0])
        r[0] += 1
        r[1] += bool(label["checked"])
        r[2] += len(label["cards"])
        r[3] += len(label["ignore"])
    print(f"{'source':45s} {'photos':>6s} {'checked':>7s} {'cards':>6s} {'ignores':>7s}")
    total = [0, 0, 0, 0]
    for src, r in sorted(rows.items()):
        print(f"{src:45s} {r[0]:6d} {r[1]:7d} {r[2]:6d} {r[3]:7d}")
        total = [a + b for a, b in zip(total, r)]
    print(f"{'all':45s} {total[0]:6d} {total[1]:7d} {total[2]:6d} {total[3]:7d}")


def match_drafts(label: dict[str, Any], draft: dict[str, Any]) -> tuple[int, int, int, int]:
    """(cards, found, found to within 2 px, false quads) of a checked label against the detector's
    draft: a card is found when a draft quad overlaps it with IoU >= 0.9; a draft quad that is no
    card and lies mostly outside every ignore polygon is a false one."""
    cards = [shapely.Polygon(c["corners"]) for c in label["cards"]]
    quads = [np.asarray(c["corners"]) for c in draft["cards"]]
    ign = shapely.union_all([shapely.Polygon(g["polygon"]).buffer(0) for g in label["ignore"]])
    found = close = 0
    used = set()
    for c, cq in zip(cards, label["cards"]):
        best, k = 0.0, -1
        for j, q in enumerate(quads):
            p = shapely.Polygon(q)
            iou = c.intersection(p).area / max(c.union(p).area, 1e-9)
            if iou > best:
                best, k = iou, j
        if best >= 0.9:
            found += 1
            used.add(k)
            close += float(np.linalg.norm(quads[k] - np.asarray(cq["corners"]), axis=1).max()) <= 2.0
    false = 0
    for j, q in enumerate(quads):
        p = shapely.Polygon(q)
        if j not in used and p.intersection(ign).area < 0.5 * p.area:
            false += 1
    return len(cards), found, close, false


def cmd_recall(args: argparse.Namespace) -> None:
    rows: dict[str, list[int]] = {}
    for f in _label_files(Path(args.dir)):
        label = json.loads(f.read_text())
        d = Path(args.drafts) / f.parent.name / f.name
        if not label["checked"] or not d.is_file():
            continue
        r = rows.setdefault(f.parent.name, [0, 0, 0, 0, 0])
        r[0] += 1
        for k, v in enumerate(match_drafts(label, json.loads(d.read_text()))):
            r[k + 1] += v
    print(f"{'source':45s} {'photos':>6s} {'cards':>6s} {'found':>6s} {'<=2px':>6s} {'false':>6s}")
    total = [0] * 5
    for src, r in sorted(rows.items()):
        print(f"{src:45s} " + " ".join(f"{v:6d}" for v in r))
        total = [a + b for a, b in zip(total, r)]
    print(f"{'all':45s} " + " ".join(f"{v:6d}" for v in total))


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m vision.labelling", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("propose", help="draft labels from the detector (uncalibrated)")
    p.add_argument("images", nargs="+")
    p.add_argument("--force", action="store_true", help="replace an existing label")
    p.set_defaults(run=cmd_propose)

    p = sub.add_parser("overlay", help="draw the labels over the photo into a PNG")
    p.add_argument("image")
    p.add_argument("-o", "--output")
    p.add_argument("--grid", type=float, default=0.0, help="a labelled grid every N image px")
    p.add_argument("--crop", help="x0,y0,x1,y1 in image px")
    p.add_argument("--scale", type=float, help="output px per image px (default: fit 1280 px)")
    p.set_defaults(run=cmd_overlay)

    p = sub.add_parser("corners", help="a sheet of zoomed tiles around every card's corners")
    p.add_argument("image")
    p.add_argument("cards", type=int, nargs="*")
    p.add_argument("-o", "--output")
    p.add_argument("--size", type=int, default=40, help="tile size in image px")
    p.add_argument("--scale", type=float, default=3.0)
    p.set_defaults(run=cmd_corners)

    p = sub.add_parser("transfer", help="labels of a photo onto a resized copy of it, snapped again")
    p.add_argument("source")
    p.add_argument("dest")
    p.set_defaults(run=cmd_transfer)

    p = sub.add_parser("show", help="print the label")
    p.add_argument("image")
    p.set_defaults(run=cmd_show)

    p = sub.add_parser("add", help="a card from 4 rough corners, snapped onto its edges")
    p.add_argument("image")
    p.add_argument("corners", nargs=4, metavar="x,y")
    p.add_argument("--no-snap", action="store_true")
    p.set_defaults(run=cmd_add)

    p = sub.add_parser("snap", help="snap cards again from their corners")
    p.add_argument("image")
    p.add_argument("index", type=int, nargs="+")
    p.add_argument(
        "--keep-failed",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="leave a card whose snap fails as it is (default)",
    )
    p.set_defaults(run=cmd_snap)

    p = sub.add_parser("move", help="set one corner by hand (the card becomes snapped=false)")
    p.add_argument("image")
    p.add_argument("index", type=int)
    p.add_argument("corner", type=int)
    p.add_argument("point", metavar="x,y")
    p.set_defaults(run=cmd_move)

    p = sub.add_parser("remove", help="remove cards by index")
    p.add_argument("image")
    p.add_argument("index", type=int, nargs="+")
    p.set_defaults(run=cmd_remove)

    p = sub.add_parser("ignore", help="add an ignore polygon")
    p.add_argument("image")
    p.add_argument("why", help=" | ".join(WHYS) + " | 'other: ...'")
    p.add_argument("points", nargs="+", metavar="x,y")
    p.set_defaults(run=cmd_ignore)

    p = sub.add_parser("to-ignore", help="make cards ignore polygons (clipped to the image)")
    p.add_argument("image")
    p.add_argument("why")
    p.add_argument("index", type=int, nargs="+")
    p.set_defaults(run=cmd_to_ignore)

    p = sub.add_parser("unignore", help="remove ignore polygons by index")
    p.add_argument("image")
    p.add_argument("index", type=int, nargs="+")
    p.set_defaults(run=cmd_unignore)

    for name in ("check", "done"):
        p = sub.add_parser(name, help="mark the label checked (after looking at its overlay)")
        p.add_argument("image")
        p.set_defaults(run=cmd_check)

    p = sub.add_parser("validate", help="check every label file's format and geometry")
    p.add_argument("dir", nargs="?", default=str(LABELS))
    p.set_defaults(run=cmd_validate)

    p = sub.add_parser("stats", help="photos, checked photos, cards and ignores per source")
    p.add_argument("dir", nargs="?", default=str(LABELS))
    p.set_defaults(run=cmd_stats)

    p = sub.add_parser("recall", help="the detector's drafts against the checked labels")
    p.add_argument("dir", nargs="?", default=str(LABELS))
    p.add_argument("--drafts", default=str(DRAFTS))
    p.set_defaults(run=cmd_recall)
    return ap


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    args.run(args)


if __name__ == "__main__":
    main()
