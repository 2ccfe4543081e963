"""The MCP robustness inputs (simulator/profiles/fuzz/mcp_inputs.py) and their replay files (format "mcp"): pure checks of
what each kind promises, so that the answer rule (ROBUST-*-ANSWER-01) judges only what a sentence obliges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from simulator.errors import ConfigError
from simulator.profiles.fuzz.mcp_inputs import ID_SLOT, Expect, McpInput, McpKind, ToolSeed, mcp_inputs, with_id
from simulator.profiles.fuzz.replay import Replay, load_replay, save_replay

TOOLS = [ToolSeed("echo", {"type": "object", "properties": {"text": {"type": "string"}, "n": {"type": "integer"},
                                                             "mode": {"enum": ["a", "b"]}}}),
         ToolSeed("bare", {"type": "object"})]


def _depth(value, level: int = 0) -> int:
    if isinstance(value, dict):
        return max([_depth(v, level + 1) for v in value.values()], default=level + 1)
    if isinstance(value, list):
        return max([_depth(v, level + 1) for v in value], default=level + 1)
    return level


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(mcp_inputs(TOOLS))
def test_every_input_is_lines_and_what_must_be_answered_is_a_well_formed_request(item: McpInput) -> None:
    assert item.lines and all("\n" not in line and "\r" not in line for line in item.lines)
    filled = [with_id(line, "fuzz-1") for line in item.lines]
    if item.expect is Expect.ONE:
        message = json.loads(filled[0])  # valid UTF-8 JSON the common parsers take
        filled[0].encode("utf-8")
        assert message["jsonrpc"] == "2.0" and message["id"] == "fuzz-1" and isinstance(message["method"], str)
        assert isinstance(message.get("params", {}), dict)
        assert _depth(message) <= 110
    if item.expect is Expect.NONE:
        assert all("id" not in json.loads(line) for line in filled)  # notifications only
    if item.kind is McpKind.CANCELLED:
        call, cancel = (json.loads(line) for line in filled)
        assert cancel["params"]["requestId"] == call["id"]
    if item.kind is McpKind.UNKNOWN_METHOD:
        assert item.code == -32601


def test_the_id_slot_is_filled_with_a_json_string() -> None:
    assert with_id('{"id":' + ID_SLOT + '}', 'a"b') == '{"id":"a\\"b"}'


def test_an_mcp_replay_file_round_trips(tmp_path: Path) -> None:
    inputs = (McpInput(McpKind.UNKNOWN_METHOD, ('{"jsonrpc":"2.0","id":' + ID_SLOT + ',"method":"x"}',), Expect.ONE,
                       -32601),
              McpInput(McpKind.MALFORMED, ("{",), Expect.ANY))
    path = save_replay(tmp_path, Replay("ROBUST-CCWEB-ANSWER-01", "ccweb subject", inputs, fmt="mcp"))
    assert json.loads(path.read_text(encoding="utf-8"))["format"] == "mcp"
    assert load_replay(path) == Replay("ROBUST-CCWEB-ANSWER-01", "ccweb subject", inputs, "mcp")


@pytest.mark.parametrize("inputs, says", [
    ([{"kind": "malformed", "lines": [], "expect": "any"}], "malformed"),
    ([{"kind": "nope", "lines": ["x"], "expect": "any"}], "malformed"),
    ([{"kind": "malformed", "lines": ["x"], "expect": "any", "code": "1"}], "malformed"),
])
def test_a_bad_mcp_replay_file_is_a_clear_usage_error(tmp_path: Path, inputs, says: str) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps({"requirement": "R", "format": "mcp", "inputs": inputs}), encoding="utf-8")
    with pytest.raises(ConfigError, match=says):
        load_replay(path)
    path.write_text(json.dumps({"requirement": "R", "format": "xml", "inputs": [{}]}), encoding="utf-8")
    with pytest.raises(ConfigError, match="unknown format"):
        load_replay(path)
