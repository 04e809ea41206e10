"""The Space deck, read from a JSON data file so a group can rebalance it without touching code.

A card's effect is a list of steps, each one of a small set of primitives (PRIMITIVES). The
file is validated on load; every problem names the entry and says how to fix it.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

# primitive -> the parameters it takes (name -> minimum integer value)
PRIMITIVES: dict[str, dict[str, int]] = {
    "destroy_this": {},  # the space the card lies on (or where Ms. Fyre stands) is destroyed
    "destroy_within_reach": {},  # that space and every destructible space within reach of it
    "destroy_chosen": {},  # you choose one destructible space anywhere; it is destroyed
    "move_to_face_up": {},  # you may move to a face-up space other than the Trophy
    "swap_two": {},  # you choose two destructible spaces; they swap places
    "relocate_one": {},  # you choose one destructible space; it is placed anew by Add's rules
    "draw": {"n": 1},  # you draw n cards
    "extra_move": {},  # you may make one extra move now; it may enter the Trophy
    "end_turn": {},  # your turn ends after this (no free move, no Add, no Draw)
    "nothing": {},
}
KINDS = ("trap", "weapon", "prize", "special", "blank")
DECK_VERSION = 1
DEFAULT_DECK_FILE = "space_deck.json"


class DeckError(ValueError):
    """The deck file is not a valid Space deck; the message names the entry and the fix."""


@dataclass(frozen=True)
class EffectStep:
    do: str
    n: int = 0

    def to_dict(self) -> dict:
        return {"do": self.do, "n": self.n} if "n" in PRIMITIVES[self.do] else {"do": self.do}


@dataclass(frozen=True)
class SpaceCard:
    name: str
    count: int
    kind: str
    text: str
    effect: tuple[EffectStep, ...]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "count": self.count,
            "kind": self.kind,
            "text": self.text,
            "effect": [s.to_dict() for s in self.effect],
        }


@dataclass(frozen=True)
class SpaceDeck:
    cards: tuple[SpaceCard, ...]
    version: int = DECK_VERSION

    @property
    def size(self) -> int:
        return sum(c.count for c in self.cards)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.cards)

    def card(self, name: str) -> SpaceCard:
        for c in self.cards:
            if c.name == name:
                return c
        raise KeyError(f"there is no Space card called {name!r}; the deck has {', '.join(self.names)}")

    def expand(self) -> list[str]:
        """One name per physical card, in file order (card number i is expand()[i])."""
        return [c.name for c in self.cards for _ in range(c.count)]

    def to_dict(self) -> dict:
        return {"version": self.version, "cards": [c.to_dict() for c in self.cards]}


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def deck_from_dict(data: object, source: str = "deck") -> SpaceDeck:
    """Validate a parsed deck file; raise DeckError naming the first problem."""
    if not isinstance(data, dict):
        raise DeckError(f"{source}: the deck must be a JSON object with a 'cards' list")
    version = data.get("version", DECK_VERSION)
    if version != DECK_VERSION:
        raise DeckError(
            f"{source}: deck file version {version!r} is not supported; this referee reads version {DECK_VERSION}"
        )
    cards = data.get("cards")
    if not isinstance(cards, list) or not cards:
        raise DeckError(f"{source}: 'cards' must be a non-empty list of Space cards")
    parsed: list[SpaceCard] = []
    seen: set[str] = set()
    for i, entry in enumerate(cards):
        where = f"{source}: cards[{i}]"
        if not isinstance(entry, dict):
            raise DeckError(f"{where} must be an object with name, count, kind and effect")
        name = entry.get("name")
        if not isinstance(name, str) or not name.strip():
            raise DeckError(f"{where} needs a 'name' (text)")
        where = f"{where} ({name})"
        if name in seen:
            raise DeckError(f"{where}: the name appears twice; give each card one entry and a count")
        seen.add(name)
        unknown = set(entry) - {"name", "count", "kind", "text", "effect"}
        if unknown:
            raise DeckError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
        count = entry.get("count")
        if not _whole(count) or count < 1:
            raise DeckError(f"{where}: 'count' must be a whole number of at least 1, not {count!r}")
        kind = entry.get("kind")
        if kind not in KINDS:
            raise DeckError(f"{where}: 'kind' must be one of {', '.join(KINDS)}, not {kind!r}")
        text = entry.get("text", "")
        if not isinstance(text, str):
            raise DeckError(f"{where}: 'text' must be text")
        effect = entry.get("effect")
        if not isinstance(effect, list) or not effect:
            raise DeckError(f'{where}: \'effect\' must be a non-empty list of steps like {{"do": "nothing"}}')
        steps: list[EffectStep] = []
        for j, step in enumerate(effect):
            swhere = f"{where}: effect[{j}]"
            if not isinstance(step, dict) or "do" not in step:
                raise DeckError(f"{swhere} must be an object with a 'do' primitive")
            do = step["do"]
            if do not in PRIMITIVES:
                raise DeckError(f"{swhere}: unknown primitive {do!r}; use one of {', '.join(PRIMITIVES)}")
            params = PRIMITIVES[do]
            extra = set(step) - {"do"} - set(params)
            if extra:
                raise DeckError(f"{swhere}: {do} takes no parameter(s) {', '.join(sorted(extra))}")
            n = 0
            for pname, minimum in params.items():
                value = step.get(pname)
                if not _whole(value) or value < minimum:
                    raise DeckError(
                        f"{swhere}: {do} needs '{pname}', a whole number of at least {minimum}, not {value!r}"
                    )
                n = value
            steps.append(EffectStep(do, n))
        parsed.append(SpaceCard(name, count, kind, text, tuple(steps)))
    return SpaceDeck(tuple(parsed), version)


@functools.lru_cache(maxsize=1)
def default_deck() -> SpaceDeck:
    """The bundled deck file, read once (SpaceDeck is immutable)."""
    return load_deck(None)


def load_deck(path: str | Path | None = None) -> SpaceDeck:
    """The deck file at `path`, or the bundled default deck of docs/rules-masterplan.md."""
    if path is None:
        text = resources.files("referee.masterplan").joinpath(DEFAULT_DECK_FILE).read_text("utf-8")
        source = DEFAULT_DECK_FILE
    else:
        source = str(path)
        try:
            text = Path(path).read_text("utf-8")
        except OSError as exc:
            raise DeckError(f"{source}: cannot read the deck file ({exc.strerror})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise DeckError(
            f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from None
    return deck_from_dict(data, source)
