"""Live queries, driven from the desktop side (spec slack-hook-protocol.md §5 阶段 6 实时问答; §1 "问答:query.request /
query.response —— /bind /model /effort 指令实时拉取工作区 / 模型清单", "最近会话:query.kind=sessions —— Telegram
/session 仅拉取最多 20 条脱敏会话摘要"; §2 "只有 hello 与 welcome 同时包含 … session-picker-v1 时才可使用对应新增帧").

A user's channel command is played through the control API (``inject-message``: ``/bind``, ``/model``, ``/effort``,
``/session``, answered ``kind: "query"`` with the ``queryId`` the server sent); the device receives ``query.request``
and the harness answers it with ``query.response``; what the channel shows of the query is read with
``list-queries`` (docs/control-api.md "Queries, gateway tools, group relay and message operations (hook-server)"), every
answer checked against docs/control-api.schema.json. Every frame the device receives was parsed by the core: an invalid
``query.request`` fails the step that meets it. Names: a query is named by the feature when the user writes the command
("q"); the harness's answer to it is distinctive per name, so an answer that lands on another query shows.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from ...hook import (
    MAX_QUERY_SESSIONS,
    MessageType,
    QueryAgentModels,
    QueryKind,
    QueryModelEntry,
    QuerySessionEntry,
)
from .channel import ChannelOps
from .control_answers import Row
from .scenario import HookServerScenario

__all__ = ["MALFORMED_ANSWERS", "QUERY_COMMANDS", "QueryNames", "QueryOps", "query_answer"]

#: The channel commands that ask a device for a list, and the kind each asks for (§1 "/bind /model /effort 指令实时拉取
#: 工作区 / 模型清单"; "Telegram /session 仅拉取 … 会话摘要").
QUERY_COMMANDS: Final = {"/bind": QueryKind.WORKSPACES.value, "/model": QueryKind.MODELS.value,
                         "/effort": QueryKind.MODELS.value, "/session": QueryKind.SESSIONS.value}
#: A malformed answer the core refuses (§5 阶段 6 query.response "ok=false 时 error 非空;ok 时按 kind 携带 …;sessions
#: 最多 20 条 …,workspace 只能是别名,校验器拒绝绝对路径") → the kind of query it answers.
MALFORMED_ANSWERS: Final = {
    "ok false without an error": None,
    "ok true without its list": None,
    "21 sessions": QueryKind.SESSIONS.value,
    "a session workspace that is an absolute path": QueryKind.SESSIONS.value,
}
#: The list key of each kind's ok answer (§5 阶段 6 "ok 时按 kind 携带 workspaces、agents 或 sessions").
_KEYS: Final = {QueryKind.WORKSPACES.value: "workspaces", QueryKind.MODELS.value: "agents",
                QueryKind.SESSIONS.value: "sessions"}
_LAST_ACTIVE = 1_767_225_600_000  # 2026-01-01 UTC, a positive unix-ms timestamp


def query_answer(name: str, kind: str) -> dict[str, Any]:
    """The harness's ok answer to the query named ``name`` (wire form of its list), distinctive per name: what the
    channel must then show as the query's answer."""
    if kind == QueryKind.WORKSPACES:
        return {"workspaces": ["chat", f"{name}-repo"]}
    if kind == QueryKind.MODELS:
        return {"agents": [{"agentKind": "claude", "models": [
            {"id": f"{name}-opus", "label": f"Opus for {name}", "efforts": ["low", "high"], "defaultEffort": "high"}]}]}
    return {"sessions": [{"id": f"{name}-session-1", "title": f"Session of {name}", "workspace": "chat",
                          "lastActiveAt": _LAST_ACTIVE}]}


def _typed(kind: str, wire: dict[str, Any]) -> dict[str, Any]:
    """A wire list as ``make_query_response`` arguments."""
    if kind == QueryKind.WORKSPACES:
        return {"workspaces": tuple(wire["workspaces"])}
    if kind == QueryKind.MODELS:
        return {"agents": tuple(QueryAgentModels("claude", tuple(
            QueryModelEntry(m["id"], m["label"], tuple(m["efforts"]), m["defaultEffort"])
            for m in a["models"])) for a in wire["agents"])}
    return {"sessions": tuple(QuerySessionEntry(s["id"], s["title"], s["workspace"], s["lastActiveAt"])
                              for s in wire["sessions"])}


@dataclass
class QueryNames:
    """The scenario's queries: name → the ``inject-message`` answer, the ``query.request`` received, the answer sent."""

    asked: dict[str, Row] = field(default_factory=dict)
    kinds: dict[str, str] = field(default_factory=dict)
    received: dict[str, Any] = field(default_factory=dict)
    sent: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass(eq=False)
