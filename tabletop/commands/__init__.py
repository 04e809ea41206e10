"""Subcommands of `tabletop`. Each module exposes `register(subparsers)`; add it to REGISTRY."""

from __future__ import annotations


class CommandError(Exception):
    """A subcommand met bad input; the message says what was wrong and how to fix it."""


from tabletop.commands import (  # noqa: E402  (needs CommandError defined first)
    bench,
    calibrate,
    client,
    demo,
    detect,
    display,
    keys,
    referee,
    web,
)

REGISTRY = [
    demo.register,
    referee.register,
    client.register,
    display.register,
    keys.register,
    detect.register,
    calibrate.register,
    bench.register,
    web.register,
]
