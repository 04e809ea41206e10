"""Calibration: camera intrinsics, the table plane (pixels -> table mm), card size, the
projector (table mm -> projector pixels), printable targets, and the calibration file.

Imports nothing of ours. Later layers call `load_calibration(path)` and the `Calibration`
methods: `pixels_to_table_mm`, `table_mm_to_pixels`, `table_mm_to_projector_px`,
`corner_sigma_mm_at`, `mapping_sigma_mm_at_table` (the calibration's own error where a point lies
on the table, from its `error_map`), `reach` via `effective_reach_mm`.
"""

from calibration.board import BoardSpec, BoardView, detect_board
from calibration.cards import CardSize, card_scale_warning, cards_from_detect_json, measure_card_size
from calibration.errormap import ErrorMap, error_map_image
from calibration.errors import CalibrationError
from calibration.file import Calibration, load_calibration
from calibration.intrinsics import IntrinsicsResult, calibrate_intrinsics
from calibration.projector import (
    CrossCheck,
    ProjectorFit,
    ProjectorPattern,
    crosses_image,
    default_cross_points,
    fit_projector,
    measure_crosses,
)
from calibration.table import (
    BoardPlacement,
    TableFit,
    check_measured_scale,
    check_page_scale,
    fit_table,
    map_table,
)

__all__ = [
    "BoardPlacement",
    "BoardSpec",
    "BoardView",
    "Calibration",
    "CalibrationError",
    "CardSize",
    "CrossCheck",
    "ErrorMap",
    "IntrinsicsResult",
    "ProjectorFit",
    "ProjectorPattern",
    "TableFit",
    "calibrate_intrinsics",
    "card_scale_warning",
    "cards_from_detect_json",
    "check_measured_scale",
    "check_page_scale",
    "crosses_image",
    "default_cross_points",
    "detect_board",
    "error_map_image",
    "fit_projector",
    "fit_table",
    "load_calibration",
    "map_table",
    "measure_card_size",
    "measure_crosses",
]
