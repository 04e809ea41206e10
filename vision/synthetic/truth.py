"""Ground truth of a rendered frame, as a JSON-ready dict (format version 1).

Per card: id, name, face, corners in mm and in pixels (sharp corners, clockwise from the
top-left in the image, the same order for both), and the fraction of the card the camera sees
(inside the frame and not hidden by a hand, a pawn or a held card). Per pawn: centre (mm, px),
colour and the card it stands on. Plus the true camera.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.synthetic.camera import Camera
from vision.synthetic.scene import Card, Pawn, Scene

TRUTH_VERSION = 1


def order_clockwise_from_top_left(px: np.ndarray) -> np.ndarray:
    """Indices that put 4 image points clockwise (as seen on screen, v down) starting at the
    top-left one: the corner with the smallest u + v (ties: the smaller v)."""
    c = px.mean(axis=0)
    ang = np.arctan2(px[:, 1] - c[1], px[:, 0] - c[0])
    cw = np.argsort(ang, kind="stable")  # increasing angle = clockwise on screen (v points down)
    key = [(round(float(px[i, 0] + px[i, 1]), 9), float(px[i, 1])) for i in cw]
    start = min(range(4), key=lambda k: key[k])
    return np.roll(cw, -start)


def _outline_px(cam: Camera, corners_mm: np.ndarray, per_edge: int = 8) -> np.ndarray:
    """The card's outline as the (distorted) camera sees it: points along every edge."""
    pts = []
    for i in range(4):
        a, b = corners_mm[i], corners_mm[(i + 1) % 4]
        for t in np.linspace(0, 1, per_edge, endpoint=False):
            pts.append(a + (b - a) * t)
    return cam.project(np.array(pts))


def visible_fraction(
    cam: Camera, outline_px: np.ndarray, labels: np.ndarray, hidden_by_labels: bool = True
) -> float:
    """Share of the polygon's pixels that are inside the image and not covered (labels == 0)."""
    lo = np.floor(outline_px.min(axis=0)).astype(int) - 1
    hi = np.ceil(outline_px.max(axis=0)).astype(int) + 2
    w, h = int(hi[0] - lo[0]), int(hi[1] - lo[1])
    if w <= 0 or h <= 0 or w * h > 4 * cam.width * cam.height:
        return 0.0
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round((outline_px - lo) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4)
    total = int(mask.sum())
    if total == 0:
        return 0.0
    x0, y0 = max(lo[0], 0), max(lo[1], 0)
    x1, y1 = min(hi[0], cam.width), min(hi[1], cam.height)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inner = mask[y0 - lo[1] : y1 - lo[1], x0 - lo[0] : x1 - lo[0]].astype(bool)
    free = labels[y0:y1, x0:x1] == 0 if hidden_by_labels else np.ones_like(inner)
    return float(np.count_nonzero(inner & free)) / total


def card_truth(card: Card, cam: Camera, labels: np.ndarray) -> dict:
    mm = card.corners_mm()
    px = cam.project(mm)
    order = order_clockwise_from_top_left(px)
    return {
        "id": card.id,
        "name": card.name,
        "face": "up" if card.face_up else "down",
        "corners_mm": np.round(mm[order], 6).tolist(),
        "corners_px": np.round(px[order], 6).tolist(),
        "center_mm": [round(float(v), 6) for v in card.center_mm],
        "angle_deg": card.angle_deg,
        "size_mm": list(card.size_mm),
        "visible_fraction": round(visible_fraction(cam, _outline_px(cam, mm), labels), 4),
    }


def pawn_truth(pawn: Pawn, cam: Camera, labels: np.ndarray, own_label: int | None) -> dict:
    centre = np.array([[*pawn.center_mm, pawn.height_mm]])
    px = cam.project(centre)[0]
    if own_label is not None:
        own = labels == own_label
        visible = bool(own.any())
    else:
        visible = False
    return {
        "player": pawn.player,
        "color": pawn.color,
        "style": pawn.style,
        "center_mm": [round(float(v), 6) for v in pawn.center_mm],
        "center_px": np.round(px, 6).tolist(),
        "height_mm": pawn.height_mm,
        "on_card": pawn.on_card,
        "visible": visible,
    }


def frame_truth(
    scene: Scene, cam: Camera, labels: np.ndarray, label_of: dict[int, tuple[str, object]]
) -> dict:
    label_by_obj = {id(obj): k for k, (_, obj) in label_of.items()}
    hands = []
    held = []
    for k, (kind, obj) in label_of.items():
        if kind == "hand":
            hands.append(
                {
                    "tip_mm": list(obj.tip_mm),
                    "height_mm": obj.height_mm,
                    "pixels": int(np.count_nonzero(labels == k)),
                }
            )  # type: ignore[attr-defined]
        elif kind == "held":
            c3 = obj.corners_mm()  # type: ignore[attr-defined]
            held.append(
                {
                    "name": obj.name,  # type: ignore[attr-defined]
                    "face": "up" if obj.face_up else "down",  # type: ignore[attr-defined]
                    "height_mm": obj.height_mm,  # type: ignore[attr-defined]
                    "corners_px": np.round(cam.project(c3), 6).tolist(),
                }
            )
    return {
        "version": TRUTH_VERSION,
        "width": cam.width,
        "height": cam.height,
        "camera": cam.to_json(),
        "table_mm": [scene.table.width_mm, scene.table.depth_mm],
        "cards": [card_truth(c, cam, labels) for c in scene.cards],
        "pawns": [pawn_truth(p, cam, labels, label_by_obj.get(id(p))) for p in scene.pawns],
        "hands": hands,
        "held_cards": held,
        "sheets": [
            {
                "name": s.name,
                "corners_mm": s.corners_mm().tolist(),
                "corners_px": np.round(cam.project(s.corners_mm()), 6).tolist(),
            }
            for s in scene.sheets
        ],
    }
