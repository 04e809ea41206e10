"""Setup, the turn, secret commitment, passing, rounds, reshuffles and the end of the game (digital mode)."""

import json
import random
from importlib import resources

import pytest
from theplan_helpers import COMPONENTS, of_type

from referee.theplan import (
    CommitPlan,
    PassPlans,
    RuleViolation,
    ThePlanGame,
    WithdrawPlan,
    parse_components,
    public_event,
)
from referee.theplan.agents import random_command

SEATS = ["ann", "bob", "cat"]


def new_game(seats=SEATS, seed=5, **options) -> ThePlanGame:
    return ThePlanGame.setup({"seats": list(seats), **options}, seed)[0]


def hand(g, p):
    return g.player_view(p)["you"]["hand"]


def commit_all(g, pick=0):
    for p in g.state.config.seats:
        g.apply(CommitPlan(p, hand(g, p)[pick]))


def play_until(g, done, agent_seed=0):
    rng = random.Random(agent_seed)
    while not done(g):
        assert not g.is_over, "the game ended first"
        g.apply(random_command(g, rng))


def test_setup_deals_six_plans_to_each_player_from_a_shuffled_deck():
    g = new_game()
    for p in SEATS:
        assert len(hand(g, p)) == 6
    view = g.public_view()
    assert view["piles"]["plan_deck"] == 72 - 18
    assert {p: view["players"][p]["hand"] for p in SEATS} == {p: 6 for p in SEATS}
    assert hand(new_game(seed=5), "ann") == hand(g, "ann")
    assert hand(new_game(seed=6), "ann") != hand(g, "ann")


@pytest.mark.parametrize("seats", [[], ["solo"], list("abcdefg")])
def test_the_plan_is_for_three_to_six_players(seats):
    with pytest.raises(RuleViolation) as err:
        new_game(seats=seats)
    assert err.value.code == "bad_setup"


def test_each_turn_turns_over_five_treasures_then_three_trinkets():
    g = new_game()
    kinds = [e["type"] for e in g.events]
    assert kinds[-3:] == ["turn_started", "treasures_revealed", "trinkets_revealed"]
    view = g.public_view()
    assert len(view["face_up"]["treasures"]) == 5 and len(view["face_up"]["trinkets"]) == 3
    assert view["piles"]["treasures"] == 51 and view["piles"]["trinkets"] == 27
    assert g.state.phase == "commit" and sorted(g.to_act()) == sorted(SEATS)


def test_a_commitment_stays_secret_even_its_type_until_everyone_has_committed():
    views, public_events = [], []
    for pick in (0, 1):  # two games identical except for ann's secret choice
        g = new_game()
        events = g.apply(CommitPlan("ann", hand(g, "ann")[pick]))
        views.append((json.dumps(g.public_view()), json.dumps(g.player_view("bob"))))
        public_events.append([public_event(e) for e in events])
        assert events[0]["private"]["ann"]["plan"] == g.state.committed["ann"]
    assert views[0] == views[1]
    assert public_events[0] == public_events[1] == [{"type": "plan_committed", "player": "ann"}]
    assert g.public_view()["players"]["ann"]["committed"] is True


def test_a_player_may_change_or_withdraw_a_commitment_until_the_reveal():
    g = new_game()
    first, second = hand(g, "ann")[:2]
    g.apply(CommitPlan("ann", first))
    g.apply(CommitPlan("ann", second))
    assert first in hand(g, "ann") and second not in hand(g, "ann")
    g.apply(WithdrawPlan("ann"))
    assert first in hand(g, "ann") and second in hand(g, "ann") and "ann" in g.to_act()
    with pytest.raises(RuleViolation) as err:
        g.apply(WithdrawPlan("ann"))
    assert err.value.code == "nothing_committed"
    g.apply(CommitPlan("ann", second))
    g.apply(CommitPlan("bob", hand(g, "bob")[0]))
    events = g.apply(CommitPlan("cat", hand(g, "cat")[0]))
    assert of_type(events, "plans_revealed")[0]["public"]["plans"]["ann"] == second


def test_all_plans_are_revealed_together_only_when_everyone_has_committed():
    g = new_game()
    g.apply(CommitPlan("ann", hand(g, "ann")[0]))
    events = g.apply(CommitPlan("bob", hand(g, "bob")[0]))
    assert of_type(events, "plans_revealed") == []
    assert g.public_view()["plans_revealed"] == {}
    cat_plan = hand(g, "cat")[0]
    events = g.apply(CommitPlan("cat", cat_plan))
    revealed = of_type(events, "plans_revealed")[0]["public"]["plans"]
    assert set(revealed) == set(SEATS) and revealed["cat"] == cat_plan


def test_only_a_plan_from_your_own_hand_can_be_committed():
    g = new_game()
    with pytest.raises(RuleViolation) as err:
        g.apply(CommitPlan("ann", hand(g, "bob")[0]))
    assert err.value.code == "plan_not_in_hand"


