"""One test per Space card of the default deck (docs/rules-masterplan.md, "The default deck"),
plus the deck file itself."""

from __future__ import annotations

import json

import pytest
from test_masterplan_support import build, corners_at, event, state, types

from referee.masterplan import (
    TROPHY,
    ChooseTarget,
    ConfirmMeasurement,
    DeckError,
    Move,
    ReportPositions,
    RuleViolation,
    SkipStep,
    deck_from_dict,
    default_deck,
    load_deck,
)

NEAR_ANN = (1000.0, 150.0)


def test_default_deck_is_the_47_cards_of_rulings():
    counts = {c.name: c.count for c in default_deck().cards}
    assert counts == {
        "Trapdoor": 6, "Bomb": 4, "Laser Gun": 4, "Teleporter": 4, "Switch": 4,
        "Control Panel": 3, "Supply Drop": 6, "Rocket Boots": 4, "Tripwire": 4, "Empty Lair": 8,
    }  # fmt: skip
    assert default_deck().size == 47


@pytest.mark.parametrize(
    "patch, words",
    [
        ({"count": 0}, "'count' must be a whole number"),
        ({"count": "six"}, "'count' must be a whole number"),
        ({"kind": "curse"}, "'kind' must be one of"),
        ({"effect": [{"do": "explode"}]}, "unknown primitive 'explode'"),
        ({"effect": [{"do": "draw"}]}, "draw needs 'n'"),
        ({"effect": [{"do": "draw", "n": 0}]}, "draw needs 'n'"),
        ({"effect": [{"do": "nothing", "n": 2}]}, "nothing takes no parameter"),
        ({"effect": []}, "non-empty list"),
        ({"colour": "red"}, "unknown field(s) colour"),
    ],
)
def test_deck_file_is_validated_with_clear_errors(patch, words):
    data = default_deck().to_dict()
    data["cards"][1].update(patch)
    with pytest.raises(DeckError) as info:
        deck_from_dict(data, "my_deck.json")
    assert "my_deck.json: cards[1] (Bomb)" in str(info.value) and words in str(info.value)


def test_deck_file_rejects_duplicate_names_wrong_version_and_bad_json(tmp_path):
    data = default_deck().to_dict()
    data["cards"].append(dict(data["cards"][0]))
    with pytest.raises(DeckError, match="appears twice"):
        deck_from_dict(data)
    with pytest.raises(DeckError, match="version 9 is not supported"):
        deck_from_dict({**default_deck().to_dict(), "version": 9})
    bad = tmp_path / "deck.json"
    bad.write_text('{"cards": [')
    with pytest.raises(DeckError, match="not valid JSON"):
        load_deck(bad)
    with pytest.raises(DeckError, match="cannot read"):
        load_deck(tmp_path / "missing.json")


def test_a_group_can_rebalance_the_deck_in_the_file_without_code(tmp_path):
    data = default_deck().to_dict()
    data["cards"] = [c for c in data["cards"] if c["name"] != "Tripwire"]
    data["cards"].append(
        {
            "name": "Jetpack",
            "count": 5,
            "kind": "prize",
            "effect": [{"do": "extra_move"}, {"do": "draw", "n": 1}],
        }
    )
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data))
    deck = load_deck(path)
    assert deck.size == 47 - 4 + 5 and deck.card("Jetpack").effect[1].n == 1
    from referee.masterplan import MasterPlanConfig, MasterPlanGame, Seat

    game, _ = MasterPlanGame.setup(
        MasterPlanConfig(
            seats=(Seat("a", "Z-Mask"), Seat("b", "Ms. Fyre"), Seat("c", "Monster Nash")), deck=deck
        ),
        1,
    )
    assert game.card_count() == 48 and "Jetpack" in game.card_names


def test_trapdoor_destroys_its_space_and_every_pawn_on_it_falls():
    game = build(spaces={"S1": ("Trapdoor", NEAR_ANN, False)}, pawns={"bob": "S1"})
    events = game.apply(Move("ann", "S1"))
    assert event(events, "space_destroyed").public == {"space": "S1", "name": "Trapdoor", "by": "ann"}
    assert [e.public["player"] for e in events if e.type == "player_fell"] == ["ann", "bob"]
    assert "S1" not in game.spaces and game.position("bob") == "start:bob"


