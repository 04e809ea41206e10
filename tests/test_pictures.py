"""Issue 22's pictures, checked on real rendered pixels: names in any alphabet, a projector view
that is lit and labelled in table millimetres, distinct pawns that leave card names readable,
the result band, events in players' words, a late display's last events, The Plan's Plan cards,
H.264 video and the annotated photo's legend."""

from __future__ import annotations

import io
import json
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from display import projector as projector_module
from display import sinks, style
from display.live import OverviewFeed
from display.overview import render_overview, table_fit
from display.player import render_player_view
from display.projector import render_projector
from display.tablestate import pawn_marks
from display.text import CAP_HEIGHT, PX_PER_SCALE, put_text, text_width
from display.theplan_overview import plan_face
from display.words import describe_event
from referee.games import GAMES
from referee.theplan.components import default_components
from tabletop.commands.demo import legal_jumps
from tabletop.commands.detect import FACE_COLOURS, draw
from tests.display_helpers import masterplan_state
from tests.test_display import card, inside_points, projector_calibration


@pytest.fixture(scope="module")
def master():
    return masterplan_state()


def renamed(state: dict, names: dict[str, str]) -> dict:
    """The same game with other seat names (their start cards follow)."""
    text = json.dumps(state)
    for old, new in names.items():
        text = text.replace(f'"{old}"', json.dumps(new)).replace(f"start:{old}", f"start:{new}")
    return json.loads(text)


def match(img: np.ndarray, text: str, scale: float, thickness: int = 1) -> float:
    """How well `text` drawn alone by put_text matches somewhere in img (grey)."""
    size = scale * PX_PER_SCALE
    tpl = np.zeros((int(size * 1.15) + 2, text_width(text, scale, thickness) + 4), np.uint8)
    put_text(tpl, text, (2, int(size * 0.9) + 1), scale, 255, thickness)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
    return float(cv2.matchTemplate(grey, tpl, cv2.TM_CCOEFF_NORMED).max())


# ---- item 8: any alphabet ---------------------------------------------------------------------
def test_unicode_names_are_drawn_with_their_own_letters(master):
    state, events = master
    uni = renamed(state, {"ann": "Zoë", "cat": "Łukasz", "bob": "José"})
    img = render_overview("masterplan", uni, events)
    # The current player's line is drawn with the real letters, not '?' in their place.
    assert match(img, "Zoë to play", 0.55) > 0.95
    assert match(img, "Zoë to play", 0.55) > match(img, "Zo? to play", 0.55) + 0.05
    for name in ("Łukasz", "José", "Zoë"):
        real, ascii_ = np.zeros((40, 200), np.uint8), np.zeros((40, 200), np.uint8)
        put_text(real, name, (4, 30), 0.8, 255)
        put_text(ascii_, name.encode("ascii", "replace").decode(), (4, 30), 0.8, 255)
        assert real.any() and not np.array_equal(real, ascii_), name
    # The player view and The Plan draw through the same function.
    view = {"you": "Zoë", "current": "Zoë", "step": "move", "players": [{"name": "Zoë", "villain": "Z-Mask"}]}
    assert match(render_player_view("masterplan", view), "Zoë - private", 0.5) > 0.95


# ---- item 6: the projector --------------------------------------------------------------------
def test_projector_labels_are_at_least_4mm_tall_on_the_table_and_say_whose_turn(master, monkeypatch):
    state, _ = master
    cal = projector_calibration()
    drawn: list[tuple[str, tuple[float, float], float]] = []

    def recording(img, text, org, scale=0.5, *args, **kwargs):
        drawn.append((text, org, scale))
        return put_text(img, text, org, scale, *args, **kwargs)

    monkeypatch.setattr(projector_module, "put_text", recording)
    img = render_projector(state, cal)
    assert img.any()
    texts = [t for t, _, _ in drawn]
    assert "ann: move step" in texts  # whose turn and which step
    assert {"40 mm", "62 mm"} <= set(texts) or {"40 mm", "63 mm"} <= set(texts)
    h_inv = np.linalg.inv(cal.table_to_projector)
    for text, (x, y), scale in drawn:
        cap = scale * PX_PER_SCALE * CAP_HEIGHT
        top, base = cv2.perspectiveTransform(np.float32([[[x, y - cap], [x, y]]]), h_inv)[0]
        assert np.hypot(*(top - base)) >= 4.0, (text, np.hypot(*(top - base)))

    # On the pixels: the digits of a changed gap are the only change, and they are tall on the table.
    moves = [dict(m, gap_mm=71.0) if m["to"] == "S1" else m for m in state["moves"]]
    other = render_projector(dict(state, moves=moves), cal)
    ys, xs = np.nonzero(np.abs(other.astype(int) - img.astype(int)).sum(axis=2) > 60)
    assert len(ys) > 20
    corners = np.float32([[[xs.min(), ys.min()]], [[xs.min(), ys.max()]]])
    top, bottom = cv2.perspectiveTransform(corners, h_inv)[:, 0]
    assert np.hypot(*(top - bottom)) >= 4.0
    # Nothing lit on a card face, labels included.
    for s in state["table"]:
        px = cv2.perspectiveTransform(inside_points(card(state, s["space"]), 15, 0.0)[None].astype(np.float32),
                                      cal.table_to_projector)[0]  # fmt: skip
        ij = np.round(px).astype(int)
        assert not img[ij[:, 1], ij[:, 0]].any(), s["space"]


