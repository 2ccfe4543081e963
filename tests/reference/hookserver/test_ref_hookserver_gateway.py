"""The reference hook server's query and gateway tool families on its sans-I/O machine and pure modules: queries
(queries.py), gateway tools (gateway_tools.py), routed by gateway_families.py; the rest of interactions and the default
workspace of single-message channels; and the broken variants of simulator/reference/broken/hook_server/gateway.py. Expected values are literals from
the spec (slack-hook-protocol.md §5 阶段 6, 阶段 10, 阶段 12, 阶段 13, 默认工作目录) and docs/control-api.md "Queries, gateway tools,
group relay and message operations (hook-server)", never the reference's constants."""

from __future__ import annotations

import pytest
from hookserver_rig import Rig

from simulator.hook import (
    InteractionButton,
    QueryAgentModels,
    QueryModelEntry,
    QuerySessionEntry,
    make_bind_start,
    make_hello,
    make_interaction_request,
    make_query_response,
    make_tool_request,
    serialize_hook_message,
)
from simulator.reference.hookserver.gateway_tools import GatewayTools, Identity, ToolErrorCode, resolve_identity
from simulator.reference.hookserver.machine import HookServerMachine, MachineError, ServerSettings
from simulator.reference.hookserver.queries import (
    QUERY_TRANSITIONS,
    QueryBook,
    QueryEvent,
    QueryState,
    query_step,
)

SERVER = ("turn-delivery-v1", "multi-team", "slack-tools", "session-picker-v1")
HELLO = ("turn-delivery-v1", "multi-team", "session-picker-v1")
RAW = 'HTTP/1.1 502 Bad Gateway\r\n\r\n{"ok":false,"error":"fatal_error","detail":"raw-body-7f3a"}'


def rig(variant: str | None = None, *, features=SERVER, hello=HELLO, device: str = "d1") -> Rig:
    r = Rig(features=features, variant=variant)
    r.hello("c1", device, features=hello)
    return r


def ask(r: Rig, text: str, **kw) -> dict:
    return r.inject(text=text, **kw)


def answer(r: Rig, conn: str, query: dict, **kw) -> None:
    kw.setdefault("ok", True)
    if kw["ok"] and query["kind"] == "workspaces":
        kw.setdefault("workspaces", ("chat", "repo"))
    r.send(conn, make_query_response(query_id=query["queryId"], kind=query["kind"], **kw))


def query_row(r: Rig, query_id: str) -> dict:
    (row,) = r.m.list_queries({"queryId": query_id})["queries"]
    return row


def bind(r: Rig, device: str, team: str, user: str, conn: str = "c1") -> None:
    r.send(conn, make_bind_start())
    r.take(r.m.slack_authorize({"deviceId": device, "outcome": "confirm", "teamId": team, "teamName": team,
                                "slackUserId": user, "slackUserName": user}, r.now))


def tool(r: Rig, rid: str, name: str, conn: str = "c1", **kw) -> dict:
    r.send(conn, make_tool_request(request_id=rid, tool=name, **kw))
    return [p for p in r.frames(conn, "tool.response") if p["replyTo"] == rid][-1]


# -- queries: the pure rules ----------------------------------------------------------------------------------------


def test_the_query_table_ends_a_query_once():
    assert query_step(QueryState.PENDING, QueryEvent.ANSWER_OK) is QueryState.ANSWERED
    assert query_step(QueryState.PENDING, QueryEvent.ANSWER_ERROR) is QueryState.FAILED
    assert query_step(QueryState.PENDING, QueryEvent.TIMEOUT) is QueryState.TIMED_OUT
    for ended in (QueryState.ANSWERED, QueryState.FAILED, QueryState.TIMED_OUT):
        assert all(query_step(ended, e) is None for e in QueryEvent)
    assert {s for s, _ in QUERY_TRANSITIONS} == {QueryState.PENDING}


