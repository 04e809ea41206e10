"""Faces and pawns on rendered frames, against the renderer's truth (cards from the truth corners)."""

from __future__ import annotations

import numpy as np

from vision.faces import FaceLibrary, upright_corners
from vision.pawns import camera_nadir_px, find_pawns
from vision.synthetic import PRESETS, Camera, CameraPose, Card, Pawn, Renderer, Scene
from vision.table import TableMap

CAM = Camera.for_resolution(
    "1080p", pose=CameraPose(height_mm=820.0, tilt_deg=12.0, target_mm=(600.0, 390.0))
)
LIB = FaceLibrary.default()


def _read(scene: Scene, preset: str = "wood", seed: int = 3):
    f = Renderer(CAM, PRESETS[preset]).render(scene, seed)
    cards = [np.array(c["corners_px"]) for c in f.truth["cards"]]
    arts, faces = [], []
    for c in cards:
        r = LIB.read(f.image, c)
        faces.append(r)
        art = LIB.faces.get(r.name) if r.name else (LIB.back if r.face == "down" else None)
        arts.append(None if art is None else (upright_corners(c, r.upside_down), art))
    nadir = camera_nadir_px(TableMap.from_homography(CAM.image_to_table).to_mm, CAM.width, CAM.height)
    return f.truth, faces, find_pawns(f.image, cards, arts=arts, nadir_px=nadir)


def test_nadir_from_the_table_mapping_is_below_the_camera():
    pos = CAM.pose.position_mm()
    want = CAM.project(np.array([[pos[0], pos[1], 0.0]]))[0]
    got = camera_nadir_px(TableMap.from_homography(CAM.image_to_table).to_mm, CAM.width, CAM.height)
    assert np.hypot(got[0] - want[0], got[1] - want[1]) < 2.0


def test_pawn_on_print_of_its_colour_near_edges_and_off_the_cards():
    cards = (
        Card(1, "Bomb", (420, 300), 10, False),  # a yellow disc covering the back's yellow target
        Card(2, "Laser Gun", (560, 320), -15, True),
        Card(3, "Teleporter", (700, 330), 90, True),
        Card(4, "Switch", (560, 470), 0, False),
    )
    pawns = (
        Pawn("a", "yellow", (420, 300), 1, "disc"),
        Pawn("b", "red", (560 + 20, 320 + 30), 2, "standee"),  # near a corner of its card
        Pawn("c", "blue", (700 - 30, 330 + 8), 3, "disc"),  # near the card's long edge
        Pawn("d", "green", (820, 470), None, "standee"),  # on the bare table
    )
    truth, faces, seen = _read(Scene(cards=cards, pawns=pawns))
    assert [r.face for r in faces] == [c["face"] for c in truth["cards"]]
    assert [r.name for r, c in zip(faces, truth["cards"]) if c["face"] == "up"] == [
        c["name"] for c in truth["cards"] if c["face"] == "up"
    ]
    index = {c["id"]: i for i, c in enumerate(truth["cards"])}
    want = {p["color"]: (None if p["on_card"] is None else index[p["on_card"]]) for p in truth["pawns"]}
    assert {p.color: p.card_index for p in seen} == want  # one sighting per colour, none else
    for p in seen:
        t = next(q for q in truth["pawns"] if q["color"] == p.color)
        assert np.hypot(p.center_px[0] - t["center_px"][0], p.center_px[1] - t["center_px"][1]) < 25
