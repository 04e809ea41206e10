"""Setup, the physical deck mode, command JSON, event splitting, views and replay."""

from __future__ import annotations

import json

import pytest
from test_masterplan_support import START_X, build, corners_at, event, state, types

from referee.masterplan import (
    COMMAND_TYPES,
    TROPHY,
    VILLAINS,
    ChooseTarget,
    CommandFormatError,
    ConfigError,
    ConfirmMeasurement,
    Draw,
    MasterPlanConfig,
    MasterPlanGame,
    Move,
    Peek,
    PlaceCard,
    PlayCard,
    ReplayMismatch,
    ReportIdentity,
    ReportPositions,
    RuleViolation,
    Seat,
    SendMinion,
    SkipStep,
    command_from_dict,
    private_events_for,
    public_event,
)
from referee.masterplan.waits import CardName


def config(n: int = 3, **kw) -> MasterPlanConfig:
    return MasterPlanConfig(seats=tuple(Seat(f"p{i}", VILLAINS[i]) for i in range(n)), **kw)


# ---- setup ------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_setup_deals_four_cards_each_and_starts_rightmost_first(n):
    game, events = MasterPlanGame.setup(config(n), seed=n)
    assert all(len(game.hand(p)) == 4 for p in game.order)
    xs = [game.outline(f"start:{p}").center_mm[0] for p in game.order]
    assert xs == sorted(xs, reverse=True) and game.current == game.order[0]
    assert len(game.deck) == 47 - 4 * n and game.card_count() == 47
    assert types(events) == ["game_set_up"] + ["cards_drawn"] * n + ["turn_started"]


def test_default_layout_puts_starts_one_long_card_apart_and_the_trophy_610_mm_away():
    game, _ = MasterPlanGame.setup(config(4), seed=1)
    starts = [game.outline(f"start:{p}") for p in game.order]
    xs = sorted(c.center_mm[0] for c in starts)
    assert all(abs((b - a) - (63 + 88)) < 1e-9 for a, b in zip(xs, xs[1:]))  # 88 mm between cards
    assert all(c.center_mm[1] == 44.0 for c in starts)
    trophy_bottom = min(y for _, y in game.outline(TROPHY).corners_mm)
    assert trophy_bottom - 88.0 == pytest.approx(610.0)


def test_turn_order_follows_given_starting_card_positions():
    cfg = MasterPlanConfig(
        seats=(Seat("a", "Z-Mask"), Seat("b", "Ms. Fyre"), Seat("c", "Monster Nash")),
        starting_cards={"a": corners_at(100, 44), "b": corners_at(500, 44), "c": corners_at(300, 44)},
        trophy=corners_at(300, 700),
    )
    game, _ = MasterPlanGame.setup(cfg, 0)
    assert game.order == ["b", "c", "a"]


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: config(2), "3 to 6 players"),
        (
            lambda: MasterPlanConfig(seats=tuple(Seat(f"p{i}", VILLAINS[i % 6]) for i in range(7))),
            "3 to 6 players",
        ),
        (
            lambda: MasterPlanConfig(
                seats=(Seat("a", "Z-Mask"), Seat("a", "Ms. Fyre"), Seat("c", "Monster Nash"))
            ),
            "same name",
        ),
        (
            lambda: MasterPlanConfig(
                seats=(Seat("a", "Z-Mask"), Seat("b", "Z-Mask"), Seat("c", "Monster Nash"))
            ),
            "same villain",
        ),
        (
            lambda: MasterPlanConfig(
                seats=(Seat("a", "Batman"), Seat("b", "Z-Mask"), Seat("c", "Monster Nash"))
            ),
            "not one of",
        ),
        (lambda: config(3, deck_mode="virtual"), "deck_mode"),
        (lambda: MasterPlanConfig.from_dict({"players": "abc"}), "list"),
    ],
)
def test_bad_setups_are_refused_in_words(make, words):
    with pytest.raises(ConfigError, match=words):
        make()


def test_overlapping_setup_cards_are_refused():
    cfg = MasterPlanConfig(
        seats=(Seat("a", "Z-Mask"), Seat("b", "Ms. Fyre"), Seat("c", "Monster Nash")),
        starting_cards={"a": corners_at(100, 44), "b": corners_at(130, 44), "c": corners_at(300, 44)},
        trophy=corners_at(300, 700),
    )
    with pytest.raises(ConfigError, match="overlaps"):
        MasterPlanGame.setup(cfg, 0)


