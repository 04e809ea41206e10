"""The one error shape of the referee: a stable `code` for programs and a `message` for people.

Both rules engines raise RuleViolation; the service answers a refused command (RuleRefusal,
games.py) and a request it cannot take (ProtocolError, protocol.py) with the same two fields, so
all of them are RefereeErrors and every reply's "error" is `to_dict()`.
"""

from __future__ import annotations


class RefereeError(Exception):
    """Something the referee refuses; nothing changed. `code` is stable, `message` is for a person."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class RuleViolation(RefereeError):
    """A command the rules refuse. `code` is stable for programs ("out_of_reach", "wrong_step",
    "not_your_turn", ...); `message` is for the player. The game state is left unchanged."""
