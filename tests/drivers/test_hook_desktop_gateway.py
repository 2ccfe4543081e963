"""``simulator.drivers.hook_desktop.queries`` / ``tools`` / ``default_workspace`` and the card operations of
``interactions``: the judgements of queries (§5 阶段 6), gateway tools (阶段 12, 13), the rest of 阶段 10 and the default
workspace (默认工作目录), each on fakes (no network), with its pass and its failure path."""

from __future__ import annotations

import json
from typing import Any

import pytest
from test_hook_desktop_fakes import FakeClock, FakeControl, FakeServer, documented_run, documented_state, make_driver

from simulator.drivers.hook_desktop import checked_call_answer, checked_tool_calls
from simulator.errors import MissingFrame, NotApplicable, NotTestable
from simulator.hook import (
    InteractionButton,
    QueryAgentModels,
    QueryModelEntry,
    QuerySessionEntry,
    TaskAckPayload,
    make_hello,
    make_interaction_cancel,
    make_interaction_request,
    make_pong,
    make_query_response,
    make_task_ack,
    make_tool_request,
    make_turn_end,
)

MODELS = (QueryModelEntry("default", "Default", ("low",), "low"),)


def _state(**changes: Any) -> dict[str, Any]:
    return documented_state(**changes)


def _call(call_id: str = "c1", state: str = "pending", **changes: Any) -> dict[str, Any]:
    call = {"callId": call_id, "requestId": "r1", "tool": "status", "teamId": None, "state": state, "result": None,
            "error": None}
    call.update(changes)
    return call


def _driver(answers: dict[str, Any] | None = None, *, hello_features=("session-picker-v1",), features=(),
            respond=None, clock: FakeClock | None = None):
    server = FakeServer(desktop_features=hello_features)
    server.receive(make_hello(1, "dev", "Desk", ("chat", "repo"), ("claude",), features=hello_features))

    def answer(what: str, args: tuple, kwargs: dict):
        if what == "ping":
            return [make_pong()]
        return respond(what, args, kwargs) if respond else []
    server.answer = answer
    desk = make_driver(server, FakeControl(answers), features=features, clock=clock)
    desk.session.hellos.append(server.connection.received[0].payload)
    return desk, server


# -- queries ---------------------------------------------------------------------------------------------------------


def _responder(**by_kind: dict[str, Any]):
    """A desktop answering each query.request with ``by_kind[kind]`` (the fields of its query.response)."""
    def respond(what, args, kwargs):
        if what != "query":
            return []
        kind, query_id = args
        fields = dict(by_kind.get(kind, {"ok": False, "error": "no"}))
        ok, error = fields.pop("ok", True), fields.pop("error", None)
        return [make_query_response(query_id, kind, ok, error, **fields)]
    return respond


def test_the_workspaces_answer_must_list_only_hello_aliases():
    for listed in (("chat", "repo"), ("chat",)):  # which registered aliases it lists is the desktop's choice
        desk, _ = _driver(respond=_responder(workspaces={"workspaces": listed}))
        desk.queries.ask("q", "workspaces")
        desk.queries.check_workspaces_answer("q")
    for listed, why in ((("chat", "gone"), "not among the aliases"), (("chat", "chat"), "an alias twice"),
                        ((), "lists no workspace")):
        desk, _ = _driver(respond=_responder(workspaces={"workspaces": listed}))
        desk.queries.ask("q", "workspaces")
        with pytest.raises(AssertionError, match=why):
            desk.queries.check_workspaces_answer("q")
    desk, _ = _driver(respond=_responder(workspaces={"ok": False, "error": "busy"}))
    desk.queries.ask("q", "workspaces")
    with pytest.raises(NotTestable, match="ok:false"):  # 阶段 6 "ok=false 时 error 非空": allowed, nothing to judge
        desk.queries.check_workspaces_answer("q")


def test_an_answer_of_another_kind_or_an_invalid_one_fails():
    def respond(what, args, kwargs):
        return [make_query_response(args[1], "models", True, None, agents=())] if what == "query" else []
    desk, _ = _driver(respond=respond)
    desk.queries.ask("q", "workspaces")
    with pytest.raises(AssertionError, match="of kind 'models'"):
        desk.queries.check_workspaces_answer("q")

    def invalid(what, args, kwargs):
        if what != "query":
            return []
        return [json.dumps({"v": 1, "type": "query.response", "id": "x", "ts": 1,
                            "payload": {"queryId": args[1], "kind": "workspaces", "ok": False}})]
    desk, _ = _driver(respond=invalid)
    desk.queries.ask("q", "workspaces")
    with pytest.raises(AssertionError, match="is invalid"):
        desk.queries.check_workspaces_answer("q")


