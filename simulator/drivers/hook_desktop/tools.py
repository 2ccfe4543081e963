"""Slack gateway tools at a desktop under test (slack-hook-protocol.md §5 阶段 12 tool.request / tool.response,
阶段 13 tool.request 的可选 teamId, §9 降级行为; docs/control-api.md "Queries, gateway tools, group relay and message
operations (desktop)": ``call-tool`` and ``state.toolCalls``).

The harness plays the desktop's agent (control ``call-tool``: the agent calls a tool) and the hook server (it reads the
``tool.request`` and answers ``tool.response``), and judges what the desktop sent and what its control ``state`` shows
the agent got. Every control answer is checked against docs/desktop-control-api.schema.json before it is read: a
``call-tool`` answer without ``callId`` or ``requestId`` (``$defs/call-tool.response``), a ``toolCalls`` entry without
one of its documented fields (``$defs/toolCall``), is the desktop's malformed answer (a failure). "Nothing sent" and
"nothing changed" checks hold only on a live connection: they end on a ping barrier.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any

from ...hook import ABSENT, MessageType
from ..timing import POLL_S, NotYet, eventually
from .answers import checked_answer, checked_fields
from .session import DesktopSession
from .state import StateChecks

__all__ = ["ToolChecks", "ToolScenario", "checked_call_answer", "checked_tool_calls"]


def checked_call_answer(answer: Any) -> dict[str, Any]:
    """A ``call-tool`` answer (``$defs/call-tool.response``: ``{"ok": true, "callId", "requestId": a non-empty
    string or null}``); else ``AssertionError`` naming the schema entry and the JSON pointer."""
    call: dict[str, Any] = checked_answer(answer, "call-tool")
    return call


def checked_tool_calls(state: dict[str, Any]) -> list[dict[str, Any]]:
    """``state.toolCalls`` when it matches ``$defs/state.response`` (each entry a ``$defs/toolCall``); else
    ``AssertionError`` naming the schema entry and the JSON pointer."""
    calls: list[dict[str, Any]] = checked_fields(state, "state", ("toolCalls",))["toolCalls"]
    return calls


@dataclass
class ToolScenario:
    """The calls of one scenario: call name → what the agent asked, the control API's answer, the tool.request."""

    asked: dict[str, dict[str, Any]] = field(default_factory=dict)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: dict[str, Any] = field(default_factory=dict)
    teams: dict[str, str] = field(default_factory=dict)


