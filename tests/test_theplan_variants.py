"""Variants: head-to-head, solitaire with Ghosts, tie-breaking bribes, and physical mode reports."""

import json
import random
from importlib import resources

import pytest
from theplan_helpers import COMPONENTS, claim_face_up_or_first, of_type, physical, plan, report, reveal

from referee.theplan import (
    STEWARD,
    Bid,
    ChooseColour,
    ChooseContestOrder,
    ClaimTrinket,
    CommitPlan,
    ReportPlan,
    ReportReveal,
    RuleViolation,
    ThePlanGame,
)
from referee.theplan.agents import play_random_game, random_command
from referee.theplan.components import parse_components
from referee.theplan.scoring import winners

T5 = ("jewels-1a", "sculptures-1a", "natural_history-1a", "paintings-1a", "fossils-1a")


def revealed_types(g):
    return {
        COMPONENTS.plans[p].type
        for e in of_type(g.events, "plans_revealed")
        for p in e["public"]["plans"].values()
    }


# -- head-to-head ---------------------------------------------------------------------------


def test_head_to_head_removes_smash_and_grab_and_team_of_four_by_default():
    g = play_random_game({"seats": ["ann", "bob"]}, seed=3, agent_seed=1)
    assert g.public_view()["removed_plan_types"] == ["smash_and_grab", "team_of_four"]
    assert revealed_types(g) <= {"lone_specialist", "team_of_two", "team_of_three"}
    assert g.public_view()["variant"] == "head_to_head" and g.is_over


def test_head_to_head_removes_the_two_plan_types_chosen_at_setup():
    g = play_random_game(
        {"seats": ["ann", "bob"], "removed_plan_types": ["team_of_two", "lone_specialist"]}, 3, 1
    )
    assert revealed_types(g) <= {"smash_and_grab", "team_of_three", "team_of_four"}
    assert len(g.state.removed_plans) == 28


@pytest.mark.parametrize(
    "options",
    [
        {"seats": ["a", "b"], "removed_plan_types": ["team_of_two"]},
        {"seats": ["a", "b"], "removed_plan_types": ["team_of_two", "team_of_six"]},
        {"seats": ["a", "b", "c"], "removed_plan_types": ["team_of_two", "team_of_four"]},
    ],
)
def test_head_to_head_must_remove_exactly_two_known_types_and_only_then(options):
    with pytest.raises(RuleViolation) as err:
        ThePlanGame.setup(options, 1)[0]
    assert err.value.code == "bad_setup"


# -- solitaire ------------------------------------------------------------------------------


def test_solitaire_hands_hold_two_plans_and_are_refilled_after_each_turn():
    g = ThePlanGame.setup({"seats": ["me"], "ghosts": ["ghost"]}, 4)[0]
    assert len(g.state.hands["me"]) == 2 and len(g.state.hands["ghost"]) == 2
    assert g.to_act() == ["me"]
    rng = random.Random(0)
    while g.state.turn_number < 4:
        g.apply(random_command(g, rng))
        if g.state.phase == "commit":
            assert len(g.state.hands["me"]) == 2 and len(g.state.hands["ghost"]) == 2
    assert of_type(g.events, "plans_passed") == []  # no passing in solitaire


def test_solitaire_ghost_turns_up_one_of_its_cards_at_random_after_the_player_commits():
    picks = set()
    for seed in range(12):
        g = ThePlanGame.setup({"seats": ["me"], "ghosts": ["ghost"]}, seed)[0]
        ghost_hand = list(g.state.hands["ghost"])
        events = g.apply(CommitPlan("me", g.state.hands["me"][0]))
        chosen = of_type(events, "plans_revealed")[0]["public"]["plans"]["ghost"]
        assert chosen in ghost_hand
        picks.add(ghost_hand.index(chosen))
    assert picks == {0, 1}


def test_solitaire_ghost_hand_is_hidden_and_ghosts_take_no_commands():
    g = ThePlanGame.setup({"seats": ["me"], "ghosts": ["g1", "g2"]}, 4)[0]
    secret = g.state.hands["g1"] + g.state.hands["g2"]
    for view in (g.public_view(), g.player_view("me")):
        text = json.dumps(view)
        assert not any(f'"{p}"' in text for p in secret)
    dealt = of_type(g.events, "plans_dealt")[0]
    assert set(dealt.get("private", {})) == {"me"} and set(dealt["secret"]["plans"]) == {"g1", "g2"}
    with pytest.raises(RuleViolation) as err:
        g.apply(CommitPlan("g1", g.state.hands["g1"][0]))
    assert err.value.code == "ghost_acts_alone"


