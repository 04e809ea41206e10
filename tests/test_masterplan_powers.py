"""One test per villain power, exactly as docs/rules-masterplan.md words them (optional rule, per game)."""

from __future__ import annotations

import pytest
from test_masterplan_support import START_X, build, corners_at, event, state, types

from referee.masterplan import (
    ChooseTarget,
    Draw,
    Move,
    Peek,
    PlaceCard,
    PlayCard,
    RuleViolation,
    SendMinion,
    SkipStep,
    private_events_for,
    public_event,
)

SIX = ("ann", "bob", "cat", "dan", "eve", "fay")


def above(player: str, dy: float = 106.0) -> tuple[float, float]:
    """A card centre straight above `player`'s starting card (gap dy - 88 mm)."""
    return (START_X[player], 44.0 + dy)


def refuse(game, command, code):
    before = state(game)
    with pytest.raises(RuleViolation) as info:
        game.apply(command)
    assert info.value.code == code, info.value
    assert state(game) == before
    return info.value


def test_powers_are_off_unless_chosen_for_the_game():
    game = build(SIX, spaces={"S1": ("Bomb", above("ann"), False)})
    refuse(game, SendMinion("ann", "S1"), "no_such_power")


def test_z_mask_minion_flips_a_card_he_could_move_to_and_he_makes_its_choices():
    game = build(SIX, powers=True, spaces={"S1": ("Laser Gun", above("ann"), False), "S2": ("Empty Lair", (300.0, 500.0), True)},
                 pawns={"cat": "S2"})  # fmt: skip
    events = game.apply(SendMinion("ann", "S1"))
    assert event(events, "space_flipped").public["by"] == "ann" and game.position("ann") == "start:ann"
    game.apply(ChooseTarget("ann", ("S2",)))
    assert game.position("cat") == "start:cat"
    assert game.step == "move"  # the minion went before his Move; he may still move
    game.apply(Move("ann", "S1"))
    assert game.position("ann") == "S1"


def test_z_mask_minion_teleporter_moves_z_mask_not_the_minion():
    game = build(
        SIX,
        powers=True,
        spaces={"S1": ("Teleporter", above("ann"), False), "S2": ("Empty Lair", (300.0, 500.0), True)},
    )
    game.apply(SendMinion("ann", "S1"))
    game.apply(ChooseTarget("ann", ("S2",)))
    assert game.position("ann") == "S2"


def test_z_mask_minion_only_flips_face_down_cards_in_reach_once_per_turn_before_moving():
    game = build(SIX, powers=True, spaces={"S1": ("Empty Lair", above("ann"), False), "S2": ("Empty Lair", above("ann", 300), False),
                                          "S3": ("Empty Lair", (1100.0, 150.0), True)})  # fmt: skip
    refuse(game, SendMinion("ann", "S2"), "out_of_reach")
    refuse(game, SendMinion("ann", "S3"), "already_face_up")
    game.apply(SendMinion("ann", "S1"))
    refuse(game, SendMinion("ann", "S1"), "power_used")
    game.apply(Move("ann", "S3"))
    refuse(
        build(SIX, powers=True, step="add", spaces={"S1": ("Empty Lair", above("ann"), False)}),
        SendMinion("ann", "S1"),
        "wrong_step",
    )


def test_z_mask_minion_never_claims_the_trophy():
    game = build(SIX, powers=True, spaces={"S1": ("Empty Lair", (600.0, 680.0), True)}, pawns={"ann": "S1"})
    refuse(game, SendMinion("ann", "trophy"), "already_face_up")
    assert not game.game_over


def test_z_mask_minion_trapdoor_drops_pawns_on_it_but_z_mask_stays():
    game = build(SIX, powers=True, spaces={"S1": ("Trapdoor", above("ann"), False)}, pawns={"bob": "S1"})
    game.apply(SendMinion("ann", "S1"))
    assert game.position("bob") == "start:bob" and game.current == "ann"


def test_badmahn_draws_one_card_after_placing_his_third_card_in_one_add_step():
    game = build(
        SIX, powers=True, current="bob", step="add", hands={"bob": ["Empty Lair"] * 5}, deck_top=["Bomb"]
    )
    xs = [850.0, 950.0, 1050.0, 1150.0]
    for x in xs[:3]:
        events = game.apply(PlaceCard("bob", corners_at(x, 250.0), card=game.hand("bob")[0]))
    assert "power_used" in types(events) and event(events, "cards_drawn").public["count"] == 1
    bomb = next(c for c in game.hand("bob") if game.card_name(c) == "Bomb")
    game.apply(PlaceCard("bob", corners_at(xs[3], 250.0), card=bomb))  # may place it at once
    assert len(game.hand("bob")) == 2


