"""The player's terminal (issue 22): commands typed as the client shows them, the readable screen,
history on a new connection, draw ending the Add step, and seats matched as people read them.
Real referees on loopback, real sockets, the real client (as a subprocess or its own functions)."""

from __future__ import annotations

import dataclasses
import json
import random
import subprocess
import sys

import pytest

from referee.client import Connection, StateMirror
from referee.games import GAMES, SetupError, seat_key
from referee.protocol import Request
from referee.session import RECENT_EVENTS, GameSession
from referee.store import EventStore
from tabletop.commands import CommandError
from tabletop.commands.client import (
    command_help,
    command_types,
    completions,
    format_command,
    match_table_ids,
    parse_line,
    screen_lines,
)
from tests.service_helpers import running_referee

MASTER = {
    "players": [
        {"name": "Ann", "villain": "Z-Mask"},
        {"name": "Bob", "villain": "Ms. Fyre"},
        {"name": "Cy", "villain": "Monster Nash"},
    ]
}
PLAN = {"seats": ["Ann", "Bob", "Cy"]}


def client(endpoint: str, player: str, *lines: str, json_out: bool = False, token: str | None = None) -> str:
    args = [sys.executable, "-m", "tabletop", "client", "--connect", endpoint, "--player", player]
    if token:
        args += ["--token", token]
    for line in lines:
        args += ["--do", line]
    if json_out:
        args.append("--json")
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def to_act(game) -> list[str]:
    who = game.to_act()
    return [] if who is None else ([who] if isinstance(who, str) else list(who))