def test_bomb_destroys_its_space_and_every_destructible_space_within_reach():
    game = build(
        spaces={"S1": ("Bomb", NEAR_ANN, False), "S2": ("Empty Lair", (1100.0, 150.0), False),
                "S3": ("Empty Lair", (1000.0, 300.0), True), "S4": ("Empty Lair", (1220.0, 150.0), True)},
    )  # fmt: skip
    # S2 is 37 mm from S1, S3 is 62 mm, S4 is 157 mm (out of reach); ann's start is 18 mm away.
    game.apply(Move("ann", "S1"))
    assert set(game.spaces) - {"start:ann", "start:bob", "start:cat", TROPHY} == {"S4"}
    assert game.current == "bob"  # ann fell with her space


def test_bomb_chain_with_several_pawns_all_fall_in_turn_order():
    game = build(
        ("ann", "bob", "cat", "dan"),
        spaces={"S1": ("Bomb", NEAR_ANN, False), "S2": ("Empty Lair", (1100.0, 150.0), True),
                "S3": ("Empty Lair", (1000.0, 256.0), True)},
        pawns={"cat": "S2", "bob": "S3", "dan": "S2"},
    )  # fmt: skip
    events = game.apply(Move("ann", "S1"))
    assert [e.public["player"] for e in events if e.type == "player_fell"] == ["ann", "bob", "cat", "dan"]
    assert all(game.position(p) == f"start:{p}" for p in ("ann", "bob", "cat", "dan"))
    assert game.card_count() == 47


def test_laser_gun_destroys_a_chosen_destructible_space_anywhere():
    game = build(
        spaces={"S1": ("Laser Gun", NEAR_ANN, False), "S9": ("Empty Lair", (200.0, 600.0), False)},
        pawns={"cat": "S9"},
    )
    events = game.apply(Move("ann", "S1"))
    need = event(events, "choice_needed").public
    assert need["effect"] == "destroy_chosen" and set(need["options"]) == {
        "S1",
        "S9",
    }  # never a start or the Trophy
    with pytest.raises(RuleViolation) as info:
        game.apply(ChooseTarget("ann", ("start:bob",)))
    assert info.value.code == "not_an_option"
    with pytest.raises(RuleViolation):
        game.apply(SkipStep("ann"))  # the Laser Gun must fire
    events = game.apply(ChooseTarget("ann", ("S9",)))
    assert event(events, "space_destroyed").public["name"] is None  # destroyed face-down: stays secret
    assert game.position("cat") == "start:cat" and game.step == "add"


def test_only_the_effects_owner_makes_its_choice():
    game = build(spaces={"S1": ("Laser Gun", NEAR_ANN, False)})
    game.apply(Move("ann", "S1"))
    with pytest.raises(RuleViolation) as info:
        game.apply(ChooseTarget("bob", ("S1",)))
    assert info.value.code == "not_your_choice"


def test_teleporter_moves_to_a_face_up_space_but_never_the_trophy():
    game = build(spaces={"S1": ("Teleporter", NEAR_ANN, False), "S2": ("Empty Lair", (300.0, 500.0), True),
                         "S3": ("Bomb", (500.0, 500.0), False)})  # fmt: skip
    events = game.apply(Move("ann", "S1"))
    options = event(events, "choice_needed").public["options"]
    assert "S2" in options and "start:cat" in options and TROPHY not in options and "S3" not in options
    events = game.apply(ChooseTarget("ann", ("S2",)))
    assert event(events, "pawn_moved").public["kind"] == "teleport" and game.position("ann") == "S2"
    assert game.step == "add"  # not a free move, and it grants none


def test_teleporter_is_optional():
    game = build(spaces={"S1": ("Teleporter", NEAR_ANN, False)})
    game.apply(Move("ann", "S1"))
    game.apply(SkipStep("ann"))
    assert game.position("ann") == "S1" and game.step == "add"


def test_switch_swaps_two_spaces_after_the_new_positions_are_reported_and_pawns_ride_along():
    game = build(spaces={"S1": ("Switch", NEAR_ANN, False), "S2": ("Empty Lair", (300.0, 500.0), True),
                         "S3": ("Empty Lair", (500.0, 500.0), True)}, pawns={"bob": "S2"})  # fmt: skip
    events = game.apply(Move("ann", "S1"))
    assert set(event(events, "choice_needed").public["options"]) == {
        "S1",
        "S2",
        "S3",
    }  # never a start or the Trophy
    with pytest.raises(RuleViolation) as info:
        game.apply(ChooseTarget("ann", ("S2",)))
    assert info.value.code == "wrong_count"
    events = game.apply(ChooseTarget("ann", ("S2", "S3")))
    assert event(events, "positions_needed").public["spaces"] == ["S2", "S3"]
    before = state(game)
    for bad, code in [
        (ReportPositions("camera", (("S2", corners_at(500, 500)),)), "wrong_cards"),
        (ReportPositions("camera", (("S2", corners_at(500, 500)), ("S3", corners_at(1000, 150)))), "overlap"),
        (
            ReportPositions("camera", (("S2", corners_at(500, 500)), ("S3", corners_at(300, 700)))),
            "not_swapped",
        ),
    ]:
        with pytest.raises(RuleViolation) as info:
            game.apply(bad)
        assert info.value.code == code and state(game) == before
    game.apply(ReportPositions("camera", (("S2", corners_at(500, 500)), ("S3", corners_at(300, 500)))))
    assert game.position("bob") == "S2" and game.outline("S2").center_mm == (500.0, 500.0)
    assert game.step == "add"


