"""`tabletop bench NAME`: run one benchmark from bench/ (same as `python -m bench.NAME`)."""

from __future__ import annotations

import argparse
import importlib

from tabletop.commands import CommandError

BENCHMARKS = {
    "geometry": "reachability graph build / incremental update vs a naive all-pairs loop",
    "renderer": "synthetic frame rendering, ms per frame at 720p and 1080p vs the bare lens remap",
    "vision": "card detector accuracy and speed on fresh rendered scenes vs an Otsu/approxPolyDP baseline",
    "real_photos": "the detector on real photos (../shared/real_photos) and 13 camera-like variants of them vs the same baseline",
    "labelled_photos": "the detector on hand-labelled real photos of the test split, per source, vs the same baseline",
    "randomised": "the detector on randomised renders (any cards, tables, clutter), no calibration, vs the same baseline",
    "pawns": "the pawn finder on randomised renders with game pieces and distractors, per kind and surface, with and without calibration, vs a colour-threshold baseline",
    "calibration": "lens, table and projector accuracy on rendered views vs no lens step",
    "theplan": "complete random The Plan games/s (3 and 6 players) vs replaying their event logs",
    "masterplan": "random complete Master Plan games/s and commands/s (3 and 6 players) vs JSON-encoding their events",
    "pipeline": "sample game frame -> overview latency (median, p95) and frames/s through the whole chain vs the detector alone",
    "service": "referee command round trips and published updates/s on loopback vs raw pyzmq loops",
    "web": "command -> browser DOM latency (median, p99), 6 seat pages + 10 /table pages in chromium, vs the terminal client",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "bench",
        help="run a benchmark and print ratios against its baseline",
        description="Run a benchmark. Each prints its figures next to a baseline measured in the same run.",
    )
    p.add_argument(
        "name", metavar="NAME", help="one of: " + ", ".join(f"{k} ({v})" for k, v in BENCHMARKS.items())
    )
    p.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats")
    p.add_argument(
        "options",
        nargs=argparse.REMAINDER,
        metavar="...",
        help="anything after NAME goes to the benchmark itself, e.g. 'real_photos --photos DIR' "
        "(see 'python -m bench.NAME --help')",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.name not in BENCHMARKS:
        raise CommandError(f"no benchmark called {args.name!r}; choose one of: {', '.join(BENCHMARKS)}")
    module = importlib.import_module(f"bench.{args.name}")
    argv = (["--quick"] if args.quick else []) + list(args.options)
    try:
        return int(module.main(argv) or 0)
    except SystemExit as exc:
        # the benchmark's own argparse refused an option (it printed why) or printed its --help
        return exc.code if isinstance(exc.code, int) else 2
