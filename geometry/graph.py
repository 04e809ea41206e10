"""The reachability graph of the table: which cards a pawn can jump between.

Built in bulk with shapely's STRtree (envelope query, then the exact gap); a card added,
removed or moved afterwards only touches its own edges (STRtree `dwithin` query). New and moved cards wait in a small
side list that is searched directly until the tree is re-indexed; re-indexing rebuilds the
spatial tree only (no gap is measured again) and happens once the side list outgrows
~sqrt(n), so an update costs O(log n + k) amortised for k nearby cards.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Collection, Iterable, Iterator, Mapping

import numpy as np
import shapely
from shapely import STRtree

from geometry.card import CardId, CardOutline
from geometry.placement import Overlap, overlaps
from geometry.reach import Reach, Verdict, candidate_radius_mm, measure_pairs_within, measure_reaches
from geometry.settings import DEFAULT_SETTINGS, GeometrySettings

LEGAL_ONLY = frozenset({Verdict.LEGAL})


class ReachGraph:
    """Cards on the table and, for every pair within reach (or too close to call), their Reach."""

    def __init__(
        self, cards: Iterable[CardOutline] = (), settings: GeometrySettings = DEFAULT_SETTINGS
    ) -> None:
        self.settings = settings
        self._cards: dict[CardId, CardOutline] = {}
        self._adj: dict[CardId, dict[CardId, Reach]] = {}
        self._max_sigma = 0.0
        self._tree: STRtree | None = None
        self._tree_cards: list[CardOutline] = []
        self._recent: dict[CardId, CardOutline] = {}
        self._build(list(cards))

    # ---- building and the spatial index -------------------------------------------------------
    def _build(self, cards: list[CardOutline]) -> None:
        for card in cards:
            if card.id in self._cards:
                raise ValueError(f"card {card.id!r} appears twice; every card on the table needs its own id")
            self._cards[card.id] = card
            self._adj[card.id] = {}
            self._max_sigma = max(self._max_sigma, card.max_sigma_mm)
        self._reindex()
        if len(cards) < 2:
            return
        # Candidates by envelope grown by the radius, then one vectorised exact gap for each pair:
        # GEOS's own `dwithin` predicate would measure every candidate's distance a second time.
        polys = np.array([c.polygon for c in self._tree_cards], dtype=object)
        r = self._radius()
        x0, y0, x1, y1 = shapely.bounds(polys).T
        left, right = self._tree.query(shapely.box(x0 - r, y0 - r, x1 + r, y1 + r))  # type: ignore[union-attr]
        keep = left < right
        firsts = [self._tree_cards[i] for i in left[keep]]
        seconds = [self._tree_cards[j] for j in right[keep]]
        for a, b, reach in zip(firsts, seconds, measure_pairs_within(firsts, seconds, r, self.settings)):
            if reach is not None:
                self._link(a.id, b.id, reach)

    def _reindex(self) -> None:
        self._tree_cards = list(self._cards.values())
        self._tree = STRtree([c.polygon for c in self._tree_cards]) if self._tree_cards else None
        self._recent.clear()

    def _radius(self) -> float:
        return candidate_radius_mm(self._max_sigma, self.settings)

    def _live(self, card: CardOutline) -> bool:
        return self._cards.get(card.id) is card

    def _candidates(
        self, card: CardOutline, predicate: str, distance: float | None = None
    ) -> list[CardOutline]:
        found: list[CardOutline] = []
        if self._tree is not None:
            for i in self._tree.query(card.polygon, predicate=predicate, distance=distance):
                other = self._tree_cards[i]
                if other.id != card.id and self._live(other):
                    found.append(other)
        recent = [c for c in self._recent.values() if c.id != card.id and self._live(c)]
        if recent:
            polys = np.array([c.polygon for c in recent], dtype=object)
            if predicate == "dwithin":
                hit = shapely.dwithin(card.polygon, polys, distance)
            else:
                hit = shapely.intersects(card.polygon, polys)
            found.extend(c for c, h in zip(recent, hit) if h)
        return found

    def _index_new(self, card: CardOutline) -> None:
        self._recent[card.id] = card
        stale = len(self._tree_cards) - len(self._cards) + len(self._recent)
        if len(self._recent) > max(16, math.isqrt(len(self._cards))) or stale > len(self._cards) + 16:
            self._reindex()

    def _link(self, a: CardId, b: CardId, reach: Reach) -> None:
        if reach.verdict is not Verdict.ILLEGAL:
            self._adj[a][b] = reach
            self._adj[b][a] = reach

    def _connect(self, card: CardOutline) -> None:
        near = self._candidates(card, "dwithin", self._radius())
        for other, r in zip(near, measure_reaches(card, near, self.settings)):
            self._link(card.id, other.id, r)

    def _unlink_all(self, card_id: CardId) -> None:
        for other in self._adj[card_id]:
            del self._adj[other][card_id]
        self._adj[card_id] = {}

    def _require(self, card_id: CardId) -> CardOutline:
        try:
            return self._cards[card_id]
        except KeyError:
            raise KeyError(f"card {card_id!r} is not on the table") from None

    # ---- changing the table -------------------------------------------------------------------
    def add(self, card: CardOutline) -> None:
        if card.id in self._cards:
            raise ValueError(f"card {card.id!r} is already on the table; move it instead of adding it again")
        self._cards[card.id] = card
        self._adj[card.id] = {}
        self._max_sigma = max(self._max_sigma, card.max_sigma_mm)
        self._connect(card)
        self._index_new(card)

    def remove(self, card_id: CardId) -> CardOutline:
        card = self._require(card_id)
        self._unlink_all(card_id)
        del self._adj[card_id]
        del self._cards[card_id]
        self._recent.pop(card_id, None)
        return card

    def move(self, card: CardOutline) -> None:
        """Put the card with this id at its new outline (moved, switched, or re-measured)."""
        self._require(card.id)
        self._unlink_all(card.id)
        self._cards[card.id] = card
        self._max_sigma = max(self._max_sigma, card.max_sigma_mm)
        self._connect(card)
        self._index_new(card)

    # ---- reading the table --------------------------------------------------------------------
    @property
    def cards(self) -> Mapping[CardId, CardOutline]:
        return self._cards

    def __len__(self) -> int:
        return len(self._cards)

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._cards

    def card(self, card_id: CardId) -> CardOutline:
        return self._require(card_id)

    def neighbours(self, card_id: CardId, verdicts: Collection[Verdict] | None = None) -> dict[CardId, Reach]:
        """Cards a pawn on `card_id` can reach (legal) or might (too close to call), with their Reach.
        Pass `verdicts` to keep only some."""
        self._require(card_id)
        near = self._adj[card_id]
        if verdicts is None:
            return dict(near)
        return {k: r for k, r in near.items() if r.verdict in verdicts}

    def reach(self, a: CardId, b: CardId) -> Reach:
        """The Reach between two cards on the table, whether or not a jump is legal."""
        card_a, card_b = self._require(a), self._require(b)
        return self._adj[a].get(b) or measure_reaches(card_a, [card_b], self.settings)[0]

    def edges(self) -> Iterator[tuple[CardId, CardId, Reach]]:
        """Every pair that is legal or too close to call, once each."""
        seen: set[CardId] = set()
        for a, near in self._adj.items():
            seen.add(a)
            for b, r in near.items():
                if b not in seen:
                    yield a, b, r

    def shortest_path(
        self, start: CardId, goal: CardId, verdicts: Collection[Verdict] = LEGAL_ONLY
    ) -> list[CardId] | None:
        """Fewest jumps from `start` to `goal` along edges with the given verdicts (legal only by
        default), as the list of cards visited including both ends; None if unreachable."""
        self._require(start)
        self._require(goal)
        came_from: dict[CardId, CardId | None] = {start: None}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if here == goal:
                path = [here]
                while (prev := came_from[path[-1]]) is not None:
                    path.append(prev)
                return path[::-1]
            for nxt, r in self._adj[here].items():
                if nxt not in came_from and r.verdict in verdicts:
                    came_from[nxt] = here
                    queue.append(nxt)
        return None

    def hops(self, start: CardId, goal: CardId, verdicts: Collection[Verdict] = LEGAL_ONLY) -> int | None:
        """Number of jumps on a shortest path, or None if `goal` cannot be reached."""
        path = self.shortest_path(start, goal, verdicts)
        return None if path is None else len(path) - 1

    def overlaps(self, proposed: CardOutline) -> list[Overlap]:
        """The cards on the table that a proposed placement overlaps (the tolerance of
        docs/rules-masterplan.md, "Add")."""
        return overlaps(proposed, self._candidates(proposed, "intersects"), self.settings)
