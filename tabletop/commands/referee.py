"""`tabletop referee`: run a refereed game as a ZeroMQ service."""

from __future__ import annotations

import argparse
import errno
import logging
import signal
import sys
import threading
from pathlib import Path

from referee.games import GAMES, SetupError, find_seat
from referee.keys import KeyFileError
from referee.service import BindError, RefereeService
from referee.session import GameSession, new_seed
from referee.store import EventStore, StoreError, export
from tabletop.commands import CommandError
from tabletop.commands.web import add_web_options, print_links, start_web


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "referee",
        help="run a game: the referee service that players and displays connect to",
        description=(
            "Start (or --resume) a refereed game and serve it over ZeroMQ: players send commands, displays "
            "subscribe to numbered updates. Every event is written to the --db file before it is announced. "
            "One referee per --db file. --export copies a game into one new file (safe while it runs)."
        ),
    )
    p.add_argument("--game", choices=sorted(GAMES), help="which game to referee (required unless --export)")
    p.add_argument(
        "--players",
        help="comma-separated seats in any order; Master Plan seats may name their villain as NAME:VILLAIN "
        "(e.g. 'Ann:Z-Mask,Bob:Ms. Fyre,Cy:Mysterious M'); not needed with --resume",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument(
        "--virtual", action="store_true", help="no camera: players report the table by command (default)"
    )
    src.add_argument("--camera", type=int, metavar="N", help="watch the table with webcam N")
    src.add_argument("--video", metavar="FILE", help="watch a recorded video of the table")
    src.add_argument("--images", metavar="DIR", help="watch a folder of photos of the table")
    p.add_argument(
        "--calibration",
        default="calibration.json",
        metavar="FILE",
        help="calibration file (tabletop calibrate) for the camera feed (default: %(default)s)",
    )
    p.add_argument(
        "--pawns",
        metavar="COLOR=SEAT,...",
        help="pawn colour of each seat for the camera (e.g. 'red=Ann,blue=Bob,green=Cy'); default: learned "
        "from the pawn standing on each starting card at setup",
    )
    p.add_argument(
        "--db", default="tabletop-game.sqlite", help="event file of this game (default: %(default)s)"
    )
    p.add_argument(
        "--resume", action="store_true", help="continue the game stored in --db after a crash or stop"
    )
    p.add_argument(
        "--seed",
        type=int,
        help="shuffle seed, for tests and replays (default: 256 random bits, kept only in --db)",
    )
    p.add_argument(
        "--export",
        metavar="FILE",
        help="copy the game in --db into the new single FILE (no -wal beside it) and exit; works while a "
        "referee runs it; with --upto N only events 1..N (to save the intact part of a damaged file)",
    )
    p.add_argument("--upto", type=int, metavar="N", help="with --export: keep events 1..N only")
    p.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE", help="a game option, repeatable"
    )
    p.add_argument(
        "--bind", default="127.0.0.1", help="address to listen on (default: %(default)s; 0.0.0.0 for the LAN)"
    )
    p.add_argument(
        "--port", type=int, default=5555, help="command port; updates use PORT+1 (default: %(default)s)"
    )
    p.add_argument("--secure", metavar="KEYDIR", help="require CurveZMQ keys made by 'tabletop keys create'")
    p.add_argument(
        "--web",
        type=int,
        metavar="PORT",
        help="also serve the web view on PORT: a link per seat for phones, /table for a shared screen "
        "(the same as 'tabletop web' beside this referee)",
    )
    add_web_options(p, port_flag="--web")
    p.set_defaults(run=run)


def _options(pairs: list[str]) -> dict[str, str]:
    out = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise CommandError(f"--option {pair!r} must look like KEY=VALUE")
        out[key.strip()] = value.strip()
    return out


def _pawns(text: str | None, seats: list[str] | None) -> dict[str, str] | None:
    if not text:
        return None
    out = {}
    for pair in text.split(","):
        color, sep, seat = (x.strip() for x in pair.partition("="))
        if not sep or not color or not seat:
            raise CommandError(f"--pawns {pair!r} must look like COLOR=SEAT")
        if seats is not None:
            found = find_seat(seat, seats)  # any case, as at join
            if found is None:
                raise CommandError(f"--pawns: {seat!r} is not a seat; seats: {', '.join(seats)}")
            seat = found
        out[color] = seat
    return out


def _export(args: argparse.Namespace) -> int:
    try:
        count = export(args.db, args.export, args.upto)
    except StoreError as exc:
        raise CommandError(str(exc)) from None
    print(
        f"copied {count} events of {args.db} into {args.export}; continue it with --db {args.export} --resume"
    )
    return 0