def test_control_panel_relocates_one_space_by_adds_rules():
    game = build(spaces={"S1": ("Control Panel", NEAR_ANN, False), "S2": ("Empty Lair", (300.0, 500.0), True)},
                 pawns={"cat": "S2"})  # fmt: skip
    game.apply(Move("ann", "S1"))
    game.apply(ChooseTarget("ann", ("S2",)))
    with pytest.raises(RuleViolation) as info:
        game.apply(ReportPositions("bob", (("S2", corners_at(1010, 160)),)))
    assert info.value.code == "overlap"
    game.apply(ReportPositions("bob", (("S2", corners_at(700, 400, 45)),)))
    assert game.position("cat") == "S2" and game.outline("S2").center_mm == pytest.approx((700.0, 400.0))
    assert game.graph.reach("S2", "start:cat").verdict.value == "illegal"


def test_supply_drop_draws_two_cards():
    game = build(spaces={"S1": ("Supply Drop", NEAR_ANN, False)}, deck_top=["Bomb", "Switch"])
    events = game.apply(Move("ann", "S1"))
    drawn = event(events, "cards_drawn")
    assert drawn.public == {"player": "ann", "count": 2}
    assert [c["name"] for c in drawn.private["ann"]["cards"]] == ["Bomb", "Switch"]


def test_rocket_boots_give_an_extra_move_that_may_enter_the_trophy():
    game = build(spaces={"S0": ("Empty Lair", (600.0, 540.0), True), "S1": ("Rocket Boots", (600.0, 650.0), False)},
                 pawns={"ann": "S0"})  # fmt: skip
    events = game.apply(Move("ann", "S1"))
    assert "extra_move_offered" in types(events)
    game.apply(Move("ann", TROPHY))
    assert game.winner == "ann"


def test_rocket_boots_extra_move_can_be_declined():
    game = build(spaces={"S1": ("Rocket Boots", NEAR_ANN, False)})
    game.apply(Move("ann", "S1"))
    game.apply(SkipStep("ann"))
    assert game.position("ann") == "S1" and game.step == "add"


def test_tripwire_ends_the_turn_no_free_move_no_add_no_draw():
    game = build(spaces={"S1": ("Empty Lair", NEAR_ANN, True), "S2": ("Tripwire", (1000.0, 256.0), False)},
                 hands={"ann": ["Bomb"]})  # fmt: skip
    game.apply(Move("ann", "S1"))
    events = game.apply(Move("ann", "S2"))
    assert "turn_cut_short" in types(events) and game.current == "bob" and len(game.hand("ann")) == 1


def test_empty_lair_does_nothing():
    game = build(spaces={"S1": ("Empty Lair", NEAR_ANN, False)})
    events = game.apply(Move("ann", "S1"))
    assert types(events) == ["command_accepted", "pawn_moved", "space_flipped", "step_started"]


def test_bomb_close_call_waits_for_a_measurement_under_the_ask_policy():
    game = build(
        spaces={"S1": ("Bomb", (1000.0, 300.0), False), "S2": ("Empty Lair", (1000.0 + 63 + 62.5, 300.0), True),
                "S0": ("Empty Lair", (1000.0, 150.0), True)},
        sigma={"S2": 0.5}, pawns={"ann": "S0", "bob": "S2"},
    )  # fmt: skip
    events = game.apply(Move("ann", "S1"))
    assert event(events, "measurement_needed").public["to"] == "S2" and "S1" in game.spaces
    events = game.apply(ConfirmMeasurement("cat", True))
    assert {e.public["space"] for e in events if e.type == "space_destroyed"} == {"S0", "S1", "S2"}
    assert game.position("bob") == "start:bob"
