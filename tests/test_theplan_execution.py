"""Executing Plans: order, experts, ties, Smash & Grab, trinket claims
(docs/rules-theplan.md), worked examples.

Tables are set up exactly through physical mode, where the steward reports what was revealed and
played; execution is the same code in both modes.
"""

import pytest
from theplan_helpers import claim_face_up_or_first, of_type, physical, plan, report, reveal

from referee.theplan import ChooseColour, ClaimTrinket, RuleViolation

T5 = ("jewels-1a", "sculptures-1a", "natural_history-1a", "paintings-1a", "fossils-1a")


# -- the rulebook's worked examples ----------------------------------------------------------


def test_worked_example_two_smash_and_grabs_each_take_a_trinket_instead():
    g = physical()
    reveal(g, T5)
    events = report(g, {"ann": "smash-01", "bob": "smash-02", "cat": plan("lone_specialist", "paintings")})
    events += claim_face_up_or_first(g)
    s = g.state
    assert s.treasures["ann"] == [] and s.treasures["bob"] == []
    assert len(s.trinkets["ann"]) == 1 and len(s.trinkets["bob"]) == 1
    assert s.treasures["cat"] == ["paintings-1a"] and s.trinkets["cat"] == []
    assert of_type(events, "trinket_claims_started")[0]["public"]["order"] == ["ann", "bob"]


def test_worked_example_team_of_three_finding_nothing_left_takes_a_trinket():
    g = physical()
    reveal(g, ("jewels-1a", "jewels-2a", "sculptures-1a", "paintings-1a", "fossils-1a"))
    report(
        g,
        {
            "ann": "smash-01",
            "bob": plan("team_of_three", "jewels", "sculptures", "paintings"),
            "cat": plan("team_of_two", "sculptures", "paintings"),
        },
    )
    g.apply(ChooseColour("ann", "jewels"))  # the Smash & Grab goes first
    # Team of Two: sculptures and paintings. Then the Team of Three finds nothing left.
    events = claim_face_up_or_first(g)
    s = g.state
    assert sorted(s.treasures["ann"]) == ["jewels-1a", "jewels-2a"]
    assert sorted(s.treasures["cat"]) == ["paintings-1a", "sculptures-1a"]
    assert s.treasures["bob"] == [] and len(s.trinkets["bob"]) == 1
    assert of_type(events, "trinket_claimed")[0]["public"]["player"] == "bob"
    assert s.face_up_treasures == ["fossils-1a"]


def test_worked_example_teams_of_two_sharing_yellow_leave_yellow_and_take_red_and_blue():
    g = physical()
    reveal(g, T5)
    events = report(
        g,
        {
            "ann": plan("team_of_two", "jewels", "sculptures"),
            "bob": plan("team_of_two", "jewels", "natural_history"),
            "cat": plan("lone_specialist", "fossils"),
        },
    )
    s = g.state
    assert s.treasures["ann"] == ["sculptures-1a"] and s.treasures["bob"] == ["natural_history-1a"]
    assert "jewels-1a" in s.face_up_treasures  # the tied expert's treasure stays
    assert of_type(events, "experts_executed")[-1]["public"]["tied"] == {"jewels": ["ann", "bob"]}
    assert s.trinkets["ann"] == [] and s.trinkets["bob"] == []  # both took a treasure: no trinket


# -- execution order and experts ------------------------------------------------------------


def test_plans_execute_smash_and_grab_then_lone_then_teams_of_two_three_four():
    g = physical(seats=("a", "b", "c", "d", "e"))
    reveal(g, T5)
    events = report(
        g,
        {
            "a": plan("team_of_four", "jewels", "sculptures", "egyptian_artifacts", "lunar_objects"),
            "b": plan("team_of_three", "jewels", "sculptures", "paintings"),
            "c": plan("team_of_two", "jewels", "sculptures"),
            "d": plan("lone_specialist", "jewels"),
            "e": "smash-01",
        },
    )
    g.apply(ChooseColour("e", "fossils"))
    events = g.events
    assert [e["public"]["stage"] for e in of_type(events, "stage_started")] == [
        "smash_and_grab",
        "lone_specialist",
        "team_of_two",
        "team_of_three",
        "team_of_four",
    ]
    s = g.state
    assert s.treasures["e"] == ["fossils-1a"]
    assert s.treasures["d"] == ["jewels-1a"]  # the lone specialist beats the bigger teams to it
    assert s.treasures["c"] == ["sculptures-1a"]
    assert s.treasures["b"] == ["paintings-1a"]


