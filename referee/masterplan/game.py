"""The Master Plan rules engine: state + command -> events (RULINGS.md, Master Plan part).

Pure: no I/O, no clock, no global random. Every random choice (seat order of the default
layout, shuffles of the digital deck) comes from `random.Random(seed)` held in the state, and the
seed is in the secret part of the first event, so `MasterPlanGame.replay(events)` rebuilds the
same game byte for byte.

How a command is handled: its `_cmd_*` method first validates everything (raising RuleViolation
and changing nothing), then returns the change as a closure. The change may queue *tasks* (a
flipped card's effect steps, the rest of a move); `_run` works through them until the game needs
input again (`waiting`: a choice, a report from the table, a measurement) or the queue is empty.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from geometry import CardOutline, Reach, ReachGraph, Verdict, measure_reaches, overlaps
from referee.masterplan.commands import (
    ChooseTarget,
    Command,
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
    REPORTERS,
    TROPHY,
    ConfigError,
    MasterPlanConfig,
    layout_from_config,
    start_id,
)
from referee.masterplan.errors import ReplayMismatch, RuleViolation
from referee.masterplan.events import Event, as_event

Z_MASK, BADMAHN, MYSTERIOUS_M = "Z-Mask", "Dr. Badmahn", "Mysterious M"
MS_FYRE, POACHER, NASH = "Ms. Fyre", "Plutonian Poacher", "Monster Nash"
STEPS = ("move", "add", "draw", "peek")
RULES_VERSION = 1  # bump when a rule change would make old event logs replay differently
# A placed card may differ this much (relative) from the nominal card size: camera noise and
# sleeves, but not a coaster or a card lying on its edge.
CARD_SIZE_TOLERANCE = 0.25
# Keys of `waiting` that anyone may see; keys starting with "_" hold the referee's continuation.
PUBLIC_WAITING_KEYS = (
    "for", "player", "effect", "options", "count", "optional", "spaces", "space",
    "from", "to", "gap_mm", "sigma_gap_mm", "card_name",
)  # fmt: skip


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


def _fresh_turn() -> dict[str, Any]:
    return {
        "normal_move_used": False,
        "free_move_used": False,
        "free_move_offered": False,
        "last_move_face_up": False,
        "minion_used": False,
        "card_played": False,
        "placed": 0,
        "bonus_drawn": False,
        "ends": False,
    }


def _corners_list(outline: CardOutline) -> list[list[float]]:
    return [list(p) for p in outline.corners_mm]


def _canonical(events: Iterable[Event]) -> list[str]:
    return [json.dumps(e.to_dict(), sort_keys=True) for e in events]


class MasterPlanGame:
    """One game of Master Plan. Create with `setup`; change only with `apply`."""

    # ---- creation -----------------------------------------------------------------------------
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
        self.step = "add"
        self.turn: dict[str, Any] = _fresh_turn()
        self.turn_number = 0
        self.tasks: list[dict[str, Any]] = []
        self.waiting: dict[str, Any] | None = None
        self.winner: str | None = None
        self.game_over = False
        self.game_over_reason: str | None = None
        self._out: list[Event] = []

    @classmethod
    def setup(
        cls, config: MasterPlanConfig | dict[str, Any], seed: int
    ) -> tuple[MasterPlanGame, list[Event]]:
        """A new game: lay out the starting cards and Trophy, shuffle (digital deck), deal 4 each,
        and start the first turn (rightmost starting card first). Returns the game and its events."""
        if isinstance(config, dict):
            config = MasterPlanConfig.from_dict(config)
        game = cls(config, seed)
        starts, trophy = layout_from_config(config, game.rng)
        # RULINGS: rightmost starting card (largest x) first, then leftward.
        game.order = sorted(starts, key=lambda p: -starts[p].center_mm[0])
        for p in game.order:
            game._add_space(Space(start_id(p), "start", True, owner=p), starts[p])
            game.players[p] = PlayerState(p, config.villain(p), start_id(p), start_id(p))
        game._add_space(Space(TROPHY, "trophy", True), trophy)
        if game.digital:
            game.deck = list(range(game.deck_size))
            game.rng.shuffle(game.deck)
        else:
            game.deck = [None] * game.deck_size
        game._emit(
            "game_set_up",
            {
                "rules_version": RULES_VERSION,
                "config": config.to_dict(),
                "turn_order": list(game.order),
                "table": [{"space": s, "corners": _corners_list(game.graph.card(s))} for s in game.spaces],
                "deck_size": game.deck_size,
            },
            secret={"seed": seed},
        )
        for p in game.order:
            game._draw_cards(game.players[p], 4)
        game.current = game.order[0]
        game.turn_number = 1
        game.step = "add"  # the first complete round has no Move step
        game._emit("turn_started", {"player": game.current, "step": game.step, "turn": game.turn_number})
        events, game._out = game._out, []
        return game, events

    @classmethod
    def replay(cls, events: Iterable[Event | dict[str, Any]]) -> MasterPlanGame:
        """Rebuild a game from its full event log (with private and secret parts), checking that
        every logged event is reproduced exactly; raise ReplayMismatch otherwise."""
        log = [as_event(e) for e in events]
        if not log or log[0].type != "game_set_up" or "seed" not in log[0].secret:
            raise ReplayMismatch("an event log starts with game_set_up carrying its secret seed")
        game, first = cls.setup(MasterPlanConfig.from_dict(log[0].public["config"]), log[0].secret["seed"])
        i = len(first)
        if _canonical(first) != _canonical(log[:i]):
            raise ReplayMismatch("the setup events differ from the log (other deck, rules or seed)")
        while i < len(log):
            e = log[i]
            if e.type != "command_accepted":
                raise ReplayMismatch(f"event {i} ({e.type}) is not explained by a command")
            data = dict(e.public["command"])
            data.update(e.private.get(data["player"], {}).get("command", {}))
            try:
                produced = game.apply(command_from_dict(data))
            except (RuleViolation, ValueError) as exc:
                raise ReplayMismatch(f"event {i}: the logged command is refused now: {exc}") from None
            if _canonical(produced) != _canonical(log[i : i + len(produced)]):
                raise ReplayMismatch(f"events from {i} differ from the log")
            i += len(produced)
        return game

    # ---- the public API -----------------------------------------------------------------------
    def apply(self, command: Command) -> list[Event]:
        """Carry out `command` and return the events it caused. An illegal command raises
        RuleViolation and leaves the game exactly as it was."""
        if not isinstance(command, Command):
            raise TypeError("apply() takes a Command; use command_from_dict() for JSON")
        if self.game_over:
            who = f"{self.winner} won" if self.winner else "nobody won"
            raise RuleViolation("game_over", f"The game is over ({who}); no more commands")
        handler: Callable[[Any], Callable[[], None]] = getattr(self, f"_cmd_{command.type}")
        change = handler(command)
        self._out = []
        self._emit_command(command)
        change()
        self._run()
        events, self._out = self._out, []
        return events

    def to_act(self) -> str | None:
        """The one player the game waits for (None once it is over). Reports from the table
        (identities, positions, measurements) may also come from another player or the camera."""
        return None if self.game_over else self.current

    @property
    def active_players(self) -> list[str]:
        return [p for p in self.order if not self.players[p].eliminated]

    def hand(self, player: str) -> list[int | None]:
        return list(self._require_seat(player).hand)

    def position(self, player: str) -> str | None:
        return self._require_seat(player).position

    def outline(self, space: str) -> CardOutline:
        return self.graph.card(space)

    def card_name(self, card: int) -> str:
        return self.card_names[card]

    def public_waiting(self) -> dict[str, Any] | None:
        if self.waiting is None:
            return None
        return {k: self.waiting[k] for k in PUBLIC_WAITING_KEYS if k in self.waiting}

    def placement_problem(
        self, corners: Any, sigma_mm: float = 0.0, ignore: Iterable[str] = ()
    ) -> str | None:
        """Why a card could not lie at `corners` (overlap, not a card), or None if it could.
        `ignore` lists cards being moved (Switch / Control Panel)."""
        try:
            self._check_outline("new", corners, sigma_mm, set(ignore))
        except RuleViolation as exc:
            return exc.message
        return None

    def legal_moves(self, player: str) -> list[dict[str, Any]]:
        """Every card within reach (or too close to call) of the player's pawn, with its gap and
        verdict, and whether a move there is allowed now (for displays and agents)."""
        kind = self._move_kind_now(player)
        p = self.players.get(player)
        if kind is None or p is None or p.position is None:
            return []
        out = []
        for to, r in sorted(self.graph.neighbours(p.position).items()):
            dest = self.spaces[to]
            reason = None
            if kind == "free" and dest.kind == "trophy":
                reason = "A free move can never enter the Trophy"
            elif r.verdict is Verdict.TOO_CLOSE_TO_CALL and self.settings.close_call_policy == "strict":
                reason = "too close to call, and close calls count as illegal at this table"
            out.append(
                {
                    "to": to,
                    "kind": kind,
                    "gap_mm": round(r.gap_mm, 3),
                    "sigma_gap_mm": round(r.sigma_gap_mm, 3),
                    "verdict": r.verdict.value,
                    "allowed": reason is None,
                    "needs_measurement": reason is None
                    and r.verdict is Verdict.TOO_CLOSE_TO_CALL
                    and self.settings.close_call_policy == "ask",
                    "flips": not dest.face_up,
                    "wins": dest.kind == "trophy",
                    "reason": reason,
                }
            )
        return out

    def legal_commands(self, player: str) -> list[Command]:
        """The discrete commands `player` may send now. Placements (Add) and the new corners
        after a Control Panel are continuous: check them with `placement_problem`."""
        if self.game_over or player != self.current:
            return []
        p = self.players[player]
        w = self.waiting
        out: list[Command] = []
        if w is not None:
            kind = w["for"]
            if kind == "extra_move":
                out += self._move_commands(player)
                out.append(SkipStep(player))
            elif kind == "choose_target":
                opts, effect = w["options"], w["effect"]
                if effect == "swap_two":
                    out += [ChooseTarget(player, pair) for pair in itertools.combinations(opts, 2)]
                elif effect == "draw":
                    for k in range(1, min(w["count"], len(opts)) + 1):
                        out += [ChooseTarget(player, c) for c in itertools.combinations(opts, k)]
                else:
                    out += [ChooseTarget(player, (o,)) for o in opts]
                if w["optional"]:
                    out.append(SkipStep(player))
            elif kind == "report_positions" and w["effect"] == "swap_two":
                a, b = w["spaces"]
                ca, cb = _corners_list(self.graph.card(a)), _corners_list(self.graph.card(b))
                out.append(ReportPositions(player, ((a, tuple(map(tuple, cb))), (b, tuple(map(tuple, ca))))))
            elif kind == "report_identity":
                for name in self.possible_names():
                    out.append(ReportIdentity(player, name, w["space"]))
            elif kind == "confirm_measurement":
                out += [ConfirmMeasurement(player, True), ConfirmMeasurement(player, False)]
            return out
        if self.step == "move":
            out += self._move_commands(player)
            if self.powers and not self.turn["normal_move_used"] and not self.turn["free_move_offered"]:
                if p.villain == Z_MASK and not self.turn["minion_used"]:
                    for to, r in sorted(self.graph.neighbours(p.position).items()):  # type: ignore[arg-type]
                        if not self.spaces[to].face_up and self._policy_allows(r):
                            out.append(SendMinion(player, to))
                if p.villain == MS_FYRE and p.hand:
                    cards = sorted(set(p.hand)) if self.digital else [None]
                    out += [PlayCard(player, c) for c in cards]  # type: ignore[arg-type]
            out.append(SkipStep(player))
        elif self.step == "add":
            out.append(SkipStep(player))
        elif self.step == "draw":
            out.append(Draw(player))
            if (self.powers and p.villain == POACHER) or (not self.deck and not self.discard):
                out += [Draw(player, s) for s in self._table_draw_options()]
            out.append(SkipStep(player))
        elif self.step == "peek":
            out += [Peek(player, s) for s in self._face_down_spaces()]
            out.append(SkipStep(player))
        return out

    # ---- views ----------------------------------------------------------------------------------
    def public_view(self) -> dict[str, Any]:
        """What anyone may see: no face-down identity, no hand, no deck order, no peek."""
        occupants: dict[str, list[str]] = {}
        for p in self.order:
            pos = self.players[p].position
            if pos is not None:
                occupants.setdefault(pos, []).append(p)
        return {
            "game": "Master Plan",
            "deck_mode": self.config.deck_mode,
            "villain_powers": self.powers,
            "reach_mm": self.settings.reach_mm,
            "close_call_policy": self.settings.close_call_policy,
            "turn": self.turn_number,
            "current": self.current,
            "step": self.step,
            "waiting": self.public_waiting(),
            "turn_state": {k: v for k, v in self.turn.items() if k != "ends"},
            "deck_size": len(self.deck),
            "discard_size": len(self.discard),
            "sudden_death": self.sudden_death,
            "deck_ran_out": self.deck_ran_out,
            "game_over": self.game_over,
            "winner": self.winner,
            "game_over_reason": self.game_over_reason,
            "players": [
                {
                    "name": p,
                    "villain": self.players[p].villain,
                    "start": self.players[p].start,
                    "position": self.players[p].position,
                    "hand_size": len(self.players[p].hand),
                    "eliminated": self.players[p].eliminated,
                    "turns_taken": self.players[p].turns_taken,
                }
                for p in self.order
            ],
            "table": [
                {
                    "space": s.id,
                    "kind": s.kind,
                    "owner": s.owner,
                    "face_up": s.face_up,
                    "name": s.name if s.face_up and s.kind == "space" else None,
                    "corners": _corners_list(self.graph.card(s.id)),
                    "pawns": occupants.get(s.id, []),
                }
                for s in self.spaces.values()
            ],
        }

    def player_view(self, player: str) -> dict[str, Any]:
        """The public view plus what `player` alone knows: their hand, the identity of the
        face-down cards they placed (digital deck) and Mysterious M's peeks."""
        p = self._require_seat(player)
        view = self.public_view()
        known: dict[str, str] = {}
        for s in self.spaces.values():
            if not s.face_up and s.kind == "space":
                if s.id in p.peeks:
                    known[s.id] = p.peeks[s.id]
                elif self.digital and s.placed_by == player and s.card is not None:
                    known[s.id] = self.card_names[s.card]
        view["you"] = player
        view["hand"] = (
            [{"card": c, "name": self.card_names[c]} for c in p.hand if c is not None]
            if self.digital
            else None
        )
        view["known_face_down"] = known
        view["legal_moves"] = self.legal_moves(player)
        return view

    def state_dict(self) -> dict[str, Any]:
        """The complete state, secrets included (tests compare live and replayed games)."""
        return {
            "seed": self.seed,
            "rng": repr(self.rng.getstate()),
            "spaces": {
                k: {**s.to_dict(), "corners": _corners_list(self.graph.card(k))}
                for k, s in self.spaces.items()
            },
            "edges": sorted((str(a), str(b), r.gap_mm) for a, b, r in self.graph.edges()),
            "used_ids": sorted(self.used_ids),
            "next_space_no": self.next_space_no,
            "players": {p: self.players[p].to_dict() for p in self.order},
            "order": list(self.order),
            "deck": list(self.deck),
            "discard": list(self.discard),
            "deck_ran_out": self.deck_ran_out,
            "sudden_death": self.sudden_death,
            "current": self.current,
            "step": self.step,
            "turn": dict(self.turn),
            "turn_number": self.turn_number,
            "tasks": json.loads(json.dumps(self.tasks)),
            "waiting": json.loads(json.dumps(self.waiting)),
            "winner": self.winner,
            "game_over": self.game_over,
            "game_over_reason": self.game_over_reason,
        }

    def card_count(self) -> int:
        """Space cards in deck + discard + hands + on the table (always the deck size)."""
        on_table = sum(1 for s in self.spaces.values() if s.kind == "space")
        return len(self.deck) + len(self.discard) + sum(len(p.hand) for p in self.players.values()) + on_table

    # ---- command handlers: validate, then return the change ------------------------------------
    def _cmd_move(self, cmd: Move) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        kind = self._move_kind_now(cmd.player)
        if kind is None:
            if self.waiting is not None:
                raise self._waiting_error()
            if self.turn["normal_move_used"] or self.turn["card_played"]:
                raise RuleViolation("wrong_step", "You have already moved this turn")
            if self.step == "add" and p.turns_taken == 0:
                raise RuleViolation(
                    "first_round", "Nobody moves during the first complete round; place cards or skip"
                )
            raise RuleViolation(
                "wrong_step", f"You are in the {self.step.capitalize()} step; moves come first"
            )
        here = p.position
        assert here is not None
        dest = self._require_space(cmd.to)
        if cmd.to == here:
            raise RuleViolation("same_card", f"Your pawn is already on card {cmd.to}")
        if kind == "free" and dest.kind == "trophy":
            raise RuleViolation("free_move_into_trophy", "A free move can never enter the Trophy")
        if not cmd.flip:
            if not (self.powers and p.villain == NASH):
                raise RuleViolation(
                    "no_such_power", "Only Monster Nash (with villain powers) may move without flipping"
                )
            if dest.face_up:
                raise RuleViolation(
                    "already_face_up", f"Card {cmd.to} is face-up; there is nothing to leave unflipped"
                )
            if not self.spaces[here].face_up:
                raise RuleViolation(
                    "must_flip",
                    "Monster Nash stands on a face-down space, so this move must flip its destination",
                )
        verdict, r = self._jump(here, cmd.to)
        action = {"action": "move", "kind": kind, "to": cmd.to, "flip": cmd.flip, "player": cmd.player}

        def change() -> None:
            if verdict == "ask":
                self._ask_measurement(here, cmd.to, r, action)
            else:
                self._move_pawn(p, kind, cmd.to, cmd.flip)

        return change

    def _cmd_skip_step(self, cmd: SkipStep) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        w = self.waiting
        if w is not None:
            if w["for"] == "extra_move" or (w["for"] == "choose_target" and w["optional"]):

                def decline() -> None:
                    self.waiting = None
                    self._emit("choice_declined", {"player": p.name, "effect": w.get("effect", "extra_move")})
                    if w.get("effect") == "draw":  # a Poacher who takes nothing from the table draws
                        self._draw_cards(p, w["count"])

                return decline
            raise self._waiting_error()
        step = self.step

        def change() -> None:
            self._emit("step_skipped", {"player": p.name, "step": step})
            if step == "move":
                self.turn["free_move_offered"] = False
                self._enter_step("add")
            elif step == "add":
                self._enter_step("draw")
            elif step == "draw":
                self.turn["ends"] = True
            else:
                self._start_next_turn()

        return change

    def _cmd_place_card(self, cmd: PlaceCard) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        self._require_no_waiting()
        self._require_step("add", "cards are placed in the Add step")
        card = self._require_hand_card(p, cmd.card)
        if cmd.space is not None:
            if cmd.space in self.used_ids:
                raise RuleViolation(
                    "space_id_taken", f"The id {cmd.space} is already used; give the new card another"
                )
            space_id = cmd.space
        else:
            space_id = self._next_free_id()
        outline = self._check_outline(space_id, cmd.corners, cmd.sigma_mm, set())

        def change() -> None:
            p.hand.remove(card)
            self._add_space(Space(space_id, "space", False, card=card, placed_by=p.name), outline)
            if cmd.space is None:
                self.next_space_no += 1
            private = {p.name: {"card": card, "name": self.card_names[card]}} if card is not None else {}
            self._emit(
                "card_placed",
                {
                    "player": p.name,
                    "space": space_id,
                    "corners": _corners_list(outline),
                    "sigma_mm": cmd.sigma_mm,
                },
                private,
            )
            self.turn["placed"] += 1
            if (
                self.powers
                and p.villain == BADMAHN
                and self.turn["placed"] == 3
                and not self.turn["bonus_drawn"]
            ):
                self.turn["bonus_drawn"] = True
                self._emit("power_used", {"player": p.name, "power": "extra_card"})
                # as a draw effect, so an empty deck and discard offer face-up table cards
                self.tasks.insert(
                    0,
                    {
                        "do": "draw",
                        "n": 1,
                        "you": p.name,
                        "space": None,
                        "card_name": "Dr. Badmahn's extra card",
                    },
                )

        return change

    def _cmd_draw(self, cmd: Draw) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        self._require_no_waiting()
        self._require_step("draw", "send skip_step to end the earlier steps first")
        if cmd.space is not None:
            if not ((self.powers and p.villain == POACHER) or (not self.deck and not self.discard)):
                raise RuleViolation(
                    "cannot_draw_from_table",
                    "Only the Plutonian Poacher, or anyone when deck and discard are both empty, takes a card from the table",
                )
            self._check_table_draw(cmd.space)

        def change() -> None:
            if cmd.space is not None:
                self._take_from_table(p, cmd.space)
            else:
                self._draw_cards(p, 1)
            self.turn["ends"] = True

        return change

    def _cmd_choose_target(self, cmd: ChooseTarget) -> Callable[[], None]:
        w = self._require_waiting("choose_target", cmd.player, own=True)
        p = self.players[cmd.player]
        effect, chosen = w["effect"], list(cmd.spaces)
        if len(set(chosen)) != len(chosen):
            raise RuleViolation("same_space_twice", "Choose each space at most once")
        for s in chosen:
            if s not in w["options"]:
                raise RuleViolation(
                    "not_an_option", f"{s} is not one of the choices: {', '.join(w['options'])}"
                )
        want = {"swap_two": 2}.get(effect, 1)
        if effect == "draw":
            if not 1 <= len(chosen) <= w["count"]:
                raise RuleViolation(
                    "wrong_count", f"Choose 1 to {w['count']} face-up spaces, or skip to draw from the deck"
                )
        elif len(chosen) != want:
            raise RuleViolation(
                "wrong_count", f"{w['card_name']} needs exactly {want} space(s), you chose {len(chosen)}"
            )

        def change() -> None:
            self.waiting = None
            self._emit("target_chosen", {"player": p.name, "effect": effect, "spaces": chosen})
            if effect == "destroy_chosen":
                self._destroy(chosen, by=p.name)
            elif effect == "move_to_face_up":
                self._emit(
                    "pawn_moved",
                    {
                        "player": p.name,
                        "from": p.position,
                        "to": chosen[0],
                        "kind": "teleport",
                        "flip": False,
                    },
                )
                p.position = chosen[0]
                self.turn["last_move_face_up"] = False  # a teleport grants no free move
            elif effect in ("swap_two", "relocate_one"):
                self.waiting = {
                    "for": "report_positions", "player": p.name, "effect": effect,
                    "spaces": chosen, "card_name": w["card_name"],
                }  # fmt: skip
                self._emit("positions_needed", {"player": p.name, "effect": effect, "spaces": chosen})
            elif effect == "draw":
                for s in chosen:
                    self._take_from_table(p, s)
                self._draw_cards(p, w["count"] - len(chosen))

        return change

    def _cmd_report_positions(self, cmd: ReportPositions) -> Callable[[], None]:
        w = self._require_waiting("report_positions", cmd.player, own=False)
        reported = [s for s, _ in cmd.positions]
        if sorted(reported) != sorted(w["spaces"]):
            raise RuleViolation(
                "wrong_cards", f"Report the new corners of exactly {' and '.join(w['spaces'])}"
            )
        moving = set(reported)
        outlines = [self._check_outline(s, c, self.graph.card(s).sigma_mm, moving) for s, c in cmd.positions]
        if len(outlines) == 2:
            hit = overlaps(outlines[0], [outlines[1]], self.settings)
            if hit:
                raise RuleViolation("overlap", f"The two cards would overlap each other: {hit[0].explain()}")
            # A Switch swaps places: each card must now lie about where the other one was.
            for new, other in ((outlines[0], outlines[1].id), (outlines[1], outlines[0].id)):
                (x, y), (ox, oy) = new.center_mm, self.graph.card(other).center_mm
                off = math.hypot(x - ox, y - oy)
                if off > self.settings.card_long_mm / 2:
                    raise RuleViolation(
                        "not_swapped",
                        f"{new.id} should now lie where {other} was, but its centre is {off:.0f} mm from there",
                    )

        def change() -> None:
            self.waiting = None
            for o in outlines:
                self.graph.move(o)
            self._emit(
                "spaces_moved",
                {
                    "effect": w["effect"],
                    "reported_by": cmd.player,
                    "positions": {o.id: _corners_list(o) for o in outlines},
                },
            )

        return change

    def _cmd_report_identity(self, cmd: ReportIdentity) -> Callable[[], None]:
        if self.digital:
            raise RuleViolation("digital_deck", "The referee dealt this deck and already knows every card")
        w = self._require_waiting("report_identity", cmd.player, own=False)
        if cmd.space != w["space"]:
            which = w["space"] or "the card Ms. Fyre played"
            raise RuleViolation("wrong_card", f"The referee is waiting for the name of {which}")
        if cmd.name not in self.config.deck.names:
            raise RuleViolation(
                "unknown_card",
                f"There is no Space card called {cmd.name!r}; the deck has {', '.join(self.config.deck.names)}",
            )
        if cmd.name not in self.possible_names():
            raise RuleViolation(
                "too_many",
                f"All {self.config.deck.card(cmd.name).count} {cmd.name} cards are already face up",
            )

        def change() -> None:
            self.waiting = None
            self._emit("identity_reported", {"space": cmd.space, "name": cmd.name, "reported_by": cmd.player})
            then = w["_then"]
            if then == "flip":
                self._reveal(w["space"], cmd.name, w["_you"])
            elif then == "play":
                self._queue_effects(cmd.name, w["_you"], self.players[w["_you"]].position)
            else:  # a destroyed face-down card under Monster Nash
                self._emit("space_revealed", {"space": w["space"], "name": cmd.name})
                self._queue_trap_effects(cmd.name, w["_by"], w["space"], w["_corners"])

        return change

    def _cmd_confirm_measurement(self, cmd: ConfirmMeasurement) -> Callable[[], None]:
        w = self._require_waiting("confirm_measurement", cmd.player, own=False)

        def change() -> None:
            self.waiting = w.get("_restore")
            action = w["_action"]
            self._emit(
                "measurement_confirmed",
                {"from": w["from"], "to": w["to"], "legal": cmd.legal, "reported_by": cmd.player},
            )
            p = self.players[action["player"]]
            if action["action"] == "blast":
                task = action["task"]
                task["decided"][w["to"]] = cmd.legal
                self.tasks.insert(0, task)
            elif not cmd.legal:
                self._emit(
                    "move_refused", {"player": p.name, "to": w["to"], "reason": "measured out of reach"}
                )
            elif action["action"] == "move":
                self._move_pawn(p, action["kind"], action["to"], action["flip"])
            else:
                self._send_minion(p, action["to"])

        return change

    def _cmd_send_minion(self, cmd: SendMinion) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        self._require_power(p, Z_MASK)
        self._require_no_waiting()
        self._require_before_move("send the minion")
        if self.turn["minion_used"]:
            raise RuleViolation("power_used", "Z-Mask's minion goes out once per turn")
        dest = self._require_space(cmd.to)
        if dest.face_up:
            raise RuleViolation(
                "already_face_up", f"The minion only flips face-down cards; {cmd.to} is face-up"
            )
        here = p.position
        assert here is not None
        verdict, r = self._jump(here, cmd.to)

        def change() -> None:
            if verdict == "ask":
                self._ask_measurement(here, cmd.to, r, {"action": "minion", "to": cmd.to, "player": p.name})
            else:
                self._send_minion(p, cmd.to)

        return change

    def _cmd_play_card(self, cmd: PlayCard) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        self._require_power(p, MS_FYRE)
        self._require_no_waiting()
        self._require_before_move("play a card instead of moving")
        card = self._require_hand_card(p, cmd.card)

        def change() -> None:
            self.turn["card_played"] = True
            self.turn["normal_move_used"] = True  # the play replaces her entire move
            p.hand.remove(card)
            self.discard.append(card)  # RULINGS: discarded; its effect is independent of the card
            self.tasks.insert(0, {"do": "after_move", "kind": "play"})
            if card is None:
                self._emit("card_played", {"player": p.name, "name": None})
                self._wait_identity(None, "play", p.name)
            else:
                name = self.card_names[card]
                self._emit("card_played", {"player": p.name, "name": name}, {p.name: {"card": card}})
                self._queue_effects(name, p.name, p.position)

        return change

    def _cmd_peek(self, cmd: Peek) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        self._require_no_waiting()
        self._require_step("peek", "Mysterious M peeks at the end of his turn")
        s = self._require_space(cmd.space)
        if s.kind != "space" or s.face_up:
            raise RuleViolation("not_face_down", f"Card {cmd.space} is not a face-down Space card")

        def change() -> None:
            private = {}
            if s.card is not None:
                name = self.card_names[s.card]
                p.peeks[s.id] = name
                private = {p.name: {"name": name}}
            self._emit("peeked", {"player": p.name, "space": s.id}, private)
            self._start_next_turn()

        return change

    # ---- checks ---------------------------------------------------------------------------------
    def _require_seat(self, player: str) -> PlayerState:
        p = self.players.get(player)
        if p is None:
            raise RuleViolation(
                "unknown_player", f"{player!r} is not playing; the players are {', '.join(self.order)}"
            )
        return p

    def _require_actor(self, player: str) -> PlayerState:
        p = self._require_seat(player)
        if p.eliminated:
            raise RuleViolation("eliminated", f"{player} has been eliminated and takes no more turns")
        if player != self.current:
            raise RuleViolation("not_your_turn", f"It is {self.current}'s turn, not {player}'s")
        return p

    def _require_reporter(self, player: str) -> None:
        if player not in REPORTERS:
            self._require_seat(player)

    def _require_no_waiting(self) -> None:
        if self.waiting is not None:
            raise self._waiting_error()

    def _require_waiting(self, kind: str, player: str, own: bool) -> dict[str, Any]:
        w = self.waiting
        if w is None or w["for"] != kind:
            if w is not None:
                raise self._waiting_error()
            raise RuleViolation("nothing_to_answer", f"Nothing is waiting for {kind.replace('_', ' ')}")
        if own:
            self._require_actor(player)
            if player != w["player"]:
                raise RuleViolation("not_your_choice", f"{w['player']} makes this choice, not {player}")
        else:
            self._require_reporter(player)
        return w

    def _require_step(self, step: str, why: str) -> None:
        if self.step != step:
            raise RuleViolation("wrong_step", f"You are in the {self.step.capitalize()} step; {why}")

    def _require_power(self, p: PlayerState, villain: str) -> None:
        if not self.powers or p.villain != villain:
            raise RuleViolation(
                "no_such_power", f"Only {villain}, in a game with villain powers, can do that"
            )

    def _require_before_move(self, what: str) -> None:
        if self.step != "move":
            raise RuleViolation("wrong_step", f"You can {what} only in your Move step")
        if self.turn["normal_move_used"] or self.turn["free_move_offered"]:
            raise RuleViolation("wrong_step", f"You can {what} only before your move")

    def _require_hand_card(self, p: PlayerState, card: int | None) -> int | None:
        if not p.hand:
            raise RuleViolation("empty_hand", "You have no cards in hand")
        if not self.digital:
            if card is not None:
                raise RuleViolation(
                    "physical_deck", "With real cards the referee has no card numbers; leave 'card' out"
                )
            return None
        if card is None:
            raise RuleViolation("which_card", "Say which card from your hand ('card': its number)")
        if card not in p.hand:
            raise RuleViolation("not_in_hand", f"Card {card} is not in your hand")
        return card

    def _require_space(self, space: str) -> Space:
        s = self.spaces.get(space)
        if s is None:
            raise RuleViolation("no_such_card", f"There is no card {space} on the table")
        return s

    def _waiting_error(self) -> RuleViolation:
        w = self.waiting or {}
        what = {
            "choose_target": f"{w.get('player')} to choose for {w.get('card_name')}",
            "report_positions": f"the new positions of {' and '.join(w.get('spaces', []))}",
            "report_identity": f"the name of the card turned up at {w.get('space') or 'Ms. Fyre'}",
            "confirm_measurement": f"a measurement of the jump from {w.get('from')} to {w.get('to')}",
            "extra_move": f"{w.get('player')}'s extra move (or skip_step)",
        }.get(w.get("for", ""), "an answer")
        return RuleViolation("waiting", f"The game is waiting for {what}")

    def _move_kind_now(self, player: str) -> str | None:
        if self.game_over or player != self.current:
            return None
        if self.waiting is not None:
            return "extra" if self.waiting["for"] == "extra_move" else None
        if self.step != "move":
            return None
        if self.turn["free_move_offered"]:
            return "free"
        return None if self.turn["normal_move_used"] else "normal"

    def _move_commands(self, player: str) -> list[Command]:
        out: list[Command] = []
        p = self.players[player]
        here = self.spaces[p.position] if p.position else None
        nash = self.powers and p.villain == NASH and here is not None and here.face_up
        for m in self.legal_moves(player):
            if m["allowed"]:
                out.append(Move(player, m["to"]))
                if nash and m["flips"]:
                    out.append(Move(player, m["to"], flip=False))
        return out

    def _policy_allows(self, r: Reach) -> bool:
        return r.verdict is Verdict.LEGAL or (
            r.verdict is Verdict.TOO_CLOSE_TO_CALL and self.settings.close_call_policy != "strict"
        )

    def _jump(self, a: str, b: str) -> tuple[str, Reach]:
        """'legal' or 'ask' for a jump from a to b; raise when the rules refuse it."""
        r = self.graph.reach(a, b)
        reach = self.settings.reach_mm
        if r.verdict is Verdict.LEGAL:
            return "legal", r
        if r.verdict is Verdict.ILLEGAL:
            raise RuleViolation(
                "out_of_reach", f"Card {b} is {r.gap_mm:.1f} mm away; a jump must be under {reach:.1f} mm"
            )
        policy = self.settings.close_call_policy
        if policy == "lenient":
            return "legal", r
        if policy == "strict":
            raise RuleViolation(
                "too_close_to_call",
                f"Card {b} is {r.gap_mm:.1f} mm (+/- {r.sigma_gap_mm:.1f}) away, too close to {reach:.1f} mm to call;"
                " this table counts close calls as out of reach",
            )
        return "ask", r

    def _check_outline(self, space_id: str, corners: Any, sigma_mm: Any, ignore: set[str]) -> CardOutline:
        try:
            outline = CardOutline(space_id, corners, sigma_mm)
        except ValueError as exc:
            raise RuleViolation("bad_corners", f"Those corners are not a card: {exc}") from None
        s = self.settings
        short_ok = abs(outline.short_edge_mm / s.card_short_mm - 1) <= CARD_SIZE_TOLERANCE
        long_ok = abs(outline.long_edge_mm / s.card_long_mm - 1) <= CARD_SIZE_TOLERANCE
        if not (short_ok and long_ok):
            raise RuleViolation(
                "not_a_card",
                f"That outline is {outline.short_edge_mm:.0f} x {outline.long_edge_mm:.0f} mm;"
                f" a Space card is {s.card_short_mm:.0f} x {s.card_long_mm:.0f} mm",
            )
        hits = [o for o in self.graph.overlaps(outline) if o.card_id not in ignore]
        if hits:
            raise RuleViolation("overlap", f"Cards may touch but never overlap: {hits[0].explain()}")
        return outline

    def _check_table_draw(self, space: str) -> None:
        s = self._require_space(space)
        if s.kind != "space":
            raise RuleViolation("not_a_space_card", "Starting cards and the Trophy are never drawn")
        if not s.face_up:
            raise RuleViolation("face_down", f"Card {space} is face-down; only face-up spaces can be taken")
        if any(p.position == space for p in self.players.values()):
            raise RuleViolation("occupied", f"A pawn stands on {space}; only unoccupied spaces can be taken")

    def possible_names(self) -> list[str]:
        up: dict[str, int] = {}
        for s in self.spaces.values():
            if s.kind == "space" and s.face_up and s.name:
                up[s.name] = up.get(s.name, 0) + 1
        return [c.name for c in self.config.deck.cards if up.get(c.name, 0) < c.count]

    def _face_down_spaces(self) -> list[str]:
        return [s.id for s in self.spaces.values() if s.kind == "space" and not s.face_up]

    def _table_draw_options(self) -> list[str]:
        taken = {p.position for p in self.players.values()}
        return [s.id for s in self.spaces.values() if s.kind == "space" and s.face_up and s.id not in taken]

    def _destructible(self, exclude_nash: bool = False) -> list[str]:
        nash = (
            {p.position for p in self.players.values() if self.powers and p.villain == NASH}
            if exclude_nash
            else set()
        )
        return [s.id for s in self.spaces.values() if s.kind == "space" and s.id not in nash]

    def _next_free_id(self) -> str:
        n = self.next_space_no
        while f"S{n}" in self.used_ids:
            n += 1
        return f"S{n}"

    # ---- changes ----------------------------------------------------------------------------------
    def _emit(
        self, type_: str, public: dict[str, Any], private: dict[str, dict[str, Any]] | None = None,
        secret: dict[str, Any] | None = None,
    ) -> None:  # fmt: skip
        self._out.append(Event(type_, public, private or {}, secret or {}))

    def _emit_command(self, cmd: Command) -> None:
        data = cmd.to_dict()
        private: dict[str, dict[str, Any]] = {}
        if data.get("card") is not None:  # a card number would tell everyone what that card is
            private = {cmd.player: {"command": {"card": data["card"]}}}
            data["card"] = None
        self._emit("command_accepted", {"command": data}, private)

    def _add_space(self, space: Space, outline: CardOutline) -> None:
        self.graph.add(outline)
        self.spaces[space.id] = space
        self.used_ids.add(space.id)

    def _enter_step(self, step: str) -> None:
        self.step = step
        self._emit("step_started", {"player": self.current, "step": step})

    def _move_pawn(self, p: PlayerState, kind: str, to: str, flip: bool) -> None:
        if kind == "normal":
            self.turn["normal_move_used"] = True
        elif kind == "free":
            self.turn["free_move_used"] = True
            self.turn["free_move_offered"] = False
        else:
            self.waiting = None
        self._emit("pawn_moved", {"player": p.name, "from": p.position, "to": to, "kind": kind, "flip": flip})
        p.position = to
        dest = self.spaces[to]
        if dest.kind == "trophy":
            self._win(p.name, f"{p.name} entered the Trophy")
            return
        self.turn["last_move_face_up"] = dest.face_up
        queued: list[dict[str, Any]] = []
        if not dest.face_up and flip:
            queued.append({"do": "flip", "space": to, "you": p.name})
        if kind != "extra":  # an extra move continues the move that granted it
            queued.append({"do": "after_move", "kind": kind})
        self.tasks[0:0] = queued

    def _send_minion(self, p: PlayerState, to: str) -> None:
        self.turn["minion_used"] = True
        self._emit("minion_sent", {"player": p.name, "to": to})
        self.tasks[0:0] = [{"do": "flip", "space": to, "you": p.name}, {"do": "after_move", "kind": "minion"}]

    def _ask_measurement(self, a: str, b: str, r: Reach, action: dict[str, Any]) -> None:
        self.waiting = {
            "for": "confirm_measurement", "player": self.current, "from": a, "to": b,
            "gap_mm": round(r.gap_mm, 3), "sigma_gap_mm": round(r.sigma_gap_mm, 3),
            "_action": action, "_restore": self.waiting,
        }  # fmt: skip
        self._emit("measurement_needed", self.public_waiting() or {})

    def _wait_identity(self, space: str | None, then: str, you: str, **extra: Any) -> None:
        self.waiting = {
            "for": "report_identity",
            "player": self.current,
            "space": space,
            "_then": then,
            "_you": you,
            **extra,
        }
        self._emit("identity_needed", {"space": space, "player": you})

    def _reveal(self, space: str, name: str, you: str) -> None:
        s = self.spaces[space]
        s.face_up, s.name = True, name
        card = self.config.deck.card(name)
        self._emit("space_flipped", {"space": space, "name": name, "by": you, "text": card.text})
        self._queue_effects(name, you, space)

    def _queue_effects(self, name: str, you: str, space: str | None) -> None:
        card = self.config.deck.card(name)
        steps = [
            {"do": st.do, "n": st.n, "you": you, "space": space, "card_name": name} for st in card.effect
        ]
        self.tasks[0:0] = steps

    def _queue_trap_effects(self, name: str, by: str, space: str, corners: list[list[float]]) -> None:
        """Monster Nash's face-down space destroyed by another player's effect: its traps go off."""
        card = self.config.deck.card(name)
        steps = [
            {"do": st.do, "n": 0, "you": by, "space": space, "card_name": name, "corners": corners}
            for st in card.effect
            if st.do == "destroy_within_reach"  # destroy_this already happened
        ]
        self.tasks[0:0] = steps

    def _run(self) -> None:
        while not self.game_over and self.waiting is None:
            if self.turn["ends"]:
                self.tasks.clear()
                self._end_turn()
                continue
            if not self.tasks:
                return
            self._do_task(self.tasks.pop(0))

    def _do_task(self, t: dict[str, Any]) -> None:
        do = t["do"]
        you = self.players[t["you"]] if "you" in t else None
        if do == "flip":
            s = self.spaces.get(t["space"])
            if s is None or s.face_up:
                return  # destroyed or flipped meanwhile: nothing to turn up
            if s.card is not None:
                self._reveal(s.id, self.card_names[s.card], t["you"])
            else:
                self._wait_identity(s.id, "flip", t["you"])
        elif do == "after_move":
            kind = t["kind"]
            if kind == "normal" and self.turn["last_move_face_up"] and not self.turn["free_move_used"]:
                self.turn["free_move_offered"] = True
                self._emit("free_move_offered", {"player": self.current})
            elif kind in ("normal", "free", "play"):
                self._enter_step("add")
            # the minion leaves Z-Mask in his Move step
        elif do == "destroy_this":
            s = self.spaces.get(t["space"] or "")
            if s is not None and s.kind == "space":
                self._destroy([s.id], by=t["you"])
        elif do == "destroy_within_reach":
            self._blast(t)
        elif do == "destroy_chosen":
            self._offer(t, "destroy_chosen", self._destructible(), optional=False)
        elif do == "move_to_face_up":
            here = you.position if you else None
            opts = [s.id for s in self.spaces.values() if s.face_up and s.kind != "trophy" and s.id != here]
            self._offer(t, "move_to_face_up", opts, optional=True)
        elif do == "swap_two":
            self._offer(t, "swap_two", self._destructible(exclude_nash=True), optional=False, need=2)
        elif do == "relocate_one":
            self._offer(t, "relocate_one", self._destructible(exclude_nash=True), optional=False)
        elif do == "draw":
            assert you is not None
            opts = self._table_draw_options()
            poacher = self.powers and you.villain == POACHER
            if opts and (poacher or (not self.deck and not self.discard)):
                self._offer(t, "draw", opts, optional=True, count=t["n"])
            else:
                self._draw_cards(you, t["n"])
        elif do == "extra_move":
            self.waiting = {"for": "extra_move", "player": t["you"], "card_name": t["card_name"]}
            self._emit("extra_move_offered", {"player": t["you"]})
        elif do == "end_turn":
            if t["you"] == self.current:
                self.turn["ends"] = True
                self._emit("turn_cut_short", {"player": t["you"], "card": t["card_name"]})
        elif do == "nash_reveal":
            if t["card"] is not None:
                name = self.card_names[t["card"]]
                self._emit("space_revealed", {"space": t["space"], "name": name})
                self._queue_trap_effects(name, t["you"], t["space"], t["corners"])
            else:
                self._wait_identity(t["space"], "nash", t["you"], _by=t["you"], _corners=t["corners"])
        # "nothing" does nothing

    def _offer(
        self,
        t: dict[str, Any],
        effect: str,
        options: list[str],
        optional: bool,
        need: int = 1,
        count: int = 1,
    ) -> None:
        if len(options) < need:
            self._emit("effect_fizzled", {"player": t["you"], "card": t["card_name"], "effect": effect})
            return
        self.waiting = {
            "for": "choose_target", "player": t["you"], "effect": effect, "options": options,
            "optional": optional, "count": count, "card_name": t["card_name"],
        }  # fmt: skip
        self._emit("choice_needed", self.public_waiting() or {})

    def _blast(self, t: dict[str, Any]) -> None:
        """A Bomb: its space and every destructible space within reach of it. Close calls follow
        the table's policy; under "ask" each one waits for a measurement."""
        centre = t["space"]
        decided: dict[str, bool] = t.setdefault("decided", {})
        if centre in self.spaces:
            near = self.graph.neighbours(centre)
        else:
            outline = CardOutline(centre, t["corners"]) if t.get("corners") else None
            others = [c for c in self.graph.cards.values()]
            reaches = measure_reaches(outline, others, self.settings) if outline is not None else []
            near = {c.id: r for c, r in zip(others, reaches) if r.verdict is not Verdict.ILLEGAL}
        targets = [centre] if centre in self.spaces and self.spaces[centre].kind == "space" else []
        for sid, r in sorted(near.items()):
            if self.spaces[sid].kind != "space":
                continue
            if r.verdict is Verdict.LEGAL:
                targets.append(sid)
            elif self.settings.close_call_policy == "lenient":
                targets.append(sid)
            elif self.settings.close_call_policy == "ask":
                if sid not in decided:
                    self.waiting = {
                        "for": "confirm_measurement", "player": self.current, "from": centre, "to": sid,
                        "gap_mm": round(r.gap_mm, 3), "sigma_gap_mm": round(r.sigma_gap_mm, 3),
                        "_action": {"action": "blast", "task": t, "player": t["you"]},
                    }  # fmt: skip
                    self._emit("measurement_needed", self.public_waiting() or {})
                    return
                if decided[sid]:
                    targets.append(sid)
        self._destroy(targets, by=t["you"])

    def _destroy(self, ids: list[str], by: str) -> None:
        """Destroy Space cards (never starting cards or the Trophy); every pawn on them falls."""
        gone: list[str] = []
        followups: list[dict[str, Any]] = []
        nash_at = {p.position: p.name for p in self.players.values() if self.powers and p.villain == NASH}
        for sid in dict.fromkeys(ids):
            s = self.spaces.get(sid)
            if s is None or s.kind != "space":
                continue
            outline = self.graph.remove(sid)
            del self.spaces[sid]
            self.discard.append(s.card)
            gone.append(sid)
            self._emit("space_destroyed", {"space": sid, "name": s.name if s.face_up else None, "by": by})
            if not s.face_up and sid in nash_at and nash_at[sid] != by:
                followups.append(
                    {
                        "do": "nash_reveal",
                        "space": sid,
                        "you": by,
                        "card": s.card,
                        "corners": _corners_list(outline),
                    }
                )
        fallers = [p for p in self._from_current() if self.players[p].position in gone]
        for p in fallers:
            self._fall(self.players[p])
        self.tasks[0:0] = followups
        self._check_last_standing()

    def _from_current(self) -> list[str]:
        i = self.order.index(self.current) if self.current in self.order else 0
        return self.order[i:] + self.order[:i]

    def _fall(self, p: PlayerState) -> None:
        self._emit("player_fell", {"player": p.name, "space": p.position})
        count = len(p.hand)
        self.discard.extend(p.hand)
        p.hand.clear()
        self._emit("hand_discarded", {"player": p.name, "count": count})
        if self.sudden_death:
            p.eliminated = True
            p.position = None
            self._emit("player_eliminated", {"player": p.name})
        else:
            p.position = p.start
            self._emit("returned_to_start", {"player": p.name, "space": p.start})
            self._draw_cards(p, 4)
        if p.name == self.current:
            self.turn["ends"] = True  # a fall on your own turn ends it at once

    def _check_last_standing(self) -> None:
        active = self.active_players
        if len(active) == 1:
            self._win(active[0], f"{active[0]} is the last player standing")
        elif not active:
            self.game_over = True
            self.game_over_reason = "the last players were eliminated at once; nobody wins"
            self.tasks.clear()
            self.waiting = None
            self._emit("game_over", {"winner": None, "reason": self.game_over_reason})

    def _win(self, player: str, reason: str) -> None:
        self.winner = player
        self.game_over = True
        self.game_over_reason = reason
        self.tasks.clear()
        self.waiting = None
        self._emit("game_over", {"winner": player, "reason": reason})

    def _draw_cards(self, p: PlayerState, n: int) -> None:
        drawn: list[int | None] = []
        for _ in range(n):
            if not self.deck:
                if not self.discard:
                    self._emit("nothing_to_draw", {"player": p.name})
                    break
                self.deck, self.discard = self.discard, []
                if self.digital:
                    self.rng.shuffle(self.deck)
                self._emit("deck_reshuffled", {"size": len(self.deck)})
            card = self.deck.pop()
            p.hand.append(card)
            drawn.append(card)
            if not self.deck and not self.deck_ran_out:
                # RULINGS: Sudden Death begins at the start of the next turn.
                self.deck_ran_out = True
                self._emit("deck_ran_out", {"sudden_death_from_next_turn": True})
        if not drawn:
            return
        private = (
            {p.name: {"cards": [{"card": c, "name": self.card_names[c]} for c in drawn if c is not None]}}
            if self.digital
            else {}
        )
        self._emit("cards_drawn", {"player": p.name, "count": len(drawn)}, private)

    def _take_from_table(self, p: PlayerState, space: str) -> None:
        s = self.spaces.pop(space)
        self.graph.remove(space)
        p.hand.append(s.card)
        private = {p.name: {"card": s.card}} if s.card is not None else {}
        self._emit("card_taken_from_table", {"player": p.name, "space": space, "name": s.name}, private)

    def _end_turn(self) -> None:
        p = self.players[self.current]
        self.turn["ends"] = False
        p.turns_taken += 1
        self._emit("turn_ended", {"player": p.name})
        if self.powers and p.villain == MYSTERIOUS_M and not p.eliminated and self._face_down_spaces():
            self._enter_step("peek")
            return
        self._start_next_turn()

    def _start_next_turn(self) -> None:
        i = self.order.index(self.current)
        n = len(self.order)
        nxt = next(
            self.order[(i + k) % n]
            for k in range(1, n + 1)
            if not self.players[self.order[(i + k) % n]].eliminated
        )
        self.current = nxt
        self.turn = _fresh_turn()
        self.turn_number += 1
        self.tasks.clear()
        if self.deck_ran_out and not self.sudden_death:
            self.sudden_death = True
            self._emit("sudden_death_began", {})
        self.step = "move" if self.players[nxt].turns_taken > 0 else "add"
        self._emit("turn_started", {"player": nxt, "step": self.step, "turn": self.turn_number})
