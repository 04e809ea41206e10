"""The components file: the default deck of docs/rules-theplan.md, and clear errors for a bad file."""

import copy
import itertools
import json
from collections import Counter
from importlib import resources

import pytest

from referee.theplan import (
    ComponentsError,
    ThePlanGame,
    default_components,
    load_components,
    parse_components,
)

DOC = json.loads(resources.files("referee.theplan").joinpath("components.json").read_text())
C = default_components()
KINDS = list(C.treasure_kinds)


def test_fifty_six_treasures_seven_kinds_two_sets_of_one_to_four_points():
    assert len(C.treasures) == 56 and len(KINDS) == 7
    for kind in KINDS:
        values = sorted(t.value for t in C.treasures.values() if t.kind == kind)
        assert values == [1, 1, 2, 2, 3, 3, 4, 4]
    assert set(C.treasure_kinds.values()) == {
        "Jewels",
        "Sculptures",
        "Natural History Specimens",
        "Paintings",
        "Egyptian Artifacts",
        "Fossils",
        "Lunar Objects",
    }


def test_thirty_trinkets_three_kinds_two_sets_of_five_designs_worth_one():
    assert len(C.trinkets) == 30
    assert set(C.trinket_kinds.values()) == {"Documents", "Pottery", "Toys"}
    for kind in C.trinket_kinds:
        designs = Counter(t.design for t in C.trinkets.values() if t.kind == kind)
        assert designs == {d: 2 for d in "ABCDE"}
    assert {t.value for t in C.trinkets.values()} == {1}


def test_seventy_two_plans_in_five_types_with_the_printed_counts():
    counts = Counter(p.type for p in C.plans.values())
    assert counts == {
        "smash_and_grab": 16,
        "lone_specialist": 14,
        "team_of_two": 14,
        "team_of_three": 14,
        "team_of_four": 14,
    }
    assert [t.id for t in C.plan_types] == list(counts)  # execution order: smallest first


def _experts(type_id):
    return [frozenset(p.experts) for p in C.plans.values() if p.type == type_id]


def test_default_plan_experts_follow_the_rulings_balanced_deck():
    assert all(p.experts == () for p in C.plans.values() if p.type == "smash_and_grab")
    lone = Counter(k for e in _experts("lone_specialist") for k in e)
    assert lone == {k: 2 for k in KINDS}
    pairs = _experts("team_of_two")
    expected_pairs = {frozenset({KINDS[k], KINDS[(k + d) % 7]}) for k in range(7) for d in (1, 2)}
    assert set(pairs) == expected_pairs and len(pairs) == 14
    triples = _experts("team_of_three")
    fano = {frozenset(KINDS[(k + d) % 7] for d in line) for k in range(7) for line in ((0, 1, 3), (0, 2, 3))}
    assert set(triples) == fano and len(triples) == 14
    for a, b in itertools.combinations(KINDS, 2):  # two Fano planes: every pair of kinds on exactly 2 lines
        assert sum(1 for t in triples if {a, b} <= t) == 2
    quads = _experts("team_of_four")
    assert set(quads) == {frozenset(KINDS) - t for t in triples}
    for type_id, times in (("team_of_two", 4), ("team_of_three", 6), ("team_of_four", 8)):
        assert Counter(k for e in _experts(type_id) for k in e) == {k: times for k in KINDS}


def broken(change):
    doc = copy.deepcopy(DOC)
    change(doc)
    return doc


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda d: d["plans"][30].update(experts=["jewels", "gold"]), "unknown expert"),
        (lambda d: d["plans"][30].update(experts=["jewels"]), "shows 2 experts, not 1"),
        (lambda d: d["plans"][30].update(experts=["jewels", "jewels"]), "appears twice"),
        (lambda d: d["plans"][0].update(type="team_of_nine"), "unknown plan type"),
        (lambda d: d["plans"].pop(), "count says 14 but the file lists 13"),
        (lambda d: d["treasures"][3].update(id=d["treasures"][2]["id"]), "duplicate id"),
        (lambda d: d["treasures"][3].update(kind="coins"), "unknown treasure kind"),
        (lambda d: d["treasures"][3].update(value="4"), "'value' must be int"),
        (lambda d: d["trinkets"][0].pop("design"), "missing 'design'"),
        (lambda d: d.update(version=2), "unsupported version"),
        (lambda d: d["plan_types"].reverse(), "Smash & Grab must come first"),
        (lambda d: d.pop("plans"), "plans: must be a non-empty list"),
    ],
)
def test_a_bad_components_file_is_refused_with_a_clear_error(change, words):
    with pytest.raises(ComponentsError) as err:
        parse_components(broken(change))
    assert words in str(err.value)


def test_load_components_reads_an_edited_file_and_refuses_bad_json(tmp_path):
    edited = broken(lambda d: d["plans"][30].update(experts=["jewels", "paintings"]))
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(edited))
    comps = load_components(path)
    assert comps.plans[edited["plans"][30]["id"]].experts == ("jewels", "paintings")
    game = ThePlanGame.setup({"seats": ["a", "b", "c"]}, 1, comps)[0]
    assert game.state.phase == "commit"
    path.write_text("{not json")
    with pytest.raises(ComponentsError, match="not valid JSON"):
        load_components(path)
    with pytest.raises(ComponentsError, match="cannot read"):
        load_components(tmp_path / "missing.json")
