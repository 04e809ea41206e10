"""The one error type of the calibration layer."""

from __future__ import annotations


class CalibrationError(ValueError):
    """Calibration input is missing, wrong or stale; the message says what to do in a player's words."""
