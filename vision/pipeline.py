"""One frame in, everything found out: cards (corners, face, identity) and pawns."""

from __future__ import annotations

import math
import time
from pathlib import Path

import cv2
import numpy as np

from vision.cardcheck import CardCheck
from vision.detector import DetectorSettings
from vision.faces import FaceLibrary, upright_corners
from vision.map_detector import MapCardDetector
from vision.observation import CardSeen, FrameReading, PawnSeen
from vision.pawns import PawnColors, camera_nadir_px, find_pawns
from vision.projected import without_light
from vision.table import TableMap


class FrameReader:
    """Reads frames: `read(image) -> FrameReading`. Holds the detector, face library and pawn colours."""

    def __init__(
        self,
        table: TableMap | None = None,
        faces: FaceLibrary | None = None,
        pawn_colors: PawnColors | None = None,
        settings: DetectorSettings | None = None,
        find_faces: bool = True,
    ) -> None:
        self.detector = card_detector(settings, table)
        self.table = table
        self.faces = faces if faces is not None else (FaceLibrary.default() if find_faces else None)
        self.pawn_colors = pawn_colors or PawnColors()
        self._nadir: dict[tuple[int, int], tuple[float, float] | None] = {}

    @property
    def model(self) -> dict:
        """The weights behind detection (file and version), so a result can be traced to them."""
        return self.detector.model

    def read(self, image: np.ndarray, lit: np.ndarray | None = None) -> FrameReading:
        """Cards and pawns in `image`. `lit`: where the referee's projector lights the frame
        (`vision.projected.projected_light`); that light is painted out before anything is read."""
        check_image(image)
        return self.read_checked(image, lit)

    def nadir_px(self, width: int, height: int) -> tuple[float, float] | None:
        """The point of a whole frame straight below the camera (pawns lean away from it)."""
        if self.table is None:
            return None
        key = (width, height)
        if key not in self._nadir:
            self._nadir[key] = camera_nadir_px(self.table.to_mm, width, height)
        return self._nadir[key]

    def read_checked(self, image: np.ndarray, lit: np.ndarray | None = None) -> FrameReading:
        """`read` for a frame known to be a usable picture."""
        t0 = time.perf_counter()
        image = without_light(image, lit)
        nadir_px = self.nadir_px(image.shape[1], image.shape[0])
        found = self.detector.detect(image)
        cards: list[CardSeen] = []
        arts = []
        for c in found:
            face, name, art, face_distance = "unknown", None, None, math.inf
            if self.faces is not None:
                r = self.faces.read(image, c.corners_px)
                face, name, face_distance = r.face, r.name, r.face_distance
                art = self.faces.faces.get(name) if name else (self.faces.back if face == "down" else None)
            # Printed colour is not a pawn: the card's art, the right way up, says what is print.
            arts.append(None if art is None else (upright_corners(c.corners_px, r.upside_down), art))
            cards.append(
                CardSeen(
                    corners_px=_tup(c.corners_px),
                    sigma_px=tuple(float(s) for s in c.sigma_px),
                    face=face,
                    name=name,
                    score=c.score,
                    corners_mm=None if c.corners_mm is None else _tup(c.corners_mm),
                    sigma_mm=None if c.sigma_mm is None else tuple(float(s) for s in c.sigma_mm),
                    face_distance=face_distance,
                )
            )
        sightings = find_pawns(
            image, [c.corners_px for c in found], self.pawn_colors, arts=arts, nadir_px=nadir_px
        )
        pawns = []
        for p in sightings:
            mm = None
            if self.table is not None:
                x, y = self.table.to_mm(np.array([p.center_px]))[0]
                mm = (float(x), float(y))
            pawns.append(PawnSeen(p.color, p.center_px, mm, p.card_index))
        h, w = image.shape[:2]
        return FrameReading(w, h, (time.perf_counter() - t0) * 1e3, tuple(cards), tuple(pawns))


def card_detector(
    settings: DetectorSettings | None = None, table: TableMap | None = None, check: Path | None = None
) -> MapCardDetector:
    """The card detector: the learned card map (`vision.map_detector`), its cards placed at their
    size with a calibration. `check`: the weights of a card check (`vision.cardcheck`) the map's
    cards pass (none is shipped yet)."""
    return MapCardDetector(settings, table, card_check=CardCheck(check) if check is not None else None)


def check_image(image: object) -> None:
    """Raise ValueError (a player's words) unless `image` is a usable camera picture."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError("the image is empty or not a picture")
    if image.shape[0] < 32 or image.shape[1] < 32:
        raise ValueError(
            f"the image is only {image.shape[1]}x{image.shape[0]} pixels; use a camera picture of the table"
        )
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    # The range first: it is cheap, and a real picture's is wide, so the resize (~4 ms a 1080p
    # frame) is hardly ever needed.
    if int(grey.max()) - int(grey.min()) < 8 and (
        float(cv2.resize(grey, (64, 64), interpolation=cv2.INTER_AREA).std()) < 1.0
    ):
        raise ValueError(
            "the image is one flat colour (lens covered, camera not ready?); nothing can be seen in it"
        )


def _tup(a: np.ndarray) -> tuple[tuple[float, float], ...]:
    return tuple((float(x), float(y)) for x, y in np.asarray(a).reshape(-1, 2))
