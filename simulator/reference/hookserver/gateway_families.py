"""Queries and gateway tools of the reference hook server, wired to the machine: query.request / query.response,
tool.request / tool.response and their control commands (docs/control-api.md "Queries, gateway tools, group relay and
message operations (hook-server)").

Spec: §5 阶段 6 (query.request "queryId(server 生成,响应回传配对,server 自行超时)"), §2 "只有 hello 与 welcome 同时包含 …
session-picker-v1 时才可使用对应新增帧", 阶段 12 (tool.request / tool.response; "发送前先查 welcome.features 是否含
HOOK_FEATURE_SLACK_TOOLS"), 阶段 13 (tool.request teamId), "turn.delivery 可靠性与兼容" ("provider 的原始响应正文不得上
wire").

``GatewayFamilies`` is a mixin of ``HookServerMachine`` (sans-I/O like it): the state and its rules are the pure
modules ``queries`` (``QueryBook``: pending queries, pairing, the timeout) and ``gateway_tools`` (``GatewayTools``: the
identity a call runs as, the fake Slack API, the call log); this module routes frames to them and turns their answers
into frames (built with the core's ``make_query_request`` / ``make_tool_response``), ``Wake`` timers (``query-expiry``)
and dropped-frame log entries (``unknown-query``, ``feature-not-declared``). Nothing of these families is durable.
Each rule is one method (``_query_*``, ``_tool_*``): the machine's handler table calls only ``_on_query_response`` /
``_on_tool_request``, which call them through ``self``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from ...hook import (Feature, HookMessage, QueryKind, QueryResponsePayload, ToolError, ToolRequestPayload,
                     make_query_request, make_tool_response)
from .effects import Effect, MachineError
from .gateway_tools import GatewayTools, Identity, ToolOutcome, shown
from .host import MachineHost
from .queries import COMMANDS, Query, QueryBook
from .wire import payload_as

if TYPE_CHECKING:
    from .lanes import Lane
    from .state import Connection

__all__ = ["GatewayFamilies", "QUERY_EXPIRY"]

#: The machine timer of a query's timeout (key: the queryId).
QUERY_EXPIRY: Final = "query-expiry"


class GatewayFamilies(MachineHost):
    """Mixin: needs the machine's ``_frame``, ``_log``, ``_open_conn_of``, ``_timer``, ``_ids``, ``_multi_team``,
    ``slack``."""

    def _gateway_init(self) -> None:
        self.queries = QueryBook()
        self.tools = GatewayTools()

    # -- queries (spec §5 阶段 6) ---------------------------------------------------------------------------------

    def _query_kind(self, command: str) -> QueryKind | None:
        """The kind a channel command asks for (``/bind``, ``/model``, ``/effort``, ``/session``), else None."""
        return COMMANDS.get(command)

    def _query_sessions_on(self, conn: Connection) -> bool:
        """§2: kind ``sessions`` only with ``session-picker-v1`` in the connection's hello and in its welcome."""
        feature = Feature.SESSION_PICKER.value
        return feature in conn.features and feature in conn.welcome_features

    def _ask_query(self, lane: Lane, device_id: str, external_key: str, kind: QueryKind, now: int,
                   out: list[Effect]) -> dict[str, Any]:
        """A channel command: ``query.request {queryId: fresh, kind}`` to the device's open connection (none when it
        has none, or for ``sessions`` without session-picker-v1 there: ``queryId`` null, nothing listed)."""
        conn = self._open_conn_of(device_id)
        query_id = None
        if conn is not None and (kind is not QueryKind.SESSIONS or self._query_sessions_on(conn)):
            q = self.queries.ask(device_id, kind, lane.key, now, self._ids)
            self._timer(out, q.expires_at, QUERY_EXPIRY, q.query_id)
            out.append(self._frame(conn.conn_id, make_query_request(query_id=q.query_id, kind=kind.value,
                                                                    ids=self._ids, ts=now, validate=False)))
            query_id = q.query_id
        return {"ok": True, "kind": "query", "requestId": None, "messageId": None, "externalKey": external_key,
                "queryId": query_id}

    def _on_query_response(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """"响应回传配对": the answer ends the pending query of its queryId and kind sent to this device; anything else
        (unknown, ended, late, another device's, another kind) is dropped ``unknown-query`` and changes nothing."""
        p = payload_as(message, QueryResponsePayload)
        self._query_expire(p.query_id, now, out)  # an answer at or after expiresAt comes after the timeout
        q = self._query_for(conn, p, now)
        if q is None:
            self._log(conn.conn_id, now, "unknown-query", type_=message.type.value)
            return
        self._query_end(q, p.ok, p.to_wire())

    def _query_for(self, conn: Connection, payload: Any, now: int) -> Query | None:
        return self.queries.pending_for(payload.query_id, conn.device_id, payload.kind, now)

    def _query_end(self, q: Query, ok: bool, wire: Mapping[str, Any]) -> None:
        self.queries.answer(q, ok, wire)

    def _query_expire(self, query_id: str, now: int, out: list[Effect]) -> None:
        """The query's timer (or a late answer) at ``now``: "server 自行超时"."""
        self.queries.expire(query_id, now)

    def list_queries(self, body: Mapping[str, Any]) -> dict[str, Any]:
        query_id = body.get("queryId")
        if query_id is not None and not isinstance(query_id, str):
            raise MachineError("invalid-request", "queryId: a string is expected")
        return {"queries": self.queries.listing(query_id)}

    # -- gateway tools (spec §5 阶段 12, 阶段 13) -------------------------------------------------------------------

    def _tools_on(self, conn: Connection) -> bool:
        """阶段 12 "发送前先查 welcome.features 是否含 HOOK_FEATURE_SLACK_TOOLS": the server's declaration is the gate."""
        return Feature.SLACK_TOOLS.value in conn.welcome_features

    def _on_tool_request(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """Every valid tool.request (gateway tools on) is answered by exactly one tool.response on its connection."""
        p = payload_as(message, ToolRequestPayload)
        if not self._tools_on(conn):
            self._log(conn.conn_id, now, "feature-not-declared", type_=message.type.value,
                      request_id=shown(p.request_id, None))  # a peer's string, shown well-formed
            return
        device_id = conn.device_id or ""
        bindings = [Identity(b.team_id, b.slack_user_id) for b in self.slack.of(device_id)]
        args = dict(p.args) if isinstance(p.args, Mapping) else None
        team = p.team_id if isinstance(p.team_id, str) else None
        outcome = self.tools.run(p.request_id, device_id, p.tool, args, team, bindings, self._multi_team(conn))
        self._tool_answer(conn, p.request_id, outcome, now, out)

    def _tool_answer(self, conn: Connection, request_id: str, outcome: ToolOutcome, now: int,
                     out: list[Effect]) -> None:
        """tool.response {replyTo: the requestId, ok, result | error {code, message}} ("replyTo 回显 requestId")."""
        if outcome.ok:
            message = make_tool_response(reply_to=request_id, ok=True, result=outcome.result, ids=self._ids, ts=now,
                                         validate=False)
        else:
            message = make_tool_response(reply_to=request_id, ok=False,
                                         error=ToolError(outcome.code or "TOOL_ERROR", outcome.message or "failed"),
                                         ids=self._ids, ts=now, validate=False)
        out.append(self._frame(conn.conn_id, message))

    def fail_tool_calls(self, body: Mapping[str, Any]) -> None:
        """Control ``fail-tool-calls``: the next ``count`` Slack API calls (of ``deviceId``'s tools, when given) fail,
        the fake Slack API answering ``rawError`` as its raw response body."""
        count = body.get("count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise MachineError("invalid-request", "count: an integer ≥ 1 is required")
        raw = body.get("rawError")
        if not isinstance(raw, str) or not raw:
            raise MachineError("invalid-request", "rawError: a non-empty string is required")
        device_id = body.get("deviceId")
        if device_id is not None and (not isinstance(device_id, str) or not device_id):
            raise MachineError("invalid-request", "deviceId: a non-empty string or null is expected")
        self.tools.api.fail(count, raw, device_id)

    def list_tool_calls(self, body: Mapping[str, Any]) -> dict[str, Any]:
        device_id = body.get("deviceId")
        if device_id is not None and not isinstance(device_id, str):
            raise MachineError("invalid-request", "deviceId: a string is expected")
        return {"calls": self.tools.listing(device_id)}

