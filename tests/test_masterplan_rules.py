"""One test per rule of Master Plan's turn, reach, Add, Draw, falling, Sudden Death and winning."""

from __future__ import annotations

import pytest
from test_masterplan_support import build, corners_at, event, state, types

from referee.masterplan import (
    TROPHY,
    ChooseTarget,
    ConfirmMeasurement,
    Draw,
    MasterPlanConfig,
    MasterPlanGame,
    Move,
    PlaceCard,
    RuleViolation,
    Seat,
    SendMinion,
    SkipStep,
    private_events_for,
    public_event,
)
from referee.masterplan.waits import ExtraMove

# ann's start is centred at (1000, 44); a card centred at (1000, 150) is 18 mm above it.
NEAR_ANN = (1000.0, 150.0)


def refuse(game: MasterPlanGame, command, code: str) -> RuleViolation:
    before = state(game)
    with pytest.raises(RuleViolation) as info:
        game.apply(command)
    assert info.value.code == code, info.value
    assert state(game) == before, "a refused command changed the game"
    return info.value


def test_first_round_has_no_move_step():
    config = MasterPlanConfig(seats=(Seat("a", "Z-Mask"), Seat("b", "Ms. Fyre"), Seat("c", "Monster Nash")))
    game, _ = MasterPlanGame.setup(config, 3)
    first = game.current
    assert game.step == "add"
    refuse(game, Move(first, "trophy"), "first_round")
    game.apply(SkipStep(first))
    game.apply(SkipStep(first))
    for _ in range(2):  # the other two players' first turns: no Move either
        assert game.step == "add"
        game.apply(SkipStep(game.current))
        game.apply(SkipStep(game.current))
    assert game.current == first and game.step == "move"


def test_draw_during_add_ends_the_add_step_and_the_turn():
    game = build(hands={"ann": ["Empty Lair", "Empty Lair"]}, step="add")
    game.apply(PlaceCard("ann", corners_at(*NEAR_ANN), card=game.hand("ann")[0]))
    assert any(c.type == "draw" for c in game.legal_commands("ann"))
    events = game.apply(Draw("ann"))
    assert [e.public.get("step") for e in events if e.type in ("step_skipped", "step_started")][:2] == [
        "add",
        "draw",
    ]
    assert "cards_drawn" in types(events) and game.current == "bob" and len(game.hand("ann")) == 2


def test_draw_during_move_skips_move_and_add():
    game = build()
    assert game.step == "move"
    events = game.apply(Draw("ann"))
    skipped = [e.public["step"] for e in events if e.type == "step_skipped"]
    assert skipped == ["move", "add"] and game.current == "bob" and len(game.hand("ann")) == 1


def test_draw_is_refused_while_a_choice_waits():
    game = build(step="move")
    game.waiting = ExtraMove("ann", "Rocket Boots")
    refuse(game, Draw("ann"), "waiting")


def test_steps_come_in_order():
    game = build(hands={"ann": ["Empty Lair"]})
    refuse(game, PlaceCard("ann", corners_at(*NEAR_ANN), card=game.hand("ann")[0]), "wrong_step")
    game.apply(SkipStep("ann"))
    assert game.step == "add"
    refuse(game, Move("ann", "trophy"), "wrong_step")
    game.apply(SkipStep("ann"))
    assert game.step == "draw"


def test_referee_never_skips_a_step_on_its_own():
    game = build(hands={"ann": ["Empty Lair"]}, step="add")
    game.apply(PlaceCard("ann", corners_at(*NEAR_ANN), card=game.hand("ann")[0]))
    assert game.hand("ann") == [] and game.step == "add" and game.current == "ann"


def test_draw_ends_the_turn_and_play_passes_leftward():
    game = build(step="draw")
    events = game.apply(Draw("ann"))
    assert types(events)[-2:] == ["turn_ended", "turn_started"]
    assert game.current == "bob" and len(game.hand("ann")) == 1


def test_skipping_the_draw_ends_the_turn_without_a_card():
    game = build(step="draw")
    game.apply(SkipStep("ann"))
    assert game.current == "bob" and game.hand("ann") == []


def test_not_your_turn_is_refused():
    game = build()
    err = refuse(game, SkipStep("bob"), "not_your_turn")
    assert "ann's turn" in err.message


def test_unknown_player_is_refused():
    refuse(build(), SkipStep("zed"), "unknown_player")


def test_move_within_reach_is_legal():
    game = build(spaces={"S1": ("Empty Lair", NEAR_ANN, True)})
    game.apply(Move("ann", "S1"))
    assert game.position("ann") == "S1"


