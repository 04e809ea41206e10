"""The Plan (museum heist) rules engine: pure, deterministic, replayable from its events.

game, events = ThePlanGame.setup({"seats": ["ann", "bob", "cat"]}, seed=7)
events = game.apply(CommitPlan("ann", game.player_view("ann")["you"]["hand"][0]))
ThePlanGame.replay(game.events).state.to_dict() == game.state.to_dict()
"""

from referee.events import private_events_for, public_event
from referee.theplan.commands import (
    COMMAND_TYPES,
    STEWARD,
    Bid,
    ChooseColour,
    ChooseContestOrder,
    ClaimTrinket,
    Command,
    CommitPlan,
    PassPlans,
    ReportPlan,
    ReportReveal,
    WithdrawPlan,
    command_from_dict,
)
from referee.theplan.components import (
    Components,
    ComponentsError,
    default_components,
    load_components,
    parse_components,
)
from referee.theplan.config import GameConfig
from referee.theplan.errors import MalformedCommand, RuleViolation
from referee.theplan.game import ThePlanGame, replay, setup
from referee.theplan.state import EVENT_TYPES, State

__all__ = [
    "COMMAND_TYPES",
    "EVENT_TYPES",
    "STEWARD",
    "Bid",
    "ChooseColour",
    "ChooseContestOrder",
    "ClaimTrinket",
    "Command",
    "CommitPlan",
    "Components",
    "ComponentsError",
    "GameConfig",
    "MalformedCommand",
    "PassPlans",
    "ReportPlan",
    "ReportReveal",
    "RuleViolation",
    "State",
    "ThePlanGame",
    "WithdrawPlan",
    "command_from_dict",
    "default_components",
    "load_components",
    "parse_components",
    "private_events_for",
    "public_event",
    "replay",
    "setup",
]
