"""Exact cases of the reach rule (docs/rules-masterplan.md, "Reach")."""

import math

import numpy as np
import pytest

from geometry import (
    CardOutline,
    GeometrySettings,
    ReachGraph,
    Verdict,
    gap_mm,
    measure_reach,
    overlaps,
    reach_verdict,
    reach_zone,
)


def card_at(cid, x, y, angle=0.0, sigma=0.0):
    return CardOutline.from_pose(cid, (x, y), angle, sigma_mm=sigma)


def rotate_about(card: CardOutline, angle_deg: float, centre=(0.0, 0.0), shift=(0.0, 0.0)) -> CardOutline:
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    corners = (card.corners - centre) @ rot.T + centre + shift
    return card.moved_to(corners)


@pytest.mark.parametrize(
    "gap, expected",
    [(62.9, Verdict.LEGAL), (63.0, Verdict.ILLEGAL), (63.1, Verdict.ILLEGAL)],
)
def test_parallel_long_edges_jump_is_legal_only_strictly_under_reach(gap, expected):
    a = card_at("a", 0, 0)
    b = card_at("b", 63.0 + gap, 0)
    assert gap_mm(a, b) == pytest.approx(gap, abs=1e-9)
    assert measure_reach(a, b).verdict is expected


@pytest.mark.parametrize("angle", [17.0, 45.0, 90.0, 133.0, 271.5])
@pytest.mark.parametrize(
    "gap, expected",
    [(62.9, Verdict.LEGAL), (63.0, Verdict.ILLEGAL), (63.1, Verdict.ILLEGAL)],
)
def test_parallel_edges_keep_their_verdict_when_the_whole_table_is_rotated(angle, gap, expected):
    a = card_at("a", 0, 0)
    b = card_at("b", 63.0 + gap, 0)
    ra, rb = rotate_about(a, angle, shift=(300, 200)), rotate_about(b, angle, shift=(300, 200))
    assert gap_mm(ra, rb) == pytest.approx(gap, abs=1e-9)
    assert measure_reach(ra, rb).verdict is expected


def test_corner_to_corner_on_a_diagonal_measures_the_corner_distance():
    a = card_at("a", 0, 0)
    d = 40.0  # the corners are d*sqrt(2) = 56.57 mm apart
    b = card_at("b", 63 + d, 88 + d)
    assert gap_mm(a, b) == pytest.approx(d * math.sqrt(2), abs=1e-9)
    assert measure_reach(a, b).verdict is Verdict.LEGAL
    far = card_at("c", 63 + 45, 88 + 45)  # 63.64 mm corner to corner: illegal although dx, dy < 63
    assert gap_mm(a, far) == pytest.approx(45 * math.sqrt(2))
    assert measure_reach(a, far).verdict is Verdict.ILLEGAL


def test_rotated_card_gap_is_from_its_nearest_corner():
    a = card_at("a", 0, 0)  # right edge at x = 31.5
    b = card_at("b", 150, 0, angle=45)  # a diamond: its leftmost corner is at 150 - (63+88)/2/sqrt2
    leftmost = 150 - (31.5 + 44) / math.sqrt(2)
    assert gap_mm(a, b) == pytest.approx(leftmost - 31.5, abs=1e-9)


def test_touching_cards_have_gap_zero_and_do_not_overlap():
    a = card_at("a", 0, 0)
    b = card_at("b", 63, 0)
    assert gap_mm(a, b) == 0.0
    assert measure_reach(a, b).verdict is Verdict.LEGAL
    assert overlaps(b, [a]) == []


def test_overlapping_cards_have_gap_zero_and_overlap_is_reported_with_the_card_hit():
    a = card_at("a", 0, 0)
    b = card_at("b", 40, 10)
    assert gap_mm(a, b) == 0.0
    hits = overlaps(b, [a, card_at("far", 500, 500)])
    assert [h.card_id for h in hits] == ["a"]
    assert hits[0].area_mm2 == pytest.approx((63 - 40) * (88 - 10))


