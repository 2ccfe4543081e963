"""Tests of the MCP-client role against ``mcp_fixture_server.py``: in-memory (fast, most tests), stdio (the
fixture spawned with this interpreter) and Streamable HTTP (the fixture served by uvicorn on a free port)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conformance_runs import load_module

from simulator.errors import HarnessError, MissingFrame, SubjectTimeout, TargetError
from simulator.roles.mcp_client import (
    ElicitAnswer,
    McpClientRole,
    McpErrorResponse,
    SubjectDisconnected,
    breaking_arguments,
    build_client_capabilities,
    tool_text,
    valid_arguments,
)
from simulator.wirelog import Direction

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "mcp_fixture_server.py"
LISTED = ["echo", "slow", "freeze", "ask", "steps"]


fixture_server = load_module(FIXTURE, "mcp_fixture_server")


@pytest.fixture
def role():
    r = McpClientRole(step_timeout=5.0)
    yield r
    r.close()


@pytest.fixture
def mem(role):
    """A role connected in memory to a fresh fixture server (not yet initialized)."""
    role.connect_memory(fixture_server.build_server())
    return role


def sent(role, method=None):
    return [
        e for e in role.wirelog
        if e.channel == "jsonrpc" and e.direction is Direction.SENT and (method is None or e.summary == method)
    ]


def sent_params(role, method):
    return [json.loads(e.text).get("params") for e in sent(role, method)]


def pid_alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().split(") ", 1)[1][:1] != "Z"
    except FileNotFoundError:
        return False


# -- in-memory ---------------------------------------------------------------------------------------------------


def test_memory_initialize_list_and_call(mem):
    result = mem.initialize()
    assert result["serverInfo"]["name"] == "mcp-fixture"
    assert result["protocolVersion"] == "2025-11-25"
    assert mem.identity == result and mem.negotiated_version == "2025-11-25"
    assert "tools" in mem.server_capabilities

    assert [t["name"] for t in mem.list_tools()] == LISTED  # hidden_echo is not listed
    call = mem.call_tool("echo", {"text": "hello"})
    assert call == {"content": [{"type": "text", "text": "hello"}], "isError": False}
    assert tool_text(call) == "hello"


def test_initialize_request_on_the_wire(mem):
    mem.initialize(protocol_version="2025-06-18", client_info={"name": "x", "version": "9"})
    (params,) = sent_params(mem, "initialize")
    assert params == {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "x", "version": "9"}}
    assert [e.summary for e in sent(mem)] == ["initialize", "notifications/initialized"]
    assert json.loads(sent(mem, "notifications/initialized")[0].text) == {
        "jsonrpc": "2.0", "method": "notifications/initialized"  # no "params": null
    }


def test_wire_log_records_every_message_both_ways(mem):
    mem.initialize()
    mem.call_tool("echo", {"text": "x"})
    mem.raw_request("no/such/method")
    events = [e for e in mem.wirelog if e.channel == "jsonrpc"]
    assert [(e.direction.value, e.summary) for e in events] == [
        ("sent", "initialize"), ("received", "result #1"), ("sent", "notifications/initialized"),
        ("sent", "tools/call"), ("received", "result #2"),
        ("sent", "no/such/method"), ("received", "error #3"),
    ]
    for e in events:
        assert json.loads(e.text)["jsonrpc"] == "2.0"
    notes = [e for e in mem.wirelog if e.direction is Direction.NOTE]
    assert notes[0].channel == "connection" and notes[0].summary == "open"


def test_raw_request_reaches_a_hidden_tool_without_relisting(mem):
    mem.initialize()
    mem.list_tools()
    response = mem.raw_request("tools/call", {"name": "hidden_echo", "arguments": {"text": "psst"}})
    assert response["id"] == 3 and "error" not in response
    assert tool_text(response["result"]) == "hidden: psst"
    assert tool_text(mem.call_tool("hidden_echo", {"text": "again"})) == "hidden: again"
    assert len(sent(mem, "tools/list")) == 1  # only ours: nothing re-listed behind our back
    assert [e.summary for e in sent(mem)][-2:] == ["tools/call", "tools/call"]


def test_jsonrpc_error_is_returned_as_a_dict(mem):
    mem.initialize()
    response = mem.raw_request("no/such/method", {"a": 1})
    assert response["jsonrpc"] == "2.0" and "result" not in response
    assert response["error"]["code"] == -32601
    with pytest.raises(McpErrorResponse) as info:  # the typed helpers raise (an AssertionError: a finding)
        mem.tasks_get("t-1")
    assert info.value.code == -32601 and isinstance(info.value, AssertionError)
    assert sent_params(mem, "tasks/get") == [{"taskId": "t-1"}]


def test_raw_request_with_chosen_id_and_raw_notification(mem):
    mem.initialize()
    assert mem.raw_request("ping", request_id="abc") == {"jsonrpc": "2.0", "id": "abc", "result": {}}
    mem.raw_notification("notifications/roots/list_changed")
    assert sent(mem)[-1].summary == "notifications/roots/list_changed"


def test_task_augmented_call_puts_task_in_params(mem):
    mem.initialize()
    mem.call_tool("echo", {"text": "t"}, task={"ttl": 60000})  # the fixture ignores it; the wire must carry it
    assert sent_params(mem, "tools/call")[-1]["task"] == {"ttl": 60000}


def test_a_missed_deadline_of_a_live_subject_is_a_missing_frame_then_role_stays_usable(mem):
    """docs/targets.md "Verdicts": a subject that still answers ping but never answered the request is alive and
    failed to answer (fail, "no response to <method> within N s"), not silent (timeout)."""
    mem.initialize()
    started = time.monotonic()
    with pytest.raises(MissingFrame) as info:
        mem.call_tool("slow", {"seconds": 5}, timeout=0.5)
    assert time.monotonic() - started < 1.5
    assert "no response to tools/call within 0.5 s" in str(info.value)
    assert tool_text(mem.call_tool("echo", {"text": "still here"})) == "still here"
    (cancel,) = sent_params(mem, "notifications/cancelled")
    assert cancel["requestId"] == 2  # the abandoned tools/call
    assert [json.loads(e.text)["id"] for e in sent(mem, "ping")] == [3]  # the liveness probe, after the cancel


def test_ping_probe_disabled_keeps_the_plain_timeout(role):
    role.ping_probe_s = 0
    role.connect_memory(fixture_server.build_server())
    role.initialize()
    with pytest.raises(SubjectTimeout) as info:
        role.call_tool("slow", {"seconds": 5}, timeout=0.3)
    assert "tools/call" in info.value.reason and 0.2 < info.value.waited_s < 1.3
    assert sent(role, "ping") == []


def test_progress_events_recorded(mem):
    mem.initialize()
    assert tool_text(mem.call_tool("steps", {"n": 3}, progress_token="tok")) == "3 steps"
    events = mem.progress_events
    assert [(p.progress_token, p.progress, p.total) for p in events] == [("tok", 1, 3), ("tok", 2, 3), ("tok", 3, 3)]
    assert mem.wait_for_notification("notifications/progress")["params"]["progress"] == 1
    with pytest.raises(MissingFrame, match="no notifications/message notification within 0.2 s"):
        mem.wait_for_notification("notifications/message", timeout=0.2)  # alive (answers ping), never sent it


# -- elicitation -------------------------------------------------------------------------------------------------


def test_capability_shapes():
    assert build_client_capabilities(None, "2025-11-25") == {}
    assert build_client_capabilities("form", "2025-11-25") == {"elicitation": {"form": {}}}
    assert build_client_capabilities("url", "2025-11-25") == {"elicitation": {"url": {}}}
    assert build_client_capabilities("both", "2025-11-25") == {"elicitation": {"form": {}, "url": {}}}
    assert build_client_capabilities("form", "2025-06-18") == {"elicitation": {}}
    with pytest.raises(ValueError):
        build_client_capabilities("url", "2025-06-18")


def test_no_elicitation_gets_the_fallback(mem):
    mem.initialize(elicitation=None)
    assert tool_text(mem.call_tool("ask", {"question": "colour?"})) == "fallback: colour?"
    assert mem.elicitations == []


def test_url_only_client_gets_the_fallback(mem):
    mem.initialize(elicitation="url")
    assert sent_params(mem, "initialize")[0]["capabilities"] == {"elicitation": {"url": {}}}
    assert tool_text(mem.call_tool("ask", {"question": "colour?"})) == "fallback: colour?"


def test_form_elicitation_recorded_and_scripted_answer_reaches_the_tool(mem):
    mem.initialize(elicitation="form")
    mem.script_elicit_answers(ElicitAnswer.accept({"answer": "blue"}), ElicitAnswer.decline())
    assert tool_text(mem.call_tool("ask", {"question": "colour?"})) == "answer: blue"
    assert tool_text(mem.call_tool("ask", {"question": "size?"})) == "action: decline"
    first, second = mem.elicitations
    assert (first.mode, first.message, second.message) == ("form", "colour?", "size?")
    assert first.requested_schema["required"] == ["answer"] and first.url is None
    answers = [json.loads(e.text) for e in sent(mem, "result #1")]
    assert answers[0]["result"] == {"action": "accept", "content": {"answer": "blue"}}


def test_elicit_answer_function_and_default_cancel(mem):
    mem.initialize(elicitation="both")
    assert tool_text(mem.call_tool("ask", {"question": "q"})) == "action: cancel"  # nothing scripted
    mem.on_elicit(lambda request: ElicitAnswer.accept({"answer": request.message.upper()}))
    assert tool_text(mem.call_tool("ask", {"question": "shout"})) == "answer: SHOUT"


def test_a_failing_answer_script_is_recorded_as_a_harness_error(mem):
    """The subject gets a JSON-RPC error it was never meant to get: the wire log says the harness failed, which
    turns the scenario's pass into an error (tests/harness/test_harness_errors.py)."""
    mem.initialize(elicitation="form")
    assert mem.wirelog.harness_errors() == []

    def broken(request):
        raise KeyError("no such answer")

    mem.on_elicit(broken)
    mem.call_tool("ask", {"question": "colour?"})
    (failure,) = mem.wirelog.harness_errors()
    assert "answer script for elicitation/create" in failure.text and "KeyError" in failure.text
    errors = [json.loads(e.text) for e in sent(mem) if "error" in json.loads(e.text)]
    assert errors and errors[0]["error"]["code"] == -32603