class QueryOps:
    """Live queries (spec §5 阶段 6): the user's command, the device's answer, what the channel shows; over the
    scenario (``scenario``) and the server's clock (``channel``)."""

    scenario: HookServerScenario
    channel: ChannelOps

    #: The scenario's queries by name.
    names: QueryNames = field(default_factory=QueryNames)

    def query_id(self, name: str) -> str:
        """The queryId the server gave the query ``name`` (its ``inject-message`` answer)."""
        if name not in self.names.asked:
            raise AssertionError(f"no query named {name!r} in this scenario (the feature uses it before it exists)")
        query_id: str = self.names.asked[name]["queryId"]
        return query_id

    # -- When: the channel ---------------------------------------------------------------------------------------

    def ask_query(self, command: str, chat: str, *, name: str | None = None, provider: str | None = None,
                  dev: str | None = None) -> None:
        """A user writes ``command`` in ``chat`` (to device ``dev``, else the first). With ``name`` the server must
        have sent the device a query (``inject-message`` answers ``kind: "query"`` with its ``queryId``, docs/
        control-api.md); without, nothing is required of the answer (what reaches the device is judged after)."""
        if provider:
            self.scenario.providers[chat] = provider
        device = self.scenario.device(dev) if dev else self.scenario.first_device()
        body = {"provider": self.scenario.provider(chat), "chatId": self.scenario.chat(chat), "threadId": None,
                "userId": f"sim-user-{uuid.uuid4().hex[:12]}", "text": command, "deviceId": device.role.device_id}
        answer = self.scenario.ctl("inject-message", body)
        if name is None:
            return
        assert answer["kind"] == "query", f"the server did not take {command} as a query: {answer!r}"
        assert isinstance(answer.get("queryId"), str) and answer["queryId"], \
            f"the server says it sent device {device.name!r} no query.request for {command} (queryId " \
            f"{answer.get('queryId')!r}), although the device is online"
        self.names.asked[name] = answer
        self.names.kinds[name] = QUERY_COMMANDS[command]

    def pass_query_timeout(self, name: str) -> None:
        """The server's clock passes the query's ``expiresAt`` (``advance-clock``; without it: not testable)."""
        self.channel.advance_to(self._row(name)["expiresAt"])

    # -- When: the device ----------------------------------------------------------------------------------------

    def answer_query(self, dev: str, name: str) -> None:
        """``query.response {queryId, kind, ok: true, <its list>}`` (the list distinctive for ``name``)."""
        kind = self._kind_received(name)
        wire = query_answer(name, kind)
        self.scenario.device(dev).role.query_response(self.query_id(name), kind, True, None, **_typed(kind, wire))
        self.names.sent[name] = wire
        self.scenario.barrier()

    def answer_query_error(self, dev: str, name: str, error: str) -> None:
        """``query.response {ok: false, error}`` ("ok=false 时 error 非空")."""
        self.scenario.device(dev).role.query_response(self.query_id(name), self._kind_received(name), False, error)
        self.scenario.barrier()

    def answer_unknown_query(self, dev: str) -> None:
        """A valid ``query.response`` naming a queryId the server never asked."""
        self.scenario.device(dev).role.query_response(f"sim-never-asked-{uuid.uuid4()}", QueryKind.WORKSPACES.value,
                                                      True, None, workspaces=("chat",))
        self.scenario.barrier()

    def answer_query_malformed(self, dev: str, name: str, case: str) -> None:
        """A ``query.response`` for the query that the core refuses (``MALFORMED_ANSWERS``)."""
        if case not in MALFORMED_ANSWERS:
            raise ValueError(f"unknown malformed answer {case!r}: one of {sorted(MALFORMED_ANSWERS)}")
        kind = self._kind_received(name)
        needs = MALFORMED_ANSWERS[case]
        if needs is not None and kind != needs:
            raise ValueError(f"the malformed answer {case!r} answers a {needs} query, {name!r} is {kind}")
        qid, role = self.query_id(name), self.scenario.device(dev).role
        if case == "ok false without an error":
            role.query_response(qid, kind, False, None, validate=False)
        elif case == "ok true without its list":
            role.query_response(qid, kind, True, None, validate=False)
        else:
            n = MAX_QUERY_SESSIONS + 1 if case == "21 sessions" else 1
            workspace = "/Users/conformance/src/private-repo" if n == 1 else "chat"
            sessions = tuple(QuerySessionEntry(f"{name}-s{i}", f"Session {i}", workspace, _LAST_ACTIVE)
                             for i in range(n))
            role.query_response(qid, kind, True, None, sessions=sessions, validate=False)
        self.scenario.barrier()

    # -- Then ------------------------------------------------------------------------------------------------------

    def receive_query(self, dev: str, name: str, kind: str) -> None:
        """The device receives ``query.request`` with the queryId the server named for ``name`` ("queryId(server
        生成 …)") and the ``kind`` the command asks for (§1 "/bind /model /effort 指令实时拉取工作区 / 模型清单")."""
        qid = self.query_id(name)
        payload = self.scenario.device(dev).role.expect_payload(MessageType.QUERY_REQUEST,
                                                                where=lambda p: p.query_id == qid,
                                                                what=f"queryId {qid}")
        assert payload.kind == kind, f"the query.request of {name!r} asks for {payload.kind!r}, expected {kind!r}"
        self.names.received[name] = payload

    def expect_distinct_query_ids(self, first: str, second: str) -> None:
        """Two queries in flight carry distinct queryIds ("响应回传配对" needs a key per query)."""
        a, b = self.query_id(first), self.query_id(second)
        assert a != b, f"the queries {first!r} and {second!r} share the queryId {a!r}: answers cannot be paired"

    def expect_no_query(self, dev: str, kind: str) -> None:
        """No ``query.request`` of ``kind`` reaches the device (since its connection opened, and in the quiet window,
        the connection alive); an invalid one cannot be shown to ask something else, so it counts too."""
        self.scenario.none_arrives(self.scenario.device(dev).role, lambda e: e.type == MessageType.QUERY_REQUEST
                                   and (not e.ok or e.payload.kind == kind))

    def expect_query_answered(self, name: str) -> None:
        """The channel shows the query answered with exactly what the device sent (the list of its kind, "ok 时按
        kind 携带 workspaces、agents 或 sessions")."""
        if name not in self.names.sent:
            raise AssertionError(f"the device never answered the query {name!r} in this scenario")
        want = self.names.sent[name]

        def check() -> None:
            row = self._row(name)
            assert row["state"] == "answered", f"the query {name!r} is {row['state']!r}, expected answered"
            assert row["answer"] == want, f"the query {name!r} shows the answer {row['answer']!r}, the device sent " \
                                          f"{want!r}"

        self.scenario.eventually(check)

    def expect_query_failed(self, name: str, error: str) -> None:
        """An ``ok: false`` answer ends the query failed with its error; no answer is shown."""
        def check() -> None:
            row = self._row(name)
            assert row["state"] == "failed", f"the query {name!r} is {row['state']!r}, expected failed"
            assert row["error"] == error, f"the query {name!r} shows the error {row['error']!r}, sent {error!r}"
            assert row["answer"] is None, f"the failed query {name!r} shows an answer: {row['answer']!r}"

        self.scenario.eventually(check)

    def expect_query_timed_out(self, name: str) -> None:
        """"server 自行超时": the query ended timed-out, with no answer."""
        def check() -> None:
            row = self._row(name)
            assert row["state"] == "timed-out", f"the query {name!r} is {row['state']!r} after its expiry, " \
                                                f"expected timed-out"
            assert row["answer"] is None, f"the timed-out query {name!r} shows an answer: {row['answer']!r}"

        self.scenario.eventually(check)

    def expect_query_pending(self, name: str) -> None:
        """Once settled, the query is still pending with no answer: what came did not end it."""
        self.scenario.settle()
        row = self._row(name)
        assert row["state"] == "pending", f"the query {name!r} is {row['state']!r}, expected still pending"
        assert row["answer"] is None and row["error"] is None, f"the pending query {name!r} shows {row!r}"

    # -- helpers ---------------------------------------------------------------------------------------------------

    def _kind_received(self, name: str) -> str:
        if name not in self.names.received:
            raise AssertionError(f"the device never received the query {name!r}")
        kind: str = self.names.received[name].kind
        return kind

    def _row(self, name: str) -> Row:
        """The server's ``list-queries`` row of the query ``name``; none is a failure."""
        qid = self.query_id(name)
        rows = self.scenario.rows("list-queries", {"queryId": qid}, keep=lambda r: r["queryId"] == qid)
        assert rows, f"the server lists no query {qid} ({name!r}) although it says it sent it"
        assert len(rows) == 1, f"the server lists {len(rows)} queries {qid}: {rows!r}"[:600]
        return rows[0]
