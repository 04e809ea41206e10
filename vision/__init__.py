"""vision layer (docs/architecture.md): frames in, cards and pawns out, tracked into Observations.

reader = FrameReader(table=TableMap.load("calibration.json"))   # or TableMap.from_homography(H)
tracker = Tracker()
for index, time_s, image in open_source("0"):                  # webcam 0, a video, a folder
    observation = tracker.update(reader.read(image), image, index, time_s)

A live camera at frame rate: `stream = IncrementalReader(reader)`; `stream.read(image, time_s)`
reads a frame again only after the table changed and came to rest (`stream.looked_again`; pass
`stream.image() if stream.looked_again else None` to the tracker). Under the referee's own
projector, pass where it lights (`vision.projected.projected_light`) as `read(image, lit)`: that
light is painted out of the frame before anything is read.
"""

from vision.detector import DetectorSettings
from vision.faces import FaceLibrary
from vision.incremental import IncrementalReader
from vision.map_detector import MapCardDetector
from vision.observation import (
    CardSeen,
    FrameReading,
    Observation,
    PawnSeen,
    TrackedCard,
    TrackedPawn,
    VisionEvent,
)
from vision.pawns import PawnColors
from vision.pipeline import FrameReader
from vision.sources import CameraSource, FolderSource, SourceError, VideoSource, open_source
from vision.table import TableMap
from vision.tracker import Tracker, TrackerSettings

__all__ = [
    "CameraSource",
    "CardSeen",
    "DetectorSettings",
    "FaceLibrary",
    "FolderSource",
    "FrameReader",
    "FrameReading",
    "IncrementalReader",
    "MapCardDetector",
    "Observation",
    "PawnColors",
    "PawnSeen",
    "SourceError",
    "TableMap",
    "TrackedCard",
    "TrackedPawn",
    "Tracker",
    "TrackerSettings",
    "VideoSource",
    "VisionEvent",
    "open_source",
]
