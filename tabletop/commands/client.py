"""`tabletop client`: a player's terminal at the table - see the game, see your own hand, act."""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from typing import Any

from referee.client import (
    Connection,
    ServiceUnavailable,
    StateMirror,
    check_referee,
    normalise_endpoint,
    updates_endpoint,
)
from referee.keys import KeyFileError, client_keypair, public_key_file
from tabletop.commands import CommandError

HELP = """\
Type a command as TYPE FIELD=VALUE ... (values are JSON where they parse, e.g. to=7, corners=[[0,0],...]),
or a whole JSON object. Service commands:
  state            the public state of the table
  view             your private view (hand, peeks, your secret plan)
  events           the public events seen so far
  help             this text;  quit  leave (the game goes on)
Game commands are the rules engine's, e.g. Master Plan: move to=SPACE, skip_step, place_card corners=...,
draw, choose_target ...; The Plan: commit_plan plan=ID, claim_trinket ..., pass_plans plans=[..]."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "client",
        help="a player's terminal: see the table and your hand, and send your moves",
        description="Connect to a running 'tabletop referee' as one seat.",
    )
    p.add_argument(
        "--connect",
        default="tcp://127.0.0.1:5555",
        help="the referee's command address, HOST:PORT or tcp://HOST:PORT (default: %(default)s)",
    )
    p.add_argument("--player", required=True, help="your seat name")
    p.add_argument(
        "--token",
        help="your seat's token, shown when you first joined: to join again from another terminal or machine",
    )
    p.add_argument(
        "--server-key", metavar="FILE", help="the referee's public key (server.key), with --secure"
    )
    p.add_argument("--key", metavar="FILE", help="your own key file (NAME.key_secret), with --secure")
    p.add_argument(
        "--do", action="append", default=[], metavar="COMMAND", help="run these commands and exit (scripting)"
    )
    p.set_defaults(run=run)


def parse_line(line: str) -> dict[str, Any]:
    line = line.strip()
    if line.startswith("{"):
        try:
            msg = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"that JSON does not parse: {exc.msg} at character {exc.pos}") from None
        if not isinstance(msg, dict) or "type" not in msg:
            raise ValueError('a JSON command is an object with a "type"')
        return msg
    words = shlex.split(line)
    msg: dict[str, Any] = {"type": words[0]}
    for word in words[1:]:
        key, sep, value = word.partition("=")
        if not sep:
            raise ValueError(f"{word!r} should be FIELD=VALUE")
        try:
            msg[key] = json.loads(value)
        except json.JSONDecodeError:
            msg[key] = value
    return msg


def connect_args(args: argparse.Namespace) -> tuple[str, bytes | None, tuple[bytes, bytes] | None]:
    """--connect, --server-key and --key checked, and a referee found answering behind them:
    (command endpoint, server public key, client key pair). Shared with `tabletop display`."""
    if bool(args.server_key) != bool(args.key):
        raise CommandError(
            "a secure referee needs both --server-key (server.key) and --key (your .key_secret)"
        )
    try:
        endpoint = normalise_endpoint(args.connect)
        server_public = public_key_file(args.server_key) if args.server_key else None
        keys = client_keypair(args.key) if args.key else None
        # Once, with a short timeout: an absent referee or a --secure mismatch is said in seconds.
        check_referee(endpoint, server_public, keys)
    except (KeyFileError, ValueError) as exc:
        raise CommandError(str(exc)) from None
    except ServiceUnavailable as exc:
        raise CommandError(str(exc)) from None
    return endpoint, server_public, keys


def run(args: argparse.Namespace) -> int:
    endpoint, server_public, keys = connect_args(args)
    try:
        mirror = StateMirror(endpoint, updates_endpoint(endpoint), server_public, keys)
        conn = Connection(endpoint, server_public, keys)
        joined = conn.join(args.player, token=args.token)
    except ServiceUnavailable as exc:
        raise CommandError(str(exc)) from None
    if not joined.get("ok"):
        raise CommandError(joined["error"]["message"])
    print(f"joined as {args.player}; type 'help' for commands")
    if "token" in joined:
        # Shown to this player only (the join reply goes to this connection alone).
        print(
            f"your seat token: {joined['token']} - keep it secret; to join as {args.player} again elsewhere: "
            f"tabletop client --connect {endpoint} --player {args.player} --token {joined['token']}"
        )
    _show(joined["view"])
    _show_options(joined["view"])
    lines = iter(args.do) if args.do else _prompt()
    for line in lines:
        if not line.strip():
            continue
        if line.strip() in ("quit", "exit"):
            break
        for private in conn.poll_private():
            print("private:", json.dumps(private["event"], sort_keys=True))
        mirror.poll()
        word = line.strip()
        if word == "help":
            print(HELP)
        elif word == "state":
            _show(mirror.state)
        elif word == "events":
            for seq, event in mirror.events[-20:]:
                print(seq, json.dumps(event, sort_keys=True))
        elif word == "view":
            _show(conn.request("view").get("view"))
        else:
            try:
                msg = parse_line(line)
            except ValueError as exc:
                print(f"not sent: {exc}")
                continue
            kind = msg.pop("type")
            reply = conn.request(kind, **msg)
            if reply.get("ok"):
                print(f"ok ({reply.get('events', 0)} events)")
            else:
                print(f"refused: {reply['error']['message']}")
            _show_options(conn.request("view").get("view", {}))
    mirror.close()
    conn.close()
    return 0


def _show_options(view: dict[str, Any]) -> None:
    options = view.get("you_can") or []
    if not options:
        print("nothing to do right now (waiting for others, or only a placement)")
        return
    print("you can now:")
    for option in options:
        fields = " ".join(f"{k}={json.dumps(v)}" for k, v in option.items() if k not in ("type", "player"))
        print(f"  {option['type']} {fields}".rstrip())


def _prompt():
    while True:
        try:
            yield input("> ")
        except EOFError:
            return


def _show(obj: Any) -> None:
    print(json.dumps(obj, indent=1, sort_keys=True) if not isinstance(obj, str) else obj, file=sys.stdout)
