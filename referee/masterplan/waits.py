"""What the game waits for: a player's choice, a report from the table, a measurement.

While one of these is `GameState.waiting`, only the command that answers it is accepted. A
choice (`is_choice`) is answered by the player it names, on his turn or another's; a report from
the table (a card's name, new positions, a measurement) by any seat or the camera. The public
part of a wait (`public()`) goes into events and views; fields marked PRIVATE are the referee's
continuation (what to do with the answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from referee.masterplan.tasks import CardEffect

# The keys of a public wait, in the order events and views show them.
PUBLIC_KEYS = (
    "for", "player", "effect", "options", "count", "optional", "spaces", "space",
    "from", "to", "gap_mm", "sigma_gap_mm", "card_name",
)  # fmt: skip
PRIVATE: dict[str, Any] = {"private": True}


@dataclass
class Wait:
    player: str
    kind: ClassVar[str]  # the command that answers it
    is_choice: ClassVar[bool] = False

    def public(self) -> dict[str, Any]:
        data: dict[str, Any] = {"for": self.kind}
        for f in fields(self):
            if not f.metadata.get("private"):
                data[f.metadata.get("key", f.name)] = getattr(self, f.name)
        return {k: data[k] for k in PUBLIC_KEYS if k in data}

    def what(self) -> str:
        """What the game waits for, in words ("The game is waiting for ...")."""
        raise NotImplementedError


@dataclass
class TargetChoice(Wait):
    """A card's effect asks `player` to choose spaces (or, for a draw, table cards)."""

    effect: str
    options: list[str]
    optional: bool
    count: int
    card_name: str
    fall: bool = field(default=False, metadata=PRIVATE)  # a fall's draw: the deck running out spares him
    kind: ClassVar[str] = "choose_target"
    is_choice: ClassVar[bool] = True

    def what(self) -> str:
        return f"{self.player} to choose for {self.card_name}"


@dataclass
class ExtraMove(Wait):
    """Rocket Boots: `player` may make one extra move now (or skip it)."""

    card_name: str
    kind: ClassVar[str] = "extra_move"
    is_choice: ClassVar[bool] = True

    def what(self) -> str:
        return f"{self.player}'s extra move (or skip_step)"


@dataclass
class NewPositions(Wait):
    """A Switch or Control Panel carried out on the table: the cards' new corners."""

    effect: str  # "swap_two" | "relocate_one"
    spaces: list[str]
    card_name: str
    kind: ClassVar[str] = "report_positions"

    def what(self) -> str:
        return f"the new positions of {' and '.join(self.spaces)}"


@dataclass
class CardName(Wait):
    """A physical deck: the name of a card turned up (or played by Ms. Fyre, `space` None)."""

    space: str | None
    then: str = field(metadata=PRIVATE)  # "flip" | "play" | "nash" (a destroyed card under Nash)
    you: str = field(metadata=PRIVATE)  # whose effect it is
    corners: list[list[float]] | None = field(default=None, metadata=PRIVATE)  # "nash": where it lay
    kind: ClassVar[str] = "report_identity"

    def what(self) -> str:
        return f"the name of the card turned up at {self.space or 'Ms. Fyre'}"


@dataclass
class PendingMove:
    """A pawn's move held until its close call is measured."""

    player: str
    kind: str
    to: str
    flip: bool


@dataclass
class PendingMinion:
    """Z-Mask's minion held until its close call is measured."""

    player: str
    to: str


@dataclass
class PendingBlast:
    """A Bomb's blast held until each close call around it is measured."""

    player: str
    task: CardEffect


@dataclass
class Measurement(Wait):
    """A jump too close to call under the "ask" policy: the players measure it by hand."""

    jump_from: str = field(metadata={"key": "from"})
    to: str
    gap_mm: float
    sigma_gap_mm: float
    then: PendingMove | PendingMinion | PendingBlast = field(metadata=PRIVATE)
    restore: Wait | None = field(metadata=PRIVATE)  # what was waited for before (an extra move)
    kind: ClassVar[str] = "confirm_measurement"

    def what(self) -> str:
        return f"a measurement of the jump from {self.jump_from} to {self.to}"
