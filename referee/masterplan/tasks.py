"""The work still to do in a turn: flips, what follows a move, a card's effect steps.

A command may set off more than it can finish at once (a flipped Bomb's blast, a fall's draw of 4,
a Teleporter's choice). Each piece of that work is a task on `GameState.tasks`; effects.py works
through them in order until the game must wait for an answer (`waits.py`) or none is left. A task
that is `set_off` (a fall's draw, a trap under Monster Nash) still resolves when the turn is cut
short: it happened before the turn ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, ClassVar


@dataclass
class Flip:
    """Turn up the face-down card a pawn (or Z-Mask's minion) landed on; its effect follows."""

    space: str
    you: str
    do: ClassVar[str] = "flip"
    set_off: ClassVar[bool] = False


@dataclass
class AfterMove:
    """What follows a move once its flip has resolved: a free move offered, or the Add step."""

    kind: str  # "normal" | "free" | "play" (Ms. Fyre's card instead of a move) | "minion"
    do: ClassVar[str] = "after_move"
    set_off: ClassVar[bool] = False


@dataclass
class CardEffect:
    """One step of a Space card's effect (a deck primitive, `do`), done for `you`; also the draws
    that work like one (a fall's draw of 4, Dr. Badmahn's extra card)."""

    do: str
    you: str
    card_name: str  # the card (or "the fall") a choice or a fizzle is announced under
    n: int = 0
    space: str | None = None  # where the card lies (or where Ms. Fyre stood)
    corners: list[list[float]] | None = None  # a destroyed space's outline (a trap set off under Nash)
    set_off: bool = False
    fall: bool = False  # a fall's draw: the deck running out then spares the drawer
    decided: dict[str, bool] = field(default_factory=dict)  # a Bomb's close calls measured so far


@dataclass
class NashReveal:
    """Monster Nash's face-down space destroyed by another player's effect: it is named, and its
    traps go off for the player who destroyed it."""

    space: str
    you: str
    card: int | None  # None with a physical deck: the table reports the name
    corners: list[list[float]]
    do: ClassVar[str] = "nash_reveal"
    set_off: ClassVar[bool] = True


Task = Flip | AfterMove | CardEffect | NashReveal


def plain(value: Any) -> Any:
    """Tasks and waits as JSON-able data, tagged with their type (for `state_dict`)."""
    if is_dataclass(value) and not isinstance(value, type):
        return {
            "type": type(value).__name__,
            **{f.name: plain(getattr(value, f.name)) for f in fields(value)},
        }
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value
