"""The steps table (referee/masterplan/steps.py) is the one place a turn's steps are declared."""

from __future__ import annotations

from referee.masterplan.commands import COMMAND_TYPES
from referee.masterplan.steps import ADD, DRAW, MOVE, OUT_OF_STEP, PEEK, STEPS, ended_by_draw, first_step


def test_every_listed_command_is_one_the_step_allows():
    for step in STEPS.values():
        assert set(step.offers) - {"draw_from_table"} <= set(step.allows), step.name


def test_every_step_command_is_a_command_and_says_why_it_is_refused_elsewhere():
    step_commands = {c for s in STEPS.values() for c in s.allows}
    assert step_commands <= set(COMMAND_TYPES)
    # skip_step ends any step; every other step command is refused somewhere, with a reason
    assert all("skip_step" in s.allows for s in STEPS.values())
    assert step_commands - {"skip_step"} == set(OUT_OF_STEP)


def test_a_turn_runs_move_add_draw_and_a_draw_ends_the_steps_before_it():
    assert [MOVE, STEPS[MOVE].then, STEPS[ADD].then, STEPS[DRAW].then] == [MOVE, ADD, DRAW, None]
    assert STEPS[PEEK].after_turn and STEPS[PEEK].then is None
    assert ended_by_draw(MOVE) == [MOVE, ADD] and ended_by_draw(ADD) == [ADD] and ended_by_draw(DRAW) == []
    assert first_step(0) == ADD and first_step(1) == MOVE
