"""Whole random games over random table layouts, played by the random legal-command agent.

At every step: all 47 Space cards are accounted for, exactly one player may act, eliminated
players never act, refused commands change nothing, and neither the public view nor any public
event leaks a secret. Every game ends, and replaying its event log rebuilds the same state.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geometry import CardOutline, GeometrySettings
from referee.masterplan import (
    TROPHY,
    VILLAINS,
    MasterPlanConfig,
    MasterPlanGame,
    RuleViolation,
    Seat,
    SkipStep,
    public_event,
    start_id,
)
from referee.masterplan.agent import RandomAgent
from referee.masterplan.waits import NewPositions

MAX_COMMANDS = 3000
CARD_NUMBER = re.compile(r'"card": \d')
# Public events that may name a card: it is face-up, played openly or taken openly.
NAMING_EVENTS = {
    "space_flipped", "space_revealed", "card_played", "identity_reported", "card_taken_from_table",
    "space_destroyed", "turn_cut_short", "effect_fizzled", "choice_needed", "command_accepted",
}  # fmt: skip


@st.composite
def tables(draw):
    n = draw(st.integers(3, 6))
    villains = draw(st.permutations(VILLAINS))[:n]
    gaps = [draw(st.floats(115.0, 260.0)) for _ in range(n)]
    starts, x = {}, 100.0
    for i in range(n):
        x += gaps[i]
        starts[f"p{i}"] = CardOutline.from_pose(
            "s", (x, 60.0 + draw(st.floats(-15, 15))), draw(st.floats(-30, 30))
        ).corners_mm
    trophy = CardOutline.from_pose(
        "t", (draw(st.floats(150.0, x)), draw(st.floats(350.0, 800.0))), draw(st.floats(0, 180))
    ).corners_mm
    policy = draw(st.sampled_from(["ask", "lenient", "strict"]))
    config = MasterPlanConfig(
        seats=tuple(Seat(f"p{i}", villains[i]) for i in range(n)),
        villain_powers=draw(st.booleans()),
        deck_mode=draw(st.sampled_from(["digital", "digital", "physical"])),
        settings=GeometrySettings(close_call_policy=policy),
        starting_cards=starts,
        trophy=trophy,
    )
    sigma = draw(st.sampled_from([0.0, 0.0, 0.5, 1.5]))
    return config, draw(st.integers(0, 2**32)), sigma


def check_public_view(game: MasterPlanGame) -> None:
    view = game.public_view()
    waiting_name = (view["waiting"] or {}).get("card_name")
    text = json.dumps(view, sort_keys=True)
    assert not CARD_NUMBER.search(text) and '"hand"' not in text and '"deck"' not in text
    face_up = [s.name for s in game.spaces.values() if s.kind == "space" and s.face_up]
    for name in game.config.deck.names:
        # A name appears only on a face-up table card (or as the card whose choice is awaited).
        allowed = face_up.count(name) + (waiting_name == name)
        assert text.count(f'"{name}"') == allowed, f"{name} leaks into the public view"


def check_public_events(game: MasterPlanGame, events) -> None:
    for e in events:
        pub = json.dumps(public_event(e), sort_keys=True)
        assert not CARD_NUMBER.search(pub), f"a card number in public {e.type}"
        assert "seed" not in pub
        if e.type == "game_set_up":
            continue  # the public configuration, with the deck's composition (not its order)
        assert '"cards"' not in pub
        if e.type not in NAMING_EVENTS:
            assert not any(f'"{n}"' in pub for n in game.config.deck.names), f"a card name in public {e.type}"


def play_checked(config, seed, sigma):
    game, log = MasterPlanGame.setup(config, seed)
    agent = RandomAgent(seed, sigma_mm=sigma)
    check_public_events(game, log)
    for n in range(MAX_COMMANDS):
        if game.game_over:
            break
        assert game.card_count() == game.deck_size == 47
        actor = game.to_act()
        assert actor is not None and not game.players[actor].eliminated
        can_act = [p for p in game.order if game.legal_commands(p)]
        assert can_act in ([actor], []), can_act
        assert can_act or isinstance(game.waiting, NewPositions)
        if n % 25 == 7:  # a refused command leaves everything as it was
            other = next(p for p in game.order if p != actor)
            before = json.dumps(game.state_dict(), sort_keys=True)
            try:
                game.apply(SkipStep(other))
                raise AssertionError("a player acted out of turn")
            except RuleViolation:
                pass
            assert json.dumps(game.state_dict(), sort_keys=True) == before
        command = agent.choose(game)
        if command.player in game.players:
            assert not game.players[command.player].eliminated
        events = game.apply(command)
        check_public_events(game, events)
        check_public_view(game)
        log += events
    assert game.game_over, f"no end after {MAX_COMMANDS} commands"
    assert game.card_count() == 47
    return game, log


@pytest.mark.slow  # a property test over many whole random games
@settings(max_examples=24, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_random_games_keep_every_invariant_end_and_replay_exactly(table):
    config, seed, sigma = table
    game, log = play_checked(config, seed, sigma)
    again = MasterPlanGame.replay([json.loads(json.dumps(e.to_dict())) for e in log])
    # replay() re-runs the logged commands and checks each produced event byte for byte
    assert json.dumps(again.state_dict(), sort_keys=True) == json.dumps(game.state_dict(), sort_keys=True)


def test_trophy_and_starts_survive_every_random_game():
    config = MasterPlanConfig(seats=tuple(Seat(f"p{i}", VILLAINS[i]) for i in range(6)), villain_powers=True)
    game, _ = play_checked(config, 99, 0.0)
    assert TROPHY in game.spaces and all(start_id(p) in game.spaces for p in game.order)
