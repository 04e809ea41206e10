"""The ChArUco board: its spec (stored next to every printed target) and finding it in a photo.

The board has an odd number of rows, so OpenCV's legacy and current ChArUco layouts are the same
picture (they differ only for even row counts, see `CharucoBoard.setLegacyPattern`): a board
printed by any OpenCV version is detected the same way by every other.

Board frame (OpenCV's object points): millimetres, origin at the top-left outer corner of the
chessboard as printed (the page's top), x to the right, y down the page.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from calibration.errors import CalibrationError

PAPERS_MM = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}


@dataclass(frozen=True)
class BoardSpec:
    """Everything detection needs to know about a printed board; saved as JSON beside the target."""

    squares: tuple[int, int] = (7, 9)  # columns, rows (rows odd: see module docstring)
    square_mm: float = 25.0
    marker_mm: float = 18.0
    dictionary: str = "DICT_5X5_100"
    paper: str | None = None  # "a4" / "letter" when printed on a page by `targets`
    paper_mm: tuple[float, float] | None = None
    board_offset_mm: tuple[float, float] | None = None  # chessboard's top-left corner on the page
    ruler_mm: float = 100.0
    kind: str = field(default="charuco")

    def __post_init__(self) -> None:
        cols, rows = self.squares
        if cols < 3 or rows < 3:
            raise CalibrationError(f"a board needs at least 3 x 3 squares, this spec has {cols} x {rows}")
        if rows % 2 == 0:
            raise CalibrationError(
                f"board rows must be odd ({rows} given): even row counts print differently in old and new OpenCV"
            )
        if not 0 < self.marker_mm < self.square_mm:
            raise CalibrationError("a board's marker must be smaller than its square")
        if not hasattr(cv2.aruco, self.dictionary) or not self.dictionary.startswith("DICT_"):
            raise CalibrationError(f"unknown ArUco dictionary {self.dictionary!r} in the board spec")
        n_markers = cols * rows // 2
        if n_markers > int(self.dictionary.rsplit("_", 1)[1]):
            raise CalibrationError(f"{self.dictionary} has too few markers for a {cols} x {rows} board")

    @property
    def paper_name(self) -> str:
        """'a4' / 'letter', or the sheet's size when the spec gives only that."""
        if self.paper:
            return self.paper
        return "{:g} x {:g} mm".format(*self.paper_mm) if self.paper_mm else "unknown"

    @property
    def size_mm(self) -> tuple[float, float]:
        return self.squares[0] * self.square_mm, self.squares[1] * self.square_mm

    def scaled(self, factor: float) -> BoardSpec:
        """The same board printed at `factor` of its size (the page itself keeps its size)."""
        return replace(self, square_mm=self.square_mm * factor, marker_mm=self.marker_mm * factor)

    def cv_board(self) -> cv2.aruco.CharucoBoard:
        dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard(self.squares, self.square_mm, self.marker_mm, dictionary)

    def corners_mm(self) -> np.ndarray:
        """Board-frame mm (N x 2) of every inner chessboard corner, indexed by ChArUco corner id."""
        return np.asarray(self.cv_board().getChessboardCorners(), dtype=float)[:, :2]

    def to_json(self) -> dict:
        d = asdict(self)
        return {k: (list(v) if isinstance(v, tuple) else v) for k, v in d.items()}

    @classmethod
    def from_json(cls, d: dict) -> BoardSpec:
        """Read the spec `calibrate targets` writes, or one in OpenCV's own names (`squares_x`,
        `squares_y`, as `sample_images/charuco/board.json` and `cv2.aruco.CharucoBoard` use)."""
        if not isinstance(d, dict) or d.get("kind", "charuco") != "charuco":
            raise CalibrationError(
                "not a ChArUco board spec (expected the JSON written by 'calibrate targets')"
            )
        try:
            squares = (
                d["squares"] if "squares" in d or "squares_x" not in d else (d["squares_x"], d["squares_y"])
            )
            return cls(
                squares=(int(squares[0]), int(squares[1])),
                square_mm=float(d["square_mm"]),
                marker_mm=float(d["marker_mm"]),
                dictionary=str(d["dictionary"]),
                paper=d.get("paper"),
                paper_mm=tuple(d["paper_mm"]) if d.get("paper_mm") else None,  # type: ignore[arg-type]
                board_offset_mm=tuple(d["board_offset_mm"]) if d.get("board_offset_mm") else None,  # type: ignore[arg-type]
                ruler_mm=float(d.get("ruler_mm", 100.0)),
            )
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise CalibrationError(f"board spec is missing or has a bad field ({exc})") from None

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=2) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> BoardSpec:
        try:
            data = json.loads(Path(path).read_text())
        except FileNotFoundError:
            raise CalibrationError(f"board spec {path} not found") from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise CalibrationError(f"board spec {path} is not readable JSON ({exc})") from None
        return cls.from_json(data)


@dataclass(frozen=True)
class BoardView:
    """The board as found in one image: ChArUco corners (pixels) with their ids and board mm."""

    image_size: tuple[int, int]
    ids: np.ndarray  # (N,) int
    corners_px: np.ndarray  # (N, 2) pixels of the image as loaded (distorted)
    corners_mm: np.ndarray  # (N, 2) board frame
    markers: int  # ArUco markers decoded

    def __len__(self) -> int:
        return len(self.ids)


MIN_CORNERS = 6
# Blur: the median width (px) of the image's strongest edges, per 1000 px of image width. Measured
# with `python -m bench.calibration --blur` (board views 800, 1280 and 1920 px wide, Gaussian
# blur): sharp renders 1.1-2.8; the board always found up to 4.1; found in some views, missed in
# others from 4.5 to 6.1; never found above. A bare table's soft grain measures 9-17 too, so blur
# is named only where dark squares are seen that no marker can be read in (BLUR_MIN_SQUARES).
BLUR_EDGE_WIDTH = 4.5
BLUR_MIN_SQUARES = 6


