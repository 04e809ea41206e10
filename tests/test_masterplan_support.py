"""Table-building helpers for the Master Plan tests (like a chess test sets up a position).

`build()` sets up a real game and then lays out a position: Space cards with known names at
given centres, pawns, hands, whose turn and which step. Distances are easy to read: cards are
portrait 63 x 88 mm at angle 0, so two cards side by side with centres dx apart have a gap of
dx - 63 mm (reach is 63 mm: dx < 126 is a legal jump).
"""

from __future__ import annotations

import json
from typing import Any

from geometry import CardOutline, GeometrySettings
from referee.masterplan import TROPHY, MasterPlanConfig, MasterPlanGame, Seat, start_id
from referee.masterplan.game import Space

VILLAIN_OF = {
    "ann": "Z-Mask",
    "bob": "Dr. Badmahn",
    "cat": "Mysterious M",
    "dan": "Ms. Fyre",
    "eve": "Plutonian Poacher",
    "fay": "Monster Nash",
}
# Starting cards along y = 0; ann's is rightmost, so the turn order is ann, bob, cat, ...
START_X = {"ann": 1000.0, "bob": 850.0, "cat": 700.0, "dan": 550.0, "eve": 400.0, "fay": 250.0}
TROPHY_AT = (600.0, 800.0)


def card_at(space: str, x: float, y: float, angle: float = 0.0, sigma: float = 0.0) -> CardOutline:
    return CardOutline.from_pose(space, (x, y), angle, (63.0, 88.0), sigma)


def corners_at(x: float, y: float, angle: float = 0.0) -> tuple:
    return card_at("new", x, y, angle).corners_mm


def build(
    players: tuple[str, ...] = ("ann", "bob", "cat"),
    *,
    villains: dict[str, str] | None = None,
    powers: bool = False,
    mode: str = "digital",
    policy: str = "ask",
    spaces: dict[str, tuple[str | None, tuple[float, float], bool]] | None = None,
    sigma: dict[str, float] | None = None,
    pawns: dict[str, str] | None = None,
    hands: dict[str, list[str]] | None = None,
    current: str | None = None,
    step: str = "move",
    turns_taken: int = 1,
    deck_top: list[str] | None = None,
    deck_left: int | None = None,
    seed: int = 0,
) -> MasterPlanGame:
    """A game in a given position. `spaces`: id -> (name, centre, face_up); `hands`: player ->
    card names; `deck_top`: names drawn next, in order; `deck_left`: move the rest of the deck
    to the discard pile so that only this many cards remain."""
    villains = {**VILLAIN_OF, **(villains or {})}
    config = MasterPlanConfig(
        seats=tuple(Seat(p, villains[p]) for p in players),
        villain_powers=powers,
        deck_mode=mode,
        settings=GeometrySettings(close_call_policy=policy),
        starting_cards={p: card_at(start_id(p), START_X[p], 44.0).corners_mm for p in players},
        trophy=card_at(TROPHY, *TROPHY_AT).corners_mm,
    )
    game, _ = MasterPlanGame.setup(config, seed)
    for p in game.players.values():
        game.deck.extend(p.hand)
        p.hand.clear()

    def take(name: str | None) -> int | None:
        if not game.digital:
            game.deck.pop()
            return None
        i = next(i for i, c in enumerate(game.deck) if game.card_names[c] == name)
        return game.deck.pop(i)

    for sid, (name, (x, y), face_up) in (spaces or {}).items():
        card = take(name)
        known = name if (face_up or game.digital) else None
        game._add_space(
            Space(sid, "space", face_up, card=card, name=known if face_up else None),
            card_at(sid, x, y, sigma=(sigma or {}).get(sid, 0.0)),
        )
    for p, names in (hands or {}).items():
        game.players[p].hand = [take(n) for n in names]
    for p, where in (pawns or {}).items():
        game.players[p].position = where
    for name in reversed(deck_top or []):
        game.deck.append(take(name))
    if deck_left is not None:
        keep = game.deck[len(game.deck) - deck_left :] if deck_left else []
        game.discard.extend(game.deck[: len(game.deck) - deck_left])
        game.deck = keep
    for p in game.players.values():
        p.turns_taken = turns_taken
    game.current = current or players[0]
    game.step = step
    return game


def state(game: MasterPlanGame) -> str:
    return json.dumps(game.state_dict(), sort_keys=True)


def types(events: list[Any]) -> list[str]:
    return [e.type for e in events]


def event(events: list[Any], type_: str) -> Any:
    found = [e for e in events if e.type == type_]
    assert found, f"no {type_} event in {types(events)}"
    return found[0]


def test_build_keeps_all_47_cards():
    game = build(spaces={"S1": ("Bomb", (600, 300), False)}, hands={"ann": ["Trapdoor"]}, deck_left=5)
    assert game.card_count() == 47
    assert len(game.deck) == 5
    assert game.card_names[game.spaces["S1"].card] == "Bomb"


def test_build_gap_arithmetic_matches_geometry():
    game = build(spaces={"S1": ("Empty Lair", (600, 300), True), "S2": ("Empty Lair", (700, 300), True)})
    assert abs(game.graph.reach("S1", "S2").gap_mm - 37.0) < 1e-9