def test_the_models_answer_must_list_only_hello_agent_kinds():
    desk, _ = _driver(respond=_responder(models={"agents": (QueryAgentModels("claude", MODELS),)}))
    desk.queries.ask("m", "models")
    desk.queries.check_models_answer("m")
    desk, _ = _driver(respond=_responder(models={"agents": (QueryAgentModels("claude", MODELS),
                                                            QueryAgentModels("other", MODELS))}))
    desk.queries.ask("m", "models")
    with pytest.raises(AssertionError, match="which the desktop's hello does not offer"):
        desk.queries.check_models_answer("m")
    desk, _ = _driver(respond=_responder(models={"agents": (QueryAgentModels("claude", MODELS),) * 2}))
    desk.queries.ask("m", "models")
    with pytest.raises(AssertionError, match="an agent kind twice"):
        desk.queries.check_models_answer("m")


def _sessions_desk(entries, n_tasks: int = 22):
    desk, server = _driver(respond=_responder(sessions={"sessions": tuple(entries)}))
    for i in range(1, n_tasks + 1):
        name = f"session-task-{i}"
        desk.session.acks[name] = [TaskAckPayload(desk.session.rid(name), "accepted", None, f"s{i}", None)]
        desk.queries.names.session_tasks.append(name)
    desk.queries.ask("recent", "sessions")
    return desk


def _entry(i: int, workspace: str = "chat", title: str = "Session") -> QuerySessionEntry:
    return QuerySessionEntry(f"s{i}", title, workspace, 1_000 + i)


def test_the_sessions_answer_is_judged_for_size_aliases_and_recency():
    desk = _sessions_desk([_entry(i) for i in range(22, 2, -1)])
    desk.queries.check_sessions_answer("recent")
    desk.queries.check_sessions_most_recent("recent")
    desk.queries.check_sessions_redacted("recent")
    desk = _sessions_desk([_entry(22, workspace="other")])
    with pytest.raises(AssertionError, match="not aliases of the desktop's hello"):
        desk.queries.check_sessions_answer("recent")
    desk = _sessions_desk([])
    with pytest.raises(AssertionError, match="its answer lists none"):
        desk.queries.check_sessions_answer("recent")
    desk = _sessions_desk([_entry(22), _entry(1)])
    with pytest.raises(AssertionError, match="not among the 2 most recently active"):
        desk.queries.check_sessions_most_recent("recent")
    desk = _sessions_desk([_entry(22)], n_tasks=20)
    with pytest.raises(AssertionError, match="more than 20 needed"):
        desk.queries.check_sessions_answer("recent")


def test_a_session_title_showing_the_user_text_fails():
    desk = _sessions_desk([])
    marker = desk.queries.names.marker  # what every prompt of the scenario carried
    desk.session.server.answer = lambda what, args, kwargs: (
        [make_query_response(args[1], "sessions", True, None, sessions=(_entry(22, title=f"Summarise {marker}"),))]
        if what == "query" else [])
    desk.queries.ask("again", "sessions")
    with pytest.raises(AssertionError, match="show the user's prompt text"):
        desk.queries.check_sessions_redacted("again")


def test_no_session_list_without_the_feature():
    desk, _ = _driver(respond=_responder(sessions={"ok": False, "error": "session-picker-v1 not declared"}))
    desk.queries.ask("s", "sessions")
    desk.queries.check_no_session_list("s")
    desk, _ = _driver(respond=_responder(sessions={"sessions": (_entry(1),)}))
    desk.queries.ask("s", "sessions")
    with pytest.raises(AssertionError, match="answered the sessions query ok:True"):
        desk.queries.check_no_session_list("s")
    desk, server = _driver()  # silent: judged after the barrier's pong
    desk.queries.ask("s", "sessions")
    desk.queries.check_no_session_list("s")
    assert [w for w, _, _ in server.sent].count("ping") == 1


