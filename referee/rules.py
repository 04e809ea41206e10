"""What every rules engine shares: the one error a player's command can cause."""

from __future__ import annotations


class RuleViolation(Exception):
    """A command the rules refuse. `code` is stable for programs ("out_of_reach", "wrong_step",
    "not_your_turn", ...); `message` is for the player. The game state is left unchanged."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"