def test_badmahn_gets_at_most_one_extra_card_per_turn():
    game = build(SIX, powers=True, current="bob", step="add", hands={"bob": ["Empty Lair"] * 6})
    for i in range(6):
        events = game.apply(PlaceCard("bob", corners_at(700.0 + 100 * i, 250.0), card=game.hand("bob")[0]))
        assert ("power_used" in types(events)) == (i == 2)
    assert len(game.hand("bob")) == 1


def test_mysterious_m_peeks_at_one_face_down_card_at_the_end_of_his_turn_privately():
    game = build(SIX, powers=True, current="cat", step="draw", spaces={"S1": ("Bomb", (300.0, 500.0), False)})
    game.apply(Draw("cat"))
    assert game.step == "peek" and game.current == "cat"
    events = game.apply(Peek("cat", "S1"))
    peek = event(events, "peeked")
    assert "Bomb" not in str(public_event(peek)) and private_events_for(peek, "cat")["name"] == "Bomb"
    assert all(private_events_for(peek, p) is None for p in SIX if p != "cat")
    assert game.current == "dan"
    assert game.player_view("cat")["known_face_down"] == {"S1": "Bomb"}
    assert "S1" not in game.player_view("dan")["known_face_down"]
    assert "Bomb" not in str(game.public_view())


def test_mysterious_m_may_skip_the_peek():
    game = build(SIX, powers=True, current="cat", step="draw", spaces={"S1": ("Bomb", (300.0, 500.0), False)})
    game.apply(Draw("cat"))
    game.apply(SkipStep("cat"))
    assert game.current == "dan"


def test_ms_fyre_plays_a_card_from_hand_instead_of_moving():
    game = build(
        SIX,
        powers=True,
        current="dan",
        hands={"dan": ["Supply Drop"]},
        spaces={"S1": ("Empty Lair", above("dan"), True)},
    )
    events = game.apply(PlayCard("dan", game.hand("dan")[0]))
    assert event(events, "card_played").public == {"player": "dan", "name": "Supply Drop"}
    assert len(game.hand("dan")) == 2 and game.step == "add" and game.card_count() == 47
    refuse(game, Move("dan", "S1"), "wrong_step")  # the play replaced her entire move


def test_ms_fyre_bomb_destroys_her_own_space_and_those_within_reach_so_she_falls():
    game = build(SIX, powers=True, current="dan", hands={"dan": ["Bomb"]},
                 spaces={"S1": ("Empty Lair", above("dan"), True), "S2": ("Empty Lair", (550.0, 256.0), True)},
                 pawns={"dan": "S1", "eve": "S2"})  # fmt: skip
    events = game.apply(PlayCard("dan", game.hand("dan")[0]))
    fell = [e.public["player"] for e in events if e.type == "player_fell"]
    assert fell == ["dan", "eve"] and game.current == "eve"


def test_ms_fyre_cannot_play_after_moving():
    game = build(
        SIX,
        powers=True,
        current="dan",
        hands={"dan": ["Bomb"]},
        spaces={"S1": ("Empty Lair", above("dan"), False)},
    )
    game.apply(Move("dan", "S1"))
    refuse(game, PlayCard("dan", game.hand("dan")[0]), "wrong_step")


def test_plutonian_poacher_draws_a_face_up_unoccupied_space_publicly():
    game = build(SIX, powers=True, current="eve", step="draw",
                 spaces={"S1": ("Laser Gun", (300.0, 500.0), True), "S2": ("Bomb", (500.0, 500.0), True)},
                 pawns={"ann": "S2"})  # fmt: skip
    refuse(game, Draw("eve", "S2"), "occupied")
    events = game.apply(Draw("eve", "S1"))
    assert event(events, "card_taken_from_table").public == {
        "player": "eve",
        "space": "S1",
        "name": "Laser Gun",
    }
    assert game.card_name(game.hand("eve")[0]) == "Laser Gun" and game.current == "fay"