def test_an_expert_takes_every_face_up_treasure_of_its_kind():
    g = physical()
    reveal(g, ("jewels-1a", "jewels-2b", "jewels-4a", "fossils-1a", "paintings-1a"))
    report(g, {"ann": plan("lone_specialist", "jewels"), "bob": "smash-01", "cat": "smash-02"})
    claim_face_up_or_first(g)
    assert sorted(g.state.treasures["ann"]) == ["jewels-1a", "jewels-2b", "jewels-4a"]


def test_tied_experts_leave_treasures_for_later_plans_the_same_turn():
    g = physical()
    reveal(g, T5)
    report(
        g,
        {
            "ann": "lone-01",  # jewels
            "bob": "lone-08",  # jewels again: tie
            "cat": plan("team_of_two", "jewels", "sculptures"),
        },
    )
    claim_face_up_or_first(g)
    s = g.state
    assert s.treasures["ann"] == [] and s.treasures["bob"] == []
    assert sorted(s.treasures["cat"]) == ["jewels-1a", "sculptures-1a"]


def test_leftover_treasures_and_trinkets_stay_face_up_for_the_next_turn():
    g = physical()
    reveal(g, T5, ("documents-a1", "pottery-a1", "toys-a1"))
    report(g, {"ann": "lone-01", "bob": "lone-08", "cat": plan("lone_specialist", "fossils")})
    claim_face_up_or_first(g)  # ann and bob tie on jewels and both draw blind
    s = g.state
    assert s.phase == "reveal" and s.turn_number == 2
    assert sorted(s.face_up_treasures) == sorted(set(T5) - {"fossils-1a"})
    assert s.face_up_trinkets == ["documents-a1", "pottery-a1", "toys-a1"]
    reveal(
        g,
        ("jewels-2a", "lunar_objects-1a", "lunar_objects-2a", "fossils-2a", "fossils-3a"),
        ("toys-b1", "toys-c1", "toys-d1"),
    )
    assert len(s.face_up_treasures) == 9 and len(s.face_up_trinkets) == 6
    report(g, {"ann": "lone-13", "bob": "lone-07", "cat": plan("team_of_two", "jewels", "sculptures")})
    # cat's jewels expert takes last turn's jewel as well as this turn's.
    assert sorted(s.treasures["cat"]) == ["fossils-1a", "jewels-1a", "jewels-2a", "sculptures-1a"]


def test_solo_smash_and_grab_names_one_colour_and_takes_all_of_it():
    g = physical()
    reveal(g, ("jewels-1a", "jewels-2a", "sculptures-1a", "fossils-1a", "paintings-1a"))
    report(
        g,
        {
            "ann": "smash-01",
            "bob": plan("lone_specialist", "fossils"),
            "cat": plan("lone_specialist", "paintings"),
        },
    )
    assert g.to_act() == ["ann"]
    assert {c.colour for c in g.legal_commands("ann")} == {"jewels", "sculptures", "fossils", "paintings"}
    g.apply(ChooseColour("ann", "jewels"))
    assert sorted(g.state.treasures["ann"]) == ["jewels-1a", "jewels-2a"]
    assert g.state.treasures["bob"] == ["fossils-1a"]