def test_a_query_pairs_only_with_its_device_kind_and_time():
    book = QueryBook(timeout_ms=100)
    q = book.ask("d1", "workspaces", ("slack", "C", None), 1000, lambda: "q1")
    assert q.expires_at == 1100
    assert book.pending_for("q1", "d2", "workspaces", 1050) is None
    assert book.pending_for("q1", "d1", "models", 1050) is None
    assert book.pending_for("q1", "d1", "workspaces", 1100) is None  # "by expiresAt": at it, it is late
    assert book.pending_for("q1", "d1", "workspaces", 1099) is q
    assert book.expire("q1", 1099) is None and q.state is QueryState.PENDING
    assert book.expire("q1", 1100) is q and q.state is QueryState.TIMED_OUT
    assert book.expire("q1", 2000) is None  # once


# -- queries: the machine ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command,kind", [("/bind", "workspaces"), ("/model", "models"), ("/effort", "models"),
                                          ("/session", "sessions")])
def test_each_command_asks_the_lanes_device_for_its_kind(command, kind):
    r = rig()
    got = ask(r, command)
    assert got["kind"] == "query" and got["requestId"] is None and got["messageId"] is None
    assert got["externalKey"] == "slack:C1:-:1"
    (request,) = r.frames("c1", "query.request")
    assert request == {"queryId": got["queryId"], "kind": kind}
    row = query_row(r, got["queryId"])
    assert row["state"] == "pending" and row["deviceId"] == "d1" and row["kind"] == kind
    assert row["expiresAt"] > row["askedAt"] and row["answer"] is None and row["error"] is None
    assert not r.frames("c1", "task.dispatch") and not r.m.list_messages()


def test_an_answer_becomes_the_querys_answer_as_received():
    r = rig()
    ws = ask(r, "/bind")
    answer(r, "c1", {"queryId": ws["queryId"], "kind": "workspaces"}, workspaces=("chat", "repo", "docs"))
    assert query_row(r, ws["queryId"])["answer"] == {"workspaces": ["chat", "repo", "docs"]}
    models = ask(r, "/model")
    agents = (QueryAgentModels("claude", (QueryModelEntry("opus", "Opus", ("low", "high"), "high"),)),)
    answer(r, "c1", {"queryId": models["queryId"], "kind": "models"}, agents=agents)
    assert query_row(r, models["queryId"])["answer"] == {"agents": [
        {"agentKind": "claude", "models": [{"id": "opus", "label": "Opus", "efforts": ["low", "high"],
                                            "defaultEffort": "high"}]}]}
    sessions = ask(r, "/session", provider="telegram", chatId="4242")
    entries = (QuerySessionEntry("s1", "Release notes", "repo", 1_700_000_000_000),)
    answer(r, "c1", {"queryId": sessions["queryId"], "kind": "sessions"}, sessions=entries)
    row = query_row(r, sessions["queryId"])
    assert row["state"] == "answered" and row["provider"] == "telegram" and row["chatId"] == "4242"
    assert row["answer"] == {"sessions": [{"id": "s1", "title": "Release notes", "workspace": "repo",
                                           "lastActiveAt": 1_700_000_000_000}]}


def test_two_queries_in_flight_are_paired_by_query_id_answered_in_reverse_order():
    r = rig()
    first, second = ask(r, "/bind"), ask(r, "/bind", chatId="C2")
    assert first["queryId"] != second["queryId"]
    answer(r, "c1", {"queryId": second["queryId"], "kind": "workspaces"}, workspaces=("chat", "second"))
    answer(r, "c1", {"queryId": first["queryId"], "kind": "workspaces"}, workspaces=("chat", "first"))
    assert query_row(r, first["queryId"])["answer"] == {"workspaces": ["chat", "first"]}
    assert query_row(r, second["queryId"])["answer"] == {"workspaces": ["chat", "second"]}


def test_an_answer_for_no_pending_query_is_dropped_and_changes_nothing():
    r = rig()
    r.hello("c2", "d2", features=HELLO)
    q = ask(r, "/bind", deviceId="d1")
    before = r.m.list_queries({})
    answer(r, "c1", {"queryId": "never-asked", "kind": "workspaces"})
    answer(r, "c2", {"queryId": q["queryId"], "kind": "workspaces"})  # another device
    answer(r, "c1", {"queryId": q["queryId"], "kind": "models"}, agents=())  # another kind
    assert r.m.list_queries({}) == before
    assert [d["reason"] for d in r.dropped()][-3:] == ["unknown-query"] * 3
    answer(r, "c1", {"queryId": q["queryId"], "kind": "workspaces"})
    answer(r, "c1", {"queryId": q["queryId"], "kind": "workspaces"}, workspaces=("chat", "late"))  # ended
    assert query_row(r, q["queryId"])["answer"] == {"workspaces": ["chat", "repo"]}
    assert r.dropped()[-1]["reason"] == "unknown-query" and not r.closed


