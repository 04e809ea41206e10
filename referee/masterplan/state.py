"""The state of a Master Plan game and the small queries every part of the engine shares."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from geometry import CardOutline, Reach, ReachGraph, Verdict
from referee.events import Event
from referee.masterplan.config import ConfigError, MasterPlanConfig
from referee.masterplan.errors import RuleViolation
from referee.masterplan.steps import ADD, MOVE
from referee.masterplan.tasks import Task
from referee.masterplan.waits import ExtraMove, Wait

Z_MASK, BADMAHN, MYSTERIOUS_M = "Z-Mask", "Dr. Badmahn", "Mysterious M"
MS_FYRE, POACHER, NASH = "Ms. Fyre", "Plutonian Poacher", "Monster Nash"
RULES_VERSION = 2  # bump when a rule change would make old event logs replay differently
# A placed card may differ this much (relative) from the nominal card size: camera noise and
# sleeves, but not a coaster or a card lying on its edge.
CARD_SIZE_TOLERANCE = 0.25
# How each close-call policy rules a jump too close to call (docs/rules-masterplan.md, "Too close
# to call"): measured by hand, allowed, or counted as out of reach.
CLOSE_CALL_RULINGS = {"ask": "ask", "lenient": "legal", "strict": "too_close_to_call"}


@dataclass
class Space:
    """A card on the table: a starting card, the Trophy, or a Space card."""

    id: str
    kind: str  # "start" | "trophy" | "space"
    face_up: bool
    card: int | None = None  # digital deck: the card number (secret while face-down)
    name: str | None = None  # the card's name once the referee knows it
    owner: str | None = None  # starting cards: whose
    placed_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class PlayerState:
    name: str
    villain: str
    start: str
    position: str | None
    hand: list[int | None] = field(default_factory=list)  # card numbers, or None in a physical deck
    eliminated: bool = False
    turns_taken: int = 0
    peeks: dict[str, str] = field(default_factory=dict)  # Mysterious M: space -> name

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "hand": list(self.hand), "peeks": dict(self.peeks)}


@dataclass
class Turn:
    """What the current turn has used so far; public (as `turn_state`) save `ends`."""

    normal_move_used: bool = False
    free_move_used: bool = False
    free_move_offered: bool = False  # a normal move onto a face-up card earns one free move
    last_move_face_up: bool = False
    minion_used: bool = False
    card_played: bool = False  # Ms. Fyre played a card instead of moving
    placed: int = 0  # cards placed in this Add step (Dr. Badmahn's 3rd earns a card)
    bonus_drawn: bool = False
    ends: bool = False  # the turn is over once the effects already set off have resolved

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def corners_list(outline: CardOutline) -> list[list[float]]:
    return [list(p) for p in outline.corners_mm]


class GameState:
    """Everything a game holds. The engine (game.py) changes it, effects.py resolves card
    effects on it and views.py reads it."""

    def __init__(self, config: MasterPlanConfig, seed: int) -> None:
        if not isinstance(seed, int) or isinstance(seed, bool):
            raise ConfigError(f"the seed must be a whole number, not {seed!r}")
        self.config = config
        self.seed = seed
        self.settings = config.settings
        self.digital = config.deck_mode == "digital"
        self.powers = config.villain_powers
        self.rng = random.Random(seed)
        self.card_names: list[str] = config.deck.expand()
        self.deck_size = len(self.card_names)
        self.graph = ReachGraph(settings=self.settings)
        self.spaces: dict[str, Space] = {}
        self.used_ids: set[str] = set()
        self.next_space_no = 1
        self.players: dict[str, PlayerState] = {}
        self.order: list[str] = []
        self.deck: list[int | None] = []  # top of the deck is the end of the list
        self.discard: list[int | None] = []
        self.deck_ran_out = False
        self.sudden_death = False
        self.current = ""
        self.step = ADD
        self.turn = Turn()
        self.turn_number = 0
        self.tasks: list[Task] = []
        self.waiting: Wait | None = None
        self.winner: str | None = None
        self.game_over = False
        self.game_over_reason: str | None = None
        self._out: list[Event] = []

    def public_waiting(self) -> dict[str, Any] | None:
        return None if self.waiting is None else self.waiting.public()

    def _awaited(self) -> str:
        """The player the game waits for: the one a waiting choice names (he answers it even on
        another player's turn, e.g. a Poacher choosing his fall's draw), else the current one."""
        if self.waiting is not None and self.waiting.is_choice:
            return self.waiting.player
        return self.current

    def card_count(self) -> int:
        """Space cards in deck + discard + hands + on the table (always the deck size)."""
        on_table = sum(1 for s in self.spaces.values() if s.kind == "space")
        return len(self.deck) + len(self.discard) + sum(len(p.hand) for p in self.players.values()) + on_table

    def _move_kind_now(self, player: str) -> str | None:
        if self.game_over or player != self.current:
            return None
        if self.waiting is not None:
            return "extra" if isinstance(self.waiting, ExtraMove) else None
        if self.step != MOVE:
            return None
        if self.turn.free_move_offered:
            return "free"
        return None if self.turn.normal_move_used else "normal"

    def _before_move(self) -> bool:
        """In the Move step, before the move (Z-Mask's minion and Ms. Fyre's play come then)."""
        return self.step == MOVE and not self.turn.normal_move_used and not self.turn.free_move_offered

    def _jump_ruling(self, r: Reach) -> str:
        """How this table rules a jump (a pawn's, the minion's, a Bomb's blast): "legal", "ask"
        (a close call the players measure by hand), "out_of_reach" or "too_close_to_call"."""
        if r.verdict is Verdict.LEGAL:
            return "legal"
        if r.verdict is Verdict.ILLEGAL:
            return "out_of_reach"
        return CLOSE_CALL_RULINGS[self.settings.close_call_policy]

    def _jump_refusal(self, to: str, r: Reach) -> RuleViolation | None:
        """Why the rules refuse a jump onto `to` (None: allowed, perhaps after a measurement)."""
        ruling = self._jump_ruling(r)
        reach = self.settings.reach_mm
        if ruling == "out_of_reach":
            return RuleViolation(
                "out_of_reach", f"Card {to} is {r.gap_mm:.1f} mm away; a jump must be under {reach:.1f} mm"
            )
        if ruling == "too_close_to_call":
            return RuleViolation(
                "too_close_to_call",
                f"Card {to} is {r.gap_mm:.1f} mm (+/- {r.sigma_gap_mm:.1f}) away, too close to {reach:.1f} mm to call;"
                " this table counts close calls as out of reach",
            )
        return None

    def _move_refusal(self, p: PlayerState, kind: str, to: str, flip: bool) -> RuleViolation | None:
        """Why the rules refuse moving `p`'s pawn onto card `to` by a move of `kind` (normal, free,
        extra), reach aside (`_jump_refusal`); None when they allow it."""
        dest = self.spaces[to]
        if to == p.position:
            return RuleViolation("same_card", f"Your pawn is already on card {to}")
        if kind == "free" and dest.kind == "trophy":
            return RuleViolation("free_move_into_trophy", "A free move can never enter the Trophy")
        if flip:
            return None
        if not (self.powers and p.villain == NASH):
            return RuleViolation(
                "no_such_power", "Only Monster Nash (with villain powers) may move without flipping"
            )
        if dest.face_up:
            return RuleViolation(
                "already_face_up", f"Card {to} is face-up; there is nothing to leave unflipped"
            )
        if p.position is None or not self.spaces[p.position].face_up:
            return RuleViolation(
                "must_flip",
                "Monster Nash stands on a face-down space, so this move must flip its destination",
            )
        return None

    def _power_refusal(self, p: PlayerState, villain: str) -> RuleViolation | None:
        """Why `p` may not use `villain`'s power (None: he is that villain, and powers are on)."""
        if not self.powers or p.villain != villain:
            return RuleViolation(
                "no_such_power", f"Only {villain}, in a game with villain powers, can do that"
            )
        return None

    def _minion_refusal(self, p: PlayerState, to: str) -> RuleViolation | None:
        """Why Z-Mask's minion may not go to card `to` this turn, once his power and the moment
        (before his move) allow it; None when it may (perhaps after a measurement)."""
        if self.turn.minion_used:
            return RuleViolation("power_used", "Z-Mask's minion goes out once per turn")
        dest = self.spaces.get(to)
        if dest is None:
            return RuleViolation("no_such_card", f"There is no card {to} on the table")
        if dest.face_up:
            return RuleViolation("already_face_up", f"The minion only flips face-down cards; {to} is face-up")
        assert p.position is not None
        return self._jump_refusal(to, self.graph.reach(p.position, to))

    def possible_names(self) -> list[str]:
        up: dict[str, int] = {}
        for s in self.spaces.values():
            if s.kind == "space" and s.face_up and s.name:
                up[s.name] = up.get(s.name, 0) + 1
        return [c.name for c in self.config.deck.cards if up.get(c.name, 0) < c.count]

    def _face_down_spaces(self) -> list[str]:
        return [s.id for s in self.spaces.values() if s.kind == "space" and not s.face_up]

    def _table_draw_refusal(self, s: Space) -> RuleViolation | None:
        """Why a draw may not take card `s` from the table (None: it may, if the drawer may take
        from the table at all: `_may_take_from_table`)."""
        if s.kind != "space":
            return RuleViolation("not_a_space_card", "Starting cards and the Trophy are never drawn")
        if not s.face_up:
            return RuleViolation("face_down", f"Card {s.id} is face-down; only face-up spaces can be taken")
        if any(p.position == s.id for p in self.players.values()):
            return RuleViolation("occupied", f"A pawn stands on {s.id}; only unoccupied spaces can be taken")
        return None

    def _table_draw_options(self) -> list[str]:
        return [s.id for s in self.spaces.values() if self._table_draw_refusal(s) is None]

    def _may_take_from_table(self, p: PlayerState) -> bool:
        """Whether a draw of `p` may take face-up, unoccupied Space cards from the table instead:
        the Plutonian Poacher "when he would draw" (any draw, his fall's included), and anyone
        once deck and discard are both empty (docs/rules-masterplan.md, "Draw")."""
        return (self.powers and p.villain == POACHER) or (not self.deck and not self.discard)

    def _destructible(self, exclude_nash: bool = False) -> list[str]:
        nash = (
            {p.position for p in self.players.values() if self.powers and p.villain == NASH}
            if exclude_nash
            else set()
        )
        return [s.id for s in self.spaces.values() if s.kind == "space" and s.id not in nash]

    def _emit(
        self, type_: str, public: dict[str, Any], private: dict[str, dict[str, Any]] | None = None,
        secret: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self._out.append(Event(type_, public, private or {}, secret or {}))

    def _from_current(self) -> list[str]:
        i = self.order.index(self.current) if self.current in self.order else 0
        return self.order[i:] + self.order[:i]
