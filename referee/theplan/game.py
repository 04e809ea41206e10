"""The Plan referee: commands in, events out.

`ThePlanGame.setup(config, seed)` starts a game (returning it and its first events); `apply(command)` checks the command against the
rules (raising RuleViolation and changing nothing when it breaks one), emits the events it causes
and then runs every automatic step (reveals, execution, blind draws, passing, dealing, Ghosts)
until somebody must decide something. `ThePlanGame.replay(events)` rebuilds the same game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations

from referee.events import Event, EventDict
from referee.theplan import views
from referee.theplan.commands import (
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
)
from referee.theplan.components import SMASH_AND_GRAB, Components, default_components
from referee.theplan.config import GameConfig, resolve_config
from referee.theplan.errors import MalformedCommand, RuleViolation
from referee.theplan.scoring import ranking, score_collection, winners
from referee.theplan.state import State, apply_event, new_state, rng_for

RULES_VERSION = 2  # bump when a rule's reading changes, so stored logs say which rules they followed
TREASURES_PER_TURN = 5
TRINKETS_PER_TURN = 3


def _not_now(message: str) -> RuleViolation:
    return RuleViolation("not_now", message)


class ThePlanGame:
    """One game of The Plan. Read-only views of it are plain JSON-able dicts."""

    def __init__(self, state: State, events: list[EventDict]) -> None:
        self._state = state
        self._events = events

    # -- starting and replaying ------------------------------------------------------------
    @classmethod
    def setup(
        cls, config: GameConfig | dict, seed: int | str, components: Components | None = None
    ) -> tuple[ThePlanGame, list[EventDict]]:
        """A new game, shuffled (digital) and dealt, up to its first decision; with its events so far."""
        comps = components or default_components()
        resolved = resolve_config(config, comps)
        if isinstance(seed, bool) or not isinstance(seed, (int, str)):
            raise RuleViolation("bad_setup", "the seed must be a whole number or text")
        first = Event(
            "game_set_up",
            public={
                "rules_version": RULES_VERSION,
                "config": resolved.to_dict(),
                "variant": resolved.variant,
                "players": list(resolved.players),
                "components_version": comps.version,
            },
            secret={"seed": seed},
        ).to_dict(leave_out_empty=True)
        game = cls(new_state(first, comps), [first])
        game._advance()
        return game, game.events

    @classmethod
    def replay(
        cls,
        events: Iterable[EventDict],
        components: Components | None = None,
        each: Callable[[ThePlanGame, int], None] | None = None,
    ) -> ThePlanGame:
        """Rebuild a game from its event log (no rule is re-run: the log is the truth). `each(game,
        n)` is called with the game as it stood after each of the first n events (a replay's steps)."""
        log = list(events)
        if not log:
            raise ValueError("an empty event log holds no game")
        state = new_state(log[0], components or default_components())
        for n, e in enumerate(log[1:], start=2):
            apply_event(state, e)
            if each is not None:
                each(cls(state, log[:n]), n)
        return cls(state, log)

    # -- reading ---------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self._state

    @property
    def events(self) -> list[EventDict]:
        return list(self._events)

    @property
    def is_over(self) -> bool:
        return self._state.phase == "game_over"

    @property
    def result(self) -> dict | None:
        return self._state.result

    def scores(self) -> dict[str, dict]:
        s = self._state
        return {p: score_collection(s.treasures[p], s.trinkets[p], s.components) for p in s.config.players}

    def to_act(self) -> list[str]:
        """Who must act now (several at once while committing, passing or bidding)."""
        return views.to_act(self._state)

    def public_view(self) -> dict:
        return views.public_view(self._state, self.scores())

    def player_view(self, player: str) -> dict:
        if player not in self._state.config.players:
            raise RuleViolation("unknown_player", f"nobody called {player!r} is playing")
        return views.player_view(self._state, self.scores(), player)

    def steward_view(self) -> dict:
        """The steward's view (physical mode): the public view and what may be reported now."""
        s = self._state
        reveal = (TREASURES_PER_TURN, min(TRINKETS_PER_TURN, len(s.trinket_pile)))
        return views.steward_view(s, self.scores(), reveal, self._plans_to_report(), self._unseen_plans())

    # -- acting ----------------------------------------------------------------------------
    def apply(self, command: Command) -> list[EventDict]:
        """Apply one command; return the events it caused. Raises RuleViolation, changing nothing."""
        if not isinstance(command, Command) or not command.type:
            raise MalformedCommand("malformed_command", "not a The Plan command")
        self._check_actor(command)
        start = len(self._events)
        _HANDLERS[command.type](self, command)
        self._advance()
        return self._events[start:]

    def _check_actor(self, cmd: Command) -> None:
        s = self._state
        if s.phase == "game_over":
            raise RuleViolation("game_over", "the game is over")
        is_report = isinstance(cmd, (ReportReveal, ReportPlan))
        if cmd.player == STEWARD:
            if not is_report:
                raise RuleViolation(
                    "not_a_player", "the steward reports the table; players make their own choices"
                )
            if not s.physical:
                raise RuleViolation(
                    "digital_game", "in a digital game the referee reveals and deals; nothing to report"
                )
            return
        if is_report:
            raise RuleViolation("steward_only", "only the steward (or the camera) reports the table")
        if cmd.player not in s.config.players:
            raise RuleViolation("unknown_player", f"nobody called {cmd.player!r} is playing")
        if cmd.player in s.config.ghosts and not (s.physical and isinstance(cmd, ClaimTrinket)):
            raise RuleViolation("ghost_acts_alone", "a Ghost makes its own choices")

    def _emit(
        self, kind: str, public: dict | None = None, private: dict | None = None, secret: dict | None = None
    ) -> None:
        # The Plan keeps its log in the stored form (it rebuilds its state from it).
        e = Event(kind, public or {}, private or {}, secret or {}).to_dict(leave_out_empty=True)
        apply_event(self._state, e)
        self._events.append(e)

    # -- command handlers: validate everything first, then emit ------------------------------
    def _commit_plan(self, cmd: CommitPlan) -> None:
        s = self._state
        if s.physical:
            raise RuleViolation(
                "physical_table", "at a physical table, lay your Plan face down; the steward reports it"
            )
        if s.phase != "commit":
            raise _not_now("Plans are chosen after the museum is revealed and before they are revealed")
        if cmd.plan == s.committed.get(cmd.player):
            raise RuleViolation("already_committed", "that Plan is already face down in front of you")
        if cmd.plan not in s.hands[cmd.player]:
            raise RuleViolation("plan_not_in_hand", f"{cmd.plan!r} is not a Plan in your hand")
        changed = cmd.player in s.committed
        self._emit(
            "plan_committed",
            {"player": cmd.player},
            {cmd.player: {"plan": cmd.plan, "changed": changed}},
        )

    def _withdraw_plan(self, cmd: WithdrawPlan) -> None:
        s = self._state
        if s.physical or s.phase != "commit":
            raise _not_now("a Plan can be taken back only while Plans are being chosen")
        if cmd.player not in s.committed:
            raise RuleViolation("nothing_committed", "you have no Plan face down to take back")
        self._emit("plan_withdrawn", {"player": cmd.player}, {cmd.player: {"plan": s.committed[cmd.player]}})

    def _choose_colour(self, cmd: ChooseColour) -> None:
        s = self._state
        if s.step != "choose_colour" or s.chooser != cmd.player:
            raise _not_now("only a successful Smash & Grab names a colour, when it executes")
        taken = [t for t in s.face_up_treasures if s.components.treasures[t].kind == cmd.colour]
        if not taken:
            raise RuleViolation("colour_not_face_up", f"no {cmd.colour!r} treasure is face up to grab")
        self._emit("colour_chosen", {"player": cmd.player, "colour": cmd.colour, "treasures": taken})

    def _choose_contest_order(self, cmd: ChooseContestOrder) -> None:
        s = self._state
        if s.step != "contest_order" or s.chooser != cmd.player:
            raise _not_now("the tied player with the fewest treasures chooses which colour is bid on first")
        if cmd.colour not in s.contests:
            raise RuleViolation("not_contested", f"{cmd.colour!r} is not a contested colour now")
        self._emit("contest_order_chosen", {"player": cmd.player, "colour": cmd.colour})

    def _bid(self, cmd: Bid) -> None:
        s = self._state
        if s.step != "bidding" or cmd.player not in s.bidders[s.contests[0]]:
            raise _not_now("only players tied for the contested treasures bid, while they are bid on")
        if len(set(cmd.trinkets)) != len(cmd.trinkets) or not set(cmd.trinkets) <= set(
            s.trinkets[cmd.player]
        ):
            raise RuleViolation(
                "bid_not_yours", "a bid is made of different trinkets from your own collection"
            )
        self._emit(
            "bid_placed",
            {"player": cmd.player, "contest": s.contests[0]},
            {cmd.player: {"trinkets": list(cmd.trinkets)}},
        )

    def _claim_trinket(self, cmd: ClaimTrinket) -> None:
        s = self._state
        if s.step != "claiming" or s.claim_queue[0][0] != cmd.player:
            raise _not_now("trinkets are taken one player at a time by Plans that took no treasure")
        must_blind = s.claim_queue[0][1] and bool(s.trinket_pile)
        if cmd.blind:
            if not s.trinket_pile:
                raise RuleViolation("pile_empty", "the trinket pile is empty: take a face-up trinket")
            if s.physical and cmd.trinket not in s.trinket_pile:
                raise RuleViolation("not_in_pile", "say which trinket came off the pile (one still in it)")
            if not s.physical and cmd.trinket is not None:
                raise RuleViolation(
                    "blind_is_unseen", "a blind draw takes the top of the pile: name no trinket"
                )
            trinket = cmd.trinket if s.physical else s.trinket_pile[0]
        else:
            if must_blind:
                raise RuleViolation(
                    "must_draw_blind",
                    "you tie on treasures and trinkets with another player: draw blindly from the pile",
                )
            if cmd.trinket is None:
                raise RuleViolation(
                    "trinket_not_face_up", "name a face-up trinket, or draw blind from the pile"
                )
            if cmd.trinket not in s.face_up_trinkets:
                raise RuleViolation("trinket_not_face_up", f"{cmd.trinket!r} is not a face-up trinket")
            trinket = cmd.trinket
        self._emit("trinket_claimed", {"player": cmd.player, "trinket": trinket, "blind": cmd.blind})

    def _pass_plans(self, cmd: PassPlans) -> None:
        s = self._state
        if s.physical:
            raise RuleViolation("physical_table", "at a physical table, pass the cards themselves")
        if s.phase != "pass":
            raise _not_now("Plans are passed after the Plans of a turn are executed")
        hand = s.hands[cmd.player]
        if len(cmd.plans) != 2 or len(set(cmd.plans)) != 2 or not set(cmd.plans) <= set(hand):
            raise RuleViolation("pass_two", "pass exactly 2 different Plans from your hand")
        self._emit("pass_chosen", {"player": cmd.player}, {cmd.player: {"plans": list(cmd.plans)}})

    def _report_reveal(self, cmd: ReportReveal) -> None:
        s = self._state
        if s.phase != "reveal":
            raise _not_now("treasures and trinkets are turned over at the start of a turn")
        want_trinkets = min(TRINKETS_PER_TURN, len(s.trinket_pile))
        if len(set(cmd.treasures)) != TREASURES_PER_TURN or not set(cmd.treasures) <= set(s.treasure_pile):
            raise RuleViolation(
                "bad_reveal", f"report {TREASURES_PER_TURN} different treasures that were still face down"
            )
        if len(set(cmd.trinkets)) != want_trinkets or not set(cmd.trinkets) <= set(s.trinket_pile):
            raise RuleViolation(
                "bad_reveal", f"report {want_trinkets} different trinkets that were still face down"
            )
        self._emit("treasures_revealed", {"treasures": list(cmd.treasures)})
        self._emit("trinkets_revealed", {"trinkets": list(cmd.trinkets)})

    def _report_plan(self, cmd: ReportPlan) -> None:
        s = self._state
        if s.phase != "report_plans":
            raise _not_now("Plans are reported when they are revealed")
        if cmd.seat not in s.config.players:
            raise RuleViolation("unknown_player", f"nobody called {cmd.seat!r} is playing")
        if cmd.seat in s.committed:
            raise RuleViolation("already_reported", f"{cmd.seat}'s Plan is already reported")
        plan = s.components.plans.get(cmd.plan)
        if plan is None:
            raise RuleViolation("unknown_plan", f"there is no Plan {cmd.plan!r}")
        if cmd.plan in s.removed_plans:
            raise RuleViolation("plan_removed", f"{cmd.plan!r} is a removed Plan type in this game")
        if cmd.plan in s.committed.values() or cmd.plan in s.plan_discard:
            raise RuleViolation("plan_not_in_hand", f"{cmd.plan!r} is not in anyone's hand")
        if s.hand_counts[cmd.seat] < 1:
            raise RuleViolation("plan_not_in_hand", f"{cmd.seat} holds no Plans")
        self._emit("plan_reported", {"seat": cmd.seat, "plan": cmd.plan})

    # -- automatic steps -------------------------------------------------------------------
    def _advance(self) -> None:
        """Run automatic steps until a decision is needed or the game is over."""
        s = self._state
        while True:
            phase = s.phase
            if phase == "deal":
                self._deal({p: s.config.hand_size for p in s.config.players})
            elif phase == "turn_start":
                if len(s.treasure_pile) < TREASURES_PER_TURN:
                    self._end_game()
                    return
                self._emit("turn_started", self._turn_numbers(s.turn_number + 1))
            elif phase == "reveal":
                if s.physical:
                    return
                self._emit("treasures_revealed", {"treasures": s.treasure_pile[:TREASURES_PER_TURN]})
                self._emit("trinkets_revealed", {"trinkets": s.trinket_pile[:TRINKETS_PER_TURN]})
            elif phase == "commit":
                if any(p not in s.committed for p in s.config.seats):
                    return
                plans = dict(s.committed)
                rng = rng_for(s)  # one source for all Ghosts, so that their picks are independent
                for ghost in s.config.ghosts:  # "one of each Ghost's cards is turned up at random"
                    plans[ghost] = rng.choice(sorted(s.hands[ghost]))
                self._emit("plans_revealed", {"plans": {p: plans[p] for p in s.config.players}})
            elif phase == "report_plans":
                if any(p not in s.committed for p in s.config.players):
                    return
                self._emit("plans_revealed", {"plans": {p: s.committed[p] for p in s.config.players}})
            elif phase == "execute":
                if not self._execute_step():
                    return
            elif phase == "pass":
                if s.physical:
                    self._emit("plans_passed", {"direction": self._direction()})
                elif all(p in s.passes for p in s.config.seats):
                    self._pass()
                else:
                    return
            elif phase == "round_end":
                self._emit(
                    "hands_discarded",
                    {"counts": {p: s.hand_count(p) for p in s.config.players}},
                    None if s.physical else {p: {"plans": list(s.hands[p])} for p in s.config.seats},
                )
            elif phase == "refill":
                self._deal({p: s.config.hand_size - s.hand_count(p) for p in s.config.players})
            else:  # game_over
                return

    def _turn_numbers(self, n: int) -> dict:
        return {"turn_number": n, "round": (n - 1) // 4 + 1, "turn": (n - 1) % 4 + 1}

    def _direction(self) -> str:
        return "left" if self._state.round % 2 == 1 else "right"

    def _deal(self, counts: dict[str, int]) -> None:
        s = self._state
        need = sum(counts.values())
        available = s.deck_count if s.physical else len(s.plan_deck)
        if available < need and (s.plan_discard or s.unseen_discards):
            self._emit("plan_deck_reshuffled", {"plans": len(s.plan_discard) + s.unseen_discards})
        if s.physical:
            left = s.deck_count
            dealt_counts = {}
            for p in s.config.players:
                dealt_counts[p] = min(counts[p], left)
                left -= dealt_counts[p]
            self._emit("plans_dealt", {"counts": dealt_counts})
            return
        deck = list(s.plan_deck)
        dealt = {}
        for p in s.config.players:
            dealt[p], deck = deck[: counts[p]], deck[counts[p] :]
        self._emit(
            "plans_dealt",
            {"counts": {p: len(dealt[p]) for p in s.config.players}},
            {p: {"plans": dealt[p]} for p in s.config.seats},
            {"plans": {g: dealt[g] for g in s.config.ghosts}} if s.config.ghosts else None,
        )

    def _pass(self) -> None:
        s = self._state
        seats = s.config.seats
        step = 1 if self._direction() == "left" else -1
        private = {}
        for i, p in enumerate(seats):
            giver = seats[(i - step) % len(seats)]
            private[p] = {
                "given": s.passes[p],
                "to": seats[(i + step) % len(seats)],
                "received": s.passes[giver],
            }
        self._emit("plans_passed", {"direction": self._direction()}, private)

    def _end_game(self) -> None:
        config = self._state.config
        scores = self.scores()
        places = ranking(scores, config.players)
        won = winners(scores, config.players, config.ghosts)
        self._emit("game_ended", {"scores": scores, "ranking": places, "winners": won})

    def _execute_step(self) -> bool:
        """One automatic execution step; False when a player (or the steward) must act first."""
        s = self._state
        comps = s.components
        step = s.step
        if step == "next_stage":
            for index in range(s.stage + 1, len(comps.plan_types)):
                kind = comps.plan_types[index].id
                players = [p for p in s.config.players if comps.plans[s.table[p]].type == kind]
                if players:
                    self._emit("stage_started", {"stage": kind, "players": players})
                    return True
            self._emit("plans_discarded", {"plans": [s.table[p] for p in s.config.players]})
            return True
        if step == "take":
            taken: dict[str, list[str]] = {}
            tied: dict[str, list[str]] = {}
            for kind in comps.treasure_kinds:
                experts = [p for p in s.stage_players if kind in comps.plans[s.table[p]].experts]
                if len(experts) >= 2:
                    tied[kind] = experts  # same-size teams sharing an expert cancel it
                elif experts:
                    ids = [t for t in s.face_up_treasures if comps.treasures[t].kind == kind]
                    if ids:
                        taken.setdefault(experts[0], []).extend(ids)
            self._emit("experts_executed", {"stage": s.stage_type(), "taken": taken, "tied": tied})
            return True
        if step == "choose_colour":
            if s.chooser not in s.config.ghosts:
                return False
            kinds = sorted({comps.treasures[t].kind for t in s.face_up_treasures})
            colour = rng_for(s).choice(kinds)
            self._choose_colour(ChooseColour(s.chooser, colour))
            return True
        if step == "contest_order":
            if s.chooser not in s.config.ghosts:
                return False
            self._choose_contest_order(ChooseContestOrder(s.chooser, rng_for(s).choice(s.contests)))
            return True
        if step == "bidding":
            return self._bidding_step()
        if step == "claims":
            claimants = [p for p in s.stage_players if p not in s.took]
            if not claimants:
                self._emit("stage_finished", {"stage": s.stage_type()})
                return True
            key = {p: (len(s.treasures[p]), len(s.trinkets[p])) for p in claimants}
            order = sorted(claimants, key=lambda p: (key[p], s.config.players.index(p)))
            blind = [p for p in order if sum(1 for q in order if key[q] == key[p]) > 1]
            self._emit("trinket_claims_started", {"order": order, "blind": blind})
            return True
        if step == "claiming":
            return self._claiming_step()
        raise AssertionError(f"unknown execution step {step!r}")

    def _bidding_step(self) -> bool:
        s = self._state
        contest = s.contests[0]
        for p in s.bidders[contest]:
            if p in s.bids:
                continue
            if p in s.config.ghosts:  # a Ghost offers a random number of its trinkets
                offer = s.trinkets[p][: rng_for(s).randint(0, len(s.trinkets[p]))]
                self._bid(Bid(p, tuple(offer)))
            elif not s.trinkets[p]:
                self._bid(Bid(p, ()))  # nothing to offer; everyone can see that
        if any(p not in s.bids for p in s.bidders[contest]):
            return False
        bids = {p: s.bids[p] for p in s.bidders[contest]}
        top = max(len(b) for b in bids.values())
        leaders = [p for p, b in bids.items() if len(b) == top]
        winner = leaders[0] if len(leaders) == 1 and top > 0 else None
        treasures = []
        if winner is not None and contest != SMASH_AND_GRAB:
            treasures = [t for t in s.face_up_treasures if s.components.treasures[t].kind == contest]
        self._emit(
            "bids_revealed", {"contest": contest, "bids": bids, "winner": winner, "treasures": treasures}
        )
        return True

    def _claiming_step(self) -> bool:
        s = self._state
        if not s.claim_queue:
            self._emit("stage_finished", {"stage": s.stage_type()})
            return True
        player, must_blind = s.claim_queue[0]
        if not s.face_up_trinkets and not s.trinket_pile:
            self._emit("trinket_missed", {"player": player})
            return True
        if s.physical:
            return False  # the table says which trinket was taken
        if must_blind and s.trinket_pile:
            self._emit("trinket_claimed", {"player": player, "trinket": s.trinket_pile[0], "blind": True})
            return True
        if player in s.config.ghosts:
            options = [ClaimTrinket(player, t) for t in s.face_up_trinkets]
            if s.trinket_pile:
                options.append(ClaimTrinket(player, None, True))
            self._claim_trinket(rng_for(s).choice(options))
            return True
        return False

    # -- legal commands ----------------------------------------------------------------------
    def legal_commands(self, player: str) -> list[Command]:
        """Every command `player` may send now (bids: one per amount, report_reveal: a sample)."""
        s = self._state
        if s.phase == "game_over":
            return []
        if player == STEWARD:
            return self._steward_commands() if s.physical else []
        if player not in s.config.players:
            return []
        ghost = player in s.config.ghosts
        out: list[Command] = []
        if s.phase == "commit" and not ghost:
            out += [CommitPlan(player, p) for p in s.hands[player]]
            if player in s.committed:
                out.append(WithdrawPlan(player))
        elif s.phase == "pass" and not ghost and not s.physical:
            out += [PassPlans(player, pair) for pair in combinations(s.hands[player], 2)]
        elif s.phase == "execute" and not ghost:
            if s.step == "choose_colour" and s.chooser == player:
                kinds = [
                    k
                    for k in s.components.treasure_kinds
                    if any(s.components.treasures[t].kind == k for t in s.face_up_treasures)
                ]
                out += [ChooseColour(player, k) for k in kinds]
            elif s.step == "contest_order" and s.chooser == player:
                out += [ChooseContestOrder(player, c) for c in s.contests]
            elif s.step == "bidding" and player in s.bidders[s.contests[0]]:
                mine = s.trinkets[player]
                out += [Bid(player, tuple(mine[:k])) for k in range(len(mine) + 1)]
        if (
            s.step == "claiming"
            and s.phase == "execute"
            and s.claim_queue[0][0] == player
            and (not ghost or s.physical)
        ):
            must_blind = s.claim_queue[0][1] and bool(s.trinket_pile)
            if not must_blind:
                out += [ClaimTrinket(player, t) for t in s.face_up_trinkets]
            if s.physical:
                out += [ClaimTrinket(player, t, True) for t in s.trinket_pile]
            elif s.trinket_pile:
                out.append(ClaimTrinket(player, None, True))
        return out

    def _steward_commands(self) -> list[Command]:
        s = self._state
        if s.phase == "reveal":
            # C(51, 5) reveals are legal; a sample of windows over the piles is enough for an agent.
            treasures, trinkets = s.treasure_pile, s.trinket_pile
            want = min(TRINKETS_PER_TURN, len(trinkets))
            out = []
            for i in range(len(treasures)):
                tr = tuple((treasures * 2)[i : i + TREASURES_PER_TURN])
                tk = tuple((trinkets * 2)[i % max(1, len(trinkets)) :][:want])
                out.append(ReportReveal(STEWARD, tr, tk))
            return out
        if s.phase == "report_plans":
            return [
                ReportPlan(STEWARD, seat, p) for seat in self._plans_to_report() for p in self._unseen_plans()
            ]
        return []

    def _plans_to_report(self) -> list[str]:
        """Physical mode: the seats whose revealed Plan the steward has still to report."""
        s = self._state
        if s.phase != "report_plans":
            return []
        return [seat for seat in s.config.players if seat not in s.committed and s.hand_counts[seat] > 0]

    def _unseen_plans(self) -> list[str]:
        """Physical mode: the Plans a seat may have revealed (none removed, discarded or reported)."""
        s = self._state
        return [
            p
            for p in s.components.plans
            if p not in s.removed_plans and p not in s.plan_discard and p not in s.committed.values()
        ]


_HANDLERS = {
    CommitPlan.type: ThePlanGame._commit_plan,
    WithdrawPlan.type: ThePlanGame._withdraw_plan,
    ChooseColour.type: ThePlanGame._choose_colour,
    ChooseContestOrder.type: ThePlanGame._choose_contest_order,
    Bid.type: ThePlanGame._bid,
    ClaimTrinket.type: ThePlanGame._claim_trinket,
    PassPlans.type: ThePlanGame._pass_plans,
    ReportReveal.type: ThePlanGame._report_reveal,
    ReportPlan.type: ThePlanGame._report_plan,
}


def setup(
    config: GameConfig | dict, seed: int | str, components: Components | None = None
) -> tuple[ThePlanGame, list[EventDict]]:
    return ThePlanGame.setup(config, seed, components)


def replay(events: Iterable[EventDict], components: Components | None = None) -> ThePlanGame:
    return ThePlanGame.replay(events, components)
