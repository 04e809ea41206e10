"""Synthetic camera frames of a game table with exact ground truth (tests, samples, benchmarks).

Never imported by a detector: the detector must not see how its input was made.

    cam = Camera.for_resolution("1080p", distortion=(-0.06, 0.02, 0, 0, 0),
                                pose=CameraPose(height_mm=1100, tilt_deg=33, target_mm=(600, 320)))
    renderer = Renderer(cam, PRESETS["green_felt"], Table())
    frame = renderer.render(random_scene(seed=1), seed=1)   # frame.image, frame.truth, frame.jpeg
"""

from vision.card_art import (
    CARD_NAMES,
    SPACE_CARDS,
    STARTING_CARDS,
    TROPHY,
    all_faces,
    back_image,
    card_mask,
    face_image,
)
from vision.synthetic.camera import RESOLUTIONS, Camera, CameraPose
from vision.synthetic.charuco import BoardSpec, board_corners_mm, board_sheet
from vision.synthetic.conditions import PRESETS, SURFACES, Conditions, random_conditions
from vision.synthetic.game import ScriptedGame, ScriptError, sample_game
from vision.synthetic.layouts import random_layout, random_scene, side_by_side_pairs
from vision.synthetic.render import Frame, Renderer
from vision.synthetic.scene import (
    CARD_SIZE_MM,
    PAWN_COLORS,
    Card,
    Hand,
    HeldCard,
    Pawn,
    Projection,
    Scene,
    Sheet,
    Table,
)

__all__ = [
    "CARD_NAMES",
    "CARD_SIZE_MM",
    "PAWN_COLORS",
    "PRESETS",
    "RESOLUTIONS",
    "SPACE_CARDS",
    "STARTING_CARDS",
    "SURFACES",
    "TROPHY",
    "BoardSpec",
    "Camera",
    "CameraPose",
    "Card",
    "Conditions",
    "Frame",
    "Hand",
    "HeldCard",
    "Pawn",
    "Projection",
    "Renderer",
    "Scene",
    "ScriptError",
    "ScriptedGame",
    "Sheet",
    "Table",
    "all_faces",
    "back_image",
    "board_corners_mm",
    "board_sheet",
    "card_mask",
    "face_image",
    "random_conditions",
    "random_layout",
    "random_scene",
    "sample_game",
    "side_by_side_pairs",
]
