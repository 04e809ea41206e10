"""The calibration file (docs/architecture.md, "Calibration file") and the transforms later layers call.

One JSON object, `"version": 1`:

    image_size          [w, h] of the camera images every pixel refers to
    camera_matrix       3 x 3, or null when the lens was not calibrated
    distortion          OpenCV k1, k2, p1, p2, k3, or null
    image_to_table      3 x 3 homography: undistorted pixels -> table mm (docs/rules-masterplan.md frame)
    table_extent_mm     {"min": [x, y], "max": [x, y], "outline": [[x, y], ...]} the table the camera sees
    card_mm             {"long": mm, "short": mm}
    reach_mm            the reach the referee uses (the short card edge unless overridden)
    corner_sigma_mm     typical 1-sigma error of a card corner on the table
    corner_sigma_px     the detector's corner error in pixels that sigma was derived from
    projector_size      [w, h] or null
    table_to_projector  3 x 3 homography table mm -> projector pixels, or null
    steps               {"intrinsics" | "table" | "card_size" | "projector": {"date", errors...}}
    error_map           optional (issue 25): expected mapping error (mm) on a grid over the table,
                        {"origin_mm", "step_mm", "mm": rows of cells (null: not seen), "how"}
    provenance          written for people and tools, rebuilt on every save: each number a
                        referee decision rests on, how it was measured and its error

Files without "error_map" or "provenance" (written before issue 25) stay readable: corner
sigmas then fall back to the table step's held-out error, as they did.

A step's entry records the date it ran and its errors; "table" records the intrinsics date it
used and "projector" the table date, so a re-run of an earlier step marks later ones stale.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from calibration.errormap import ErrorMap
from calibration.errors import CalibrationError
from calibration.lens import apply_homography, distort_pixels, undistort_pixels
from calibration.provenance import provenance

VERSION = 1
DEFAULT_CARD_MM = (88.0, 63.0)  # long, short: poker size, the default reach of docs/rules-masterplan.md
DEFAULT_CORNER_SIGMA_PX = 0.7  # a card detector's corner from intersecting fitted edges
STEP_COMMANDS = {
    "intrinsics": "tabletop calibrate intrinsics",
    "table": "tabletop calibrate table",
    "card_size": "tabletop calibrate card-size",
    "projector": "tabletop calibrate projector",
}


def now_iso() -> str:
    # Microseconds kept: a step's date also identifies the run a later step was fitted on, and
    # two steps within one second (a script, a test) must not look like the same run.
    return _dt.datetime.now(_dt.timezone.utc).isoformat()


@dataclass
class Calibration:
    """A table's calibration: pixels <-> table millimetres <-> projector pixels."""

    image_size: tuple[int, int]
    camera_matrix: np.ndarray | None = None
    distortion: np.ndarray | None = None
    image_to_table: np.ndarray | None = None
    table_extent_mm: dict | None = None
    card_mm: tuple[float, float] = DEFAULT_CARD_MM  # long, short
    reach_mm: float | None = None  # None: the short card edge
    corner_sigma_mm: float | None = None
    corner_sigma_px: float = DEFAULT_CORNER_SIGMA_PX
    projector_size: tuple[int, int] | None = None
    table_to_projector: np.ndarray | None = None
    steps: dict[str, dict] = field(default_factory=dict)
    error_map: ErrorMap | None = None

    # ---- what is there -----------------------------------------------------------------------
    @property
    def has_lens(self) -> bool:
        return self.camera_matrix is not None

    @property
    def has_table(self) -> bool:
        return self.image_to_table is not None

    @property
    def has_projector(self) -> bool:
        return self.table_to_projector is not None

    @property
    def card_long_mm(self) -> float:
        return self.card_mm[0]

    @property
    def card_short_mm(self) -> float:
        return self.card_mm[1]

    @property
    def effective_reach_mm(self) -> float:
        return self.card_mm[1] if self.reach_mm is None else self.reach_mm

    # ---- transforms --------------------------------------------------------------------------
    def undistort(self, points_px: np.ndarray) -> np.ndarray:
        """Pixels of the ideal pinhole image for pixels of the image as loaded (N x 2)."""
        if self.camera_matrix is None:
            return np.asarray(points_px, dtype=float).reshape(-1, 2).copy()
        return undistort_pixels(points_px, self.camera_matrix, self.distortion)

    def pixels_to_table_mm(self, points_px: np.ndarray) -> np.ndarray:
        """Table mm (N x 2) of image pixels (N x 2, the image as `cv2.imread` loads it)."""
        return apply_homography(self._need_table(), self.undistort(points_px))

    def table_mm_to_pixels(self, points_mm: np.ndarray) -> np.ndarray:
        """Image pixels (N x 2, as the lens shows them) of table points (N x 2 mm)."""
        ideal = apply_homography(np.linalg.inv(self._need_table()), points_mm)
        if self.camera_matrix is None:
            return ideal
        return distort_pixels(ideal, self.camera_matrix, self.distortion)

    def table_mm_to_projector_px(self, points_mm: np.ndarray) -> np.ndarray:
        """Projector pixels (N x 2) that light the given table points (N x 2 mm)."""
        if self.table_to_projector is None:
            raise CalibrationError(
                "this calibration has no projector yet: run 'tabletop calibrate projector'"
            )
        return apply_homography(self.table_to_projector, points_mm)

    def projector_px_to_table_mm(self, points_px: np.ndarray) -> np.ndarray:
        if self.table_to_projector is None:
            raise CalibrationError(
                "this calibration has no projector yet: run 'tabletop calibrate projector'"
            )
        return apply_homography(np.linalg.inv(self.table_to_projector), points_px)

    def mm_per_pixel_at(self, points_px: np.ndarray) -> np.ndarray:
        """Table mm one image pixel spans at each point (N,): the root of the local area scale."""
        p = np.asarray(points_px, dtype=float).reshape(-1, 2)
        d = 0.5
        c = self.pixels_to_table_mm(p)
        ex = self.pixels_to_table_mm(p + [d, 0]) - c
        ey = self.pixels_to_table_mm(p + [0, d]) - c
        area = np.abs(ex[:, 0] * ey[:, 1] - ex[:, 1] * ey[:, 0]) / (d * d)
        return np.sqrt(area)

    def map_error_mm_at_table(self, points_mm: np.ndarray) -> np.ndarray:
        """Expected error (mm, RMS) of the mapping itself at table points (N x 2): the error map
        where there is one, else the table step's held-out error everywhere (files from before
        the map; that figure holds only near where the board lay)."""
        p = np.asarray(points_mm, dtype=float).reshape(-1, 2)
        if self.error_map is not None:
            return self.error_map.at(p)
        return np.full(len(p), float(self.steps.get("table", {}).get("holdout_rms_mm", 0.0) or 0.0))

    def mapping_sigma_mm_at_table(self, points_mm: np.ndarray) -> np.ndarray:
        """Per-axis 1-sigma of the mapping at table points, as a card corner's sigma counts it:
        the map holds the RMS over both axes, per axis that is its value over sqrt(2). Files
        from before the map keep their held-out error as it was used."""
        mapping = self.map_error_mm_at_table(points_mm)
        return mapping / math.sqrt(2) if self.error_map is not None else mapping

    def corner_sigma_mm_at(self, points_px: np.ndarray) -> np.ndarray:
        """1-sigma table error (mm) of card corners detected at these pixels: the detector's pixel
        error scaled by the local mm per pixel, plus the calibration's own mapping error there."""
        mapping = self.mapping_sigma_mm_at_table(self.pixels_to_table_mm(points_px))
        return np.hypot(self.corner_sigma_px * self.mm_per_pixel_at(points_px), mapping)

    def _need_table(self) -> np.ndarray:
        if self.image_to_table is None:
            raise CalibrationError(
                "this calibration has no table mapping yet: lay the board on the table and run 'tabletop calibrate table'"
            )
        return self.image_to_table

    # ---- checks ------------------------------------------------------------------------------
    def check_image_size(self, size: tuple[int, int]) -> None:
        """Raise when images of `size` (w, h) are not the ones this calibration was made for."""
        if tuple(int(s) for s in size) != tuple(self.image_size):
            w, h = self.image_size
            raise CalibrationError(
                f"the calibration was made for {w}x{h} images but the camera now gives {size[0]}x{size[1]}: "
                f"set the camera back to {w}x{h} or calibrate again"
            )

    def stale_steps(self) -> dict[str, str]:
        """Steps that were fitted against an older version of the step before them -> what to do."""
        out = {}
        lens = self.steps.get("intrinsics", {}).get("date")
        table = self.steps.get("table", {})
        if self.has_table and lens is not None and table.get("intrinsics_date") != lens:
            out["table"] = (
                "the table step was fitted before the current lens calibration: run 'tabletop calibrate table' again"
            )
        proj = self.steps.get("projector", {})
        if self.has_projector and self.has_table and proj.get("table_date") != table.get("date"):
            out["projector"] = (
                "the projector step was fitted before the current table step: run 'tabletop calibrate projector' again"
            )
        return out

    # ---- file --------------------------------------------------------------------------------
    def to_json(self) -> dict:
        def m(a: np.ndarray | None) -> list | None:
            return None if a is None else np.asarray(a, dtype=float).tolist()

        return {
            "version": VERSION,
            "image_size": list(self.image_size),
            "camera_matrix": m(self.camera_matrix),
            "distortion": m(self.distortion),
            "image_to_table": m(self.image_to_table),
            "table_extent_mm": self.table_extent_mm,
            "card_mm": {"long": self.card_mm[0], "short": self.card_mm[1]},
            "reach_mm": self.effective_reach_mm,
            "reach_source": "card" if self.reach_mm is None else "entered",
            "corner_sigma_mm": self.corner_sigma_mm,
            "corner_sigma_px": self.corner_sigma_px,
            "projector_size": None if self.projector_size is None else list(self.projector_size),
            "table_to_projector": m(self.table_to_projector),
            "steps": self.steps,
            "error_map": None if self.error_map is None else self.error_map.to_json(),
            "provenance": provenance(self),
        }

    @classmethod
    def from_json(cls, d: object, source: str = "calibration file") -> Calibration:
        if not isinstance(d, dict):
            raise CalibrationError(f"{source} is not a calibration (expected a JSON object)")
        if "version" not in d:
            raise CalibrationError(f"{source} has no 'version': it was not written by 'tabletop calibrate'")
        if d["version"] != VERSION:
            raise CalibrationError(
                f"{source} is version {d['version']!r}; this program reads version {VERSION}: calibrate again"
            )
        size = _size(d.get("image_size"), "image_size", source)
        if size is None:
            raise CalibrationError(
                f"{source} has no image_size: run 'tabletop calibrate intrinsics' or 'table'"
            )
        card = d.get("card_mm") or {"long": DEFAULT_CARD_MM[0], "short": DEFAULT_CARD_MM[1]}
        try:
            card_mm = (float(card["long"]), float(card["short"]))
        except (KeyError, TypeError, ValueError):
            raise CalibrationError(f"{source}: card_mm must be {{'long': mm, 'short': mm}}") from None
        if not 0 < card_mm[1] <= card_mm[0] < 500:
            raise CalibrationError(
                f"{source}: card size {card_mm} mm is not a card (short edge <= long edge)"
            )
        reach = d.get("reach_mm")
        entered = d.get("reach_source") == "entered"
        cal = cls(
            image_size=size,
            camera_matrix=_matrix(d.get("camera_matrix"), (3, 3), "camera_matrix", source),
            distortion=_vector(d.get("distortion"), "distortion", source),
            image_to_table=_matrix(d.get("image_to_table"), (3, 3), "image_to_table", source),
            table_extent_mm=d.get("table_extent_mm"),
            card_mm=card_mm,
            reach_mm=float(reach) if (entered and reach is not None) else None,
            corner_sigma_mm=_number(d.get("corner_sigma_mm"), "corner_sigma_mm", source),
            corner_sigma_px=_number(d.get("corner_sigma_px"), "corner_sigma_px", source)
            or DEFAULT_CORNER_SIGMA_PX,
            projector_size=_size(d.get("projector_size"), "projector_size", source),
            table_to_projector=_matrix(d.get("table_to_projector"), (3, 3), "table_to_projector", source),
            steps=d.get("steps") or {},
            error_map=_error_map(d.get("error_map"), source),
        )
        if (cal.camera_matrix is None) != (cal.distortion is None):
            raise CalibrationError(
                f"{source}: camera_matrix and distortion must both be present or both null"
            )
        if (cal.projector_size is None) != (cal.table_to_projector is None):
            raise CalibrationError(
                f"{source}: projector_size and table_to_projector must both be present or both null"
            )
        if not isinstance(cal.steps, dict):
            raise CalibrationError(f"{source}: 'steps' must be an object")
        return cal

    def save(self, path: str | Path) -> None:
        path = Path(path)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(self.to_json(), indent=2) + "\n")
        tmp.replace(path)  # never leave a half-written calibration behind

    def summary(self) -> list[str]:
        """Human-readable lines: what each step found and how good it is."""
        w, h = self.image_size
        lines = [f"images: {w}x{h}"]
        s = self.steps
        if self.has_lens:
            i = s.get("intrinsics", {})
            lines.append(
                f"lens: focal {self.camera_matrix[0, 0]:.1f} px, reprojection {i.get('rms_px', float('nan')):.3f} px RMS"
                f" over {i.get('views_used', '?')} views ({i.get('date', 'date unknown')})"
            )
            if "views_good" in i:  # files from before issue 25.3 lack the grade
                lines.append(
                    f"lens views: cover {i['coverage_share'] * 100:.0f} % of the image; "
                    + ("good" if i.get("views_good") else f"not good yet: {i.get('views_todo', '')}")
                )
        else:
            lines.append(
                "lens: not calibrated (run 'tabletop calibrate intrinsics'; pixels are used as they are)"
            )
        if self.has_table:
            t = s.get("table", {})
            e = self.table_extent_mm or {}
            lines.append(
                f"table: held-out corner error {t.get('holdout_rms_mm', float('nan')):.2f} mm RMS"
                f" (max {t.get('holdout_max_mm', float('nan')):.2f} mm); sees x {_span(e, 0)} mm, y {_span(e, 1)} mm"
                f" ({t.get('date', 'date unknown')})"
            )
            if self.error_map is not None:
                em = self.error_map
                lines.append(
                    f"table error map: expected {em.rms_mm:.2f} mm RMS, {em.max_mm:.2f} mm at worst over the"
                    f" table the camera sees ({t.get('placements', 1)} placement(s) of the board)"
                )
        else:
            lines.append("table: not calibrated (run 'tabletop calibrate table')")
        c = s.get("card_size", {})
        lines.append(
            f"cards: {self.card_mm[0]:.1f} x {self.card_mm[1]:.1f} mm ({c.get('source', 'default poker size')});"
            f" reach {self.effective_reach_mm:.1f} mm" + (" (entered)" if self.reach_mm is not None else "")
        )
        if self.corner_sigma_mm is not None:
            lines.append(f"corner sigma: {self.corner_sigma_mm:.2f} mm (from {self.corner_sigma_px:.2f} px)")
        if self.has_projector:
            p = s.get("projector", {})
            pw, ph = self.projector_size  # type: ignore[misc]
            line = f"projector: {pw}x{ph}, fit {p.get('rms_px', float('nan')):.2f} px RMS over {p.get('corners', '?')} corners"
            if "check_rms_mm" in p:
                line += f"; crosses land within {p['check_rms_mm']:.2f} mm RMS (max {p['check_max_mm']:.2f})"
            lines.append(line)
        else:
            lines.append("projector: none")
        return lines


