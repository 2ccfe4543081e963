"""Unit tests of these families of the reference desktop (pure modules and the machine's routing): queries (§5
阶段 6), gateway tools (阶段 12, 阶段 13; ``tools.py``, ``gateway.py``), the rest of interactions (阶段 10) and the
default workspace (默认工作目录); and that each broken variant of simulator/reference/broken/desktop/gateway.py breaks
its one rule."""

from __future__ import annotations

import json
import uuid
from itertools import count

import pytest

from simulator.hook import (
    ABSENT,
    TaskSource,
    make_interaction_decision,
    make_query_request,
    make_task_cancel,
    make_task_dispatch,
    make_tool_response,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.desktop.agent import InteractionScript, Script, ScriptButton
from simulator.reference.desktop.gateway import TOOL_TIMER
from simulator.reference.desktop.machine import DesktopMachine, Schedule, Send, Unschedule
from simulator.reference.desktop.tools import TRANSITIONS, ToolBook, ToolCallState, ToolEvent, request_team, tools_on
from simulator.reference.broken import cases
from simulator.reference.broken.desktop.select import make_machine

FOLDER = "/abs/repo"
#: The variants of simulator/reference/broken/desktop/gateway.py.
GATEWAY = sorted({c.name for c in cases("desktop") if c.target.__module__.endswith(".broken.desktop.gateway")})


def machine(features=("slack-tools", "session-picker-v1"), variant=None, **kw) -> DesktopMachine:
    ids = count(1)
    m = make_machine(variant, workspaces={"repo": FOLDER}, ids=lambda: str(uuid.UUID(int=next(ids), version=4)),
                     **kw)
    m.on_connected(0)
    m.on_frame(serialize_hook_message(make_welcome("s", tuple(features))), 1)
    return m


def frames(effects) -> list[tuple[str, dict]]:
    out = []
    for e in effects:
        if isinstance(e, Send):
            assert parse_hook_message(e.text).ok, e.text
            frame = json.loads(e.text)
            out.append((frame["type"], frame["payload"]))
    return out


def calls(m: DesktopMachine) -> dict[str, dict]:
    return {c["callId"]: c for c in m.state(10)["toolCalls"]}


def answer(m, rid, ok=True, result=None, error=None, now=5):
    msg = make_tool_response(rid, ok, ABSENT if result is None else result, error)
    return m.on_frame(serialize_hook_message(msg), now)


def ask(m, kind, query_id="q1", now=5):
    return frames(m.on_frame(serialize_hook_message(make_query_request(query_id, kind)), now))


def dispatch(m, rid, key, workspace="chat", now=3, prompt="hi", source=ABSENT):
    return m.on_frame(serialize_hook_message(make_task_dispatch(rid, key, workspace, None, prompt, source=source)),
                      now)


def run_until_idle(m, now=100):
    """Fire every scheduled step until nothing is left (the default script ends each turn)."""
    pending = {}
    for _ in range(200):
        for rid, t in list(m.turns.items()):
            if not t.finished and t.status == "running":
                pending[rid] = True
        if not pending:
            return now
        rid = next(iter(pending))
        out = m.on_timer(("step", rid), now)
        now += 1
        if m.turns[rid].finished:
            pending.pop(rid)
        elif not any(isinstance(e, Schedule) for e in out):
            pending.pop(rid)
    return now


# -- tools.py: pure --------------------------------------------------------------------------------------------------


def test_tool_call_transitions_are_a_table_and_ended_calls_never_change():
    assert TRANSITIONS[(ToolCallState.PENDING, ToolEvent.ANSWER_OK)] is ToolCallState.OK
    assert all(state is ToolCallState.PENDING for state, _ in TRANSITIONS)
    book = ToolBook()
    book.start("c1", "r1", "status", None, deadline=100)
    assert book.answer("r-unknown", True, {"x": 1}, None) is None
    assert book.expire("r1", 99) is None  # not yet
    call = book.answer("r1", False, ABSENT, {"code": "NOT_BOUND", "message": "no binding"})
    assert call is not None and call.state is ToolCallState.ERROR and call.error == {"code": "NOT_BOUND",
                                                                                        "message": "no binding"}
    assert book.answer("r1", True, {"late": True}, None) is None and book.expire("r1", 1000) is None
    book.start("c2", "r2", "status", "T1", deadline=100)
    assert book.expire("r2", 100).state is ToolCallState.TIMED_OUT
    assert book.answer("r2", True, {"late": True}, None) is None
    assert book.short_circuit("c3", "listTools", None).state is ToolCallState.UNAVAILABLE
    assert [c["state"] for c in book.state()] == ["error", "timed-out", "unavailable"]
    assert book.state()[1]["teamId"] == "T1" and book.state()[2]["requestId"] is None


def test_gating_and_the_team_on_the_wire():
    assert tools_on(["slack-tools"]) and not tools_on(["multi-team"])
    assert request_team("T1", True) == "T1"
    assert request_team("T1", False) is ABSENT and request_team(None, True) is ABSENT


# -- the machine: gateway tools --------------------------------------------------------------------------------------


def test_a_call_sends_tool_request_and_its_answer_reaches_the_agent():
    m = machine()
    answered, effects = m.call_tool("callTool", {"name": "conversations.history"}, None, 500, now=2)
    [(kind, payload)] = frames(effects)
    assert kind == "tool.request" and payload["requestId"] == answered["requestId"]
    assert payload["tool"] == "callTool" and payload["args"] == {"name": "conversations.history"}
    assert "teamId" not in payload
    assert Schedule((TOOL_TIMER, answered["requestId"]), 502) in effects
    assert calls(m)[answered["callId"]]["state"] == "pending"
    out = answer(m, answered["requestId"], result={"name": "conversations.history", "data": {"messages": []}})
    assert out == [Unschedule((TOOL_TIMER, answered["requestId"]))]
    shown = calls(m)[answered["callId"]]
    assert shown["state"] == "ok" and shown["result"] == {"name": "conversations.history", "data": {"messages": []}}
    failing, effects = m.call_tool("listTools", None, None, 500, now=3)
    answer(m, failing["requestId"], ok=False, error={"code": "NOT_BOUND", "message": "bind first"})
    assert calls(m)[failing["callId"]]["error"] == {"code": "NOT_BOUND", "message": "bind first"}


def test_without_slack_tools_or_offline_a_call_is_short_circuited():
    m = machine(features=("multi-team",))
    answered, effects = m.call_tool("status", None, None, 500, now=2)
    assert effects == [] and answered["requestId"] is None
    assert calls(m)[answered["callId"]]["state"] == "unavailable"
    m = machine()
    m.on_disconnected(3)
    answered, effects = m.call_tool("status", None, None, 500, now=4)
    assert effects == [] and calls(m)[answered["callId"]]["state"] == "unavailable"


def test_answers_pair_by_reply_to_and_unknown_ones_change_nothing():
    m = machine()
    a, _ = m.call_tool("status", None, None, 500, now=2)
    b, _ = m.call_tool("status", None, None, 500, now=2)
    assert a["requestId"] != b["requestId"]
    assert answer(m, str(uuid.uuid4()), result={"who": "nobody"}) == []
    answer(m, b["requestId"], result={"who": "b"})
    answer(m, a["requestId"], result={"who": "a"})
    shown = calls(m)
    assert shown[a["callId"]]["result"] == {"who": "a"} and shown[b["callId"]]["result"] == {"who": "b"}


def test_the_desktop_times_a_call_out_and_a_late_answer_changes_nothing():
    m = machine()
    a, _ = m.call_tool("status", None, None, 500, now=2)
    assert m.on_timer((TOOL_TIMER, a["requestId"]), 502) == []
    assert calls(m)[a["callId"]]["state"] == "timed-out"
    answer(m, a["requestId"], result={"late": True})
    assert calls(m)[a["callId"]] == {**calls(m)[a["callId"]], "state": "timed-out", "result": None}


def test_the_team_id_goes_on_the_wire_only_with_multi_team_on_both_sides():
    with_team, effects = machine(features=("slack-tools", "multi-team")).call_tool("status", None, "T1", 500, now=2)
    assert frames(effects)[0][1]["teamId"] == "T1"
    _, effects = machine(features=("slack-tools",)).call_tool("status", None, "T1", 500, now=2)
    assert "teamId" not in frames(effects)[0][1]


def test_malformed_tool_responses_are_dropped_and_change_nothing():
    m = machine()
    a, _ = m.call_tool("status", None, None, 500, now=2)
    for payload in ({"replyTo": a["requestId"], "ok": False},
                    {"replyTo": a["requestId"], "ok": True, "error": {"code": "X", "message": "m"}},
                    {"replyTo": a["requestId"], "ok": "yes"}):
        raw = json.dumps({"v": 1, "type": "tool.response", "id": "f", "ts": 1, "payload": payload})
        assert not parse_hook_message(raw).ok
        assert m.on_frame(raw, 3) == []
    assert calls(m)[a["callId"]]["state"] == "pending"


# -- the machine: queries --------------------------------------------------------------------------------------------


def test_queries_are_answered_with_the_current_aliases_and_the_hello_agents():
    m = machine()
    m.set_workspaces({"proj": "/abs/proj"}, "proj", 3)
    [(kind, p)] = ask(m, "workspaces", "q1")
    assert kind == "query.response" and p == {"queryId": "q1", "kind": "workspaces", "ok": True, "error": None,
                                              "workspaces": ["chat", "proj"]}
    [(_, p)] = ask(m, "models", "q2")
    assert p["ok"] is True and [a["agentKind"] for a in p["agents"]] == list(m.agents)


def test_sessions_are_at_most_twenty_of_the_most_recent_redacted_and_aliases_only():
    m = machine()
    for i in range(22):
        dispatch(m, f"r{i}", f"sim:k{i}", "repo" if i % 2 else "chat", now=10 + i, prompt=f"secret prompt {i}")
    [(_, p)] = ask(m, "sessions", now=100)
    assert p["ok"] is True and len(p["sessions"]) == 20
    acked = {m.turns[f"r{i}"].session_id for i in range(2, 22)}
    assert {s["id"] for s in p["sessions"]} == acked
    assert all(s["workspace"] in ("chat", "repo") and "secret" not in s["title"] for s in p["sessions"])
    assert [s["lastActiveAt"] for s in p["sessions"]] == sorted((s["lastActiveAt"] for s in p["sessions"]),
                                                                 reverse=True)


def test_without_session_picker_in_welcome_no_session_list_leaves_the_desktop():
    m = machine(features=())
    dispatch(m, "r1", "sim:k1")
    [(_, p)] = ask(m, "sessions")
    assert p["ok"] is False and p["error"] and "sessions" not in p


def test_two_queries_in_flight_are_each_answered_with_their_own_id():
    m = machine()
    answers = ask(m, "workspaces", "q1") + ask(m, "workspaces", "q2")
    assert [p["queryId"] for _, p in answers] == ["q1", "q2"]


# -- the machine: interactions, default workspace --------------------------------------------------------------------


CARD = InteractionScript(buttons=(ScriptButton("allow", "Allow", "allow"), ScriptButton("deny", "Deny", "deny")))


def open_card(m, rid="r1"):
    m.script_next_turn(Script(progress=(), final_text="{decision}", interaction=CARD))
    dispatch(m, rid, "sim:card")
    effects = m.on_timer(("step", rid), 60)
    [(kind, p)] = frames(effects)
    assert kind == "interaction.request"
    return p


def decide(m, rid, iid, button, now=70):
    return m.on_frame(serialize_hook_message(make_interaction_decision(rid, iid, button)), now)


def test_unknown_decisions_are_ignored_and_a_correct_one_resumes_the_turn():
    m = machine()
    card = open_card(m)
    assert decide(m, "r1", "no-such-interaction", "allow") == []
    assert decide(m, "r-other", card["interactionId"], "allow") == []
    assert decide(m, "r1", card["interactionId"], "never-a-button") == []
    raw = json.dumps({"v": 1, "type": "interaction.decision", "id": "f", "ts": 1,
                      "payload": {"requestId": "r1", "interactionId": card["interactionId"], "buttonId": ""}})
    assert m.on_frame(raw, 71) == []
    assert m.turns["r1"].interaction_id == card["interactionId"] and m.turns["r1"].decision is None
    assert any(isinstance(e, Schedule) for e in decide(m, "r1", card["interactionId"], "deny"))
    assert m.turns["r1"].decision == "deny"


def test_a_turn_ended_with_its_card_open_withdraws_the_card_first():
    m = machine()
    card = open_card(m)
    sent = frames(m.on_frame(serialize_hook_message(make_task_cancel("r1")), 80))
    assert [k for k, _ in sent] == ["interaction.cancel", "turn.end"]
    assert sent[0][1]["interactionId"] == card["interactionId"] and sent[1][1]["status"] == "cancelled"


def test_an_x_lane_dispatch_to_the_default_alias_runs_in_that_workspace():
    m = machine(default_workspace="repo")
    dispatch(m, "r1", "x:mention-1", "repo", source=TaskSource("x"))
    session = m.sessions[m.turns["r1"].session_id]
    assert session.workspace == "repo"


# -- the broken variants ---------------------------------------------------------------------------------------------


def test_every_gateway_variant_wraps_the_machine():
    classes = {c.target for c in cases("desktop") if c.name in GATEWAY}
    assert len(classes) == len(GATEWAY) >= 18
    assert all(issubclass(cls, DesktopMachine) and cls is not DesktopMachine for cls in classes)


def test_query_variants_break_their_rule():
    m = machine(variant="query-workspaces-stale")
    m.set_workspaces({"proj": "/abs/proj"}, None, 3)
    assert ask(m, "workspaces")[0][1]["workspaces"] == ["chat", "repo"]
    assert ask(machine(variant="query-models-other-agent"), "models")[0][1]["agents"][0]["agentKind"] \
        not in ("claude",)
    for variant in ("sessions-all-listed", "sessions-oldest-first", "session-titles-from-prompt"):
        m = machine(variant=variant)
        for i in range(22):
            dispatch(m, f"r{i}", f"sim:k{i}", now=10 + i, prompt=f"secret prompt {i}")
        raw = [e.text for e in m.on_frame(serialize_hook_message(make_query_request("q", "sessions")), 50)
               if isinstance(e, Send)][0]
        sessions = json.loads(raw)["payload"]["sessions"]
        if variant == "sessions-all-listed":
            assert len(sessions) == 22 and not parse_hook_message(raw).ok
        elif variant == "sessions-oldest-first":
            assert m.turns["r0"].session_id in {s["id"] for s in sessions}
        else:
            assert any("secret prompt" in s["title"] for s in sessions)
    m = machine(features=(), variant="sessions-without-feature")
    assert ask(m, "sessions")[0][1]["ok"] is True


def test_the_coalescing_variant_answers_the_newer_of_two_queries_of_one_kind_twice():
    m = machine(variant="queries-coalesced")
    assert ask(m, "workspaces", "q1") == [] and ask(m, "workspaces", "q2") == []
    answers = frames(m.on_timer(("query", "workspaces"), 200))
    assert [p["queryId"] for _, p in answers] == ["q2", "q2"]


def test_tool_variants_break_their_rule():
    m = machine(variant="tool-error-code-lost")
    a, _ = m.call_tool("status", None, None, 500, now=2)
    answer(m, a["requestId"], ok=False, error={"code": "NOT_BOUND", "message": "m"})
    assert calls(m)[a["callId"]]["error"]["code"] != "NOT_BOUND"
    _, effects = machine(features=(), variant="tools-without-feature").call_tool("status", None, None, 5, now=2)
    assert frames(effects)[0][0] == "tool.request"
    m = machine(variant="tool-response-to-oldest")
    a, _ = m.call_tool("status", None, None, 500, now=2)
    b, _ = m.call_tool("status", None, None, 500, now=2)
    answer(m, b["requestId"], result={"who": "b"})
    assert calls(m)[a["callId"]]["result"] == {"who": "b"}
    _, effects = machine(variant="tool-calls-never-time-out").call_tool("status", None, None, 5, now=2)
    assert not any(isinstance(e, Schedule) for e in effects)
    _, effects = machine(features=("slack-tools", "multi-team"), variant="tool-team-dropped").call_tool(
        "status", None, "T1", 5, now=2)
    assert "teamId" not in frames(effects)[0][1]
    _, effects = machine(variant="tool-team-without-feature").call_tool("status", None, "T1", 5, now=2)
    assert frames(effects)[0][1]["teamId"] == "T1"
    m = machine(variant="lenient-tool-responses")
    a, _ = m.call_tool("status", None, None, 500, now=2)
    m.on_frame(json.dumps({"v": 1, "type": "tool.response", "id": "f", "ts": 1,
                           "payload": {"replyTo": a["requestId"], "ok": False}}), 3)
    assert calls(m)[a["callId"]]["state"] != "pending"


def test_interaction_and_default_workspace_variants_break_their_rule():
    m = machine(variant="decision-any-interaction")
    open_card(m)
    decide(m, "r1", "no-such-interaction", "allow")
    assert m.turns["r1"].decision == "allow"
    m = machine(variant="card-left-open")
    open_card(m)
    sent = frames(m.on_frame(serialize_hook_message(make_task_cancel("r1")), 80))
    assert [k for k, _ in sent] == ["turn.end"]
    m = machine(variant="lenient-decisions")
    card = open_card(m)
    m.on_frame(json.dumps({"v": 1, "type": "interaction.decision", "id": "f", "ts": 1,
                           "payload": {"requestId": "r1", "interactionId": card["interactionId"], "buttonId": ""}}), 71)
    assert m.turns["r1"].decision == "allow"
    m = machine(default_workspace="repo", variant="x-dispatch-in-chat")
    dispatch(m, "r1", "x:mention-1", "repo", source=TaskSource("x"))
    assert m.sessions[m.turns["r1"].session_id].workspace == "chat"


@pytest.mark.parametrize("variant", GATEWAY)
def test_each_variant_keeps_the_rest_of_the_machine_working(variant):
    m = machine(variant=variant)
    dispatch(m, "r1", "sim:k1")
    assert run_until_idle(m) and m.turns["r1"].finished


def test_after_a_restart_calls_are_gone_and_sessions_are_listed_once_used_again():
    """Tool calls live in memory only: a late answer after a restart names no call. Sessions come back from the store
    (同 externalKey 同 session) but are listed by the sessions query only once active again in this process (their last
    activity is not stored)."""
    before = machine()
    dispatch(before, "r1", "sim:k1")
    call, _ = before.call_tool("status", None, None, 500, now=4)
    sid = before.turns["r1"].session_id
    after = make_machine(None, workspaces={"repo": FOLDER}, saved_sessions=[(sid, "sim:k1", "chat", False)])
    after.on_connected(10)
    after.on_frame(serialize_hook_message(make_welcome("s", ("slack-tools", "session-picker-v1"))), 11)
    assert answer(after, call["requestId"], result={"late": True}, now=12) == []
    assert after.state(13)["toolCalls"] == []
    assert ask(after, "sessions", now=14)[0][1]["sessions"] == []
    dispatch(after, "r2", "sim:k1", now=15)
    assert after.turns["r2"].session_id == sid
    assert [s["id"] for s in ask(after, "sessions", "q2", now=16)[0][1]["sessions"]] == [sid]