def test_same_seed_and_commands_give_byte_identical_events_and_other_seeds_differ():
    def run(seed: int) -> str:
        game, events = MasterPlanGame.setup(config(4, villain_powers=True), seed)
        for _ in range(3):
            events += game.apply(SkipStep(game.current))
        return json.dumps([e.to_dict() for e in events], sort_keys=True)

    assert run(7) == run(7)
    assert run(7) != run(8)


# ---- physical deck -------------------------------------------------------------------------------
def test_physical_flip_waits_for_the_reported_identity_then_resolves_it():
    game = build(mode="physical", spaces={"S1": (None, (1000.0, 150.0), False)})
    events = game.apply(Move("ann", "S1"))
    assert event(events, "identity_needed").public["space"] == "S1" and isinstance(game.waiting, CardName)
    before = state(game)
    for bad, code in [
        (ReportIdentity("camera", "Banana", "S1"), "unknown_card"),
        (ReportIdentity("camera", "Bomb", None), "wrong_card"),
        (SkipStep("ann"), "waiting"),
    ]:
        with pytest.raises(RuleViolation) as info:
            game.apply(bad)
        assert info.value.code == code and state(game) == before
    events = game.apply(ReportIdentity("camera", "Supply Drop", "S1"))
    assert event(events, "space_flipped").public["name"] == "Supply Drop"
    assert len(game.hand("ann")) == 2 and game.hand("ann") == [None, None]


def test_physical_report_refuses_more_copies_than_the_deck_has():
    spaces = {f"T{i}": ("Control Panel", (200.0 + 100 * i, 500.0), True) for i in range(3)}
    game = build(mode="physical", spaces={**spaces, "S1": (None, (1000.0, 150.0), False)})
    game.apply(Move("ann", "S1"))
    with pytest.raises(RuleViolation) as info:
        game.apply(ReportIdentity("ann", "Control Panel", "S1"))
    assert info.value.code == "too_many" and "All 3 Control Panel" in info.value.message


def test_physical_hands_are_counted_and_placements_carry_no_card_number():
    game = build(mode="physical", step="add", hands={"ann": [None, None]})
    with pytest.raises(RuleViolation) as info:
        game.apply(PlaceCard("ann", corners_at(1000, 150), card=3))
    assert info.value.code == "physical_deck"
    events = game.apply(PlaceCard("ann", corners_at(1000, 150)))
    assert event(events, "card_placed").private == {} and len(game.hand("ann")) == 1
    assert game.player_view("ann")["hand"] is None and game.card_count() == 47


def test_physical_ms_fyre_play_waits_for_the_card_name():
    game = build(("ann", "dan", "eve"), mode="physical", powers=True, current="dan", hands={"dan": [None]})
    game.apply(PlayCard("dan"))
    assert game.waiting.space is None
    game.apply(ReportIdentity("dan", "Supply Drop"))
    assert len(game.hand("dan")) == 2 and game.step == "add"


def test_report_identity_is_refused_with_a_digital_deck():
    with pytest.raises(RuleViolation) as info:
        build().apply(ReportIdentity("camera", "Bomb", "S1"))
    assert info.value.code == "digital_deck"


# ---- commands as JSON -----------------------------------------------------------------------------
ALL_COMMANDS = [
    Move("ann", "S1"),
    Move("fay", "S2", flip=False),
    SkipStep("ann"),
    PlaceCard("ann", corners_at(1, 2), card=5, space="cam-7", sigma_mm=0.4),
    PlaceCard("ann", corners_at(1, 2)),
    Draw("eve"),
    Draw("eve", "S3"),
    ChooseTarget("ann", ("S1", "S2")),
    ReportPositions("camera", (("S1", corners_at(1, 2)), ("S2", corners_at(300, 2)))),
    ReportIdentity("camera", "Bomb", "S1"),
    ReportIdentity("dan", "Bomb"),
    ConfirmMeasurement("bob", False),
    SendMinion("ann", "S1"),
    PlayCard("dan", 3),
    Peek("cat", "S4"),
]


def test_every_command_type_round_trips_through_json():
    assert {c.type for c in ALL_COMMANDS} == set(COMMAND_TYPES)
    for c in ALL_COMMANDS:
        d = json.loads(json.dumps(c.to_dict()))
        assert d["type"] == c.type and command_from_dict(d) == c


