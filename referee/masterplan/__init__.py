"""Master Plan: the pure rules engine (docs/rules-masterplan.md).

game, events = MasterPlanGame.setup(config, seed)
events = game.apply(Move("alice", to="S3"))      # raises RuleViolation, state unchanged
game.public_view(); game.player_view("alice"); game.legal_commands("alice")
same = MasterPlanGame.replay(all_events)
"""

from referee.events import Event, private_events_for, public_event
from referee.masterplan.commands import (
    COMMAND_TYPES,
    ChooseTarget,
    Command,
    CommandFormatError,
    ConfirmMeasurement,
    Draw,
    Move,
    Peek,
    PlaceCard,
    PlayCard,
    ReportIdentity,
    ReportPositions,
    SendMinion,
    SkipStep,
    command_from_dict,
)
from referee.masterplan.config import (
    DECK_MODES,
    REPORTERS,
    TROPHY,
    VILLAINS,
    ConfigError,
    MasterPlanConfig,
    Seat,
    default_layout,
    start_id,
)
from referee.masterplan.deck import (
    PRIMITIVES,
    DeckError,
    SpaceCard,
    SpaceDeck,
    deck_from_dict,
    default_deck,
    load_deck,
)
from referee.masterplan.errors import ReplayMismatch, RuleViolation
from referee.masterplan.game import MasterPlanGame

__all__ = [
    "COMMAND_TYPES",
    "DECK_MODES",
    "PRIMITIVES",
    "REPORTERS",
    "TROPHY",
    "VILLAINS",
    "ChooseTarget",
    "Command",
    "CommandFormatError",
    "ConfigError",
    "ConfirmMeasurement",
    "DeckError",
    "Draw",
    "Event",
    "MasterPlanConfig",
    "MasterPlanGame",
    "Move",
    "Peek",
    "PlaceCard",
    "PlayCard",
    "ReplayMismatch",
    "ReportIdentity",
    "ReportPositions",
    "RuleViolation",
    "Seat",
    "SendMinion",
    "SkipStep",
    "SpaceCard",
    "SpaceDeck",
    "command_from_dict",
    "deck_from_dict",
    "default_deck",
    "default_layout",
    "load_deck",
    "private_events_for",
    "public_event",
    "start_id",
]
