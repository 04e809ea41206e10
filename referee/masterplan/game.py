"""The Master Plan rules engine: state + command -> events (docs/rules-masterplan.md).

Pure: no I/O, no clock, no global random. Every random choice (seat order of the default
layout, shuffles of the digital deck) comes from `random.Random(seed)` held in the state, and the
seed is in the secret part of the first event, so `MasterPlanGame.replay(events)` rebuilds the
same game byte for byte.

How a command is handled: its `_cmd_*` method here first validates everything (raising
RuleViolation and changing nothing), then returns the change as a closure. The change may queue
*tasks* (a flipped card's effect steps, the rest of a move) that effects.py works through until
the game needs input again (`waiting`: a choice, a report from the table, a measurement) or the
queue is empty. state.py holds the data, views.py what players and displays may see.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from geometry import CardOutline, Reach, overlaps
from referee.events import Event, as_event
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
    MasterPlanConfig,
    layout_from_config,
    start_id,
)
from referee.masterplan.effects import Effects
from referee.masterplan.errors import ReplayMismatch, RuleViolation
from referee.masterplan.state import (
    BADMAHN,
    CARD_SIZE_TOLERANCE,
    MS_FYRE,
    RULES_VERSION,
    Z_MASK,
    PlayerState,
    Space,
    corners_list,
)
from referee.masterplan.steps import ADD, MOVE, OUT_OF_STEP, STEPS, ended_by_draw, first_step, refusal_text
from referee.masterplan.tasks import AfterMove, CardEffect
from referee.masterplan.views import Views
from referee.masterplan.waits import (
    CardName,
    Measurement,
    NewPositions,
    PendingBlast,
    PendingMinion,
    PendingMove,
    TargetChoice,
    Wait,
)

W = TypeVar("W", bound=Wait)


def _canonical(events: Iterable[Event]) -> list[str]:
    return [json.dumps(e.to_dict(), sort_keys=True) for e in events]


class MasterPlanGame(Effects, Views):
    """One game of Master Plan. Create with `setup`; change only with `apply`."""

    # ---- creation -----------------------------------------------------------------------------

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
        # docs/rules-masterplan.md, "Setup and turn order": rightmost starting card (largest x)
        # first, then leftward.
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
                "table": [{"space": s, "corners": corners_list(game.graph.card(s))} for s in game.spaces],
                "deck_size": game.deck_size,
            },
            secret={"seed": seed},
        )
        for p in game.order:
            game._draw_cards(game.players[p], 4)
        game.current = game.order[0]
        game.turn_number = 1
        game.step = first_step(0)
        game._emit("turn_started", {"player": game.current, "step": game.step, "turn": game.turn_number})
        events, game._out = game._out, []
        return game, events

    @classmethod
    def replay(
        cls,
        events: Iterable[Event | dict[str, Any]],
        each: Callable[[MasterPlanGame, int], None] | None = None,
    ) -> MasterPlanGame:
        """Rebuild a game from its full event log (with private and secret parts), checking that
        every logged event is reproduced exactly; raise ReplayMismatch otherwise. `each(game, n)`
        is called after the setup and after each command, n being the events replayed so far (a
        replay's steps: the states the referee published)."""
        log = [as_event(e) for e in events]
        if not log or log[0].type != "game_set_up" or "seed" not in log[0].secret:
            raise ReplayMismatch("an event log starts with game_set_up carrying its secret seed")
        game, first = cls.setup(MasterPlanConfig.from_dict(log[0].public["config"]), log[0].secret["seed"])
        i = len(first)
        if _canonical(first) != _canonical(log[:i]):
            raise ReplayMismatch("the setup events differ from the log (other deck, rules or seed)")
        if each is not None:
            each(game, i)
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
            if each is not None:
                each(game, i)
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
        """The one player the game waits for (None once it is over): whoever a waiting choice
        names, else the current player. Reports from the table (identities, positions,
        measurements) may also come from another player or the camera."""
        return None if self.game_over else self._awaited()

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

    # ---- views ----------------------------------------------------------------------------------

    # ---- command handlers: validate, then return the change ------------------------------------
    def _cmd_move(self, cmd: Move) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        kind = self._move_kind_now(cmd.player)
        if kind is None:
            if self.waiting is not None:
                raise self._waiting_error()
            if self.turn.normal_move_used or self.turn.card_played:
                raise RuleViolation("wrong_step", "You have already moved this turn")
            if self.step == ADD and p.turns_taken == 0:
                raise RuleViolation(
                    "first_round", "Nobody moves during the first complete round; place cards or skip"
                )
            raise RuleViolation("wrong_step", OUT_OF_STEP["move"].format(step=self.step.capitalize()))
        here = p.position
        assert here is not None
        self._require_space(cmd.to)
        refusal = self._move_refusal(p, kind, cmd.to, cmd.flip)
        if refusal is not None:
            raise refusal
        verdict, r = self._jump(here, cmd.to)
        action = PendingMove(cmd.player, kind, cmd.to, cmd.flip)

        def change() -> None:
            if verdict == "ask":
                self._ask_measurement(here, cmd.to, r, action)
            else:
                self._move_pawn(p, kind, cmd.to, cmd.flip)

        return change

    def _cmd_skip_step(self, cmd: SkipStep) -> Callable[[], None]:
        w = self.waiting
        if w is not None and w.is_choice:
            p = self._require_chooser(cmd.player)
            if isinstance(w, TargetChoice) and not w.optional:
                raise self._waiting_error()

            def decline() -> None:
                self.waiting = None
                effect = w.effect if isinstance(w, TargetChoice) else "extra_move"
                self._emit("choice_declined", {"player": p.name, "effect": effect})
                if isinstance(w, TargetChoice) and w.effect == "draw":
                    # who takes nothing from the table draws from the deck
                    self._draw_cards(p, w.count, fall=w.fall)

            return decline
        p = self._require_actor(cmd.player)
        self._require_no_waiting()
        self._require_step(cmd.type)
        step = self.step
        return lambda: self._skip_step(p, step)

    def _skip_step(self, p: PlayerState, step: str) -> None:
        """End `step` early; what follows is the steps table's (STEPS)."""
        self._emit("step_skipped", {"player": p.name, "step": step})
        if step == MOVE:
            self.turn.free_move_offered = False  # a declined free move
        then = STEPS[step].then
        if then is not None:
            self._enter_step(then)
        elif STEPS[step].after_turn:
            self._start_next_turn()
        else:
            self.turn.ends = True

    def _cmd_place_card(self, cmd: PlaceCard) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        self._require_no_waiting()
        self._require_step(cmd.type)
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
                    "corners": corners_list(outline),
                    "sigma_mm": cmd.sigma_mm,
                },
                private,
            )
            self.turn.placed += 1
            if self.powers and p.villain == BADMAHN and self.turn.placed == 3 and not self.turn.bonus_drawn:
                self.turn.bonus_drawn = True
                self._emit("power_used", {"player": p.name, "power": "extra_card"})
                # as a draw effect, so an empty deck and discard offer face-up table cards
                self.tasks.insert(0, CardEffect("draw", p.name, "Dr. Badmahn's extra card", n=1))

        return change

    def _cmd_draw(self, cmd: Draw) -> Callable[[], None]:
        p = self._require_actor(cmd.player)
        self._require_no_waiting()
        self._require_step(cmd.type)
        skipped = ended_by_draw(self.step)
        if cmd.space is not None:
            if not self._may_take_from_table(p):
                raise RuleViolation(
                    "cannot_draw_from_table",
                    "Only the Plutonian Poacher, or anyone when deck and discard are both empty, takes a card from the table",
                )
            refusal = self._table_draw_refusal(self._require_space(cmd.space))
            if refusal is not None:
                raise refusal

        def change() -> None:
            for step in skipped:
                self._skip_step(p, step)
            if cmd.space is not None:
                self._take_from_table(p, cmd.space)
            else:
                self._draw_cards(p, 1)
            self.turn.ends = True

        return change

    def _cmd_choose_target(self, cmd: ChooseTarget) -> Callable[[], None]:
        w = self._require_waiting(TargetChoice, cmd.player)
        p = self.players[cmd.player]
        effect, chosen = w.effect, list(cmd.spaces)
        if len(set(chosen)) != len(chosen):
            raise RuleViolation("same_space_twice", "Choose each space at most once")
        for s in chosen:
            if s not in w.options:
                raise RuleViolation("not_an_option", f"{s} is not one of the choices: {', '.join(w.options)}")
        want = {"swap_two": 2}.get(effect, 1)
        if effect == "draw":
            if not 1 <= len(chosen) <= w.count:
                raise RuleViolation(
                    "wrong_count", f"Choose 1 to {w.count} face-up spaces, or skip to draw from the deck"
                )
        elif len(chosen) != want:
            raise RuleViolation(
                "wrong_count", f"{w.card_name} needs exactly {want} space(s), you chose {len(chosen)}"
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
                self.turn.last_move_face_up = False  # a teleport grants no free move
            elif effect in ("swap_two", "relocate_one"):
                self.waiting = NewPositions(p.name, effect, chosen, w.card_name)
                self._emit("positions_needed", {"player": p.name, "effect": effect, "spaces": chosen})
            elif effect == "draw":
                for s in chosen:
                    self._take_from_table(p, s)
                self._draw_cards(p, w.count - len(chosen), fall=w.fall)

        return change

    def _cmd_report_positions(self, cmd: ReportPositions) -> Callable[[], None]:
        w = self._require_waiting(NewPositions, cmd.player)
        reported = [s for s, _ in cmd.positions]
        if sorted(reported) != sorted(w.spaces):
            raise RuleViolation("wrong_cards", f"Report the new corners of exactly {' and '.join(w.spaces)}")
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
                    "effect": w.effect,
                    "reported_by": cmd.player,
                    "positions": {o.id: corners_list(o) for o in outlines},
                },
            )

        return change

    def _cmd_report_identity(self, cmd: ReportIdentity) -> Callable[[], None]:
        if self.digital:
            raise RuleViolation("digital_deck", "The referee dealt this deck and already knows every card")
        w = self._require_waiting(CardName, cmd.player)
        if cmd.space != w.space:
            which = w.space or "the card Ms. Fyre played"
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
            if w.then == "flip":
                self._reveal(w.space, cmd.name, w.you)  # type: ignore[arg-type]
            elif w.then == "play":
                self._queue_effects(cmd.name, w.you, self.players[w.you].position)
            else:  # a destroyed face-down card under Monster Nash
                self._emit("space_revealed", {"space": w.space, "name": cmd.name})
                self._queue_trap_effects(cmd.name, w.you, w.space, w.corners)  # type: ignore[arg-type]

        return change

    def _cmd_confirm_measurement(self, cmd: ConfirmMeasurement) -> Callable[[], None]:
        w = self._require_waiting(Measurement, cmd.player)

        def change() -> None:
            self.waiting = w.restore
            then = w.then
            self._emit(
                "measurement_confirmed",
                {"from": w.jump_from, "to": w.to, "legal": cmd.legal, "reported_by": cmd.player},
            )
            p = self.players[then.player]
            if isinstance(then, PendingBlast):
                then.task.decided[w.to] = cmd.legal
                self.tasks.insert(0, then.task)
            elif not cmd.legal:
                self._emit("move_refused", {"player": p.name, "to": w.to, "reason": "measured out of reach"})
            elif isinstance(then, PendingMove):
                self._move_pawn(p, then.kind, then.to, then.flip)
            else:
                self._send_minion(p, then.to)

        return change

    def _cmd_send_minion(self, cmd: SendMinion) -> Callable[[], None]:
        p = self._require_power_before_move(cmd, Z_MASK, "send the minion")
        refusal = self._minion_refusal(p, cmd.to)
        if refusal is not None:
            raise refusal
        here = p.position
        assert here is not None
        verdict, r = self._jump(here, cmd.to)

        def change() -> None:
            if verdict == "ask":
                self._ask_measurement(here, cmd.to, r, PendingMinion(p.name, cmd.to))
            else:
                self._send_minion(p, cmd.to)

        return change

    def _cmd_play_card(self, cmd: PlayCard) -> Callable[[], None]:
        p = self._require_power_before_move(cmd, MS_FYRE, "play a card instead of moving")
        card = self._require_hand_card(p, cmd.card)

        def change() -> None:
            self.turn.card_played = True
            self.turn.normal_move_used = True  # the play replaces her entire move
            p.hand.remove(card)
            # docs/rules-masterplan.md, "Villain powers": discarded; its effect is independent of the card
            self.discard.append(card)
            self.tasks.insert(0, AfterMove("play"))
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
        self._require_step(cmd.type)
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

    def _require_chooser(self, player: str) -> PlayerState:
        """The player a waiting choice names answers it, on his turn or another's."""
        p = self._require_seat(player)
        w = self.waiting
        assert w is not None
        if player != w.player:
            raise RuleViolation("not_your_choice", f"{w.player} makes this choice, not {player}")
        return p

    def _require_reporter(self, player: str) -> None:
        if player not in REPORTERS:
            self._require_seat(player)

    def _require_no_waiting(self) -> None:
        if self.waiting is not None:
            raise self._waiting_error()

    def _require_waiting(self, kind: type[W], player: str) -> W:
        """The wait that `player`'s answer of this kind answers: a choice only from the player
        it names, a report from the table from any seat or the camera."""
        w = self.waiting
        if not isinstance(w, kind):
            if w is not None:
                raise self._waiting_error()
            raise RuleViolation("nothing_to_answer", f"Nothing is waiting for {kind.kind.replace('_', ' ')}")
        if kind.is_choice:
            self._require_chooser(player)
        else:
            self._require_reporter(player)
        return w

    def _require_step(self, command_type: str) -> None:
        """Refuse a command the current step does not allow (the steps table, STEPS)."""
        why = refusal_text(command_type, self.step)
        if why is not None:
            raise RuleViolation("wrong_step", why)

    def _require_power_before_move(self, cmd: Command, villain: str, what: str) -> PlayerState:
        """The powers used before the move (Z-Mask's minion, Ms. Fyre's play): the villain's own,
        on his turn, in his Move step and before his move."""
        p = self._require_actor(cmd.player)
        refusal = self._power_refusal(p, villain)
        if refusal is not None:
            raise refusal
        self._require_no_waiting()
        self._require_step(cmd.type)
        self._require_before_move(what)
        return p

    def _require_before_move(self, what: str) -> None:
        if not self._before_move():
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
        what = "an answer" if self.waiting is None else self.waiting.what()
        return RuleViolation("waiting", f"The game is waiting for {what}")

    def _jump(self, a: str, b: str) -> tuple[str, Reach]:
        """'legal' or 'ask' for a jump from a to b; raise when the rules refuse it."""
        r = self.graph.reach(a, b)
        refusal = self._jump_refusal(b, r)
        if refusal is not None:
            raise refusal
        return self._jump_ruling(r), r

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

    def _next_free_id(self) -> str:
        n = self.next_space_no
        while f"S{n}" in self.used_ids:
            n += 1
        return f"S{n}"

    # ---- changes ----------------------------------------------------------------------------------

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

        # "nothing" does nothing
