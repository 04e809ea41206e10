"""The wire protocol's request checks (fuzzed) and the SQLite event store."""

import json
import sqlite3

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from referee.protocol import MAX_DEPTH, MAX_MESSAGE_BYTES, MAX_NUMBER_CHARS, ProtocolError, parse_request
from referee.store import EventStore, GameRecord, StoreError

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_random_bytes_are_refused_with_a_protocol_error_never_a_crash(raw):
    try:
        parse_request(raw)
    except ProtocolError as exc:
        assert exc.code and exc.message


@pytest.mark.slow  # a property test with hundreds of examples
@settings(max_examples=300, deadline=None)
@given(json_values)
def test_random_json_is_refused_or_parsed_into_a_checked_request(value):
    raw = json.dumps(value).encode()
    try:
        req = parse_request(raw)
    except ProtocolError as exc:
        assert exc.code in {"bad_json", "bad_version", "bad_field", "too_large"}
        return
    assert isinstance(req.id, str) and isinstance(req.type, str)


@settings(max_examples=200, deadline=None)
@given(
    st.fixed_dictionaries(
        {
            "v": st.just(1),
            "id": st.text(min_size=1, max_size=20),
            "type": st.sampled_from(["snapshot", "move", "join"]),
        },
        optional={"player": json_values, "to": json_values},
    )
)
def test_well_formed_envelopes_parse_and_bad_player_fields_are_named(msg):
    assume(_depth(msg) <= MAX_DEPTH)  # deeper messages are refused as a whole (tested below)
    raw = json.dumps(msg).encode()
    player = msg.get("player")
    if player is None or (isinstance(player, str) and 0 < len(player) <= 40):
        assert parse_request(raw).player == player
    else:
        with pytest.raises(ProtocolError, match="player"):
            parse_request(raw)


def _depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


@pytest.mark.parametrize(
    "raw, says",
    [
        # int() refuses 4,301+ digits with a ValueError that once escaped and stopped the referee.
        (b'{"v":1,"id":"x","type":"ping","n":1' + b"0" * 5000 + b"}", "characters"),
        (b'{"v":1,"id":"x","type":"ping","n":-1.' + b"5" * 100 + b"}", "characters"),
        (b'{"v":1,"id":"x","type":"ping","n":1e999}', "too large"),
        (b'{"v":1,"id":"x","type":"ping","n":NaN}', "NaN"),
        (b'{"v":1,"id":"x","type":"ping","n":-Infinity}', "Infinity"),
        (b'{"v":1,"id":"x","type":"ping","n":' + b"[" * 40 + b"]" * 40 + b"}", "nests deeper"),
        (b"[" * 60000, "nests deeper"),
        (b"[" * 16 + b"]" * 16 + b"x", "not a JSON message"),
        (b'{"v":1,"id":"x","type":"ping","n":' + b"[" * 16 + b"1" + b"]" * 16 + b"}", "nests deeper"),
        # Valid JSON but no UTF-8: it once reached the store and failed there.
        (b'{"v":1,"id":"\\ud800","type":"ping"}', "surrogate"),
        (b'{"v":1,"id":"x","type":"ping","\\udfff":1}', "surrogate"),
    ],
)
def test_hostile_numbers_and_nesting_are_clear_bad_json_errors(raw, says):
    with pytest.raises(ProtocolError, match=says) as info:
        parse_request(raw)
    assert info.value.code == "bad_json"


def test_numbers_within_bounds_still_parse():
    longest = "9" * MAX_NUMBER_CHARS
    req = parse_request(
        f'{{"v":1,"id":"x","type":"move","a":{longest},"b":-12.25,"c":[[1,2],[3,4]]}}'.encode()
    )
    assert req.body["a"] == int(longest) and req.body["b"] == -12.25


def test_oversized_message_is_refused_before_parsing():
    raw = b'{"v": 1, "id": "x", "type": "move", "pad": "' + b"a" * MAX_MESSAGE_BYTES + b'"}'
    with pytest.raises(ProtocolError) as info:
        parse_request(raw)
    assert info.value.code == "too_large"


def test_wrong_protocol_version_is_named_with_the_fix():
    with pytest.raises(ProtocolError, match='"v": 1') as info:
        parse_request(b'{"v": 2, "id": "a", "type": "snapshot"}')
    assert info.value.request_id == "a"


def test_store_appends_events_in_order_and_remembers_replies(tmp_path):
    store = EventStore(tmp_path / "game.sqlite")
    assert store.start(
        GameRecord("theplan", 7, {"players": ["a", "b", "c"]}, {"rules": 1}), [{"type": "x", "n": 1}]
    ) == [1]
    assert store.append([{"type": "y"}]) == [2]
    assert store.append([{"type": "z"}], command_id="c1", seat="a", reply={"id": "c1", "ok": True}) == [3]
    assert store.reply_for("c1", "a") == {"id": "c1", "ok": True}
    assert store.reply_for("c1", "b") is None  # ids are scoped to the seat that sent them
    assert store.reply_for("nope", "a") is None
    assert [seq for seq, _ in store.events()] == [1, 2, 3]
    assert [e["type"] for _, e in store.events(after_seq=1)] == ["y", "z"]
    store.close()
    again = EventStore(tmp_path / "game.sqlite")
    assert again.record() == GameRecord("theplan", 7, {"players": ["a", "b", "c"]}, {"rules": 1})
    assert again.last_seq() == 3
    mode = sqlite3.connect(tmp_path / "game.sqlite").execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"


def test_store_refuses_to_start_a_second_game_in_one_file(tmp_path):
    store = EventStore(tmp_path / "g.sqlite")
    store.start(GameRecord("theplan", 1, {}, {}), [{"type": "x"}])
    with pytest.raises(StoreError, match="--resume"):
        store.start(GameRecord("theplan", 2, {}, {}), [{"type": "x"}])


def test_a_file_that_is_not_a_database_is_a_clear_store_error(tmp_path):
    bad = tmp_path / "junk.sqlite"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StoreError, match="not a readable game file"):
        EventStore(bad)


def test_a_message_nesting_exactly_max_depth_containers_is_taken():
    inner = b"[" * (MAX_DEPTH - 1) + b'"x"' + b"]" * (MAX_DEPTH - 1)
    assert parse_request(b'{"v":1,"id":"x","type":"ping","n":' + inner + b"}").type == "ping"