def test_an_ok_false_answer_ends_the_query_failed_with_its_error():
    r = rig()
    q = ask(r, "/model")
    r.send("c1", make_query_response(query_id=q["queryId"], kind="models", ok=False, error="no agent runs"))
    row = query_row(r, q["queryId"])
    assert (row["state"], row["error"], row["answer"]) == ("failed", "no agent runs", None)


def test_the_server_times_a_query_out_and_a_late_answer_changes_nothing():
    r = rig()
    q = ask(r, "/bind")
    expires = query_row(r, q["queryId"])["expiresAt"]
    assert expires in r.wakes
    r.advance(expires - r.now - 1)
    assert query_row(r, q["queryId"])["state"] == "pending"
    r.advance(1)
    assert query_row(r, q["queryId"])["state"] == "timed-out"
    answer(r, "c1", {"queryId": q["queryId"], "kind": "workspaces"})
    row = query_row(r, q["queryId"])
    assert (row["state"], row["answer"]) == ("timed-out", None)
    assert r.dropped()[-1]["reason"] == "unknown-query"


def test_an_answer_after_expires_at_is_late_even_before_the_timer_ran():
    r = rig()
    q = ask(r, "/bind")
    r.now = query_row(r, q["queryId"])["expiresAt"] - 1  # the next frame arrives at expiresAt (the rig adds 1 ms)
    answer(r, "c1", {"queryId": q["queryId"], "kind": "workspaces"})
    assert query_row(r, q["queryId"])["state"] == "timed-out"


def test_sessions_need_session_picker_on_both_sides_and_nothing_is_sent_offline():
    r = rig(hello=("turn-delivery-v1",))
    got = ask(r, "/session")
    assert got["kind"] == "query" and got["queryId"] is None
    assert not r.frames("c1", "query.request") and r.m.list_queries({}) == {"queries": []}
    r2 = rig(features=("slack-tools",))  # the device declares it, the welcome does not
    assert ask(r2, "/session")["queryId"] is None and not r2.frames("c1", "query.request")
    assert ask(r2, "/bind")["queryId"] is not None  # the other kinds need no feature
    r2.disconnect("c1")
    assert ask(r2, "/model")["queryId"] is None  # the device has no open connection


@pytest.mark.parametrize("case", ["21 sessions", "a path", "ok false without error", "ok true without its list"])
def test_a_malformed_answer_is_dropped_invalid_and_the_query_stays_pending(case):
    r = rig()
    q = ask(r, "/session")
    wire: dict = {"queryId": q["queryId"], "kind": "sessions", "ok": True, "error": None,
                  "sessions": [{"id": "s1", "title": "t", "workspace": "repo", "lastActiveAt": 1}]}
    if case == "21 sessions":
        wire["sessions"] = [{"id": f"s{i}", "title": "t", "workspace": "chat", "lastActiveAt": 1} for i in range(21)]
    elif case == "a path":
        wire["sessions"][0]["workspace"] = "/Users/ann/src/secret-repo"
    elif case == "ok false without error":
        wire = {"queryId": q["queryId"], "kind": "sessions", "ok": False, "error": None}
    else:
        del wire["sessions"]
    r.raw("c1", serialize_hook_message({"v": 1, "type": "query.response", "id": "f1", "ts": 1, "payload": wire}))
    assert r.dropped()[-1]["reason"] == "invalid" and r.dropped()[-1]["type"] == "query.response"
    assert query_row(r, q["queryId"])["state"] == "pending" and not r.closed


def test_a_desktop_sending_query_request_or_tool_response_is_unhandled():
    r = rig()
    r.raw("c1", serialize_hook_message({"v": 1, "type": "query.request", "id": "f", "ts": 1,
                                        "payload": {"queryId": "q", "kind": "workspaces"}}))
    r.raw("c1", serialize_hook_message({"v": 1, "type": "tool.response", "id": "g", "ts": 1,
                                        "payload": {"replyTo": "r", "ok": True}}))
    assert [d["reason"] for d in r.dropped()][-2:] == ["unhandled-type", "unhandled-type"]


