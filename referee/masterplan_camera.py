"""The camera feed for Master Plan: vision Observations in, the game's own commands out.

The camera is one more reporter at the table (issue 8). It never changes the game itself: it
sends the same commands a player would, through the same session, so every refusal, event and
replay works as for typed commands.

- A face-down card that appears, lies still and is not a card the game knows, during the
  current player's Add step, is that player's `place_card` (corners in table mm, its sigma).
  A refused placement (overlap, not a card, wrong step) becomes a Notice and is not tried again
  until the card moves.
- A pawn that settles on another card is its player's `move` to that card (the engine measures
  the jump with the uncertainty verdicts and applies the table's close-call policy; under "ask"
  the players answer with `confirm_measurement`).
- A card turned face up whose name the recogniser read answers the engine's `identity_needed`
  (`report_identity`, as "camera").
- A Switch / Control Panel: once the chosen cards have moved and lie still, their new corners
  are reported (`report_positions`); if the player did not say which cards, the cards that
  moved are the choice (`choose_target`, the physical act of moving them).
- Anything else the camera sees that the game does not take (a card taken away, a pawn moved
  out of turn) is a Notice for the players; they correct it at the table or by command.

Setup: `table_setup(observation, villains)` reads the starting cards (face-up, named by
villain) and the Trophy (named "Trophy") from the first observation that shows them all.
Pawn colours map to players either as configured or learned from the pawn standing on each
player's starting card.

The feed reconciles from the game's public state after every observation, so manual commands
(a player who reports a name, moves by command, or answers a choice) simply leave it nothing
to do; it never undoes them.
"""

from __future__ import annotations

import itertools
import math
import os
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from referee.masterplan import TROPHY, start_id
from referee.protocol import Request
from referee.session import GameSession, Outcome
from vision.observation import Observation, TrackedCard

CAMERA = "camera"  # the reporter seat the camera acts as (masterplan.REPORTERS)
TROPHY_NAME = "Trophy"
# A tracked card whose centre lies this close to a known card's centre is that card (a track
# lost and found again), not a new one.
SAME_CARD_MM = 20.0
# A card counts as moved by a Switch / Control Panel once its centre is this far from where
# the game has it.
MOVED_MM = 15.0
NOTICE_LIMIT = 50


class SetupNotFound(Exception):
    """The camera does not (yet) show every starting card and the Trophy."""


@dataclass(frozen=True)
class Notice:
    """Something the camera saw that the game did not take, in the players' words."""

    frame: int
    kind: str  # "refused" (the engine said no) | "ignored" (nothing to do with it) | "info"
    message: str
    code: str | None = None
    command: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        out = {"frame": self.frame, "kind": self.kind, "message": self.message}
        if self.code:
            out["code"] = self.code
        if self.command is not None:
            out["command"] = self.command
        return out


@dataclass
class TableSetup:
    """The setup the camera saw: outlines for the game config and which track is which card."""

    starting_cards: dict[str, list[list[float]]]  # player -> 4 corners mm
    trophy: list[list[float]]
    tracks: dict[int, str]  # vision track id -> space id
    pawn_colors: dict[str, str]  # colour -> player (learned so far)
    notes: list[str] = field(default_factory=list)

    def config_layout(self) -> dict[str, Any]:
        """The `starting_cards` / `trophy` entries of a Master Plan config."""
        return {"starting_cards": self.starting_cards, "trophy": self.trophy}


def _corners(card: TrackedCard) -> list[list[float]]:
    if card.corners_mm is None:
        raise SetupNotFound("the camera has no table calibration: run 'tabletop calibrate table' first")
    return [[float(x), float(y)] for x, y in card.corners_mm]


def _centre(corners: Any) -> tuple[float, float]:
    xs = [p[0] for p in corners]
    ys = [p[1] for p in corners]
    return sum(xs) / len(xs), sum(ys) / len(ys)


