"""`tabletop calibrate ...`: set up a table once - lens, table plane, card size, projector.

Every step reads photos (a file or a folder) or, with --camera N, takes them live, and updates one
calibration file (default ./calibration.json; docs/architecture.md, "Calibration file").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration import (
    BoardPlacement,
    BoardSpec,
    Calibration,
    CalibrationError,
    ProjectorPattern,
    calibrate_intrinsics,
    card_scale_warning,
    cards_from_detect_json,
    check_measured_scale,
    check_page_scale,
    crosses_image,
    default_cross_points,
    detect_board,
    fit_projector,
    fit_table,
    load_calibration,
    measure_card_size,
    measure_crosses,
)
from calibration.errormap import error_map_image
from calibration.file import now_iso
from calibration.provenance import provenance_lines
from calibration.table import map_table, typical_corner_sigma_mm, visible_extent
from calibration.targets import write_png, write_targets
from tabletop.commands import CommandError
from tabletop.commands.paths import image_paths

DEFAULT_FILE = "calibration.json"

STEPS = """\
Once per table, in this order:
  1. tabletop calibrate targets                     print board_a4.pdf (or board_letter.pdf) at 100 %
  2. tabletop calibrate intrinsics PHOTOS/          10-20 photos of the board held at different angles
  3. tabletop calibrate table PHOTO [PHOTO2]        the board lying flat on the table (a second
                                                    photo with it moved to the far side: smaller error)
  4. tabletop calibrate card-size --detections F    or --long 88 --short 63 (optional; default poker size)
  5. tabletop calibrate projector-pattern --size 1920x1080, show it full screen, then
     tabletop calibrate projector PHOTO             (only with a projector)
  6. tabletop calibrate show                        what was measured and how good it is"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "calibrate",
        help="set up a table: lens, table plane, card size and projector",
        description="Calibrate the camera, the table and the projector, step by step.\n\n" + STEPS,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    steps = p.add_subparsers(dest="step", metavar="STEP", parser_class=type(p))
    p.set_defaults(run=lambda args: (p.print_help(), 0)[1])

    def step(name: str, help_: str, description: str) -> argparse.ArgumentParser:
        s = steps.add_parser(
            name, help=help_, description=description, formatter_class=argparse.RawDescriptionHelpFormatter
        )
        return s

    def cal_arg(s: argparse.ArgumentParser) -> None:
        s.add_argument(
            "--calibration",
            default=DEFAULT_FILE,
            metavar="FILE",
            help=f"calibration file to update (default {DEFAULT_FILE})",
        )

    def board_arg(s: argparse.ArgumentParser) -> None:
        s.add_argument(
            "--board",
            metavar="JSON",
            help="board spec written by 'targets' or in OpenCV's names (default: a board.json beside the "
            "photos, else the standard 7x9 board of 25 mm squares)",
        )

    s = step(
        "targets",
        "write the printable calibration board (PDF and PNG) and its spec",
        "Write board_a4.pdf/.png/.json and board_letter.pdf/.png/.json.\n\n"
        "Print the PDF at 100 % ('actual size', never 'fit to page'), then check with a ruler that the\n"
        "bar under the board measures 100 mm and a square 25 mm. Glue it to something flat.",
    )
    s.add_argument(
        "--out",
        default="calibration_targets",
        metavar="DIR",
        help="folder to write into (default calibration_targets)",
    )
    s.add_argument(
        "--paper", choices=["a4", "letter", "both"], default="both", help="paper size (default both)"
    )
    s.set_defaults(run=run_targets)

    s = step(
        "intrinsics",
        "measure the camera lens from photos of the board",
        "Measure the lens (focal length, distortion) from 10-20 photos of the printed board.\n\n"
        "Hold the board at different angles (tilted up to ~45 degrees) and in every part of the\n"
        "picture, corners included. Give photos or folders of photos, or --camera N to take them\n"
        "live. Views that fit badly are dropped; the report says which parts of the picture still\n"
        "lack views.",
    )
    s.add_argument("photos", nargs="*", metavar="PHOTO", help="photos or folders of photos of the board")
    s.add_argument("--camera", type=int, metavar="N", help="take the photos live from webcam N")
    s.add_argument(
        "--views", type=int, default=15, metavar="N", help="views to take with --camera (default 15)"
    )
    s.add_argument("--save-views", metavar="DIR", help="with --camera, also save the views taken as PNG")
    board_arg(s)
    cal_arg(s)
    s.set_defaults(run=run_intrinsics)

    s = step(
        "table",
        "map the table: one photo of the board lying flat on it",
        "Map image pixels to table millimetres from a photo of the board lying flat on the table.\n\n"
        "Table frame: origin at the left end of the contestant edge, x along that edge to the right,\n"
        "y away from the players. Lay the sheet with its text toward the contestant edge. The board's\n"
        "bottom-left corner is the table origin unless you give --origin X Y (where that corner is, in\n"
        "mm) and --rotation DEG (counter-clockwise). Run 'intrinsics' first for best accuracy.\n"
        "Measure a printed square with a ruler and pass --measured-square-mm to check the print scale.\n\n"
        "More photos, each with the board moved to another spot (do not move the camera), pin the\n"
        "table down far from the first spot (on rendered tables: 0.28 -> 0.20 mm RMS, worst 0.96 ->\n"
        "0.60 mm on average). Where the moved board lies is found by itself; only the first\n"
        "photo's --origin/--rotation count.\n"
        "The step reports the expected error over the whole table ('show --error-map' draws it).",
    )
    s.add_argument(
        "photo",
        nargs="*",
        metavar="PHOTO",
        help="photo of the board flat on the table; more photos: the board moved to other spots",
    )
    s.add_argument("--camera", type=int, metavar="N", help="take the photo live from webcam N")
    s.add_argument(
        "--placements",
        type=int,
        default=1,
        metavar="N",
        help="with --camera, photos to take, moving the board between them (default 1)",
    )
    s.add_argument(
        "--origin",
        type=float,
        nargs=2,
        default=(0.0, 0.0),
        metavar=("X", "Y"),
        help="table mm of the board's bottom-left corner (default 0 0)",
    )
    s.add_argument(
        "--rotation",
        type=float,
        default=0.0,
        metavar="DEG",
        help="board rotation, counter-clockwise from above (default 0)",
    )
    g = s.add_mutually_exclusive_group()
    g.add_argument(
        "--measured-square-mm",
        type=float,
        metavar="MM",
        help="a board square as you measured it (25 on the board 'targets' prints)",
    )
    g.add_argument(
        "--measured-bar-mm", type=float, metavar="MM", help="the ruler bar as you measured it (should be 100)"
    )
    s.add_argument(
        "--use-measured-size",
        action="store_true",
        help="accept a board printed at the wrong scale, using your measurement",
    )
    s.add_argument(
        "--corner-sigma-px",
        type=float,
        metavar="PX",
        help="card corner error of the detector in pixels (default 0.7)",
    )
    board_arg(s)
    cal_arg(s)
    s.set_defaults(run=run_table)

    s = step(
        "card-size",
        "set the card size (and so the reach) from detected cards or by hand",
        "Set the card size. Lay 3 or more cards flat and apart, run\n"
        "  tabletop detect PHOTO --calibration calibration.json --json > cards.json\n"
        "then 'tabletop calibrate card-size --detections cards.json'. Or enter it: --long 88 --short 63.\n"
        "The reach is the short edge unless you give --reach-mm.",
    )
    s.add_argument(
        "--detections", metavar="FILE", help="output of 'tabletop detect --json' ('-' for standard input)"
    )
    s.add_argument("--long", type=float, metavar="MM", help="enter the long edge instead of measuring")
    s.add_argument("--short", type=float, metavar="MM", help="enter the short edge instead of measuring")
    s.add_argument(
        "--reach-mm", type=float, metavar="MM", help="override the reach (default: the short edge)"
    )
    cal_arg(s)
    s.set_defaults(run=run_card_size)

    s = step(
        "projector-pattern",
        "write the full-screen marker pattern for a projector",
        "Write the projector pattern image (and its spec as JSON beside it). Show it full screen on\n"
        "the projector, aimed at the table, then run 'tabletop calibrate projector PHOTO'.",
    )
    s.add_argument(
        "--size", default="1920x1080", metavar="WxH", help="projector resolution (default 1920x1080)"
    )
    s.add_argument(
        "--out",
        default="projector_pattern.png",
        metavar="PNG",
        help="image to write (default projector_pattern.png)",
    )
    s.set_defaults(run=run_projector_pattern)

    s = step(
        "projector",
        "map the table to the projector from a photo of its pattern",
        "Solve table mm -> projector pixels from a camera photo of the projected pattern.\n"
        "Cards may lie on the table; markers they spoil are left out. Needs the table step.",
    )
    s.add_argument("photo", nargs="?", metavar="PHOTO", help="camera photo of the projected pattern")
    s.add_argument("--camera", type=int, metavar="N", help="take the photo live from webcam N")
    s.add_argument(
        "--pattern",
        default="projector_pattern.json",
        metavar="JSON",
        help="pattern spec (default projector_pattern.json)",
    )
    cal_arg(s)
    s.set_defaults(run=run_projector)

    s = step(
        "projector-crosses",
        "write crosses at known table points, to check the projector",
        "Write an image of crosses at table points spread over the projected area (and a JSON of\n"
        "those points). Show it full screen, photograph it, then run 'projector-check PHOTO'.",
    )
    s.add_argument(
        "--out",
        default="projector_crosses.png",
        metavar="PNG",
        help="image to write (default projector_crosses.png)",
    )
    cal_arg(s)
    s.set_defaults(run=run_projector_crosses)

    s = step(
        "projector-check",
        "measure where projected crosses land on the table",
        "From a camera photo of the projected crosses, measure in mm how far each landed from\n"
        "where it was meant to. --dark PHOTO (projector showing black) helps on a busy table.",
    )
    s.add_argument("photo", metavar="PHOTO", help="camera photo of the projected crosses")
    s.add_argument(
        "--crosses",
        default="projector_crosses.json",
        metavar="JSON",
        help="crosses spec (default projector_crosses.json)",
    )
    s.add_argument("--dark", metavar="PHOTO", help="same view with the projector showing black")
    cal_arg(s)
    s.set_defaults(run=run_projector_check)

    s = step(
        "show",
        "check a calibration file and say how good it is",
        "Validate a calibration file and print what each step measured.",
    )
    s.add_argument("--image-size", metavar="WxH", help="check it against the camera's image size now")
    s.add_argument(
        "--error-map",
        metavar="PNG",
        help="draw the table coloured by the expected error in mm (blue small, red large) into PNG",
    )
    cal_arg(s)
    s.set_defaults(run=run_show)


