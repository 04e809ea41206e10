"""Commands: what a player (or the camera reporting for the table) asks the referee to do.

Frozen dataclasses that round-trip through JSON: `cmd.to_dict()` has a "type" key and
`command_from_dict(d)` rebuilds the command, raising CommandFormatError (a ValueError) with a
clear message for an unknown type, a missing field or a field of the wrong kind.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

Corners = tuple[tuple[float, float], ...]


class CommandFormatError(ValueError):
    """A command dict that is not a well-formed command."""


@dataclass(frozen=True)
class Command:
    type: ClassVar[str] = ""
    player: str

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "positions":
                value = {space: [list(p) for p in corners] for space, corners in value}
            elif f.name == "corners":
                value = [list(p) for p in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


@dataclass(frozen=True)
class Move(Command):
    """Move your pawn to card `to`. `flip=False` is Monster Nash's unflipped move."""

    type: ClassVar[str] = "move"
    to: str
    flip: bool = True


@dataclass(frozen=True)
class SkipStep(Command):
    """End the current step (Move, a free or extra move, Add, Draw, a peek, an optional choice)."""

    type: ClassVar[str] = "skip_step"


@dataclass(frozen=True)
class PlaceCard(Command):
    """Add: put a card from your hand face-down at `corners` (4 corners in table mm).
    `card` is the card number from your hand (digital deck only); `space` an optional id for
    the new space (e.g. the camera tracker's), otherwise the referee numbers it."""

    type: ClassVar[str] = "place_card"
    corners: Corners
    card: int | None = None
    space: str | None = None
    sigma_mm: float = 0.0


@dataclass(frozen=True)
class Draw(Command):
    """Draw one card, ending your turn. `space` takes a face-up, unoccupied Space card from the
    table instead (Plutonian Poacher, or anyone when deck and discard are empty)."""

    type: ClassVar[str] = "draw"
    space: str | None = None


@dataclass(frozen=True)
class ChooseTarget(Command):
    """Answer an effect's choice: Laser Gun target, Teleporter destination, Switch pair,
    Control Panel space, or the face-up spaces a Poacher takes instead of drawing."""

    type: ClassVar[str] = "choose_target"
    spaces: tuple[str, ...]


@dataclass(frozen=True)
class ReportPositions(Command):
    """The new corners of cards moved by a Switch or Control Panel, once they lie still."""

    type: ClassVar[str] = "report_positions"
    positions: tuple[tuple[str, Corners], ...]


@dataclass(frozen=True)
class ReportIdentity(Command):
    """Physical deck: the name of a card just turned up (camera recognizer or a player).
    `space` is the flipped card, or None for a card Ms. Fyre played from her hand."""

    type: ClassVar[str] = "report_identity"
    name: str
    space: str | None = None


@dataclass(frozen=True)
class ConfirmMeasurement(Command):
    """A jump the camera could not call, measured with a real card: legal or not."""

    type: ClassVar[str] = "confirm_measurement"
    legal: bool


@dataclass(frozen=True)
class SendMinion(Command):
    """Z-Mask: his minion flips face-down card `to` that he could move to."""

    type: ClassVar[str] = "send_minion"
    to: str


@dataclass(frozen=True)
class PlayCard(Command):
    """Ms. Fyre: play a card from hand instead of moving (`card` number in the digital deck)."""

    type: ClassVar[str] = "play_card"
    card: int | None = None


@dataclass(frozen=True)
class Peek(Command):
    """Mysterious M, at the end of his turn: look at face-down card `space`."""

    type: ClassVar[str] = "peek"
    space: str


COMMAND_TYPES: dict[str, type[Command]] = {
    c.type: c
    for c in (
        Move,
        SkipStep,
        PlaceCard,
        Draw,
        ChooseTarget,
        ReportPositions,
        ReportIdentity,
        ConfirmMeasurement,
        SendMinion,
        PlayCard,
        Peek,
    )
}


def _corners(value: Any, what: str) -> Corners:
    if not isinstance(value, (list, tuple)) or len(value) != 4:
        raise CommandFormatError(f"{what} must be 4 corners [[x, y], ...] in table mm")
    out = []
    for p in value:
        if (
            not isinstance(p, (list, tuple))
            or len(p) != 2
            or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in p
            )
        ):
            raise CommandFormatError(f"{what} must be 4 corners [[x, y], ...] of finite numbers, got {p!r}")
        out.append((float(p[0]), float(p[1])))
    return tuple(out)


def _field(ctype: type[Command], name: str, value: Any) -> Any:
    what = f"{ctype.type}.{name}"
    if name in ("player", "to", "space", "name"):
        if value is None and name == "space":
            return None
        if not isinstance(value, str) or not value:
            raise CommandFormatError(f"{what} must be a non-empty string, not {value!r}")
        return value
    if name in ("flip", "legal"):
        if not isinstance(value, bool):
            raise CommandFormatError(f"{what} must be true or false, not {value!r}")
        return value
    if name == "card":
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise CommandFormatError(f"{what} must be a card number, not {value!r}")
        return value
    if name == "sigma_mm":
        if (
            not isinstance(value, (int, float))
            or isinstance(value, bool)
            or not math.isfinite(value)
            or value < 0
        ):
            raise CommandFormatError(f"{what} must be a number >= 0, not {value!r}")
        return float(value)
    if name == "corners":
        return _corners(value, what)
    if name == "spaces":
        if not isinstance(value, (list, tuple)) or not all(isinstance(s, str) and s for s in value):
            raise CommandFormatError(f"{what} must be a list of space ids, not {value!r}")
        return tuple(value)
    if name == "positions":
        if not isinstance(value, dict) or not value:
            raise CommandFormatError(f"{what} must be an object {{space id: 4 corners}}")
        return tuple((str(k), _corners(v, f"{what}[{k}]")) for k, v in sorted(value.items()))
    raise CommandFormatError(f"{what}: unknown field")  # pragma: no cover - fields are fixed above


def command_from_dict(data: Any) -> Command:
    """Rebuild a command from its JSON form; raise CommandFormatError saying what is wrong."""
    if not isinstance(data, dict):
        raise CommandFormatError("a command must be a JSON object with a 'type' and a 'player'")
    ctype = COMMAND_TYPES.get(data.get("type"))  # type: ignore[arg-type]
    if ctype is None:
        raise CommandFormatError(
            f"unknown command type {data.get('type')!r}; use one of {', '.join(sorted(COMMAND_TYPES))}"
        )
    spec = {f.name: f for f in fields(ctype)}
    unknown = set(data) - set(spec) - {"type", "id", "v"}
    if unknown:
        raise CommandFormatError(f"{ctype.type} has no field(s) {', '.join(sorted(unknown))}")
    kwargs = {}
    for name, f in spec.items():
        if name in data:
            kwargs[name] = _field(ctype, name, data[name])
        elif f.default is MISSING and f.default_factory is MISSING:
            raise CommandFormatError(f"{ctype.type} needs the field '{name}'")
    return ctype(**kwargs)
