"""The two rules engines behind one shape, so the service, the store and the clients treat
Master Plan and The Plan alike. Events are stored whole ({"type", "public", "private",
"secret"}); only `public_event` reaches PUB and only `private_events` reach a seat."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from referee import masterplan, theplan
from referee.errors import RefereeError, RuleViolation
from referee.protocol import PROTOCOL_VERSION

MAX_LISTED_COMMANDS = 40


def seat_key(name: str) -> str:
    """How seat names compare: as people read them, so 'Ann', 'ann' and a decomposed 'Zoë' are
    one person each (NFC-normalised, then case-folded). The spelling given at setup is kept for
    display; this key is only for matching."""
    return unicodedata.normalize("NFC", unicodedata.normalize("NFC", name).casefold())


def find_seat(name: str, seats: Iterable[str]) -> str | None:
    """The seat among `seats` that `name` means (any case or Unicode form), or None."""
    key = seat_key(name)
    return next((s for s in seats if seat_key(s) == key), None)


def check_distinct_seats(names: Iterable[str]) -> None:
    """Refuse names that would be one seat (they differ only by case or Unicode form)."""
    seen: dict[str, str] = {}
    for name in names:
        other = seen.setdefault(seat_key(name), name)
        if other != name:
            raise SetupError(f"{other} and {name} would be the same seat; give every player a different name")


class RuleRefusal(RefereeError):
    """A command the game refuses (a broken rule or a malformed command); nothing changed."""


class SetupError(Exception):
    """A game that cannot be set up as asked; the message says what to change."""


class GameAdapter(Protocol):
    name: str

    def versions(self) -> dict[str, Any]: ...
    def make_config(self, players: list[str], options: dict[str, str]) -> dict[str, Any]: ...
    def setup(self, config: dict[str, Any], seed: int) -> tuple[Any, list[dict[str, Any]]]: ...
    def replay(
        self, config: dict[str, Any], seed: int, events: list[dict[str, Any]], each: Any = None
    ) -> Any: ...
    def apply(self, game: Any, command: dict[str, Any]) -> list[dict[str, Any]]: ...
    def public_event(self, event: dict[str, Any]) -> dict[str, Any]: ...
    def private_events(self, event: dict[str, Any]) -> dict[str, dict[str, Any]]: ...
    def public_view(self, game: Any) -> dict[str, Any]: ...
    def player_view(self, game: Any, seat: str) -> dict[str, Any]: ...
    def seats(self, game: Any) -> list[str]: ...
    def names(self, game: Any) -> list[str]: ...

    reporters: tuple[str, ...]
    camera_seats: tuple[str, ...]


def _flag(options: dict[str, str], key: str) -> bool:
    value = options.pop(key, "no").lower()
    if value not in ("yes", "no", "true", "false", "on", "off", "1", "0"):
        raise SetupError(f"--option {key}={value} must be yes or no")
    return value in ("yes", "true", "on", "1")


def _no_more(options: dict[str, str], known: str) -> None:
    if options:
        raise SetupError(f"unknown --option {', '.join(sorted(options))}; this game knows: {known}")


class _EngineAdapter:
    """What both engines share: commands from JSON, whole events as dicts, views."""

    name: str
    engine: Any  # the engine's package (referee.masterplan / referee.theplan)
    game_class: Any
    reporters: tuple[str, ...]  # seats that report the physical table (camera, steward)
    camera_seats: tuple[str, ...] = ()  # reporters that exist only where a camera referees

    def versions(self) -> dict[str, Any]:
        return {"rules": self.engine.game.RULES_VERSION, "protocol": PROTOCOL_VERSION}

    def setup(self, config: dict[str, Any], seed: int) -> tuple[Any, list[dict[str, Any]]]:
        try:
            game, events = self.game_class.setup(config, seed)
        except (RuleViolation, ValueError) as exc:
            raise SetupError(str(exc)) from None
        # Seats are matched without regard to case at join and in commands, so names that differ
        # only by case would be one seat.
        check_distinct_seats([*self.names(game), *self.reporters])
        return game, [_as_dict(e) for e in events]

    def replay(
        self,
        config: dict[str, Any],
        seed: int,
        events: list[dict[str, Any]],
        each: Callable[[Any, int], None] | None = None,
    ) -> Any:
        """The game rebuilt from its events; `each(game, n)` sees every step on the way (after n events)."""
        return self.game_class.replay(events, each=each)

    def apply(self, game: Any, command: dict[str, Any]) -> list[dict[str, Any]]:
        try:
            return [_as_dict(e) for e in game.apply(self.engine.command_from_dict(command))]
        except RuleViolation as exc:
            raise RuleRefusal(exc.code, exc.message) from None
        except ValueError as exc:  # a malformed command
            raise RuleRefusal("bad_command", str(exc)) from None

    def public_event(self, event: dict[str, Any]) -> dict[str, Any]:
        return self.engine.public_event(event)

    def private_events(self, event: dict[str, Any]) -> dict[str, dict[str, Any]]:
        return {p: self.engine.private_events_for(event, p) for p in event.get("private", {})}

    def public_view(self, game: Any) -> dict[str, Any]:
        return game.public_view()

    def player_view(self, game: Any, seat: str) -> dict[str, Any]:
        if seat in self.reporters:
            return game.public_view()
        # What this seat may do now, so a terminal or phone can offer it (placements are
        # continuous and not listed).
        options = [c.to_dict() for c in game.legal_commands(seat)]
        return {**game.player_view(seat), "you_can": options[:MAX_LISTED_COMMANDS]}

    def seats(self, game: Any) -> list[str]:
        raise NotImplementedError

    def names(self, game: Any) -> list[str]:
        """Everyone a command may name: the seats (and The Plan's Ghosts)."""
        return self.seats(game)


def _as_dict(event: Any) -> dict[str, Any]:
    return event if isinstance(event, dict) else event.to_dict()


class MasterPlanAdapter(_EngineAdapter):
    name = "masterplan"
    engine = masterplan
    game_class = masterplan.MasterPlanGame
    reporters = tuple(masterplan.REPORTERS)
    camera_seats = ("camera",)

    def make_config(self, players: list[str], options: dict[str, str]) -> dict[str, Any]:
        """Seats as NAME or NAME:VILLAIN; unnamed villains are dealt out in the rulebook's order."""
        options = dict(options)
        named = [(p.partition(":")[0].strip(), p.partition(":")[2].strip()) for p in players]
        free = [v for v in masterplan.VILLAINS if v not in {v for _, v in named}]
        seats = [
            {"name": name, "villain": villain or (free.pop(0) if free else "")} for name, villain in named
        ]
        config: dict[str, Any] = {
            "players": seats,
            "villain_powers": _flag(options, "powers"),
            "deck_mode": options.pop("deck", "digital"),
        }
        settings: dict[str, Any] = {}
        for key in ("reach_mm", "verdict_k"):
            if key in options:
                try:
                    settings[key] = float(options.pop(key))
                except ValueError:
                    raise SetupError(f"--option {key} must be a number") from None
        if "close_calls" in options:
            settings["close_call_policy"] = options.pop("close_calls")
        if settings:
            config["settings"] = settings
        _no_more(
            options,
            "powers=yes|no, deck=digital|physical, reach_mm=N, verdict_k=N, close_calls=ask|lenient|strict",
        )
        self.setup(config, 0)  # validates the whole configuration now, with the engine's own words
        return config

    def public_view(self, game: Any) -> dict[str, Any]:
        # Where the current pawn may jump, with gaps and verdicts, is public (the table is): the
        # displays colour the destinations and the projector paints them.
        view = game.public_view()
        current = view.get("current")
        view["moves"] = game.legal_moves(current) if current and not view.get("game_over") else []
        return view

    def seats(self, game: Any) -> list[str]:
        return list(game.config.players)


class ThePlanAdapter(_EngineAdapter):
    name = "theplan"
    engine = theplan
    game_class = theplan.ThePlanGame
    reporters = (theplan.STEWARD,)

    def make_config(self, players: list[str], options: dict[str, str]) -> dict[str, Any]:
        options = dict(options)
        config: dict[str, Any] = {
            "seats": players,
            "mode": options.pop("mode", "digital"),
            "bribes": _flag(options, "bribes"),
        }
        if "ghosts" in options:
            config["ghosts"] = [g.strip() for g in options.pop("ghosts").split("+") if g.strip()]
        if "remove" in options:
            config["removed_plan_types"] = [t.strip() for t in options.pop("remove").split("+") if t.strip()]
        _no_more(options, "mode=digital|physical, bribes=yes|no, ghosts=NAME+NAME, remove=TYPE+TYPE")
        self.setup(config, 0)
        return config

    def player_view(self, game: Any, seat: str) -> dict[str, Any]:
        if seat == theplan.STEWARD:  # what the steward may report, for a phone to offer it
            return game.steward_view()
        return super().player_view(game, seat)

    def seats(self, game: Any) -> list[str]:
        return list(game.state.config.seats)

    def names(self, game: Any) -> list[str]:
        return list(game.state.config.players)


GAMES: dict[str, GameAdapter] = {"masterplan": MasterPlanAdapter(), "theplan": ThePlanAdapter()}
