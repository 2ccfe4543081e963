"""``simulator.drivers.probekit.ProbeKitDriver`` over a fake subject: sessions, calls, the contrast call, tasks
(no network, a fake clock)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from test_timing import FakeClock  # the drivers' fake clock (tests/drivers/test_timing.py)

import simulator.drivers.probekit as probekit
from simulator.drivers.probekit import ProbeKitDriver, check_output_contract, check_task_gone
from simulator.drivers.probekit.driver import TTL_MARGIN_S
from simulator.drivers.timing import POLL_MAX_S, POLL_S
from simulator.errors import NotTestable
from simulator.roles.mcp_client import McpErrorResponse

SCHEMA = {"type": "object", "properties": {"changes": {"type": "string"}}, "required": ["changes"]}
TOOLS = [{"name": "gencommit", "inputSchema": SCHEMA}, {"name": "debug", "inputSchema": {"type": "object"}}]
Responder = Callable[[str, Mapping[str, Any] | None], dict[str, Any]]


def _text(text: str, **extra: Any) -> dict[str, Any]:
    return {"result": {"content": [{"type": "text", "text": text}], **extra}}


class FakeClient:
    """The part of ``McpClientRole`` the driver uses; ``respond(method, params)`` answers every request."""

    def __init__(self, tools: list[dict[str, Any]], respond: Responder) -> None:
        self.tools, self.respond = tools, respond
        self.identity = {"serverInfo": {"name": "fake-probe-kit", "version": "2.0.0"}}
        self.sent: list[tuple[str, Any]] = []
        self.elicitations: list[Any] = []
        self.answer_fn: Any = None
        self.closed = False

    def list_tools(self) -> list[dict[str, Any]]:
        self.sent.append(("tools/list", None))
        return list(self.tools)

    def raw_request(self, method: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None):
        self.sent.append((method, params))
        return self.respond(method, params)

    def _result(self, method: str, params: Mapping[str, Any]) -> Any:
        response = self.raw_request(method, params)
        if "error" in response:
            raise McpErrorResponse(method, response)
        return response["result"]

    def tasks_get(self, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self._result("tasks/get", {"taskId": task_id})

    def tasks_list(self) -> list[dict[str, Any]]:
        return self._result("tasks/list", {})["tasks"]

    def tasks_result(self, task_id: str, *, timeout: float | None = None) -> dict[str, Any]:
        return self._result("tasks/result", {"taskId": task_id})

    def on_elicit(self, answer_fn: Any) -> None:
        self.answer_fn = answer_fn

    def close(self) -> None:
        self.closed = True

    def calls(self) -> list[Any]:
        return [params for method, params in self.sent if method == "tools/call"]


class FakeSubject:
    """``ProbeKitSubject``: each session a ``FakeClient`` built by ``make(env)``; what was opened is kept."""

    def __init__(self, make: Callable[[Mapping[str, str]], FakeClient], declared: Mapping[str, str] = {},
                 options: Mapping[str, str] = {}) -> None:
        self.make, self.declared, self.options = make, dict(declared), dict(options)
        self.opened: list[tuple[dict[str, str], str | None, FakeClient]] = []
        self.identities: list[dict[str, Any]] = []
        self.evidence: list[str] = []

    def open_client(self, env: Mapping[str, str], elicitation: str | None) -> FakeClient:
        client = self.make(env)
        self.opened.append((dict(env), elicitation, client))
        return client

    def declared_env(self) -> Mapping[str, str]:
        return self.declared

    def note_identity(self, identity: Mapping[str, Any]) -> None:
        self.identities.append(dict(identity))

    def note_evidence(self, text: str) -> None:
        self.evidence.append(text)

    def option(self, name: str) -> str | None:
        return self.options.get(name)


def _answer_text(method: str, params: Mapping[str, Any] | None) -> dict[str, Any]:
    return _text(f"{method} done")


def _driver(respond: Responder = _answer_text, *, tools=TOOLS, declared: Mapping[str, str] = {},
            step_timeout: float = 1.0,
            options: Mapping[str, str] = {}) -> tuple[ProbeKitDriver, FakeSubject, FakeClock]:
    subject = FakeSubject(lambda env: FakeClient(tools, respond), declared, options)
    clock = FakeClock()
    driver = ProbeKitDriver(subject, step_timeout=step_timeout, clock=clock, sleep=clock.sleep)
    return driver, subject, clock


def test_the_package_re_exports_every_public_name_of_its_modules():
    modules = ["arguments", "calls", "commits", "driver", "elicitation", "expect", "schemas", "session",
               "structured", "tasks", "toolsets", "working"]
    names = {n for m in modules for n in importlib.import_module(f"simulator.drivers.probekit.{m}").__all__}
    assert set(probekit.__all__) == names
    assert all(hasattr(probekit, n) for n in probekit.__all__)


def test_a_session_runs_the_subject_with_the_scenarios_environment():
    driver, subject, _ = _driver()
    driver.open_session("core", show_all="1", elicitation="none")
    assert subject.opened[0][:2] == ({"MCP_TOOLSET": "core", "MCP_SHOW_ALL": "1"}, None)
    assert subject.identities == [{"serverInfo": {"name": "fake-probe-kit", "version": "2.0.0"}}]
    assert driver.toolset == "core"
    driver.open_session("full", elicitation="url")
    assert subject.opened[1][:2] == ({"MCP_TOOLSET": "full"}, "url")


def test_no_toolset_is_not_testable_when_the_run_declared_one():
    driver, subject, _ = _driver(declared={"MCP_TOOLSET": "core"})
    with pytest.raises(NotTestable, match="MCP_TOOLSET=core .--subject-env."):
        driver.open_default_session()
    assert subject.opened == []
    driver, subject, _ = _driver()
    driver.open_default_session()
    assert subject.opened[0][0] == {} and driver.toolset is None


def test_steps_before_a_session_or_a_call_are_scenario_bugs():
    driver, _, _ = _driver()
    with pytest.raises(RuntimeError, match="no probe-kit session"):
        driver.list_tools()
    driver.open_session("full")
    with pytest.raises(RuntimeError, match="no call was made"):
        driver.call  # noqa: B018 - reading the property raises
    with pytest.raises(RuntimeError, match="no call was prepared"):
        driver.make_prepared_call()
    with pytest.raises(AssertionError, match="no task was created"):
        driver.get_task()


def test_written_arguments_the_subject_does_not_accept_are_not_testable():
    driver, subject, _ = _driver()
    driver.open_session("full")
    with pytest.raises(NotTestable, match="inputSchema of gencommit does not accept"):
        driver.call_written("gencommit", {"diff": "x"})
    client = subject.opened[0][2]
    assert client.calls() == []
    driver.call_written("gencommit", {"changes": "test changes"})
    driver.call_written("not_listed", {"anything": 1})  # called as written: its answer is the evidence
    assert [c["name"] for c in client.calls()] == ["gencommit", "not_listed"]
    with pytest.raises(ValueError, match="feature bug"):
        driver.call_written("gencommit", ["changes"])


def test_built_arguments_follow_the_tools_own_input_schema():
    driver, subject, _ = _driver()
    driver.open_session("full")
    assert driver.call_valid("gencommit", "Add a CSV export").arguments == {"changes": "Add a CSV export"}
    assert driver.call_breaking("gencommit").arguments == {"changes": 12345}
    with pytest.raises(NotTestable, match="cannot build a call that breaks"):
        driver.call_breaking("debug")
    with pytest.raises(AssertionError, match="tools/list has no tool 'start_ui'"):
        driver.call_valid("start_ui", "x")


def test_every_listed_tool_and_each_named_one_is_called():
    driver, subject, _ = _driver()
    driver.open_session("full")
    driver.call_every(["gencommit", "start_ui"])
    assert [(c.tool, c.arguments) for c in driver.calls] == [("gencommit", {}), ("debug", {}), ("start_ui", {})]
    with pytest.raises(AssertionError, match="start_ui: not in tools/list"):
        check_output_contract(driver.calls, driver.listed_by_name())
    driver.calls.clear()
    driver.call_every(["start_ui"], "text")
    assert [c.arguments for c in driver.calls] == [{"changes": "text"}, {}, {}]


def test_the_contrast_call_is_made_on_a_second_session_and_prepared():
    driver, subject, _ = _driver()
    driver.open_session("core")
    driver.prepare_contrast("gencommit", "full", arguments={"changes": "test changes"})
    env, _, other = subject.opened[1]
    assert env == {"MCP_TOOLSET": "full"} and other.closed and len(other.calls()) == 1
    assert driver.calls == []
    driver.make_prepared_call()
    assert subject.opened[0][2].calls() == [{"name": "gencommit", "arguments": {"changes": "test changes"}}]


def test_a_contrast_that_fails_there_is_not_testable():
    def respond(method: str, params: Any) -> dict[str, Any]:
        return _text("no such thing", isError=True)

    driver, subject, _ = _driver(respond)
    driver.open_session("core")
    with pytest.raises(NotTestable, match="does not succeed under MCP_TOOLSET=full"):
        driver.prepare_contrast("gencommit", "full", text="x")
    assert subject.opened[1][2].closed and driver.prepared is None
    with pytest.raises(NotTestable, match="start_ui is not listed under MCP_TOOLSET=full"):
        driver.prepare_contrast("start_ui", "full", text="x")


def _task_subject(statuses: list[str]) -> Responder:
    states = iter(statuses)

    def respond(method: str, params: Any) -> dict[str, Any]:
        if method == "tools/call" and "task" not in params:  # the search for arguments that work
            return _text("report")
        if method == "tools/call":
            return {"result": {"task": {"taskId": "t-1", "status": "working"}}}
        if method == "tasks/get":
            return {"result": {"taskId": "t-1", "status": next(states)}}
        if method == "tasks/cancel":
            return {"error": {"code": -32602, "message": "terminal"}}
        return {"error": {"code": -32601, "message": method}}

    return respond


def test_a_task_runs_the_call_that_works_and_is_waited_for_until_it_ends():
    driver, subject, clock = _driver(_task_subject(["working", "working", "failed"]))
    driver.open_session("full")
    assert driver.call_as_task("gencommit", "x", 60000)["taskId"] == "t-1"
    search, task = subject.opened[0][2].calls()
    assert "task" not in search and task == {**search, "task": {"ttl": 60000}}
    assert driver.wait_until_terminal() == "failed" == driver.ended_status
    assert clock.now == pytest.approx(POLL_S + 2 * POLL_S)  # two pauses, the second twice the first


def test_a_task_that_never_ends_fails_at_the_step_limit():
    driver, _, clock = _driver(_task_subject(["working"] * 1000), step_timeout=0.5)
    driver.open_session("full")
    driver.call_as_task("gencommit", "x", 60000)
    with pytest.raises(AssertionError, match=r"did not end within 0.5 s \(tasks/get kept answering 'working'\)"):
        driver.wait_until_terminal()
    assert clock.now >= 0.5


def test_a_refused_tasks_get_ends_the_wait_at_once():
    def respond(method: str, params: Any) -> dict[str, Any]:
        if method == "tools/call":
            return {"result": {"task": {"taskId": "t-1", "status": "working"}}} if "task" in params else _text("ok")
        return {"error": {"code": -32602, "message": "unknown task"}}

    driver, _, clock = _driver(respond)
    driver.open_session("full")
    driver.call_as_task("gencommit", "x", 60000)
    with pytest.raises(McpErrorResponse):
        driver.wait_until_terminal()
    assert clock.now == 0.0


def _expiring_subject(clock: FakeClock, gone_after: float) -> Responder:
    """A task that ``tasks/get`` finds until ``gone_after`` seconds on the fake clock, then no longer."""

    def respond(method: str, params: Any) -> dict[str, Any]:
        if method == "tools/call":
            return {"result": {"task": {"taskId": "t-1", "status": "working"}}} if "task" in params else _text("ok")
        if method == "tasks/get":
            if clock.now >= gone_after:
                return {"error": {"code": -32602, "message": "unknown task"}}
            return {"result": {"taskId": "t-1", "status": "completed"}}
        return {"error": {"code": -32601, "message": method}}

    return respond


def test_the_ttl_wait_ends_just_past_the_ttl_from_the_calls_answer():
    clock = FakeClock()
    driver = ProbeKitDriver(FakeSubject(lambda env: FakeClient(TOOLS, _expiring_subject(clock, 99.0))),
                            step_timeout=1.0, clock=clock, sleep=clock.sleep)
    driver.open_session("full")
    clock.sleep(0.3)  # the call answered at 0.3
    driver.call_as_task("gencommit", "x", 1500)
    driver.wait_past_ttl()
    assert clock.now == pytest.approx(0.3 + 1.5 + TTL_MARGIN_S)
    driver.wait_past_ttl()  # already past: no further pause
    assert clock.now == pytest.approx(0.3 + 1.5 + TTL_MARGIN_S)


@pytest.mark.parametrize(("gone_after", "found"), [(1.6, True), (2.0, True), (2.6, False)])
def test_tasks_get_is_asked_until_it_no_longer_finds_the_task_at_most_the_window(gone_after: float, found: bool):
    """Gone within the window: the error is what the check judges, seen once it is there. Still there at the
    window's end: the last answer, a task, which the check fails."""
    clock = FakeClock()
    driver = ProbeKitDriver(FakeSubject(lambda env: FakeClient(TOOLS, _expiring_subject(clock, gone_after))),
                            step_timeout=5.0, clock=clock, sleep=clock.sleep)
    driver.open_session("full")
    driver.call_as_task("gencommit", "x", 1500)
    driver.wait_past_ttl()
    response = driver.look_up_task_until_gone(1.0)
    if found:
        check_task_gone(response)
        assert clock.now < gone_after + POLL_MAX_S + 1e-9
    else:
        assert response == {"result": {"taskId": "t-1", "status": "completed"}}
        with pytest.raises(AssertionError, match="tasks/get still answers the task after its ttl passed"):
            check_task_gone(response)
        assert clock.now == pytest.approx(1.5 + TTL_MARGIN_S + 1.0)