# ---- helpers -------------------------------------------------------------------------------------
def _wrap(fn):
    """Calibration's own errors become one-line command errors."""

    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except CalibrationError as exc:
            raise CommandError(str(exc)) from None

    return run


def read_image(path: str | Path) -> np.ndarray:
    p = Path(path)
    if not p.is_file():
        raise CommandError(f"photo {p} not found")
    img = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if img is None:
        raise CommandError(f"{p} is not a readable image (corrupt, or not PNG/JPEG)")
    return img


BOARD_FILE = "board.json"


def _board(args: argparse.Namespace, photos: list[str] | None = None) -> BoardSpec:
    """--board, else a board.json lying beside the photos (the sample's, or one kept with the
    photos of a printed board), else the standard board 'targets' prints."""
    if args.board:
        return BoardSpec.load(args.board)
    for item in photos or []:
        p = Path(item)
        found = (p if p.is_dir() else p.parent) / BOARD_FILE
        if found.is_file():
            spec = BoardSpec.load(found)
            print(
                f"board: {found} found beside the photos ({spec.squares[0]} x {spec.squares[1]} squares "
                f"of {spec.square_mm:g} mm); give --board to use another"
            )
            return spec
    return BoardSpec()


def _existing(path: str, image_size: tuple[int, int] | None = None) -> Calibration | None:
    if not Path(path).exists():
        return None
    cal = load_calibration(path, require=(), allow_stale=True)
    if image_size is not None:
        cal.check_image_size(image_size)
    return cal