def test_solitaire_ghosts_collect_like_players_and_are_ranked():
    g = play_random_game({"seats": ["me"], "ghosts": ["g1", "g2"], "bribes": True}, seed=8, agent_seed=3)
    assert g.is_over and set(g.result["scores"]) == {"me", "g1", "g2"}
    assert sum(len(g.state.treasures[p]) for p in ("g1", "g2")) > 0


# -- tie-breaking bribes ---------------------------------------------------------------------


def bribes_game():
    """Turn 1: ann and bob tie their Smash & Grabs (no trinkets to bid) and each draw a trinket."""
    g = physical(bribes=True)
    reveal(g, T5)
    events = report(g, {"ann": "smash-01", "bob": "smash-02", "cat": "lone-04"})
    revealed = of_type(events, "bids_revealed")[0]["public"]
    assert revealed["winner"] is None and revealed["bids"] == {"ann": [], "bob": []}
    claim_face_up_or_first(g)
    assert len(g.state.trinkets["ann"]) == 1 and len(g.state.trinkets["bob"]) == 1
    reveal(
        g,
        ("jewels-2a", "jewels-3a", "lunar_objects-1a", "lunar_objects-2a", "fossils-2a"),
        ("toys-b1", "toys-c1", "toys-d1"),
    )
    return g


def test_bribes_highest_bidder_pays_to_the_discard_and_takes_the_contested_treasures():
    g = bribes_game()
    report(g, {"ann": "lone-01", "bob": "lone-08", "cat": "lone-07"})
    assert sorted(g.to_act()) == ["ann", "bob"]
    paid = g.state.trinkets["ann"][0]
    g.apply(Bid("ann", (paid,)))
    events = g.apply(Bid("bob", ()))
    assert of_type(events, "bids_revealed")[0]["public"]["winner"] == "ann"
    s = g.state
    assert sorted(s.treasures["ann"]) == ["jewels-1a", "jewels-2a", "jewels-3a"]
    assert s.trinket_discard == [paid] and s.trinkets["ann"] == []
    assert s.treasures["bob"] == [] and len(s.trinkets["bob"]) == 1 and g.to_act() == ["bob"]
    g.apply(ClaimTrinket("bob", "toys-b1"))  # won nothing: still swipes a trinket
    assert len(s.trinkets["bob"]) == 2


def test_bribes_tied_bids_take_nothing_and_keep_their_trinkets():
    g = bribes_game()
    report(g, {"ann": "lone-01", "bob": "lone-08", "cat": "lone-07"})
    g.apply(Bid("ann", tuple(g.state.trinkets["ann"])))
    events = g.apply(Bid("bob", tuple(g.state.trinkets["bob"])))
    assert of_type(events, "bids_revealed")[0]["public"]["winner"] is None
    s = g.state
    assert s.trinket_discard == [] and "jewels-1a" in s.face_up_treasures
    assert len(s.trinkets["ann"]) == 1 and len(s.trinkets["bob"]) == 1
    assert of_type(events, "trinket_claims_started")[0]["public"]["blind"] == ["ann", "bob"]


def test_bribes_bids_stay_secret_until_every_bidder_has_bid():
    texts = []
    for offer in (0, 1):
        g = bribes_game()
        report(g, {"ann": "lone-01", "bob": "lone-08", "cat": "lone-07"})
        events = g.apply(Bid("ann", tuple(g.state.trinkets["ann"][:offer])))
        assert events[0]["public"] == {"player": "ann", "contest": "jewels"}
        assert events[0]["private"]["ann"]["trinkets"] == g.state.trinkets["ann"][:offer]
        texts.append((json.dumps(g.public_view()), json.dumps(g.player_view("bob"))))
        assert g.player_view("ann")["you"]["bid"] == g.state.trinkets["ann"][:offer]
    assert texts[0] == texts[1]


