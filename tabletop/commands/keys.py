"""`tabletop keys create KEYDIR --players ...`: CurveZMQ keys for a secure referee."""

from __future__ import annotations

import argparse

from referee.keys import KeyFileError, create_keys
from tabletop.commands import CommandError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "keys",
        help="make encryption keys so that only each seat's own device can act for it",
        description="Make a server key and one key per seat (plus observer keys) for 'tabletop referee --secure'.",
    )
    ks = p.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    c = ks.add_parser("create", help="create KEYDIR with a server key and one key per name")
    c.add_argument("keydir", help="folder for the keys (created if missing; existing keys are kept)")
    c.add_argument("--players", required=True, help="comma-separated seat names, e.g. 'Ann,Bob,Cy'")
    c.add_argument(
        "--observers",
        default="display,camera",
        help="comma-separated names of keys that may watch (and, for 'camera', report the table); default: %(default)s",
    )
    c.set_defaults(run=run_create)


def run_create(args: argparse.Namespace) -> int:
    names = [n.strip() for n in (args.players + "," + args.observers).split(",") if n.strip()]
    try:
        keydir = create_keys(args.keydir, names)
    except (KeyFileError, OSError) as exc:
        raise CommandError(str(exc)) from None
    print(f"keys in {keydir}:")
    print(f"  server: {keydir / 'server.key'} (public) - give it to every client")
    for name in names:
        print(f"  {name}: {keydir / 'secret' / (name + '.key_secret')} - give it to {name} only")
    print(f"start the referee with: tabletop referee --secure {keydir} ...")
    return 0
