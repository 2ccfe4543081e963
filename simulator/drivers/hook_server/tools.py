"""Slack gateway tools, driven from the desktop side (spec slack-hook-protocol.md §5 阶段 12 Slack 网关工具; §1 "工具:
tool.request / tool.response —— desktop 会话内 agent 调用 server 侧 Slack 网关工具(server 以绑定用户托管的 user token
执行);能力协商靠 welcome.features 的 HOOK_FEATURE_SLACK_TOOLS"; 阶段 13 tool.request teamId; "turn.delivery 可靠性与
兼容" "provider 的原始响应正文不得上 wire").

The harness desktop sends ``tool.request`` and judges the ``tool.response`` that answers it (``replyTo`` = its
requestId); the identity a call ran with is read with ``list-tool-calls`` and the Slack API is made to fail with
``fail-tool-calls`` (docs/control-api.md "Queries, gateway tools, group relay and message operations (hook-server)"),
every answer checked against docs/control-api.schema.json. The Slack users a call must run as are the
Slack binding driver's (``BindingOps``: fresh ids per scenario). The tool set is the server's: a ``callTool`` the
harness makes names a tool the server's own ``listTools`` answer listed. Every received frame was parsed by the core:
a tool.response with ``ok: false`` and an empty ``{code, message}`` fails there ("ok=false 时 error 必须为非空").
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from ...errors import NotTestable
from ...hook import MessageType
from .raw_errors import raw_error_leaks
from .bindings import BindingOps
from .deliveries import CODE_RE, RAW_RESPONSE_MARKERS
from .provider_errors import ProviderErrorChecks
from .control_answers import Row
from .scenario import HookServerScenario

__all__ = ["MALFORMED_TOOL_REQUESTS", "ToolNames", "ToolOps"]

#: A tool.request the core refuses (§5 阶段 12: requestId 配对, tool 开放集合, 可选 args; 阶段 13 可选 teamId) → its
#: payload (``None``: the harness's requestId).
MALFORMED_TOOL_REQUESTS: Final[dict[str, dict[str, Any]]] = {
    "without a requestId": {"tool": "status"},
    "with an empty tool": {"requestId": None, "tool": ""},
    "with args that are not an object": {"requestId": None, "tool": "listTools", "args": "channel=C1"},
    "with a teamId that is not a string": {"requestId": None, "tool": "listTools", "teamId": 42},
}


@dataclass
class ToolNames:
    """The scenario's tool calls: name → requestId, and the tool.response that answered it."""

    requests: dict[str, str] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class ToolOps:
    """Slack gateway tools (spec §5 阶段 12, 13), over the scenario (``scenario``), the raw errors the scenario gave
    (``provider_errors``) and the Slack names (``bindings``)."""

    scenario: HookServerScenario
    provider_errors: ProviderErrorChecks
    bindings: BindingOps

    #: The scenario's tool calls by name.
    names: ToolNames = field(default_factory=ToolNames)

    def tool_request_id(self, name: str) -> str:
        if name not in self.names.requests:
            raise AssertionError(f"no tool call named {name!r} in this scenario")
        return self.names.requests[name]

    # -- When ------------------------------------------------------------------------------------------------------

    def call_tool(self, dev: str, name: str, tool: str, args: dict[str, Any] | None = None,
                  team: str | None = None) -> None:
        """``tool.request {requestId: a fresh UUID, tool, args?, teamId? (the team's id)}`` from the device."""
        rid = str(uuid.uuid4())
        kwargs: dict[str, Any] = {}
        if args is not None:
            kwargs["args"] = args
        if team is not None:
            kwargs["team_id"] = self.bindings.slack.team(team)
        self.scenario.device(dev).role.tool_request(rid, tool, **kwargs)
        self.names.requests[name] = rid

    def call_listed_tool(self, dev: str, name: str, listed: str, team: str | None = None) -> None:
        """``callTool`` of the first tool the server listed in its answer ``listed`` (``result.tools[0].name``,
        docs/control-api.md: the tool set is the server's). A server that lists none leaves nothing to call: not
        testable."""
        answer = self.names.answers.get(listed)
        if answer is None or not answer.ok:
            raise AssertionError(f"{listed!r} was not answered ok: no tool list to call from")
        result = answer.result
        tools = result.get("tools") if isinstance(result, dict) else None
        if not isinstance(tools, list) or not all(isinstance(t, dict) and isinstance(t.get("name"), str)
                                                  for t in tools):
            raise AssertionError(f"the listTools result of {listed!r} is not {{\"tools\": [{{\"name\", "
                                 f"\"description\"}}]}} (docs/control-api.md): {result!r}"[:600])
        if not tools:
            raise NotTestable(f"the server's listTools ({listed!r}) lists no tool: callTool cannot be driven")
        self.call_tool(dev, name, "callTool", {"name": tools[0]["name"], "arguments": {}}, team)

    def send_malformed_tool_request(self, dev: str, case: str) -> None:
        """A tool.request the core refuses (``MALFORMED_TOOL_REQUESTS``), then the barrier."""
        if case not in MALFORMED_TOOL_REQUESTS:
            raise ValueError(f"unknown malformed tool.request {case!r}: one of {sorted(MALFORMED_TOOL_REQUESTS)}")
        payload = {k: (str(uuid.uuid4()) if k == "requestId" and v is None else v)
                   for k, v in MALFORMED_TOOL_REQUESTS[case].items()}
        frame = {"v": 1, "type": MessageType.TOOL_REQUEST.value, "id": str(uuid.uuid4()), "ts": 1_767_225_600_000,
                 "payload": payload}
        self.scenario.device(dev).role.send_raw(json.dumps(frame))
        self.scenario.barrier()

    # -- Then: the answer ------------------------------------------------------------------------------------------

    def _answer(self, dev: str, name: str) -> Any:
        rid = self.tool_request_id(name)
        payload = self.scenario.device(dev).role.expect_payload(MessageType.TOOL_RESPONSE,
                                                                where=lambda p: p.reply_to == rid,
                                                                what=f"replyTo {rid}")
        self.names.answers[name] = payload
        return payload

    def expect_tool_answer(self, dev: str, name: str, ok: bool, *, exactly_one: bool = False) -> None:
        """A tool.response with ``replyTo`` = the request's id ("replyTo 回显 requestId") and ``ok``; with
        ``exactly_one``, no second answer follows in the quiet window (the connection alive)."""
        payload = self._answer(dev, name)
        assert payload.ok is ok, f"the answer to {name!r} says ok {payload.ok!r}, expected {ok!r}: {payload!r}"[:600]
        if exactly_one:
            rid = self.tool_request_id(name)
            self.scenario.none_arrives(self.scenario.device(dev).role, lambda e: e.type == MessageType.TOOL_RESPONSE
                                       and (not e.ok or e.payload.reply_to == rid))

    def expect_tool_code(self, dev: str, name: str, code: str) -> None:
        """An ``ok: false`` answer with ``error.code`` = ``code`` (the desktop "按 code 分支")."""
        payload = self._answer(dev, name)
        assert payload.ok is False, f"the answer to {name!r} is ok, expected error {code!r}: {payload!r}"[:600]
        assert payload.error.code == code, f"the answer to {name!r} has error.code {payload.error.code!r}, " \
                                           f"expected {code!r}"

    def expect_safe_tool_error(self, dev: str, name: str) -> None:
        """An ``ok: false`` answer whose error is the server's own: a machine-readable code and a message (non-empty:
        the core's parse), carrying nothing of the raw response the provider gave ("provider 的原始响应正文不得上
        wire") nor anything shaped like one."""
        payload = self._answer(dev, name)
        assert payload.ok is False, f"the answer to {name!r} is ok although the Slack API failed: {payload!r}"[:600]
        error = payload.error
        assert CODE_RE.fullmatch(error.code), f"error.code {error.code!r} is not a machine-readable code"
        text = json.dumps(error.to_wire(), ensure_ascii=False)
        leaked = raw_error_leaks(json.dumps({"error": error.to_wire()}), self.provider_errors.raw_errors())
        assert not leaked, f"the tool.response error of {name!r} carries the provider's raw response: {text}"[:600]
        markers = [m for m in RAW_RESPONSE_MARKERS if m in error.message]
        assert not markers, f"error.message looks like a raw provider response ({markers!r}): {error.message!r}"

    def expect_no_tool_answer(self, dev: str) -> None:
        """No tool.response reaches the device (since its connection opened, and in the quiet window, alive)."""
        self.scenario.none_arrives(self.scenario.device(dev).role, MessageType.TOOL_RESPONSE)

    # -- Then: what ran (list-tool-calls) ------------------------------------------------------------------------------

    def _call_row(self, name: str) -> Row:
        rid = self.tool_request_id(name)
        rows = self.scenario.rows("list-tool-calls", {}, keep=lambda r: r["requestId"] == rid)
        assert rows, f"the server lists no call {rid} ({name!r}) although it answered it"
        return rows[-1]

    def expect_ran_as(self, name: str, user: str, team: str) -> None:
        """阶段 12 "server 以绑定用户托管的 user token 执行": the call ran as the device's binding of ``team``."""
        row = self._call_row(name)
        want = (self.bindings.slack.team(team), self.bindings.slack.user(user))
        got = (row["teamId"], row["slackUserId"])
        assert got == want, f"the server ran {name!r} as (teamId, slackUserId) {got!r}, expected {user}@{team} " \
                            f"{want!r}"

    def expect_ran_as_nobody(self, name: str) -> None:
        """Nothing ran as anyone for the call (no binding to run as)."""
        row = self._call_row(name)
        assert (row["teamId"], row["slackUserId"]) == (None, None), \
            f"the server ran {name!r} as {row['slackUserId']!r} of team {row['teamId']!r} although the device has " \
            f"no Slack binding"

    def expect_nothing_ran(self, dev: str) -> None:
        """The server lists no tool call of the device at all."""
        self.scenario.settle()
        device_id = self.scenario.device(dev).role.device_id
        rows = self.scenario.rows("list-tool-calls", {"deviceId": device_id}, keep=lambda r: r["deviceId"] == device_id)
        assert not rows, f"the server ran tool calls for device {dev!r}: {rows!r}"[:600]
