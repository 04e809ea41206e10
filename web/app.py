"""The gateway's routes (starlette): the pages, their WebSockets and the host's page of links.

GET  /                 what this is, and a link to /table
GET  /table            the overview for a shared screen (public state only)
GET  /play/<token>     a seat's own page; an unknown or revoked token gets a page saying so
GET  /host/<secret>    the host's page: every seat's link and QR code, and "renew" to revoke one
WS   /ws/table         the public feed: snapshot, then numbered events and states
WS   /ws/play/<token>  the public feed plus this seat's view, private messages and replies;
                       the page sends {"id", "command": {...}}, passed to the referee unchanged
Each frame to a page is a JSON array of messages: what waited for it, in order.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import os
import secrets
import string
import threading
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import segno
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from display.words import describe_event
from referee.protocol import MAX_MESSAGE_BYTES, ProtocolError, loads
from web.channel import CommandRefused, SeatChannel, check_command
from web.feed import Batch, Message, PublicFeed, encode, opening
from web.links import SeatKeys, SeatLinks, seats_of

log = logging.getLogger("tabletop.web")

STATIC = resources.files("web") / "static"
MAX_QUEUED = 2_000  # messages waiting for one browser; a page that reads none is sent away
MAX_BATCH = 200  # messages in one frame at most (a page far behind still gets them in pieces)
CLOSE_TOO_SLOW = 4000  # the page reconnects (and gets a snapshot) when closed with this code
CLOSE_REFUSED = 4403  # the page shows why and does not reconnect
# Pages open at once on one seat's link: each holds a thread and a connection to the referee (which
# keeps 8 per seat), so a link opened in a loop must not take the gateway's threads.
MAX_PAGES_PER_LINK = 6


class Gateway:
    """What the routes share: the feed, the links, the pages. `base_url` is how phones reach this
    gateway (the host page and the terminal print links with it)."""

    def __init__(
        self,
        router_endpoint: str,
        base_url: str,
        card_texts: dict[str, str] | None = None,
        host_secret: str | None = None,
        projector: Callable[[dict[str, Any]], bytes] | None = None,
        replay: dict[str, Any] | None = None,
        keys: SeatKeys | None = None,
        links_file: str | Path | None = None,
        links_for_free_seats: bool = True,
    ) -> None:
        """`projector`: the public state -> the projector's picture as PNG (the CLI wires the
        overlay of display.projector with a calibration), or None without a projector. `replay`:
        a stored game's public steps ({"game", "steps": [{"seq", "event", "state"}]}) for /replay.
        `keys`: a --secure referee's keys (each seat's, and an observer's for the public feed).
        `links_file`: where the seat links' tokens are kept (readable by this user only), so a
        gateway started again on the same file serves the same links. `links_for_free_seats`:
        False when the file may be another game's (a default path by the referee's address): its
        tokens then only win back seats the referee still holds for them."""
        self.endpoint = router_endpoint
        self.base_url = base_url.rstrip("/")
        self.card_texts = card_texts or {}
        self.host_secret = host_secret or secrets.token_urlsafe(16)
        self.projector = projector
        self.replay = replay
        feed_keys = (keys.server_public, keys.feed_keys()) if keys is not None else (None, None)
        self.feed = PublicFeed(router_endpoint, None, *feed_keys)
        self.fanout = _Fanout(self.feed)
        self.links = SeatLinks(router_endpoint, keys=keys)
        self.links_file = Path(links_file) if links_file is not None else None
        self.links.saved = _read_links(self.links_file)
        self.links.saved_for_free_seats = links_for_free_seats
        self._saving = threading.Lock()  # the links thread and a caller may both save
        self.channels: dict[str, set[SeatChannel]] = {}  # token -> the pages using it

    def start(self) -> None:
        self.feed.start()

    def take_seats(self, timeout_s: float = 10.0) -> bool:
        """Join every seat (blocking): True once the referee answered and the links exist."""
        if not self.feed.ready.wait(timeout_s):
            return False
        snapshot = self.feed.snapshot()
        if snapshot is not None:
            self.links.take(seats_of(snapshot["state"]))
            self._save_links()
        return True

    def _save_links(self) -> None:
        with self._saving:
            tokens = {**self.links.saved, **self.links.tokens()}  # seats not taken yet keep theirs
            if self.links_file is None or tokens == self.links.saved:
                return
            try:
                write_private(self.links_file, json.dumps(tokens))
            except OSError as exc:  # the links work on; only a restart would lose them
                log.warning("the seat links could not be kept in %s: %s", self.links_file, exc.strerror)
                return
            self.links.saved = tokens

    def link(self, token: str) -> str:
        return f"{self.base_url}/play/{token}"

    def host_link(self) -> str:
        return f"{self.base_url}/host/{self.host_secret}"

    def renew(self, seat: str) -> str:
        """Revoke `seat`'s link: a new token at the referee, and every page open with the old one closed."""
        old = self.links.tokens().get(seat)
        token = self.links.renew(seat)
        self._save_links()
        for channel in self.channels.pop(old, set()) if old else set():
            channel.send(
                {
                    "kind": "refused",
                    "code": "revoked",
                    "message": "this seat link was revoked; ask the host for your new link",
                }
            )
            channel.close()
        return token

    def stop(self) -> None:
        for channels in self.channels.values():
            for channel in channels:
                channel.close()
        self.feed.stop()
        self.links.close()


