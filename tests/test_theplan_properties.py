"""Property tests over whole random games, every variant and both modes.

At every step: 56 treasures, 30 trinkets and 72 Plans are all accounted for exactly once; every
score equals a recomputation from the collections; the log replays to the live state; no view and
no event part holds a secret its audience must not see. At the end: the game ended exactly at the
first turn start with fewer than 5 treasures left.
"""

import json
import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from theplan_helpers import COMPONENTS

from referee.theplan import ThePlanGame, private_events_for, public_event
from referee.theplan.agents import random_command
from referee.theplan.state import apply_event, new_state

TYPES = [t.id for t in COMPONENTS.plan_types]
ALL_TREASURES = sorted(COMPONENTS.treasures)
ALL_TRINKETS = sorted(COMPONENTS.trinkets)
ALL_PLANS = sorted(COMPONENTS.plans)


@st.composite
def configs(draw):
    variant = draw(st.sampled_from(["standard", "standard", "head_to_head", "solitaire"]))
    config = {
        "mode": draw(st.sampled_from(["digital", "digital", "physical"])),
        "bribes": draw(st.booleans()),
    }
    if variant == "standard":
        config["seats"] = [f"p{i}" for i in range(draw(st.integers(3, 6)))]
    elif variant == "head_to_head":
        config["seats"] = ["p0", "p1"]
        config["removed_plan_types"] = list(draw(st.sampled_from(list(combinations(TYPES, 2)))))
    else:
        config["seats"] = ["me"]
        config["ghosts"] = [f"ghost{i}" for i in range(draw(st.integers(1, 3)))]
    return config


def strings(obj):
    """Every string anywhere in a JSON-able value (keys included)."""
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from strings(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from strings(v)


def secrets(s, player=None):
    """Ids nobody but their owner may see: piles, deck, hands, face-down Plans, passes being chosen."""
    hidden = set(s.treasure_pile) | set(s.trinket_pile) | set(s.plan_deck)
    for p in s.config.players:
        if p != player:
            hidden |= set(s.hands[p]) | set(s.passes.get(p, []))
            if not s.physical and p in s.committed:
                hidden.add(s.committed[p])
    return hidden


def recomputed_score(s, p):
    treasures = [COMPONENTS.treasures[t] for t in s.treasures[p]]
    trinkets = [COMPONENTS.trinkets[t] for t in s.trinkets[p]]
    points = sum(t.value for t in treasures) + sum(t.value for t in trinkets)
    sets = 0
    for kind in COMPONENTS.treasure_kinds:  # a set: one each of 1, 2, 3 and 4 points
        have = Counter(t.value for t in treasures if t.kind == kind)
        sets += min(have[v] for v in (1, 2, 3, 4))
    for kind in COMPONENTS.trinket_kinds:  # greedy: always use the four most plentiful designs
        have = Counter(t.design for t in trinkets if t.kind == kind)
        while len([d for d in have if have[d] > 0]) >= 4:
            for d, _ in Counter({d: c for d, c in have.items() if c > 0}).most_common(4):
                have[d] -= 1
            sets += 1
    return points + 5 * sets


def check_conservation(s):
    treasures = s.treasure_pile + s.face_up_treasures + [t for p in s.config.players for t in s.treasures[p]]
    assert sorted(treasures) == ALL_TREASURES
    trinkets = s.trinket_pile + s.face_up_trinkets + s.trinket_discard
    trinkets += [t for p in s.config.players for t in s.trinkets[p]]
    assert sorted(trinkets) == ALL_TRINKETS
    seen = s.plan_discard + s.removed_plans + list(s.table.values())
    if s.physical:
        assert len(set(seen) | set(s.committed.values())) == len(seen) + len(s.committed)
        unseen = s.deck_count + sum(s.hand_counts.values()) + s.unseen_discards
        assert unseen + len(seen) == 72 and min(s.hand_counts.values()) >= 0 and s.deck_count >= 0
    else:
        plans = (
            s.plan_deck
            + seen
            + list(s.committed.values())
            + [p for q in s.config.players for p in s.hands[q]]
        )
        assert sorted(plans) == ALL_PLANS


def check_views(game):
    s = game.state
    public = set(strings(game.public_view()))
    assert not public & secrets(s)
    for p in s.config.players:
        assert not set(strings(game.player_view(p))) & secrets(s, p)


def check_event(s, e):
    """After `e` is applied to `s`: its public part shows no secret, each private part only its owner's."""
    assert not set(strings(public_event(e))) & secrets(s)
    for p in e.get("private", {}):
        given = set(e["private"][p].get("given", []))  # the Plans p just passed on
        assert not set(strings(private_events_for(e, p))) & (secrets(s, p) - given)


def play_and_check(config, seed, agent_seed):
    game = ThePlanGame.setup(config, seed)[0]
    shadow = new_state(game.events[0], COMPONENTS)  # the log, replayed one event at a time
    done = 1
    rng = random.Random(agent_seed)
    turn_starts = []
    while True:
        for e in game.events[done:]:
            apply_event(shadow, e)
            check_event(shadow, e)
            if e["type"] == "turn_started":
                turn_starts.append((e["public"]["turn_number"], len(shadow.treasure_pile)))
        done = len(game.events)
        s = game.state
        assert shadow.to_dict() == s.to_dict()
        check_conservation(s)
        scores = game.scores()
        assert {p: scores[p]["score"] for p in s.config.players} == {
            p: recomputed_score(s, p) for p in s.config.players
        }
        check_views(game)
        if game.is_over:
            break
        assert game.to_act(), "nobody can act but the game is not over"
        game.apply(random_command(game, rng))
    # Every turn began with at least 5 treasures to reveal; the game ended at the first that could not.
    assert all(pile >= 5 for _, pile in turn_starts)
    assert [n for n, _ in turn_starts] == list(range(1, len(turn_starts) + 1))
    assert len(s.treasure_pile) < 5 and len(s.treasure_pile) == 56 - 5 * len(turn_starts)
    assert game.events[-1]["type"] == "game_ended"
    replayed = ThePlanGame.replay(json.loads(json.dumps(game.events, sort_keys=True)))
    assert replayed.state.to_dict() == s.to_dict()


@pytest.mark.slow  # a property test over many whole random games
@settings(max_examples=14, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(config=configs(), seed=st.integers(0, 2**32), agent_seed=st.integers(0, 2**16))
def test_whole_random_games_keep_every_invariant(config, seed, agent_seed):
    play_and_check(config, seed, agent_seed)


@pytest.mark.slow  # whole games of every variant and player count
def test_every_variant_and_player_count_is_played_through():
    """Deterministic coverage alongside hypothesis: each player count and variant once."""
    for i, config in enumerate(
        [
            {"seats": [f"p{i}" for i in range(n)], "bribes": n % 2 == 0, "mode": mode}
            for n in (3, 4, 5, 6)
            for mode in ("digital", "physical")
        ]
        + [
            {"seats": ["p0", "p1"], "bribes": True},
            {"seats": ["me"], "ghosts": ["g1", "g2"], "bribes": True},
            {
                "seats": ["me"],
                "ghosts": ["g1"],
                "mode": "physical",
                "removed_plan_types": ["team_of_two", "team_of_three"],
            },
        ]
    ):
        play_and_check(config, seed=100 + i, agent_seed=i)
