"""`tabletop demo`: the whole pipeline on the bundled sample game."""

from __future__ import annotations

import argparse

PLAN = """\
tabletop demo - not built yet.

When it is built, this command will, with no camera and no arguments:
  1. read the bundled recorded Master Plan game in sample_images/,
  2. find every card and pawn in each frame (vision) and map them to table millimetres,
  3. referee every placement and jump (rules engine, reach in mm) and log the game,
  4. draw the overview and the projector view, and print a summary of the game:
     who placed what, every jump with its measured gap, falls, and the winner.
Today the geometry layer is in place: try 'tabletop bench geometry'."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="run the whole referee on the bundled sample game (no camera needed)",
        description="Run vision -> referee -> display on the bundled sample_images/ game.",
    )
    p.add_argument("--camera", type=int, metavar="N", help="use webcam number N instead of the samples")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    print(PLAN)
    return 0