def _error_map(v: object, source: str) -> ErrorMap | None:
    if v is None:
        return None
    try:
        return ErrorMap.from_json(v)  # type: ignore[arg-type]
    except (KeyError, IndexError, TypeError, ValueError):
        raise CalibrationError(
            f"{source}: error_map is damaged: run 'tabletop calibrate table' again"
        ) from None


def _span(extent: dict, axis: int) -> str:
    try:
        return f"{extent['min'][axis]:.0f}..{extent['max'][axis]:.0f}"
    except (KeyError, IndexError, TypeError):
        return "?"


def _matrix(v: object, shape: tuple[int, int], name: str, source: str) -> np.ndarray | None:
    if v is None:
        return None
    try:
        a = np.asarray(v, dtype=float)
    except (TypeError, ValueError):
        raise CalibrationError(
            f"{source}: {name} must be a {shape[0]} x {shape[1]} matrix of numbers"
        ) from None
    if a.shape != shape or not np.all(np.isfinite(a)):
        raise CalibrationError(f"{source}: {name} must be a {shape[0]} x {shape[1]} matrix of finite numbers")
    if abs(np.linalg.det(a)) < 1e-12:
        raise CalibrationError(f"{source}: {name} is singular (the step that wrote it failed): run it again")
    return a


def _vector(v: object, name: str, source: str) -> np.ndarray | None:
    if v is None:
        return None
    try:
        a = np.asarray(v, dtype=float).ravel()
    except (TypeError, ValueError):
        raise CalibrationError(f"{source}: {name} must be a list of numbers") from None
    if len(a) not in (4, 5, 8, 12, 14) or not np.all(np.isfinite(a)):
        raise CalibrationError(f"{source}: {name} must hold 4, 5, 8, 12 or 14 finite OpenCV coefficients")
    return a


