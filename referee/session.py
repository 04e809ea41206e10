"""One refereed game, without sockets: requests in; replies, public updates and private
messages out. The service (service.py) moves these over ZeroMQ; tests can drive it directly.

Order of work for a command: validate -> engine -> append events + reply to the store (synced)
-> only then hand updates to the transport. A command id seen before from the same seat gets its
stored reply and changes nothing (idempotent retries); ids are scoped to the seat, so two players
may pick the same id.
"""

from __future__ import annotations

import hmac
import re
import secrets
from dataclasses import dataclass, field
from typing import Any

from referee.games import GAMES, GameAdapter, RuleRefusal, find_seat, seat_key
from referee.protocol import SERVICE_TYPES, ProtocolError, Request, error_reply, ok_reply
from referee.store import EventStore, GameRecord, StoreError

# A snapshot carries this many of the latest public events, so a player who connects (or comes
# back) sees what just happened, not an empty history.
RECENT_EVENTS = 20
# Command fields besides "player" that name a seat (The Plan's report_plan): matched like joins.
SEAT_FIELDS = ("seat",)
# A token a client may bring to a free seat (see _claim): as long as the ones the referee makes.
TOKEN_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


@dataclass
class Outcome:
    reply: dict[str, Any]
    updates: list[tuple[int, dict[str, Any]]] = field(default_factory=list)  # (seq, public event)
    private: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)  # (seat, seq, payload)
    joined: str | None = None  # the seat this connection is now bound to
    renewed: str | None = None  # a seat whose token was renewed: its other connections are cut off