def test_each_query_in_flight_is_answered_once():
    desk, _ = _driver(respond=_responder(workspaces={"workspaces": ("chat", "repo")},
                                         models={"agents": (QueryAgentModels("claude", MODELS),)}))
    for name, kind in (("one", "workspaces"), ("two", "workspaces"), ("three", "models")):
        desk.queries.ask(name, kind)
    desk.queries.check_each_answered_once(["one", "two", "three"])

    def twice(what, args, kwargs):
        if what != "query":
            return []
        return [make_query_response(args[1], args[0], True, None, workspaces=("chat",))] * 2
    desk, _ = _driver(respond=twice)
    desk.queries.ask("one", "workspaces")
    desk.queries.ask("two", "workspaces")
    with pytest.raises(AssertionError, match="more than once"):
        desk.queries.check_each_answered_once(["one", "two"])
    desk, _ = _driver()
    desk.queries.ask("one", "workspaces")
    desk.queries.ask("two", "workspaces")
    with pytest.raises(NotTestable, match="server 自行超时"):  # an unanswered query is allowed: nothing to judge
        desk.queries.check_each_answered_once(["one", "two"])


def test_the_session_picker_scenarios_need_the_desktop_to_declare_it():
    desk, _ = _driver(hello_features=())
    with pytest.raises(NotApplicable, match="session-picker-v1"):
        desk.queries.require_desktop_session_picker()


def test_session_tasks_run_one_after_the_other():
    def respond(what, args, kwargs):
        if what != "dispatch":
            return []
        rid, key = args[0], args[1]
        return [make_task_ack(rid, "accepted", None, f"s-{rid[:4]}", None),
                make_turn_end(rid, key, f"s-{rid[:4]}", "ok", "done", None)]
    desk, server = _driver(respond=respond)
    desk.queries.dispatch_session_tasks(3)
    dispatched = [(a, k) for w, a, k in server.sent if w == "dispatch"]
    assert len(dispatched) == 3 and all(desk.queries.names.marker in k["prompt"] for _, k in dispatched)
    assert len({a[1] for a, _ in dispatched}) == 3  # three external keys: three sessions


# -- gateway tools ---------------------------------------------------------------------------------------------------


def test_call_answers_and_tool_call_entries_are_checked_before_use():
    assert checked_call_answer({"ok": True, "callId": "c1", "requestId": None})["callId"] == "c1"
    for bad, pointer in (({"ok": True, "callId": "c1"}, "/"), ({"ok": True, "requestId": "r"}, "/"),
                         ({"ok": True, "callId": "c1", "requestId": 3}, "/requestId"),
                         ({"ok": True, "callId": "", "requestId": None}, "/callId"),
                         ({"ok": True, "callId": "c1", "requestId": ""}, "/requestId"), (["ok"], "/")):
        with pytest.raises(AssertionError, match=rf"to call-tool does not match docs/desktop-control-api\.schema\.json "
                                                 rf"\(\$defs/call-tool\.response\) at {pointer}:"):
            checked_call_answer(bad)
    assert checked_tool_calls(_state(toolCalls=[_call()])) == [_call()]
    in_state = r"to state does not match docs/desktop-control-api\.schema\.json \(\$defs/state\.response\)"
    with pytest.raises(AssertionError, match=rf"{in_state} at /toolCalls: None is not of type 'array'"):
        checked_tool_calls(_state(toolCalls=None))
    call = _call()
    del call["error"]
    with pytest.raises(AssertionError, match=rf"{in_state} at /toolCalls/0: 'error' is a required property"):
        checked_tool_calls(_state(toolCalls=[call]))
    with pytest.raises(AssertionError, match=rf"{in_state} at /toolCalls/0/state:"):
        checked_tool_calls(_state(toolCalls=[_call(state="done")]))
    with pytest.raises(AssertionError, match=rf"{in_state} at /toolCalls/0/error:"):
        checked_tool_calls(_state(toolCalls=[_call(state="error", error={"code": "E"})]))


def _tool_driver(state_calls, answer=None, clock=None, requests=()):
    answers = {"call-tool": answer or {"ok": True, "callId": "c1", "requestId": "r1"},
               "state": [_state(toolCalls=c) for c in state_calls] or _state()}
    desk, server = _driver(answers, features=("slack-tools",), clock=clock)
    for req in requests:
        server.receive(req)
    return desk, server