def _dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def table_setup(
    obs: Observation, villains: dict[str, str], pawn_colors: dict[str, str] | None = None
) -> TableSetup:
    """The starting cards (`villains`: player -> villain, named on the cards) and the Trophy in
    `obs`; raise SetupNotFound saying what is missing. A starting card read as another villain's
    name is taken by elimination when it is the only one left (the note says so)."""
    visible = [c for c in obs.cards if not c.hidden and c.face == "up"]
    trophies = [c for c in visible if c.name == TROPHY_NAME]
    if len(trophies) != 1:
        raise SetupNotFound(
            "the camera does not see the Trophy yet" if not trophies else "the camera sees two Trophies"
        )
    by_villain = {v: p for p, v in villains.items()}
    found: dict[str, TrackedCard] = {}
    unknown: list[TrackedCard] = []
    # Of two cards read as one villain, the one nearer its face is that villain's.
    for c in sorted(visible, key=lambda c: c.face_distance):
        if c is trophies[0]:
            continue
        player = by_villain.get(c.name or "")
        if player is not None and player not in found:
            found[player] = c
        else:
            unknown.append(c)
    notes = []
    missing = [p for p in villains if p not in found]
    if len(missing) == 1 and len(unknown) == 1:
        (player,) = missing
        found[player] = unknown[0]
        card = unknown[0]
        x, y = _centre(card.corners_mm) if card.corners_mm is not None else (float("nan"),) * 2
        # The recogniser misread one starting card (a pawn standing on it hides part of its face):
        # by elimination it is the missing villain's. Say so plainly: which card, and why.
        read = (
            f"was read as {card.name}, a villain already found on another card"
            if card.name in by_villain
            else (f"was read as {card.name}" if card.name else "could not be read")
        )
        whose = f"{villains[player]}'s" + ("" if player == villains[player] else f" ({player}'s)")
        notes.append(
            f"the starting card at ({x:.0f}, {y:.0f}) mm {read} (a pawn on a card hides part of its face);"
            f" it is taken as {whose}, the only starting card left -"
            " check it on the overview"
        )
        missing = []
    if missing:
        names = ", ".join(villains[p] for p in missing)
        raise SetupNotFound(f"the camera does not see the starting card of {names} yet")
    tracks = {c.id: start_id(p) for p, c in found.items()}
    tracks[trophies[0].id] = TROPHY
    colors = dict(pawn_colors or {})
    setup = TableSetup(
        starting_cards={p: _corners(c) for p, c in found.items()},
        trophy=_corners(trophies[0]),
        tracks=tracks,
        pawn_colors=colors,
        notes=notes,
    )
    _learn_pawns(setup.pawn_colors, obs, tracks)
    return setup


def _learn_pawns(colors: dict[str, str], obs: Observation, tracks: dict[int, str]) -> list[str]:
    """Map a pawn colour to a player when that pawn stands on the player's starting card and
    neither is mapped yet. Returns what was learned."""
    learned = []
    for pawn in obs.pawns:
        if pawn.hidden or pawn.color in colors or pawn.card_id is None:
            continue
        space = tracks.get(pawn.card_id, "")
        if not space.startswith("start:"):
            continue
        player = space.split(":", 1)[1]
        if player in colors.values():
            continue
        colors[pawn.color] = player
        learned.append(f"the {pawn.color} pawn is {player}'s")
    return learned


class FeedTarget(Protocol):
    """Where the feed's commands go: the game's public state and a way to submit a command."""

    def state(self) -> dict[str, Any]: ...
    def submit(self, body: dict[str, Any], seat: str) -> dict[str, Any]: ...


class SessionTarget:
    """A GameSession in this process. `deliver(outcome)` hands accepted events to the
    transport (the service's PUB); None when nothing is listening (the demo, tests)."""

    def __init__(self, session: GameSession, deliver: Callable[[Outcome], None] | None = None) -> None:
        self.session = session
        self.deliver = deliver
        session.camera_referees()  # the camera reports this table: its seat exists
        # Unique over restarts too: the store remembers every command id (idempotent retries).
        self._ids = (f"camera-{os.urandom(6).hex()}-{n}" for n in itertools.count(1))

    def state(self) -> dict[str, Any]:
        return self.session.public_state()

    def submit(self, body: dict[str, Any], seat: str) -> dict[str, Any]:
        request = Request(next(self._ids), body["type"], seat, dict(body))
        outcome = self.session.handle(request, seat)
        if self.deliver is not None:
            self.deliver(outcome)
        return outcome.reply