def test_cancelling_a_task_that_already_ended_is_not_testable_when_it_must_be_live():
    driver, subject, _ = _driver(_task_subject(["completed", "completed"]))
    driver.open_session("full")
    driver.call_as_task("gencommit", "x", 60000)
    with pytest.raises(NotTestable, match="had already ended 'completed' when the cancel reached it"):
        driver.cancel_task(only_if_live=True)
    methods = [m for m, _ in subject.opened[0][2].sent]
    assert methods[-2:] == ["tasks/cancel", "tasks/get"]  # the cancel goes out first: no look before it
    driver.cancel_task()
    assert driver.task_response == {"error": {"code": -32602, "message": "terminal"}}


def test_a_refused_cancel_of_a_task_still_running_is_the_answer_judged():
    driver, _, _ = _driver(_task_subject(["working"]))
    driver.open_session("full")
    driver.call_as_task("gencommit", "x", 60000)
    driver.cancel_task(only_if_live=True)
    assert driver.task_response == {"error": {"code": -32602, "message": "terminal"}}


def test_the_client_answers_forms_with_the_features_text():
    driver, subject, _ = _driver()
    driver.open_session("full", elicitation="form")
    driver.answer_forms_with("harness-answer")
    assert subject.opened[0][2].answer_fn is not None


