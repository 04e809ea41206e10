"""The engine's contract with the service: commands as JSON, errors, determinism, replay, event splitting."""

import copy
import json
import random

import pytest

from referee.theplan import (
    COMMAND_TYPES,
    EVENT_TYPES,
    STEWARD,
    Bid,
    ChooseColour,
    ChooseContestOrder,
    ClaimTrinket,
    CommitPlan,
    MalformedCommand,
    PassPlans,
    ReportPlan,
    ReportReveal,
    RuleViolation,
    ThePlanGame,
    WithdrawPlan,
    command_from_dict,
    private_events_for,
    public_event,
)
from referee.theplan.agents import random_command

SAMPLES = [
    CommitPlan("ann", "lone-01"),
    WithdrawPlan("ann"),
    ChooseColour("ann", "jewels"),
    ClaimTrinket("ann", "toys-a1"),
    ClaimTrinket("ann", None, True),
    PassPlans("ann", ("lone-01", "two-03")),
    Bid("ann", ()),
    Bid("ann", ("toys-a1", "pottery-b2")),
    ChooseContestOrder("ann", "fossils"),
    ReportReveal(STEWARD, ("jewels-1a",) * 5, ("toys-a1",)),
    ReportPlan(STEWARD, "ann", "lone-01"),
]


def test_every_command_type_round_trips_through_json():
    assert {c.type for c in SAMPLES} == set(COMMAND_TYPES)
    for cmd in SAMPLES:
        d = json.loads(json.dumps(cmd.to_dict()))
        assert d["type"] == cmd.type and d["player"] == cmd.player
        assert command_from_dict(d) == cmd


@pytest.mark.parametrize(
    "d, code, words",
    [
        ({"type": "steal_everything", "player": "ann"}, "unknown_command", "unknown command type"),
        ({"player": "ann"}, "unknown_command", "unknown command type"),
        ("commit_plan", "malformed_command", "JSON object"),
        ({"type": "commit_plan", "player": "ann"}, "malformed_command", "missing field 'plan'"),
        ({"type": "commit_plan", "player": "ann", "plan": 3}, "malformed_command", "'plan' must be text"),
        (
            {"type": "commit_plan", "player": "ann", "plan": "x", "cheat": 1},
            "malformed_command",
            "unexpected field",
        ),
        ({"type": "pass_plans", "player": "ann", "plans": "lone-01"}, "malformed_command", "list of ids"),
        ({"type": "claim_trinket", "player": "ann", "blind": "yes"}, "malformed_command", "true or false"),
    ],
)
def test_malformed_commands_get_a_typed_error_in_plain_words(d, code, words):
    with pytest.raises(MalformedCommand) as err:
        command_from_dict(d)
    assert err.value.code == code and words in err.value.message
    assert isinstance(err.value, RuleViolation)


def test_a_refused_command_changes_nothing():
    g = ThePlanGame.setup({"seats": ["ann", "bob", "cat"]}, 2)[0]
    bob_plan = g.state.hands["bob"][0]
    bad = [
        CommitPlan("ann", bob_plan),
        CommitPlan("zed", bob_plan),
        WithdrawPlan("ann"),
        ChooseColour("ann", "jewels"),
        PassPlans("ann", tuple(g.state.hands["ann"][:2])),
        ClaimTrinket("ann", g.state.face_up_trinkets[0]),
        Bid("ann", ()),
        ReportPlan(STEWARD, "ann", "lone-01"),
        ReportPlan("ann", "ann", "lone-01"),
    ]
    before, n = copy.deepcopy(g.state.to_dict()), len(g.events)
    for cmd in bad:
        with pytest.raises(RuleViolation) as err:
            g.apply(cmd)
        assert err.value.message and err.value.code
        assert g.state.to_dict() == before and len(g.events) == n, cmd


def _play(config, seed, agent_seed, steps=None):
    g = ThePlanGame.setup(config, seed)[0]
    rng = random.Random(agent_seed)
    commands = []
    while not g.is_over and (steps is None or len(commands) < steps):
        cmd = random_command(g, rng)
        commands.append(cmd)
        g.apply(cmd)
    return g, commands


