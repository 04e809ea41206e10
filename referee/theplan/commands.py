"""Commands a seat (or, in physical mode, the steward) sends to The Plan referee.

Each is a frozen dataclass with `player` and a JSON form with a snake_case "type" key:
`command_from_dict(cmd.to_dict()) == cmd`.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from typing import Any, ClassVar

from referee.theplan.errors import MalformedCommand

STEWARD = "steward"  # who reports what happens on a physical table (a person or the camera)


@dataclass(frozen=True)
class Command:
    type: ClassVar[str] = ""
    player: str

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):
            value = getattr(self, f.name)
            out[f.name] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(frozen=True)
class CommitPlan(Command):
    """Place one Plan from your hand face down (again to change it, until the reveal)."""

    type: ClassVar[str] = "commit_plan"
    plan: str


@dataclass(frozen=True)
class WithdrawPlan(Command):
    """Take your face-down Plan back into your hand before the reveal."""

    type: ClassVar[str] = "withdraw_plan"


@dataclass(frozen=True)
class ChooseColour(Command):
    """A successful Smash & Grab names the colour (treasure kind id) it takes."""

    type: ClassVar[str] = "choose_colour"
    colour: str


@dataclass(frozen=True)
class ClaimTrinket(Command):
    """Take a trinket: a face-up one by id, or blind from the pile (`blind=True`).

    In physical mode a blind draw also says which trinket came off the pile (`trinket`)."""

    type: ClassVar[str] = "claim_trinket"
    trinket: str | None = None
    blind: bool = False


@dataclass(frozen=True)
class PassPlans(Command):
    """Choose the 2 Plans you pass on (left in odd rounds, right in even rounds)."""

    type: ClassVar[str] = "pass_plans"
    plans: tuple[str, ...]


@dataclass(frozen=True)
class Bid(Command):
    """Bribes variant: the trinkets you secretly offer for the contested treasures (may be none)."""

    type: ClassVar[str] = "bid"
    trinkets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChooseContestOrder(Command):
    """Bribes variant: the tied player with the fewest treasures names the colour bid on next."""

    type: ClassVar[str] = "choose_contest_order"
    colour: str


@dataclass(frozen=True)
class ReportReveal(Command):
    """Physical mode: the treasures and trinkets just turned over (sent by the steward)."""

    type: ClassVar[str] = "report_reveal"
    treasures: tuple[str, ...]
    trinkets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ReportPlan(Command):
    """Physical mode: the Plan a seat revealed (sent by the steward)."""

    type: ClassVar[str] = "report_plan"
    seat: str
    plan: str


COMMAND_TYPES: dict[str, type[Command]] = {
    c.type: c
    for c in (
        CommitPlan,
        WithdrawPlan,
        ChooseColour,
        ClaimTrinket,
        PassPlans,
        Bid,
        ChooseContestOrder,
        ReportReveal,
        ReportPlan,
    )
}

# Field kinds for decoding: the dataclass annotations are strings under `from __future__`.
_KIND = {"str": str, "str | None": (str, type(None)), "bool": bool, "tuple[str, ...]": tuple}


def command_from_dict(d: Any) -> Command:
    """Decode a command's JSON form; raises MalformedCommand saying what is wrong."""
    if not isinstance(d, dict):
        raise MalformedCommand("malformed_command", "a command must be a JSON object")
    kind = d.get("type")
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise MalformedCommand(
            "unknown_command", f"unknown command type {kind!r}; expected one of: {', '.join(COMMAND_TYPES)}"
        )
    known = {f.name: f for f in fields(cls)}
    extra = sorted(set(d) - set(known) - {"type"})
    if extra:
        raise MalformedCommand("malformed_command", f"{kind}: unexpected field(s) {', '.join(extra)}")
    args: dict[str, Any] = {}
    for name, f in known.items():
        if name not in d:
            if f.default is not MISSING:  # optional field
                continue
            raise MalformedCommand("malformed_command", f"{kind}: missing field {name!r}")
        value = d[name]
        want = _KIND[str(f.type)]
        if want is tuple:
            if not isinstance(value, (list, tuple)) or not all(isinstance(x, str) for x in value):
                raise MalformedCommand("malformed_command", f"{kind}: {name!r} must be a list of ids")
            value = tuple(value)
        elif want is bool:
            if not isinstance(value, bool):
                raise MalformedCommand("malformed_command", f"{kind}: {name!r} must be true or false")
        elif not isinstance(value, want):
            raise MalformedCommand("malformed_command", f"{kind}: {name!r} must be text")
        args[name] = value
    return cls(**args)
