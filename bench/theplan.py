"""The Plan engine: complete random games per second, for 3 and 6 players.

Baseline, measured in the same run: replaying the very same event logs (the reducer alone, no rule
checks, no legal-command generation, no agent). The ratio says what refereeing costs on top of
merely keeping the state.

    python -m bench.theplan [--quick]
"""

from __future__ import annotations

import argparse
import random
import time

from referee.theplan import ThePlanGame
from referee.theplan.agents import random_command


def _play(config: dict, seed: int) -> tuple[ThePlanGame, int]:
    game, _ = ThePlanGame.setup(config, seed)
    rng = random.Random(seed)
    commands = 0
    while not game.is_over:
        game.apply(random_command(game, rng))
        commands += 1
    return game, commands


def _play_all(config: dict, games: int) -> tuple[list[list[dict]], int]:
    logs, commands = [], 0
    for seed in range(games):
        game, n = _play(config, seed)
        logs.append(game.events)
        commands += n
    return logs, commands


def _replay_all(logs: list[list[dict]]) -> None:
    for log in logs:
        ThePlanGame.replay(log)


def _best_of(repeats: int, fn, *args) -> tuple[float, object]:
    best, result = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn(*args)
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.theplan", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer games and repeats")
    args = parser.parse_args(argv)
    games, repeats = (8, 1) if args.quick else (40, 3)

    print(f"The Plan engine: {games} complete random games per case, best of {repeats}")
    print(
        f"{'case':<26}{'live games/s':>14}{'replay games/s':>16}{'live/replay':>13}{'cmds/game':>11}{'us/cmd':>9}"
    )
    for players in (3, 6):
        for label, extra in (("", {}), (" +bribes", {"bribes": True})):
            config = {"seats": [f"p{i}" for i in range(players)], **extra}
            t_live, (logs, commands) = _best_of(repeats, _play_all, config, games)
            t_replay, _ = _best_of(repeats, _replay_all, logs)
            name = f"{players} players{label}"
            print(
                f"{name:<26}{games / t_live:>14.1f}{games / t_replay:>16.1f}"
                f"{t_live / t_replay:>12.1f}x{commands / games:>11.0f}{1e6 * t_live / commands:>9.0f}"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
