"""Errors a command can raise. The engine changes nothing when it raises one."""

from __future__ import annotations

from referee.errors import RuleViolation

__all__ = ["MalformedCommand", "RuleViolation"]


class MalformedCommand(RuleViolation):
    """A command could not be decoded: unknown type, missing or badly typed fields."""
