"""What players and displays see: the public view, a player's view, legal moves and commands."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from referee.masterplan.commands import (
    ChooseTarget,
    Command,
    ConfirmMeasurement,
    Draw,
    Move,
    Peek,
    PlayCard,
    ReportIdentity,
    ReportPositions,
    SendMinion,
    SkipStep,
)
from referee.masterplan.state import MS_FYRE, Z_MASK, GameState, PlayerState, corners_list
from referee.masterplan.steps import STEPS
from referee.masterplan.tasks import plain
from referee.masterplan.waits import CardName, ExtraMove, Measurement, NewPositions, TargetChoice


class Views(GameState):
    def legal_moves(self, player: str) -> list[dict[str, Any]]:
        """Every card within reach (or too close to call) of the player's pawn, with its gap and
        verdict, and whether a move there is allowed now (for displays and agents)."""
        kind = self._move_kind_now(player)
        p = self.players.get(player)
        if kind is None or p is None or p.position is None:
            return []
        out = []
        for to, r in sorted(self.graph.neighbours(p.position).items()):
            dest = self.spaces[to]
            # the very checks a Move command meets (so nothing listed as allowed is refused)
            refusal = self._move_refusal(p, kind, to, flip=True) or self._jump_refusal(to, r)
            out.append(
                {
                    "to": to,
                    "kind": kind,
                    "gap_mm": round(r.gap_mm, 3),
                    "sigma_gap_mm": round(r.sigma_gap_mm, 3),
                    "verdict": r.verdict.value,
                    "allowed": refusal is None,
                    "needs_measurement": refusal is None and self._jump_ruling(r) == "ask",
                    "flips": not dest.face_up,
                    "wins": dest.kind == "trophy",
                    "reason": None if refusal is None else refusal.message,
                }
            )
        return out

    def legal_commands(self, player: str) -> list[Command]:
        """The discrete commands `player` may send now. Placements (Add) and the new corners
        after a Control Panel are continuous: check them with `placement_problem`."""
        if self.game_over or player != self._awaited():
            return []
        p = self.players[player]
        out: list[Command] = []
        w = self.waiting
        if w is not None:
            answers: dict[type, Callable[[Any], list[Command]]] = {
                ExtraMove: lambda w: [*self._move_commands(p), SkipStep(player)],
                TargetChoice: lambda w: self._choice_commands(player, w),
                NewPositions: lambda w: self._swap_commands(player, w),
                CardName: lambda w: [ReportIdentity(player, n, w.space) for n in self.possible_names()],
                Measurement: lambda w: [ConfirmMeasurement(player, True), ConfirmMeasurement(player, False)],
            }
            return answers[type(w)](w)
        offers = {
            "move": self._move_commands,
            "send_minion": self._minion_commands,
            "play_card": self._play_commands,
            "skip_step": lambda p: [SkipStep(p.name)],
            "draw": lambda p: [Draw(p.name)],  # in the Add step too: it ends Add and the turn
            "draw_from_table": self._table_draw_commands,
            "peek": lambda p: [Peek(p.name, s) for s in self._face_down_spaces()],
        }
        for offer in STEPS[self.step].offers:
            out += offers[offer](p)
        return out

    def _choice_commands(self, player: str, w: TargetChoice) -> list[Command]:
        opts = w.options
        out: list[Command] = []
        if w.effect == "swap_two":
            out += [ChooseTarget(player, pair) for pair in itertools.combinations(opts, 2)]
        elif w.effect == "draw":
            for k in range(1, min(w.count, len(opts)) + 1):
                out += [ChooseTarget(player, c) for c in itertools.combinations(opts, k)]
        else:
            out += [ChooseTarget(player, (o,)) for o in opts]
        if w.optional:
            out.append(SkipStep(player))
        return out

    def _swap_commands(self, player: str, w: NewPositions) -> list[Command]:
        """A Switch's new corners (each card where the other lay); a Control Panel's new place is
        continuous, so it is never listed."""
        if w.effect != "swap_two":
            return []
        a, b = w.spaces
        ca, cb = corners_list(self.graph.card(a)), corners_list(self.graph.card(b))
        return [ReportPositions(player, ((a, tuple(map(tuple, cb))), (b, tuple(map(tuple, ca)))))]

    def _minion_commands(self, p: PlayerState) -> list[Command]:
        # the very checks a SendMinion command meets; only cards within reach can pass them
        if self._power_refusal(p, Z_MASK) is not None or not self._before_move():
            return []
        near = sorted(self.graph.neighbours(p.position))  # type: ignore[arg-type]
        return [SendMinion(p.name, to) for to in near if self._minion_refusal(p, to) is None]

    def _play_commands(self, p: PlayerState) -> list[Command]:
        if self._power_refusal(p, MS_FYRE) is not None or not self._before_move() or not p.hand:
            return []
        cards = sorted(set(p.hand)) if self.digital else [None]
        return [PlayCard(p.name, c) for c in cards]  # type: ignore[arg-type]

    def _table_draw_commands(self, p: PlayerState) -> list[Command]:
        if not self._may_take_from_table(p):
            return []
        return [Draw(p.name, s) for s in self._table_draw_options()]

    def public_view(self) -> dict[str, Any]:
        """What anyone may see: no face-down identity, no hand, no deck order, no peek."""
        occupants: dict[str, list[str]] = {}
        for p in self.order:
            pos = self.players[p].position
            if pos is not None:
                occupants.setdefault(pos, []).append(p)
        return {
            "game": "Master Plan",
            "deck_mode": self.config.deck_mode,
            "villain_powers": self.powers,
            "reach_mm": self.settings.reach_mm,
            "close_call_policy": self.settings.close_call_policy,
            "turn": self.turn_number,
            "current": self.current,
            "step": self.step,
            "waiting": self.public_waiting(),
            "turn_state": {k: v for k, v in self.turn.to_dict().items() if k != "ends"},
            "deck_size": len(self.deck),
            "discard_size": len(self.discard),
            "sudden_death": self.sudden_death,
            "deck_ran_out": self.deck_ran_out,
            "game_over": self.game_over,
            "winner": self.winner,
            "game_over_reason": self.game_over_reason,
            "players": [
                {
                    "name": p,
                    "villain": self.players[p].villain,
                    "start": self.players[p].start,
                    "position": self.players[p].position,
                    "hand_size": len(self.players[p].hand),
                    "eliminated": self.players[p].eliminated,
                    "turns_taken": self.players[p].turns_taken,
                }
                for p in self.order
            ],
            "table": [
                {
                    "space": s.id,
                    "kind": s.kind,
                    "owner": s.owner,
                    "face_up": s.face_up,
                    "name": s.name if s.face_up and s.kind == "space" else None,
                    "corners": corners_list(self.graph.card(s.id)),
                    "pawns": occupants.get(s.id, []),
                }
                for s in self.spaces.values()
            ],
        }

    def player_view(self, player: str) -> dict[str, Any]:
        """The public view plus what `player` alone knows: their hand, the identity of the
        face-down cards they placed (digital deck) and Mysterious M's peeks."""
        p = self._require_seat(player)
        view = self.public_view()
        known: dict[str, str] = {}
        for s in self.spaces.values():
            if not s.face_up and s.kind == "space":
                if s.id in p.peeks:
                    known[s.id] = p.peeks[s.id]
                elif self.digital and s.placed_by == player and s.card is not None:
                    known[s.id] = self.card_names[s.card]
        view["you"] = player
        view["hand"] = (
            [{"card": c, "name": self.card_names[c]} for c in p.hand if c is not None]
            if self.digital
            else None
        )
        view["known_face_down"] = known
        view["legal_moves"] = self.legal_moves(player)
        return view

    def state_dict(self) -> dict[str, Any]:
        """The complete state, secrets included (tests compare live and replayed games)."""
        return {
            "seed": self.seed,
            "rng": repr(self.rng.getstate()),
            "spaces": {
                k: {**s.to_dict(), "corners": corners_list(self.graph.card(k))}
                for k, s in self.spaces.items()
            },
            "edges": sorted((str(a), str(b), r.gap_mm) for a, b, r in self.graph.edges()),
            "used_ids": sorted(self.used_ids),
            "next_space_no": self.next_space_no,
            "players": {p: self.players[p].to_dict() for p in self.order},
            "order": list(self.order),
            "deck": list(self.deck),
            "discard": list(self.discard),
            "deck_ran_out": self.deck_ran_out,
            "sudden_death": self.sudden_death,
            "current": self.current,
            "step": self.step,
            "turn": self.turn.to_dict(),
            "turn_number": self.turn_number,
            "tasks": plain(self.tasks),
            "waiting": plain(self.waiting),
            "winner": self.winner,
            "game_over": self.game_over,
            "game_over_reason": self.game_over_reason,
        }

    def _move_commands(self, p: PlayerState) -> list[Command]:
        out: list[Command] = []
        for m in self.legal_moves(p.name):
            if m["allowed"]:
                out.append(Move(p.name, m["to"]))
                if self._move_refusal(p, m["kind"], m["to"], flip=False) is None:
                    out.append(Move(p.name, m["to"], flip=False))
        return out