def test_plutonian_poacher_may_take_table_cards_for_a_supply_drop():
    game = build(SIX, powers=True, current="eve",
                 spaces={"S1": ("Supply Drop", above("eve"), False), "S2": ("Bomb", (300.0, 500.0), True)})  # fmt: skip
    events = game.apply(Move("eve", "S1"))
    assert event(events, "choice_needed").public["effect"] == "draw"
    game.apply(ChooseTarget("eve", ("S2",)))
    assert len(game.hand("eve")) == 2 and "S2" not in game.spaces


def test_monster_nash_moves_onto_a_face_down_space_without_flipping():
    game = build(SIX, powers=True, current="fay",
                 spaces={"S1": ("Bomb", above("fay"), False), "S2": ("Empty Lair", above("fay", 212), False)})  # fmt: skip
    events = game.apply(Move("fay", "S1", flip=False))
    assert (
        "space_flipped" not in types(events)
        and not game.spaces["S1"].face_up
        and game.position("fay") == "S1"
    )


def test_monster_nash_must_flip_when_leaving_a_face_down_space():
    game = build(SIX, powers=True, current="fay", pawns={"fay": "S1"},
                 spaces={"S1": ("Bomb", above("fay"), False), "S2": ("Empty Lair", above("fay", 212), False)})  # fmt: skip
    refuse(game, Move("fay", "S2", flip=False), "must_flip")
    game.apply(Move("fay", "S2"))
    assert game.spaces["S2"].face_up


def test_only_monster_nash_moves_without_flipping():
    game = build(SIX, powers=True, spaces={"S1": ("Bomb", above("ann"), False)})
    refuse(game, Move("ann", "S1", flip=False), "no_such_power")


def test_monster_nash_space_is_immune_to_switch_and_control_panel():
    game = build(SIX, powers=True,
                 spaces={"S1": ("Switch", above("ann"), False), "S2": ("Empty Lair", (300.0, 500.0), True),
                         "S3": ("Empty Lair", (500.0, 500.0), True), "S4": ("Control Panel", (700.0, 500.0), True)},
                 pawns={"fay": "S2"})  # fmt: skip
    events = game.apply(Move("ann", "S1"))
    assert "S2" not in event(events, "choice_needed").public["options"]
    refuse(game, ChooseTarget("ann", ("S2", "S3")), "not_an_option")
    panel = build(SIX, powers=True, pawns={"fay": "S2"},
                  spaces={"S1": ("Control Panel", above("ann"), False), "S2": ("Empty Lair", (300.0, 500.0), True)})  # fmt: skip
    events = panel.apply(Move("ann", "S1"))
    assert event(events, "choice_needed").public["options"] == ["S1"]


def test_monster_nash_on_a_face_down_trapdoor_destroyed_by_a_laser_gun_falls():
    game = build(SIX, powers=True,
                 spaces={"S1": ("Laser Gun", above("ann"), False), "S2": ("Trapdoor", (300.0, 500.0), False)},
                 pawns={"fay": "S2"})  # fmt: skip
    game.apply(Move("ann", "S1"))
    events = game.apply(ChooseTarget("ann", ("S2",)))
    assert event(events, "space_revealed").public == {"space": "S2", "name": "Trapdoor"}
    assert event(events, "player_fell").public["player"] == "fay" and game.position("fay") == "start:fay"


def test_monster_nash_on_a_face_down_bomb_destroyed_by_a_laser_gun_sets_it_off():
    game = build(SIX, powers=True,
                 spaces={"S1": ("Laser Gun", above("ann"), False), "S2": ("Bomb", (300.0, 500.0), False),
                         "S3": ("Empty Lair", (400.0, 500.0), True)},
                 pawns={"fay": "S2", "eve": "S3"})  # fmt: skip
    game.apply(Move("ann", "S1"))
    events = game.apply(ChooseTarget("ann", ("S2",)))
    assert [e.public["space"] for e in events if e.type == "space_destroyed"] == ["S2", "S3"]
    assert [e.public["player"] for e in events if e.type == "player_fell"] == ["fay", "eve"]


def test_a_face_down_bomb_without_nash_on_it_does_not_go_off_when_destroyed():
    game = build(SIX, powers=True,
                 spaces={"S1": ("Laser Gun", above("ann"), False), "S2": ("Bomb", (300.0, 500.0), False),
                         "S3": ("Empty Lair", (400.0, 500.0), True)},
                 pawns={"eve": "S2"})  # fmt: skip
    game.apply(Move("ann", "S1"))
    events = game.apply(ChooseTarget("ann", ("S2",)))
    assert "space_revealed" not in types(events) and "S3" in game.spaces