def _has_display() -> bool:
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    try:
        cv2.namedWindow("tabletop calibrate", cv2.WINDOW_NORMAL)
        return True
    except cv2.error:
        return False


class LiveCamera:
    """Frames from a webcam, with a preview window when a display exists (terminal-only otherwise)."""

    def __init__(self, index: int) -> None:
        self.cap = cv2.VideoCapture(index)
        if not self.cap.isOpened():
            raise CommandError(
                f"camera {index} could not be opened: check it is plugged in and not used by another program"
            )
        self.window = _has_display()

    def frame(self) -> np.ndarray:
        ok, img = self.cap.read()
        if not ok or img is None:
            raise CommandError("the camera stopped delivering pictures")
        return img

    def take(self, prompt: str, overlay=None) -> np.ndarray | None:
        """One frame when the user asks: SPACE in the preview, Enter in the terminal; None to stop."""
        print(prompt, flush=True)
        if not self.window:
            answer = input("  press Enter to take the photo (q then Enter to stop): ")
            return None if answer.strip().lower().startswith("q") else self.frame()
        while True:
            img = self.frame()
            shown = overlay(img.copy()) if overlay else img
            cv2.imshow("tabletop calibrate", shown)
            key = cv2.waitKey(30) & 0xFF
            if key == ord(" "):
                return img
            if key in (ord("q"), 27):
                return None

    def close(self) -> None:
        self.cap.release()
        if self.window:
            cv2.destroyAllWindows()


