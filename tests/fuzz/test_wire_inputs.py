"""The robustness profile's inputs (simulator/profiles/fuzz/wire_inputs.py) and replay files (simulator/profiles/fuzz/replay.py): pure
functions, no subject."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulator.errors import ConfigError
from simulator.profiles.fuzz.replay import Replay, load_replay, save_replay
from simulator.profiles.fuzz.wire_inputs import InputKind, WireInput, is_garbage, oversize_input, wire_inputs
from simulator.hook import HOOK_MAX_FRAME_CHARS, utf16_len
from simulator.hook import parse_hook_message

SAMPLES = [frame for path in sorted((Path(__file__).resolve().parents[2] / "scenarios" / "hook" / "samples").glob("*.json"))
           for frame in json.loads(path.read_text(encoding="utf-8")).values()]


def test_every_input_is_one_the_parser_rejects_and_every_kind_comes_up() -> None:
    seen: set[InputKind] = set()

    @settings(max_examples=300, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(wire_inputs(SAMPLES))
    def check(item: WireInput) -> None:
        seen.add(item.kind)
        assert not parse_hook_message(item.data).ok
        if not item.binary:
            item.data.encode("utf-8")  # a text frame must be sendable: no lone surrogate in the text itself

    check()
    assert seen >= set(InputKind) - {InputKind.OVERSIZE}, sorted(set(InputKind) - seen)


def test_the_oversize_input_is_one_unit_over_the_limit_and_rejected_as_too_large() -> None:
    item = oversize_input()
    assert utf16_len(item.data) == HOOK_MAX_FRAME_CHARS + 1 and item.kind is InputKind.OVERSIZE
    assert parse_hook_message(item.data).error.code.value == "FRAME_TOO_LARGE"


def test_a_valid_frame_is_not_garbage_whether_text_or_bytes() -> None:
    text = json.dumps(SAMPLES[0])
    assert not is_garbage(WireInput(InputKind.GARBAGE, text))
    assert not is_garbage(WireInput(InputKind.BINARY, text.encode()))  # the parser takes bytes (§8)
    assert is_garbage(WireInput(InputKind.BINARY, b"\xff" + text.encode()))


@given(st.lists(st.one_of(st.builds(WireInput, st.just(InputKind.GARBAGE), st.text()),
                          st.builds(WireInput, st.just(InputKind.BINARY), st.binary())), min_size=1, max_size=5))
@settings(max_examples=50, database=None, suppress_health_check=list(HealthCheck))
def test_a_replay_file_round_trips(tmp_path_factory, inputs) -> None:
    folder = tmp_path_factory.mktemp("replays")
    path = save_replay(folder, Replay("ROBUST-X/1", "hook-server", tuple(inputs)))
    assert path.parent == folder and "/" not in path.name
    assert load_replay(path) == Replay("ROBUST-X/1", "hook-server", tuple(inputs))


@pytest.mark.parametrize("content, says", [
    ("not json", "cannot read"), ('{"requirement": "X"}', "not a replay file"),
    ('{"requirement": "X", "inputs": [{"kind": "nonsense", "text": "a"}]}', "malformed"),
    ('{"requirement": "X", "inputs": [{"kind": "garbage"}]}', "malformed"),
])
def test_a_bad_replay_file_is_a_clear_usage_error(tmp_path: Path, content: str, says: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ConfigError, match=says):
        load_replay(path)