def test_used_plans_are_discarded_then_two_are_passed_to_the_left_in_round_one():
    g = new_game()
    commit_all(g)
    play_until(g, lambda g: g.state.phase == "pass")
    assert g.public_view()["piles"]["plan_discard"] == 3
    hands = {p: list(hand(g, p)) for p in SEATS}
    assert all(len(h) == 5 for h in hands.values())
    with pytest.raises(RuleViolation) as err:
        g.apply(PassPlans("ann", tuple(hands["ann"][:3])))
    assert err.value.code == "pass_two"
    events = []
    for p in SEATS:
        events += g.apply(PassPlans(p, tuple(hands[p][:2])))
    passed = of_type(events, "plans_passed")[0]
    assert passed["public"] == {"direction": "left"}
    assert passed["private"]["ann"]["to"] == "bob"
    assert set(hands["ann"][:2]) <= set(hand(g, "bob"))  # left = the next seat
    assert set(hands["cat"][:2]) <= set(hand(g, "ann"))
    assert all(len(hand(g, p)) == 5 for p in SEATS)


def test_passing_goes_right_in_round_two_and_left_again_in_round_three():
    g = new_game()
    play_until(g, lambda g: g.state.turn_number == 9 and g.state.phase == "pass")
    directions = [e["public"]["direction"] for e in of_type(g.events, "plans_passed")]
    assert directions == ["left"] * 3 + ["right"] * 3
    ann_before = set(hand(g, "ann"))
    rng = random.Random(3)
    for p in SEATS:
        g.apply(PassPlans(p, tuple(rng.sample(hand(g, p), 2))))
    assert of_type(g.events, "plans_passed")[-1]["public"]["direction"] == "left"
    given = set(of_type(g.events, "pass_chosen")[-3]["private"]["ann"]["plans"])
    assert (
        given <= set(hand(g, "bob"))
        and not given & set(hand(g, "ann"))
        and ann_before - given <= set(hand(g, "ann"))
    )


def test_after_the_fourth_turn_the_last_two_plans_are_discarded_and_six_dealt():
    g = new_game()
    play_until(g, lambda g: g.state.turn_number == 5)
    kinds = [e["type"] for e in g.events]
    i = kinds.index("hands_discarded")
    assert kinds[i - 1] == "plans_discarded" and kinds[i + 1] == "plans_dealt"
    assert g.events[i]["public"]["counts"] == {p: 2 for p in SEATS}
    assert len(of_type(g.events, "plans_passed")) == 3  # no passing after turn 4
    assert all(len(hand(g, p)) == 6 for p in SEATS)


def test_the_plan_deck_is_reshuffled_from_the_discards_when_it_runs_out():
    seats = list("abcdef")  # 36 Plans a round: the deck is empty after two rounds
    g = new_game(seats=seats)
    play_until(g, lambda g: g.state.turn_number == 9)
    kinds = [e["type"] for e in g.events]
    i = kinds.index("plan_deck_reshuffled")
    assert kinds[i - 1] == "hands_discarded" and kinds[i + 1] == "plans_dealt"
    assert g.events[i]["public"]["plans"] == 72  # every Plan was discarded by then
    assert all(len(hand(g, p)) == 6 for p in seats) and len(g.state.plan_deck) == 36


def test_rounds_have_four_turns():
    g = new_game()
    play_until(g, lambda g: g.state.turn_number == 6)
    starts = [e["public"] for e in of_type(g.events, "turn_started")]
    assert [(t["round"], t["turn"]) for t in starts] == [(1, 1), (1, 2), (1, 3), (1, 4), (2, 1), (2, 2)]


def _components_with_treasures(n: int):
    doc = json.loads(resources.files("referee.theplan").joinpath("components.json").read_text())
    doc["treasures"] = doc["treasures"][:n]
    return parse_components(doc)


@pytest.mark.parametrize("treasures, turns, left", [(56, 11, 1), (55, 11, 0), (54, 10, 4)])
def test_the_game_ends_at_a_turn_start_when_five_treasures_cannot_be_revealed(treasures, turns, left):
    comps = COMPONENTS if treasures == 56 else _components_with_treasures(treasures)
    g = ThePlanGame.setup({"seats": SEATS}, 9, comps)[0]
    rng = random.Random(1)
    while not g.is_over:
        g.apply(random_command(g, rng))
    assert g.state.turn_number == turns and len(g.state.treasure_pile) == left
    kinds = [e["type"] for e in g.events]
    assert kinds[-1] == "game_ended" and kinds.count("game_ended") == 1
    assert kinds[-2] in ("plans_passed", "plans_dealt")  # nothing of a new turn happened
    with pytest.raises(RuleViolation) as err:
        g.apply(CommitPlan("ann", "lone-01"))
    assert err.value.code == "game_over"
