"""A scripted Master Plan game: the commands the players give and the frames a camera sees.

`ScriptedGame` keeps the game's state (cards, pawns, hands, deck, whose turn and which step),
checks every action against the rules of docs/rules-masterplan.md as far as this game uses them (turn order,
no moves in the first round, reach strictly less than the short card edge, no overlaps, falling
ends the turn), and for each action appends both the script entry and the scenes that show it
happening (hands reaching in, cards carried, pawns lifted, cards flipped).

`sample_game()` is the bundled game: three villains, four rounds, a Trapdoor fall, a Switch,
and Monster Nash reaching the Trophy with Rocket Boots.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from vision.synthetic.layouts import convex_gap_mm, convex_overlap
from vision.synthetic.scene import CARD_SIZE_MM, DEFAULT_TABLE, Card, Hand, HeldCard, Pawn, Scene, Table

# The default deck of docs/rules-masterplan.md (the referee's deck file is the engine's source of truth).
DEFAULT_DECK = {
    "Trapdoor": 6,
    "Bomb": 4,
    "Laser Gun": 4,
    "Teleporter": 4,
    "Switch": 4,
    "Control Panel": 3,
    "Supply Drop": 6,
    "Rocket Boots": 4,
    "Tripwire": 4,
    "Empty Lair": 8,
}
SEAT_Y_MM = -380.0  # where a player's shoulder is (beyond the contestant edge)
SKINS = [(120, 150, 200), (90, 120, 170), (70, 95, 140), (140, 170, 215)]
SLEEVES = [(120, 60, 40), (50, 50, 50), (40, 110, 60), (60, 60, 150)]


class ScriptError(ValueError):
    """The script broke a rule of the game."""


@dataclass
class Seat:
    name: str  # the starting card's name, which is the seat's name
    card_id: int
    color: str
    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]
    hand: list[str] = field(default_factory=list)


@dataclass
class FrameRecord:
    scene: Scene
    entry: int  # index of the script entry this frame shows (the last one begun)


class ScriptedGame:
    def __init__(
        self,
        seats: list[tuple[str, str]],
        hands: dict[str, list[str]],
        seed: int = 0,
        table: Table = DEFAULT_TABLE,
        reach_mm: float = 63.0,
        size_mm: tuple[float, float] = CARD_SIZE_MM,
        trophy_distance_mm: float = 610.0,
        pawn_style: str = "standee",
    ) -> None:
        self.rng = random.Random(seed)
        self.seed = seed
        self.table = table
        self.reach_mm = reach_mm
        self.size_mm = size_mm
        self.pawn_style = pawn_style
        self.entries: list[dict] = []
        self.frames: list[FrameRecord] = []
        self.cards: dict[int, Card] = {}
        self.pawns: dict[str, Pawn] = {}
        self.winner: str | None = None
        # Starting cards along the contestant edge, one long card length apart, centred.
        n = len(seats)
        pitch = size_mm[0] + size_mm[1]
        x_mid = table.width_mm / 2
        y0 = size_mm[1] / 2 + 16.0
        self.seats: dict[str, Seat] = {}
        for i, (name, color) in enumerate(seats):
            cx = x_mid + (i - (n - 1) / 2) * pitch
            cid = i + 1
            self.cards[cid] = Card(cid, name, (cx, y0), 0.0, True, size_mm)
            self.seats[name] = Seat(name, cid, color, SKINS[i % len(SKINS)], SLEEVES[i % len(SLEEVES)])
            self.pawns[name] = Pawn(name, color, (cx, y0), cid, pawn_style)
        self.trophy_id = n + 1
        self.cards[self.trophy_id] = Card(
            self.trophy_id, "Trophy", (x_mid, y0 + trophy_distance_mm), 0.0, True, size_mm
        )
        self.next_id = n + 2
        # Turn order: rightmost starting card first, then leftward (docs/rules-masterplan.md).
        self.order = sorted(self.seats, key=lambda s: -self.cards[self.seats[s].card_id].center_mm[0])
        # Deck: the hands are fixed; every other draw is decided when it happens (a named card
        # when the script needs it, else the next of a seeded shuffle), so the recorded draw
        # order is a real deck order.
        pool = Counter(DEFAULT_DECK)
        for s, h in hands.items():
            if s not in self.seats:
                raise ScriptError(f"hands given for {s!r}, who is not at the table")
            for c in h:
                if pool[c] <= 0:
                    raise ScriptError(f"the deck has no more {c!r} to deal")
                pool[c] -= 1
            self.seats[s].hand = list(h)
        self.initial_hands = {s: list(h) for s, h in hands.items()}
        self._rest = [c for c in sorted(pool) for _ in range(pool[c])]
        self.rng.shuffle(self._rest)
        self.drawn: list[str] = []
        self.discard: list[str] = []
        self.round = 1
        self.turn = 0  # index into self.order
        self.step = "add"  # first round: no Move step
        self.hands_over: list[Hand] = []
        self.held: list[HeldCard] = []
        self.entry(
            "event", "setup", cards=[self._card_json(c) for c in self.cards.values()], order=list(self.order)
        )
        self.still(3)

    # ---- bookkeeping ----------------------------------------------------------------------------
    @property
    def player(self) -> str:
        return self.order[self.turn]

    def entry(self, kind: str, type_: str, **kw: object) -> dict:
        e = {
            "seq": len(self.entries),
            "kind": kind,
            "type": type_,
            "round": self.round,
            **kw,
            "frames": [len(self.frames), len(self.frames) - 1],
        }
        self.entries.append(e)
        return e

    def scene(self) -> Scene:
        return Scene(
            table=self.table,
            cards=tuple(self.cards.values()),
            pawns=tuple(self.pawns.values()),
            hands=tuple(self.hands_over),
            held_cards=tuple(self.held),
        )

    def frame(self) -> None:
        self.frames.append(FrameRecord(self.scene(), len(self.entries) - 1))
        self.entries[-1]["frames"][1] = len(self.frames) - 1

    def still(self, n: int = 1) -> None:
        self.hands_over, self.held = [], []
        for _ in range(n):
            self.frame()

    def _card_json(self, c: Card) -> dict:
        return {"id": c.id, "name": c.name, "corners_mm": np.round(c.corners_mm(), 6).tolist()}

    def _hand(
        self, seat: str, tip: np.ndarray, height: float, holding: HeldCard | None = None, offset: float = 0.0
    ) -> Hand:
        s = self.seats[seat]
        sx = self.cards[s.card_id].center_mm[0] + offset
        return Hand(tuple(tip), (sx, SEAT_Y_MM), height, s.skin, s.sleeve, holding=holding)

    def _reach_path(self, seat: str, target: np.ndarray, n: int) -> list[np.ndarray]:
        """Fingertip positions from the contestant edge to just short of the target."""
        s = self.seats[seat]
        start = np.array([self.cards[s.card_id].center_mm[0], -120.0])
        return [start + (target - start) * (k + 1) / n for k in range(n)]

    def _require_step(self, player: str, steps: tuple[str, ...]) -> None:
        if self.winner is not None:
            raise ScriptError("the game is over")
        if player != self.player:
            raise ScriptError(f"it is {self.player}'s turn, not {player}'s")
        if self.step not in steps:
            raise ScriptError(f"{player} is in the {self.step} step, not {'/'.join(steps)}")

    def gap(self, a: int, b: int) -> float:
        return convex_gap_mm(self.cards[a].corners_mm(), self.cards[b].corners_mm())

    def _draw_from_deck(self, need: str | None = None) -> str:
        if need is not None:
            if need not in self._rest:
                raise ScriptError(f"no {need!r} left in the deck")
            self._rest.remove(need)
            card = need
        else:
            if not self._rest:
                raise ScriptError("the deck ran out (this script does not model reshuffles)")
            card = self._rest.pop(0)
        self.drawn.append(card)
        return card

    def _pawn_spot(self, player: str, card_id: int) -> tuple[float, float]:
        """Where a pawn stands on a card: the centre, nudged per seat so sharers stay apart."""
        c = self.cards[card_id]
        others = [p for p, pw in self.pawns.items() if pw.on_card == card_id and p != player]
        if not others:
            return c.center_mm
        k = self.order.index(player)
        off = [(-14.0, 14.0), (14.0, 14.0), (0.0, -18.0), (-14.0, -14.0)][k % 4]
        return (c.center_mm[0] + off[0], c.center_mm[1] + off[1])

    # ---- commands -------------------------------------------------------------------------------
    def place_card(self, player: str, name: str, center: tuple[float, float], angle: float = 0.0) -> int:
        self._require_step(player, ("move", "add"))
        if self.step == "move":
            raise ScriptError(f"{player} must move or skip the Move step before adding cards")
        seat = self.seats[player]
        if name not in seat.hand:
            raise ScriptError(f"{player} has no {name!r} in hand ({seat.hand})")
        cid = self.next_id
        card = Card(cid, name, center, angle, False, self.size_mm)
        for other in self.cards.values():
            if convex_overlap(card.corners_mm(), other.corners_mm(), tol_mm=0.5):
                raise ScriptError(f"card {cid} would overlap card {other.id}")
        seat.hand.remove(name)
        self.next_id += 1
        e = self.entry(
            "command",
            "place_card",
            player=player,
            step="add",
            card=cid,
            corners_mm=np.round(card.corners_mm(), 6).tolist(),
            secret={"name": name},
        )
        target = np.asarray(center, float)
        for k, tip in enumerate(self._reach_path(player, target, 4)):
            held = HeldCard(name, tuple(tip - [0, 30]), 45.0 - 5 * k, angle * k / 3, False, 1, self.size_mm)
            self.hands_over, self.held = [self._hand(player, tip + [0, 10], 50.0 - 5 * k, held)], []
            self.frame()
        self.cards[cid] = card
        self.hands_over = [self._hand(player, target - [0, 35], 40.0)]
        self.frame()
        self.hands_over = [
            self._hand(player, (target + [self.cards[seat.card_id].center_mm[0], -100]) / 2, 80.0)
        ]
        self.frame()
        self.still(1)
        del e
        return cid

    def skip_step(self, player: str) -> None:
        self._require_step(player, ("move", "add"))
        self.entry("command", "skip_step", player=player, step=self.step)
        self.step = "add" if self.step == "move" else "draw"
        self.still(1)

    def draw(self, player: str, need: str | None = None) -> None:
        self._require_step(player, ("move", "add", "draw"))
        card = self._draw_from_deck(need)
        self.seats[player].hand.append(card)
        self.entry("command", "draw", player=player, step="draw", secret={"name": card})
        # The deck is held off the table at the player's seat; the hand brings the card in.
        sx = self.cards[self.seats[player].card_id].center_mm[0]
        for tip in ([sx + 60, -60.0], [sx + 40, -20.0]):
            held = HeldCard("back", (tip[0], tip[1] - 25), 90.0, 15.0, False, 1, self.size_mm)
            self.hands_over, self.held = [self._hand(player, np.array(tip), 95.0, held)], []
            self.frame()
        self.still(1)
        self._end_turn()

    def _end_turn(self) -> None:
        self.turn += 1
        if self.turn == len(self.order):
            self.turn = 0
            self.round += 1
        self.step = "move" if self.round > 1 else "add"

    def move(self, player: str, to: int, extra: bool = False) -> None:
        """A normal move (or Rocket Boots' extra move with `extra`): pick the pawn up, flip a
        face-down destination first, put the pawn down, resolve."""
        self._require_step(player, ("extra_move",) if extra else ("move",))
        pawn = self.pawns[player]
        here = pawn.on_card
        if to not in self.cards:
            raise ScriptError(f"card {to} is not on the table")
        gap = self.gap(here, to)  # type: ignore[arg-type]
        if not gap < self.reach_mm:
            raise ScriptError(
                f"card {to} is {gap:.1f} mm from card {here}: out of reach (< {self.reach_mm} mm)"
            )
        self.entry("command", "move", player=player, step="move", to=to, extra=extra, gap_mm=round(gap, 2))
        dest = self.cards[to]
        src = np.asarray(pawn.center_mm, float)
        spot = np.asarray(self._pawn_spot(player, to), float)
        # Lift the pawn and carry it next to the destination.
        path = [src, src + (spot - src) * 0.5, spot + [-40, -60]]
        for k, p in enumerate(path):
            lifted = Pawn(
                player, pawn.color, tuple(p), here if k == 0 else None, pawn.style, 0.0 if k == 0 else 35.0
            )
            self.pawns[player] = lifted
            self.hands_over = [self._hand(player, p + [0, 15], 60.0 if k else 45.0)]
            self.frame()
        carried = self.pawns[player]
        if not dest.face_up:
            # The other hand lifts the card, turns it over and puts it down face up.
            del self.cards[to]
            held = HeldCard(dest.name, dest.center_mm, 40.0, dest.angle_deg + 8, True, 1, self.size_mm)
            self.hands_over = [
                self._hand(player, np.asarray(carried.center_mm) + [0, 15], 60.0),
                self._hand(player, np.asarray(dest.center_mm) + [30, 10], 45.0, held, offset=80.0),
            ]
            self.frame()
            self.cards[to] = dest.flipped(True)
            self.entry("event", "flip", card=to, name=dest.name)
            self.hands_over = [self._hand(player, np.asarray(carried.center_mm) + [0, 15], 60.0)]
            self.frame()
        self.pawns[player] = Pawn(player, pawn.color, tuple(spot), to, pawn.style)
        self.hands_over = [self._hand(player, spot + [0, 25], 70.0)]
        self.frame()
        self.still(1)
        if to == self.trophy_id:
            self.winner = player
            self.entry("event", "win", player=player)
            self.still(3)
            return
        if not dest.face_up:
            self._resolve(player, to, dest.name)
        elif not extra:
            self.step = "add"

    # ---- effects --------------------------------------------------------------------------------
    def _resolve(self, player: str, card_id: int, name: str) -> None:
        self.step = "add"
        if name == "Trapdoor":
            self.entry("event", "destroy", card=card_id)
            self._remove_card(player, card_id)
            for p, pw in list(self.pawns.items()):
                if pw.on_card is None or pw.on_card == card_id:
                    self._fall(p)
        elif name == "Supply Drop":
            got = [self._draw_from_deck() for _ in range(2)]
            self.seats[player].hand.extend(got)
            self.entry("event", "draw", player=player, count=2, secret={"names": got})
        elif name in ("Empty Lair", "Switch", "Rocket Boots"):
            if name == "Switch":
                self.step = "switch"
            elif name == "Rocket Boots":
                self.step = "extra_move"
        else:
            raise ScriptError(f"this script does not model {name!r}")

    def _remove_card(self, player: str, card_id: int) -> None:
        card = self.cards[card_id]
        pawns_on = {p for p, pw in self.pawns.items() if pw.on_card == card_id}
        for p in pawns_on:  # the pawns drop off while the card goes (they fall)
            pw = self.pawns[p]
            self.pawns[p] = Pawn(p, pw.color, pw.center_mm, None, pw.style, 30.0)
        del self.cards[card_id]
        self.discard.append(card.name)
        held = HeldCard(card.name, card.center_mm, 50.0, card.angle_deg, True, 1, self.size_mm)
        self.hands_over = [self._hand(player, np.asarray(card.center_mm) + [0, 20], 55.0, held, offset=80.0)]
        self.frame()

    def _fall(self, player: str) -> None:
        seat = self.seats[player]
        start = self.cards[seat.card_id]
        pw = self.pawns[player]
        self.entry("event", "fall", player=player, to=seat.card_id)
        mid = (np.asarray(pw.center_mm) + np.asarray(start.center_mm)) / 2
        self.pawns[player] = Pawn(player, pw.color, tuple(mid), None, pw.style, 40.0)
        self.hands_over = [self._hand(player, mid + [0, 15], 65.0)]
        self.frame()
        self.pawns[player] = Pawn(
            player, pw.color, self._pawn_spot(player, seat.card_id), seat.card_id, pw.style
        )
        self.hands_over = [self._hand(player, np.asarray(start.center_mm) + [0, 30], 70.0)]
        self.frame()
        self.discard.extend(seat.hand)
        self.entry("event", "discard_hand", player=player, secret={"names": list(seat.hand)})
        seat.hand = []
        self.still(1)
        if player == self.player:
            self.step = "fallen"

    def draw_after_fall(self, player: str, need: list[str]) -> None:
        """The fallen player draws 4 (the script may name some of them); their turn then ends."""
        if self.step != "fallen" or player != self.player:
            raise ScriptError(f"{player} has not just fallen on their own turn")
        got = [self._draw_from_deck(n) for n in need] + [self._draw_from_deck() for _ in range(4 - len(need))]
        self.seats[player].hand.extend(got)
        self.entry("event", "draw", player=player, count=4, secret={"names": got})
        self.entry("event", "turn_end", player=player, reason="fell")
        self.still(2)
        self._end_turn()

    def switch(self, player: str, a: int, b: int) -> None:
        if self.step != "switch" or player != self.player:
            raise ScriptError(f"{player} has no Switch to carry out")
        for c in (a, b):
            if c not in self.cards or c == self.trophy_id or any(s.card_id == c for s in self.seats.values()):
                raise ScriptError(f"card {c} is not a destructible space")
        ca, cb = self.cards[a], self.cards[b]
        na, nb = ca.moved(cb.center_mm, cb.angle_deg), cb.moved(ca.center_mm, ca.angle_deg)
        self.entry(
            "command",
            "switch",
            player=player,
            cards=[a, b],
            corners_mm={
                str(a): np.round(na.corners_mm(), 6).tolist(),
                str(b): np.round(nb.corners_mm(), 6).tolist(),
            },
        )
        riders = {p: pw for p, pw in self.pawns.items() if pw.on_card in (a, b)}
        # Both hands lift the two cards (pawns ride on them), cross, and put them down swapped.
        del self.cards[a], self.cards[b]
        for t in (0.0, 0.5, 1.0):
            pa = (
                np.asarray(ca.center_mm)
                + (np.asarray(cb.center_mm) - np.asarray(ca.center_mm)) * t
                + [t * (1 - t) * 160, 0]
            )
            pb = (
                np.asarray(cb.center_mm)
                + (np.asarray(ca.center_mm) - np.asarray(cb.center_mm)) * t
                - [t * (1 - t) * 160, 0]
            )
            ha = HeldCard(ca.name, tuple(pa), 60.0, ca.angle_deg, ca.face_up, 1, self.size_mm)
            hb = HeldCard(cb.name, tuple(pb), 60.0, cb.angle_deg, cb.face_up, 1, self.size_mm)
            for p, pw in riders.items():
                c = pa if pw.on_card == a else pb
                self.pawns[p] = Pawn(p, pw.color, tuple(c), None, pw.style, 62.0)
            self.hands_over = [
                self._hand(player, pa + [0, -40], 70.0, ha, offset=-60),
                self._hand(player, pb + [0, -40], 70.0, hb, offset=60),
            ]
            self.frame()
        self.cards[a], self.cards[b] = na, nb
        for p, pw in riders.items():
            self.pawns[p] = Pawn(p, pw.color, self._pawn_spot(p, pw.on_card), pw.on_card, pw.style)  # type: ignore[arg-type]
        self.entry("event", "swap", cards=[a, b])
        self.still(2)
        self.step = "add"


def sample_game(seed: int = 5, table: Table = DEFAULT_TABLE) -> ScriptedGame:
    """The bundled game (see the module docstring)."""
    nash, fyre, zmask = "Monster Nash", "Ms. Fyre", "Z-Mask"
    g = ScriptedGame(
        seats=[(zmask, "red"), (fyre, "blue"), (nash, "green")],
        hands={
            nash: ["Empty Lair", "Switch", "Laser Gun", "Rocket Boots"],
            fyre: ["Supply Drop", "Empty Lair", "Tripwire", "Teleporter"],
            zmask: ["Trapdoor", "Bomb", "Supply Drop", "Trapdoor"],
        },
        seed=seed,
        table=table,
    )
    x_z, x_f, x_n = (g.cards[g.seats[s].card_id].center_mm[0] for s in (zmask, fyre, nash))
    # Round 1: no moves; each player adds two cards and draws.
    assert g.order == [nash, fyre, zmask]
    n5 = g.place_card(nash, "Empty Lair", (x_n + 4, 192), 2.0)
    n6 = g.place_card(nash, "Switch", (x_n + 9, 326), -3.0)
    g.draw(nash)
    f7 = g.place_card(fyre, "Supply Drop", (x_f - 2, 194), -2.0)
    f8 = g.place_card(fyre, "Empty Lair", (x_f + 12, 334), 4.0)
    g.draw(fyre)
    z9 = g.place_card(zmask, "Trapdoor", (x_z - 4, 193), 4.0)
    z10 = g.place_card(zmask, "Bomb", (x_z + 1, 330), -1.0)
    g.draw(zmask)
    # Round 2: Nash and Fyre step out; Z-Mask falls through a Trapdoor.
    g.move(nash, n5)
    n11 = g.place_card(nash, "Laser Gun", (x_n + 14, 458), 1.0)
    g.draw(nash)
    g.move(fyre, f7)
    f12 = g.place_card(fyre, "Tripwire", (x_f + 16, 470), -5.0)
    g.draw(fyre)
    g.move(zmask, z9)
    g.draw_after_fall(zmask, need=["Control Panel"])
    # Round 3: Nash flips the Switch and swaps his own space forward; Z-Mask cannot move.
    g.move(nash, n6)
    g.switch(nash, n6, n11)
    g.place_card(nash, "Rocket Boots", (x_n - 42, 586), 8.0)
    g.draw(nash)
    g.move(fyre, f8)
    g.place_card(fyre, "Teleporter", (x_f - 132, 470), 84.0)
    g.draw(fyre)
    g.skip_step(zmask)
    g.place_card(zmask, "Control Panel", (x_z - 3, 196), -3.0)
    g.draw(zmask)
    # Round 4: Nash jumps onto the Rocket Boots and, with the extra move, into the Trophy.
    boots = next(c for c, card in g.cards.items() if card.name == "Rocket Boots")
    g.move(nash, boots)
    g.move(nash, g.trophy_id, extra=True)
    del z10, f12
    return g
