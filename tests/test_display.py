"""The pictures, checked by their pixels: overview colours, projector highlights that land around
the cards (mapped back through the calibration), no light on any card, The Plan's scores."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration import Calibration
from display import style
from display.overview import render_overview, table_fit
from display.player import render_player_view
from display.projector import CLEARANCE_MM, RING_MM, NoProjectorCalibration, render_projector
from display.text import put_text, text_width
from referee.games import GAMES
from tests.display_helpers import PLACEMENTS, masterplan_config, masterplan_state, place_round, theplan_state

GREEN = np.array(style.VERDICT_BGR["legal"])
AMBER = np.array(style.VERDICT_BGR["too_close_to_call"])


@pytest.fixture(scope="module")
def master():
    return masterplan_state()


def card(state, space):
    return np.array(next(s["corners"] for s in state["table"] if s["space"] == space), float)


def inside_points(corners: np.ndarray, n: int = 9, inset: float = 0.1) -> np.ndarray:
    """A grid of points inside a card (bilinear over its corners), kept `inset` from the edges."""
    t = np.linspace(inset, 1 - inset, n)
    u, v = np.meshgrid(t, t)
    a, b, c, d = corners
    pts = (1 - u)[..., None] * ((1 - v)[..., None] * a + v[..., None] * d) + u[..., None] * (
        (1 - v)[..., None] * b + v[..., None] * c
    )
    return pts.reshape(-1, 2)


def colour_distance(pixels: np.ndarray, colour: np.ndarray) -> np.ndarray:
    return np.linalg.norm(pixels.astype(float) - colour, axis=-1)


def sample(img: np.ndarray, px: np.ndarray) -> np.ndarray:
    ij = np.round(px).astype(int)
    return img[ij[:, 1], ij[:, 0]]


# ---- overview ----------------------------------------------------------------------------------
def test_overview_colours_each_destination_by_its_verdict(master):
    state, events = master
    assert {m["to"]: m["verdict"] for m in state["moves"]} == {"S1": "legal", "S2": "too_close_to_call"}
    img = render_overview("masterplan", state, events, (1280, 720))
    assert img.shape == (720, 1280, 3) and img.dtype == np.uint8
    fit, _ = table_fit(state, (1280, 720))
    # The mapping is right: the Trophy's area is its gold.
    trophy = sample(img, fit.px(inside_points(card(state, "trophy"), inset=0.3)))
    assert np.median(colour_distance(trophy, np.array(style.TROPHY))) < 40
    s1 = sample(img, fit.px(inside_points(card(state, "S1"))))
    s2 = sample(img, fit.px(inside_points(card(state, "S2"))))
    s3 = sample(img, fit.px(inside_points(card(state, "S3"))))
    # Green-dominant where the jump is legal, amber where too close to call, neither where out of reach.
    assert (s1[:, 1].astype(int) > s1[:, 2].astype(int) + 60).mean() > 0.8
    assert np.median(colour_distance(s1, GREEN)) < np.median(colour_distance(s1, AMBER))
    assert np.median(colour_distance(s2, AMBER)) < np.median(colour_distance(s2, GREEN))
    assert (s3[:, 1].astype(int) > s3[:, 2].astype(int) + 60).mean() < 0.05


def test_overview_is_deterministic_and_shows_a_winner_banner(master):
    state, events = master
    a = render_overview("masterplan", state, events)
    b = render_overview("masterplan", state, events)
    assert np.array_equal(a, b)
    over = dict(state, game_over=True, winner="bob", game_over_reason="bob reached the Trophy", moves=[])
    c = render_overview("masterplan", over, events)
    # The banner writes in the Trophy's gold in a band above the table, never across it: the
    # whole final table (every card) stays in view below it.
    fit, (x, y, w, h) = table_fit(over, (1280, 720))
    band = c[:y, x : x + w]
    assert (colour_distance(band, np.array(style.TROPHY)) < 60).sum() > 500
    for s in over["table"]:
        px = fit.px(s["corners"])
        assert (px[:, 1] > y).all() and (px[:, 1] < y + h).all(), s["space"]


def test_overview_rejects_an_unknown_game_and_a_tiny_picture(master):
    state, _ = master
    with pytest.raises(ValueError, match="masterplan"):
        render_overview("chess", state)
    with pytest.raises(ValueError, match="too small"):
        render_overview("masterplan", state, size=(100, 80))


def best_match(img: np.ndarray, text: str) -> float:
    """How well `text`, written in the score font on its own, matches somewhere in img."""
    font, scale, thick = style.SCORE_FONT
    w, h = text_width(text, scale, thick, font), int(scale * 30)
    tpl = np.zeros((h + 8, w + 8), np.uint8)
    put_text(tpl, text, (4, h), scale, 255, thick, font)
    return float(cv2.matchTemplate(img, tpl, cv2.TM_CCOEFF_NORMED).max())


def test_the_plan_overview_shows_every_score():
    state = theplan_state()
    scores = {p: v["score"]["score"] for p, v in state["players"].items()}
    assert len(set(scores.values())) == 3 and all(s > 0 for s in scores.values())
    img = cv2.cvtColor(render_overview("theplan", state, [], (1280, 720)), cv2.COLOR_BGR2GRAY)

    for player, score in scores.items():
        assert best_match(img, str(score)) > 0.97, (player, score)
    # A changed score is drawn, the old one is gone.
    ann = state["players"]["ann"]
    changed = dict(state, players=dict(state["players"], ann=dict(ann, score=dict(ann["score"], score=91))))
    img2 = cv2.cvtColor(render_overview("theplan", changed, [], (1280, 720)), cv2.COLOR_BGR2GRAY)
    assert best_match(img2, "91") > 0.97
    assert best_match(img2, str(scores["ann"])) < 0.9


def test_the_plan_overview_shows_who_committed_but_not_what():
    adapter = GAMES["theplan"]
    game, _ = adapter.setup(adapter.make_config(["ann", "bob", "cat"], {}), 1)
    plan = adapter.player_view(game, "ann")["you"]["hand"][0]
    adapter.apply(game, {"type": "commit_plan", "player": "ann", "plan": plan})
    state = adapter.public_view(game)
    assert state["players"]["ann"]["committed"] and not state["plans_revealed"]
    assert plan not in repr(state)  # the public state the display draws from does not hold it
    before = render_overview(
        "theplan",
        adapter.public_view(GAMES["theplan"].setup(adapter.make_config(["ann", "bob", "cat"], {}), 1)[0]),
    )
    after = render_overview("theplan", state)
    assert not np.array_equal(before, after)  # ann's "committed" shows


# ---- projector ---------------------------------------------------------------------------------
def projector_calibration() -> Calibration:
    """A 1920x1080 projector seen at an angle: a perspective homography from table mm to its
    pixels, 0.4-0.9 mm per pixel over the table."""
    table = np.float32([[-40, -60], [740, -60], [740, 820], [-40, 820]])
    proj = np.float32([[60, 1060], [1880, 1010], [1800, 30], [130, 60]])
    h = cv2.getPerspectiveTransform(table, proj)
    return Calibration(image_size=(1920, 1080), projector_size=(1920, 1080), table_to_projector=h)


def test_projector_ring_lands_around_the_card_within_2mm(master):
    state, _ = master
    cal = projector_calibration()
    img = render_projector(state, cal)
    assert img.shape == (1080, 1920, 3)
    h_inv = np.linalg.inv(cal.table_to_projector)
    s1 = card(state, "S1")  # [390, 453] x [128, 216]
    lo, hi = s1.min(axis=0), s1.max(axis=0)
    green = colour_distance(img, GREEN) < 60
    ys, xs = np.nonzero(green)
    back = cv2.perspectiveTransform(np.column_stack([xs, ys]).astype(np.float64)[None], h_inv)[0]
    # Every lit green point, mapped back to the table, hugs S1: outside it, within the ring.
    near = (back[:, 1] > lo[1] - 30) & (back[:, 1] < hi[1] + 30)
    # Leave out the gap line and its label, between ann's start card (y <= 88) and the ring.
    ring = back[near & ~((back[:, 1] > 88) & (back[:, 1] < lo[1] - CLEARANCE_MM - RING_MM - 0.5))]
    dx = np.maximum(np.maximum(lo[0] - ring[:, 0], ring[:, 0] - hi[0]), 0)
    dy = np.maximum(np.maximum(lo[1] - ring[:, 1], ring[:, 1] - hi[1]), 0)
    dist = np.hypot(dx, dy)
    assert dist.min() >= CLEARANCE_MM - 1.0 and dist.max() <= CLEARANCE_MM + RING_MM + 1.0
    # ... and covers the card all round: a loop along the ring's middle is lit green everywhere.
    m = CLEARANCE_MM + RING_MM / 2
    t = np.linspace(0, 1, 60)[1:-1, None]
    loop = np.vstack(
        [
            np.column_stack([lo[0] + t[:, 0] * (hi[0] - lo[0]), np.full(len(t), lo[1] - m)]),
            np.column_stack([lo[0] + t[:, 0] * (hi[0] - lo[0]), np.full(len(t), hi[1] + m)]),
            np.column_stack([np.full(len(t), lo[0] - m), lo[1] + t[:, 0] * (hi[1] - lo[1])]),
            np.column_stack([np.full(len(t), hi[0] + m), lo[1] + t[:, 0] * (hi[1] - lo[1])]),
        ]
    )
    px = np.round(cv2.perspectiveTransform(loop[None], cal.table_to_projector)[0]).astype(int)
    assert (img[px[:, 1], px[:, 0], 1] > 100).all()  # lit green (anti-aliased edges count)
    # The too-close card gets an amber ring the same way.
    amber = colour_distance(img, AMBER) < 60
    s2 = card(state, "S2")
    mid_right = np.array([[s2[:, 0].max() + CLEARANCE_MM + 4, s2[:, 1].mean()]])
    p = np.round(cv2.perspectiveTransform(mid_right[None], cal.table_to_projector)[0][0]).astype(int)
    assert amber[p[1], p[0]]


def convex_contains(poly: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Points strictly inside a convex polygon (either orientation)."""
    signs = []
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        signs.append((b[0] - a[0]) * (pts[:, 1] - a[1]) - (b[1] - a[1]) * (pts[:, 0] - a[0]))
    s = np.array(signs)
    return (s > 0).all(axis=0) | (s < 0).all(axis=0)