def test_a_tool_request_is_judged_by_its_request_id_tool_and_args():
    desk, _ = _tool_driver([], requests=[make_tool_request("r1", "callTool", {"name": "a"})])
    desk.tools.call_tool("c", "callTool", {"name": "a"})
    desk.tools.check_tool_request("c")
    desk, _ = _tool_driver([], requests=[make_tool_request("r1", "callTool", {"name": "b"})])
    desk.tools.call_tool("c", "callTool", {"name": "a"})
    with pytest.raises(AssertionError, match="carries args"):
        desk.tools.check_tool_request("c")
    desk, _ = _tool_driver([], requests=[make_tool_request("r2", "callTool")])
    desk.tools.call_tool("c", "callTool")
    with pytest.raises(MissingFrame):
        desk.tools.check_tool_request("c")
    desk, _ = _tool_driver([], answer={"ok": True, "callId": "c1", "requestId": None})
    desk.tools.call_tool("c", "status")
    with pytest.raises(AssertionError, match="requestId null"):
        desk.tools.check_tool_request("c")


def test_the_answer_must_reach_the_agent_as_sent():
    desk, server = _tool_driver([[_call(state="ok", result={"x": 1})]],
                                requests=[make_tool_request("r1", "status")])
    desk.tools.call_tool("c", "status")
    desk.tools.answer_tool("c", {"x": 1})
    assert server.sent[-1][0] == "tool_response" and server.sent[-1][1][:2] == ("r1", True)
    desk.tools.check_tool_call_ok("c", {"x": 1})
    desk, _ = _tool_driver([[_call(state="ok", result={"x": 2})]], requests=[make_tool_request("r1", "status")])
    desk.tools.call_tool("c", "status")
    with pytest.raises(AssertionError, match="shows the result"):
        desk.tools.check_tool_call_ok("c", {"x": 1})
    desk, _ = _tool_driver([[_call(state="error", error={"code": "TOOL_FAILED", "message": "m"})]])
    desk.tools.call_tool("c", "status")
    with pytest.raises(AssertionError, match="error code 'TOOL_FAILED'"):
        desk.tools.check_tool_call_error("c", "NOT_BOUND", "m")


def test_a_call_that_stays_pending_fails_the_wait_and_timed_out_passes():
    clock = FakeClock()
    desk, _ = _tool_driver([[_call()]], clock=clock)
    desk.tools.call_tool("c", "status", timeout_ms=600)
    with pytest.raises(AssertionError, match="still shows call 'c' pending"):
        desk.tools.check_tool_call_timed_out("c")
    desk, _ = _tool_driver([[_call()], [_call(state="timed-out")]])
    desk.tools.call_tool("c", "status", timeout_ms=600)
    desk.tools.check_tool_call_timed_out("c")
    desk, _ = _tool_driver([[_call(state="ok")]])
    desk.tools.call_tool("c", "status")
    with pytest.raises(AssertionError, match="not timed-out"):
        desk.tools.check_tool_call_timed_out("c")


def test_short_circuit_and_pending_checks():
    desk, _ = _tool_driver([[_call(state="unavailable", requestId=None)]],
                           answer={"ok": True, "callId": "c1", "requestId": None})
    desk.tools.call_tool("c", "status")
    desk.tools.check_tool_call_unavailable("c")
    desk.tools.check_no_tool_request()
    desk, server = _tool_driver([[_call(state="pending")]], requests=[make_tool_request("r1", "status")])
    desk.tools.call_tool("c", "status")
    with pytest.raises(AssertionError, match="requestId 'r1'"):
        desk.tools.check_tool_call_unavailable("c")
    with pytest.raises(AssertionError, match="did not expect"):
        desk.tools.check_no_tool_request()
    desk.tools.check_tool_call_pending("c")
    desk, _ = _tool_driver([[_call(state="ok")]])
    desk.tools.call_tool("c", "status")
    with pytest.raises(AssertionError, match="although no valid answer named it"):
        desk.tools.check_tool_call_pending("c")


def test_the_team_is_judged_on_the_tool_request():
    desk, _ = _tool_driver([])
    team = desk.tools.tool_team("A")
    desk.session.server.receive(make_tool_request("r1", "listTools", team_id=team))
    desk.tools.call_tool("c", "listTools", team="A")
    assert desk.session.control.calls[-1] == ("call-tool", {"tool": "listTools", "teamId": team})
    desk.tools.check_tool_request_team("c", "A")
    with pytest.raises(AssertionError, match="although the server did not declare multi-team"):
        desk.tools.check_tool_request_without_team("c")
    desk, _ = _tool_driver([], requests=[make_tool_request("r1", "listTools")])
    desk.tools.call_tool("c", "listTools", team="A")
    desk.tools.check_tool_request_without_team("c")
    with pytest.raises(AssertionError, match="carries teamId None"):
        desk.tools.check_tool_request_team("c", "A")