def test_move_out_of_reach_is_refused_with_the_distance():
    game = build(spaces={"S1": ("Empty Lair", (1000.0, 250.0), True)})  # gap 118 mm
    err = refuse(game, Move("ann", "S1"), "out_of_reach")
    assert err.message == "Card S1 is 118.0 mm away; a jump must be under 63.0 mm"


def test_gap_exactly_one_reach_is_out_of_reach():
    game = build(spaces={"S1": ("Empty Lair", (1000.0, 44.0 + 88.0 + 63.0), True)})
    refuse(game, Move("ann", "S1"), "out_of_reach")


def test_move_onto_face_down_flips_it_and_resolves_its_effect():
    game = build(spaces={"S1": ("Supply Drop", NEAR_ANN, False)})
    events = game.apply(Move("ann", "S1"))
    flipped = event(events, "space_flipped")
    assert flipped.public["name"] == "Supply Drop" and game.spaces["S1"].face_up
    assert len(game.hand("ann")) == 2
    assert game.step == "add"  # no free move after a face-down destination


def test_face_up_destination_has_no_effect_and_offers_one_free_move():
    game = build(spaces={"S1": ("Supply Drop", NEAR_ANN, True)})
    events = game.apply(Move("ann", "S1"))
    assert "free_move_offered" in types(events) and game.hand("ann") == []
    assert game.step == "move"


def test_free_move_cannot_enter_trophy():
    # S1's top edge is at 694, the Trophy's bottom edge at 756: 62 mm, within reach.
    game = build(
        spaces={"S0": ("Empty Lair", (600.0, 540.0), True), "S1": ("Empty Lair", (600.0, 650.0), True)},
        pawns={"ann": "S0"},
    )
    game.apply(Move("ann", "S1"))  # face-up: the free move is offered
    err = refuse(game, Move("ann", TROPHY), "free_move_into_trophy")
    assert "free move can never enter the Trophy" in err.message


def test_only_one_free_move_per_turn():
    game = build(
        spaces={"S1": ("Empty Lair", NEAR_ANN, True), "S2": ("Empty Lair", (1000.0, 256.0), True),
                "S3": ("Empty Lair", (1000.0, 362.0), True)},
    )  # fmt: skip
    game.apply(Move("ann", "S1"))
    game.apply(Move("ann", "S2"))  # the free move, onto face-up again
    assert game.step == "add"
    refuse(game, Move("ann", "S3"), "wrong_step")


def test_free_move_onto_face_down_flips_and_resolves():
    game = build(spaces={"S1": ("Empty Lair", NEAR_ANN, True), "S2": ("Supply Drop", (1000.0, 256.0), False)})
    game.apply(Move("ann", "S1"))
    events = game.apply(Move("ann", "S2"))
    assert event(events, "pawn_moved").public["kind"] == "free"
    assert event(events, "space_flipped").public["name"] == "Supply Drop" and len(game.hand("ann")) == 2


def test_free_move_may_be_declined_with_skip_step():
    game = build(spaces={"S1": ("Empty Lair", NEAR_ANN, True)})
    game.apply(Move("ann", "S1"))
    game.apply(SkipStep("ann"))
    assert game.step == "add"


def test_entering_the_trophy_by_a_normal_move_wins():
    game = build(spaces={"S1": ("Empty Lair", (600.0, 680.0), True)}, pawns={"ann": "S1"})
    events = game.apply(Move("ann", TROPHY))
    assert game.game_over and game.winner == "ann"
    assert event(events, "game_over").public["winner"] == "ann"
    refuse(game, SkipStep("bob"), "game_over")


def test_pawns_may_share_a_card():
    game = build(spaces={"S1": ("Empty Lair", NEAR_ANN, True)}, pawns={"bob": "S1"})
    game.apply(Move("ann", "S1"))
    assert game.position("ann") == game.position("bob") == "S1"


def test_add_places_cards_face_down_one_at_a_time_from_hand():
    game = build(hands={"ann": ["Bomb", "Empty Lair"]}, step="add")
    c1, c2 = game.hand("ann")
    game.apply(PlaceCard("ann", corners_at(*NEAR_ANN), card=c1))
    game.apply(PlaceCard("ann", corners_at(1100.0, 150.0), card=c2))
    placed = [s for s in game.spaces.values() if s.kind == "space"]
    assert len(placed) == 2 and not any(s.face_up for s in placed) and game.hand("ann") == []