def test_queries_are_kept_in_memory_only():
    r = rig()
    ask(r, "/bind")
    assert not any(p.table.startswith("quer") for p in r.persisted)


# -- gateway tools: the pure rules ------------------------------------------------------------------------------------


def test_the_identity_is_the_teams_binding_or_the_only_one():
    a, b = Identity("T1", "U1"), Identity("T2", "U2")
    assert resolve_identity([a, b], "T2", True) == b
    assert resolve_identity([a, b], "T3", True) is ToolErrorCode.NOT_BOUND
    assert resolve_identity([a, b], None, True) is ToolErrorCode.TEAM_REQUIRED
    assert resolve_identity([a], None, True) == a
    assert resolve_identity([a], "T9", False) == a  # multi-team off: the device's only binding
    assert resolve_identity([], None, False) is ToolErrorCode.NOT_BOUND


def test_a_failing_slack_call_is_answered_with_the_servers_own_error_and_logged_with_its_identity():
    tools = GatewayTools()
    tools.api.fail(1, RAW, "d1")
    me = [Identity("T1", "U1")]
    assert tools.run("r0", "d2", "listTools", None, None, [Identity("T2", "U2")], False).ok  # another device's rule
    failed = tools.run("r1", "d1", "callTool", {"name": "users.info"}, None, me, False)
    assert not failed.ok and failed.code == "SLACK_API_ERROR" and RAW not in (failed.message or "")
    assert failed.ran_as == me[0] and failed.raw == RAW
    assert tools.run("r2", "d1", "callTool", {"name": "users.info"}, None, me, False).ok  # the rule is used up
    assert tools.listing("d1")[0] == {"requestId": "r1", "deviceId": "d1", "tool": "callTool", "name": "users.info",
                                      "teamId": "T1", "slackUserId": "U1", "ok": False, "code": "SLACK_API_ERROR"}


# -- gateway tools: the machine ---------------------------------------------------------------------------------------


def test_status_list_tools_and_call_tool_run_as_the_bound_user():
    r = rig()
    bind(r, "d1", "T1", "U1")
    status = tool(r, "s", "status")
    assert status == {"replyTo": "s", "ok": True, "result": {"bound": True, "teamId": "T1", "slackUserId": "U1"}}
    listed = tool(r, "l", "listTools")
    assert listed["ok"] and listed["result"]["tools"] and "error" not in listed
    name = listed["result"]["tools"][0]["name"]
    called = tool(r, "c", "callTool", args={"name": name, "arguments": {"channel": "C1"}})
    assert called["ok"] and called["result"]["name"] == name
    calls = r.m.list_tool_calls({"deviceId": "d1"})["calls"]
    assert [(c["requestId"], c["teamId"], c["slackUserId"], c["ok"]) for c in calls] == [
        ("s", None, None, True), ("l", "T1", "U1", True), ("c", "T1", "U1", True)]
    assert calls[2]["name"] == name
    assert len(r.frames("c1", "tool.response")) == 3  # one answer per request


def test_an_unknown_tool_is_answered_unknown_tool_not_dropped():
    r = rig()
    got = tool(r, "u", "deleteEverything")
    assert got["ok"] is False and got["error"]["code"] == "UNKNOWN_TOOL" and got["error"]["message"]


def test_an_unbound_device_runs_nothing_and_multi_team_picks_the_teams_user():
    r = rig()
    got = tool(r, "c0", "callTool", args={"name": "users.info"})
    assert got["ok"] is False and got["error"]["code"] and got["error"]["message"]
    assert r.m.list_tool_calls({})["calls"][-1]["slackUserId"] is None
    bind(r, "d1", "T1", "U1")
    bind(r, "d1", "T2", "U2")
    assert tool(r, "c1", "callTool", args={"name": "users.info"})["error"]["code"] == "TEAM_REQUIRED"
    tool(r, "c2", "callTool", args={"name": "users.info"}, team_id="T2")
    tool(r, "c3", "callTool", args={"name": "users.info"}, team_id="T1")
    calls = {c["requestId"]: (c["teamId"], c["slackUserId"]) for c in r.m.list_tool_calls({})["calls"]}
    assert calls["c2"] == ("T2", "U2") and calls["c3"] == ("T1", "U1") and calls["c1"] == (None, None)


