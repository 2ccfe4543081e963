"""``simulator.drivers.emitted_lines``: the lines a stdio MCP subject wrote to its stdout, judged against the stdio transport
rule (MCP 2025-11-25: "The server MUST NOT write anything to its stdout that is not a valid MCP message.")."""

from __future__ import annotations

import pytest

from simulator.drivers.emitted_lines import EmittedLines, check_stdout_is_mcp, judge_emitted_lines, stdout_lines
from simulator.errors import NotTestable
from simulator.verdicts.results import Verdict
from simulator.wirelog import Direction, WireEvent


def _conn(role: str, conn: int, target: str) -> WireEvent:
    return WireEvent(0.0, role, Direction.NOTE, "connection", f"open {target} (pid 1)", None, "open", conn)


def _got(role: str, conn: int, text: str, summary: str = "result #1", why: str | None = None) -> WireEvent:
    return WireEvent(0.1, role, Direction.RECEIVED, "jsonrpc", text, why, summary, conn)


STDIO = [_conn("mcp-client", 1, "stdio:node server.js"),
         _got("mcp-client", 1, '{"jsonrpc":"2.0","id":1,"result":{}}'),
         _got("mcp-client", 1, "Failed to check update, proceeding with sync...", "invalid", "not a JSON-RPC message")]
HTTP = [_conn("mcp-client", 2, "http://127.0.0.1:1/mcp"),
        _got("mcp-client", 2, "<html>oops</html>", "invalid", "not a JSON-RPC message")]


def test_only_the_lines_of_stdio_connections_count():
    seen = stdout_lines(STDIO + HTTP)
    assert (seen.connections, seen.messages, seen.total) == (1, 1, 2)
    assert seen.invalid == [("not a JSON-RPC message", "Failed to check update, proceeding with sync...")]
    assert stdout_lines(HTTP).connections == 0


def test_the_scenario_check_fails_on_a_stray_line_and_cannot_judge_without_stdio():
    with pytest.raises(AssertionError, match="1 of the 2 line.* are not MCP messages.*Failed to check update"):
        check_stdout_is_mcp(stdout_lines(STDIO))
    check_stdout_is_mcp(stdout_lines(STDIO[:2]))
    with pytest.raises(NotTestable, match="give a stdio: target"):
        check_stdout_is_mcp(stdout_lines(HTTP))
    with pytest.raises(NotTestable, match="wrote nothing"):
        check_stdout_is_mcp(stdout_lines(STDIO[:1]))


def test_the_run_wide_result_adds_every_scenario_and_survives_the_xdist_handover():
    one, two = EmittedLines(), EmittedLines()
    subject = {"role": "probekit", "target": "stdio:node server.js"}
    one.observe_scenario(subject, "a::one", STDIO[:2])
    two.observe_scenario(subject, "a::two", STDIO)
    two.observe_scenario({"role": "hook-server", "target": "ws://x"}, "a::three", STDIO)  # not an MCP role
    one.absorb(two.to_json())
    [result] = judge_emitted_lines(one, {}, [], strict=False)
    assert result.nodeid == "emitted-lines::probekit::PROBE-STDIO-STDOUT-01" and result.verdict is Verdict.FAIL
    assert "1 of the 3 line(s)" in result.reason and "in a::two" in result.reason
    assert judge_emitted_lines(one, {}, ["CCWEB-*"], strict=False) == []  # not selected


def test_a_clean_run_passes_with_the_count_and_a_role_never_over_stdio_gets_no_result():
    lines = EmittedLines()
    lines.observe_scenario({"role": "ccweb", "target": "stdio:x"}, "a::one", STDIO[:2])
    lines.observe_scenario({"role": "probekit", "target": "http://h/mcp"}, "a::two", HTTP)
    [result] = judge_emitted_lines(lines, {}, [], strict=False)
    assert result.requirement == "CCWEB-STDIO-STDOUT-01" and result.verdict is Verdict.PASS
    assert result.evidence == ["1 line(s) the ccweb subject wrote to stdout over stdio in this run, every one a "
                               "JSON-RPC message"]
