"""Running the gateway: uvicorn serving the app, in this thread or beside a referee."""

from __future__ import annotations

import asyncio
import socket
import threading

import uvicorn

from referee.protocol import MAX_MESSAGE_BYTES
from web.app import Gateway, create_app


class BindError(Exception):
    """The web port cannot be listened on; the message says why."""


def lan_address() -> str:
    """This machine's address on the local network (what a phone types), or 127.0.0.1. A UDP
    socket 'connected' to a private address sends nothing but picks the outgoing interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.254.254.254", 1))
            return str(probe.getsockname()[0])
        except OSError:
            return "127.0.0.1"


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, made here so a port in use is one clear line before anything starts."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise BindError(
            f"the web port {port} on {host} cannot be used: {exc.strerror}; choose another with --web-port"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


class WebServer:
    """The gateway's HTTP server on an already bound socket; `serve()` blocks, `start()` runs it in a
    thread (beside a referee, or in tests), `stop()` ends it."""

    def __init__(self, gateway: Gateway, sock: socket.socket) -> None:
        self.gateway = gateway
        self.sock = sock
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            create_app(gateway),
            log_level="warning",
            # A frame over the referee's own limit could never be a command: refused by the socket.
            ws_max_size=MAX_MESSAGE_BYTES,
            ws_ping_interval=20.0,
            ws_ping_timeout=20.0,
            lifespan="off",
        )
        self.server = uvicorn.Server(config)
        self._thread: threading.Thread | None = None
        self._drain = threading.Event()

    def serve(self) -> None:
        self.gateway.start()
        threading.Thread(target=self._keep_links, daemon=True, name="web-links").start()
        try:
            asyncio.run(self.server.serve(sockets=[self.sock]))
        finally:
            self._drain.set()
            self.gateway.stop()

    def _keep_links(self) -> None:
        # The seats are taken once the referee first answers (it may start after the gateway).
        while not self._drain.is_set():
            if self.gateway.feed.ready.is_set():
                self.gateway.take_seats(0)
                self.gateway.links.drain()
            self._drain.wait(1.0)

    def start(self) -> WebServer:
        self._thread = threading.Thread(target=self.serve, name="web-server", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        if self._thread is not None:
            self._thread.join(10)
        self.sock.close()