def test_bribes_fewest_treasures_chooses_which_contested_colour_is_bid_on_first():
    g = bribes_game()
    jss = plan("team_of_three", "jewels", "sculptures", "paintings")
    jsf = plan("team_of_three", "jewels", "sculptures", "fossils")
    events = report(g, {"ann": jss, "bob": jsf, "cat": "lone-07"})
    # bob's uncontested fossils expert takes first, so ann (fewer treasures) picks the order.
    assert sorted(g.state.treasures["bob"]) == ["fossils-1a", "fossils-2a"]
    assert of_type(events, "experts_executed")[-1]["public"]["tied"] == {
        "jewels": ["ann", "bob"],
        "sculptures": ["ann", "bob"],
    }
    assert g.to_act() == ["ann"]
    with pytest.raises(RuleViolation):
        g.apply(ChooseContestOrder("bob", "jewels"))
    g.apply(ChooseContestOrder("ann", "sculptures"))
    assert g.public_view()["contests"][0]["contest"] == "sculptures"
    g.apply(Bid("bob", tuple(g.state.trinkets["bob"])))
    events = g.apply(Bid("ann", ()))
    assert g.state.treasures["bob"][-1] == "sculptures-1a"
    assert of_type(events, "bids_revealed")[0]["public"]["contest"] == "sculptures"
    assert g.state.step == "bidding" and g.public_view()["contests"][0]["contest"] == "jewels"


def test_bribes_a_smash_and_grab_tie_winner_names_the_colour():
    g = bribes_game()
    report(g, {"ann": "smash-03", "bob": "smash-04", "cat": "lone-07"})
    g.apply(Bid("bob", tuple(g.state.trinkets["bob"])))
    g.apply(Bid("ann", ()))
    assert g.to_act() == ["bob"]
    g.apply(ChooseColour("bob", "jewels"))
    assert sorted(g.state.treasures["bob"]) == ["jewels-1a", "jewels-2a", "jewels-3a"]
    assert g.to_act() == ["ann"]  # the losing Smash & Grab swipes a trinket


def test_bribes_bid_must_be_your_own_trinkets():
    g = bribes_game()
    report(g, {"ann": "lone-01", "bob": "lone-08", "cat": "lone-07"})
    with pytest.raises(RuleViolation) as err:
        g.apply(Bid("ann", tuple(g.state.trinkets["bob"])))
    assert err.value.code == "bid_not_yours"
    with pytest.raises(RuleViolation) as err:
        g.apply(Bid("cat", ()))
    assert err.value.code == "not_now"


# -- physical mode --------------------------------------------------------------------------


def test_physical_mode_waits_for_the_steward_to_report_the_reveal():
    g = physical()
    assert g.to_act() == [STEWARD] and g.state.phase == "reveal"
    view = g.player_view("ann")
    assert view["you"]["hand"] is None and view["players"]["ann"]["hand"] == 6
    for bad in [
        ReportReveal(STEWARD, T5[:4], ("toys-a1", "toys-b1", "toys-c1")),  # four treasures
        ReportReveal(STEWARD, T5, ("toys-a1", "toys-b1")),  # two trinkets
        ReportReveal(STEWARD, ("jewels-1a",) * 5, ("toys-a1", "toys-b1", "toys-c1")),
    ]:
        with pytest.raises(RuleViolation) as err:
            g.apply(bad)
        assert err.value.code == "bad_reveal"
    reveal(g, T5)
    with pytest.raises(RuleViolation):  # no second reveal this turn
        reveal(g, ("jewels-2a", "jewels-3a", "jewels-4a", "fossils-2a", "fossils-3a"))


def test_physical_mode_plan_reports_must_be_possible():
    g = physical(seats=("ann", "bob"))
    reveal(g, T5)
    with pytest.raises(RuleViolation) as err:
        g.apply(ReportPlan(STEWARD, "ann", "smash-01"))  # removed in head-to-head
    assert err.value.code == "plan_removed"
    with pytest.raises(RuleViolation) as err:
        g.apply(ReportPlan(STEWARD, "ann", "lone-99"))
    assert err.value.code == "unknown_plan"
    with pytest.raises(RuleViolation) as err:
        g.apply(ReportPlan("ann", "ann", "lone-01"))
    assert err.value.code == "steward_only"
    g.apply(ReportPlan(STEWARD, "ann", "lone-01"))
    with pytest.raises(RuleViolation) as err:
        g.apply(ReportPlan(STEWARD, "ann", "lone-02"))
    assert err.value.code == "already_reported"
    with pytest.raises(RuleViolation) as err:
        g.apply(ReportPlan(STEWARD, "bob", "lone-01"))  # ann's card cannot be bob's too
    assert err.value.code == "plan_not_in_hand"
    g.apply(ReportPlan(STEWARD, "bob", "lone-02"))
    reveal(
        g,
        ("jewels-2a", "jewels-3a", "jewels-4a", "fossils-2a", "fossils-3a"),
        ("toys-b1", "toys-c1", "toys-d1"),
    )
    with pytest.raises(RuleViolation) as err:
        g.apply(ReportPlan(STEWARD, "ann", "lone-01"))  # played last turn: in the discard now
    assert err.value.code == "plan_not_in_hand"


