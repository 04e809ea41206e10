"""Scoring: points, complete sets, tie-breaks, shared wins and the solitaire win
(docs/rules-theplan.md, "Scoring and the winner")."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence

from referee.theplan.components import Components


def complete_sets(faces: Iterable[str], set_size: int) -> int:
    """How many disjoint sets of `set_size` different faces the items make.

    k sets are possible exactly when each face can give at most k items and together they give
    set_size * k (a face with two copies may sit in two sets, never twice in one)."""
    counts = Counter(faces).values()
    best = 0
    k = 1
    while sum(min(c, k) for c in counts) >= set_size * k:
        best = k
        k += 1
    return best


def score_collection(treasures: Sequence[str], trinkets: Sequence[str], components: Components) -> dict:
    """One player's score from their collection: points, sets, total and the tie-break counts."""
    c = components
    points = sum(c.treasures[t].value for t in treasures) + sum(c.trinkets[t].value for t in trinkets)
    sets = 0
    for kind in c.treasure_kinds:
        sets += complete_sets(
            (str(c.treasures[t].value) for t in treasures if c.treasures[t].kind == kind), c.set_size
        )
    for kind in c.trinket_kinds:
        sets += complete_sets(
            (c.trinkets[t].design for t in trinkets if c.trinkets[t].kind == kind), c.set_size
        )
    return {
        "points": points,
        "sets": sets,
        "score": points + c.set_bonus * sets,
        "treasures": len(treasures),
        "trinkets": len(trinkets),
    }


def ranking_key(score: Mapping[str, int]) -> tuple[int, int, int, int]:
    """Higher is better: score, then most complete sets, most treasures, most trinkets."""
    return (score["score"], score["sets"], score["treasures"], score["trinkets"])


def ranking(scores: Mapping[str, Mapping[str, int]], seats: Sequence[str]) -> list[list[str]]:
    """Places from first to last; players still tied after every tie-break share a place."""
    keys = sorted({ranking_key(scores[s]) for s in seats}, reverse=True)
    return [[s for s in seats if ranking_key(scores[s]) == k] for k in keys]


def winners(
    scores: Mapping[str, Mapping[str, int]], players: Sequence[str], ghosts: Collection[str] = ()
) -> list[str]:
    """Who wins: everyone in first place, except in solitaire, where "the player wins by
    outscoring every Ghost" (docs/rules-theplan.md, "Solitaire with Ghosts"): a player who
    shares first place with a Ghost has not outscored it, so the Ghosts in first place win
    instead."""
    first = ranking(scores, players)[0]
    return [p for p in first if p in ghosts] or first
