"""One source of legality: what `legal_commands` offers, `apply` accepts, and what `apply`
refuses is never offered (issue 24.1).

Random games are played by the random agent; at sampled moments every offered command is tried on
a copy of the game, and so are many commands made up for every seat (jumps to every card, draws
of every card, skips, peeks, the minion, measurements).
"""

from __future__ import annotations

import copy
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.masterplan import (
    REPORTERS,
    VILLAINS,
    ChooseTarget,
    Command,
    ConfirmMeasurement,
    Draw,
    MasterPlanGame,
    Move,
    Peek,
    PlayCard,
    RuleViolation,
    SendMinion,
    SkipStep,
)
from referee.masterplan.agent import RandomAgent

MAX_COMMANDS = 400
# Offered commands that must be complete, not just accepted: where the awaited player may do
# one of these, legal_commands lists it (a Draw is also accepted in Move and Add, as their end).
COMPLETE = (Move, SendMinion, Peek, SkipStep)


def accepted(game: MasterPlanGame, command: Command) -> bool:
    """Whether apply accepts `command`, tried on a copy of the game."""
    try:
        copy.deepcopy(game).apply(command)
    except RuleViolation:
        return False
    return True


def checked(game: MasterPlanGame, command: Command) -> bool:
    """Whether apply's check of `command` passes. apply checks the whole command before it
    changes anything (game.py), so this is apply's answer, without a copy of the game per try."""
    try:
        getattr(game, f"_cmd_{command.type}")(command)
    except RuleViolation:
        return False
    return True


def made_up(game: MasterPlanGame, player: str) -> list[Command]:
    """Commands of every kind `player` might send now, most of them refused."""
    spaces = list(game.spaces)
    out: list[Command] = [SkipStep(player), Draw(player), ConfirmMeasurement(player, True)]
    out += [Move(player, s) for s in spaces] + [Move(player, s, flip=False) for s in spaces]
    out += [Draw(player, s) for s in spaces] + [Peek(player, s) for s in spaces]
    out += [SendMinion(player, s) for s in spaces] + [ChooseTarget(player, (s,)) for s in spaces]
    if player in game.players:
        out += [PlayCard(player, c) for c in set(game.hand(player))]
    return out


def check_legality(game: MasterPlanGame, rng: random.Random) -> None:
    awaited = game.to_act()
    for player in [*game.order, *REPORTERS]:
        offered = game.legal_commands(player) if player in game.players else []
        for command in offered:
            assert checked(game, command), f"{command} is offered but refused"
        for command in rng.sample(offered, min(3, len(offered))):
            assert accepted(game, command), f"{command} is offered but refused by apply"
        for command in made_up(game, player):
            ok = checked(game, command)
            if not ok:
                assert command not in offered, f"{command} is refused but offered"
            elif player == awaited and isinstance(command, COMPLETE):
                assert command in offered, f"{command} is accepted but not offered"
            elif isinstance(command, Draw) and game.step == "draw":
                assert command in offered, f"{command} is accepted but not offered"


@st.composite
def games(draw):
    n = draw(st.integers(3, 6))
    villains = draw(st.permutations(VILLAINS))[:n]
    config = {
        "players": [{"name": f"p{i}", "villain": villains[i]} for i in range(n)],
        "villain_powers": draw(st.booleans()),
        "deck_mode": draw(st.sampled_from(["digital", "physical"])),
        "settings": {"close_call_policy": draw(st.sampled_from(["ask", "lenient", "strict"]))},
    }
    sigma = draw(st.sampled_from([0.0, 1.5, 3.0]))
    return config, draw(st.integers(0, 2**32)), sigma, draw(st.integers(3, 9))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(games())
def test_offered_commands_are_accepted_and_refused_ones_never_offered(table):
    config, seed, sigma, every = table
    game, _ = MasterPlanGame.setup(config, seed)
    agent = RandomAgent(seed, sigma_mm=sigma)
    rng = random.Random(seed)
    for n in range(MAX_COMMANDS):
        if game.game_over:
            break
        if n % every == 0 or game.waiting is not None:
            check_legality(game, rng)
        game.apply(agent.choose(game))