def edge_width(gray: np.ndarray) -> float:
    """Median width (px) of the image's strongest edges: contrast across the edge over the
    steepest gradient, about 2.5 sigma of a Gaussian blur (0 when there are no strong edges)."""
    g = gray.astype(np.float32)
    mag = np.hypot(cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)) / 8
    n = max(15, g.shape[1] // 40 | 1)  # wider than any edge blur the board survives
    k = np.ones((n, n), np.uint8)
    contrast = cv2.dilate(g, k) - cv2.erode(g, k)
    # Edges between print and paper, not a table's grain or shading: the board's black on white
    # keeps most of its contrast however blurred.
    strong = (
        (mag >= np.percentile(mag, 99.5)) & (contrast > max(50.0, 0.5 * float(contrast.max()))) & (mag > 0)
    )
    if strong.sum() < 20:
        return 0.0
    return float(np.median(contrast[strong] / mag[strong]))


def _why_not_found(gray: np.ndarray, spec: BoardSpec, found: int, n_markers: int, min_corners: int) -> str:
    """Why the board was not found, in the words of what to do: another board than the spec,
    blur, or the board not (wholly) in view."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    marker_corners, ids, rejected = cv2.aruco.ArucoDetector(dictionary).detectMarkers(gray)
    other = board_in_view(marker_corners, ids, spec)
    if other is not None and other != spec.squares:
        return (
            f"the board in view has {other[0]} x {other[1]} squares but the board spec says "
            f"{spec.squares[0]} x {spec.squares[1]} squares of {spec.square_mm:g} mm: give the spec "
            "of the board you show with --board (a board.json beside the photos is used by itself)"
        )
    width = edge_width(gray)
    # Dark squares the markers cannot be read in: a board is there. A bare table has few, however
    # soft its grain (measured: 0-3 on renders of an empty table, 7-63 on blurred boards).
    if width > BLUR_EDGE_WIDTH * gray.shape[1] / 1000 and len(rejected) >= BLUR_MIN_SQUARES:
        return (
            f"the image is too blurred (motion or focus): its sharpest edges are {width:.1f} px wide; "
            "hold the board and the camera still, in focus, with more light"
        )
    if n_markers == 0:
        return (
            f"no calibration board found in the image (expected {spec.dictionary} markers, "
            f"{spec.squares[0]} x {spec.squares[1]} squares): is the whole printed board in view, lit and sharp?"
        )
    return f"only {found} board corners found ({min_corners} needed): show more of the board, closer or less tilted"


def board_in_view(
    marker_corners: tuple, ids: np.ndarray | None, spec: BoardSpec, largest: int = 15
) -> tuple[int, int] | None:
    """Squares (columns, rows) of the ChArUco board whose markers were found (`detectMarkers`'s
    corners and ids), from the markers alone: their ids and where they lie. None when too few
    are seen to tell. The smallest layout that places every marker where it is seen wins."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, spec.dictionary))
    if ids is None or len(ids) < 6:
        return None
    ids = ids.ravel().astype(int)
    seen = np.array([c.reshape(4, 2).mean(axis=0) for c in marker_corners])
    side = float(
        np.median([np.linalg.norm(np.diff(c.reshape(4, 2), axis=0), axis=1).mean() for c in marker_corners])
    )
    layouts = sorted(
        ((c, r) for c in range(3, largest + 1) for r in range(3, largest + 1) if c * r // 2 > ids.max()),
        key=lambda s: (s != spec.squares, s[0] * s[1]),  # the spec's own layout first
    )
    for squares in layouts:
        board = cv2.aruco.CharucoBoard(squares, 1.0, 0.7, dictionary)
        centres = {
            int(i): np.asarray(p).reshape(4, 3)[:, :2].mean(axis=0)
            for i, p in zip(board.getIds().ravel(), board.getObjPoints())
        }
        obj = np.array([centres[i] for i in ids])
        h, _ = cv2.findHomography(obj, seen, 0)
        if h is None:
            continue
        q = np.column_stack([obj, np.ones(len(obj))]) @ h.T
        if np.abs(q[:, :2] / q[:, 2:] - seen).max() < 0.3 * side:
            return squares
    return None


def detect_board(image: np.ndarray, spec: BoardSpec, min_corners: int = MIN_CORNERS) -> BoardView:
    """Find the ChArUco board; raise `CalibrationError` (in a player's words) when it is not there."""
    if image is None or image.size == 0:
        raise CalibrationError("the image is empty")
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    board = spec.cv_board()
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE  # ChArUco refines its own corners
    charuco_params = cv2.aruco.CharucoParameters()
    charuco_params.tryRefineMarkers = True
    detector = cv2.aruco.CharucoDetector(board, charuco_params, params)
    corners, ids, _marker_corners, marker_ids = detector.detectBoard(gray)
    n_markers = 0 if marker_ids is None else len(marker_ids)
    if ids is None or len(ids) < min_corners:
        found = 0 if ids is None else len(ids)
        raise CalibrationError(_why_not_found(gray, spec, found, n_markers, min_corners))
    ids = ids.ravel().astype(int)
    corners = corners.reshape(-1, 2).astype(float)
    if board.checkCharucoCornersCollinear(ids.reshape(-1, 1)):
        raise CalibrationError("the board corners found all lie on one line: show more of the board")
    h, w = gray.shape[:2]
    return BoardView((w, h), ids, corners, spec.corners_mm()[ids], n_markers)