def test_the_demo_takes_the_projector_at_the_turn_with_most_legal_jumps(master):
    state, _ = master
    assert legal_jumps(state) == 1  # S1 legal; S2 too close to call
    assert legal_jumps(dict(state, moves=[dict(m, verdict="legal") for m in state["moves"]])) == 2
    assert (
        legal_jumps(dict(state, moves=[dict(m, verdict="legal", allowed=False) for m in state["moves"]])) == 0
    )
    assert legal_jumps(dict(state, moves=[], game_over=True)) == 0


# ---- item 7: the overview ---------------------------------------------------------------------
def test_pawn_marks_are_distinct():
    marks = pawn_marks({"players": [{"name": n} for n in ("Monster Nash", "Ms. Fyre", "Z-Mask")]})
    assert marks == {"Monster Nash": "MN", "Ms. Fyre": "MF", "Z-Mask": "ZM"}
    names = ["ann", "Ann", "anna", "Zoë", "Zoe", "Ž", "Ž"[:1] + "x"]
    marks = pawn_marks({"players": [{"name": n} for n in names]})
    assert len(set(marks.values())) == len(names)


def test_pawns_leave_the_card_names_readable(master):
    state, events = master
    fit, _ = table_fit(state, (1280, 720))
    no_pawns = dict(state, table=[dict(s, pawns=[]) for s in state["table"]])
    no_names = dict(no_pawns, players=[dict(p, villain="") for p in state["players"]])
    base = render_overview("masterplan", no_pawns, events)
    pawns = np.abs(render_overview("masterplan", state, events).astype(int) - base).sum(axis=2) > 30
    names = np.abs(render_overview("masterplan", no_names, events).astype(int) - base).sum(axis=2) > 30
    x, y, w, h = table_fit(state, (1280, 720))[1]
    pawns[:, x + w :] = names[:, x + w :] = False  # the panel lists players too
    assert pawns.sum() > 200 and names.sum() > 50
    assert not (pawns & names).any()  # no pawn pixel lies on a villain's name
    # Each pawn is still on its own card.
    for s in state["table"]:
        if s.get("pawns"):
            corners = fit.px(s["corners"])
            ys, xs = np.nonzero(pawns[int(corners[:, 1].min()) : int(corners[:, 1].max()) + 1,
                                      int(corners[:, 0].min()) : int(corners[:, 0].max()) + 1])  # fmt: skip
            assert len(ys) > 20, s["space"]


def test_event_lines_are_written_for_players():
    chosen = {"type": "target_chosen", "player": "ann", "effect": "destroy_chosen", "spaces": ["S4"]}
    assert describe_event(chosen) == "ann chose S4 to destroy a card"
    moved = describe_event({"type": "pawn_moved", "player": "ann", "from": "start:ann", "to": "S1"})
    assert moved == "ann jumped from ann's start to S1"
    odd = describe_event({"type": "something_new", "player": "bob", "corners": [[0, 0]], "far_away": "S_9"})
    for internal in ("_", "corners", "[["):
        assert internal not in odd, odd
    for event in (chosen, {"type": "spaces_moved", "effect": "swap_two", "positions": {"S1": [], "S2": []}}):
        assert "_" not in describe_event(event)


def test_a_display_that_joins_late_shows_the_last_events(master):
    state, events = master
    late = SimpleNamespace(game="masterplan", state=state, events=[], seq=30)
    feed = OverviewFeed(late)
    lines = feed.recent_events()
    assert lines and describe_event(lines[-1]) == "turn 4: ann (move)"
    # A mirror fills its events from the snapshot's recent public events: they are shown as they
    # are, with no summary line.
    recent = [(i, e) for i, e in enumerate(events[-5:], start=25)]
    joined = OverviewFeed(SimpleNamespace(game="masterplan", state=state, events=list(recent), seq=30))
    assert joined.recent_events() == events[-5:]
    later = {"type": "turn_ended", "player": "ann"}
    late.events.append((31, later))
    assert feed.recent_events()[-1] == later  # then what happened since it joined
    img = feed.picture()
    assert match(img, "turn 4: ann (move)", 0.42) > 0.9


def test_the_winner_band_sits_above_the_table(master):
    state, events = master
    over = dict(state, game_over=True, winner="bob", game_over_reason="bob reached the Trophy", moves=[])
    img = render_overview("masterplan", over, events)
    _, (x, y, w, h) = table_fit(over, (1280, 720))
    assert match(img[:y], "bob WINS", 1.4, 3) > 0.9