def _board_overlay(spec: BoardSpec):
    def draw(img: np.ndarray) -> np.ndarray:
        try:
            v = detect_board(img, spec)
        except CalibrationError:
            cv2.putText(img, "no board", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 255), 2)
            return img
        for u, w in v.corners_px:
            cv2.circle(img, (int(u), int(w)), 4, (0, 255, 0), -1)
        cv2.putText(
            img,
            f"{len(v)} corners - SPACE to take, q to finish",
            (20, 40),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.8,
            (0, 255, 0),
            2,
        )
        return img

    return draw


def _one_photo(args: argparse.Namespace, what: str, overlay=None) -> tuple[np.ndarray, str]:
    if args.camera is not None:
        cam = LiveCamera(args.camera)
        try:
            img = cam.take(what, overlay)
        finally:
            cam.close()
        if img is None:
            raise CommandError("stopped before a photo was taken")
        return img, f"camera {args.camera}"
    if not args.photo:
        raise CommandError("give a PHOTO or --camera N")
    return read_image(args.photo), args.photo


# ---- steps ---------------------------------------------------------------------------------------
@_wrap
def run_targets(args: argparse.Namespace) -> int:
    papers = ("a4", "letter") if args.paper == "both" else (args.paper,)
    for path in write_targets(args.out, papers):
        print(f"wrote {path}")
    print("Print the PDF at 100 % (actual size). The bar under the board must measure 100 mm and each")
    print("square 25 mm; if not, fix the printer settings. Keep the .json: it tells detection the board.")
    return 0


@_wrap
def run_intrinsics(args: argparse.Namespace) -> int:
    spec = _board(args, args.photos)
    views, names = [], []
    if args.camera is not None:
        views, names = _live_intrinsics(args, spec)
    else:
        if not args.photos:
            raise CommandError("give photos or folders of the board, or --camera N")
        for path in image_paths(args.photos):
            try:
                v = detect_board(read_image(path), spec)
            except CalibrationError as exc:
                print(f"  {path}: skipped - {exc}")
                continue
            views.append(v)
            names.append(str(path))
            print(f"  {path}: {len(v)} corners")
    if not views:
        raise CommandError("the board was not found in any photo: check the photos and --board")
    lens = calibrate_intrinsics(views)
    cal = _existing(args.calibration, lens.image_size) or Calibration(lens.image_size)
    cal.camera_matrix, cal.distortion = lens.camera_matrix, lens.distortion
    cal.steps["intrinsics"] = {"date": now_iso(), **lens.to_step(), "views": names}
    cal.save(args.calibration)
    k = lens.camera_matrix
    print(
        f"lens: focal {k[0, 0]:.1f} x {k[1, 1]:.1f} px, centre ({k[0, 2]:.1f}, {k[1, 2]:.1f}), distortion {np.round(lens.distortion, 4).tolist()}"
    )
    grade = lens.grade()
    print(f"reprojection error {lens.rms_px:.3f} px RMS over {len(lens.used)} views; {grade.coverage}")
    for i, why in lens.dropped.items():
        print(f"  dropped {names[i]}: {why}")
    print("coverage of the picture ('.' = still lacking corners):")
    for row in lens.coverage_map():
        print("  " + row)
    lacking = lens.lacking_regions()
    if lacking:
        print("still lacking views: " + ", ".join(lacking))
    print("lens views: good" if grade.good else f"lens views: not good yet: {grade.todo}")
    print(f"saved {args.calibration}")
    if cal.has_table:
        print("note: the table step used the old lens: run 'tabletop calibrate table' again")
    return 0