# -- teardown ----------------------------------------------------------------------------------------------------


def test_close_is_idempotent_and_calls_after_close_fail(mem):
    mem.initialize()
    mem.close()
    mem.close()
    with pytest.raises(HarnessError):
        mem.list_tools()
    assert [e.summary for e in mem.wirelog if e.channel == "connection"][-1] == "closed"
    McpClientRole().close()  # never connected: nothing to do


# -- stdio -------------------------------------------------------------------------------------------------------


def test_stdio_initialize_call_timeout_and_close():
    role = McpClientRole()
    role.connect_stdio([sys.executable, str(FIXTURE)], env={"MCP_TOOLSET": "core"})
    try:
        pid = role.pid
        assert pid is not None and pid_alive(pid)
        assert role.initialize(elicitation="form")["serverInfo"]["name"] == "mcp-fixture"
        assert tool_text(role.call_tool("echo", {"text": "over stdio"})) == "over stdio"
        with pytest.raises(MissingFrame):  # alive: the ping after the deadline is answered
            role.call_tool("slow", {"seconds": 5}, timeout=0.5)
        role.script_elicit_answers({"action": "accept", "content": {"answer": "raw dict"}})
        assert tool_text(role.call_tool("ask", {"question": "q"})) == "answer: raw dict"
    finally:
        started = time.monotonic()
        role.close()
        role.close()
    assert time.monotonic() - started < 5
    assert not pid_alive(pid)
    stderr = [e.text for e in role.wirelog if e.channel == "stderr"]
    assert any("MCP_TOOLSET=core" in line for line in stderr)  # the env reached the child; stderr recorded
    closed = [e for e in role.wirelog if e.summary == "closed"]
    assert closed and "child exited" in closed[0].text


