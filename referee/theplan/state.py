"""The game state and how each event changes it (the reducer).

Every change to the state goes through `apply_event`, both live and in replay, so replaying an
event log rebuilds exactly the live state. Random choices come from `rng_for(state)`, a
`random.Random` derived from the seed and the number of events so far, so they replay too.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields

from referee.events import EventDict
from referee.theplan.components import SMASH_AND_GRAB, Components
from referee.theplan.config import GameConfig


@dataclass
class State:
    config: GameConfig
    seed: int | str
    components: Components
    events: int = 0  # events applied so far
    phase: str = "deal"
    turn_number: int = 0
    # Treasures and trinkets. Piles list the top first; in physical mode their order is unknown (sorted).
    treasure_pile: list[str] = field(default_factory=list)
    trinket_pile: list[str] = field(default_factory=list)
    face_up_treasures: list[str] = field(default_factory=list)
    face_up_trinkets: list[str] = field(default_factory=list)
    trinket_discard: list[str] = field(default_factory=list)  # bribes paid
    treasures: dict[str, list[str]] = field(default_factory=dict)  # collections
    trinkets: dict[str, list[str]] = field(default_factory=dict)
    # Plans. Digital: every id is in exactly one place. Physical: the referee knows only counts of
    # the deck and hands, the ids it saw played, and how many unseen cards were discarded.
    plan_deck: list[str] = field(default_factory=list)
    plan_discard: list[str] = field(default_factory=list)
    removed_plans: list[str] = field(default_factory=list)
    hands: dict[str, list[str]] = field(default_factory=dict)
    deck_count: int = 0  # physical
    hand_counts: dict[str, int] = field(default_factory=dict)  # physical
    unseen_discards: int = 0  # physical
    committed: dict[str, str] = field(default_factory=dict)  # face down (digital) / reported (physical)
    table: dict[str, str] = field(default_factory=dict)  # revealed this turn
    passes: dict[str, list[str]] = field(default_factory=dict)
    # Execution of the revealed Plans.
    stage: int = -1  # index into components.plan_types
    step: str = ""
    stage_players: list[str] = field(default_factory=list)
    took: list[str] = field(default_factory=list)  # players of this stage who took a treasure
    chooser: str | None = None  # who names a colour / the next contest
    contests: list[str] = field(default_factory=list)  # colours (or Smash & Grab) still to bid on
    bidders: dict[str, list[str]] = field(default_factory=dict)
    bids: dict[str, list[str]] = field(default_factory=dict)
    claim_queue: list[list] = field(default_factory=list)  # [player, must_take_blind]
    result: dict | None = None

    # -- derived ---------------------------------------------------------------------------
    @property
    def physical(self) -> bool:
        return self.config.mode == "physical"

    @property
    def round(self) -> int:
        return (self.turn_number - 1) // 4 + 1 if self.turn_number else 0

    @property
    def turn_in_round(self) -> int:
        return (self.turn_number - 1) % 4 + 1 if self.turn_number else 0

    def hand_count(self, player: str) -> int:
        return self.hand_counts[player] if self.physical else len(self.hands[player])

    def stage_type(self) -> str | None:
        return self.components.plan_types[self.stage].id if self.stage >= 0 else None

    def to_dict(self) -> dict:
        """Everything, secrets included (for replay checks and the referee's own store)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("components", "config")}
        out["config"] = self.config.to_dict()
        return out


def rng_for(state: State) -> random.Random:
    """The random source for the next random choice: fixed by the seed and the events so far."""
    return random.Random(f"{state.seed}:{state.events}")


def new_state(event: EventDict, components: Components) -> State:
    """The state a `game_set_up` event creates (piles shuffled from the seed in digital mode)."""
    if event.get("type") != "game_set_up":
        raise ValueError("an event log must start with game_set_up")
    config = GameConfig.from_dict(event["public"]["config"])
    seed = event["secret"]["seed"]
    s = State(config=config, seed=seed, components=components)
    removed = set(config.removed_plan_types or ())
    s.removed_plans = [p for p in components.plans if components.plans[p].type in removed]
    s.treasure_pile = sorted(components.treasures)
    s.trinket_pile = sorted(components.trinkets)
    in_play = sorted(p for p in components.plans if components.plans[p].type not in removed)
    if s.physical:
        s.deck_count = len(in_play)
        s.hand_counts = {p: 0 for p in config.players}
    else:
        rng = random.Random(f"{seed}:setup")
        rng.shuffle(s.treasure_pile)
        rng.shuffle(s.trinket_pile)
        rng.shuffle(in_play)
        s.plan_deck = in_play
    s.hands = {p: [] for p in config.players}
    s.treasures = {p: [] for p in config.players}
    s.trinkets = {p: [] for p in config.players}
    s.events = 1
    return s


def _move(ids: list[str], source: list[str], dest: list[str]) -> None:
    for i in ids:
        source.remove(i)
        dest.append(i)


def contest_chooser(s: State) -> str:
    """The tied player with the fewest treasures (then fewest trinkets, then seat order) picks the next contest."""
    tied = {p for c in s.contests for p in s.bidders[c]}
    order = [p for p in s.config.players if p in tied]
    return min(order, key=lambda p: (len(s.treasures[p]), len(s.trinkets[p]), order.index(p)))


def _after_contest(s: State) -> None:
    if s.contests:
        if len(s.contests) >= 2:
            s.step, s.chooser = "contest_order", contest_chooser(s)
        else:
            s.step = "bidding"
    else:
        s.step = "claims"


def apply_event(s: State, e: EventDict) -> None:
    """Change the state as event `e` says. Never fails on an event the engine itself produced."""
    kind = e["type"]
    pub = e.get("public", {})
    handler = _REDUCERS[kind]
    handler(s, pub, e)
    s.events += 1


def _plans_dealt(s: State, pub: dict, e: EventDict) -> None:
    if s.physical:
        for p, n in pub["counts"].items():
            s.hand_counts[p] += n
            s.deck_count -= n
    else:
        dealt = {p: v["plans"] for p, v in e.get("private", {}).items()}
        dealt.update(e.get("secret", {}).get("plans", {}))
        for p in s.config.players:
            _move(dealt.get(p, []), s.plan_deck, s.hands[p])
    s.phase = "turn_start"


def _plan_deck_reshuffled(s: State, pub: dict, e: EventDict) -> None:
    if s.physical:
        s.deck_count += len(s.plan_discard) + s.unseen_discards
        s.unseen_discards = 0
    else:
        discard = sorted(s.plan_discard)
        rng_for(s).shuffle(discard)
        s.plan_deck.extend(discard)  # the reshuffled discards go under what is left of the deck
    s.plan_discard = []


def _turn_started(s: State, pub: dict, e: EventDict) -> None:
    s.turn_number = pub["turn_number"]
    s.phase = "reveal"
    s.table = {}
    s.committed = {}
    s.stage, s.step = -1, ""


def _treasures_revealed(s: State, pub: dict, e: EventDict) -> None:
    _move(pub["treasures"], s.treasure_pile, s.face_up_treasures)


def _trinkets_revealed(s: State, pub: dict, e: EventDict) -> None:
    _move(pub["trinkets"], s.trinket_pile, s.face_up_trinkets)
    s.phase = "report_plans" if s.physical else "commit"


def _plan_committed(s: State, pub: dict, e: EventDict) -> None:
    player = pub["player"]
    plan = e["private"][player]["plan"]
    old = s.committed.pop(player, None)
    if old is not None:
        s.hands[player].append(old)
    s.hands[player].remove(plan)
    s.committed[player] = plan


def _plan_withdrawn(s: State, pub: dict, e: EventDict) -> None:
    player = pub["player"]
    s.hands[player].append(s.committed.pop(player))


def _plan_reported(s: State, pub: dict, e: EventDict) -> None:
    s.committed[pub["seat"]] = pub["plan"]


def _plans_revealed(s: State, pub: dict, e: EventDict) -> None:
    for player in s.config.players:  # seat order, whatever order a stored log keeps its keys in
        plan = pub["plans"][player]
        if s.physical:
            s.hand_counts[player] -= 1
        elif player in s.committed:
            pass  # already out of the hand, face down
        else:
            s.hands[player].remove(plan)  # a Ghost's card turned up
        s.table[player] = plan
    s.committed = {}
    s.phase, s.stage, s.step = "execute", -1, "next_stage"


def _stage_started(s: State, pub: dict, e: EventDict) -> None:
    s.stage = [t.id for t in s.components.plan_types].index(pub["stage"])
    s.stage_players = list(pub["players"])
    s.took, s.contests, s.bidders, s.bids, s.claim_queue, s.chooser = [], [], {}, {}, [], None
    if pub["stage"] != SMASH_AND_GRAB:
        s.step = "take"
    elif not s.face_up_treasures:
        s.step = "claims"
    elif len(s.stage_players) == 1:
        s.step, s.chooser = "choose_colour", s.stage_players[0]
    elif s.config.bribes:
        s.contests, s.bidders, s.step = [SMASH_AND_GRAB], {SMASH_AND_GRAB: list(s.stage_players)}, "bidding"
    else:
        s.step = "claims"


def _take(s: State, player: str, ids: list[str]) -> None:
    if ids:
        _move(ids, s.face_up_treasures, s.treasures[player])
        if player not in s.took:
            s.took.append(player)


def _experts_executed(s: State, pub: dict, e: EventDict) -> None:
    for player in s.config.players:
        _take(s, player, pub["taken"].get(player, []))
    if s.config.bribes:
        kinds = {s.components.treasures[t].kind for t in s.face_up_treasures}
        # Kind order from the components, not dict order: a stored log may have sorted its keys.
        s.contests = [c for c in s.components.treasure_kinds if c in pub["tied"] and c in kinds]
        s.bidders = {c: list(pub["tied"][c]) for c in s.contests}
    _after_contest(s)


def _contest_order_chosen(s: State, pub: dict, e: EventDict) -> None:
    s.contests.remove(pub["colour"])
    s.contests.insert(0, pub["colour"])
    s.step, s.chooser = "bidding", None


def _bid_placed(s: State, pub: dict, e: EventDict) -> None:
    s.bids[pub["player"]] = list(e["private"][pub["player"]]["trinkets"])


def _bids_revealed(s: State, pub: dict, e: EventDict) -> None:
    winner = pub["winner"]
    contest = s.contests.pop(0)
    s.bids = {}
    if winner is not None:
        _move(pub["bids"][winner], s.trinkets[winner], s.trinket_discard)
        _take(s, winner, pub["treasures"])
    if contest == SMASH_AND_GRAB and winner is not None:
        s.step, s.chooser = "choose_colour", winner
    else:
        _after_contest(s)


def _colour_chosen(s: State, pub: dict, e: EventDict) -> None:
    _take(s, pub["player"], pub["treasures"])
    s.step, s.chooser = "claims", None


def _trinket_claims_started(s: State, pub: dict, e: EventDict) -> None:
    blind = set(pub["blind"])
    s.claim_queue = [[p, p in blind] for p in pub["order"]]
    s.step = "claiming"


def _trinket_claimed(s: State, pub: dict, e: EventDict) -> None:
    trinket = pub["trinket"]
    source = s.trinket_pile if pub["blind"] else s.face_up_trinkets
    _move([trinket], source, s.trinkets[pub["player"]])
    s.claim_queue.pop(0)


def _trinket_missed(s: State, pub: dict, e: EventDict) -> None:
    s.claim_queue.pop(0)


def _stage_finished(s: State, pub: dict, e: EventDict) -> None:
    s.step = "next_stage"


def _plans_discarded(s: State, pub: dict, e: EventDict) -> None:
    s.plan_discard.extend(pub["plans"])
    s.table = {}
    s.stage, s.step = -1, ""
    if s.config.ghosts:
        s.phase = "refill"
    else:
        s.phase = "pass" if s.turn_in_round < 4 else "round_end"


def _pass_chosen(s: State, pub: dict, e: EventDict) -> None:
    s.passes[pub["player"]] = list(e["private"][pub["player"]]["plans"])


def _plans_passed(s: State, pub: dict, e: EventDict) -> None:
    if not s.physical:
        seats = s.config.seats
        step = 1 if pub["direction"] == "left" else -1
        for i, p in enumerate(seats):
            receiver = seats[(i + step) % len(seats)]
            for plan in s.passes[p]:
                s.hands[p].remove(plan)
                s.hands[receiver].append(plan)
    s.passes = {}
    s.phase = "turn_start"


def _hands_discarded(s: State, pub: dict, e: EventDict) -> None:
    for p in s.config.players:
        if s.physical:
            s.unseen_discards += s.hand_counts[p]
            s.hand_counts[p] = 0
        else:
            s.plan_discard.extend(s.hands[p])
            s.hands[p] = []
    s.phase = "deal"


def _game_ended(s: State, pub: dict, e: EventDict) -> None:
    s.phase = "game_over"
    s.result = {"scores": pub["scores"], "ranking": pub["ranking"], "winners": pub["winners"]}


_REDUCERS = {
    "plans_dealt": _plans_dealt,
    "plan_deck_reshuffled": _plan_deck_reshuffled,
    "turn_started": _turn_started,
    "treasures_revealed": _treasures_revealed,
    "trinkets_revealed": _trinkets_revealed,
    "plan_committed": _plan_committed,
    "plan_withdrawn": _plan_withdrawn,
    "plan_reported": _plan_reported,
    "plans_revealed": _plans_revealed,
    "stage_started": _stage_started,
    "experts_executed": _experts_executed,
    "contest_order_chosen": _contest_order_chosen,
    "bid_placed": _bid_placed,
    "bids_revealed": _bids_revealed,
    "colour_chosen": _colour_chosen,
    "trinket_claims_started": _trinket_claims_started,
    "trinket_claimed": _trinket_claimed,
    "trinket_missed": _trinket_missed,
    "stage_finished": _stage_finished,
    "plans_discarded": _plans_discarded,
    "pass_chosen": _pass_chosen,
    "plans_passed": _plans_passed,
    "hands_discarded": _hands_discarded,
    "game_ended": _game_ended,
}

EVENT_TYPES = ("game_set_up", *_REDUCERS)