@pytest.mark.parametrize(
    "data, words",
    [
        ({"type": "fly", "player": "a"}, "unknown command type 'fly'"),
        ({"type": "move", "player": "a"}, "needs the field 'to'"),
        ({"type": "move", "player": "a", "to": 3}, "move.to must be a non-empty string"),
        ({"type": "move", "player": "a", "to": "S1", "speed": 2}, "no field(s) speed"),
        ({"type": "place_card", "player": "a", "corners": [[0, 0], [1, 1]]}, "4 corners"),
        (
            {"type": "place_card", "player": "a", "corners": [[0, 0], [1, 1], [2, "x"], [3, 3]]},
            "finite numbers",
        ),
        ({"type": "confirm_measurement", "player": "a", "legal": "yes"}, "true or false"),
        ("move", "JSON object"),
    ],
)
def test_malformed_commands_get_clear_errors(data, words):
    with pytest.raises(CommandFormatError) as info:
        command_from_dict(data)
    assert words in str(info.value)


# ---- events and views -----------------------------------------------------------------------------
def test_drawn_cards_go_only_to_the_drawer():
    game, events = MasterPlanGame.setup(config(3), 5)
    first = events[1]
    p = first.public["player"]
    assert first.public == {"player": p, "count": 4} and "cards" not in public_event(first)
    assert len(private_events_for(first, p)["cards"]) == 4
    assert all(private_events_for(first, q) is None for q in game.order if q != p)
    assert "seed" not in json.dumps(public_event(events[0]))


def test_public_view_hides_face_down_identities_hands_and_deck_order():
    game = build(
        spaces={"S1": ("Bomb", (300, 500), False), "S2": ("Switch", (500, 500), True)},
        hands={"ann": ["Teleporter"]},
    )
    text = json.dumps(game.public_view())
    assert "Bomb" not in text and "Teleporter" not in text and "Switch" in text
    assert '"card"' not in text and '"hand"' not in text
    mine = game.player_view("ann")
    assert mine["hand"][0]["name"] == "Teleporter" and "Bomb" not in json.dumps(game.player_view("bob"))


def test_player_view_remembers_the_identity_of_cards_you_placed():
    game = build(step="add", hands={"ann": ["Bomb"]})
    game.apply(PlaceCard("ann", corners_at(1000, 150), card=game.hand("ann")[0]))
    assert game.player_view("ann")["known_face_down"] == {"S1": "Bomb"}
    assert game.player_view("bob")["known_face_down"] == {}


def test_legal_moves_list_each_destination_with_gap_and_verdict():
    game = build(
        spaces={
            "S1": ("Bomb", (START_X["ann"], 150.0), False),
            "S2": ("Bomb", (START_X["ann"] + 120, 44.0), True),
        }
    )
    moves = {m["to"]: m for m in game.legal_moves("ann")}
    assert (
        moves["S1"]["gap_mm"] == pytest.approx(18.0)
        and moves["S1"]["verdict"] == "legal"
        and moves["S1"]["flips"]
    )
    assert moves["S2"]["gap_mm"] == pytest.approx(57.0) and not moves["S2"]["flips"]
    assert {c.to for c in game.legal_commands("ann") if isinstance(c, Move)} == set(moves)
    assert game.legal_moves("bob") == []


def test_replay_of_the_event_log_rebuilds_the_same_game():
    game, events = MasterPlanGame.setup(config(3, villain_powers=True), 11)
    for _ in range(6):
        events += game.apply(SkipStep(game.current))
    again = MasterPlanGame.replay([json.loads(json.dumps(e.to_dict())) for e in events])
    assert state(again) == state(game)


def test_replay_refuses_an_edited_log():
    game, events = MasterPlanGame.setup(config(3), 11)
    events += game.apply(SkipStep(game.current))
    forged = [e.to_dict() for e in events]
    forged[-1]["public"]["step"] = "move"
    with pytest.raises(ReplayMismatch):
        MasterPlanGame.replay(forged)
    with pytest.raises(ReplayMismatch):
        MasterPlanGame.replay(forged[1:])


def test_choose_target_without_a_pending_choice_is_refused():
    with pytest.raises(RuleViolation) as info:
        build().apply(ChooseTarget("ann", ("S1",)))
    assert info.value.code == "nothing_to_answer"
