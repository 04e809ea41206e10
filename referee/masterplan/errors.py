"""The errors of the Master Plan engine."""

from __future__ import annotations

from referee.errors import RuleViolation

__all__ = ["ReplayMismatch", "RuleViolation"]


class ReplayMismatch(ValueError):
    """An event log that this engine does not reproduce (edited, truncated or from other rules)."""