def _live_intrinsics(args: argparse.Namespace, spec: BoardSpec) -> tuple[list, list]:
    from calibration.intrinsics import coverage, region_name

    cam = LiveCamera(args.camera)
    views: list = []
    names: list = []
    try:
        while len(views) < args.views:
            lacking = []
            if views:
                cov = coverage(views, views[0].image_size)
                rows, cols = cov.shape
                lacking = [
                    region_name(r, c, rows, cols) for r in range(rows) for c in range(cols) if cov[r, c] < 4
                ]
            hint = (
                ("move the board to: " + ", ".join(lacking[:3])) if lacking else "tilt the board another way"
            )
            img = cam.take(f"view {len(views) + 1}/{args.views}: {hint}", _board_overlay(spec))
            if img is None:
                break
            try:
                v = detect_board(img, spec)
            except CalibrationError as exc:
                print(f"  not taken: {exc}")
                continue
            views.append(v)
            names.append(f"camera view {len(views)}")
            if args.save_views:
                Path(args.save_views).mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(Path(args.save_views) / f"view_{len(views):02d}.png"), img)
            print(f"  taken: {len(v)} corners")
    finally:
        cam.close()
    return views, names


def _table_photos(args: argparse.Namespace, spec: BoardSpec) -> list[tuple[np.ndarray, str]]:
    """The table step's photos: one per placement of the board, from files or the camera."""
    if args.camera is None:
        if not args.photo:
            raise CommandError("give a PHOTO or --camera N")
        return [(read_image(p), p) for p in args.photo]
    if args.placements < 1:
        raise CommandError("--placements must be 1 or more")
    cam = LiveCamera(args.camera)
    out: list[tuple[np.ndarray, str]] = []
    try:
        for k in range(args.placements):
            what = (
                "lay the board flat on the table, text toward the contestant edge"
                if k == 0
                else f"placement {k + 1}/{args.placements}: move the board to another spot (the far side is best), camera still"
            )
            img = cam.take(what, _board_overlay(spec))
            if img is None:
                break
            out.append((img, f"camera {args.camera}, placement {k + 1}"))
    finally:
        cam.close()
    if not out:
        raise CommandError("stopped before a photo was taken")
    return out


def _views(photos: list[tuple[np.ndarray, str]], spec: BoardSpec) -> list:
    size = (photos[0][0].shape[1], photos[0][0].shape[0])
    views = []
    for img, source in photos:
        if (img.shape[1], img.shape[0]) != size:
            raise CommandError(f"{source} is not {size[0]}x{size[1]} like the first photo: use one camera setting")
        try:
            views.append(detect_board(img, spec))
        except CalibrationError as exc:
            raise CommandError(f"{source}: {exc}" if len(photos) > 1 else str(exc)) from None
    return views