class _Page:
    """One browser's socket: messages from the gateway's threads go through a bounded queue, each
    with its JSON text (the public feed's are encoded once for all pages)."""

    def __init__(self, websocket: WebSocket) -> None:
        self.ws = websocket
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[Message | None] = asyncio.Queue()
        self.too_slow = False

    def push(self, message: dict[str, Any]) -> None:
        """From any thread."""
        self.loop.call_soon_threadsafe(self._put, (message, encode(message)))

    def put(self, messages: list[Message]) -> None:
        """In the loop."""
        for item in messages:
            self._put(item)

    def _put(self, item: Message) -> None:
        if self.queue.qsize() >= MAX_QUEUED:
            self.too_slow = True  # it reconnects and starts again from a snapshot
            self.queue.put_nowait(None)
        elif not self.too_slow:
            self.queue.put_nowait(item)

    async def pump(self) -> None:
        """Send what waits as one frame, a JSON array of messages: a command's many events (and the
        state after them) then cost the page one redraw and the gateway one send, not one per event
        - per-event redraws on every page were the web view's latency tail."""
        while True:
            batch = [await self.queue.get()]
            while not self.queue.empty() and _more(batch[-1]) and len(batch) < MAX_BATCH:
                batch.append(self.queue.get_nowait())
            texts = [item[1] for item in batch if item is not None]
            if texts:
                await self.ws.send_text(frame(texts))
            last = batch[-1]
            if last is None:
                await self.ws.close(CLOSE_TOO_SLOW, "too far behind; reconnecting")
                return
            if not _more(last):
                await self.ws.close(CLOSE_REFUSED, last[0].get("code", "refused")[:100])
                return


def _more(item: Message | None) -> bool:
    """Whether a frame may go on after this item: not after "too slow" or a refusal (both close)."""
    return item is not None and item[0].get("kind") != "refused"


class _Fanout:
    """The public feed in the event loop: one listener of the feed for every page. Each batch
    crosses to the loop once and is spread to the pages there, rather than each page's listener
    waking the loop for each message (on a busy machine each wake-up of another thread can wait
    for the interpreter lock: they added up to a visible lag)."""

    def __init__(self, feed: PublicFeed) -> None:
        self.feed = feed
        self.loop: asyncio.AbstractEventLoop | None = None
        self.pages: dict[_Page, Callable[[Batch], None] | None] = {}
        self.last: Batch | None = None  # the newest batch the pages got: what a new page starts from

    def add(self, page: _Page, on_batch: Callable[[Batch], None] | None = None) -> None:
        """In the loop: the page gets the status and snapshot, then every batch; `on_batch` runs
        after each batch's frames are on their way."""
        self.pages[page] = on_batch
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            self.feed.add(self._from_feed)  # its first batch is the status and the snapshot
        elif self.last is not None:
            last = self.last
            self._deliver(Batch(opening(last.status, last.snapshot), last.status, last.snapshot), [page])

    def remove(self, page: _Page) -> None:
        self.pages.pop(page, None)

    def _from_feed(self, batch: Batch) -> None:  # the feed's thread
        assert self.loop is not None
        try:
            self.loop.call_soon_threadsafe(self._deliver, batch)
        except RuntimeError:  # the server stopped (its loop closed): nobody to give it to
            pass

    def _deliver(self, batch: Batch, pages: list[_Page] | None = None) -> None:
        if pages is None:
            self.last = batch
        hooks = []
        for page in pages if pages is not None else list(self.pages):
            page.put(batch.messages)
            if self.pages.get(page) is not None:
                hooks.append(self.pages[page])
        # The hooks (the seats fetching their views: six threads and the referee busy at once) run
        # after the pages' sends, which are already waiting in the loop: they held those up by 0.1 s.
        if hooks:
            asyncio.get_running_loop().call_soon(_each, hooks, batch)


def _each(hooks: list[Callable[[Batch], None]], batch: Batch) -> None:
    for hook in hooks:
        hook(batch)


def frame(texts: list[str]) -> str:
    """One WebSocket frame: the messages' JSON texts as one JSON array."""
    return "[" + ",".join(texts) + "]"