@dataclass(eq=False)
class ToolChecks:
    """The gateway tool operations of a desktop scenario, over the session and its control ``state`` (``state``)."""

    session: DesktopSession
    state: StateChecks

    #: The scenario's calls by name.
    calls: ToolScenario = field(default_factory=ToolScenario)

    def tool_team(self, name: str) -> str:
        """The Slack teamId of team ``name`` (fresh per scenario)."""
        return self.calls.teams.setdefault(name, f"T{uuid.uuid4().hex[:10].upper()}")

    # -- the agent (control API) -------------------------------------------------------------------------------------

    def call_tool(self, name: str, tool: str, args: dict[str, Any] | None = None, team: str | None = None,
                  timeout_ms: int | None = None) -> dict[str, Any]:
        """The agent of the desktop calls gateway tool ``tool`` (control ``call-tool``); the answer, checked."""
        body: dict[str, Any] = {"tool": tool}
        if args is not None:
            body["args"] = args
        if team is not None:
            body["teamId"] = self.tool_team(team)
        if timeout_ms is not None:
            body["timeoutMs"] = timeout_ms
        self.calls.asked[name] = body
        answer = checked_call_answer(self.session.user_action("call-tool", body))
        self.calls.answers[name] = answer
        return answer

    def _answer(self, name: str) -> dict[str, Any]:
        answer = self.calls.answers.get(name)
        assert answer is not None, f"the agent made no call {name!r} before this step"
        return answer

    def _tool_request_id(self, name: str) -> str:
        rid: str | None = self._answer(name)["requestId"]
        assert rid is not None, (
            f"the desktop answered call-tool {name!r} with requestId null: it sent no tool.request although "
            f"slack-tools was in welcome ({self.session.features!r})")
        return rid

    # -- the wire: tool.request ----------------------------------------------------------------------------------

    def tool_request(self, name: str) -> Any:
        """The desktop's tool.request of call ``name``: the one whose requestId is the one its control API answered
        (阶段 12 "requestId(desktop 生成,response 回显配对)"), valid (the core's check), naming the tool asked and the
        args given."""
        if name in self.calls.requests:
            return self.calls.requests[name]
        rid = self._tool_request_id(name)
        req = self.session.server.expect_payload(MessageType.TOOL_REQUEST.value, where=lambda p: p.request_id == rid,
                                                 what=f"call {name!r}, requestId {rid}")
        asked = self.calls.asked[name]
        assert req.tool == asked["tool"], (
            f"tool.request names the tool {req.tool!r}, the agent called {asked['tool']!r}")
        if "args" in asked:
            got = None if req.args is ABSENT else dict(req.args)
            assert got == asked["args"], f"tool.request carries args {got!r}, the agent gave {asked['args']!r}"
        self.calls.requests[name] = req
        return req

    def check_tool_request(self, name: str) -> None:
        """With slack-tools in welcome the call goes on the wire as tool.request (see ``tool_request``)."""
        self.tool_request(name)

    def check_distinct_request_ids(self, a: str, b: str) -> None:
        """Two calls in flight carry two requestIds: one answer can name only one of them ("response 回显配对")."""
        ra, rb = self.tool_request(a).request_id, self.tool_request(b).request_id
        assert ra != rb, f"the calls {a!r} and {b!r} share the requestId {ra!r}"

    def check_tool_request_team(self, name: str, team: str) -> None:
        """阶段 13 "其余为已有帧的可选 teamId 扩展(多绑定下的归属消歧 …):… tool.request": with multi-team on both sides the
        team the agent named travels as teamId."""
        got = self.tool_request(name).team_id
        want = self.tool_team(team)
        assert got == want, f"tool.request carries teamId {None if got is ABSENT else got!r}, the agent named {want!r}"

    def check_tool_request_without_team(self, name: str) -> None:
        """阶段 13 "能力协商双向 … 任一侧缺席则整体回落单绑定行为": without multi-team in welcome tool.request names no team
        (left out, or null: "缺省 = 设备唯一绑定的旧语义")."""
        got = self.tool_request(name).team_id
        assert got is ABSENT or got is None, (
            f"tool.request carries teamId {got!r} although the server did not declare multi-team")

    def check_no_tool_request(self) -> None:
        """阶段 12 "发送前先查 welcome.features 是否含 HOOK_FEATURE_SLACK_TOOLS,缺席直接短路": no tool.request within the
        quiet window, on a connection that stays open and answers ping."""
        self.session.none_from_work(MessageType.TOOL_REQUEST.value)

    # -- the harness as the server: tool.response ---------------------------------------------------------------------

    def answer_tool(self, name: str, result: Any) -> None:
        """tool.response ok for call ``name`` with ``result``."""
        self.session.server.tool_response(self.tool_request(name).request_id, True, result)

    def fail_tool(self, name: str, code: str, message: str) -> None:
        """tool.response ok:false for call ``name`` with ``error {code, message}``."""
        self.session.server.tool_response(self.tool_request(name).request_id, False,
                                          error={"code": code, "message": message})

    def answer_unknown_tool_call(self) -> None:
        """tool.response whose replyTo names no call the desktop made."""
        self.session.server.tool_response(str(uuid.uuid4()), True, {"conformance": "unknown replyTo"})

    def send_malformed_tool_response(self, name: str, payload: dict[str, Any]) -> None:
        """A tool.response that fails the core's check, its replyTo the requestId of call ``name`` (unless the payload
        gives one), sent as given."""
        body = {"replyTo": self.tool_request(name).request_id, **payload}
        self.session.server.send_frame({"v": 1, "type": MessageType.TOOL_RESPONSE.value, "id": str(uuid.uuid4()),
                                        "ts": 1, "payload": body})

    # -- the control state: state.toolCalls --------------------------------------------------------------------------

    def tool_call(self, name: str) -> dict[str, Any]:
        """The ``state.toolCalls`` entry of call ``name`` (by the callId its control API answered)."""
        call_id = self._answer(name)["callId"]
        found = [c for c in checked_tool_calls(self.state.state()) if c["callId"] == call_id]
        assert found, f"the desktop's state.toolCalls lists no call {call_id!r} ({name!r})"
        return found[-1]

    def _call_ended(self, name: str) -> dict[str, Any]:
        """The entry of call ``name`` once it is no longer pending (polled up to the step limit)."""
        def look() -> dict[str, Any]:
            call = self.tool_call(name)
            if call["state"] == "pending":
                raise NotYet(f"the desktop's state still shows call {name!r} pending after "
                             f"{self.session.step_timeout:g} s: {json.dumps(call)[:400]}")
            return call

        return eventually(look, self.session.step_timeout, poll=POLL_S * 4, clock=self.session.clock,
                          sleep=self.session.sleep, retry=NotYet)

    def check_tool_call_ok(self, name: str, result: Any) -> None:
        """阶段 12 tool.response "replyTo 回显 requestId … result 形状由具体工具约定": the answer reached the agent, ok with
        the result as sent."""
        call = self._call_ended(name)
        assert call["state"] == "ok", f"call {name!r} ended {call['state']!r}, not ok: {json.dumps(call)[:400]}"
        assert call["result"] == result, (
            f"call {name!r} shows the result {call['result']!r}, the server sent {result!r}")

    def check_tool_call_error(self, name: str, code: str, message: str) -> None:
        """阶段 12 "ok=false 时 error 必须为非空 {code, message}(desktop 按 code 分支,不解析文案)": the agent got the error
        with the server's code."""
        call = self._call_ended(name)
        assert call["state"] == "error", f"call {name!r} ended {call['state']!r}, not error: {json.dumps(call)[:400]}"
        got = call["error"] or {}
        assert got.get("code") == code, (
            f"call {name!r} shows the error code {got.get('code')!r}, the server sent {code!r}")
        assert got.get("message") == message, f"call {name!r} shows the message {got.get('message')!r}, not {message!r}"

    def check_tool_call_unavailable(self, name: str) -> None:
        """阶段 12 "缺席直接短路": the call was answered without a requestId and shows unavailable at once (never pending:
        no answer can come for a request never sent)."""
        answer = self._answer(name)
        assert answer["requestId"] is None, (
            f"call-tool answered the requestId {answer['requestId']!r}: a tool.request was made without slack-tools")
        call = self.tool_call(name)
        assert call["state"] == "unavailable", f"call {name!r} shows {call['state']!r}, not unavailable"

    def check_tool_call_pending(self, name: str) -> None:
        """Call ``name`` still waits for its answer: read after a ping barrier (every frame sent before it was read)."""
        self.session.barrier()
        call = self.tool_call(name)
        assert call["state"] == "pending", (
            f"call {name!r} shows {call['state']!r} although no valid answer named it: {json.dumps(call)[:400]}")

    def check_tool_call_timed_out(self, name: str) -> None:
        """§9 "必须为'对端是旧版'定义降级行为(参考 prefs.get 的超时降级)": a call the server leaves unanswered ends timed-out
        at the desktop (its timeoutMs), it does not hang the agent."""
        call = self._call_ended(name)
        assert call["state"] == "timed-out", f"call {name!r} ended {call['state']!r}, not timed-out"

    def check_tool_call_still(self, name: str, state: str) -> None:
        """After a ping barrier call ``name`` still shows ``state`` (a late or unknown answer changed nothing)."""
        self.session.barrier()
        call = self.tool_call(name)
        assert call["state"] == state, f"call {name!r} shows {call['state']!r} now, it showed {state!r} before"