@_wrap
def run_table(args: argparse.Namespace) -> int:
    spec = _board(args, list(args.photo) if args.photo and args.camera is None else None)
    if args.camera is None and not args.photo:
        raise CommandError("give a PHOTO or --camera N")
    size = None
    measured = args.measured_square_mm is not None or args.measured_bar_mm is not None
    if args.use_measured_size and not measured:
        # Without a measurement the board's size would be taken on trust: a 97 % print is then
        # 23 mm wrong over the table, with no error to show for it.
        raise CommandError(
            "--use-measured-size needs your measurement: add --measured-square-mm MM (a square, "
            f"{spec.square_mm:g} mm on the spec) or --measured-bar-mm MM (the ruler bar, {spec.ruler_mm:g} mm)"
        )
    photos = _table_photos(args, spec)
    img, source = photos[0]
    size = (img.shape[1], img.shape[0])
    cal = _existing(args.calibration, size) or Calibration(size)
    if len(photos) > 1 and not cal.has_lens:
        raise CommandError(
            "a second placement needs the lens: run 'tabletop calibrate intrinsics' first, then this step"
        )
    scale_check = ""
    if measured:
        try:
            check_measured_scale(spec, args.measured_square_mm, args.measured_bar_mm)
            scale_check = _ruler_words(args, spec)
        except CalibrationError:
            if not args.use_measured_size:
                raise
            scale = (
                (args.measured_square_mm / spec.square_mm)
                if args.measured_square_mm
                else (args.measured_bar_mm / spec.ruler_mm)
            )
            spec = spec.scaled(scale)
            scale_check = f"{_ruler_words(args, spec)}; the board used as printed ({scale * 100:.1f} %)"
            print(f"using the board as printed: squares of {spec.square_mm:.2f} mm ({scale * 100:.1f} %)")
    views = _views(photos, spec)
    placement = BoardPlacement(tuple(args.origin), args.rotation)
    fit = fit_table(views[0], spec, placement, cal.camera_matrix, cal.distortion)
    if not args.use_measured_size:
        page = check_page_scale(img, spec, fit.board_to_image, cal.camera_matrix, cal.distortion)
        page.raise_if_wrong()
        if page.scale is not None:
            print(f"print scale: {page.scale * 100:.1f} % ({page.reason})")
            scale_check = f"the paper's edges: {page.scale * 100:.1f} % ({page.reason})" + (
                f"; {scale_check}" if scale_check else ""
            )
        elif not measured:
            # Unchecked, a board of another size gives millimetres wrong by the print's shrink (a
            # 97 % print: 23 mm RMS over the table) while every reported error stays tiny. A card
            # measured in the card-size step cannot vouch for it: that step reads the table's scale.
            raise CommandError(
                f"the print scale could not be checked ({page.reason}): measure the board with a ruler "
                f"and pass --measured-square-mm MM (a square, {spec.square_mm:g} mm on the spec) or "
                f"--measured-bar-mm MM (the bar under the board, {spec.ruler_mm:g} mm), or show the "
                "whole sheet on a table darker than paper (a measured card cannot vouch for it: the "
                "card-size step reads cards through this step's scale)"
            )
        else:
            print(f"print scale: checked with your ruler ({page.reason})")
    if args.corner_sigma_px is not None:
        cal.corner_sigma_px = args.corner_sigma_px
    step = {
        "date": now_iso(),
        "intrinsics_date": cal.steps.get("intrinsics", {}).get("date"),
        **fit.to_step(),
        "board_origin_mm": list(placement.origin_mm),
        "board_rotation_deg": placement.rotation_deg,
        "board_square_mm": spec.square_mm,
        "scale_check": scale_check,
        "corner_sigma_px_source": "entered (--corner-sigma-px)"
        if args.corner_sigma_px is not None
        else cal.steps.get("table", {}).get("corner_sigma_px_source", "the default for a card detector"),
        "photo": source,
        "photos": [src for _, src in photos],
        "placements": len(photos),
    }
    if cal.has_lens:
        plane = map_table(cal, views, spec, placement)
        step.update(
            {
                "corners": plane.corners,
                "plane_rms_px": plane.rms_px,
                "placements_mm": [[round(v, 2) for v in p] for p in plane.placements],
            }
        )
    else:
        cal.image_to_table = fit.image_to_table
        cal.table_extent_mm = visible_extent(cal)
        cal.error_map = None
    cal.steps["table"] = step
    cal.corner_sigma_mm = typical_corner_sigma_mm(cal)
    cal.save(args.calibration)
    _report_table(cal, fit, args.calibration)
    return 0


def _ruler_words(args: argparse.Namespace, spec: BoardSpec) -> str:
    if args.measured_square_mm is not None:
        return f"your ruler: a square measured {args.measured_square_mm:g} mm ({spec.square_mm:g} on the spec)"
    return f"your ruler: the bar measured {args.measured_bar_mm:g} mm ({spec.ruler_mm:g} on the spec)"


def _report_table(cal: Calibration, fit, path: str) -> None:
    if not cal.has_lens:
        print(
            "warning: no lens calibration: pixels are used as they are (run 'tabletop calibrate intrinsics' first)"
        )
    e = cal.table_extent_mm
    step = cal.steps["table"]
    print(
        f"table: {fit.corners} board corners; held-out corner error {fit.holdout_rms_mm:.2f} mm RMS (max {fit.holdout_max_mm:.2f} mm) near the board"
    )
    for k, (x, y, rot) in enumerate(step.get("placements_mm", [])[1:], start=2):
        print(f"  placement {k}: the board's corner found at ({x:.0f}, {y:.0f}) mm, turned {rot:.1f} degrees")
    print(
        f"the camera sees x {e['min'][0]:.0f}..{e['max'][0]:.0f} mm, y {e['min'][1]:.0f}..{e['max'][1]:.0f} mm"
    )
    em = cal.error_map
    if em is not None:
        x, y = em.worst_mm()
        print(
            f"expected error over the table: {em.rms_mm:.2f} mm RMS, {em.max_mm:.2f} mm at worst (near {x:.0f}, {y:.0f} mm);"
            " 'tabletop calibrate show --error-map map.png' draws it"
        )
        if em.max_mm > 1.0 and step.get("placements", 1) == 1:
            print(
                "  to bring the far side down, add a photo with the board moved there: "
                "'tabletop calibrate table PHOTO PHOTO2' (same --origin/--rotation for the first)"
            )
    print(f"card corner sigma about {cal.corner_sigma_mm:.2f} mm; saved {path}")
    if cal.has_projector:
        print("note: the projector step used the old table mapping: run 'tabletop calibrate projector' again")


