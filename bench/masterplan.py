"""Master Plan engine: random complete games per second for 3 and 6 players.

    python -m bench.masterplan [--quick] [--seed N]

For each table size, the random legal-command agent plays whole games (digital deck, villain
powers on, default layout). Measured in the same run, on the same games:
  - play:     agent + engine, as a random-agent simulation runs (legal_commands each step);
  - engine:   the engine alone, re-applying the recorded commands to a fresh setup;
  - replay:   MasterPlanGame.replay of the full event logs (re-runs and checks every event);
  - baseline: only encoding the same events to JSON (json.dumps, sorted keys), the cost the
              referee service pays for every command anyway. Ratios are against this baseline.
"""

from __future__ import annotations

import argparse
import json
import time

from referee.masterplan import VILLAINS, MasterPlanConfig, MasterPlanGame, Seat
from referee.masterplan.agent import RandomAgent


def config(n: int) -> MasterPlanConfig:
    return MasterPlanConfig(seats=tuple(Seat(f"p{i}", VILLAINS[i]) for i in range(n)), villain_powers=True)


def measure(n: int, games: int, seed: int) -> dict[str, float]:
    cfg = config(n)
    logs, commands = [], []
    t0 = time.perf_counter()
    for g in range(games):
        game, events = MasterPlanGame.setup(cfg, seed + g)
        agent = RandomAgent(seed + g)
        cmds = []
        while not game.game_over:
            cmd = agent.choose(game)
            cmds.append(cmd)
            events += game.apply(cmd)
        logs.append(events)
        commands.append(cmds)
    play = time.perf_counter() - t0

    t0 = time.perf_counter()
    for g in range(games):
        game, _ = MasterPlanGame.setup(cfg, seed + g)
        for cmd in commands[g]:
            game.apply(cmd)
    engine = time.perf_counter() - t0

    t0 = time.perf_counter()
    for log in logs:
        MasterPlanGame.replay(log)
    replay = time.perf_counter() - t0

    t0 = time.perf_counter()
    for log in logs:
        for e in log:
            json.dumps(e.to_dict(), sort_keys=True)
    baseline = time.perf_counter() - t0

    n_cmds = sum(len(c) for c in commands)
    return {
        "games": games,
        "commands": n_cmds,
        "events": sum(len(log) for log in logs),
        "play": play,
        "engine": engine,
        "replay": replay,
        "baseline": baseline,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.masterplan", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 games per table size instead of 60")
    parser.add_argument("--seed", type=int, default=20261130)
    args = parser.parse_args(argv)
    games = 10 if args.quick else 60
    print(
        f"Master Plan benchmark (seed {args.seed}); {games} random complete games per table size; one thread"
    )
    print(
        f"{'players':>7} {'cmds/game':>9} {'play games/s':>12} {'play cmds/s':>11} {'engine cmds/s':>13}"
        f" {'replay cmds/s':>13} {'json cmds/s':>11} {'engine/json':>11} {'replay/engine':>13}"
    )
    for n in (3, 6):
        r = measure(n, games, args.seed + 1000 * n)
        c = r["commands"]
        print(
            f"{n:>7} {c / r['games']:>9.0f} {r['games'] / r['play']:>12.1f} {c / r['play']:>11.0f}"
            f" {c / r['engine']:>13.0f} {c / r['replay']:>13.0f} {c / r['baseline']:>11.0f}"
            f" {r['engine'] / r['baseline']:>10.1f}x {r['replay'] / r['engine']:>12.2f}x"
        )
    print(
        "engine/json: engine time per command as a multiple of just JSON-encoding its events;"
        " replay/engine: rebuilding from the log vs applying the commands"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
