"""The bundled sample game: its script obeys Master Plan's rules (checked with `geometry`), its
ground truth puts pawns where the script says, and the files are what the generator makes."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest
from shapely.geometry import Point, Polygon

from geometry import CardOutline, Verdict, measure_reach, overlaps
from vision.synthetic import ScriptError, sample_game
from vision.synthetic.render import Renderer
from vision.synthetic.sample_game import game_camera, game_conditions, script_json

SAMPLES = Path(__file__).resolve().parent.parent / "sample_images"


@pytest.fixture(scope="module")
def script() -> dict:
    return json.loads((SAMPLES / "script.json").read_text())


@pytest.fixture(scope="module")
def truth() -> list[dict]:
    with open(SAMPLES / "ground_truth.jsonl") as f:
        return [json.loads(line) for line in f]


def test_script_obeys_reach_overlap_and_turn_order(script: dict) -> None:
    order = [p["seat"] for p in script["players"]]
    starts = {p["seat"]: p["starting_card"] for p in script["players"]}
    entries = script["entries"]
    setup = entries[0]
    assert setup["type"] == "setup"
    table = {c["id"]: CardOutline(c["id"], c["corners_mm"]) for c in setup["cards"]}
    # Rightmost starting card first, then leftward.
    xs = [table[starts[s]].center_mm[0] for s in order]
    assert xs == sorted(xs, reverse=True)
    trophy = table[script["trophy"]]
    assert 560 <= trophy.center_mm[1] - table[starts[order[0]]].center_mm[1] <= 660
    on = dict(starts)
    turn = 0
    kinds = set()
    for e in entries[1:]:
        kinds.add(e["type"])
        if e["kind"] == "command":
            assert e["player"] == order[turn % len(order)], e
        if e["type"] == "place_card":
            new = CardOutline(e["card"], e["corners_mm"])
            assert new.short_edge_mm == pytest.approx(63.0, abs=1e-4) and new.long_edge_mm == pytest.approx(
                88.0, abs=1e-4
            )
            assert not overlaps(new, list(table.values())), e
            table[e["card"]] = new
        elif e["type"] == "move":
            assert e["round"] > 1, "nobody moves in the first round"
            r = measure_reach(table[on[e["player"]]], table[e["to"]])
            assert r.gap_mm < script["reach_mm"] and r.verdict is Verdict.LEGAL, e
            on[e["player"]] = e["to"]
        elif e["type"] == "destroy":
            del table[e["card"]]
        elif e["type"] == "fall":
            on[e["player"]] = starts[e["player"]]
        elif e["type"] == "switch":
            a, b = e["cards"]
            assert {a, b}.isdisjoint({*starts.values(), script["trophy"]})
            assert np.allclose(e["corners_mm"][str(a)], table[b].corners)
            assert np.allclose(e["corners_mm"][str(b)], table[a].corners)
            table[a] = CardOutline(a, e["corners_mm"][str(a)])
            table[b] = CardOutline(b, e["corners_mm"][str(b)])
        elif e["type"] == "draw" and e["kind"] == "command" or e["type"] == "turn_end":
            turn += 1
    assert {
        "place_card",
        "move",
        "flip",
        "destroy",
        "fall",
        "switch",
        "swap",
        "skip_step",
        "draw",
        "win",
    } <= kinds
    assert script["winner"] == "Monster Nash" and on["Monster Nash"] == script["trophy"]
    flips = {e["card"]: e["name"] for e in entries if e["type"] == "flip"}
    assert "Trapdoor" in flips.values() and "Switch" in flips.values()


def test_face_down_identities_are_only_under_secret(script: dict) -> None:
    for e in script["entries"]:
        if e["type"] == "place_card":
            public = {k: v for k, v in e.items() if k != "secret"}
            assert e["secret"]["name"] not in json.dumps(public)


def test_pawns_stand_on_the_cards_the_truth_and_script_say(script: dict, truth: list[dict]) -> None:
    assert len(truth) == script["frame_count"] and 150 <= len(truth) <= 400
    for t in truth:
        cards = {c["id"]: c for c in t["cards"]}
        for p in t["pawns"]:
            if p["on_card"] is None:
                assert p["height_mm"] > 0  # only a carried pawn stands on nothing
                continue
            poly = Polygon(cards[p["on_card"]]["corners_mm"])
            assert poly.contains(Point(p["center_mm"])), (t["frame"], p)
    # After each move, before the next command, the pawn stands on the destination (or, after
    # a Trapdoor, back on its starting card).
    entries = script["entries"]
    commands = [e for e in entries if e["kind"] == "command"]
    starts = {p["seat"]: p["starting_card"] for p in script["players"]}
    fell = {e["seq"] for e in entries if e["type"] == "fall"}
    for i, e in enumerate(commands):
        if e["type"] != "move":
            continue
        nxt = commands[i + 1]["frames"][0] if i + 1 < len(commands) else len(truth)
        t = truth[nxt - 1]
        pawn = next(p for p in t["pawns"] if p["player"] == e["player"])
        fallen = any(
            e["seq"] < s < (commands[i + 1]["seq"] if i + 1 < len(commands) else 10**9) for s in fell
        )
        assert pawn["on_card"] == (starts[e["player"]] if fallen else e["to"]), e


def test_the_frame_ranges_cover_the_game(script: dict, truth: list[dict]) -> None:
    last = -1
    for e in script["entries"]:
        a, b = e["frames"]
        assert 0 <= a <= b < len(truth)
        assert a >= last - 0  # entries are in frame order
        last = a
    for t in truth:
        assert 0 <= t["entry"] < len(script["entries"])
        assert Path(SAMPLES / t["image"]).is_file()


def _same(made, bundled, path: str = "script") -> None:
    """`made` is `bundled`, numbers to the last few bits: another CPU's SIMD path or BLAS may
    round a matrix inverse's last digit differently."""
    if isinstance(bundled, dict):
        assert isinstance(made, dict) and made.keys() == bundled.keys(), path
        for k in bundled:
            _same(made[k], bundled[k], f"{path}.{k}")
    elif isinstance(bundled, list):
        assert isinstance(made, list) and len(made) == len(bundled), path
        for i, (m, b) in enumerate(zip(made, bundled)):
            _same(m, b, f"{path}[{i}]")
    elif isinstance(bundled, float):
        assert isinstance(made, (int, float)) and math.isclose(made, bundled, rel_tol=1e-12, abs_tol=1e-12), (path, made, bundled)
    else:
        assert made == bundled, (path, made, bundled)