def test_placed_card_may_not_overlap_another_card():
    game = build(hands={"ann": ["Bomb"]}, step="add", spaces={"S1": ("Empty Lair", NEAR_ANN, True)})
    err = refuse(game, PlaceCard("ann", corners_at(1030.0, 150.0), card=game.hand("ann")[0]), "overlap")
    assert "S1" in err.message


def test_placed_card_may_touch_another_card():
    game = build(hands={"ann": ["Bomb"]}, step="add", spaces={"S1": ("Empty Lair", NEAR_ANN, True)})
    game.apply(PlaceCard("ann", corners_at(1063.0, 150.0), card=game.hand("ann")[0]))
    assert game.graph.reach("S1", "S2").gap_mm == 0.0


def test_placed_card_must_come_from_your_hand_and_be_card_sized():
    game = build(hands={"ann": ["Bomb"]}, step="add")
    other = game.deck[0]
    refuse(game, PlaceCard("ann", corners_at(*NEAR_ANN), card=other), "not_in_hand")
    tiny = ((0.0, 200.0), (10.0, 200.0), (10.0, 210.0), (0.0, 210.0))
    refuse(game, PlaceCard("ann", tiny, card=game.hand("ann")[0]), "not_a_card")
    bowtie = ((0.0, 200.0), (63.0, 288.0), (63.0, 200.0), (0.0, 288.0))
    refuse(game, PlaceCard("ann", bowtie, card=game.hand("ann")[0]), "bad_corners")


def test_placing_tells_only_the_placer_what_the_card_is():
    game = build(hands={"ann": ["Bomb"]}, step="add")
    events = game.apply(PlaceCard("ann", corners_at(*NEAR_ANN), card=game.hand("ann")[0]))
    placed = event(events, "card_placed")
    assert "Bomb" not in str(public_event(placed)) and "Bomb" not in str(public_event(events[0]))
    assert private_events_for(placed, "ann")["name"] == "Bomb"
    assert private_events_for(placed, "bob") is None


def test_falling_discards_the_hand_draws_four_and_returns_to_start():
    game = build(
        spaces={"S1": ("Laser Gun", NEAR_ANN, False), "S2": ("Empty Lair", (600.0, 300.0), True)},
        pawns={"bob": "S2"}, hands={"bob": ["Bomb", "Bomb", "Switch"]},
    )  # fmt: skip
    old_hand = game.hand("bob")
    game.apply(Move("ann", "S1"))
    game.apply(ChooseTarget("ann", ("S2",)))
    assert game.position("bob") == "start:bob"
    assert len(game.hand("bob")) == 4 and not set(game.hand("bob")) & set(old_hand)
    assert set(old_hand) <= set(game.discard)
    assert len(game.discard) == 1 + 3  # S2 and bob's old hand
    assert game.current == "ann"  # someone else falling does not end ann's turn


def test_falling_on_your_own_turn_ends_it_at_once():
    game = build(spaces={"S1": ("Trapdoor", NEAR_ANN, False)}, hands={"ann": ["Empty Lair"]})
    events = game.apply(Move("ann", "S1"))
    assert types(events)[-2:] == ["turn_ended", "turn_started"] and game.current == "bob"
    assert game.position("ann") == "start:ann" and len(game.hand("ann")) == 4  # no Add, no Draw


def test_drawing_from_an_empty_deck_reshuffles_the_discard():
    game = build(step="draw", deck_left=0)
    n = len(game.discard)
    events = game.apply(Draw("ann"))
    assert event(events, "deck_reshuffled").public["size"] == n
    assert len(game.deck) == n - 1 and game.discard == []


def test_sudden_death_begins_as_soon_as_the_deck_runs_out():
    game = build(step="draw", deck_left=1)
    events = game.apply(Draw("ann"))
    assert game.deck == [] and game.deck_ran_out
    assert (
        types(events).index("deck_ran_out")
        < types(events).index("sudden_death_began")
        < types(events).index("turn_ended")
    )
    assert game.sudden_death


def test_falling_during_sudden_death_eliminates():
    game = build(spaces={"S1": ("Trapdoor", NEAR_ANN, False)}, hands={"ann": ["Bomb"]}, deck_left=0)
    game.sudden_death = game.deck_ran_out = True
    events = game.apply(Move("ann", "S1"))
    assert "player_eliminated" in types(events)
    assert game.players["ann"].eliminated and game.position("ann") is None and game.hand("ann") == []
    assert game.current == "bob" and game.card_count() == 47


