"""A ChArUco calibration board printed on paper, as a sheet that can lie on the table."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import cv2
import numpy as np

from vision.synthetic.scene import Sheet


@dataclass(frozen=True)
class BoardSpec:
    """What `cv2.aruco.CharucoBoard((squares_x, squares_y), square_mm, marker_mm, dictionary)`
    needs, plus the paper it is printed on (the board centred on it)."""

    squares_x: int = 7
    squares_y: int = 5
    square_mm: float = 38.0
    marker_mm: float = 28.0
    dictionary: str = "DICT_5X5_100"
    paper_mm: tuple[float, float] = (297.0, 210.0)  # A4 landscape

    def board(self) -> cv2.aruco.CharucoBoard:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))
        return cv2.aruco.CharucoBoard((self.squares_x, self.squares_y), self.square_mm, self.marker_mm, d)

    def to_json(self) -> dict:
        return {
            **asdict(self),
            "paper_mm": list(self.paper_mm),
            "opencv": "cv2.aruco.CharucoBoard((squares_x, squares_y), square_mm, marker_mm, getPredefinedDictionary(dictionary))",
        }


def board_sheet(
    spec: BoardSpec, center_mm: tuple[float, float], angle_deg: float = 0.0, px_per_mm: float = 6.0
) -> Sheet:
    """The printed page as a Sheet: white paper with the board in its middle. The board's own
    top-left chessboard corner is the sheet's top-left (art top-left) side."""
    bw, bh = spec.squares_x * spec.square_mm, spec.squares_y * spec.square_mm
    pw, ph = spec.paper_mm
    if bw > pw or bh > ph:
        raise ValueError("the board does not fit on its paper")
    img = spec.board().generateImage(
        (int(round(bw * px_per_mm)), int(round(bh * px_per_mm))), marginSize=0, borderBits=1
    )
    page = np.full((int(round(ph * px_per_mm)), int(round(pw * px_per_mm))), 250, np.uint8)
    y0 = (page.shape[0] - img.shape[0]) // 2
    x0 = (page.shape[1] - img.shape[1]) // 2
    page[y0 : y0 + img.shape[0], x0 : x0 + img.shape[1]] = img
    return Sheet(cv2.cvtColor(page, cv2.COLOR_GRAY2BGR), center_mm, (pw, ph), angle_deg, "charuco")


def board_corners_mm(spec: BoardSpec, sheet: Sheet) -> np.ndarray:
    """Table mm of the board's inner chessboard corners, in OpenCV's ChArUco corner id order."""
    bw, bh = spec.squares_x * spec.square_mm, spec.squares_y * spec.square_mm
    pts = []
    for j in range(1, spec.squares_y):
        for i in range(1, spec.squares_x):
            # Board coordinates: x right, y down the printed image; sheet local: y up.
            pts.append((-bw / 2 + i * spec.square_mm, bh / 2 - j * spec.square_mm))
    a = np.radians(sheet.angle_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    return np.array(pts) @ rot.T + np.asarray(sheet.center_mm)