@pytest.mark.parametrize("size", [None, (960, 540)])
def test_projector_puts_no_light_on_any_card_face(master, size):
    state, _ = master
    cal = projector_calibration()
    img = render_projector(state, cal, size)
    assert img.any()
    h, w = img.shape[:2]
    assert (w, h) == (size or cal.projector_size)
    to_picture = np.diag([w / cal.projector_size[0], h / cal.projector_size[1], 1.0]) @ cal.table_to_projector
    ys, xs = np.mgrid[0:h, 0:w]
    pixels = np.column_stack([xs.ravel(), ys.ravel()]).astype(np.float64)
    table_mm = cv2.perspectiveTransform(pixels[None], np.linalg.inv(to_picture))[0]
    lit = img.reshape(-1, 3).max(axis=1) > 0
    for s in state["table"]:
        on_card = convex_contains(np.array(s["corners"], float), table_mm)
        assert on_card.sum() > 250, s["space"]  # the card is in the projector's view
        assert not (lit & on_card).any(), f"light on card {s['space']}"


def test_projector_is_black_when_nobody_can_move(master):
    state, _ = master
    img = render_projector(dict(state, moves=[]), projector_calibration())
    assert not img.any()


def test_projector_without_projector_calibration_refuses():
    state, _ = masterplan_state()
    with pytest.raises(
        NoProjectorCalibration, match="no projector calibration: run 'tabletop calibrate projector"
    ):
        render_projector(state, Calibration(image_size=(1920, 1080), image_to_table=np.eye(3)))