def test_player_who_empties_deck_while_drawing_after_a_fall_stays_in_game():
    # ann falls with 2 cards left in the deck: she draws them, the discard is reshuffled for the
    # other 2, and Sudden Death only starts with bob's turn.
    game = build(spaces={"S1": ("Trapdoor", NEAR_ANN, False)}, deck_left=2)
    events = game.apply(Move("ann", "S1"))
    t = types(events)
    assert "deck_ran_out" in t and "deck_reshuffled" in t and "player_eliminated" not in t
    assert not game.players["ann"].eliminated and len(game.hand("ann")) == 4
    assert t.index("sudden_death_began") > t.index("turn_ended")


def test_later_reshuffles_change_nothing_more():
    game = build(step="draw", deck_left=0)
    game.deck_ran_out = game.sudden_death = True
    events = game.apply(Draw("ann"))
    assert "deck_reshuffled" in types(events) and "deck_ran_out" not in types(events)


def test_eliminated_players_never_act_again():
    game = build(deck_left=0)
    game.players["bob"].eliminated, game.players["bob"].position = True, None
    game.step = "draw"
    game.apply(SkipStep("ann"))
    assert game.current == "cat"
    refuse(game, SkipStep("bob"), "eliminated")
    assert game.legal_commands("bob") == []


def test_last_player_standing_wins():
    game = build(spaces={"S1": ("Laser Gun", NEAR_ANN, False), "S2": ("Empty Lair", (600.0, 300.0), True)},
                 pawns={"bob": "S2"})  # fmt: skip
    game.players["cat"].eliminated, game.players["cat"].position = True, None
    game.sudden_death = True
    game.apply(Move("ann", "S1"))
    events = game.apply(ChooseTarget("ann", ("S2",)))
    assert game.game_over and game.winner == "ann"
    assert "last player standing" in event(events, "game_over").public["reason"]


def test_no_winner_when_the_last_players_are_eliminated_at_once():
    game = build(spaces={"S1": ("Trapdoor", NEAR_ANN, False)}, pawns={"bob": "S1"})
    game.players["cat"].eliminated, game.players["cat"].position = True, None
    game.sudden_death = True
    events = game.apply(Move("ann", "S1"))
    assert game.game_over and game.winner is None
    assert event(events, "game_over").public["winner"] is None


def test_empty_deck_and_discard_let_a_draw_take_a_face_up_unoccupied_space():
    game = build(
        spaces={"S1": ("Bomb", (600.0, 300.0), True), "S2": ("Switch", (700.0, 300.0), True),
                "S3": ("Trapdoor", (800.0, 300.0), False)},
        pawns={"bob": "S2"}, step="draw", deck_left=0,
    )  # fmt: skip
    game.discard.clear()  # deck and discard empty: every other card is in cat's hand
    game.players["cat"].hand = [c for c in range(47) if c not in {s.card for s in game.spaces.values()}]
    assert game.card_count() == 47
    refuse(game, Draw("ann", "S2"), "occupied")
    refuse(game, Draw("ann", "S3"), "face_down")
    refuse(game, Draw("ann", "start:bob"), "not_a_space_card")
    events = game.apply(Draw("ann", "S1"))
    assert event(events, "card_taken_from_table").public["name"] == "Bomb"
    assert "S1" not in game.spaces and game.card_name(game.hand("ann")[0]) == "Bomb"


def test_taking_from_the_table_is_refused_while_the_deck_has_cards():
    game = build(spaces={"S1": ("Bomb", (600.0, 300.0), True)}, step="draw")
    refuse(game, Draw("ann", "S1"), "cannot_draw_from_table")


def test_starting_cards_and_trophy_are_never_destroyed():
    game = build(spaces={"S1": ("Bomb", NEAR_ANN, False), "S2": ("Laser Gun", (1100.0, 150.0), True)})
    game.apply(Move("ann", "S1"))  # the Bomb is 18 mm from ann's own starting card
    assert "start:ann" in game.spaces and "S2" not in game.spaces and "S1" not in game.spaces


def test_too_close_to_call_asks_for_a_measurement_then_moves():
    game = build(spaces={"S1": ("Empty Lair", (1000.0, 44 + 88 + 62.5), True)}, sigma={"S1": 0.5})
    events = game.apply(Move("ann", "S1"))
    need = event(events, "measurement_needed")
    assert need.public["to"] == "S1" and game.position("ann") == "start:ann"
    refuse(game, SkipStep("ann"), "waiting")
    game.apply(ConfirmMeasurement("bob", True))  # any player may hold the card against the gap
    assert game.position("ann") == "S1"