def test_stdio_subject_that_stops_answering_altogether_is_a_timeout():
    """A frozen subject answers neither the request nor the ping: ``SubjectTimeout``, within the request's deadline
    plus the bounded ping probe."""
    role = McpClientRole(ping_probe_s=0.5)
    role.connect_stdio([sys.executable, str(FIXTURE)])
    try:
        role.initialize()
        started = time.monotonic()
        with pytest.raises(SubjectTimeout) as info:
            role.call_tool("freeze", {"seconds": 4}, timeout=0.5)
        elapsed = time.monotonic() - started
        assert "tools/call" in info.value.reason
        assert elapsed < 0.5 + 0.5 + 2.5, elapsed  # deadline + ping probe + the loop's grace, never the 4 s freeze
        assert len(sent(role, "ping")) == 1
        assert any(e.summary == "subject silent" for e in role.wirelog)
    finally:
        role.close()


def test_stdio_spawn_failure_is_a_target_error():
    role = McpClientRole()
    with pytest.raises(TargetError):
        role.connect_stdio(["/nonexistent/mcp-server-binary"])
    role.close()


def test_stdio_garbage_output_is_recorded_and_a_dead_child_is_a_target_error():
    role = McpClientRole()
    role.connect_stdio([sys.executable, "-c", "print('hello, not json', flush=True)"])
    try:
        with pytest.raises(TargetError, match="never answered"):
            role.initialize(timeout=5)
    finally:
        role.close()
    (bad,) = [e for e in role.wirelog if e.summary == "invalid"]
    assert bad.direction is Direction.RECEIVED and bad.text == "hello, not json"
    assert bad.verdict.startswith("not a JSON-RPC message")


ANSWER_ONCE = """
import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("method") == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "once", "version": "0"}}
        print(json.dumps({"jsonrpc": "2.0", "id": msg["id"], "result": result}), flush=True)
    elif "id" in msg:
        sys.exit(3)  # crash on the first real request
"""


