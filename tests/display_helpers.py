"""Real game states and a real referee service for the display tests."""

from __future__ import annotations

import math
import random

from referee.games import GAMES
from tests.service_helpers import free_port_pair, running_referee  # noqa: F401  (used by the display tests)

MASTER_PLAYERS = ["ann:Z-Mask", "bob:Ms. Fyre", "cat:Monster Nash"]


def rect(x: float, y: float, w: float = 63.0, h: float = 88.0) -> list[list[float]]:
    return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]


def rotated(cx: float, cy: float, deg: float, w: float = 63.0, h: float = 88.0) -> list[list[float]]:
    t = math.radians(deg)
    c, s = math.cos(t), math.sin(t)
    return [
        [cx + c * dx - s * dy, cy + s * dx + c * dy]
        for dx, dy in ((-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2))
    ]


# ann's start card is [390, 453] x [0, 88] in the default layout. S1 (ann's) lies 40 mm above it:
# legal. S2 (cat's) lies 62.5 mm to its right with 0.5 mm corner sigma: too close to call.
# S3 (bob's) is turned 30 degrees and out of ann's reach.
PLACEMENTS = {"ann": (rect(390, 128), 0.0), "cat": (rect(515.5, 0), 0.5), "bob": (rotated(300, 300, 30), 0.0)}


def masterplan_config() -> dict:
    return GAMES["masterplan"].make_config(MASTER_PLAYERS, {})


def place_round(adapter, game, events: list) -> None:
    """Each seat in turn places its card of PLACEMENTS face-down and draws."""
    for _ in range(3):
        p = adapter.public_view(game)["current"]
        corners, sigma = PLACEMENTS[p]
        card = game.player_view(p)["hand"][0]["card"]
        cmd = {"type": "place_card", "player": p, "corners": corners, "card": card, "sigma_mm": sigma}
        for command in (cmd, {"type": "skip_step", "player": p}, {"type": "draw", "player": p}):
            if command["type"] == "skip_step" and adapter.public_view(game)["step"] != "add":
                continue
            events += [adapter.public_event(e) for e in adapter.apply(game, command)]


def masterplan_state() -> tuple[dict, list[dict]]:
    """ann to move, with a legal destination S1 and a too-close-to-call S2."""
    adapter = GAMES["masterplan"]
    game, setup_events = adapter.setup(masterplan_config(), 1)
    events = [adapter.public_event(e) for e in setup_events]
    place_round(adapter, game, events)
    return adapter.public_view(game), events


def theplan_state(commands: int = 60, seed: int = 2) -> dict:
    """The Plan after some random legal play: collections and scores differ."""
    adapter = GAMES["theplan"]
    game, _ = adapter.setup(adapter.make_config(["ann", "bob", "cat"], {}), 1)
    rng = random.Random(seed)
    for _ in range(commands):
        who = game.to_act()
        who = [who] if isinstance(who, str) else list(who or [])
        if not who:
            break
        player = rng.choice(who)
        adapter.apply(game, rng.choice(game.legal_commands(player)).to_dict())
    return adapter.public_view(game)
