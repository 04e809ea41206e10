"""`tabletop detect IMAGE...`: find cards and pawns in photos (docs/architecture.md, "Command line").

Also `tabletop enroll-faces FOLDER`: learn a deck's faces and back from photos, one card each.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import cv2
import numpy as np

from tabletop.commands import CommandError
from tabletop.commands.paths import image_paths
from vision.sources import jpeg_damage


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "detect",
        help="find the cards and pawns in photos and print them (JSON with --json)",
        description=(
            "Find every card lying flat (its four sharp corners, face up or down, its name when the face is "
            "enrolled) and every pawn in each IMAGE. Corners are pixels of the image as loaded (EXIF rotation "
            "applied); with --calibration they are also given in table millimetres."
        ),
    )
    p.add_argument(
        "images",
        nargs="+",
        metavar="IMAGE",
        help="photo(s) of the table, folders of them (their images in name order, not sub-folders) or "
        "patterns such as 'photos/*.jpg'. A damaged photo (a JPEG cut short) is reported and skipped, "
        "the others are read, and the exit code is 2",
    )
    p.add_argument(
        "--calibration", metavar="FILE", help="calibration file from 'tabletop calibrate' (adds corners_mm)"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object per image")
    p.add_argument(
        "--annotate", metavar="OUT.png", help="write the image with the found outlines drawn (one image only)"
    )
    p.add_argument(
        "--faces",
        metavar="LIBRARY.npz",
        help="enrolled faces from 'tabletop enroll-faces' (default: the bundled art)",
    )
    p.set_defaults(run=run)

    e = sub.add_parser(
        "enroll-faces",
        help="learn a deck's faces and back from photos, one card per photo",
        description=(
            "Learn card faces from FOLDER: one photo per card, alone on the table (or a tight scan), named after "
            "the card (e.g. 'Laser Gun.jpg'); a photo named 'back' teaches the back. Writes a face library for "
            "'tabletop detect --faces'."
        ),
    )
    e.add_argument("folder", metavar="FOLDER")
    e.add_argument(
        "--out",
        metavar="LIBRARY.npz",
        default="faces.npz",
        help="where to write the library (default faces.npz)",
    )
    e.set_defaults(run=run_enroll)


def _load_image(path: str) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise CommandError(f"{path}: no such file; give the path of a photo of the table")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)  # applies the EXIF orientation
    if img is None:
        raise CommandError(
            f"{path}: not a readable image (empty, corrupt or not a picture); take the photo again"
        )
    return img


def _table(args: argparse.Namespace, size: tuple[int, int]):
    if not args.calibration:
        return None
    from calibration.errors import CalibrationError
    from vision.table import TableMap

    try:
        return TableMap.load(args.calibration, image_size=size)
    except CalibrationError as exc:
        raise CommandError(str(exc)) from None


def run(args: argparse.Namespace) -> int:
    from vision.faces import FaceLibrary
    from vision.pipeline import FrameReader

    paths = [str(p) for p in image_paths(args.images)]
    if args.annotate and len(paths) != 1:
        raise CommandError(f"--annotate draws one image; give exactly one IMAGE with it ({len(paths)} given)")
    faces = None
    if args.faces:
        if not Path(args.faces).is_file():
            raise CommandError(
                f"--faces {args.faces}: no such file; give the .npz 'tabletop enroll-faces' wrote"
            )
        try:
            faces = FaceLibrary.load(args.faces)
        except ValueError:
            raise CommandError(
                f"--faces {args.faces} is not a face library: give the .npz file 'tabletop enroll-faces "
                "FOLDER --out LIBRARY.npz' wrote (or leave --faces out for the bundled art)"
            ) from None
    readers: dict[tuple[int, int], FrameReader] = {}
    damaged = 0
    for path in paths:
        cut = jpeg_damage(path)
        if cut:
            # One damaged photo must not hide the others; the exit code tells a script.
            print(f"tabletop: {path} is damaged or cut short ({cut}); skipped", file=sys.stderr, flush=True)
            damaged += 1
            continue
        img = _load_image(path)
        size = (img.shape[1], img.shape[0])
        if size not in readers:
            readers[size] = FrameReader(table=_table(args, size), faces=faces)
        try:
            reading = readers[size].read(img)
        except ValueError as exc:
            raise CommandError(f"{path}: {exc}") from None
        if args.json:
            print(json.dumps({"image": path, **reading.to_json(), "model": readers[size].model}))
        else:
            ups = sum(c.face == "up" for c in reading.cards)
            downs = sum(c.face == "down" for c in reading.cards)
            print(
                f"{path}: {len(reading.cards)} cards ({ups} face up, {downs} face down), {len(reading.pawns)} pawns, {reading.elapsed_ms:.0f} ms"
            )
            for i, c in enumerate(reading.cards):
                where = c.corners_mm or c.corners_px
                unit = "mm" if c.corners_mm else "px"
                cx, cy = np.mean(where, axis=0)
                print(
                    f"  card {i}: {c.face:7s} {c.name or '-':20s} centre ({cx:.1f}, {cy:.1f}) {unit}  corner sigma {max(c.sigma_px):.2f} px"
                )
            for p in reading.pawns:
                print(f"  pawn {p.color}: on {'card ' + str(p.card) if p.card is not None else 'no card'}")
        if args.annotate:
            out = draw(img, reading)
            if not cv2.imwrite(args.annotate, out):
                raise CommandError(
                    f"cannot write {args.annotate}; give a writable path ending in .png or .jpg"
                )
            print(f"annotated image written to {args.annotate}")
    return 2 if damaged else 0


# Outline colours (BGR) by what the card shows; the legend in the corner says which is which.
FACE_COLOURS = {"up": (0, 200, 0), "down": (255, 80, 0), "unknown": (0, 0, 255)}
FACE_WORDS = {"up": "face up", "down": "face down", "unknown": "not sure"}
PAWN_COLOUR = (255, 255, 255)


def draw(img: np.ndarray, reading) -> np.ndarray:
    """The photo with every card's outline (coloured by face), its number and name, the pawns,
    and a legend. Labels are white with a dark halo and sized to the photo: readable on any table."""
    from display.text import put_text, scale_for_cap_height

    out = img.copy()
    t = max(1, round(max(img.shape[:2]) / 800))
    scale = scale_for_cap_height(max(12.0, max(img.shape[:2]) / 90))
    for i, c in enumerate(reading.cards):
        q = np.round(np.array(c.corners_px) * 16).astype(np.int32)
        color = FACE_COLOURS.get(c.face, FACE_COLOURS["unknown"])
        # A dark edge under the colour keeps a green outline visible on green felt.
        cv2.polylines(out, [q], True, (0, 0, 0), 3 * t, cv2.LINE_AA, shift=4)
        cv2.polylines(out, [q], True, color, t, cv2.LINE_AA, shift=4)
        x, y = np.array(c.corners_px).min(axis=0)
        put_text(out, f"{i} {c.name or c.face}", (x, max(y - 6 * t, 20 * t)), scale, (255, 255, 255),
                 halo=(0, 0, 0))  # fmt: skip
    for p in reading.pawns:
        cv2.circle(out, tuple(int(v) for v in p.center_px), 5 * t, PAWN_COLOUR, t, cv2.LINE_AA)
    _legend(out, scale, t)
    return out


def _legend(out: np.ndarray, scale: float, t: int) -> None:
    """A filled box in the top-left corner naming each outline colour and the pawn mark."""
    from display.text import put_text, text_width

    rows = [(FACE_WORDS[k], v, "line") for k, v in FACE_COLOURS.items()] + [("pawn", PAWN_COLOUR, "ring")]
    line_h = int(scale * 30 * 1.3)
    swatch = int(scale * 30 * 1.4)
    w = swatch + 3 * t * 4 + max(text_width(r[0], scale) for r in rows)
    x0, y0 = 8 * t, 8 * t
    cv2.rectangle(out, (x0, y0), (x0 + w + 8 * t, y0 + line_h * len(rows) + 10 * t), (25, 25, 25), -1)
    for i, (word, colour, mark) in enumerate(rows):
        cy = y0 + 6 * t + line_h * i + line_h // 2
        if mark == "line":
            cv2.line(out, (x0 + 6 * t, cy), (x0 + 6 * t + swatch, cy), colour, 2 * t + 1, cv2.LINE_AA)
        else:
            cv2.circle(out, (x0 + 6 * t + swatch // 2, cy), 5 * t, colour, t, cv2.LINE_AA)
        put_text(out, word, (x0 + 12 * t + swatch, cy + line_h * 0.3), scale, (235, 235, 235))


def run_enroll(args: argparse.Namespace) -> int:
    from vision.faces import FaceLibrary
    from vision.pipeline import card_detector
    from vision.sources import IMAGE_SUFFIXES

    folder = Path(args.folder)
    if not folder.is_dir():
        raise CommandError(f"{folder} is not a folder; give a folder with one photo per card")
    photos = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
    if not photos:
        raise CommandError(f"{folder} holds no photos; put one photo per card in it, named after the card")
    # Photos without a calibration: the card is found as `tabletop detect` finds it there.
    lib, det = FaceLibrary(), card_detector()
    for p in photos:
        try:
            lib.enroll(p.stem, _load_image(str(p)), det)
        except ValueError as exc:
            raise CommandError(f"{p}: {exc}") from None
    lib.save(args.out)
    print(f"enrolled {len(lib.faces)} faces{' and the back' if lib.back is not None else ''} -> {args.out}")
    return 0
