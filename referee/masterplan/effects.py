"""Resolving what happens: flips, a card's effect steps, destruction, falls, draws, turn ends.

Effects run as a queue of tasks (`GameState.tasks`); a task that needs input sets `waiting` and
the queue resumes when the answering command arrives (tasks.py, waits.py). A task marked
`set_off` (a fall's draw, a trap under Monster Nash that another player's effect destroyed) was
already set off: it still resolves when the turn ends early, before the next turn starts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from geometry import CardOutline, Reach, Verdict, measure_reaches
from referee.masterplan.state import MYSTERIOUS_M, NASH, GameState, PlayerState, Turn, corners_list
from referee.masterplan.steps import MOVE, PEEK, STEPS, first_step
from referee.masterplan.tasks import AfterMove, CardEffect, Flip, NashReveal, Task
from referee.masterplan.waits import (
    CardName,
    ExtraMove,
    Measurement,
    PendingBlast,
    PendingMinion,
    PendingMove,
    TargetChoice,
)


class Effects(GameState):
    def _enter_step(self, step: str) -> None:
        self.step = step
        self._emit("step_started", {"player": self.current, "step": step})

    def _move_pawn(self, p: PlayerState, kind: str, to: str, flip: bool) -> None:
        if kind == "normal":
            self.turn.normal_move_used = True
        elif kind == "free":
            self.turn.free_move_used = True
            self.turn.free_move_offered = False
        else:
            self.waiting = None
        self._emit("pawn_moved", {"player": p.name, "from": p.position, "to": to, "kind": kind, "flip": flip})
        p.position = to
        dest = self.spaces[to]
        if dest.kind == "trophy":
            self._win(p.name, f"{p.name} entered the Trophy")
            return
        self.turn.last_move_face_up = dest.face_up
        queued: list[Task] = []
        if not dest.face_up and flip:
            queued.append(Flip(to, p.name))
        if kind != "extra":  # an extra move continues the move that granted it
            queued.append(AfterMove(kind))
        self.tasks[0:0] = queued

    def _send_minion(self, p: PlayerState, to: str) -> None:
        self.turn.minion_used = True
        self._emit("minion_sent", {"player": p.name, "to": to})
        self.tasks[0:0] = [Flip(to, p.name), AfterMove("minion")]

    def _ask_measurement(
        self, a: str, b: str, r: Reach, then: PendingMove | PendingMinion | PendingBlast
    ) -> None:
        self.waiting = Measurement(
            self.current, a, b, round(r.gap_mm, 3), round(r.sigma_gap_mm, 3), then=then, restore=self.waiting
        )
        self._emit("measurement_needed", self.public_waiting() or {})

    def _wait_identity(
        self, space: str | None, then: str, you: str, corners: list[list[float]] | None = None
    ) -> None:
        self.waiting = CardName(self.current, space, then=then, you=you, corners=corners)
        self._emit("identity_needed", {"space": space, "player": you})

    def _reveal(self, space: str, name: str, you: str) -> None:
        s = self.spaces[space]
        s.face_up, s.name = True, name
        card = self.config.deck.card(name)
        self._emit("space_flipped", {"space": space, "name": name, "by": you, "text": card.text})
        self._queue_effects(name, you, space)

    def _queue_effects(self, name: str, you: str, space: str | None) -> None:
        card = self.config.deck.card(name)
        self.tasks[0:0] = [CardEffect(st.do, you, name, n=st.n, space=space) for st in card.effect]

    def _queue_trap_effects(self, name: str, by: str, space: str, corners: list[list[float]]) -> None:
        """Monster Nash's face-down space destroyed by another player's effect: its traps go off."""
        card = self.config.deck.card(name)
        self.tasks[0:0] = [
            CardEffect(st.do, by, name, n=0, space=space, corners=corners, set_off=True)
            for st in card.effect
            if st.do == "destroy_within_reach"  # destroy_this already happened
        ]

    def _run(self) -> None:
        while not self.game_over and self.waiting is None:
            if self.turn.ends:
                # The rest of the turn is cut off, but effects already set off still resolve
                # (docs/rules-masterplan.md, "Villain powers": Nash's face-down Bomb goes off
                # even if its setter fell).
                self.tasks[:] = [t for t in self.tasks if t.set_off]
                if not self.tasks:
                    self._end_turn()
                    continue
            elif not self.tasks:
                return
            self._do_task(self.tasks.pop(0))

    def _do_task(self, t: Task) -> None:
        """Do one task: one handler per kind of task and per deck primitive (deck.PRIMITIVES)."""
        handlers: dict[str, Callable[[Any], None]] = {
            "flip": self._flip,
            "after_move": self._after_move,
            "nash_reveal": self._nash_reveal,
            "destroy_this": self._destroy_this,
            "destroy_within_reach": self._blast,
            "destroy_chosen": lambda t: self._offer(
                t, "destroy_chosen", self._destructible(), optional=False
            ),
            "move_to_face_up": self._offer_face_up,
            "swap_two": lambda t: self._offer(
                t, "swap_two", self._destructible(exclude_nash=True), optional=False, need=2
            ),
            "relocate_one": lambda t: self._offer(
                t, "relocate_one", self._destructible(exclude_nash=True), optional=False
            ),
            "draw": self._effect_draw,
            "extra_move": self._offer_extra_move,
            "end_turn": self._cut_turn_short,
            "nothing": lambda t: None,
        }
        handlers[t.do](t)

    def _flip(self, t: Flip) -> None:
        s = self.spaces.get(t.space)
        if s is None or s.face_up:
            return  # destroyed or flipped meanwhile: nothing to turn up
        if s.card is not None:
            self._reveal(s.id, self.card_names[s.card], t.you)
        else:
            self._wait_identity(s.id, "flip", t.you)

    def _after_move(self, t: AfterMove) -> None:
        if t.kind == "normal" and self.turn.last_move_face_up and not self.turn.free_move_used:
            self.turn.free_move_offered = True
            self._emit("free_move_offered", {"player": self.current})
        elif t.kind in ("normal", "free", "play"):
            self._enter_step(STEPS[MOVE].then)  # type: ignore[arg-type]
        # the minion leaves Z-Mask in his Move step

    def _nash_reveal(self, t: NashReveal) -> None:
        if t.card is not None:
            name = self.card_names[t.card]
            self._emit("space_revealed", {"space": t.space, "name": name})
            self._queue_trap_effects(name, t.you, t.space, t.corners)
        else:
            self._wait_identity(t.space, "nash", t.you, corners=t.corners)

    def _destroy_this(self, t: CardEffect) -> None:
        s = self.spaces.get(t.space or "")
        if s is not None and s.kind == "space":
            self._destroy([s.id], by=t.you)

    def _offer_face_up(self, t: CardEffect) -> None:
        here = self.players[t.you].position
        opts = [s.id for s in self.spaces.values() if s.face_up and s.kind != "trophy" and s.id != here]
        self._offer(t, "move_to_face_up", opts, optional=True)

    def _effect_draw(self, t: CardEffect) -> None:
        you = self.players[t.you]
        opts = self._table_draw_options()
        if opts and self._may_take_from_table(you):
            self._offer(t, "draw", opts, optional=True, count=t.n)
        else:
            self._draw_cards(you, t.n, fall=t.fall, then_table=t)

    def _offer_extra_move(self, t: CardEffect) -> None:
        self.waiting = ExtraMove(t.you, t.card_name)
        self._emit("extra_move_offered", {"player": t.you})

    def _cut_turn_short(self, t: CardEffect) -> None:
        if t.you == self.current:
            self.turn.ends = True
            self._emit("turn_cut_short", {"player": t.you, "card": t.card_name})

    def _offer(
        self,
        t: CardEffect,
        effect: str,
        options: list[str],
        optional: bool,
        need: int = 1,
        count: int = 1,
    ) -> None:
        if len(options) < need:
            self._emit("effect_fizzled", {"player": t.you, "card": t.card_name, "effect": effect})
            return
        self.waiting = TargetChoice(t.you, effect, options, optional, count, t.card_name, fall=t.fall)
        self._emit("choice_needed", self.public_waiting() or {})

    def _blast(self, t: CardEffect) -> None:
        """A Bomb: its space and every destructible space within reach of it. Close calls follow
        the table's policy; under "ask" each one waits for a measurement."""
        centre: str = t.space  # type: ignore[assignment]  # None only where nothing lies in reach
        decided = t.decided
        if centre in self.spaces:
            near = self.graph.neighbours(centre)
        else:
            outline = CardOutline(centre, t.corners) if t.corners else None
            others = [c for c in self.graph.cards.values()]
            reaches = measure_reaches(outline, others, self.settings) if outline is not None else []
            near = {c.id: r for c, r in zip(others, reaches) if r.verdict is not Verdict.ILLEGAL}
        targets = [centre] if centre in self.spaces and self.spaces[centre].kind == "space" else []
        for sid, r in sorted(near.items()):
            if self.spaces[sid].kind != "space":
                continue
            ruling = self._jump_ruling(r)
            if ruling == "legal":
                targets.append(sid)
            elif ruling == "ask":
                if sid not in decided:
                    self._ask_measurement(centre, sid, r, PendingBlast(t.you, t))
                    return
                if decided[sid]:
                    targets.append(sid)
        self._destroy(targets, by=t.you)

    def _destroy(self, ids: list[str], by: str) -> None:
        """Destroy Space cards (never starting cards or the Trophy); every pawn on them falls."""
        gone: list[str] = []
        followups: list[Task] = []
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
                followups.append(NashReveal(sid, by, s.card, corners_list(outline)))
        fallers = [p for p in self._from_current() if self.players[p].position in gone]
        # All fall at once; then each draws, in turn order (a draw may wait for a choice).
        draws: list[Task] = [d for d in (self._fall(self.players[p]) for p in fallers) if d is not None]
        self.tasks[0:0] = draws + followups
        self._check_last_standing()

    def _fall(self, p: PlayerState) -> CardEffect | None:
        """`p` falls: he discards his hand and returns to his starting card, or is eliminated in
        Sudden Death. Returns his draw of 4 as a task for the caller to queue (None if
        eliminated): it is a draw like any other, so a Poacher may take table cards."""
        self._emit("player_fell", {"player": p.name, "space": p.position})
        count = len(p.hand)
        self.discard.extend(p.hand)
        p.hand.clear()
        self._emit("hand_discarded", {"player": p.name, "count": count})
        if p.name == self.current:
            self.turn.ends = True  # a fall on your own turn ends it at once
        if self.sudden_death:
            p.eliminated = True
            p.position = None
            self._emit("player_eliminated", {"player": p.name})
            return None
        p.position = p.start
        self._emit("returned_to_start", {"player": p.name, "space": p.start})
        return CardEffect("draw", p.name, "the fall", n=4, fall=True, set_off=True)

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

    def _draw_cards(
        self, p: PlayerState, n: int, fall: bool = False, then_table: CardEffect | None = None
    ) -> None:
        """`p` draws n cards from the deck, reshuffling the discard pile when the deck is empty.
        `fall`: the draw after a fall. `then_table`: the draw task; when deck and discard are both
        empty before n cards, it offers the rest from the face-up, unoccupied table cards."""
        drawn: list[int | None] = []
        for _ in range(n):
            if not self.deck:
                if not self.discard:
                    break
                self.deck, self.discard = self.discard, []
                if self.digital:
                    self.rng.shuffle(self.deck)
                self._emit("deck_reshuffled", {"size": len(self.deck)})
            card = self.deck.pop()
            p.hand.append(card)
            drawn.append(card)
            if not self.deck and not self.deck_ran_out:
                self._deck_ran_out(fall)
        if drawn:
            private = (
                {p.name: {"cards": [{"card": c, "name": self.card_names[c]} for c in drawn if c is not None]}}
                if self.digital
                else {}
            )
            self._emit("cards_drawn", {"player": p.name, "count": len(drawn)}, private)
        short = n - len(drawn)
        if short:
            options = self._table_draw_options()
            # deck and discard are both empty now, so anyone's draw may take from the table
            if then_table is not None and options and self._may_take_from_table(p):
                self._offer(then_table, "draw", options, optional=True, count=short)
            else:
                self._emit("nothing_to_draw", {"player": p.name})

    def _deck_ran_out(self, fall: bool) -> None:
        # Rulebook: "As soon as the Space Deck runs out for the first time, Sudden Death begins",
        # mid-turn too (docs/rules-masterplan.md, "Sudden Death"), save that "If Sudden Death
        # triggers because a player falls and is drawing cards, he is still in the game - Sudden
        # Death does not apply until the next turn begins" (_start_next_turn).
        self.deck_ran_out = True
        self._emit("deck_ran_out", {"sudden_death_from_next_turn": fall})
        if not fall:
            self._begin_sudden_death()

    def _begin_sudden_death(self) -> None:
        self.sudden_death = True
        self._emit("sudden_death_began", {})

    def _take_from_table(self, p: PlayerState, space: str) -> None:
        s = self.spaces.pop(space)
        self.graph.remove(space)
        p.hand.append(s.card)
        private = {p.name: {"card": s.card}} if s.card is not None else {}
        self._emit("card_taken_from_table", {"player": p.name, "space": space, "name": s.name}, private)

    def _end_turn(self) -> None:
        p = self.players[self.current]
        self.turn.ends = False
        p.turns_taken += 1
        self._emit("turn_ended", {"player": p.name})
        if self.powers and p.villain == MYSTERIOUS_M and not p.eliminated and self._face_down_spaces():
            self._enter_step(PEEK)
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
        self.turn = Turn()
        self.turn_number += 1
        self.tasks.clear()
        if self.deck_ran_out and not self.sudden_death:  # it ran out during a fall's draw
            self._begin_sudden_death()
        self.step = first_step(self.players[nxt].turns_taken)
        self._emit("turn_started", {"player": nxt, "step": self.step, "turn": self.turn_number})