@pytest.mark.parametrize(
    "config",
    [
        {"seats": ["a", "b", "c", "d"], "bribes": True},
        {"seats": ["me"], "ghosts": ["g1", "g2"], "bribes": True},
        {"seats": ["a", "b", "c"], "mode": "physical"},
    ],
)
def test_same_seed_and_commands_give_byte_identical_events(config):
    g1, commands = _play(config, 11, 5)
    g2 = ThePlanGame.setup(config, 11)[0]
    for cmd in commands:
        g2.apply(command_from_dict(json.loads(json.dumps(cmd.to_dict()))))
    assert json.dumps(g1.events, sort_keys=True) == json.dumps(g2.events, sort_keys=True)
    if config.get("mode") != "physical":  # another seed deals and reveals differently
        other = ThePlanGame.setup(config, 12)[0]
        assert [public_event(e) for e in other.events] != [
            public_event(e) for e in g2.events[: len(other.events)]
        ]


@pytest.mark.parametrize("steps", [0, 7, 40, None])
def test_replay_of_the_stored_log_rebuilds_the_live_state_and_play_continues_alike(steps):
    config = {"seats": ["a", "b", "c", "d", "e"], "bribes": True}
    live, _ = _play(config, 21, 4, steps)
    stored = json.loads(json.dumps(live.events, sort_keys=True))  # as a store would keep it
    again = ThePlanGame.replay(stored)
    assert again.state.to_dict() == live.state.to_dict()
    assert again.public_view() == live.public_view() and again.to_act() == live.to_act()
    rng1, rng2 = random.Random(9), random.Random(9)
    while not live.is_over:
        e1 = live.apply(random_command(live, rng1))
        e2 = again.apply(random_command(again, rng2))
        assert json.dumps(e1, sort_keys=True) == json.dumps(e2, sort_keys=True)


def test_events_are_json_and_of_known_types():
    g, _ = _play({"seats": ["a", "b", "c"], "bribes": True}, 3, 3)
    for e in g.events:
        assert e["type"] in EVENT_TYPES
        assert json.loads(json.dumps(e)) == e
        assert set(e) <= {"type", "public", "private", "secret"}


def test_setup_returns_the_game_and_its_first_events():
    g, events = ThePlanGame.setup({"seats": ["ann", "bob", "cat"]}, 2)
    assert events == g.events and events[0]["type"] == "game_set_up"
    assert events[0]["public"]["rules_version"] == 2 and events[0]["public"]["variant"] == "standard"


def test_a_dealt_hand_is_private_to_its_player():
    g = ThePlanGame.setup({"seats": ["ann", "bob", "cat"]}, 2)[0]
    dealt = next(e for e in g.events if e["type"] == "plans_dealt")
    counts = {"ann": 6, "bob": 6, "cat": 6}
    assert public_event(dealt) == {"type": "plans_dealt", "counts": counts}
    assert private_events_for(dealt, "ann") == {
        "type": "plans_dealt",
        "counts": counts,
        "plans": g.state.hands["ann"],
    }
    seen = json.dumps(private_events_for(dealt, "bob"))
    assert not any(f'"{p}"' in seen for p in g.state.hands["ann"])
    setup_event = g.events[0]
    assert "seed" not in json.dumps(public_event(setup_event)) and setup_event["secret"]["seed"] == 2


def test_a_commitment_acknowledgement_goes_only_to_its_player():
    g = ThePlanGame.setup({"seats": ["ann", "bob", "cat"]}, 2)[0]
    plan = g.state.hands["ann"][0]
    (e,) = g.apply(CommitPlan("ann", plan))
    assert public_event(e) == {"type": "plan_committed", "player": "ann"}
    assert private_events_for(e, "ann") == {
        "type": "plan_committed",
        "player": "ann",
        "plan": plan,
        "changed": False,
    }
    assert private_events_for(e, "bob") is None and plan not in json.dumps(public_event(e))


def test_legal_commands_are_all_accepted():
    rng = random.Random(1)
    for config in (
        {"seats": ["a", "b", "c"], "bribes": True},
        {"seats": ["a", "b", "c"], "mode": "physical"},
    ):
        g = ThePlanGame.setup(config, 6)[0]
        for _ in range(60):
            for actor in g.to_act():
                for cmd in g.legal_commands(actor):
                    trial = ThePlanGame.replay(g.events)
                    trial.apply(cmd)  # raises if the generator offered an illegal command
            g.apply(random_command(g, rng))


def test_views_are_plain_json():
    g, _ = _play({"seats": ["a", "b", "c"]}, 2, 2, steps=30)
    for view in (g.public_view(), g.player_view("a")):
        assert json.loads(json.dumps(view)) == view
    with pytest.raises(RuleViolation):
        g.player_view("nobody")