def test_nested_card_lying_on_another_is_overlap_with_gap_zero():
    a = card_at("a", 0, 0)
    small = CardOutline("s", [(-10, -10), (10, -10), (10, 10), (-10, 10)])
    assert gap_mm(a, small) == 0.0
    (hit,) = overlaps(small, [a])
    assert hit.fraction == pytest.approx(1.0)


def test_overlap_below_one_percent_of_a_card_is_tolerated():
    a = card_at("a", 0, 0)
    area = 63 * 88
    # b overlaps a by a strip of width w along a's 88 mm edge
    w_ok = 0.009 * area / 88
    w_bad = 0.011 * area / 88
    assert overlaps(card_at("b", 63 - w_ok, 0), [a]) == []
    assert [o.card_id for o in overlaps(card_at("b", 63 - w_bad, 0), [a])] == ["a"]
    strict = GeometrySettings(overlap_tolerance=0.0)
    assert [o.card_id for o in overlaps(card_at("b", 63 - w_ok, 0), [a], strict)] == ["a"]


@pytest.mark.parametrize(
    "corners, words",
    [
        ([(0, 0), (63, 0), (63, 88)], "4 corners"),
        ([(0, 0), (63, 0), (63, 88), (0, 88), (0, 44)], "4 corners"),
        ([(0, 0), (63, 88), (63, 0), (0, 88)], "convex"),  # a bow-tie: self-intersecting
        ([(0, 0), (63, 0), (20, 20), (0, 88)], "convex"),  # a dent
        ([(0, 0), (63, 0), (126, 0), (0, 88)], "convex"),  # three on a line
        ([(0, 0), (63, 0), (63, float("nan")), (0, 88)], "NaN"),
        ([(0, 0), (63, 0), (63, float("inf")), (0, 88)], "NaN"),
        ("not corners", "pairs"),
    ],
)
def test_degenerate_card_outline_is_a_clear_value_error(corners, words):
    with pytest.raises(ValueError, match=words):
        CardOutline("bad", corners)


def test_negative_or_misshapen_sigma_is_a_clear_value_error():
    with pytest.raises(ValueError, match="sigma"):
        CardOutline("a", [(0, 0), (63, 0), (63, 88), (0, 88)], sigma_mm=-1)
    with pytest.raises(ValueError, match="one per corner"):
        CardOutline("a", [(0, 0), (63, 0), (63, 88), (0, 88)], sigma_mm=[1, 2])


def test_short_and_long_edges_and_any_rotation():
    c = card_at("a", 10, 20, angle=33)
    assert c.short_edge_mm == pytest.approx(63)
    assert c.long_edge_mm == pytest.approx(88)
    assert c.area_mm2 == pytest.approx(63 * 88)
    assert c.center_mm == pytest.approx((10, 20))


def test_too_close_to_call_when_gap_is_within_k_sigma_of_reach():
    s = GeometrySettings()  # k = 3
    assert reach_verdict(62.0, sigma_gap_mm=0.5, settings=s) is Verdict.TOO_CLOSE_TO_CALL
    assert reach_verdict(64.4, sigma_gap_mm=0.5, settings=s) is Verdict.TOO_CLOSE_TO_CALL
    assert reach_verdict(61.4, sigma_gap_mm=0.5, settings=s) is Verdict.LEGAL
    assert reach_verdict(64.6, sigma_gap_mm=0.5, settings=s) is Verdict.ILLEGAL
    assert reach_verdict(62.0, sigma_gap_mm=0.5, settings=GeometrySettings(verdict_k=1)) is Verdict.LEGAL


def test_sigma_gap_between_parallel_edges_combines_both_cards_at_the_span_end():
    # Facing parallel edges are equally near along their shared span; the measured pair is an end
    # of that span (a corner of each card here), the conservative choice: sqrt(s_a^2 + s_b^2).
    a = card_at("a", 0, 0, sigma=0.4)
    b = card_at("b", 63 + 63.2, 0, sigma=0.3)
    r = measure_reach(a, b)
    assert r.sigma_gap_mm == pytest.approx(0.5, rel=1e-6)
    assert r.verdict is Verdict.TOO_CLOSE_TO_CALL