def _number(v: object, name: str, source: str) -> float | None:
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < 0:
        raise CalibrationError(f"{source}: {name} must be a non-negative number")
    return float(v)


def _size(v: object, name: str, source: str) -> tuple[int, int] | None:
    if v is None:
        return None
    if (
        not isinstance(v, (list, tuple))
        or len(v) != 2
        or not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in v)
    ):
        raise CalibrationError(f"{source}: {name} must be [width, height] in whole pixels")
    return int(v[0]), int(v[1])


def load_calibration(
    path: str | Path,
    require: tuple[str, ...] = ("table",),
    image_size: tuple[int, int] | None = None,
    allow_stale: bool | tuple[str, ...] = False,
) -> Calibration:
    """Read and validate a calibration file.

    `require` names the steps the caller needs ("intrinsics", "table", "projector"); a missing one
    raises `CalibrationError` naming the command that makes it. `image_size` (w, h) of the camera
    now is checked against the file's. A stale step raises unless `allow_stale` is True or names
    it (a step about to be re-run may be stale).
    """
    path = Path(path)
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise CalibrationError(f"calibration file {path} not found: run 'tabletop calibrate' first") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"calibration file {path} cannot be read ({exc})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(
            f"calibration file {path} is corrupt (not JSON: {exc.msg} at line {exc.lineno}): calibrate again"
        ) from None
    cal = Calibration.from_json(data, source=f"calibration file {path}")
    present = {"intrinsics": cal.has_lens, "table": cal.has_table, "projector": cal.has_projector}
    for step in require:
        if not present.get(step, True):
            raise CalibrationError(
                f"calibration file {path} has no {step} step yet: run '{STEP_COMMANDS[step]}'"
            )
    if image_size is not None:
        cal.check_image_size(image_size)
    if allow_stale is not True:
        stale = {k: v for k, v in cal.stale_steps().items() if k not in (allow_stale or ())}
        if stale:
            raise CalibrationError(f"calibration file {path}: {next(iter(stale.values()))}")
    return cal
