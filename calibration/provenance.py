"""Where each number a referee decision rests on came from, and how wrong it may be.

A jump's verdict rests on table millimetres (the lens and the table mapping), the print scale of
the board they were measured with, the reach (the card size) and the corner sigma that decides
"too close to call". For each, `provenance(cal)` says how it was measured and its error, from
what the steps recorded; the calibration file keeps the result and `tabletop calibrate show`
prints it. Reads a Calibration without importing it (calibration.file imports this module).
"""

from __future__ import annotations

import math
from typing import Any


def _lens(cal: Any) -> dict | None:
    if not cal.has_lens:
        return None
    step = cal.steps.get("intrinsics", {})
    names, cov = step.get("covariance_params") or [], step.get("covariance")
    error = "unknown: calibrated before the lens recorded its covariance; run 'tabletop calibrate intrinsics' again"
    if cov and names:
        sd = {n: math.sqrt(max(cov[i][i], 0.0)) for i, n in enumerate(names)}
        error = f"focal +/- {sd.get('fx', float('nan')):.2f} px, k1 +/- {sd.get('k1', float('nan')):.4f} (1 sigma)"
    return {
        "value": f"focal {cal.camera_matrix[0, 0]:.1f} px, k1 {cal.distortion[0]:.4f}",
        "how": f"ChArUco corners in {step.get('views_used', '?')} views, fitted with OpenCV"
        f" ({step.get('rms_px', float('nan')):.3f} px RMS)",
        "error": error,
    }


def _table(cal: Any) -> dict | None:
    if not cal.has_table:
        return None
    step = cal.steps.get("table", {})
    placements = step.get("placements", 1)
    how = (
        f"the camera's pose over the table fitted to {step.get('corners', '?')} board corners in"
        f" {placements} placement{'s' if placements != 1 else ''}, through the lens"
        if cal.has_lens
        else f"a homography from {step.get('corners', '?')} board corners in one placement, no lens"
    )
    em = cal.error_map
    if em is not None:
        h = em.how
        x, y = em.worst_mm()
        error = (
            f"expected {em.rms_mm:.2f} mm RMS, {em.max_mm:.2f} mm at worst (near {x:.0f}, {y:.0f})"
            f" over the table the camera sees; lens part {_mm(h.get('lens_part_rms_mm'))}, pose part"
            f" {_mm(h.get('pose_part_rms_mm'))}"
        )
        if h.get("disagreement_rms_mm") is not None:
            error += (
                f"; the placements disagree by {h['disagreement_rms_mm']:.2f} mm RMS"
                f" (model {h['disagreement_expected_rms_mm']:.2f}), map scaled x{h.get('inflation', 1.0):.2f}"
            )
    else:
        error = (
            f"held-out board corners {step.get('holdout_rms_mm', float('nan')):.2f} mm RMS - near the board"
            " only; no error map over the table (run 'tabletop calibrate table' again"
            + (")" if cal.has_lens else " after 'tabletop calibrate intrinsics')")
        )
    return {"value": "pixels -> table mm", "how": how, "error": error}


def _mm(v: float | None) -> str:
    return "not known" if v is None else f"{v:.2f} mm RMS"


def _scale(cal: Any) -> dict | None:
    if not cal.has_table:
        return None
    step = cal.steps.get("table", {})
    return {
        "value": f"board squares {step.get('board_square_mm', float('nan')):g} mm",
        "how": step.get("scale_check", "not recorded (calibrated before the check was recorded)"),
        "error": "within 1 % (what the check lets through: 0.6 mm on a 63 mm reach)",
    }


def _reach(cal: Any) -> dict:
    step = cal.steps.get("card_size", {})
    source = step.get("source", "default poker size")
    value = f"reach {cal.effective_reach_mm:.1f} mm" + (
        " (entered)"
        if cal.reach_mm is not None
        else f" (short edge of {cal.card_mm[1]:.1f} x {cal.card_mm[0]:.1f} mm cards)"
    )
    if source == "measured":
        n = max(int(step.get("cards", 1)), 1)
        spread = float(step.get("spread_mm", float("nan")))
        return {
            "value": value,
            "how": f"median of {n} cards seen through the table mapping ({step.get('rejected', 0)} left out)",
            "error": f"spread {spread:.2f} mm between cards; the median to about {spread / math.sqrt(n):.2f} mm",
        }
    return {"value": value, "how": source, "error": "exact by definition (not measured)"}


def _sigma(cal: Any) -> dict | None:
    if not cal.has_table:
        return None
    mapping = (
        "the error map at the corner's place on the table"
        if cal.error_map is not None
        else ("the table step's held-out error")
    )
    typical = "" if cal.corner_sigma_mm is None else f"about {cal.corner_sigma_mm:.2f} mm"
    return {
        "value": typical or "per corner",
        "how": f"the detector's corner error ({cal.corner_sigma_px:.2f} px,"
        f" {cal.steps.get('table', {}).get('corner_sigma_px_source', 'the default for a card detector')})"
        f" times the mm a pixel spans there, combined with {mapping}",
        "error": "it is the error: a jump within 3 sigma of reach is too close to call",
    }


def _projector(cal: Any) -> dict | None:
    if not cal.has_projector:
        return None
    step = cal.steps.get("projector", {})
    error = f"fit {step.get('rms_px', float('nan')):.2f} projector px RMS"
    if "check_rms_mm" in step:
        error += f"; crosses land within {step['check_rms_mm']:.2f} mm RMS (max {step['check_max_mm']:.2f})"
    return {
        "value": "table mm -> projector pixels",
        "how": "projected marker pattern seen by the camera",
        "error": error,
    }


def provenance(cal: Any) -> dict[str, dict]:
    """{number: {"value", "how", "error"}} for every number the referee's decisions rest on."""
    parts = {
        "lens": _lens(cal),
        "table_mapping": _table(cal),
        "print_scale": _scale(cal),
        "reach": _reach(cal),
        "corner_sigma": _sigma(cal),
        "projector": _projector(cal),
    }
    return {k: v for k, v in parts.items() if v is not None}


def provenance_lines(cal: Any) -> list[str]:
    out = []
    for name, p in provenance(cal).items():
        out.append(f"{name.replace('_', ' ')}: {p['value']}")
        out.append(f"    measured: {p['how']}")
        out.append(f"    error: {p['error']}")
    return out