# ---- 1. commands the client suggests are the commands it takes -------------------------------
def test_the_reported_lines_parse_as_the_player_means():
    assert parse_line('choose_target spaces=["S4"]', "masterplan") == {
        "type": "choose_target",
        "spaces": ["S4"],
    }
    assert parse_line('pass_plans plans=["four-02", "three-05"]', "theplan") == {
        "type": "pass_plans",
        "plans": ["four-02", "three-05"],
    }
    assert parse_line("choose_target spaces=S4,S5", "masterplan")["spaces"] == ["S4", "S5"]
    assert parse_line("choose_target spaces=S4", "masterplan")["spaces"] == ["S4"]
    assert parse_line("move to=7", "masterplan") == {"type": "move", "to": "7"}  # an id stays text
    assert parse_line("move to=S3 flip=no", "masterplan")["flip"] is False
    assert parse_line("report_identity name='Supply Drop'", "masterplan")["name"] == "Supply Drop"
    corners = parse_line("place_card card=3 corners=[[0, 0], [63, 0], [63, 88], [0, 88]]", "masterplan")
    assert corners == {"type": "place_card", "card": 3, "corners": [[0, 0], [63, 0], [63, 88], [0, 88]]}
    options = [{"type": "skip_step", "player": "Ann"}, {"type": "draw", "player": "Ann", "space": None}]
    assert parse_line("2", "masterplan", options) == {"type": "draw", "space": None}
    for bad, words in [
        ("9", "no option 9"),
        ("move S3", "should be FIELD=VALUE"),
        ("move to='S3", "to="),
        ("place_card card=x corners=[]", "must be a number"),
        ("place_card corners=[[0,0]", "does not parse"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_line(bad, "masterplan", options)


@pytest.mark.parametrize("game, config", [("masterplan", MASTER), ("theplan", PLAN)])
def test_every_listed_option_typed_back_is_taken_by_the_referee(tmp_path, game, config):
    """Whole random games: each command is the listed option, printed as the client prints it
    and read back by the client's parser, and the referee accepts it."""
    rng = random.Random(7)
    with running_referee(game, config, tmp_path) as service:
        conns = {p: Connection(service.router_endpoint) for p in ("Ann", "Bob", "Cy")}
        for seat, conn in conns.items():
            conn.join(seat)
        seen: set[str] = set()
        for _ in range(80):
            actors = [p for p in to_act(service.session.game) if p in conns]
            if not actors:
                break
            seat = rng.choice(actors)
            options = conns[seat].request("view")["view"]["you_can"]
            n = rng.randrange(len(options))
            typed = format_command(options[n])
            msg = parse_line(typed, game, options)
            expected = {k: v for k, v in options[n].items() if k != "player" and v is not None}
            assert {k: v for k, v in msg.items() if v is not None} == expected, typed
            by_number = parse_line(str(n + 1), game, options)
            assert by_number == {k: v for k, v in options[n].items() if k != "player"}
            kind = msg.pop("type")
            seen.add(kind)
            reply = conns[seat].request(kind, **msg)
            assert reply["ok"], (typed, reply)
        assert len(seen) >= 2


def test_help_explains_every_field_of_every_command():
    for game in GAMES:
        for kind, cls in command_types(game).items():
            text = command_help(game, kind)
            for name in dataclasses.fields(cls):
                if name.name != "player":
                    name = name.name
                    assert f"{name}=" in text, (kind, name)
    text = command_help("masterplan", "place_card")
    assert "corners=" in text and "card=" in text and "needed" in text
    assert "no command 'fly'" in command_help("masterplan", "fly")


def test_completion_offers_command_names_then_their_fields():
    assert "place_card " in completions("pl", "pl", "masterplan")
    assert "help " in completions("he", "he", "masterplan")
    assert completions("", "place_card ", "masterplan") == ["card=", "corners=", "sigma_mm=", "space="]
    assert completions("pl", "pass_plans pl", "theplan") == ["plans="]
    assert completions("pa", "help pa", "theplan") == ["pass_plans "]


# ---- 2. a readable screen ------------------------------------------------------------------------
def test_the_client_shows_a_screen_numbers_options_and_takes_a_number(tmp_path):
    with running_referee("masterplan", MASTER, tmp_path) as service:
        game = service.session.game
        first = game.current
        out = client(service.router_endpoint, first, "1")  # 1 is skip_step in the first Add step
        assert "ok: skip_step" in out
        assert "Your hand" in out and "You can now" in out and "Last events" in out
        for card in game.hand(first):
            name = game.card_name(card)
            assert f"card {card}: {name} - " in out  # the card's name and its effect text
        assert '{"' not in out and "private:" not in out  # no raw JSON
        assert game.step == "draw"
        token = out.split("your seat token: ")[1].split()[0]
        raw = client(service.router_endpoint, first, "view", json_out=True, token=token)
        assert '"you_can"' in raw  # --json keeps the raw view for scripts


def test_the_screen_says_what_the_camera_waits_for(tmp_path):
    with running_referee("masterplan", MASTER, tmp_path) as service:
        view = Connection(service.router_endpoint).join(service.session.game.current)["view"]
    waits = "waiting for Ann to end the Add step (skip_step) or draw"
    lines = "\n".join(screen_lines({**view, "camera": {"waiting_for": waits}}, [], "masterplan"))
    assert f"camera: {waits}" in lines
    assert "camera:" not in "\n".join(screen_lines(view, [], "masterplan"))  # no camera, no line


def test_the_plan_screen_shows_plan_types_and_only_your_own_hand(tmp_path):
    with running_referee("theplan", PLAN, tmp_path) as service:
        conn = Connection(service.router_endpoint)
        view = conn.join("Ann")["view"]
        lines = "\n".join(screen_lines(view, [], "theplan"))
        state = service.session.game.state
        for plan in state.hands["Ann"]:
            assert plan in lines
        assert "Team of" in lines or "Smash & Grab" in lines or "Lone Specialist" in lines
        others = set(state.hands["Bob"]) | set(state.hands["Cy"])
        assert not any(plan in lines for plan in others - set(state.hands["Ann"]))


@pytest.mark.parametrize("game, config", [("masterplan", MASTER), ("theplan", PLAN)])
def test_help_rules_shows_the_games_rules_document(tmp_path, game, config):
    with running_referee(game, config, tmp_path) as service:
        seat = service.session.seats()[0]
        out = client(service.router_endpoint, seat, "help rules")
    title = {"masterplan": "Master Plan", "theplan": "The Plan"}[game]
    assert title in out and "rules" in out.lower() and len(out.splitlines()) > 50  # the document


# ---- 3. history on a new connection -------------------------------------------------------------
@pytest.mark.parametrize("game, config", [("masterplan", MASTER), ("theplan", PLAN)])
def test_a_new_connection_sees_recent_public_events_and_no_secret(tmp_path, game, config):
    rng = random.Random(3)
    with running_referee(game, config, tmp_path) as service:
        conns = {p: Connection(service.router_endpoint) for p in ("Ann", "Bob", "Cy")}
        for seat, conn in conns.items():
            conn.join(seat)
        for _ in range(40):
            actors = [p for p in to_act(service.session.game) if p in conns]
            if not actors:
                break
            seat = rng.choice(actors)
            cmd = rng.choice(service.session.game.legal_commands(seat)).to_dict()
            assert conns[seat].request(cmd.pop("type"), **cmd)["ok"]
        snap = Connection(service.router_endpoint).request("snapshot")
        seq = service.session.seq
        recent = snap["recent"]
        assert [r["seq"] for r in recent] == list(range(seq - RECENT_EVENTS + 1, seq + 1))
        stored = dict(service.session.store.events(after_seq=seq - RECENT_EVENTS))
        text = json.dumps(recent, sort_keys=True)
        assert '"secret"' not in text and '"private"' not in text
        for r in recent:
            assert r["event"] == service.session.adapter.public_event(stored[r["seq"]])
            for part in stored[r["seq"]].get("private", {}).values():
                for key, value in part.items():
                    assert f'"{key}": {json.dumps(value, sort_keys=True)}' not in json.dumps(
                        r["event"], sort_keys=True
                    )
        mirror = StateMirror(service.router_endpoint, service.pub_endpoint)
        assert [s for s, _ in mirror.events] == [r["seq"] for r in recent]
        mirror.close()
        out = client(service.router_endpoint, "Ann", "events", token=conns["Ann"].tokens["Ann"])
        assert "nothing has happened yet" not in out and len(out.splitlines()) > 10


# ---- 4. a draw ends the Add step ----------------------------------------------------------------
def test_draw_typed_in_the_add_step_ends_it_and_draws(tmp_path):
    with running_referee("masterplan", MASTER, tmp_path) as service:
        game = service.session.game
        first = game.current
        assert game.step == "add"
        out = client(service.router_endpoint, first, "draw")
        assert "ok: draw" in out and "refused" not in out
        assert game.current != first and len(game.hand(first)) == 5


# ---- 5. seats -------------------------------------------------------------------------------------
def test_camera_is_a_seat_only_where_a_camera_referees(tmp_path):
    store = EventStore(tmp_path / "g.sqlite")
    session = GameSession.start("masterplan", MASTER, 1, store)
    assert "camera" not in session.acting_seats()
    reply = session.handle(Request("j1", "join", "camera", {"type": "join"}), None).reply
    assert reply["error"]["code"] == "unknown_seat" and reply["error"]["message"].endswith(
        "seats: Ann, Bob, Cy"
    )
    session.camera_referees()
    assert session.acting_seats() == ["Ann", "Bob", "Cy", "camera"]
    assert session.handle(Request("j2", "join", "camera", {"type": "join"}), None).reply["ok"]
    store.close()


def test_seats_match_whatever_the_case_and_keep_their_spelling(tmp_path):
    with running_referee("masterplan", {**MASTER, "players": [
        {"name": "Zoe\u0308", "villain": "Z-Mask"}, *MASTER["players"][1:]
    ]}, tmp_path) as service:  # fmt: skip
        conn = Connection(service.router_endpoint)
        reply = conn.join("ZO\u00cb")  # upper case, precomposed
        assert reply["ok"] and reply["player"] == "Zoe\u0308"
        other = Connection(service.router_endpoint).join("zoë")
        assert other["error"]["code"] == "seat_taken"  # the same seat, not a new one
        out = client(service.router_endpoint, "bob", "view")
        assert "Bob (you)" in out
    assert seat_key("ANN") == seat_key("ann")


def test_setup_refuses_names_that_differ_only_by_case(tmp_path):
    with pytest.raises(SetupError, match="Ann and ann would be the same seat"):
        GAMES["theplan"].make_config(["Ann", "ann", "Bob"], {})
    with pytest.raises(SetupError, match="would be the same seat"):
        GAMES["masterplan"].make_config(["Ann", "Bob", "ANN"], {})
    done = subprocess.run(
        [sys.executable, "-m", "tabletop", "referee", "--game", "theplan", "--players", "Ann,ann,Bob"]
        + ["--db", str(tmp_path / "x.sqlite"), "--port", "6391"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "Ann and ann would be the same seat" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_command_naming_a_seat_matches_it_like_a_join(tmp_path):
    """The Plan's steward reports a Plan for a seat by name: 'ann' is Ann."""
    store = EventStore(tmp_path / "p.sqlite")
    session = GameSession.start("theplan", {**PLAN, "mode": "physical"}, 1, store)
    steward = session.reporters[0]
    reveal = session.game.legal_commands(steward)[0].to_dict()
    assert session.handle(Request("r", reveal["type"], steward, reveal), steward).reply["ok"]
    assert session.public_state()["phase"] == "report_plans"
    plan = next(c for c in session.game.legal_commands(steward) if c.seat == "Ann").to_dict()
    reply = session.handle(Request("p", "report_plan", steward, {**plan, "seat": "ANN"}), steward).reply
    assert reply["ok"], reply
    assert session.public_state()["players"]["Ann"]["committed"]
    store.close()


def test_a_draw_before_moving_asks_once_then_draws(tmp_path):
    with running_referee("masterplan", MASTER, tmp_path) as service:
        game = service.session.game
        conns = {p: Connection(service.router_endpoint) for p in ("Ann", "Bob", "Cy")}
        for seat, conn in conns.items():
            conn.join(seat)
        first = game.current
        x0, _ = game.outline(f"start:{first}").corners_mm[0]
        near = [[x0, 100], [x0 + 63, 100], [x0 + 63, 188], [x0, 188]]  # within reach of the start
        assert conns[first].request("place_card", card=game.hand(first)[0], corners=near)["ok"]
        for _ in range(3):  # the first round ends: a draw ends each Add step
            assert conns[game.current].request("draw")["ok"]
        assert game.current == first
        assert game.step == "move"
        token = conns[first].tokens[first]
        out = client(service.router_endpoint, first, "draw", "draw", token=token)
        assert "Drawing now skips your move and ends your turn" in out and "ok: draw" in out
        assert game.current != first


def test_space_ids_typed_in_another_case_are_the_tables(tmp_path):
    with running_referee("masterplan", MASTER, tmp_path) as service:
        view = Connection(service.router_endpoint).join("Bob")["view"]
        msg = parse_line("move to=START:ANN", "masterplan")
        match_table_ids(msg, view)
        assert msg == {"type": "move", "to": "start:Ann"}
        msg = parse_line("choose_target spaces=trophy,start:cy,S9", "masterplan")
        match_table_ids(msg, view)
        assert msg["spaces"] == ["trophy", "start:Cy", "S9"]


def test_pawn_colours_name_their_seats_in_any_case():
    from tabletop.commands.referee import _pawns

    assert _pawns("red=monster nash, blue=MS. FYRE", ["Monster Nash", "Ms. Fyre"]) == {
        "red": "Monster Nash",
        "blue": "Ms. Fyre",
    }
    with pytest.raises(CommandError, match="'Bob' is not a seat"):
        _pawns("red=Bob", ["Monster Nash", "Ms. Fyre"])


def test_the_stewards_view_of_a_physical_table_says_what_may_be_reported_and_draws_like_a_seats():
    """The steward's view (what a phone offers it) keeps a seat view's shape, so the terminal and
    the player display draw it too."""
    from display.player import render_player_view

    adapter = GAMES["theplan"]
    game, _ = adapter.setup(adapter.make_config(["ann", "bob", "cat"], {"mode": "physical"}), 3)
    view = adapter.player_view(game, "steward")
    assert view["you"] == {"player": "steward"} and view["reporters"] == ["steward"]
    report = view["report"]
    assert report["treasures_wanted"] == 5 and len(report["treasures"]) == view["piles"]["treasures"]
    assert screen_lines(view, [], "theplan") and render_player_view("theplan", view).size
    treasures, trinkets = sorted(report["treasures"])[:5], sorted(report["trinkets"])[:3]
    adapter.apply(
        game, {"type": "report_reveal", "player": "steward", "treasures": treasures, "trinkets": trinkets}
    )
    report = adapter.player_view(game, "steward")["report"]
    assert report["seats"] == ["ann", "bob", "cat"] and len(report["plans"]) == 72
