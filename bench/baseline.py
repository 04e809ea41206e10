"""The usual public approach to finding cards, which every vision benchmark scores beside the
detector in the same run, and the overlap of two outlines that the benchmarks match cards by."""

from __future__ import annotations

import cv2
import numpy as np
import shapely

from vision.detector import order_corners


def baseline_detect(image: np.ndarray, min_area: float) -> list[np.ndarray]:
    """What most public card detectors do: grey, Otsu, external contours, 4-vertex polygons,
    corners from the minimum-area rectangle."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey, (5, 5), 0)
    _, th = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(th, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = []
    for c in contours:
        if cv2.contourArea(c) < min_area:
            continue
        approx = cv2.approxPolyDP(c, 0.02 * cv2.arcLength(c, True), True)
        if len(approx) != 4:
            continue
        out.append(order_corners(cv2.boxPoints(cv2.minAreaRect(c)).astype(np.float64)))
    return out


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    pa, pb = shapely.Polygon(a), shapely.Polygon(b)
    if not (pa.is_valid and pb.is_valid):
        return 0.0
    inter = pa.intersection(pb).area
    return inter / (pa.area + pb.area - inter + 1e-9)
