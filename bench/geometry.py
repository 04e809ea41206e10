"""Reachability graph: bulk build and one-card updates against a naive all-pairs loop.

    python -m bench.geometry [--quick] [--seed N]

Tables of N non-overlapping cards at random rotations on a jittered grid (gaps from touching to
~100 mm, many near the 63 mm threshold). The baseline is the naive referee: a Python loop of
`shapely.distance` over every pair, measured on the same cards in the same run. Cards' polygons
are built before timing in both cases.
"""

from __future__ import annotations

import argparse
import math
import random

import shapely

from bench.common import best_of, ms
from geometry import CardOutline, GeometrySettings, ReachGraph, reach_verdict

CELL_MM = 160.0  # two cards' circumradius (54.4 mm) plus jitter never overlap in adjacent cells


def random_table(n: int, rng: random.Random, sigma_mm: float = 0.3) -> list[CardOutline]:
    cols = math.ceil(math.sqrt(n))
    cards = []
    for i in range(n):
        r, c = divmod(i, cols)
        centre = (c * CELL_MM + rng.uniform(-25, 25), r * CELL_MM + rng.uniform(-25, 25))
        cards.append(CardOutline.from_pose(i, centre, rng.uniform(0, 360), sigma_mm=sigma_mm))
    for card in cards:
        card.polygon  # noqa: B018  (build the cached polygon before timing)
    return cards


def naive_graph(cards: list[CardOutline], settings: GeometrySettings) -> dict:
    edges = {}
    for i, a in enumerate(cards):
        for b in cards[i + 1 :]:
            gap = shapely.distance(a.polygon, b.polygon)
            if gap < settings.reach_mm + 5:
                edges[(a.id, b.id)] = reach_verdict(gap, 0.0, settings)
    return edges


def measure(n: int, rng: random.Random, settings: GeometrySettings, repeats: int) -> dict[str, float]:
    cards = random_table(n, rng)
    build = best_of(lambda: ReachGraph(cards, settings), repeats)
    graph = ReachGraph(cards, settings)
    edges = sum(1 for _ in graph.edges())

    # One-card updates: move a random card by up to 40 mm and turn it, as a bumped card would.
    moves = []
    for _ in range(256):
        c = cards[rng.randrange(n)]
        x, y = c.center_mm
        moved = CardOutline.from_pose(
            c.id, (x + rng.uniform(-40, 40), y + rng.uniform(-40, 40)), rng.uniform(0, 360), sigma_mm=0.3
        )
        moved.polygon  # noqa: B018
        moves.append(moved)
    counter = iter(range(10**12))

    def one_move() -> None:
        graph.move(moves[next(counter) % len(moves)])

    extra = CardOutline.from_pose("extra", (CELL_MM * 0.5, CELL_MM * 0.5), 10, sigma_mm=0.3)
    extra.polygon  # noqa: B018

    def add_remove() -> None:
        graph.add(extra)
        graph.remove("extra")

    return {
        "edges": edges,
        "build": build,
        "move": best_of(one_move, repeats),
        "add_remove": best_of(add_remove, repeats) / 2,
        "naive": best_of(lambda: naive_graph(cards, settings), 1 if n >= 1000 else repeats),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.geometry", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="50 and 200 cards only, fewer repeats")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args(argv)
    settings = GeometrySettings()
    sizes = [50, 200] if args.quick else [50, 200, 1000]
    repeats = 3 if args.quick else 5
    print(f"geometry benchmark (seed {args.seed}); one thread; median of {repeats} samples")
    print(
        f"{'cards':>6} {'edges':>6} {'build':>12} {'move 1 card':>12} {'add|remove':>12}"
        f" {'naive loop':>12} {'naive/build':>11}"
    )
    for n in sizes:
        row = measure(n, random.Random(args.seed + n), settings, repeats)
        print(
            f"{n:>6} {row['edges']:>6} {ms(row['build']):>12} {ms(row['move']):>12} {ms(row['add_remove']):>12}"
            f" {ms(row['naive']):>12} {row['naive'] / row['build']:>10.1f}x"
        )
    print(
        "goals: 200 cards build < 5 ms, one-card update < 0.3 ms; 1000 cards >= 20x faster than the naive loop"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