def test_a_failing_call_never_puts_the_raw_response_on_the_wire():
    r = rig()
    bind(r, "d1", "T1", "U1")
    r.take(r.m.fail_tool_calls({"count": 1, "rawError": RAW, "deviceId": "d1"}) or [])
    got = tool(r, "f", "listTools")
    assert got["ok"] is False and got["error"]["code"] and got["error"]["message"]
    assert not [p for _c, _t, p in r.sent if "raw-body-7f3a" in str(p)]


@pytest.mark.parametrize("body", [{"count": 0, "rawError": "x"}, {"count": 1}, {"count": 1, "rawError": ""},
                                  {"count": 1, "rawError": "x", "deviceId": 5}])
def test_fail_tool_calls_refuses_a_bad_body(body):
    with pytest.raises(MachineError) as err:
        rig().m.fail_tool_calls(body)
    assert err.value.code == "invalid-request"


def test_tools_need_slack_tools_in_the_welcome():
    r = rig(features=("multi-team",))
    r.send("c1", make_tool_request(request_id="t", tool="status"))
    assert not r.frames("c1", "tool.response")
    assert r.dropped()[-1]["reason"] == "feature-not-declared" and r.dropped()[-1]["requestId"] == "t"


@pytest.mark.parametrize("payload", [{"tool": "status"}, {"requestId": "t", "tool": ""},
                                     {"requestId": "t", "tool": "status", "args": "channel=C1"},
                                     {"requestId": "t", "tool": "status", "teamId": 7}])
def test_a_malformed_tool_request_is_dropped_unanswered(payload):
    r = rig()
    r.raw("c1", serialize_hook_message({"v": 1, "type": "tool.request", "id": "f", "ts": 1, "payload": payload}))
    assert not r.frames("c1", "tool.response") and r.m.list_tool_calls({}) == {"calls": []}
    assert r.dropped()[-1]["reason"] == "invalid" and not r.closed


def test_tools_still_run_as_the_bound_user_after_a_restart():
    r = rig()
    bind(r, "d1", "T1", "U1")
    m = HookServerMachine(ServerSettings(features=SERVER))
    m.restore({t: list(rows.values()) for t, rows in r.db.items()}, r.now)
    r.m = m
    r.hello("c9", "d1", features=HELLO)
    assert tool(r, "s", "status", conn="c9")["result"] == {"bound": True, "teamId": "T1", "slackUserId": "U1"}


# -- interactions, the rest of 阶段 10 --------------------------------------------------------------------------------


def card(r: Rig, rid: str, buttons, kind: str = "conformance_kind_not_in_the_spec", iid: str = "i1") -> list:
    return r.send("c1", make_interaction_request(request_id=rid, interaction_id=iid, kind=kind, title="Pick one",
                                                 body="**which**?", buttons=tuple(buttons), validate=False))


def test_a_card_of_24_buttons_and_an_unknown_kind_is_rendered_whole_and_its_last_button_pressed():
    r = rig()
    rid = r.task_started()
    buttons = [InteractionButton(f"opt-{i}", f"Option {i}") for i in range(1, 25)]
    card(r, rid, buttons)
    (shown,) = r.message(rid)["cards"]
    assert [b["id"] for b in shown["buttons"]] == [f"opt-{i}" for i in range(1, 25)]
    assert (shown["kind"], shown["title"], shown["body"]) == ("conformance_kind_not_in_the_spec", "Pick one",
                                                              "**which**?")
    r.take(r.m.press_button({"requestId": rid, "interactionId": "i1", "buttonId": "opt-24"}, r.now))
    assert r.frames("c1", "interaction.decision")[-1] == {"requestId": rid, "interactionId": "i1",
                                                          "buttonId": "opt-24"}