def test_plan_cards_show_their_type_and_colours():
    adapter = GAMES["theplan"]
    game, _ = adapter.setup(adapter.make_config(["ann", "bob", "cat"], {}), 1)
    view = adapter.player_view(game, "ann")
    # the referee's view carries what each Plan it shows has printed on it
    faces = {"plan_faces": {"two-01": {"type": "Team of Two", "experts": ["jewels", "sculptures"]},
                            "smash-01": {"type": "Smash & Grab", "experts": []}}}  # fmt: skip
    assert plan_face(faces, "two-01") == ("Team of Two", ["jewels", "sculptures"])
    assert plan_face(faces, "smash-01") == ("Smash & Grab", [])
    assert plan_face(faces, "no-such-plan") == ("no-such-plan", [])
    comps = default_components()
    for plan in view["you"]["hand"]:
        face = comps.plans[plan]
        assert plan_face(view, plan) == (comps.plan_type(face.type).name, list(face.experts))
    img = 255 - render_player_view("theplan", view)  # dark letters on the light card
    first = view["you"]["hand"][0]
    assert match(img, plan_face(view, first)[0], 0.42) > 0.9
    assert match(img, first, 0.42) < 0.8  # the id alone is not what the card shows


def test_the_plan_rows_keep_points_clear_of_the_collection(monkeypatch):
    from display import theplan_overview
    from tests.display_helpers import theplan_state

    boxes: list[tuple[str, float, float, float]] = []

    def recording(img, text, org, scale=0.5, colour=style.TEXT, thickness=1, font=None, anchor="left", **kw):
        width = put_text(
            img, text, org, scale, colour, thickness, *([font] if font else []), anchor=anchor, **kw
        )
        x0 = org[0] - (width / 2 if anchor == "centre" else width if anchor == "right" else 0)
        boxes.append((text, x0, x0 + width, org[1]))
        return width

    monkeypatch.setattr(theplan_overview, "put_text", recording)
    render_overview("theplan", theplan_state(), [], (1280, 720))
    points = [b for b in boxes if b[0].startswith("points ")]
    rows = [b for b in boxes if "trinkets" in b[0] and ";" in b[0]]
    assert len(points) == len(rows) == 3
    for p, r in zip(points, rows):
        assert r[2] < p[1], (r, p)


# ---- item 9: video ----------------------------------------------------------------------------
def test_video_is_h264_and_falls_back_to_mp4v_with_a_note(tmp_path, monkeypatch):
    av = pytest.importorskip("av")
    frames = [np.full((240, 320, 3), v, np.uint8) for v in (0, 80, 160)]
    enc = sinks.VideoEncoder(tmp_path / "a.mp4", 5.0)
    for f in frames:
        enc.write(f)
    enc.close()
    with av.open(str(tmp_path / "a.mp4")) as c:
        stream = c.streams.video[0]
        assert stream.codec_context.name == "h264" and stream.codec_context.pix_fmt == "yuv420p"
        assert sum(1 for _ in c.decode(stream)) == 3
    monkeypatch.setattr(sinks, "H264_ENCODERS", ("no-such-encoder",))
    note = io.StringIO()
    enc = sinks.VideoEncoder(tmp_path / "b.mp4", 5.0, warn=note)
    for f in frames:
        enc.write(f)
    enc.close()
    assert "mp4v" in note.getvalue() and "browsers" in note.getvalue()
    cap = cv2.VideoCapture(str(tmp_path / "b.mp4"))
    assert cap.read()[0]


# ---- item 10: detect --annotate ---------------------------------------------------------------
def test_annotated_photo_has_a_legend_and_labels_readable_on_green_felt():
    felt = np.zeros((1080, 1920, 3), np.uint8)
    felt[:] = (40, 150, 40)  # green felt, the colour of a face-up outline
    cards = [
        SimpleNamespace(corners_px=[[800, 500], [900, 500], [900, 640], [800, 640]], face="up", name="Zoë"),
        SimpleNamespace(
            corners_px=[[1000, 500], [1100, 500], [1100, 640], [1000, 640]], face="down", name=None
        ),
    ]
    out = draw(felt, SimpleNamespace(cards=cards, pawns=[SimpleNamespace(center_px=(850, 570))]))
    # The legend: a dark box in the corner with a swatch of each outline colour and its words.
    corner = out[:200, :300]
    assert (corner.sum(axis=2) < 90).mean() > 0.3
    for colour in FACE_COLOURS.values():
        assert (np.abs(corner.astype(int) - colour).sum(axis=2) < 60).sum() > 20, colour
    assert match(corner, "face up", text_scale(out)) > 0.6
    # The label over the felt: white letters ringed dark, at least 12 px tall.
    label = out[430:500, 780:960]
    assert (label.min(axis=2) > 220).sum() > 50 and (label.max(axis=2) < 40).sum() > 50
    ys = np.nonzero((label.min(axis=2) > 220).any(axis=1))[0]
    assert ys.max() - ys.min() >= 12


def text_scale(img: np.ndarray) -> float:
    from display.text import scale_for_cap_height

    return scale_for_cap_height(max(12.0, max(img.shape[:2]) / 90))