@_wrap
def run_card_size(args: argparse.Namespace) -> int:
    # What to measure first: a wrong command line is told before a missing file.
    if args.detections is None and (args.long is None or args.short is None):
        raise CommandError("give --detections FILE, or both --long MM and --short MM")
    if not Path(args.calibration).exists():
        raise CommandError(
            f"calibration file {args.calibration} not found: run 'tabletop calibrate table' first"
        )
    if args.reach_mm is not None and not 10 <= args.reach_mm <= 300:
        raise CommandError(f"a reach of {args.reach_mm} mm is not plausible (10-300 mm)")
    if args.detections is not None:
        cal = load_calibration(args.calibration, require=(), allow_stale=("projector",))
        text = sys.stdin.read() if args.detections == "-" else _read_text(args.detections)
        cards = cards_from_detect_json(text, source=args.detections)
        mm = [
            c["corners_mm"] if c["corners_mm"] is not None else cal.pixels_to_table_mm(c["corners_px"])
            for c in cards
        ]
        size = measure_card_size(mm)
        cal.card_mm = (size.long_mm, size.short_mm)
        cal.steps["card_size"] = {"date": now_iso(), **size.to_step()}
        print(
            f"cards: {size.long_mm:.1f} x {size.short_mm:.1f} mm (median of {size.cards}, spread {size.spread_mm:.2f} mm, {size.rejected} left out)"
        )
        warning = card_scale_warning(size)
        if warning:
            print(f"warning: {warning}")
    else:  # both sizes given (checked above)
        long_mm, short_mm = max(args.long, args.short), min(args.long, args.short)
        if not 20 <= short_mm <= long_mm <= 300:
            raise CommandError(f"{args.long} x {args.short} mm is not a card size")
        cal = load_calibration(args.calibration, require=(), allow_stale=True)
        cal.card_mm = (long_mm, short_mm)
        cal.steps["card_size"] = {"date": now_iso(), "source": "entered"}
        print(f"cards: {long_mm:.1f} x {short_mm:.1f} mm (entered)")
    cal.reach_mm = args.reach_mm
    print(
        f"reach: {cal.effective_reach_mm:.1f} mm"
        + (" (entered)" if args.reach_mm is not None else " (the short edge)")
    )
    cal.save(args.calibration)
    return 0


