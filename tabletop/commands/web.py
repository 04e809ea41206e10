"""`tabletop web`: the web view - phones as hands, a table screen - as a gateway to a running referee."""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import TextIO

import segno

from referee.client import normalise_endpoint
from referee.keys import KeyFileError, client_keypair, public_key_file
from referee.masterplan.deck import default_deck
from referee.replay import public_replay
from referee.store import StoreError
from tabletop.commands import CommandError
from web.app import Gateway
from web.links import SeatKeys
from web.server import BindError, WebServer, lan_address, listen

DEFAULT_PORT = 8080
WAIT_NOTE_S = 3.0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "web",
        help="the web view: a link per seat for phones, and /table for a shared screen",
        description=(
            "Serve the game of a running 'tabletop referee' to browsers. Prints a secret link (and QR code) "
            "per seat: whoever opens it plays that seat on their phone. /table shows the table to everyone."
        ),
    )
    p.add_argument(
        "--connect",
        default="tcp://127.0.0.1:5555",
        help="the referee's command address, HOST:PORT or tcp://HOST:PORT (default: %(default)s)",
    )
    add_web_options(p, port_flag="--port")
    p.add_argument(
        "--keys",
        metavar="KEYDIR",
        help="for a --secure referee: the key folder 'tabletop keys create' made (server.key, secret/*.key_secret); "
        "the gateway acts for each seat with its key, and keeps the keys to itself",
    )
    p.add_argument(
        "--links",
        metavar="FILE",
        help="keep the seat links' tokens in FILE (readable by you only): the web view started again with "
        "the same FILE serves the same links (default: a file per referee address in "
        "~/.local/state/tabletop, used for seats the referee still holds)",
    )
    p.set_defaults(run=run)


def load_seat_keys(keydir: str) -> SeatKeys:
    """The keys of a --secure referee's folder: its public key, each seat's pair, `display`'s for the feed."""
    folder = Path(keydir)
    try:
        server_public = public_key_file(folder / "server.key")
        pairs = {
            path.name.removesuffix(".key_secret"): client_keypair(path)
            for path in sorted((folder / "secret").glob("*.key_secret"))
        }
    except KeyFileError as exc:
        raise CommandError(str(exc)) from None
    observer = pairs.pop("display", None)
    pairs.pop("camera", None)  # the camera's key reports the table; it is nobody's phone
    if not pairs:
        raise CommandError(
            f"{keydir}/secret holds no seat keys; make them with 'tabletop keys create {keydir} --players ...'"
        )
    return SeatKeys(server_public, pairs, observer)


def add_web_options(p: argparse.ArgumentParser, port_flag: str) -> None:
    """The options every command that starts the web view shares (`--port` here, `--web` elsewhere)."""
    if port_flag == "--port":
        p.add_argument("--port", type=int, default=DEFAULT_PORT, help="web port (default: %(default)s)")
    p.add_argument(
        "--web-bind",
        default="0.0.0.0",
        help="address the web view listens on (default: %(default)s, every network of this machine)",
    )
    p.add_argument(
        "--url",
        help="the address phones use to reach this machine, e.g. http://192.168.1.20:8080 (default: found)",
    )
    p.add_argument("--no-qr", action="store_true", help="print the seat links without QR codes")
    if port_flag == "--port":  # `tabletop referee` has its own --calibration (the camera's)
        p.add_argument(
            "--replay",
            metavar="GAME_FILE",
            help="a game file (tabletop referee --db) to step through at /replay, public information only",
        )
        p.add_argument(
            "--calibration",
            metavar="FILE",
            help="a calibration with its projector step: /projector then paints the legal jumps",
        )


def projector_renderer(path: str | None):
    """The public state -> the projector's PNG (display.projector's overlay), or None without a
    calibration that knows the projector."""
    if not path:
        return None
    import cv2

    from calibration import load_calibration
    from display.projector import render_projector

    try:  # as `tabletop display projector` loads it
        calibration = load_calibration(path, require=("projector",))
    except (OSError, ValueError) as exc:
        raise CommandError(f"no projector calibration: {exc}") from None

    def render(state: dict) -> bytes:
        ok, png = cv2.imencode(".png", render_projector(state, calibration))
        return png.tobytes()

    return render


