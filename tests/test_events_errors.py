"""One Event type and one error shape for both engines and the service (issue 24.4)."""

from __future__ import annotations

import pytest

from referee import masterplan, theplan
from referee.errors import RefereeError, RuleViolation
from referee.events import Event, private_events_for, public_event
from referee.games import RuleRefusal
from referee.protocol import ProtocolError


def test_both_engines_split_events_with_the_one_helper():
    assert masterplan.public_event is theplan.public_event is public_event
    assert masterplan.private_events_for is theplan.private_events_for is private_events_for
    assert masterplan.Event is Event


def test_the_stored_forms_stay_as_recorded():
    e = Event("cards_drawn", {"player": "ann"}, {"ann": {"cards": [3]}})
    assert e.to_dict() == {"type": "cards_drawn", "public": {"player": "ann"},
                           "private": {"ann": {"cards": [3]}}, "secret": {}}  # fmt: skip
    # The Plan's log leaves an empty part out
    assert Event("x", {}).to_dict(leave_out_empty=True) == {"type": "x", "public": {}}
    assert Event.from_dict(e.to_dict()) == e
    assert public_event(e) == {"type": "cards_drawn", "player": "ann"}
    assert private_events_for(e.to_dict(), "ann") == {"type": "cards_drawn", "player": "ann", "cards": [3]}
    assert private_events_for(e, "bob") is None


def test_the_plan_logs_events_in_the_shared_stored_form():
    game, events = theplan.ThePlanGame.setup({"seats": ["ann", "bob", "cat"]}, 7)
    assert all(Event.from_dict(e).to_dict(leave_out_empty=True) == e for e in events)


@pytest.mark.parametrize(
    "error",
    [RuleViolation("wrong_step", "m"), RuleRefusal("bad_command", "m"), ProtocolError("bad_json", "m", "r1")],
)
def test_every_refusal_carries_code_and_message(error):
    assert isinstance(error, RefereeError)
    assert error.to_dict() == {"code": error.code, "message": "m"} and str(error) == "m"
