"""A random agent: plays any legal command, for property tests, benchmarks and demos."""

from __future__ import annotations

import random

from referee.theplan.commands import Command
from referee.theplan.config import GameConfig
from referee.theplan.game import ThePlanGame


def random_command(game: ThePlanGame, rng: random.Random) -> Command:
    """One legal command from one of the players (or the steward) who must act now."""
    actor = rng.choice(game.to_act())
    return rng.choice(game.legal_commands(actor))


def play_random_game(config: GameConfig | dict, seed: int | str, agent_seed: int = 0) -> ThePlanGame:
    """A whole game from setup to its end, every choice random but seeded."""
    game, _ = ThePlanGame.setup(config, seed)
    rng = random.Random(agent_seed)
    while not game.is_over:
        game.apply(random_command(game, rng))
    return game