def _read_text(path: str) -> str:
    try:
        return Path(path).read_text()
    except FileNotFoundError:
        raise CommandError(f"{path} not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CommandError(f"{path} cannot be read ({exc})") from None


def _parse_size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise CommandError(f"size {text!r} must look like 1920x1080") from None
    return w, h


@_wrap
def run_projector_pattern(args: argparse.Namespace) -> int:
    pattern = ProjectorPattern.for_size(*_parse_size(args.size))
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise CommandError("the pattern is written as PNG: give --out NAME.png")
    out.parent.mkdir(parents=True, exist_ok=True)
    write_png(out, pattern.image(), 1.0)
    pattern.save(out.with_suffix(".json"))
    n = pattern.grid[0] * pattern.grid[1]
    print(f"wrote {out} ({pattern.size[0]}x{pattern.size[1]}, {n} markers) and {out.with_suffix('.json')}")
    print(
        f"show it full screen on the projector, take a photo with the table camera, then run 'tabletop calibrate projector PHOTO --pattern {out.with_suffix('.json')}'"
    )
    return 0


@_wrap
def run_projector(args: argparse.Namespace) -> int:
    cal = load_calibration(args.calibration, require=("table",), allow_stale=("projector",))
    pattern = ProjectorPattern.load(args.pattern)
    img, source = _one_photo(args, "show the projector pattern full screen on the table")
    fit = fit_projector(img, pattern, cal)
    cal.projector_size = pattern.size
    cal.table_to_projector = fit.table_to_projector
    cal.steps["projector"] = {
        "date": now_iso(),
        "table_date": cal.steps.get("table", {}).get("date"),
        **fit.to_step(),
        "photo": source,
    }
    cal.save(args.calibration)
    print(
        f"projector: {fit.markers} markers seen, {fit.corners} corners fit with {fit.rms_px:.2f} px RMS ({fit.rejected} left out)"
    )
    print(
        f"saved {args.calibration}; check it with 'tabletop calibrate projector-crosses' and 'projector-check'"
    )
    return 0


@_wrap
def run_projector_crosses(args: argparse.Namespace) -> int:
    cal = load_calibration(args.calibration, require=("table", "projector"))
    points = default_cross_points(cal)
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise CommandError("the crosses are written as PNG: give --out NAME.png")
    write_png(out, crosses_image(cal, points), 1.0)
    spec = out.with_suffix(".json")
    spec.write_text(
        json.dumps(
            {
                "kind": "projector-crosses",
                "points_mm": points.tolist(),
                "projector_size": list(cal.projector_size),
            },
            indent=2,
        )
        + "\n"
    )
    print(
        f"wrote {out} ({len(points)} crosses) and {spec}; show it full screen, photograph it, run 'tabletop calibrate projector-check PHOTO'"
    )
    return 0


@_wrap
def run_projector_check(args: argparse.Namespace) -> int:
    cal = load_calibration(args.calibration, require=("table", "projector"))
    try:
        spec = json.loads(_read_text(args.crosses))
        points = np.asarray(spec["points_mm"], float).reshape(-1, 2)
    except (json.JSONDecodeError, KeyError, TypeError, ValueError):
        raise CommandError(f"{args.crosses} is not a crosses spec written by 'projector-crosses'") from None
    img = read_image(args.photo)
    dark = read_image(args.dark) if args.dark else None
    check = measure_crosses(img, cal, points, dark)
    for p, f, e in zip(check.points_mm, check.found_mm, check.errors_mm):
        where = "not seen" if not np.isfinite(e) else f"landed at ({f[0]:.1f}, {f[1]:.1f}), off by {e:.2f} mm"
        print(f"  cross at ({p[0]:.1f}, {p[1]:.1f}) mm: {where}")
    print(
        f"{check.found}/{len(points)} crosses seen; error {check.rms_mm:.2f} mm RMS, max {check.max_mm:.2f} mm"
    )
    cal.steps.setdefault("projector", {}).update(
        {
            "check_date": now_iso(),
            "check_rms_mm": check.rms_mm,
            "check_max_mm": check.max_mm,
            "check_seen": check.found,
        }
    )
    cal.save(args.calibration)
    return 0


@_wrap
def run_show(args: argparse.Namespace) -> int:
    size = _parse_size(args.image_size) if args.image_size else None
    cal = load_calibration(args.calibration, require=(), image_size=size, allow_stale=True)
    print(f"{args.calibration}:")
    for line in cal.summary():
        print("  " + line)
    print("  what the referee's decisions rest on:")
    for line in provenance_lines(cal):
        print("    " + line)
    stale = list(cal.stale_steps().values())
    for line in stale:
        print("  STALE: " + line)
    if args.error_map:
        if cal.error_map is None:
            raise CommandError(
                "this calibration has no error map: run 'tabletop calibrate table' again"
                + ("" if cal.has_lens else " after 'tabletop calibrate intrinsics'")
            )
        out = Path(args.error_map)
        if out.suffix.lower() != ".png":
            raise CommandError("the error map is written as PNG: give --error-map NAME.png")
        try:
            written = cv2.imwrite(str(out), error_map_image(cal.error_map))
        except cv2.error:
            written = False
        if not written:
            raise CommandError(f"could not write {out}: check the folder exists and is writable")
        print(f"wrote {out}: the table from above, contestant edge at the bottom, coloured by expected error")
    missing = [s for s, ok in (("table", cal.has_table),) if not ok]
    if stale or missing:
        raise CommandError(stale[0] if stale else "no table step yet: run 'tabletop calibrate table'")
    return 0