class GameSession:
    def __init__(self, adapter: GameAdapter, game: Any, store: EventStore) -> None:
        self.adapter = adapter
        self.game = game
        self.store = store
        self.seq = store.last_seq()
        # Shown with the public state but not part of the game (the camera's status and notices).
        self.annotations: dict[str, Any] = {}
        # seat -> its token (without --secure): memory only, never stored, published or logged; a
        # restarted referee starts without them and the first join of a seat takes it again.
        self._tokens: dict[str, str] = {}
        # Reporter seats that may join: the camera is one only where a camera referees (see
        # camera_referees); players' commands report the table otherwise.
        self.reporters = [r for r in adapter.reporters if r not in adapter.camera_seats]

    @classmethod
    def start(cls, game_name: str, config: dict[str, Any], seed: int, store: EventStore) -> GameSession:
        adapter = _adapter(game_name)
        game, events = adapter.setup(config, seed)
        # Header and setup events in one transaction: a kill in between leaves no half game.
        store.start(GameRecord(game=game_name, seed=seed, config=config, versions=adapter.versions()), events)
        return cls(adapter, game, store)

    @classmethod
    def resume(cls, store: EventStore) -> GameSession:
        record = store.record()
        if record is None or store.last_seq() == 0:
            raise StoreError(f"{store.path} holds no game yet; start one without --resume")
        store.verify()  # before replaying anything: a damaged log is refused, not half believed
        adapter = _adapter(record.game)
        try:
            game = adapter.replay(record.config, record.seed, [e for _, e in store.events()])
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(
                f"{store.path} does not replay with these rules ({exc}); it was written by another version"
            ) from None
        return cls(adapter, game, store)

    # ---- views --------------------------------------------------------------------------------
    def public_state(self) -> dict[str, Any]:
        view = self.adapter.public_view(self.game)
        return {**view, **self.annotations} if self.annotations else view

    def player_state(self, seat: str) -> dict[str, Any]:
        """A seat's own view, with the same annotations as the public state (the camera's status:
        a player at a camera table sees what the referee waits for and what the camera refused)."""
        view = self.adapter.player_view(self.game, seat)
        return {**view, **self.annotations} if self.annotations else view

    def seats(self) -> list[str]:
        return self.adapter.seats(self.game)

    def acting_seats(self) -> list[str]:
        """Who may join: the players and the reporters present at this table."""
        return [*self.seats(), *self.reporters]

    def camera_referees(self) -> None:
        """A camera watches this table: its reporter seat exists from now on."""
        self.reporters += [r for r in self.adapter.camera_seats if r not in self.reporters]

    def recent_events(self) -> list[dict[str, Any]]:
        """The last RECENT_EVENTS events as everyone saw them ({"seq", "event"}): public parts only."""
        return [
            {"seq": seq, "event": self.adapter.public_event(event)}
            for seq, event in self.store.events(after_seq=max(0, self.seq - RECENT_EVENTS))
        ]

    # ---- requests -----------------------------------------------------------------------------
    def handle(self, request: Request, joined_seat: str | None, bound_seat: str | None = None) -> Outcome:
        """`joined_seat`: the seat this connection joined as; `bound_seat`: the name of its CURVE
        key, i.e. the seat it may act for (None without --secure). Under --secure the key is
        checked on every request, not only on join."""
        try:
            return self._handle(request, joined_seat, bound_seat)
        except ProtocolError as exc:
            return Outcome(error_reply(request.id, exc.code, exc.message))

    def _handle(self, request: Request, joined: str | None, bound: str | None) -> Outcome:
        if request.type == "ping":
            return Outcome(ok_reply(request.id, seq=self.seq))
        if request.type == "snapshot":
            return Outcome(
                ok_reply(
                    request.id,
                    seq=self.seq,
                    game=self.adapter.name,
                    state=self.public_state(),
                    recent=self.recent_events(),
                )
            )
        if request.type == "join":
            seat = self._check_seat(request.player, bound)
            # With --secure the key proves the seat; without, the seat's token does.
            token = (
                None if bound is not None else self._claim(seat, request.body.get("token"), joined == seat)
            )
            view = self.player_state(seat)
            fields = {"token": token} if token is not None else {}
            return Outcome(ok_reply(request.id, seq=self.seq, player=seat, view=view, **fields), joined=seat)
        if request.type == "view":
            seat = self._acting_seat(request, joined, bound)
            return Outcome(ok_reply(request.id, seq=self.seq, player=seat, view=self.player_state(seat)))
        if request.type == "new_token":
            return self._renew(request, joined, bound)
        assert request.type not in SERVICE_TYPES
        return self._command(request, joined, bound)

    def _claim(self, seat: str, given: Any, rejoining: bool) -> str:
        """The seat's token: a new one for a free seat; a held seat only for its token (or for the
        connection that already holds it)."""
        held = self._tokens.get(seat)
        if held is None:
            # A free seat goes to its first join. One that brings a well-formed token keeps it: after
            # a restart the referee has forgotten its tokens, and the links already handed out (a
            # phone's URL, a terminal's --token) must stay good. It grants nothing a first join
            # did not already get.
            fresh = given if isinstance(given, str) and TOKEN_RE.match(given) else new_token()
            self._tokens[seat] = fresh
            return fresh
        if rejoining:
            return held
        if given is None:
            raise ProtocolError(
                "seat_taken",
                f"seat {seat} is taken; to re-join as {seat} give the token shown when {seat} joined",
            )
        if not (isinstance(given, str) and hmac.compare_digest(given.encode(), held.encode())):
            raise ProtocolError(
                "bad_token", f"that is not the token of seat {seat}; give the token shown when {seat} joined"
            )
        return held

    def _renew(self, request: Request, joined: str | None, bound: str | None) -> Outcome:
        """A new token for the joined seat (a link given to the wrong person, a lost phone): the old
        one stops working, and every other connection of the seat is cut off (the service drops
        them), so whoever holds the old token must join again - and cannot."""
        seat = self._acting_seat(request, joined, bound)
        if bound is not None:
            raise ProtocolError(
                "no_tokens", "with --secure each seat's key proves the seat; there is no token"
            )
        token = self._tokens[seat] = new_token()
        return Outcome(ok_reply(request.id, player=seat, token=token), renewed=seat)

    def _check_seat(self, seat: str | None, bound: str | None) -> str:
        if seat is None:
            raise ProtocolError("missing_field", 'say which seat you are joining as: "player": "<seat>"')
        named = find_seat(seat, self.acting_seats())
        if named is None:
            raise ProtocolError(
                "unknown_seat",
                f"there is no seat {seat!r} in this game; seats: {', '.join(self.acting_seats())}",
            )
        seat = named  # the spelling given at setup
        if bound is not None and seat_key(seat) != seat_key(bound):
            raise ProtocolError(
                "not_your_seat", f"your key belongs to {bound!r}; you cannot join as {seat!r}"
            )
        return seat

    def _acting_seat(self, request: Request, joined: str | None, bound: str | None) -> str:
        if joined is None:
            raise ProtocolError("not_joined", 'join a seat first: {"type": "join", "player": "<seat>"}')
        if bound is not None and seat_key(bound) != seat_key(joined):
            raise ProtocolError(
                "not_your_seat", f"your key belongs to {bound!r}; it cannot act for {joined!r}"
            )
        if request.player is not None and seat_key(request.player) != seat_key(joined):
            raise ProtocolError(
                "not_your_seat", f"this connection plays for {joined!r}; it cannot act for {request.player!r}"
            )
        return joined

    def _command(self, request: Request, joined: str | None, bound: str | None) -> Outcome:
        seat = self._acting_seat(request, joined, bound)
        stored = self.store.reply_for(request.id, seat)
        if stored is not None:
            return Outcome({**stored, "duplicate": True})
        body = {**request.body, "player": seat}
        for name in SEAT_FIELDS:
            if isinstance(body.get(name), str):
                body[name] = find_seat(body[name], self.adapter.names(self.game)) or body[name]
        body.pop("v", None)
        body.pop("id", None)
        try:
            events = self.adapter.apply(self.game, body)
        except RuleRefusal as exc:
            # Refusals are not stored (so cost no fsync): they change nothing, and a retry of the
            # same id is checked again against the game as it is then, which is what the player
            # meant anyway - it can still be applied at most once.
            return Outcome(error_reply(request.id, exc.code, exc.message))
        first = self.seq + 1
        reply = ok_reply(request.id, seq=first + len(events) - 1, events=len(events))
        seqs = self.store.append(events, command_id=request.id, seat=seat, reply=reply)
        self.seq = seqs[-1] if seqs else self.seq
        outcome = Outcome(reply)
        for seq, event in zip(seqs, events):
            public = self.adapter.public_event(event)
            outcome.updates.append((seq, public))
            for who, payload in self.adapter.private_events(event).items():
                outcome.private.append((who, seq, payload))
        return outcome


def new_token() -> str:
    """A seat token: 96 random bits, URL-safe. Never one that starts with "-": typed after
    `--token` on a command line it would read as an option (1 token in 64 did)."""
    while (token := secrets.token_urlsafe(12)).startswith("-"):
        pass
    return token


def new_seed() -> int:
    """A seed for a new game: 256 random bits, so hidden order cannot be searched for from what the
    table shows. It is kept only in the store's record (never published or printed)."""
    return secrets.randbits(256)


def _adapter(name: str) -> GameAdapter:
    try:
        return GAMES[name]
    except KeyError:
        raise StoreError(f"unknown game {name!r}; choose one of: {', '.join(GAMES)}") from None
