"""Errors a command can raise. The engine changes nothing when it raises one."""

from __future__ import annotations


class RuleViolation(Exception):
    """A command breaks a rule. `code` is stable for programs; `message` is in a player's words."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}


class MalformedCommand(RuleViolation):
    """A command could not be decoded: unknown type, missing or badly typed fields."""