def test_sigma_gap_at_a_corner_is_that_corners_sigma():
    a = CardOutline("a", [(0, 0), (63, 0), (63, 88), (0, 88)], sigma_mm=[0.1, 0.1, 0.9, 0.1])
    b = card_at("b", 63 + 40 + 31.5, 88 + 40 + 44)  # nearest point of a is its corner (63, 88)
    r = measure_reach(a, b)
    # b's nearest point is also a corner with sigma 0: sigma_gap = a's corner sigma.
    assert r.sigma_gap_mm == pytest.approx(0.9, rel=1e-6)


def test_reach_zone_contains_exactly_the_points_within_reach():
    c = card_at("a", 0, 0)
    zone = reach_zone(c, 63.0)
    from shapely.geometry import Point

    assert zone.contains(Point(31.5 + 62.5, 0))
    assert not zone.contains(Point(31.5 + 63.5, 0))
    assert zone.area > c.area_mm2


def test_settings_reject_nonsense_with_clear_errors():
    with pytest.raises(ValueError, match="reach_mm"):
        GeometrySettings(reach_mm=-1)
    with pytest.raises(ValueError, match="overlap_tolerance"):
        GeometrySettings(overlap_tolerance=1.5)
    with pytest.raises(ValueError, match="close_call_policy"):
        GeometrySettings(close_call_policy="maybe")
    with pytest.raises(ValueError, match="swap"):
        GeometrySettings(card_short_mm=90, card_long_mm=63)
    s = GeometrySettings.for_card_size(57.0, 87.0)
    assert s.reach_mm == 57.0


def test_graph_neighbours_paths_and_hops_on_a_line_of_cards():
    # Cards in a row, 50 mm apart (legal) except one 70 mm gap (illegal) before the last.
    xs = [0, 113, 226, 339, 472]
    g = ReachGraph([card_at(i, x, 0) for i, x in enumerate(xs)])
    assert set(g.neighbours(1)) == {0, 2}
    assert g.neighbours(1)[2].gap_mm == pytest.approx(50)
    assert g.shortest_path(0, 3) == [0, 1, 2, 3]
    assert g.hops(0, 3) == 3
    assert g.shortest_path(0, 4) is None
    assert g.reach(3, 4).verdict is Verdict.ILLEGAL
    assert g.reach(3, 4).gap_mm == pytest.approx(70)


def test_graph_refuses_duplicate_ids_and_unknown_cards():
    a = card_at("a", 0, 0)
    with pytest.raises(ValueError, match="twice"):
        ReachGraph([a, card_at("a", 200, 0)])
    g = ReachGraph([a])
    with pytest.raises(ValueError, match="already on the table"):
        g.add(card_at("a", 200, 0))
    with pytest.raises(KeyError, match="not on the table"):
        g.remove("zz")


def test_graph_too_close_pairs_are_neighbours_but_not_on_legal_paths():
    a = card_at("a", 0, 0, sigma=0.5)
    b = card_at("b", 63 + 63.5, 0, sigma=0.5)
    g = ReachGraph([a, b])
    assert g.neighbours("a")["b"].verdict is Verdict.TOO_CLOSE_TO_CALL
    assert g.shortest_path("a", "b") is None
    assert g.shortest_path("a", "b", verdicts={Verdict.LEGAL, Verdict.TOO_CLOSE_TO_CALL}) == ["a", "b"]


def test_graph_overlap_check_uses_the_index_and_sees_recently_added_cards():
    g = ReachGraph([card_at(i, 200 * i, 0) for i in range(10)])
    g.add(card_at("new", 1000, 300))
    assert [o.card_id for o in g.overlaps(card_at("p", 1010, 310))] == ["new"]
    assert [o.card_id for o in g.overlaps(card_at("q", 410, 0))] == [2]
    assert g.overlaps(card_at("r", 100, 0)) == []