# The pages that are one ES module on the shared shell (static/page.html): title, module, body class.
PAGES = {
    "play": ("Your seat", "play", "play"),
    "table": ("The table", "table", "table"),
    "replay": ("Replay", "replay", "table replay"),
}


def write_private(path: Path, text: str) -> None:
    """Write a file only this user may read (its folder too, when made here): written whole, then
    moved into place, so a crash never leaves half a file."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.unlink(missing_ok=True)  # a stale one may have other permissions
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(text)
    os.replace(part, path)


def _read_links(path: Path | None) -> dict[str, str]:
    """The tokens a links file keeps ({} for none, or for a file that is not one)."""
    if path is None or not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        log.warning("%s is not a links file; starting with new links", path)
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def _page(name: str) -> HTMLResponse:
    if name in PAGES:
        title, script, body = PAGES[name]
        shell = string.Template((STATIC / "page.html").read_text(encoding="utf-8"))
        return HTMLResponse(shell.substitute(title=title, script=script, body=body))
    return HTMLResponse((STATIC / name).read_text(encoding="utf-8"))


def _message_page(title: str, words: str, status: int) -> HTMLResponse:
    body = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<title>{html.escape(title)}</title><link rel="stylesheet" href="/static/style.css"></head>'
        f'<body class="message"><main><h1>{html.escape(title)}</h1><p>{html.escape(words)}</p>'
        '<p><a href="/table">See the table</a></p></main></body></html>'
    )
    return HTMLResponse(body, status_code=status)


def create_app(gateway: Gateway) -> Starlette:
    async def index(request: Request) -> Response:
        return _page("index.html")

    async def table(request: Request) -> Response:
        return _page("table")

    async def play(request: Request) -> Response:
        if gateway.links.seat_for(request.path_params["token"]) is None:
            return _message_page(
                "This seat link does not work",
                "The link is mistyped, or the host renewed it. Ask the host for your seat's link.",
                404,
            )
        return _page("play")

    async def projector(request: Request) -> Response:
        return _page("projector.html")

    async def projector_png(request: Request) -> Response:
        snapshot = gateway.feed.snapshot()
        if gateway.projector is None:
            return _message_page(
                "No projector here",
                "Start the web view with --calibration FILE, a calibration with its projector step "
                "('tabletop calibrate projector').",
                404,
            )
        if snapshot is None:
            return _message_page("No game yet", "The referee has not answered yet.", 503)
        try:
            png = await asyncio.to_thread(gateway.projector, snapshot["state"])
        except Exception as exc:  # a picture that cannot be drawn must not take the gateway down
            log.exception("the projector picture failed")
            return _message_page("No picture", f"The projector picture could not be drawn: {exc}", 500)
        return Response(png, media_type="image/png", headers={"Cache-Control": "no-store"})

    async def replay(request: Request) -> Response:
        if gateway.replay is None:
            return _message_page(
                "No replay here", "Start the web view with --replay GAME_FILE to step through a game.", 404
            )
        return _page("replay")

    async def replay_json(request: Request) -> Response:
        if gateway.replay is None:
            return JSONResponse(
                {"error": "no replay: start the web view with --replay GAME_FILE"}, status_code=404
            )
        steps = [{**step, "words": describe_event(step["event"])} for step in gateway.replay["steps"]]
        return JSONResponse({"game": gateway.replay["game"], "steps": steps})

    async def cards(request: Request) -> Response:
        return JSONResponse(gateway.card_texts)

    async def host(request: Request) -> Response:
        if not secrets.compare_digest(request.path_params["secret"].encode(), gateway.host_secret.encode()):
            return _message_page("Not found", "There is no page here.", 404)
        rows = []
        for seat, token in gateway.links.tokens().items():
            link = gateway.link(token)
            qr = segno.make(link, error="m").svg_inline(scale=3)
            rows.append(
                f'<section class="seat"><h2>{html.escape(seat)}</h2>{qr}<p><a href="{html.escape(link)}">'
                f'{html.escape(link)}</a></p><form method="post" action="/host/{gateway.host_secret}/renew/'
                f'{html.escape(seat)}"><button>Revoke and issue a new link</button></form></section>'
            )
        for seat, why in gateway.links.not_held.items():
            rows.append(
                f"<section class=seat><h2>{html.escape(seat)}</h2><p>no link: {html.escape(why)}</p></section>"
            )
        body = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Seat links</title>'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            '<link rel="stylesheet" href="/static/style.css"></head><body class="host"><main>'
            "<h1>Seat links</h1><p>Each link is one seat: whoever opens it plays that seat and sees its hand. "
            "Show each QR code to its player only.</p>" + "".join(rows) + "</main></body></html>"
        )
        return HTMLResponse(body)

    async def renew(request: Request) -> Response:
        if not secrets.compare_digest(request.path_params["secret"].encode(), gateway.host_secret.encode()):
            return _message_page("Not found", "There is no page here.", 404)
        seat = request.path_params["seat"]
        try:
            await asyncio.to_thread(gateway.renew, seat)
        except KeyError:
            return _message_page("No such seat", f"The gateway holds no seat {seat!r}.", 404)
        except Exception as exc:
            return _message_page("Not renewed", f"The referee did not renew the link: {exc}", 503)
        return RedirectResponse(f"/host/{gateway.host_secret}", status_code=303)

    async def ws_table(websocket: WebSocket) -> None:
        await websocket.accept()
        page = _Page(websocket)
        gateway.fanout.add(page)
        try:
            await _serve(websocket, page, None)
        finally:
            gateway.fanout.remove(page)

    async def ws_play(websocket: WebSocket) -> None:
        await websocket.accept()
        token = websocket.path_params["token"]
        seat = gateway.links.seat_for(token)
        if seat is None:
            await websocket.send_text(
                frame(
                    [
                        encode(
                            {
                                "kind": "refused",
                                "code": "bad_link",
                                "message": "this seat link does not work; ask the host for yours",
                            }
                        )
                    ]
                )
            )
            await websocket.close(CLOSE_REFUSED, "bad link")
            return
        if len(gateway.channels.get(token, ())) >= MAX_PAGES_PER_LINK:
            words = f"this seat is open on {MAX_PAGES_PER_LINK} pages already; close one and reload"
            await websocket.send_text(
                frame([encode({"kind": "refused", "code": "too_many_pages", "message": words})])
            )
            await websocket.close(CLOSE_REFUSED, "too many pages")
            return
        page = _Page(websocket)
        channel = SeatChannel(gateway.endpoint, seat, token, page.push, None, *gateway.links.seat_keys(seat))

        def public(batch: Batch) -> None:
            if any(message["kind"] in ("state", "snapshot") for message, _ in batch.messages):
                channel.refresh()  # the public state moved on: so may this seat's view

        gateway.channels.setdefault(token, set()).add(channel)
        channel.start()
        gateway.fanout.add(page, public)
        try:
            await _serve(websocket, page, channel)
        finally:
            gateway.fanout.remove(page)
            channel.close()
            gateway.channels.get(token, set()).discard(channel)

    return Starlette(
        routes=[
            Route("/", index),
            Route("/table", table),
            Route("/play/{token}", play),
            Route("/cards.json", cards),
            Route("/projector", projector),
            Route("/replay", replay),
            Route("/replay.json", replay_json),
            Route("/projector.png", projector_png),
            Route("/host/{secret}", host),
            Route("/host/{secret}/renew/{seat}", renew, methods=["POST"]),
            WebSocketRoute("/ws/table", ws_table),
            WebSocketRoute("/ws/play/{token}", ws_play),
            Mount("/static", app=StaticFiles(directory=str(STATIC)), name="static"),
        ]
    )


async def _serve(websocket: WebSocket, page: _Page, channel: SeatChannel | None) -> None:
    """Pump messages out while reading the page's: commands for a seat, anything else refused
    with a reason. Whatever a page sends, only its own socket is affected."""
    pump = asyncio.create_task(page.pump())
    try:
        while not pump.done():
            receive = asyncio.create_task(websocket.receive())
            done, _ = await asyncio.wait({receive, pump}, return_when=asyncio.FIRST_COMPLETED)
            if receive not in done:
                receive.cancel()
                break
            message = receive.result()
            if message["type"] == "websocket.disconnect":
                break
            page.push(_answer(message, channel))
    except (WebSocketDisconnect, RuntimeError):
        pass  # the browser went away mid-send
    finally:
        pump.cancel()


def _answer(message: dict[str, Any], channel: SeatChannel | None) -> dict[str, Any]:
    def error(words: str, rid: Any = None) -> dict[str, Any]:
        return {"kind": "error", "id": rid if isinstance(rid, str) else None, "message": words}

    text = message.get("text")
    if text is None:
        return error("send text frames of JSON")
    if len(text.encode("utf-8", errors="replace")) > MAX_MESSAGE_BYTES:
        return error(f"message too large; the limit is {MAX_MESSAGE_BYTES} bytes")
    try:
        parsed = loads(text.encode("utf-8", errors="replace"))
    except ProtocolError as exc:
        return error(exc.message)
    if channel is None:
        return error("this is the table's view: it cannot send commands (open your seat's link)")
    try:
        rid, command = check_command(parsed)
    except CommandRefused as exc:
        return error(str(exc), parsed.get("id") if isinstance(parsed, dict) else None)
    if not channel.submit(rid, command):
        return error("too many commands at once; wait for the answers", rid)
    return {"kind": "queued", "id": rid}