# -- a call that works, and asking the user ------------------------------------------------------------------------

BUGFIX = {"name": "start_bugfix", "inputSchema": {"type": "object", "required": [], "properties": {
    "error_message": {"type": "string"}, "project_root": {"type": "string"}}}}


def test_a_made_up_value_the_tool_refuses_is_left_out_of_the_call_that_works():
    project_only = {**BUGFIX, "inputSchema": {**BUGFIX["inputSchema"], "required": ["project_root"]}}
    driver, subject, _ = _driver(_needs_error_message, tools=[project_only])
    driver.open_session("full")
    with pytest.raises(NotTestable, match="refused every argument set"):
        driver.call_valid("start_bugfix", "x")  # project_root is required and never a directory: nothing works
    assert all("project_root" in c["arguments"] for c in subject.opened[0][2].calls())


def _needs_error_message(method: str, params: Any) -> dict[str, Any]:
    """A tool that under-declares: its schema requires nothing, its handler wants error_message and refuses a
    project_root that names no directory (as real servers do)."""
    arguments = (params or {}).get("arguments") or {}
    if "project_root" in arguments:
        return _text("错误: 无效 project_root", isError=True)
    if "error_message" not in arguments:
        return _text("缺少必填参数: error_message", isError=True)
    return _text("report")


