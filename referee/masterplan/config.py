"""Game configuration: seats and villains, deck mode, geometry settings, the starting layout."""

from __future__ import annotations

import math
import random
from dataclasses import asdict, dataclass, field
from typing import Any

from geometry import DEFAULT_SETTINGS, CardOutline, GeometrySettings, overlaps
from referee.masterplan.deck import DeckError, SpaceDeck, deck_from_dict, default_deck

VILLAINS = ("Z-Mask", "Dr. Badmahn", "Mysterious M", "Ms. Fyre", "Plutonian Poacher", "Monster Nash")
DECK_MODES = ("digital", "physical")
TROPHY = "trophy"
MIN_PLAYERS, MAX_PLAYERS = 3, 6
TROPHY_DISTANCE_MM = 610.0  # docs/rules-masterplan.md, "Default layout": "about 610 mm (two feet)"
REPORTERS = ("camera",)  # who may report the table besides the players


def start_id(player: str) -> str:
    return f"start:{player}"


class ConfigError(ValueError):
    """A game configuration the referee cannot set up; the message says what to change."""


@dataclass(frozen=True)
class Seat:
    name: str
    villain: str


@dataclass(frozen=True)
class MasterPlanConfig:
    """Everything fixed at setup. `starting_cards` ({player: 4 corners}) and `trophy` (4
    corners) default to the layout of docs/rules-masterplan.md (random seat order along the
    contestant edge, one long card length apart, Trophy 610 mm away). `deck` is a parsed deck file (None: the
    bundled default)."""

    seats: tuple[Seat, ...]
    villain_powers: bool = False
    deck_mode: str = "digital"
    settings: GeometrySettings = DEFAULT_SETTINGS
    starting_cards: dict[str, tuple] | None = None
    trophy: tuple | None = None
    deck: SpaceDeck = field(default_factory=default_deck)

    def __post_init__(self) -> None:
        n = len(self.seats)
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise ConfigError(f"Master Plan is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {n}")
        names = [s.name for s in self.seats]
        for s in self.seats:
            if not isinstance(s.name, str) or not s.name or s.name in REPORTERS:
                raise ConfigError(f"{s.name!r} cannot be a player's name")
            if s.villain not in VILLAINS:
                raise ConfigError(f"{s.name}'s villain {s.villain!r} is not one of {', '.join(VILLAINS)}")
        if len(set(names)) != n:
            raise ConfigError("two seats have the same name; every player needs their own")
        villains = [s.villain for s in self.seats]
        if len(set(villains)) != n:
            raise ConfigError("two players chose the same villain; each villain has one pawn")
        if self.deck_mode not in DECK_MODES:
            raise ConfigError(f"deck_mode must be one of {', '.join(DECK_MODES)}, not {self.deck_mode!r}")
        if self.deck.size < 4 * n + 1:
            raise ConfigError(f"the deck has {self.deck.size} cards; {n} players need at least {4 * n + 1}")
        if self.starting_cards is not None and set(self.starting_cards) != set(names):
            raise ConfigError("starting_cards must give one card outline for every player, by name")

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(s.name for s in self.seats)

    def villain(self, player: str) -> str:
        return next(s.villain for s in self.seats if s.name == player)

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": [{"name": s.name, "villain": s.villain} for s in self.seats],
            "villain_powers": self.villain_powers,
            "deck_mode": self.deck_mode,
            "settings": asdict(self.settings),
            "starting_cards": None
            if self.starting_cards is None
            else {p: [list(map(float, c)) for c in corners] for p, corners in self.starting_cards.items()},
            "trophy": None if self.trophy is None else [list(map(float, c)) for c in self.trophy],
            "deck": self.deck.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MasterPlanConfig:
        if not isinstance(data, dict):
            raise ConfigError("the game configuration must be a JSON object")
        players = data.get("players")
        if not isinstance(players, list):
            raise ConfigError("'players' must be a list of {name, villain}")
        seats = []
        for p in players:
            if not isinstance(p, dict) or "name" not in p or "villain" not in p:
                raise ConfigError(f"every player needs a name and a villain, got {p!r}")
            seats.append(Seat(p["name"], p["villain"]))
        try:
            settings = GeometrySettings(**data.get("settings", {}))
        except TypeError as exc:
            raise ConfigError(f"settings: {exc}") from None
        except ValueError as exc:
            raise ConfigError(f"settings: {exc}") from None
        try:
            deck = (
                deck_from_dict(data["deck"], "config deck")
                if data.get("deck") is not None
                else default_deck()
            )
        except DeckError as exc:
            raise ConfigError(str(exc)) from None
        start = data.get("starting_cards")
        if not isinstance(data.get("villain_powers", False), bool):
            raise ConfigError("villain_powers must be true or false")
        try:
            return cls._from_parts(data, seats, settings, deck, start)
        except TypeError:
            raise ConfigError(
                "starting_cards and trophy must be 4 corners [[x, y], ...] in table mm"
            ) from None

    @classmethod
    def _from_parts(cls, data: dict[str, Any], seats: list[Seat], settings: GeometrySettings,
                    deck: SpaceDeck, start: Any) -> MasterPlanConfig:  # fmt: skip
        return cls(
            seats=tuple(seats),
            villain_powers=data.get("villain_powers", False),
            deck_mode=data.get("deck_mode", "digital"),
            settings=settings,
            starting_cards=None if start is None else {k: tuple(map(tuple, v)) for k, v in start.items()},
            trophy=None if data.get("trophy") is None else tuple(map(tuple, data["trophy"])),
            deck=deck,
        )