def test_physical_mode_a_blind_draw_reports_the_trinket_that_came_off_the_pile():
    g = physical()
    reveal(g, T5)
    report(g, {"ann": "lone-07", "bob": "lone-01", "cat": "lone-02"})
    with pytest.raises(RuleViolation) as err:
        g.apply(ClaimTrinket("ann", "documents-a1", True))  # face up, not in the pile
    assert err.value.code == "not_in_pile"
    g.apply(ClaimTrinket("ann", "toys-e2", True))
    assert g.state.trinkets["ann"] == ["toys-e2"]


def test_digital_mode_refuses_steward_reports_and_physical_mode_refuses_digital_commits():
    g = ThePlanGame.setup({"seats": ["ann", "bob", "cat"]}, 1)[0]
    with pytest.raises(RuleViolation) as err:
        g.apply(ReportReveal(STEWARD, T5, ()))
    assert err.value.code == "digital_game"
    p = physical()
    reveal(p, T5)
    with pytest.raises(RuleViolation) as err:
        p.apply(CommitPlan("ann", "lone-01"))
    assert err.value.code == "physical_table"


def test_solitaire_several_ghosts_turn_up_their_cards_independently():
    same = set()
    for seed in range(16):
        g = ThePlanGame.setup({"seats": ["me"], "ghosts": ["g1", "g2"]}, seed)[0]
        hands = {q: list(g.state.hands[q]) for q in ("g1", "g2")}
        events = g.apply(CommitPlan("me", g.state.hands["me"][0]))
        plans = of_type(events, "plans_revealed")[0]["public"]["plans"]
        same.add(sorted(hands["g1"]).index(plans["g1"]) == sorted(hands["g2"]).index(plans["g2"]))
    assert same == {True, False}


def test_digital_tied_claimants_draw_the_top_of_the_pile_without_being_asked():
    for seed in range(40):
        g = ThePlanGame.setup({"seats": ["a", "b", "c", "d", "e", "f"]}, seed)[0]
        rng = random.Random(seed)
        while not g.is_over:
            events = g.apply(random_command(g, rng))
            starts = of_type(events, "trinket_claims_started")
            if starts and starts[0]["public"]["blind"]:
                blind = starts[0]["public"]["blind"]
                i = events.index(starts[0])
                pile = list(
                    ThePlanGame.replay(g.events[: len(g.events) - len(events) + i + 1]).state.trinket_pile
                )
                draws = [
                    e["public"] for e in events[i:] if e["type"] == "trinket_claimed" and e["public"]["blind"]
                ]
                assert [d["player"] for d in draws][: len(blind)] == blind
                assert [d["trinket"] for d in draws][: len(blind)] == pile[: len(blind)]
                return
    raise AssertionError("no tie for trinkets in 40 random games")


def test_solitaire_a_full_tie_with_a_ghost_is_no_win():
    # Too few treasures for a first turn: the game ends at once, everyone on 0 with nothing to
    # break the tie. "The player wins by outscoring every Ghost": the Ghost keeps the win.
    doc = json.loads(resources.files("referee.theplan").joinpath("components.json").read_text())
    doc["treasures"] = doc["treasures"][:4]
    g = ThePlanGame.setup({"seats": ["me"], "ghosts": ["ghost"]}, 5, parse_components(doc))[0]
    assert g.is_over and g.result["ranking"] == [["me", "ghost"]]
    assert g.result["winners"] == ["ghost"]
    assert of_type(g.events, "game_ended")[0]["public"]["winners"] == ["ghost"]


def test_solitaire_winners_the_player_only_by_outranking_every_ghost():
    def s(score, sets=0, treasures=0, trinkets=0):
        return {"score": score, "sets": sets, "treasures": treasures, "trinkets": trinkets, "points": score}

    players, ghosts = ["me", "g1", "g2"], ("g1", "g2")
    assert winners({"me": s(9), "g1": s(8), "g2": s(9, 0, 0, 1)}, players, ghosts) == ["g2"]
    # a tie on points that the tie-breaks decide is no tie
    assert winners({"me": s(9, 1), "g1": s(9), "g2": s(3)}, players, ghosts) == ["me"]
    assert winners({"me": s(9), "g1": s(9), "g2": s(9)}, players, ghosts) == ["g1", "g2"]
    assert winners({"me": s(10), "g1": s(9), "g2": s(9)}, players, ghosts) == ["me"]
    assert winners({"a": s(9), "b": s(9), "c": s(1)}, ["a", "b", "c"]) == ["a", "b"]  # otherwise shared