def test_the_call_that_works_is_the_first_schema_valid_set_the_tool_accepts_and_refusals_are_evidence():
    driver, subject, _ = _driver(_needs_error_message, tools=[BUGFIX])
    driver.open_session("full")
    call = driver.call_valid("start_bugfix", "the login page fails")
    assert call.arguments == {"error_message": "the login page fails"} and driver.calls == [call]
    tried = [c["arguments"] for c in subject.opened[0][2].calls()]
    assert tried == [{}, {"error_message": "the login page fails"}] and len(subject.evidence) == 1
    assert "refused arguments valid against its own inputSchema (the properties the schema gives a value: {})" \
        in subject.evidence[0]
    driver.call_valid("start_bugfix", "the login page fails")  # found once per session, tool and text
    assert len(subject.opened[0][2].calls()) == len(tried)


def test_a_tool_that_refuses_every_schema_valid_set_is_not_testable_with_the_refusals():
    driver, subject, _ = _driver(lambda m, p: _text("nope", isError=True), tools=[BUGFIX])
    driver.open_session("full")
    with pytest.raises(NotTestable, match="refused every argument set valid against its own inputSchema"):
        driver.call_valid("start_bugfix", "x")
    assert driver.calls == []


def test_a_sweep_keeps_the_first_call_of_a_tool_that_never_works():
    driver, _, _ = _driver(lambda m, p: _text("nope", isError=True), tools=[BUGFIX])
    driver.open_session("full")
    driver.call_every((), "x")
    assert [c.arguments for c in driver.calls] == [{}]  # the first set tried: the schema's own values