def default_layout(
    players: tuple[str, ...], rng: random.Random, settings: GeometrySettings = DEFAULT_SETTINGS
) -> tuple[dict[str, CardOutline], CardOutline]:
    """docs/rules-masterplan.md, "Default layout": starting cards in random order along the
    contestant edge (y = 0), one long card length between each, and the Trophy centred about
    610 mm beyond them."""
    w, h = settings.card_short_mm, settings.card_long_mm
    order = list(players)
    rng.shuffle(order)
    pitch = w + h
    starts = {
        p: CardOutline.from_pose(start_id(p), (h + i * pitch + w / 2, h / 2), 0.0, (w, h))
        for i, p in enumerate(order)
    }
    middle = h + (len(order) - 1) * pitch / 2 + w / 2
    trophy = CardOutline.from_pose(TROPHY, (middle, h + TROPHY_DISTANCE_MM + h / 2), 0.0, (w, h))
    return starts, trophy


def layout_from_config(
    config: MasterPlanConfig, rng: random.Random
) -> tuple[dict[str, CardOutline], CardOutline]:
    """The starting cards and Trophy of `config` (or the default layout), checked: no overlap."""
    if config.starting_cards is None and config.trophy is None:
        return default_layout(config.players, rng, config.settings)
    if config.starting_cards is None or config.trophy is None:
        raise ConfigError("give both starting_cards and trophy, or neither for the default layout")
    try:
        starts = {p: CardOutline(start_id(p), c) for p, c in config.starting_cards.items()}
        trophy = CardOutline(TROPHY, config.trophy)
    except ValueError as exc:
        raise ConfigError(f"setup card outline: {exc}") from None
    cards = [*starts.values(), trophy]
    for i, card in enumerate(cards):
        hit = overlaps(card, cards[i + 1 :], config.settings)
        if hit:
            raise ConfigError(f"setup: {card.id} overlaps {hit[0].card_id}; lay the setup cards apart")
    xs = sorted(round(c.center_mm[0], 6) for c in starts.values())
    if any(math.isclose(a, b, abs_tol=1e-6) for a, b in zip(xs, xs[1:])):
        raise ConfigError("two starting cards share an x position; turn order (rightmost first) is undecided")
    return starts, trophy