@pytest.mark.parametrize("case", ["25 buttons", "duplicate ids", "a | in an id", "no buttons"])
def test_a_malformed_card_is_dropped_invalid(case):
    r = rig()
    rid = r.task_started()
    buttons = [InteractionButton(f"b{i}", f"B {i}") for i in range(25 if case == "25 buttons" else 2)]
    if case == "duplicate ids":
        buttons = [InteractionButton("same", "A"), InteractionButton("same", "B")]
    elif case == "a | in an id":
        buttons = [InteractionButton("yes|1", "Yes")]
    elif case == "no buttons":
        buttons = []
    card(r, rid, buttons)
    assert r.message(rid)["cards"] == [] and r.dropped()[-1]["reason"] == "invalid" and not r.closed


# -- the default workspace of single-message channels (默认工作目录) ------------------------------------------------------


def test_an_x_mention_takes_the_lanes_choice_else_the_hellos_default():
    r = Rig(features=SERVER)
    r.hello("c1", "d1", workspaces=("chat", "repo", "docs"), default="repo")
    first = r.inject(provider="x", chatId="x-thread-1", text="@bot summarise")
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] == "repo" and first["externalKey"].startswith("x:")
    r.take(r.m.set_lane_workspace({"provider": "x", "chatId": "x-thread-1", "workspace": "docs"}, r.now))
    r.inject(provider="x", chatId="x-thread-1", text="@bot and now?")
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] == "docs"


def test_a_hello_whose_default_is_not_a_member_is_dropped_and_the_earlier_one_stays():
    r = Rig(features=SERVER)
    r.hello("c1", "d1", workspaces=("chat", "repo"), default="repo")
    bad = make_hello(protocol_version=1, device_id="d1", device_name="d1", workspaces=("chat", "docs"),
                     agents=("claude",), default_workspace="elsewhere", validate=False)
    r.send("c1", bad)
    assert r.dropped()[-1]["reason"] == "invalid" and r.dropped()[-1]["code"] == "NOT_A_MEMBER"
    conn = r.m.list_connections()[0]
    assert (conn["workspaces"], conn["defaultWorkspace"], conn["helloCount"]) == (["chat", "repo"], "repo", 1)
    r.inject(provider="x", chatId="x-2", text="@bot go")
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] == "repo"


def test_a_publish_failures_raw_response_never_reaches_a_frame():
    r = Rig(features=SERVER)
    r.hello("c1", "d1")
    rid = r.task_started()
    r.m.fail_publishes(2, rid, True, RAW)
    r.end("c1", rid, "ok")
    states = [p["state"] for p in r.frames("c1", "turn.delivery")]
    assert states == ["accepted", "retrying"]
    assert r.frames("c1", "turn.delivery")[-1]["error"]["code"] == "channel_publish_failed"
    assert not [p for _c, _t, p in r.sent if "raw-body-7f3a" in str(p)]


# -- the broken variants ----------------------------------------------------------------------------------------------


def _variant_rig(variant: str) -> Rig:
    r = rig(variant)
    bind(r, "d1", "T1", "U1")
    bind(r, "d1", "T2", "U2")
    return r


def test_the_query_variants_break_their_rule():
    assert rig("bind-asks-models").m._query_kind("/bind") == "models"
    r = rig("effort-not-a-query")
    assert ask(r, "/effort")["kind"] == "task"
    r = rig("query-answer-by-order")
    first, second = ask(r, "/bind"), ask(r, "/bind", chatId="C2")
    answer(r, "c1", {"queryId": second["queryId"], "kind": "workspaces"}, workspaces=("chat", "second"))
    assert query_row(r, first["queryId"])["answer"] == {"workspaces": ["chat", "second"]}
    r = rig("query-never-times-out")
    q = ask(r, "/bind")
    r.advance(60_000)
    assert query_row(r, q["queryId"])["state"] == "pending"
    r = rig("sessions-without-feature", hello=("turn-delivery-v1",))
    assert r.frames("c1", "query.request") == [] and ask(r, "/session")["queryId"] is not None
    r = rig("failed-query-answered")
    q = ask(r, "/model")
    r.send("c1", make_query_response(query_id=q["queryId"], kind="models", ok=False, error="no"))
    assert query_row(r, q["queryId"])["state"] == "answered"
    r = rig("lenient-query-response")
    q = ask(r, "/bind")
    r.raw("c1", serialize_hook_message({"v": 1, "type": "query.response", "id": "f", "ts": 1, "payload": {
        "queryId": q["queryId"], "kind": "workspaces", "ok": False, "error": None}}))
    assert query_row(r, q["queryId"])["state"] == "failed"


