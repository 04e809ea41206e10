"""A turn's steps, declared as data (as boardgame.io declares its phases).

A turn is Move, Add, Draw, always in that order, each of which may be ended early
(docs/rules-masterplan.md, "A turn"); Mysterious M's Peek comes after his turn has ended. Each
step says which commands the current player may send in it, which of them `legal_commands` lists (and in
what order: the random agent picks from that list, so the order is part of recorded games), and
what follows when it ends. The engine's checks, `legal_commands` and the skip and draw commands
all read this table, so a step's rules are changed here and nowhere else.

Answers to a waiting choice or report (choose_target, report_*, confirm_measurement, an extra
move) are not step commands: they are accepted whenever the game waits for them, in any step.
"""

from __future__ import annotations

from dataclasses import dataclass

MOVE, ADD, DRAW, PEEK = "move", "add", "draw", "peek"


@dataclass(frozen=True)
class Step:
    name: str
    # Command types the current player may send in this step while nothing waits.
    allows: tuple[str, ...]
    # What `legal_commands` lists in this step, in this order: command types, except
    # "draw_from_table" (a draw of a face-up table card, for whoever may take one). Placements
    # are continuous and never listed (`placement_problem` checks them).
    offers: tuple[str, ...]
    # The step that begins when this one ends; None: the turn is over.
    then: str | None
    # Whether the step comes after the turn has ended (its end starts the next turn at once).
    after_turn: bool = False


STEPS: dict[str, Step] = {
    MOVE: Step(
        MOVE,
        allows=("move", "send_minion", "play_card", "skip_step", "draw"),
        offers=("move", "send_minion", "play_card", "skip_step"),
        then=ADD,
    ),
    ADD: Step(ADD, allows=("place_card", "skip_step", "draw"), offers=("skip_step", "draw"), then=DRAW),
    DRAW: Step(
        DRAW, allows=("draw", "skip_step"), offers=("draw", "draw_from_table", "skip_step"), then=None
    ),
    PEEK: Step(PEEK, allows=("peek", "skip_step"), offers=("peek", "skip_step"), then=None, after_turn=True),
}

# Why a step command is refused outside the steps that allow it; {step} is the step the player
# is in. (skip_step ends any step, so it is never refused for its step.)
OUT_OF_STEP = {
    "move": "You are in the {step} step; moves come first",
    "place_card": "You are in the {step} step; cards are placed in the Add step",
    "draw": "You are in the {step} step; your draw is over",
    "peek": "You are in the {step} step; Mysterious M peeks at the end of his turn",
    "send_minion": "You can send the minion only in your Move step",
    "play_card": "You can play a card instead of moving only in your Move step",
}


def first_step(turns_taken: int) -> str:
    """The step a player's turn begins with: nobody moves during the first complete round."""
    return MOVE if turns_taken > 0 else ADD


def ended_by_draw(step: str) -> list[str]:
    """The steps a draw ends before it is made: a draw during Move or Add ends them first, as a
    player expects (each may be skipped), so no separate skip_step is needed."""
    ended: list[str] = []
    now: str | None = step
    while now is not None and now != DRAW:
        ended.append(now)
        now = STEPS[now].then
    return ended


def refusal_text(command_type: str, step: str) -> str | None:
    """Why `command_type` may not be sent in `step`, or None when the step allows it."""
    if command_type in STEPS[step].allows:
        return None
    return OUT_OF_STEP[command_type].format(step=step.capitalize())