@pytest.mark.slow  # regenerates the bundled sample game
def test_bundled_files_are_what_the_generator_makes(script: dict) -> None:
    g = sample_game()
    _same(script_json(g, game_camera()), script)
    r = Renderer(game_camera(), game_conditions(), g.table)
    for i in (0, 95):
        frame = r.render(g.frames[i].scene, seed=1000 + i)
        bundled = cv2.imread(str(SAMPLES / f"frames/frame_{i:04d}.jpg"))
        # Pixels, not bytes: another CPU's SIMD path or libjpeg may round a few values differently.
        diff = np.abs(frame.image.astype(np.int16) - bundled.astype(np.int16))
        assert diff.mean() < 0.5 and np.percentile(diff, 99.9) <= 12, (i, diff.mean())


def test_scripted_game_refuses_illegal_actions() -> None:
    g = sample_game.__globals__["ScriptedGame"](
        seats=[("Z-Mask", "red"), ("Ms. Fyre", "blue"), ("Monster Nash", "green")],
        hands={"Monster Nash": ["Bomb"], "Ms. Fyre": ["Bomb"], "Z-Mask": ["Bomb"]},
    )
    with pytest.raises(ScriptError, match="turn"):
        g.place_card("Z-Mask", "Bomb", (449, 200))
    with pytest.raises(ScriptError, match="overlap"):
        g.place_card("Monster Nash", "Bomb", (751, 100))
    with pytest.raises(ScriptError, match="no 'Trapdoor' in hand"):
        g.place_card("Monster Nash", "Trapdoor", (751, 300))
    g.place_card("Monster Nash", "Bomb", (751, 300))
    g.draw("Monster Nash")
    with pytest.raises(ScriptError, match="step"):
        g.move("Ms. Fyre", 5)  # first round: no Move step


def test_scripted_game_deck_matches_the_referees_deck_file() -> None:
    # The renderer may not import the referee (layer rule), so it keeps its own copy of the counts.
    from referee.masterplan import default_deck
    from vision.synthetic.game import DEFAULT_DECK

    assert DEFAULT_DECK == {card.name: card.count for card in default_deck().cards}