def test_the_tool_variants_break_their_rule():
    r = _variant_rig("tool-response-twice")
    r.send("c1", make_tool_request(request_id="s", tool="status", team_id="T1"))
    assert len(r.frames("c1", "tool.response")) == 2
    r = _variant_rig("unknown-tool-dropped")
    r.send("c1", make_tool_request(request_id="u", tool="nope"))
    assert not r.frames("c1", "tool.response")
    r = _variant_rig("tool-error-leaks-raw")
    r.m.fail_tool_calls({"count": 1, "rawError": RAW})
    assert RAW in tool(r, "f", "listTools", team_id="T1")["error"]["message"]
    r = rig("unbound-tools-run-as-guest")
    assert tool(r, "g", "callTool", args={"name": "users.info"})["ok"] is True
    assert r.m.list_tool_calls({})["calls"][-1]["slackUserId"] is not None
    r = _variant_rig("tools-ignore-team")
    tool(r, "c", "callTool", args={"name": "users.info"}, team_id="T2")
    assert r.m.list_tool_calls({})["calls"][-1]["slackUserId"] == "U1"
    r = _variant_rig("lenient-tool-request")
    r.raw("c1", serialize_hook_message({"v": 1, "type": "tool.request", "id": "f", "ts": 1,
                                        "payload": {"tool": "status"}}))
    assert r.frames("c1", "tool.response")[-1]["replyTo"] == "f"


def test_the_card_and_hello_variants_break_their_rule():
    r = rig("card-buttons-capped")
    rid = r.task_started()
    card(r, rid, [InteractionButton(f"o{i}", "O") for i in range(24)])
    assert len(r.message(rid)["cards"][0]["buttons"]) == 20
    r = rig("lenient-interaction-request")
    rid = r.task_started()
    card(r, rid, [InteractionButton(f"o{i}", "O") for i in range(25)])
    assert len(r.message(rid)["cards"][0]["buttons"]) == 25
    r = Rig(features=SERVER, variant="hello-default-unchecked")
    r.hello("c1", "d1", workspaces=("chat", "repo"), default="repo")
    r.send("c1", make_hello(protocol_version=1, device_id="d1", device_name="d1", workspaces=("chat", "docs"),
                            agents=("claude",), default_workspace="elsewhere", validate=False))
    r.inject(provider="x", chatId="x-2", text="@bot go")
    assert r.frames("c1", "task.dispatch")[-1]["workspace"] != "repo"


def test_leaks_provider_error_puts_the_channels_raw_response_in_the_retrying_error():
    r = Rig(features=SERVER, variant="leaks-provider-error")
    r.hello("c1", "d1")
    rid = r.task_started()
    r.m.fail_publishes(1, rid, True, RAW)
    r.end("c1", rid, "ok")
    assert RAW in r.frames("c1", "turn.delivery")[-1]["error"]["message"]


def test_a_peers_lone_surrogates_never_break_the_control_views():
    import json

    r = rig()
    q = ask(r, "/session")
    r.raw("c1", '{"v":1,"type":"query.response","id":"f","ts":1,"payload":{"queryId":"%s","kind":"sessions",'
                '"ok":true,"error":null,"sessions":[{"id":"s\\ud800","title":"t\\udfff","workspace":"chat",'
                '"lastActiveAt":1}]}}' % q["queryId"])
    assert query_row(r, q["queryId"])["state"] == "answered"
    r.raw("c1", '{"v":1,"type":"tool.request","id":"g","ts":1,"payload":{"requestId":"r\\ud800","tool":"s\\udc00",'
                '"args":{"name":"n\\ud800"}}}')
    assert r.frames("c1", "tool.response")[-1]["error"]["code"] == "UNKNOWN_TOOL"
    for view in (r.m.list_queries({}), r.m.list_tool_calls({})):
        json.dumps(view, ensure_ascii=False).encode("utf-8")  # what the control API sends
