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
        if n_markers == 0:
            raise CalibrationError(
                f"no calibration board found in the image (expected {spec.dictionary} markers, "
                f"{spec.squares[0]} x {spec.squares[1]} squares): is the whole printed board in view and lit?"
            )
        raise CalibrationError(
            f"only {found} board corners found ({min_corners} needed): show more of the board, closer or less tilted"
        )
    ids = ids.ravel().astype(int)
    corners = corners.reshape(-1, 2).astype(float)
    if board.checkCharucoCornersCollinear(ids.reshape(-1, 1)):
        raise CalibrationError("the board corners found all lie on one line: show more of the board")
    h, w = gray.shape[:2]
    return BoardView((w, h), ids, corners, spec.corners_mm()[ids], n_markers)