@dataclass
class Submitted:
    """One command the feed sent and what came back."""

    frame: int
    seat: str
    command: dict[str, Any]
    reply: dict[str, Any]
    measured: dict[str, Any] | None = None  # a move: the jump's gap, sigma and verdict as judged

    @property
    def ok(self) -> bool:
        return bool(self.reply.get("ok"))

    def describe(self) -> str:
        """One line in words for the referee's log: who, what, and the referee's answer."""
        what = describe_command(self.command)
        if self.ok:
            return f"{self.seat} {what}: accepted"
        return (
            f"{self.seat} {what}: refused - {self.reply.get('error', {}).get('message', 'no reason given')}"
        )


def describe_command(body: dict[str, Any]) -> str:
    """A command the camera sends, in words (the log and notices show these, not raw JSON)."""
    kind = body.get("type")
    if kind == "place_card":
        x, y = _centre(body.get("corners") or [[0.0, 0.0]])
        return f"places a card face down as {body.get('space')} at ({x:.0f}, {y:.0f}) mm"
    if kind == "move":
        return f"moves the pawn to {body.get('to')}"
    if kind == "report_identity":
        return f"reports that {body.get('space')} is {body.get('name')}"
    if kind == "choose_target":
        return f"chooses {' and '.join(body.get('spaces', []))}"
    if kind == "report_positions":
        return f"reports where {' and '.join(sorted(body.get('positions', {})))} now lie"
    return str(kind).replace("_", " ")


def waiting_for(state: dict[str, Any]) -> str | None:
    """What the referee waits for from the players, in words - above all what the camera cannot
    see (ending a step, drawing), so a game that does not go on says why."""
    if state.get("game_over"):
        return None
    w = state.get("waiting")
    if w:
        who = w.get("player") or state.get("current")
        kind = w.get("for")
        if kind == "report_identity":
            return f"waiting for the name of the card turned up at {w.get('space')} (the camera or report_identity)"
        if kind == "confirm_measurement":
            return f"waiting for the players to measure the jump to {w.get('to')} (confirm_measurement)"
        return f"waiting for {who}: {str(kind).replace('_', ' ')}"
    who, step = state.get("current"), state.get("step")
    if step == "add":
        hand = next((p.get("hand_size") for p in state.get("players", []) if p.get("name") == who), None)
        if hand == 0:
            return (
                f"waiting for {who} to end the Add step (skip_step) or draw: {who} has no cards in hand,"
                " and the camera cannot see a turn end"
            )
        return f"waiting for {who} to place a card face down, or to end the Add step (skip_step) or draw"
    if step == "move":
        return f"waiting for {who} to move the pawn, or to skip the Move step (skip_step)"
    return None


