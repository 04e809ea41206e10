"""Recorded whole random games of both engines: the engines must still play them byte for byte.

The fixtures in tests/data/replays/ were recorded from the engines before they were restructured
(issue 24). A rule change that alters a log must be deliberate: record again with
`python tests/test_replays.py --record` and say why in the commit.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script to record
    sys.path.insert(0, str(ROOT))

from referee.games import GAMES  # noqa: E402
from referee.masterplan import MasterPlanGame  # noqa: E402
from referee.masterplan import command_from_dict as masterplan_command  # noqa: E402
from referee.masterplan.agent import RandomAgent  # noqa: E402
from referee.theplan import ThePlanGame  # noqa: E402
from referee.theplan.agents import random_command  # noqa: E402
from referee.theplan.commands import command_from_dict as theplan_command  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "replays"
MAX_COMMANDS = 3000


def _seats(n: int) -> list[dict[str, str]]:
    villains = ["Z-Mask", "Dr. Badmahn", "Mysterious M", "Ms. Fyre", "Plutonian Poacher", "Monster Nash"]
    return [{"name": f"p{i}", "villain": villains[(i + n) % 6]} for i in range(n)]


# Each game: the engine's config, the game's seed, the agent's seed (and camera noise for Master Plan).
MASTERPLAN_GAMES: list[dict[str, Any]] = [
    {"config": {"players": _seats(3)}, "seed": 11, "agent_seed": 1, "sigma": 0.0},
    {
        "config": {"players": _seats(4), "villain_powers": True, "settings": {"close_call_policy": "ask"}},
        "seed": 22, "agent_seed": 2, "sigma": 1.5,
    },
    {
        "config": {"players": _seats(5), "villain_powers": True, "deck_mode": "physical",
                   "settings": {"close_call_policy": "strict"}},
        "seed": 33, "agent_seed": 3, "sigma": 0.5,
    },
    {
        "config": {"players": _seats(6), "villain_powers": True, "settings": {"close_call_policy": "lenient"}},
        "seed": 44, "agent_seed": 4, "sigma": 1.5,
    },
    {
        "config": {"players": _seats(3), "villain_powers": True, "settings": {"close_call_policy": "ask"}},
        "seed": 55, "agent_seed": 5, "sigma": 3.0,
    },
    {
        "config": {"players": _seats(4), "villain_powers": True, "deck_mode": "physical",
                   "settings": {"close_call_policy": "ask"}},
        "seed": 66, "agent_seed": 6, "sigma": 1.5,
    },
    {
        "config": {"players": _seats(6), "villain_powers": True, "settings": {"close_call_policy": "strict"}},
        "seed": 77, "agent_seed": 7, "sigma": 0.0,
    },
    {
        "config": {"players": _seats(5), "villain_powers": True, "settings": {"close_call_policy": "ask"}},
        "seed": 88, "agent_seed": 8, "sigma": 3.0,
    },
]  # fmt: skip

THEPLAN_GAMES: list[dict[str, Any]] = [
    {"config": {"seats": ["p0", "p1", "p2"]}, "seed": 11, "agent_seed": 1},
    {"config": {"seats": ["p0", "p1", "p2", "p3", "p4"], "bribes": True}, "seed": 22, "agent_seed": 2},
    {"config": {"seats": ["p0", "p1"], "mode": "physical"}, "seed": 33, "agent_seed": 3},
    {"config": {"seats": ["me"], "ghosts": ["ghost0", "ghost1"], "bribes": True}, "seed": 44, "agent_seed": 4},
    {"config": {"seats": ["p0", "p1", "p2", "p3", "p4", "p5"], "mode": "physical", "bribes": True},
     "seed": 55, "agent_seed": 5},
    {"config": {"seats": ["me"], "ghosts": ["ghost0", "ghost1", "ghost2"], "mode": "physical"},
     "seed": 66, "agent_seed": 6},
]  # fmt: skip


def _canonical(events: list[Any]) -> list[str]:
    return [json.dumps(e if isinstance(e, dict) else e.to_dict(), sort_keys=True) for e in events]


def play_masterplan(spec: dict[str, Any]) -> tuple[MasterPlanGame, list[dict], list[str]]:
    """The game played by the random agent: (game, its commands, its whole log canonical)."""
    game, log = MasterPlanGame.setup(spec["config"], spec["seed"])
    agent = RandomAgent(spec["agent_seed"], sigma_mm=spec["sigma"])
    commands = []
    for _ in range(MAX_COMMANDS):
        if game.game_over:
            break
        command = agent.choose(game)
        commands.append(command.to_dict())
        log += game.apply(command)
    return game, commands, _canonical(log)


def play_theplan(spec: dict[str, Any]) -> tuple[ThePlanGame, list[dict], list[str]]:
    game, _ = ThePlanGame.setup(spec["config"], spec["seed"])
    rng = random.Random(spec["agent_seed"])
    commands = []
    for _ in range(MAX_COMMANDS):
        if game.is_over:
            break
        command = random_command(game, rng)
        commands.append(command.to_dict())
        game.apply(command)
    return game, commands, _canonical(game.events)


ENGINES = {
    "masterplan": (MASTERPLAN_GAMES, play_masterplan),
    "theplan": (THEPLAN_GAMES, play_theplan),
}


def _fixture(engine: str) -> Path:
    return DATA / f"{engine}.json.gz"


def record() -> None:
    DATA.mkdir(parents=True, exist_ok=True)
    for engine, (specs, play) in ENGINES.items():
        games = []
        for spec in specs:
            game, commands, log = play(spec)
            assert commands and log, f"{engine} {spec['seed']}: an empty game"
            games.append({**spec, "commands": commands, "events": log})
        text = json.dumps(games, sort_keys=True, separators=(",", ":")).encode()
        # mtime=0: the same games give the same bytes, so re-recording shows no spurious diff
        _fixture(engine).write_bytes(gzip.compress(text, 9, mtime=0))
        print(f"{_fixture(engine)}: {len(games)} games, {sum(len(g['events']) for g in games)} events")


def recorded(engine: str) -> list[dict[str, Any]]:
    return json.loads(gzip.decompress(_fixture(engine).read_bytes()))


CASES = [(engine, i) for engine, (specs, _) in ENGINES.items() for i in range(len(specs))]


@pytest.fixture(scope="module")
def fixtures() -> dict[str, list[dict[str, Any]]]:
    return {engine: recorded(engine) for engine in ENGINES}


def _state(engine: str, game: Any) -> str:
    state = game.state_dict() if engine == "masterplan" else game.state.to_dict()
    return json.dumps(state, sort_keys=True)


@pytest.mark.parametrize(("engine", "index"), CASES)
def test_the_same_seeds_play_the_recorded_game_byte_for_byte(fixtures, engine, index):
    specs, play = ENGINES[engine]
    old = fixtures[engine][index]
    assert {k: old[k] for k in specs[index]} == specs[index], "the recorded game is not this spec"
    game, commands, log = play(specs[index])
    assert commands == old["commands"]
    assert len(log) == len(old["events"])
    for n, (now, then) in enumerate(zip(log, old["events"])):
        assert now == then, f"{engine} game {index}: event {n} differs"


@pytest.mark.parametrize(("engine", "index"), CASES)
def test_the_recorded_commands_give_the_recorded_events(fixtures, engine, index):
    old = fixtures[engine][index]
    if engine == "masterplan":
        game, log = MasterPlanGame.setup(old["config"], old["seed"])
        for c in old["commands"]:
            log += game.apply(masterplan_command(c))
        produced = _canonical(log)
    else:
        game, _ = ThePlanGame.setup(old["config"], old["seed"])
        for c in old["commands"]:
            game.apply(theplan_command(c))
        produced = _canonical(game.events)
    assert produced == old["events"]


@pytest.mark.parametrize(("engine", "index"), CASES)
def test_the_recorded_log_replays_to_the_played_state(fixtures, engine, index):
    old = fixtures[engine][index]
    game, _, _ = ENGINES[engine][1](ENGINES[engine][0][index])
    events = [json.loads(e) for e in old["events"]]
    again = GAMES[engine].replay(old["config"], old["seed"], events)
    assert _state(engine, again) == _state(engine, game)


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit("usage: python tests/test_replays.py --record   (overwrites tests/data/replays/)")
    record()