def test_monster_nash_face_down_bomb_goes_off_even_when_the_turn_ends_by_a_fall():
    # ann's own Bomb (S1) destroys S2 under Nash; ann falls, which ends her turn, but the Bomb
    # under Nash was already set off: it goes off with Nash on it and takes S3 (and eve) too.
    game = build(SIX, powers=True,
                 spaces={"S1": ("Bomb", above("ann"), False), "S2": ("Bomb", (1100.0, 150.0), False),
                         "S3": ("Empty Lair", (1220.0, 150.0), True)},
                 pawns={"fay": "S2", "eve": "S3"})  # fmt: skip
    assert game.graph.reach("S1", "S3").verdict.value == "illegal"  # only S2's blast reaches S3
    events = game.apply(Move("ann", "S1"))
    t = types(events)
    assert event(events, "space_revealed").public == {"space": "S2", "name": "Bomb"}
    assert [e.public["space"] for e in events if e.type == "space_destroyed"] == ["S1", "S2", "S3"]
    assert [e.public["player"] for e in events if e.type == "player_fell"] == ["ann", "fay", "eve"]
    assert t.index("space_revealed") < t.index("turn_ended") and game.current == "bob"
    assert "S3" not in game.spaces and game.position("eve") == "start:eve"
    assert game.card_count() == 47


def test_plutonian_poacher_who_falls_on_another_players_turn_may_take_table_cards():
    # "When he would draw": the fall's draw too. eve answers her own choice on ann's turn.
    game = build(SIX, powers=True,
                 spaces={"S1": ("Laser Gun", above("ann"), False), "S2": ("Empty Lair", (300.0, 500.0), True),
                         "S4": ("Rocket Boots", (500.0, 500.0), True)},
                 pawns={"eve": "S2"}, hands={"eve": ["Trapdoor"]})  # fmt: skip
    game.apply(Move("ann", "S1"))
    events = game.apply(ChooseTarget("ann", ("S2",)))
    need = event(events, "choice_needed").public
    assert need["player"] == "eve" and need["effect"] == "draw" and need["count"] == 4
    assert need["options"] == ["S4"]  # S1 is ann's (occupied); S2 was destroyed
    assert game.position("eve") == "start:eve" and game.hand("eve") == []
    assert game.to_act() == "eve"
    assert game.legal_commands("ann") == []
    assert set(game.legal_commands("eve")) == {ChooseTarget("eve", ("S4",)), SkipStep("eve")}
    refuse(game, ChooseTarget("ann", ("S4",)), "not_your_choice")
    refuse(game, SkipStep("ann"), "not_your_choice")
    refuse(game, SkipStep("bob"), "not_your_choice")
    events = game.apply(ChooseTarget("eve", ("S4",)))
    assert event(events, "card_taken_from_table").public["player"] == "eve"
    assert len(game.hand("eve")) == 4 and game.card_name(game.hand("eve")[0]) == "Rocket Boots"
    assert game.current == "ann" and game.step == "add" and game.to_act() == "ann"
    assert game.card_count() == 47


def test_plutonian_poacher_may_decline_the_table_on_his_fall_and_draw_from_the_deck():
    game = build(SIX, powers=True,
                 spaces={"S1": ("Laser Gun", above("ann"), False), "S2": ("Empty Lair", (300.0, 500.0), True),
                         "S4": ("Rocket Boots", (500.0, 500.0), True)},
                 pawns={"eve": "S2"})  # fmt: skip
    game.apply(Move("ann", "S1"))
    game.apply(ChooseTarget("ann", ("S2",)))
    game.apply(SkipStep("eve"))
    assert len(game.hand("eve")) == 4 and "S4" in game.spaces
    assert game.current == "ann" and game.step == "add"


def test_plutonian_poacher_falling_on_his_own_turn_chooses_then_the_turn_ends():
    game = build(SIX, powers=True, current="eve",
                 spaces={"S1": ("Trapdoor", above("eve"), False), "S4": ("Rocket Boots", (700.0, 500.0), True)})  # fmt: skip
    events = game.apply(Move("eve", "S1"))
    assert event(events, "choice_needed").public["player"] == "eve" and game.current == "eve"
    assert "turn_ended" not in types(events)
    events = game.apply(ChooseTarget("eve", ("S4",)))
    assert types(events)[-2:] == ["turn_ended", "turn_started"] and game.current == "fay"
    assert len(game.hand("eve")) == 4 and game.position("eve") == "start:eve"
