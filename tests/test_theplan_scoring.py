"""Scoring: points, complete sets (several per kind), tie-breaks and shared wins."""

import functools
import itertools
import random
from collections import Counter

from theplan_helpers import COMPONENTS

from referee.theplan.agents import play_random_game
from referee.theplan.scoring import complete_sets, ranking, score_collection


def score(treasures=(), trinkets=()):
    return score_collection(list(treasures), list(trinkets), COMPONENTS)


def test_each_treasure_and_trinket_scores_the_points_it_shows():
    s = score(["jewels-4a", "sculptures-2b", "fossils-1a"], ["toys-a1", "documents-c2"])
    assert (s["points"], s["sets"], s["score"]) == (9, 0, 9)


def test_four_unique_treasures_of_one_kind_score_five_more():
    s = score(["jewels-1a", "jewels-2a", "jewels-3b", "jewels-4a"])
    assert (s["points"], s["sets"], s["score"]) == (10, 1, 15)


def test_repeated_or_mixed_kind_treasures_make_no_set():
    assert score(["jewels-1a", "jewels-1b", "jewels-2a", "jewels-3a"])["sets"] == 0
    assert score(["jewels-1a", "sculptures-2a", "jewels-3a", "jewels-4a"])["sets"] == 0


def test_a_player_can_complete_two_sets_of_one_kind():
    s = score([f"jewels-{v}{c}" for v in (1, 2, 3, 4) for c in "ab"])
    assert (s["points"], s["sets"], s["score"]) == (20, 2, 30)


def test_any_four_different_trinket_designs_of_one_type_make_a_set():
    s = score(trinkets=["toys-a1", "toys-b2", "toys-c1", "toys-e1"])
    assert (s["points"], s["sets"], s["score"]) == (4, 1, 9)
    assert score(trinkets=["toys-a1", "toys-a2", "toys-b1", "toys-c1"])["sets"] == 0
    assert score(trinkets=["toys-a1", "toys-b1", "toys-c1", "pottery-d1"])["sets"] == 0
    eight = ["toys-a1", "toys-b1", "toys-c1", "toys-d1", "toys-a2", "toys-b2", "toys-c2", "toys-e1"]
    assert score(trinkets=eight)["sets"] == 2


def _brute_force_sets(faces, size):
    """Try every choice of `size` different faces, recursively, on the face counts."""

    @functools.cache
    def best(counts):
        found = 0
        present = [i for i, c in enumerate(counts) if c > 0]
        for group in itertools.combinations(present, size):
            rest = list(counts)
            for i in group:
                rest[i] -= 1
            found = max(found, 1 + best(tuple(sorted(rest))))
        return found

    return best(tuple(sorted(Counter(faces).values())))


def test_complete_sets_matches_a_brute_force_count():
    rng = random.Random(4)
    for _ in range(60):
        faces = [rng.choice("ABCDE") for _ in range(rng.randint(0, 9))]
        assert complete_sets(faces, 4) == _brute_force_sets(faces, 4), faces


def test_ties_are_broken_by_sets_then_treasures_then_trinkets_then_shared():
    def s(score, sets, treasures, trinkets):
        return {"score": score, "sets": sets, "treasures": treasures, "trinkets": trinkets}

    scores = {
        "a": s(20, 1, 5, 2),
        "b": s(20, 2, 4, 0),  # more sets beats a
        "c": s(20, 1, 6, 0),  # more treasures than a
        "d": s(20, 1, 5, 3),  # more trinkets than a
        "e": s(20, 1, 5, 3),  # shares d's place
        "f": s(21, 0, 0, 0),  # the highest score wins outright
    }
    assert ranking(scores, list(scores)) == [["f"], ["b"], ["c"], ["d", "e"], ["a"]]


def test_final_scores_and_winners_come_from_the_collections():
    for players in (3, 6):
        g = play_random_game({"seats": [f"p{i}" for i in range(players)]}, seed=players, agent_seed=2)
        s = g.state
        expected = {p: score_collection(s.treasures[p], s.trinkets[p], COMPONENTS) for p in s.config.players}
        assert g.result["scores"] == expected == g.scores()
        best = max(v["score"] for v in expected.values())
        assert all(expected[w]["score"] == best for w in g.result["winners"])
        assert g.public_view()["result"]["winners"] == g.result["winners"]