def card_texts() -> dict[str, str]:
    """Each Space card's text by name, for the phones' hands (the engine's deck file)."""
    return {card.name: card.text for card in default_deck().cards}


def start_web(endpoint: str, port: int, args: argparse.Namespace) -> WebServer:
    """A gateway for the referee at `endpoint`, serving in a thread; a port in use is a CommandError."""
    if not 0 < port < 65536:
        raise CommandError(f"web port {port} is not a port; choose one from 1 to 65535")
    try:
        sock = listen(args.web_bind, port)
    except BindError as exc:
        raise CommandError(str(exc)) from None
    host = lan_address() if args.web_bind in ("0.0.0.0", "::") else args.web_bind
    base = args.url or f"http://{host}:{sock.getsockname()[1]}"
    # `tabletop web --calibration`; beside a referee (whose --calibration is the camera's) none.
    beside_referee = getattr(args, "web", None) is not None
    renderer = None if beside_referee else projector_renderer(args.calibration)
    replay = None
    if not beside_referee and args.replay:
        try:
            replay = public_replay(args.replay)
        except StoreError as exc:
            raise CommandError(str(exc)) from None
    keys = load_seat_keys(args.keys) if getattr(args, "keys", None) else None
    links, for_free_seats = links_file(args, endpoint, beside_referee)
    gateway = Gateway(
        endpoint,
        base,
        card_texts(),
        projector=renderer,
        replay=replay,
        keys=keys,
        links_file=links,
        links_for_free_seats=for_free_seats,
    )
    return WebServer(gateway, sock).start()


def links_file(args: argparse.Namespace, endpoint: str, beside_referee: bool) -> tuple[Path, bool]:
    """Where the seat links' tokens are kept, so a web view started again serves the same links,
    and whether the file is surely this game's (then its tokens also take free seats, as at a
    referee restarted with --resume). --links FILE: the caller's word. Beside a referee: next to
    its --db, and a new game there starts with new links. `tabletop web` alone: by the referee's
    address in the user's state folder; it may be an earlier game's, so its tokens only win back
    seats the referee still holds for them."""
    if getattr(args, "links", None):
        return Path(args.links), True
    if beside_referee:
        path = Path(f"{args.db}.web-links")
        if not getattr(args, "resume", False):
            path.unlink(missing_ok=True)  # an earlier game's links must not open this one's seats
        return path, True
    state = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    where = re.sub(r"[^A-Za-z0-9.-]+", "_", endpoint.removeprefix("tcp://"))
    return state / "tabletop" / f"web-links-{where}.json", False


def print_links(server: WebServer, qr: bool, out: TextIO = sys.stdout) -> None:
    """Wait for the referee, then print the host's page and each seat's link (with a QR code)."""
    gateway = server.gateway
    waited = time.monotonic()
    noted = False
    while not gateway.take_seats(timeout_s=0.5):
        if not noted and time.monotonic() - waited > WAIT_NOTE_S:
            print(f"web: waiting for the referee at {gateway.endpoint} ...", file=out, flush=True)
            noted = True
    print(f"web view: {gateway.base_url}/table  (the table, for any screen)", file=out)
    if gateway.replay is not None:
        print(f"  replay: {gateway.base_url}/replay", file=out)
    print(f"  host page (keep it to yourself: every link, QR codes, revoke): {gateway.host_link()}", file=out)
    for seat, token in gateway.links.tokens().items():
        link = gateway.link(token)
        print(f"  {seat}: {link}", file=out)
        if qr:
            segno.make(link, error="m").terminal(out=out, compact=True)
    for seat, why in gateway.links.not_held.items():
        print(f"  {seat}: no link - {why}", file=out)
    out.flush()


def run(args: argparse.Namespace) -> int:
    endpoint = normalise_endpoint(args.connect)
    server = start_web(endpoint, args.port, args)
    stop = threading.Event()
    try:
        print_links(server, qr=not args.no_qr)
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
    return 0