# ---- player view -------------------------------------------------------------------------------
def test_player_view_draws_the_hand_from_the_seats_own_view():
    adapter = GAMES["masterplan"]
    game, _ = adapter.setup(masterplan_config(), 1)
    place_round(adapter, game, [])
    ann = adapter.player_view(game, "ann")
    assert ann["hand"] and ann["known_face_down"] == {"S1": ann["known_face_down"]["S1"]}
    img = render_player_view("masterplan", ann, (1280, 720))
    fewer = dict(ann, hand=ann["hand"][:1])
    # One card tile per card in the hand: fewer cards, fewer light card faces.
    face = np.array(style.CARD_FACE)
    assert (colour_distance(img, face) < 20).sum() > (
        colour_distance(render_player_view("masterplan", fewer), face) < 20
    ).sum()
    plan = GAMES["theplan"]
    g, _ = plan.setup(plan.make_config(["ann", "bob", "cat"], {}), 1)
    view = plan.player_view(g, "bob")
    assert view["you"]["player"] == "bob" and len(view["you"]["hand"]) == 6
    assert render_player_view("theplan", view).shape == (720, 1280, 3)
    with pytest.raises(ValueError, match="join a seat"):
        render_player_view("theplan", None)  # type: ignore[arg-type]


def test_drawing_shapes_agree_with_shapely():
    """The display's own outline helpers (it may not import geometry) against shapely."""
    from shapely.geometry import Point, Polygon

    from display.shapes import distance_to_polygon, nearest_points, rounded_offset

    rng = np.random.default_rng(3)
    a = np.array(PLACEMENTS["bob"][0])  # a card turned 30 degrees
    b = np.array(PLACEMENTS["ann"][0])
    pts = rng.uniform(200, 420, (400, 2))
    truth = np.array([Polygon(a).distance(Point(p)) for p in pts])
    assert np.abs(distance_to_polygon(a, pts) - truth).max() < 1e-9
    zone = Polygon(rounded_offset(a, 63.0))
    assert abs(zone.area - Polygon(a).buffer(63.0, 64).area) / zone.area < 1e-3
    p, q = nearest_points(a, b)
    assert abs(np.hypot(*(p - q)) - Polygon(a).distance(Polygon(b))) < 1e-9
