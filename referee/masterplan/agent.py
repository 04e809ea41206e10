"""A random legal-command agent (for property tests, benchmarks and demo tables).

It plays from `legal_commands` and invents the continuous commands itself: card placements
(mostly toward the Trophy, checked with `placement_problem`), the new corners after a Switch or
a Control Panel, and, with a physical deck, the names of turned-up cards (drawn from a hidden
shuffled copy of the deck, as a camera would read them). Seeded: same seed, same game.
"""

from __future__ import annotations

import math
import random

from geometry import CardOutline
from referee.masterplan.commands import Command, Move, PlaceCard, ReportIdentity, ReportPositions, SkipStep
from referee.masterplan.config import TROPHY
from referee.masterplan.game import MasterPlanGame
from referee.masterplan.waits import CardName, NewPositions


class RandomAgent:
    """Chooses a random legal command for whoever must act. `greed` is the chance of preferring
    a move that brings the pawn nearer the Trophy (so that random games end)."""

    def __init__(self, seed: int, greed: float = 0.7, place_rate: float = 0.7, sigma_mm: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.greed = greed
        self.place_rate = place_rate
        self.sigma_mm = sigma_mm  # corner uncertainty of placed cards, as a camera would report

    def choose(self, game: MasterPlanGame) -> Command:
        player = game.to_act()
        if player is None:
            raise ValueError("the game is over; nobody acts")
        w = game.waiting
        if isinstance(w, NewPositions) and w.effect == "relocate_one":
            return self._relocate(game, player, w.spaces[0])
        if isinstance(w, CardName):
            names = game.possible_names()
            return ReportIdentity(player, self.rng.choice(names), w.space)
        if w is None and game.step == "add" and game.hand(player) and self.rng.random() < self.place_rate:
            placed = self._place(game, player)
            if placed is not None:
                return placed
        options = game.legal_commands(player)
        moves = [c for c in options if isinstance(c, Move)]
        if moves and self.rng.random() < self.greed:
            wins = [m for m in moves if m.to == TROPHY]
            if wins:
                return wins[0]
            here = game.position(player)
            goal = game.outline(TROPHY).center_mm
            d_here = _dist(game.outline(here).center_mm, goal) if here else math.inf  # type: ignore[arg-type]
            closer = [m for m in moves if _dist(game.outline(m.to).center_mm, goal) < d_here]
            if closer:
                return self.rng.choice(closer)
        if len(options) > 1 and any(isinstance(c, SkipStep) for c in options) and self.rng.random() < 0.7:
            options = [c for c in options if not isinstance(c, SkipStep)] or options
        return self.rng.choice(options)

    def _pose_near(self, game: MasterPlanGame, anchor: str) -> tuple[float, float, float]:
        ax, ay = game.outline(anchor).center_mm
        tx, ty = game.outline(TROPHY).center_mm
        heading = math.atan2(ty - ay, tx - ax) + self.rng.uniform(-1.2, 1.2)
        reach = game.settings.reach_mm
        dist = game.settings.card_long_mm + self.rng.uniform(0.05, 0.95) * reach
        return ax + dist * math.cos(heading), ay + dist * math.sin(heading), self.rng.uniform(0, 180)

    def _corners(self, game: MasterPlanGame, pose: tuple[float, float, float]) -> tuple:
        s = game.settings
        card = CardOutline.from_pose("new", pose[:2], pose[2], (s.card_short_mm, s.card_long_mm))
        return tuple((round(x, 3), round(y, 3)) for x, y in card.corners_mm)

    def _place(self, game: MasterPlanGame, player: str) -> PlaceCard | None:
        anchors = [game.position(player)] * 3 + [s.id for s in game.spaces.values() if s.kind == "space"]
        for _ in range(6):
            anchor = self.rng.choice(anchors)
            if anchor is None:
                return None
            corners = self._corners(game, self._pose_near(game, anchor))
            if game.placement_problem(corners, self.sigma_mm) is None:
                card = self.rng.choice(game.hand(player)) if game.digital else None
                return PlaceCard(player, corners, card=card, sigma_mm=self.sigma_mm)
        return None

    def _relocate(self, game: MasterPlanGame, player: str, space: str) -> ReportPositions:
        anchors = [s for s in game.spaces if s != space]
        for _ in range(6):
            corners = self._corners(game, self._pose_near(game, self.rng.choice(anchors)))
            if game.placement_problem(corners, ignore=[space]) is None:
                return ReportPositions(player, ((space, corners),))
        # Put back where it lay: always a legal placement.
        return ReportPositions(player, ((space, game.outline(space).corners_mm),))


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def play_random_game(game: MasterPlanGame, agent: RandomAgent, max_commands: int = 5000) -> tuple[list, int]:
    """Play until the game ends (or max_commands); return (all events after setup, commands)."""
    events = []
    n = 0
    while not game.game_over and n < max_commands:
        events.extend(game.apply(agent.choose(game)))
        n += 1
    return events, n