def test_smash_and_grab_colour_must_be_face_up_and_only_the_grabber_names_it():
    g = physical()
    reveal(g, T5)
    report(g, {"ann": "smash-01", "bob": "lone-01", "cat": "lone-02"})
    with pytest.raises(RuleViolation) as err:
        g.apply(ChooseColour("ann", "lunar_objects"))
    assert err.value.code == "colour_not_face_up"
    with pytest.raises(RuleViolation) as err:
        g.apply(ChooseColour("bob", "jewels"))
    assert err.value.code == "not_now"


def test_a_plan_that_took_a_treasure_takes_no_trinket():
    g = physical()
    reveal(g, T5)
    events = report(g, {"ann": "lone-01", "bob": "lone-02", "cat": "lone-03"})
    assert of_type(events, "trinket_claims_started") == []
    assert all(g.state.trinkets[p] == [] for p in ("ann", "bob", "cat"))


# -- trinket claims -------------------------------------------------------------------------


def _turn_one_gives(g):
    """ann takes 2 treasures, bob 1, cat none (cat claims a face-up trinket)."""
    reveal(g, ("jewels-1a", "jewels-2a", "fossils-1a", "paintings-1a", "sculptures-1a"))
    report(g, {"ann": "lone-01", "bob": "lone-06", "cat": "lone-07"})
    g.apply(ClaimTrinket("cat", "pottery-a1"))


def test_trinket_claims_go_fewest_treasures_first():
    g = physical()
    _turn_one_gives(g)
    reveal(
        g,
        ("lunar_objects-1a", "lunar_objects-2a", "fossils-2a", "fossils-3a", "fossils-4a"),
        ("toys-b1", "toys-c1", "toys-d1"),
    )
    events = report(g, {"ann": "smash-01", "bob": "smash-02", "cat": "smash-03"})
    started = of_type(events, "trinket_claims_started")[0]["public"]
    assert started == {"order": ["cat", "bob", "ann"], "blind": []}
    assert g.to_act() == ["cat"]
    with pytest.raises(RuleViolation):
        g.apply(ClaimTrinket("ann", "toys-b1"))  # not ann's turn to pick yet


def test_trinket_claims_then_fewest_trinkets_and_still_tied_players_draw_blind():
    g = physical()
    reveal(g, ("jewels-1a", "fossils-1a", "paintings-1a", "paintings-2a", "sculptures-1a"))
    report(g, {"ann": "lone-01", "bob": "lone-06", "cat": "lone-07"})  # ann 1, bob 1, cat 0 treasures
    g.apply(ClaimTrinket("cat", "pottery-a1"))  # cat: 0 treasures, 1 trinket
    reveal(
        g,
        ("lunar_objects-1a", "lunar_objects-2a", "fossils-2a", "fossils-3a", "fossils-4a"),
        ("toys-b1", "toys-c1", "toys-d1"),
    )
    events = report(g, {"ann": "smash-01", "bob": "smash-02", "cat": "smash-03"})
    assert of_type(events, "trinket_claims_started")[0]["public"] == {
        "order": ["cat", "ann", "bob"],
        "blind": ["ann", "bob"],
    }
    g.apply(ClaimTrinket("cat", "toys-b1"))
    with pytest.raises(RuleViolation) as err:
        g.apply(ClaimTrinket("ann", "toys-c1"))
    assert err.value.code == "must_draw_blind"
    pile_top = g.state.trinket_pile[0]
    events = g.apply(ClaimTrinket("ann", pile_top, True))
    assert of_type(events, "trinket_claimed")[0]["public"] == {
        "player": "ann",
        "trinket": pile_top,
        "blind": True,
    }


def test_a_trinket_may_be_taken_face_up_or_blind_from_the_pile():
    g = physical()
    reveal(g, T5)
    report(g, {"ann": "lone-07", "bob": "lone-01", "cat": "lone-02"})  # ann finds no lunar object
    options = g.legal_commands("ann")
    assert ClaimTrinket("ann", "documents-a1") in options
    assert any(c.blind for c in options)
    blind_id = g.state.trinket_pile[5]
    g.apply(ClaimTrinket("ann", blind_id, True))
    assert g.state.trinkets["ann"] == [blind_id] and blind_id not in g.state.trinket_pile