def test_too_close_to_call_measured_illegal_refuses_the_move_only():
    game = build(spaces={"S1": ("Empty Lair", (1000.0, 44 + 88 + 62.5), True)}, sigma={"S1": 0.5})
    game.apply(Move("ann", "S1"))
    events = game.apply(ConfirmMeasurement("ann", False))
    assert "move_refused" in types(events) and game.position("ann") == "start:ann"
    assert game.step == "move" and not game.turn.normal_move_used


def test_too_close_to_call_lenient_allows_and_strict_denies():
    spaces = {"S1": ("Empty Lair", (1000.0, 44 + 88 + 63.5), True)}
    lenient = build(spaces=spaces, sigma={"S1": 0.5}, policy="lenient")
    lenient.apply(Move("ann", "S1"))
    assert lenient.position("ann") == "S1"
    strict = build(
        spaces={"S1": ("Empty Lair", (1000.0, 44 + 88 + 62.5), True)}, sigma={"S1": 0.5}, policy="strict"
    )
    refuse(strict, Move("ann", "S1"), "too_close_to_call")


def test_a_fall_draw_that_empties_deck_and_discard_takes_face_up_table_cards():
    # Deck empty, discard empty, every other card in cat's hand. ann falls through a Trapdoor
    # with an empty hand: the Trapdoor (discarded) is her one card from the reshuffled pile; the
    # other three may come from the face-up, unoccupied table cards (docs/rules-masterplan.md, "Draw").
    game = build(
        spaces={"S1": ("Trapdoor", NEAR_ANN, False), "S2": ("Bomb", (600.0, 300.0), True),
                "S3": ("Switch", (700.0, 300.0), True)},
        pawns={"bob": "S3"}, deck_left=0,
    )  # fmt: skip
    game.discard.clear()
    game.players["cat"].hand = [c for c in range(47) if c not in {s.card for s in game.spaces.values()}]
    assert game.card_count() == 47
    events = game.apply(Move("ann", "S1"))
    need = event(events, "choice_needed").public
    assert need["player"] == "ann" and need["effect"] == "draw" and need["count"] == 3
    assert need["options"] == ["S2"] and len(game.hand("ann")) == 1
    events = game.apply(ChooseTarget("ann", ("S2",)))
    assert [game.card_name(c) for c in game.hand("ann")] == ["Trapdoor", "Bomb"]
    assert types(events)[-3:] == ["turn_ended", "sudden_death_began", "turn_started"]  # not before
    assert game.current == "bob"
    assert not game.players["ann"].eliminated and game.card_count() == 47


def test_sudden_death_begins_mid_turn_when_an_effect_empties_the_deck():
    # Rulebook: "As soon as the Space Deck runs out for the first time, Sudden Death begins."
    # Z-Mask's minion flips a Supply Drop that draws the last cards; he then steps on a Trapdoor.
    game = build(
        powers=True,
        spaces={"S1": ("Supply Drop", NEAR_ANN, False), "S2": ("Trapdoor", (1100.0, 150.0), False)},
        deck_left=2,
    )
    events = game.apply(SendMinion("ann", "S1"))
    t = types(events)
    assert game.deck_ran_out and game.sudden_death
    assert t.index("deck_ran_out") < t.index("sudden_death_began") and "turn_ended" not in t
    events = game.apply(Move("ann", "S2"))
    assert "player_eliminated" in types(events) and "returned_to_start" not in types(events)
    assert game.players["ann"].eliminated and game.current == "bob" and game.card_count() == 47


def test_after_a_fall_empties_the_deck_sudden_death_waits_for_the_next_turn_even_for_the_current_player():
    # bob falls to Z-Mask's minion's Laser Gun and his draw empties the deck: bob stays, and so
    # does Z-Mask when he steps on a Trapdoor in the same turn (Sudden Death starts next turn).
    game = build(
        powers=True,
        spaces={"S1": ("Laser Gun", NEAR_ANN, False), "S2": ("Trapdoor", (1100.0, 150.0), False),
                "S3": ("Empty Lair", (600.0, 300.0), True)},
        pawns={"bob": "S3"}, deck_left=3,
    )  # fmt: skip
    game.apply(SendMinion("ann", "S1"))
    game.apply(ChooseTarget("ann", ("S3",)))
    assert game.deck_ran_out and not game.sudden_death and len(game.hand("bob")) == 4
    events = game.apply(Move("ann", "S2"))
    t = types(events)
    assert "player_eliminated" not in t and game.position("ann") == "start:ann"
    assert t.index("turn_ended") < t.index("sudden_death_began") and game.sudden_death
