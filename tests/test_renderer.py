"""The synthetic renderer: ground truth agrees with the pixels, rendering is deterministic,
occlusion is measured, art is distinct, random layouts are legal."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from geometry import CardOutline, gap_mm, overlaps
from vision.synthetic import (
    CARD_NAMES,
    BoardSpec,
    Camera,
    CameraPose,
    Card,
    Hand,
    Pawn,
    Renderer,
    Scene,
    board_corners_mm,
    board_sheet,
    face_image,
    random_layout,
    random_scene,
)
from vision.synthetic.conditions import PRESETS
from vision.synthetic.layouts import convex_gap_mm

DIST = (-0.08, 0.03, 0.001, -0.0005, 0.0)


@pytest.fixture(scope="module")
def cam720() -> Camera:
    return Camera.for_resolution(
        "720p", hfov_deg=55, distortion=DIST, pose=CameraPose(950, 28, 8, (600, 380))
    )


def test_truth_corners_are_the_true_projection(cam720: Camera) -> None:
    scene = random_scene(3, n_cards=14)
    frame = Renderer(cam720, PRESETS["wood"]).render(scene, seed=1)
    cam = frame.truth["camera"]
    k, d = np.array(cam["matrix"]), np.array(cam["distortion"])
    rvec, tvec = np.array(cam["rvec"]), np.array(cam["tvec_mm"])
    assert len(frame.truth["cards"]) == 14
    for c in frame.truth["cards"]:
        mm = np.column_stack([np.array(c["corners_mm"]), np.zeros(4)])
        px, _ = cv2.projectPoints(mm, rvec, tvec, k, d)
        assert np.abs(px.reshape(-1, 2) - np.array(c["corners_px"])).max() < 0.01
        # The homography is the same camera without its lens distortion.
        und, _ = cv2.projectPoints(mm, rvec, tvec, k, np.zeros(5))
        h = np.array(cam["homography_table_to_image"])
        via_h = cv2.perspectiveTransform(np.array(c["corners_mm"]).reshape(-1, 1, 2), h)
        assert np.abs(via_h - und).max() < 0.01
        hinv = np.array(cam["homography_image_to_table"])
        back = cv2.perspectiveTransform(und.reshape(-1, 1, 2), hinv).reshape(-1, 2)
        assert np.abs(back - np.array(c["corners_mm"])).max() < 0.01
    for p in frame.truth["pawns"]:
        px, _ = cv2.projectPoints(np.array([[*p["center_mm"], 0.0]]), rvec, tvec, k, d)
        assert np.abs(px.reshape(2) - np.array(p["center_px"])).max() < 0.01


def test_corners_are_clockwise_from_top_left(cam720: Camera) -> None:
    frame = Renderer(cam720, PRESETS["ideal"]).render(random_scene(4, n_cards=10), seed=0)
    for c in frame.truth["cards"]:
        px = np.array(c["corners_px"])
        sums = px.sum(axis=1)
        assert sums[0] == pytest.approx(sums.min())
        # Shoelace in image coordinates (v down): positive area = clockwise on screen.
        area = 0.5 * sum(px[i, 0] * px[(i + 1) % 4, 1] - px[(i + 1) % 4, 0] * px[i, 1] for i in range(4))
        assert area > 0


def test_rendered_card_edges_lie_on_the_true_corners() -> None:
    """A white card on dark cloth, seen through a distorting lens: the card's outline found in
    the pixels (straight-edge fit) meets the truth's sharp corners to within a pixel."""
    cam = Camera.for_resolution(
        "1080p", hfov_deg=50, distortion=DIST, pose=CameraPose(800, 20, 0, (600, 400))
    )
    card = Card(1, "Empty Lair", (620.0, 410.0), 17.0, True)
    cond = PRESETS["ideal"].replace(surface="dark_cloth", surface_texture=0.0)
    frame = Renderer(cam, cond).render(Scene(cards=(card,)), seed=0)
    grey = cv2.cvtColor(frame.image, cv2.COLOR_BGR2GRAY)
    _, bw = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(bw, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    outline = max(contours, key=cv2.contourArea).reshape(-1, 2).astype(float)
    truth = np.array(frame.truth["cards"][0]["corners_px"])
    # Fit a line to the middle part of each edge (away from the rounded corners).
    lines = []
    for i in range(4):
        a, b = truth[i], truth[(i + 1) % 4]
        ab = b - a
        t = ((outline - a) @ ab) / (ab @ ab)
        rel = outline - a
        dist = np.abs(ab[0] * rel[:, 1] - ab[1] * rel[:, 0]) / np.linalg.norm(ab)
        pts = outline[(t > 0.15) & (t < 0.85) & (dist < 4)]
        assert len(pts) > 20
        vx, vy, x0, y0 = cv2.fitLine(pts.astype(np.float32), cv2.DIST_L2, 0, 0.01, 0.01).ravel()
        lines.append((np.array([x0, y0]), np.array([vx, vy])))
    for i in range(4):
        (p1, d1), (p2, d2) = lines[i - 1], lines[i]
        s = np.linalg.solve(np.column_stack([d1, -d2]), p2 - p1)
        corner = p1 + s[0] * d1
        # Contour pixels sit half a pixel inside the true edge; the lens bends edges slightly.
        assert np.linalg.norm(corner - truth[i]) < 1.5


def test_charuco_board_is_found_where_the_truth_says() -> None:
    cam = Camera.for_resolution(
        "720p", hfov_deg=55, distortion=DIST, pose=CameraPose(650, 25, 30, (600, 350))
    )
    spec = BoardSpec()
    sheet = board_sheet(spec, (600.0, 350.0), 7.0)
    frame = Renderer(cam, PRESETS["white"]).render(Scene(sheets=(sheet,)), seed=2)
    detector = cv2.aruco.CharucoDetector(spec.board())
    corners, ids, _, _ = detector.detectBoard(frame.image)
    assert ids is not None and len(ids) >= 20
    truth = cam.project(board_corners_mm(spec, sheet))[ids.ravel()]
    assert np.abs(corners.reshape(-1, 2) - truth).max() < 0.5


@pytest.mark.slow  # renders every scene twice
def test_rendering_is_deterministic_per_seed(cam720: Camera) -> None:
    scene = random_scene(5, n_cards=8)
    scene = scene.replace(hands=(Hand((600, 300), (600, -380), 60.0),))
    a = Renderer(cam720, PRESETS["dark_cloth"]).render(scene, seed=11)
    b = Renderer(cam720, PRESETS["dark_cloth"]).render(scene, seed=11)
    c = Renderer(cam720, PRESETS["dark_cloth"]).render(scene, seed=12)
    assert a.jpeg == b.jpeg and np.array_equal(a.image, b.image)
    assert a.truth == b.truth
    assert not np.array_equal(a.image, c.image)
    assert random_layout(9) == random_layout(9)


def test_a_card_under_a_hand_is_marked_hidden(cam720: Camera) -> None:
    hidden = Card(1, "Bomb", (600.0, 300.0), 0.0, False)
    partly = Card(2, "Trapdoor", (700.0, 300.0), 0.0, False)
    free = Card(3, "Switch", (450.0, 500.0), 0.0, True)
    hand = Hand(tip_mm=(600.0, 490.0), from_mm=(600.0, -380.0), height_mm=40.0, width_mm=150.0)
    scene = Scene(cards=(hidden, partly, free), hands=(hand,))
    truth = Renderer(cam720, PRESETS["green_felt"]).render(scene, seed=0).truth
    vis = {c["id"]: c["visible_fraction"] for c in truth["cards"]}
    assert vis[1] == 0.0
    assert 0.0 < vis[2] < 0.95
    assert vis[3] == 1.0
    # Without the hand every card is fully seen.
    truth = Renderer(cam720, PRESETS["green_felt"]).render(scene.replace(hands=()), seed=0).truth
    assert all(c["visible_fraction"] == 1.0 for c in truth["cards"])


def test_card_partly_outside_the_frame_is_partly_visible(cam720: Camera) -> None:
    edge = cam720.pixels_to_table(np.array([[0.0, cam720.height / 2]]))[0]
    card = Card(1, "Bomb", (float(edge[0]), float(edge[1])), 0.0, False)
    truth = Renderer(cam720, PRESETS["ideal"]).render(Scene(cards=(card,)), seed=0).truth
    assert 0.3 < truth["cards"][0]["visible_fraction"] < 0.7


def test_pawn_truth_and_style(cam720: Camera) -> None:
    card = Card(7, "Bomb", (600.0, 350.0), 10.0, True)
    pawns = (Pawn("a", "red", (600.0, 350.0), 7, "disc"), Pawn("b", "blue", (610.0, 340.0), 7, "standee"))
    truth = Renderer(cam720, PRESETS["wood"]).render(Scene(cards=(card,), pawns=pawns), seed=0).truth
    assert [p["on_card"] for p in truth["pawns"]] == [7, 7]
    assert all(p["visible"] for p in truth["pawns"])
    with pytest.raises(ValueError, match="colour"):
        Pawn("c", "mauve", (0.0, 0.0))


def test_every_face_is_distinct_and_stable() -> None:
    faces = {n: face_image(n).astype(np.int16) for n in CARD_NAMES}
    assert len(faces) == 17
    names = list(faces)
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            assert np.abs(faces[a] - faces[b]).mean() > 5, (a, b)
    face_image.__wrapped__ if hasattr(face_image, "__wrapped__") else None
    from vision.card_art import _face

    _face.cache_clear()
    assert np.array_equal(face_image("Trophy").astype(np.int16), faces["Trophy"])
    with pytest.raises(KeyError, match="no art"):
        face_image("Joker")


@pytest.mark.slow  # many random layouts
def test_random_layouts_are_legal_with_many_pairs_near_reach() -> None:
    near = 0
    total = 0
    for seed in range(3):
        cards = random_layout(seed, n_cards=16)
        assert len(cards) == 16
        outlines = [CardOutline(c.id, c.corners_mm()) for c in cards]
        for i, a in enumerate(outlines):
            assert not overlaps(a, outlines[i + 1 :])
            for j, b in enumerate(outlines[i + 1 :], start=i + 1):
                g = gap_mm(a, b)
                assert convex_gap_mm(cards[i].corners_mm(), cards[j].corners_mm()) == pytest.approx(
                    g, abs=1e-6
                )
                total += 1
                near += 55 <= g <= 71
    assert near >= 0.1 * 45  # many pairs near the 63 mm threshold


def test_camera_rejects_impossible_poses() -> None:
    with pytest.raises(ValueError, match="tilt"):
        CameraPose(900, 50)
    with pytest.raises(ValueError, match="height"):
        CameraPose(-1, 10)