def test_two_calls_must_carry_two_request_ids():
    answers = {"call-tool": [{"ok": True, "callId": "c1", "requestId": "r1"},
                             {"ok": True, "callId": "c2", "requestId": "r1"}]}
    desk, server = _driver(answers, features=("slack-tools",))
    server.receive(make_tool_request("r1", "status"), make_tool_request("r1", "status"))
    desk.tools.call_tool("a", "status")
    desk.tools.call_tool("b", "status")
    with pytest.raises(AssertionError, match="share the requestId"):
        desk.tools.check_distinct_request_ids("a", "b")


# -- interactions and the default workspace --------------------------------------------------------------------------


def _card_desk(state_runs):
    desk, server = _driver({"state": _state(runs=state_runs)})
    rid = desk.session.rid("first")
    server.receive(make_interaction_request(rid, "i1", "permission", "t", "b",
                                            (InteractionButton("yes", "Yes"), InteractionButton("no", "No"))))
    desk.interactions.expect_interaction_request("first")
    return desk, server, rid


def _run(rid: str, status: str = "running", decision: str | None = None) -> dict[str, Any]:
    return documented_run(rid, status=status, decision=decision)


def test_wrong_decisions_name_what_the_card_never_had():
    desk, server, rid = _card_desk([])
    for case in ("an unknown interactionId", "a button the card never had"):
        desk.interactions.answer_interaction_wrongly(case)
    sent = [a for w, a, _ in server.sent if w == "interaction_decision"]
    assert sent[0][0] == rid and sent[0][1] != "i1" and sent[0][2] == "yes"
    assert sent[1][:2] == (rid, "i1") and sent[1][2] not in ("yes", "no")
    with pytest.raises(AssertionError, match="unknown decision case 'another requestId'"):
        desk.interactions.answer_interaction_wrongly("another requestId")  # the pairing key is interactionId (阶段 10)
    with pytest.raises(AssertionError, match="not 'maybe'"):
        desk.interactions.answer_interaction_with("maybe")


def test_the_card_stays_open_only_without_cancel_end_or_decision():
    desk, _, rid = _card_desk([_run("x")])
    desk.session.rid("first")
    desk.session.control.answers["state"] = _state(runs=[_run(rid)])
    desk.interactions.check_card_still_open("first")
    desk.session.control.answers["state"] = _state(runs=[_run(rid, decision="allow")])
    with pytest.raises(AssertionError, match="decision 'allow'"):
        desk.interactions.check_card_still_open("first")
    desk, server, rid = _card_desk([_run(rid)])
    server.receive(make_interaction_cancel(rid, "i1", "turn-ended"))
    with pytest.raises(AssertionError, match="did not expect"):
        desk.interactions.check_card_still_open("first")


def test_an_x_mention_goes_to_the_hello_default_and_runs_there():
    desk, server = _driver({"state": _state(sessions=[{"sessionId": "s1", "externalKey": "x:k", "workspace": "repo",
                                                         "archived": False}])})
    desk.session.hellos[-1] = make_hello(1, "dev", "Desk", ("chat", "repo"), ("claude",),
                                         default_workspace="repo").payload
    assert desk.default_workspace.dispatch_x_mention("m") == "repo"
    what, args, kwargs = server.sent[-1]
    assert what == "dispatch" and args[1].startswith("x:") and args[2] == "repo" and kwargs["source"]["im"] == "x"
    server.receive(make_task_ack(desk.session.rid("m"), "accepted", None, "s1", None))
    desk.default_workspace.check_run_in_workspace("m", "repo")
    desk.session.control.answers["state"] = _state(sessions=[{"sessionId": "s1", "externalKey": "x:k",
                                                              "workspace": "chat", "archived": False}])
    with pytest.raises(AssertionError, match="workspace 'chat', not 'repo'"):
        desk.default_workspace.check_run_in_workspace("m", "repo")
    desk, _ = _driver()
    with pytest.raises(AssertionError, match="names no defaultWorkspace"):
        desk.default_workspace.dispatch_x_mention("m")