ASKER = {"name": "start_feature", "inputSchema": {"type": "object", "properties": {
    "description": {"type": "string"},
    "requirements_mode": {"type": "string", "description": "需求模式：steady（默认）或 loop（需求澄清与补全）"}}}}


class _Elicited:
    def __init__(self, mode: str) -> None:
        self.mode = mode


def test_a_question_goes_to_ask_user_then_to_a_tool_with_an_asking_mode_until_a_form_is_sent():
    ask_user = {"name": "ask_user", "inputSchema": {"type": "object", "properties": {"question": {"type": "string"}}}}
    clients: list[FakeClient] = []

    def respond(method: str, params: Any) -> dict[str, Any]:
        if params["name"] == "start_feature" and params["arguments"].get("requirements_mode") == "loop":
            clients[0].elicitations.append(_Elicited("form"))
        return _text("asked")

    subject = FakeSubject(lambda env: clients.append(FakeClient([ask_user, ASKER], respond)) or clients[-1])
    driver = ProbeKitDriver(subject, step_timeout=1.0)
    driver.open_session("full", elicitation="form")
    call = driver.ask_for_form("What should it be called?")
    assert clients[0].calls()[0] == {"name": "ask_user", "arguments": {"question": "What should it be called?"}}
    assert call.tool == "start_feature" and call.arguments["requirements_mode"] == "loop"
    assert driver.asked[0].startswith("ask_user") and "no form" in driver.asked[0] and "a form" in driver.asked[-1]


def test_the_asking_tool_the_run_names_is_the_only_one_asked():
    driver, subject, _ = _driver(tools=[ASKER, {"name": "ask_user", "inputSchema": {"type": "object"}}],
                                 options={"elicit-tool": "start_feature"})
    driver.open_session("full", elicitation="form")
    driver.ask_for_form("Q?")
    assert {c["name"] for c in subject.opened[0][2].calls()} == {"start_feature"}
    driver, _, _ = _driver(options={"elicit-tool": "nowhere"})
    driver.open_session("full", elicitation="form")
    with pytest.raises(NotTestable, match="elicit-tool=nowhere is not listed"):
        driver.ask_for_form("Q?")


def test_the_p0_tools_are_made_to_fail_with_nothing_and_with_input_their_schema_forbids():
    driver, subject, _ = _driver()
    driver.open_session("full")
    driver.call_empty_and_breaking(["gencommit", "debug", "ask_user"])
    assert [(c.tool, c.arguments) for c in driver.calls] == [("gencommit", {}), ("gencommit", {"changes": 12345}),
                                                             ("debug", {})]
    assert any("ask_user is not listed" in line for line in subject.evidence)
    assert any("debug: no call breaking its inputSchema" in line for line in subject.evidence)
    with pytest.raises(NotTestable, match="none of .* is listed"):
        driver.call_empty_and_breaking(["ask_user"])
