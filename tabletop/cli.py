"""`tabletop`: one entry point for every job (docs/architecture.md, "Command line").

Every failure a player can cause ends with exit code 2 and one line saying what was wrong and
what to do; `--debug` shows the traceback instead.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import metadata

from tabletop import commands

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INTERNAL = 1


class UsageError(Exception):
    """Bad usage or bad input: printed as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse prints a usage block and exits; we want one clear line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(f"{message} (see '{self.prog} --help')")


def _version() -> str:
    try:
        return metadata.version("tabletop-referee")
    except metadata.PackageNotFoundError:  # running from a source tree without installing
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="tabletop",
        description="A camera referee for real-space card games: Master Plan and The Plan.",
    )
    parser.add_argument("--version", action="version", version=f"tabletop-referee {_version()}")
    parser.add_argument("--debug", action="store_true", help="show full tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for register in commands.REGISTRY:
        register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        run: Callable[[argparse.Namespace], int] | None = getattr(args, "run", None)
        if run is None:
            parser.print_help()
            return EXIT_OK
        return int(run(args) or EXIT_OK)
    except BrokenPipeError:
        # Whoever read our output stopped reading (`tabletop detect ... | head`): not an error of
        # the player's. Point stdout at nothing so Python's own flush at exit stays quiet too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except (UsageError, commands.CommandError, ValueError, OSError) as exc:
        if debug:
            raise
        print(f"tabletop: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("tabletop: stopped.", file=sys.stderr)
        return 130
    except Exception as exc:  # a bug of ours: still one line for the player, details on request
        if debug:
            raise
        print(
            f"tabletop: internal error: {type(exc).__name__}: {exc} (run again with --debug and report it)",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
