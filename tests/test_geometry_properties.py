"""Property tests of the geometry layer: invariances, and the graph against brute force."""

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from geometry import CardOutline, GeometrySettings, ReachGraph, Verdict, gap_mm, measure_reach

coord = st.floats(min_value=-400, max_value=400, allow_nan=False)
angle = st.floats(min_value=0, max_value=360, allow_nan=False)
sigma = st.sampled_from([0.0, 0.0, 0.2, 0.5, 1.5])


@st.composite
def cards(draw, cid="c"):
    return CardOutline.from_pose(cid, (draw(coord), draw(coord)), draw(angle), sigma_mm=draw(sigma))


def transform(card: CardOutline, theta: float, shift) -> CardOutline:
    a = math.radians(theta)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    return card.moved_to(card.corners @ rot.T + shift)


@settings(max_examples=200, deadline=None)
@given(cards("a"), cards("b"))
def test_gap_is_symmetric(a, b):
    assert gap_mm(a, b) == gap_mm(b, a)
    ra, rb = measure_reach(a, b), measure_reach(b, a)
    assert ra.verdict is rb.verdict
    assert math.isclose(ra.sigma_gap_mm, rb.sigma_gap_mm, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=200, deadline=None)
@given(cards("a"), cards("b"), angle, coord, coord)
def test_gap_is_invariant_under_rotating_and_moving_the_whole_table(a, b, theta, dx, dy):
    ta, tb = transform(a, theta, (dx, dy)), transform(b, theta, (dx, dy))
    assert math.isclose(gap_mm(a, b), gap_mm(ta, tb), abs_tol=1e-7)


def brute_force_edges(card_list, s):
    edges = {}
    for i, a in enumerate(card_list):
        for b in card_list[i + 1 :]:
            r = measure_reach(a, b, s)
            if r.verdict is not Verdict.ILLEGAL:
                edges[frozenset((a.id, b.id))] = r.verdict
    return edges


def graph_edges(g: ReachGraph):
    return {frozenset((a, b)): r.verdict for a, b, r in g.edges()}


# Tables dense enough that many pairs sit near the 63 mm threshold.
table_coord = st.floats(min_value=0, max_value=700, allow_nan=False)


@st.composite
def tables(draw, max_cards=30):
    n = draw(st.integers(min_value=0, max_value=max_cards))
    return [
        CardOutline.from_pose(i, (draw(table_coord), draw(table_coord)), draw(angle), sigma_mm=draw(sigma))
        for i in range(n)
    ]


@settings(max_examples=60, deadline=None)
@given(tables())
def test_strtree_graph_equals_brute_force_pairwise_graph(table):
    s = GeometrySettings()
    assert graph_edges(ReachGraph(table, s)) == brute_force_edges(table, s)


operations = st.lists(
    st.tuples(
        st.sampled_from(["add", "remove", "move"]), st.integers(0, 60), table_coord, table_coord, angle, sigma
    ),
    max_size=60,
)


@settings(max_examples=60, deadline=None)
@given(tables(max_cards=20), operations)
def test_incremental_add_remove_move_equals_a_fresh_build(table, ops):
    g = ReachGraph(table)
    live = {c.id: c for c in table}
    for op, cid, x, y, a, s in ops:
        card = CardOutline.from_pose(cid, (x, y), a, sigma_mm=s)
        if op == "add" and cid not in live:
            g.add(card)
            live[cid] = card
        elif op == "remove" and cid in live:
            g.remove(cid)
            del live[cid]
        elif op == "move" and cid in live:
            g.move(card)
            live[cid] = card
    fresh = ReachGraph(live.values())
    assert graph_edges(g) == graph_edges(fresh)
    assert set(g.cards) == set(live)
    probe = CardOutline.from_pose("probe", (350, 350), 10)
    assert {o.card_id for o in g.overlaps(probe)} == {o.card_id for o in fresh.overlaps(probe)}


@settings(max_examples=40, deadline=None)
@given(tables(max_cards=25))
def test_shortest_path_is_a_chain_of_legal_jumps_and_hops_match_bfs_depth(table):
    g = ReachGraph(table)
    if len(table) < 2:
        return
    start, goal = table[0].id, table[-1].id
    path = g.shortest_path(start, goal)
    if path is None:
        return
    assert path[0] == start and path[-1] == goal
    for a, b in zip(path, path[1:]):
        assert measure_reach(g.card(a), g.card(b)).verdict is Verdict.LEGAL
    assert g.hops(start, goal) == len(path) - 1