class CameraFeed:
    """Turns Observations into Master Plan commands for the current game state."""

    def __init__(self, target: FeedTarget, setup: TableSetup) -> None:
        self.target = target
        self.tracks: dict[int, str] = dict(setup.tracks)  # track id -> space id
        self.pawn_colors: dict[str, str] = dict(setup.pawn_colors)  # colour -> player
        self.notices: deque[Notice] = deque(maxlen=NOTICE_LIMIT)
        self.history: list[Submitted] = []
        self._refused: dict[int, str] = {}  # track -> why its placement was refused (until it moves)
        self._pending_move: dict[str, tuple[str, int]] = {}  # player -> (space the pawn settled on, turn)
        self._told: set[tuple[str, str]] = set()  # notices already given (kind, key)
        self._frame = 0
        self._obs: Observation | None = None
        self._pawns_seen: set[str] = set()
        # Switch / Control Panel: space -> (track, face, name) lying there when the wait began
        self._places: dict[str, tuple[int, str, str | None] | None] = {}
        self._first_seen: dict[int, int] = {}  # track -> the turn in which the camera first saw it
        self._after_ok: Callable[[], None] | None = None
        for note in setup.notes:
            self._notice("info", note)

    # ---- input ---------------------------------------------------------------------------------
    def observe(self, obs: Observation) -> list[Submitted]:
        """Take one Observation; return the commands sent because of it."""
        self._obs, self._frame = obs, obs.frame
        for learned in _learn_pawns(self.pawn_colors, obs, self.tracks):
            self._notice("info", learned)
        state = self.target.state()
        for card in obs.cards:
            self._first_seen.setdefault(card.id, state.get("turn", 0))
        known = {t["space"] for t in state.get("table", [])}
        for e in obs.events:
            if e.kind == "moved" and e.card_id is not None:
                self._refused.pop(e.card_id, None)
            elif e.kind == "removed" and e.card_id is not None:
                space = self.tracks.get(e.card_id)
                if space is not None and space in known:
                    self._notice(
                        "ignored",
                        f"card {space} was taken off the table, but the game still has it there: put it back",
                    )
                else:
                    self.tracks.pop(e.card_id, None)  # destroyed or taken by the rules: gone
                self._refused.pop(e.card_id, None)
            elif e.kind == "pawn_moved" and e.pawn is not None and e.to_card is not None:
                self._pawn_settled(e.pawn, e.to_card, state)
        for pawn in obs.pawns:
            # The tracker reports a pawn's first sighting without an event: where it stands then
            # counts as where it settled.
            if pawn.color not in self._pawns_seen and not pawn.hidden:
                self._pawns_seen.add(pawn.color)
                if pawn.card_id is not None:
                    self._pawn_settled(pawn.color, pawn.card_id, state)
        return self.settle()

    def settle(self) -> list[Submitted]:
        """Send every command the current observation calls for (also after a manual command)."""
        sent: list[Submitted] = []
        if self._obs is None:
            return sent
        for _ in range(20):  # each pass sends at most one command, then looks at the game again
            state = self.target.state()
            if state.get("game_over"):
                break
            self._adopt_known_cards(state)
            step = self._next_command(state)
            if step is None:
                break
            body, seat, on_refusal = step
            measured = None
            if body["type"] == "move":
                measured = next(
                    (
                        {k: m[k] for k in ("gap_mm", "sigma_gap_mm", "verdict")}
                        for m in state.get("moves", [])
                        if m.get("to") == body["to"]
                    ),
                    None,
                )
            result = Submitted(self._frame, seat, body, self.target.submit(body, seat), measured)
            self.history.append(result)
            sent.append(result)
            after_ok, self._after_ok = self._after_ok, None
            if not result.ok:
                on_refusal(result.reply.get("error", {}))
            elif after_ok is not None:
                after_ok()
        return sent

    # ---- deciding ------------------------------------------------------------------------------
    def _next_command(self, state: dict[str, Any]):
        waiting = state.get("waiting")
        current = state.get("current")
        self._pending_move = {
            p: (s, turn) for p, (s, turn) in self._pending_move.items() if turn == state.get("turn")
        }
        if waiting is None or waiting.get("for") not in ("choose_target", "report_positions"):
            self._places = {}
        if waiting is not None:
            return self._answer(waiting, state)
        if state.get("step") == "move" and current in self._pending_move:
            return self._move(current, state)
        if state.get("step") == "add":
            return self._placement(current, state)
        return None

    def _answer(self, w: dict[str, Any], state: dict[str, Any]):
        kind = w.get("for")
        if kind == "report_identity" and w.get("space"):
            card = self._card_of(w["space"])
            if card is None or card.face != "up" or not card.name:
                return None
            key = f"identity:{w['space']}:{card.name}"
            if ("refused", key) in self._told:
                return None  # the engine said no to this name: a player reports it by command
            body = {"type": "report_identity", "space": w["space"], "name": card.name}
            return body, CAMERA, self._refusal_notice(key)
        if kind == "extra_move" and w.get("player") in self._pending_move:
            return self._move(w["player"], state)
        if kind == "choose_target" and w.get("effect") in ("swap_two", "relocate_one"):
            self._remember_places(w.get("options", []), state)
            moved = self._swapped(w.get("options", []), state) if w["effect"] == "swap_two" else None
            if moved is None:
                need = 2 if w["effect"] == "swap_two" else 1
                moved = [s for s in w.get("options", []) if self._has_moved(s, state)]
                if len(moved) != need:
                    return None
            key = f"choose:{','.join(sorted(moved))}"
            if ("refused", key) in self._told:
                return None
            body = {"type": "choose_target", "spaces": sorted(moved)}
            return body, w["player"], self._refusal_notice(key)
        if kind == "report_positions":
            spaces = list(w.get("spaces", []))
            self._remember_places(spaces, state)
            cards = {s: self._card_of(s) for s in spaces}
            if w.get("effect") == "swap_two" and self._swapped(spaces, state) == sorted(spaces):
                # Each card now lies where the other was: the camera sees the two places change.
                a, b = spaces
                here_a, here_b = self._card_at(a, state), self._card_at(b, state)
                assert here_a is not None and here_b is not None
                cards = {a: here_b, b: here_a}
            elif any(c is None or c.hidden or c.corners_mm is None for c in cards.values()) or not all(
                self._has_moved(s, state) for s in cards
            ):
                return None
            positions = {s: _corner_list(c) for s, c in cards.items()}  # type: ignore[arg-type]
            key = f"positions:{sorted(positions.items())}"
            if ("refused", key) in self._told:
                return None  # the same corners were refused already: wait for them to change
            tracks = {c.id: s for s, c in cards.items() if c is not None}

            def refused(error: dict[str, Any]) -> None:
                self._notice_once("refused", key, error.get("message", "refused"), error.get("code"))

            self._after_ok = lambda: self._retrack(tracks)
            return {"type": "report_positions", "positions": positions}, CAMERA, refused
        if kind == "confirm_measurement":
            self._notice_once(
                "info",
                f"measure:{w.get('from')}:{w.get('to')}",
                f"the jump from {w.get('from')} to {w.get('to')} is {w.get('gap_mm')} mm"
                f" (+/- {w.get('sigma_gap_mm')}): too close to call - measure it with a card and send"
                " confirm_measurement",
            )
        return None

    def _move(self, player: str, state: dict[str, Any]):
        to = self._pending_move[player][0]
        if _position(state, player) == to:
            del self._pending_move[player]
            return None

        def refused(error: dict[str, Any]) -> None:
            if error.get("code") != "waiting":
                self._pending_move.pop(player, None)
            self._notice(
                "refused",
                f"{player}'s pawn on {to}: {error.get('message', 'refused')} - put it back",
                error.get("code"),
                {"type": "move", "to": to},
            )

        return {"type": "move", "to": to}, player, refused

    def _placement(self, player: str | None, state: dict[str, Any]):
        if not player or self._obs is None:
            return None
        for card in self._obs.cards:
            if card.id in self.tracks or card.id in self._refused or card.hidden:
                continue
            if card.face != "down" or card.corners_mm is None:
                continue
            if self._first_seen.get(card.id) != state.get("turn"):
                # put down in an earlier turn (or before the game): nobody's placement
                self._notice_once(
                    "ignored",
                    f"stray:{card.id}",
                    f"a face-down card at ({_centre(card.corners_mm)[0]:.0f}, {_centre(card.corners_mm)[1]:.0f}) mm"
                    " was put down outside its player's turn: it is not in the game; take it away"
                    " or place it by command",
                )
                continue
            space = self._space_id(card.id, state)
            body = {
                "type": "place_card",
                "corners": _corner_list(card),
                "space": space,
                "sigma_mm": round(max(card.sigma_mm or (0.0,)), 3),
            }

            def refused(error: dict[str, Any], track: int = card.id, body: dict[str, Any] = body) -> None:
                self.tracks.pop(track, None)
                self._refused[track] = error.get("message", "refused")
                why = error.get("message", "refused")
                if error.get("code") == "empty_hand":
                    # Most likely the next player's card while the referee still waits for this
                    # player to end the turn - which only a command can say.
                    why = (
                        f"{player} has no cards in hand; if {player}'s turn is over, {player} sends"
                        " skip_step or draw (the camera cannot see that), then the card is put down again"
                    )
                self._notice(
                    "refused",
                    f"the card put down at ({_centre(body['corners'])[0]:.0f}, {_centre(body['corners'])[1]:.0f}) mm"
                    f" in {player}'s Add step was not accepted: {why}",
                    error.get("code"),
                    body,
                )

            self.tracks[card.id] = space  # taken back if the engine refuses it
            return body, player, refused
        return None

    # ---- Switch / Control Panel ------------------------------------------------------------
    def _card_at(self, space: str, state: dict[str, Any]) -> TrackedCard | None:
        """The visible card now lying where the game has `space`."""
        where = next((t["corners"] for t in state.get("table", []) if t["space"] == space), None)
        if where is None or self._obs is None:
            return None
        centre = _centre(where)
        for card in self._obs.cards:
            if (
                not card.hidden
                and card.corners_mm is not None
                and _dist(_centre(card.corners_mm), centre) <= SAME_CARD_MM
            ):
                return card
        return None

    def _remember_places(self, spaces: list[str], state: dict[str, Any]) -> None:
        for s in spaces:
            if self._places.get(s) is None:
                # A place under a hand is looked at again later, not remembered as empty.
                card = self._card_at(s, state)
                self._places[s] = None if card is None else (card.id, card.face, card.name)

    def _swapped(self, options: list[str], state: dict[str, Any]) -> list[str] | None:
        """The two spaces whose places the camera saw change (another card, or the other face,
        now lying there, still) since the referee began waiting; None unless exactly two."""
        changed = []
        for s in options:
            before, now = self._places.get(s), self._card_at(s, state)
            if before is None or now is None:
                continue
            if now.id != before[0] or (now.face, now.name) != before[1:]:
                changed.append(s)
        return sorted(changed) if len(changed) == 2 else None

    def _retrack(self, tracks: dict[int, str]) -> None:
        for track in [t for t, s in self.tracks.items() if s in tracks.values()]:
            del self.tracks[track]
        self.tracks.update(tracks)

    # ---- helpers ------------------------------------------------------------------------------
    def _pawn_settled(self, color: str, track: int, state: dict[str, Any]) -> None:
        player = self.pawn_colors.get(color)
        space = self.tracks.get(track)
        if player is None or space is None:
            return
        if _position(state, player) == space:
            self._pending_move.pop(player, None)
            return
        if player == state.get("current"):
            self._pending_move[player] = (space, state.get("turn", 0))
        else:
            self._notice(
                "ignored",
                f"{player}'s pawn is on {space}, but it is {state.get('current')}'s turn"
                f" and the game has {player} on {_position(state, player)}: put it back",
            )

    def _adopt_known_cards(self, state: dict[str, Any]) -> None:
        """A track the feed does not know that lies where a known card lies is that card seen
        again (the tracker lost it under a hand); so is a track that replaces a removed one."""
        if self._obs is None:
            return
        mapped = {s: t for t, s in self.tracks.items()}
        live = {c.id for c in self._obs.cards}
        for card in self._obs.cards:
            if card.id in self.tracks or card.corners_mm is None or card.hidden:
                continue
            here = _centre(card.corners_mm)
            for t in state.get("table", []):
                if _dist(here, _centre(t["corners"])) > SAME_CARD_MM:
                    continue
                old = mapped.get(t["space"])
                if old is None or old not in live:
                    if old is not None:
                        self.tracks.pop(old, None)
                    self.tracks[card.id] = t["space"]
                    mapped[t["space"]] = card.id
                break

    def _card_of(self, space: str) -> TrackedCard | None:
        if self._obs is None:
            return None
        for card in self._obs.cards:
            if self.tracks.get(card.id) == space:
                return card
        return None

    def _has_moved(self, space: str, state: dict[str, Any]) -> bool:
        card = self._card_of(space)
        if card is None or card.hidden or card.corners_mm is None:
            return False
        where = next((t["corners"] for t in state.get("table", []) if t["space"] == space), None)
        return where is not None and _dist(_centre(card.corners_mm), _centre(where)) > MOVED_MM

    def _space_id(self, track: int, state: dict[str, Any]) -> str:
        taken = {t["space"] for t in state.get("table", [])} | set(self.tracks.values())
        space = f"S{track}"
        n = 1
        while space in taken:
            n += 1
            space = f"S{track}.{n}"
        return space

    def _refusal_notice(self, key: str) -> Callable[[dict[str, Any]], None]:
        def refused(error: dict[str, Any]) -> None:
            self._notice_once("refused", key, error.get("message", "refused"), error.get("code"))

        return refused

    def _notice_once(self, kind: str, key: str, message: str, code: str | None = None) -> None:
        if (kind, key) not in self._told:
            self._told.add((kind, key))
            self._notice(kind, message, code)

    def _notice(
        self, kind: str, message: str, code: str | None = None, command: dict[str, Any] | None = None
    ) -> None:
        self.notices.append(Notice(self._frame, kind, message, code, command))

    def status(self) -> dict[str, Any]:
        """What the displays show about the camera: the last notices, and what the referee waits
        for from the players."""
        return {
            "notices": [n.to_json() for n in list(self.notices)[-5:]],
            "waiting_for": waiting_for(self.target.state()),
        }


def _corner_list(card: TrackedCard) -> list[list[float]]:
    assert card.corners_mm is not None
    return [[round(float(x), 3), round(float(y), 3)] for x, y in card.corners_mm]


def _position(state: dict[str, Any], player: str) -> str | None:
    for p in state.get("players", []):
        if p["name"] == player:
            return p.get("position")
    return None