def run(args: argparse.Namespace) -> int:
    if args.export:
        return _export(args)
    if args.upto is not None:
        raise CommandError("--upto goes with --export: tabletop referee --db FILE --export NEW --upto N")
    if not args.game:
        raise CommandError(f"say which game: --game {' or --game '.join(sorted(GAMES))}")
    camera = args.camera is not None or args.video or args.images
    if camera and args.game != "masterplan":
        raise CommandError("the camera referees Master Plan; The Plan is reported by its players' commands")
    if not 0 < args.port < 65535:
        raise CommandError(
            f"--port {args.port} is not a port; choose one from 1 to 65534 (updates use PORT+1)"
        )
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    watch = None
    store: EventStore | None = None
    try:
        # The ports first: a port in use must not leave behind a game file the retry would refuse.
        service = RefereeService(
            None,
            router_endpoint=f"tcp://{args.bind}:{args.port}",
            pub_endpoint=f"tcp://{args.bind}:{args.port + 1}",
            keydir=args.secure,
        )
    except BindError as exc:
        how = "choose another with --port" if exc.errno == errno.EADDRINUSE else "check --bind and --port"
        raise CommandError(f"{exc}; {how}") from None
    except KeyFileError as exc:
        raise CommandError(str(exc)) from None
    try:
        store = EventStore(args.db)
        if camera:
            from tabletop.commands.referee_camera import start_watching

            watch = start_watching(args, store, _options(args.option), _pawns)
            session = watch.session
        elif args.resume:
            session = GameSession.resume(store)
        else:
            if not args.players:
                raise CommandError("say who is playing: --players 'Ann,Bob,Cy' (or --resume a stored game)")
            adapter = GAMES[args.game]
            players = [p.strip() for p in args.players.split(",") if p.strip()]
            config = adapter.make_config(players, _options(args.option))
            seed = args.seed if args.seed is not None else new_seed()
            session = GameSession.start(args.game, config, seed, store)
        if session.adapter.name != args.game:
            raise CommandError(f"{args.db} holds a {session.adapter.name} game, not {args.game}")
        service.session = session
    except (StoreError, SetupError, KeyFileError, CommandError) as exc:
        service.close()
        if store is not None:
            store.close()  # drops the lock at once
        raise CommandError(str(exc)) from None
    except BaseException:
        service.close()
        raise
    if watch is not None:
        watch.attach(service)
    web = None
    if getattr(args, "web", None) is not None:  # callers that build their own arguments may leave it out
        # Under --secure the web view acts for each seat with that seat's key from the same folder.
        args.keys = args.secure
        port = service.router_endpoint.rpartition(":")[2]
        host = "127.0.0.1" if args.bind in ("0.0.0.0", "::", "*", "127.0.0.1", "localhost") else args.bind
        try:
            web = start_web(f"tcp://{host}:{port}", args.web, args)
        except CommandError:
            service.close()
            store.close()
            raise
        # The links are printed once the gateway has taken the seats, i.e. once this referee serves.
        threading.Thread(target=print_links, args=(web, not args.no_qr), daemon=True).start()
    # The seed is never shown: whoever saw it could work out every hidden card.
    print(f"{args.game} referee: events in {Path(args.db).resolve()}")
    print(f"  commands (ROUTER): {service.router_endpoint}")
    print(f"  updates  (PUB):    {service.pub_endpoint}")
    print(f"  seats: {', '.join(session.seats())}")
    print(f"  connect a player:  tabletop client --connect {service.router_endpoint} --player SEAT")
    print(f"  connect a display: tabletop display overview --connect {service.router_endpoint}")
    if args.secure:
        print(f"  secure: only keys in {args.secure}/public may connect; each acts only for its own seat")
    else:
        print(
            "  WARNING: not secure - anyone who can reach this address can act for any player. "
            "Use --secure KEYDIR (see 'tabletop keys create') on a shared network.",
            file=sys.stderr,
        )
    signal.signal(signal.SIGTERM, lambda *_: service.stop())
    try:
        service.serve()
    except KeyboardInterrupt:
        pass
    except StoreError as exc:  # the file could not be written: stop before acknowledging more
        raise CommandError(str(exc)) from None
    finally:
        if watch is not None:
            watch.stop()
        if web is not None:
            web.stop()
        service.close()
        store.close()
    print("referee stopped; continue later with --resume")
    return 0