def test_stdio_subject_crash_mid_request_fails_fast():
    role = McpClientRole()
    role.connect_stdio([sys.executable, "-c", ANSWER_ONCE])
    try:
        assert role.initialize()["serverInfo"]["name"] == "once"
        started = time.monotonic()
        with pytest.raises(SubjectDisconnected):
            role.call_tool("echo", {"text": "x"}, timeout=5)
        assert time.monotonic() - started < 2  # not the step deadline
        assert not role.connected
    finally:
        role.close()
    assert [e.summary for e in role.wirelog if e.channel == "connection"] == ["open", "eof", "closed"]


def test_stdio_child_ignoring_sigterm_is_killed_within_bounds():
    stubborn = "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(60)"
    role = McpClientRole(stdin_grace_s=0.2, term_grace_s=0.3)
    role.connect_stdio([sys.executable, "-c", stubborn])
    pid = role.pid
    time.sleep(0.3)  # let it install the handler
    started = time.monotonic()
    role.close()
    assert time.monotonic() - started < 3
    assert not pid_alive(pid)
    (closed,) = [e for e in role.wirelog if e.summary == "closed"]
    assert "SIGKILL" in closed.text


# -- Streamable HTTP ---------------------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def http_url():
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(FIXTURE), "--http", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 15
        while True:
            if proc.poll() is not None:
                pytest.fail(f"the HTTP fixture server exited with {proc.returncode}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("the HTTP fixture server did not listen within 15 s")
                time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def test_http_initialize_list_call_and_elicit(http_url):
    with McpClientRole() as role:
        role.connect_http(http_url, headers={"X-Harness": "1"})
        assert role.initialize(elicitation="form")["serverInfo"]["name"] == "mcp-fixture"
        assert [t["name"] for t in role.list_tools()] == LISTED
        assert tool_text(role.call_tool("echo", {"text": "over http"})) == "over http"
        role.script_elicit_answers(ElicitAnswer.accept({"answer": "http"}))
        assert tool_text(role.call_tool("ask", {"question": "q"})) == "answer: http"
        assert role.raw_request("no/such/method")["error"]["code"] == -32601
    assert role.elicitations[0].message == "q"


def test_http_unreachable_is_a_target_error():
    with McpClientRole() as role:
        role.connect_http(f"http://127.0.0.1:{_free_port()}/mcp")
        with pytest.raises(TargetError):
            role.initialize(timeout=5)


# -- arguments from a tool's own inputSchema ---------------------------------------------------------------------


def test_valid_arguments_fill_only_what_the_schema_requires():
    """Where the spec defines no input, a call carries arguments the subject's own inputSchema accepts."""
    schema = {"type": "object", "required": ["description", "mode", "count", "tags", "opts"],
              "properties": {"description": {"type": "string", "minLength": 30}, "mode": {"enum": ["a", "b"]},
                             "count": {"type": "integer", "minimum": 2}, "tags": {"type": "array", "minItems": 2,
                                                                                 "items": {"type": "string"}},
                             "opts": {"type": "object", "required": ["on"], "properties": {"on": {"type": "boolean"}}},
                             "optional": {"type": "string"}}}
    arguments, problems = valid_arguments(schema, "a page")
    assert problems == []
    assert set(arguments) == {"description", "mode", "count", "tags", "opts"}  # never the optional one
    assert len(arguments["description"]) >= 30 and arguments["mode"] == "a" and arguments["count"] == 2
    assert arguments["tags"] == ["a page", "a page"] and arguments["opts"] == {"on": True}
    assert valid_arguments({"type": "object", "properties": {}}, "x") == ({}, [])


def test_valid_arguments_report_what_they_cannot_build():
    assert valid_arguments(None, "x")[0] is None
    arguments, problems = valid_arguments({"type": "object", "required": ["p"],
                                           "properties": {"p": {"type": "string", "pattern": "(?!)"}}}, "abc")
    assert arguments is None and "does not match" in problems[0]
    arguments, problems = valid_arguments({"type": "nonsense"}, "x")
    assert arguments is None and "not a valid JSON Schema" in problems[0]


def test_breaking_arguments_break_one_declared_property_and_nothing_else():
    schema = {"type": "object", "required": ["question"],
              "properties": {"question": {"type": "string"}, "options": {"type": "array"}}}
    arguments, what = breaking_arguments(schema, "q")
    assert arguments == {"question": 12345} and what.startswith("/question = 12345")
    enum_only = {"type": "object", "properties": {"kind": {"enum": ["feat", "fix"]}}}
    assert breaking_arguments(enum_only, "q")[0] == {"kind": "not-one-of-the-enum-values"}
    arguments, why = breaking_arguments({"type": "object", "properties": {}}, "q")
    assert arguments is None and "no property" in why
