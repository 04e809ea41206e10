"""CurveZMQ keys for `--secure`: one server key, one key per seat, and observer keys.

Layout of KEYDIR (made by `tabletop keys create`):
    server.key, server.key_secret          the referee's key pair (keep the secret on its machine)
    public/<name>.key                      every client's public key; <name> is the seat it may act for
    secret/<name>.key_secret               each client's key pair, to hand to that player only
A key whose name is not a seat of the game (e.g. "display") may watch but never act.
"""

from __future__ import annotations

import logging
import os
import re
import stat
from collections import OrderedDict
from datetime import datetime
from pathlib import Path
from typing import Any

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

log = logging.getLogger("tabletop.keys")

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$")
MAX_REMEMBERED_PEERS = 10_000


class KeyFileError(Exception):
    """A key directory that cannot be used; the message says how to fix it."""


def create_keys(keydir: str | Path, names: list[str]) -> Path:
    keydir = Path(keydir)
    for name in names:
        if not _NAME_RE.match(name):
            raise KeyFileError(f"{name!r} cannot name a key: use letters, digits, spaces, '.', '_' or '-'")
    (keydir / "public").mkdir(parents=True, exist_ok=True)
    (keydir / "secret").mkdir(mode=0o700, parents=True, exist_ok=True)
    if not (keydir / "server.key_secret").exists():
        _write_keypair(keydir / "server.key", keydir / "server.key_secret")
    for name in names:
        if (keydir / "public" / f"{name}.key").exists():
            continue
        _write_keypair(keydir / "public" / f"{name}.key", keydir / "secret" / f"{name}.key_secret")
    return keydir


_BANNER = "#   ****  Generated on {} by tabletop keys create  ****\n#   ZeroMQ CURVE {} Certificate\n"


def _write_keypair(public_path: Path, secret_path: Path) -> None:
    """A key pair in ZeroMQ's certificate format (zmq.auth.load_certificate reads it back)."""
    public, secret = zmq.curve_keypair()
    when = datetime.now().isoformat(timespec="seconds")
    body = f'metadata\ncurve\n    public-key = "{public.decode()}"\n'
    # The secret file is created private (0600) in one step: chmod after writing would leave a
    # moment in which anyone on the machine could read it.
    fd = os.open(secret_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(_BANNER.format(when, "**Secret**") + "#   DO NOT PROVIDE THIS FILE TO OTHER USERS\n\n")
        f.write(body + f'    secret-key = "{secret.decode()}"\n')
    with open(public_path, "w", encoding="utf-8") as f:
        f.write(_BANNER.format(when, "Public") + "\n" + body)


def _warn_if_open(path: Path) -> None:
    try:
        mode = path.stat().st_mode
    except OSError:
        return  # the load that follows says what is wrong with the file
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        log.warning(
            "the secret key %s can be read by other users of this machine (mode %o); make it private: chmod 600 %s",
            path,
            stat.S_IMODE(mode),
            path,
        )


def server_keypair(keydir: str | Path) -> tuple[bytes, bytes]:
    path = Path(keydir) / "server.key_secret"
    _warn_if_open(path)
    try:
        return zmq.auth.load_certificate(str(path))  # type: ignore[return-value]
    except (OSError, ValueError) as exc:
        raise KeyFileError(
            f"no server key in {keydir} ({exc}); make one with 'tabletop keys create {keydir}'"
        ) from None


def public_key_file(path: str | Path) -> bytes:
    """A public key file (e.g. the referee's server.key, given to every client)."""
    try:
        public, _ = zmq.auth.load_certificate(str(path))
    except (OSError, ValueError) as exc:
        raise KeyFileError(
            f"cannot read the public key {path} ({exc}); ask the referee's host for server.key"
        ) from None
    return public


def client_keypair(keyfile: str | Path) -> tuple[bytes, bytes]:
    _warn_if_open(Path(keyfile))
    try:
        public, secret = zmq.auth.load_certificate(str(keyfile))
    except (OSError, ValueError) as exc:
        raise KeyFileError(
            f"cannot read the key {keyfile} ({exc}); ask the referee's host for your .key_secret file"
        ) from None
    if secret is None:
        raise KeyFileError(f"{keyfile} holds no secret key; use the .key_secret file")
    return public, secret


class SeatAuthenticator(ThreadAuthenticator):
    """Accepts only the public keys in KEYDIR/public and names each connection by its key's
    file name, which ZeroMQ then hands us as every message's User-Id.

    It also remembers which key last connected under each routing id a client chose itself
    (`peer_key`), noted before that connection can receive anything: the service asks before it
    sends a seat's secrets to such an id, so another key reusing the id inherits nothing."""

    def __init__(self, context: zmq.Context, keydir: str | Path) -> None:
        super().__init__(context)
        public_dir = Path(keydir) / "public"
        if not public_dir.is_dir():
            raise KeyFileError(
                f"{public_dir} is missing; make keys with 'tabletop keys create {keydir} --players ...'"
            )
        self._names: dict[bytes, str] = {}
        self._peers: OrderedDict[bytes, str] = OrderedDict()  # chosen routing id -> key name
        for path in public_dir.glob("*.key"):
            public, _ = zmq.auth.load_certificate(str(path))
            self._names[public] = path.stem
        self._public_dir = public_dir

    def start(self) -> None:
        super().start()
        self.configure_curve(domain="*", location=str(self._public_dir))

    def curve_user_id(self, client_public_key: bytes) -> str:
        return self._names.get(z85.encode(client_public_key), "?")

    def handle_zap_message(self, msg: list[bytes]) -> Any:
        # ZAP request: version, request id, domain, address, routing id, mechanism, credentials.
        # Returned as is: a coroutine in newer pyzmq (awaited by the caller), None in older.
        if len(msg) >= 7 and msg[4] and msg[5] == b"CURVE":
            name = self._names.get(z85.encode(msg[6]))
            if name is not None:  # only a key that will be let in may claim the id
                self._peers[msg[4]] = name
                self._peers.move_to_end(msg[4])
                while len(self._peers) > MAX_REMEMBERED_PEERS:
                    self._peers.popitem(last=False)
        return super().handle_zap_message(msg)

    def peer_key(self, routing_id: bytes) -> str | None:
        """The key that last connected under this client-chosen routing id (None: forgotten)."""
        return self._peers.get(routing_id)
