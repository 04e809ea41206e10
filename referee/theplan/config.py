"""Game configuration: seats, Ghosts, mode and variants, validated against the components."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from referee.theplan.commands import STEWARD
from referee.theplan.components import SMASH_AND_GRAB, Components
from referee.theplan.errors import RuleViolation

MODES = ("digital", "physical")
DEFAULT_REMOVED = (SMASH_AND_GRAB, "team_of_four")  # the rulebook's recommendation for 2 players
HAND_SIZE = 6
SOLITAIRE_HAND_SIZE = 2


@dataclass(frozen=True)
class GameConfig:
    """`seats` are the human players in clockwise order (left = next seat). `ghosts` only for solitaire.

    `removed_plan_types`: None means the default (none for 3-6 players; Smash & Grab and Team of
    Four for head-to-head and solitaire)."""

    seats: tuple[str, ...]
    ghosts: tuple[str, ...] = ()
    mode: str = "digital"
    bribes: bool = False
    removed_plan_types: tuple[str, ...] | None = None

    @property
    def variant(self) -> str:
        if self.ghosts:
            return "solitaire"
        return "head_to_head" if len(self.seats) == 2 else "standard"

    @property
    def players(self) -> tuple[str, ...]:
        """Everyone who plays a Plan and collects: the seats, then the Ghosts."""
        return self.seats + self.ghosts

    @property
    def hand_size(self) -> int:
        return SOLITAIRE_HAND_SIZE if self.ghosts else HAND_SIZE

    def to_dict(self) -> dict:
        return {
            "seats": list(self.seats),
            "ghosts": list(self.ghosts),
            "mode": self.mode,
            "bribes": self.bribes,
            "removed_plan_types": None if self.removed_plan_types is None else list(self.removed_plan_types),
        }

    @classmethod
    def from_dict(cls, d: Any) -> GameConfig:
        if isinstance(d, GameConfig):
            return d
        if not isinstance(d, dict):
            raise RuleViolation("bad_setup", "the game setup must be an object with at least 'seats'")
        unknown = sorted(set(d) - {"seats", "ghosts", "mode", "bribes", "removed_plan_types"})
        if unknown:
            raise RuleViolation("bad_setup", f"unknown setup option(s): {', '.join(unknown)}")

        def names(key: str) -> tuple[str, ...]:
            value = d.get(key, [])
            if not isinstance(value, (list, tuple)) or not all(isinstance(x, str) for x in value):
                raise RuleViolation("bad_setup", f"{key!r} must be a list of names")
            return tuple(value)

        removed = d.get("removed_plan_types")
        bribes = d.get("bribes", False)
        if not isinstance(bribes, bool):
            raise RuleViolation("bad_setup", "'bribes' must be true or false")
        return cls(
            seats=names("seats"),
            ghosts=names("ghosts"),
            mode=d.get("mode", "digital"),
            bribes=bribes,
            removed_plan_types=None if removed is None else names("removed_plan_types"),
        )


def resolve_config(config: GameConfig | dict, components: Components) -> GameConfig:
    """Check the setup and fill in the default removed Plan types; raises RuleViolation('bad_setup')."""
    c = GameConfig.from_dict(config)

    def bad(message: str) -> RuleViolation:
        return RuleViolation("bad_setup", message)

    if c.mode not in MODES:
        raise bad(f"mode must be 'digital' or 'physical', not {c.mode!r}")
    names = c.players
    if any(not n or n == STEWARD for n in names):
        raise bad(f"every seat needs a name, and {STEWARD!r} is reserved for whoever reports the table")
    if len(set(names)) != len(names):
        raise bad("two seats share a name")
    if c.ghosts:
        if len(c.seats) != 1:
            raise bad("Ghosts are for solitaire: one seat plus one or more Ghosts")
        if len(names) > 6:
            raise bad("solitaire takes at most 5 Ghosts")
    elif not 2 <= len(c.seats) <= 6:
        raise bad("The Plan is for 3 to 6 players (2 for head-to-head, 1 with Ghosts for solitaire)")
    type_ids = [t.id for t in components.plan_types]
    removed = c.removed_plan_types
    if c.variant == "standard":
        if removed:
            raise bad("only head-to-head and solitaire remove Plan types")
        removed = ()
    else:
        removed = DEFAULT_REMOVED if removed is None else removed
        if len(set(removed)) != 2 or any(r not in type_ids for r in removed):
            raise bad(
                f"{c.variant.replace('_', '-')} removes exactly two Plan types, from: {', '.join(type_ids)}"
            )
        removed = tuple(t for t in type_ids if t in removed)  # one canonical order
    in_play = sum(1 for p in components.plans.values() if p.type not in removed)
    if in_play < c.hand_size * len(names):
        raise bad(f"{in_play} Plans are too few to deal {c.hand_size} to each of {len(names)} players")
    return GameConfig(c.seats, c.ghosts, c.mode, c.bribes, removed)
