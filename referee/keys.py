"""CurveZMQ keys for `--secure`: one server key, one key per seat, and observer keys.

Layout of KEYDIR (made by `tabletop keys create`):
    server.key, server.key_secret          the referee's key pair (keep the secret on its machine)
    public/<name>.key                      every client's public key; <name> is the seat it may act for
    secret/<name>.key_secret               each client's key pair, to hand to that player only
A key whose name is not a seat of the game (e.g. "display") may watch but never act.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import zmq
import zmq.auth
from zmq.auth.thread import ThreadAuthenticator
from zmq.utils import z85

_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ._-]{0,39}$")


class KeyFileError(Exception):
    """A key directory that cannot be used; the message says how to fix it."""


def create_keys(keydir: str | Path, names: list[str]) -> Path:
    keydir = Path(keydir)
    for name in names:
        if not _NAME_RE.match(name):
            raise KeyFileError(f"{name!r} cannot name a key: use letters, digits, spaces, '.', '_' or '-'")
    (keydir / "public").mkdir(parents=True, exist_ok=True)
    (keydir / "secret").mkdir(parents=True, exist_ok=True)
    if not (keydir / "server.key_secret").exists():
        zmq.auth.create_certificates(str(keydir), "server")
    for name in names:
        if (keydir / "public" / f"{name}.key").exists():
            continue
        public, secret = zmq.auth.create_certificates(str(keydir / "secret"), name)
        shutil.move(public, keydir / "public" / f"{name}.key")
    return keydir


def server_keypair(keydir: str | Path) -> tuple[bytes, bytes]:
    path = Path(keydir) / "server.key_secret"
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
    file name, which ZeroMQ then hands us as every message's User-Id."""

    def __init__(self, context: zmq.Context, keydir: str | Path) -> None:
        super().__init__(context)
        public_dir = Path(keydir) / "public"
        if not public_dir.is_dir():
            raise KeyFileError(
                f"{public_dir} is missing; make keys with 'tabletop keys create {keydir} --players ...'"
            )
        self._names: dict[bytes, str] = {}
        for path in public_dir.glob("*.key"):
            public, _ = zmq.auth.load_certificate(str(path))
            self._names[public] = path.stem
        self._public_dir = public_dir

    def start(self) -> None:
        super().start()
        self.configure_curve(domain="*", location=str(self._public_dir))

    def curve_user_id(self, client_public_key: bytes) -> str:
        return self._names.get(z85.encode(client_public_key), "?")
