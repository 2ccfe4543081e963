"""Live queries of the reference hook server (spec §5 阶段 6 实时问答; docs/control-api.md "Queries, gateway tools,
group relay and message operations (hook-server)").

Spec: §1 "问答:query.request / query.response —— /bind /model /effort 指令实时拉取工作区 / 模型清单"; §1 "最近会话:
query.kind=sessions —— Telegram /session 仅拉取最多 20 条脱敏会话摘要"; §5 阶段 6 query.request "queryId(server 生成,
响应回传配对,server 自行超时)"; §2 "只有 hello 与 welcome 同时包含 … session-picker-v1 时才可使用对应新增帧".

Theory of operation. A channel command (``COMMANDS``) asks the lane's device for a list: the ``QueryBook`` opens a
``Query`` (pending, with ``expires_at`` = asked + ``QUERY_TIMEOUT_MS``). It ends exactly once, by the state table
``QUERY_TRANSITIONS``: a valid answer from the device it was sent to, with its ``queryId`` and ``kind`` (``ok`` →
answered with the list as received, ``ok: false`` → failed with its error), or the server's own timeout. An answer for
a query that is unknown, ended, another device's or of another kind is refused (``None``: the machine drops the frame,
reason ``unknown-query``) and changes nothing ("迟到" answers are ignored). Sans-I/O: the clock and ids are arguments;
queries are kept in memory only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from ...hook import QueryKind

__all__ = [
    "COMMANDS", "QUERY_TIMEOUT_MS", "QUERY_TRANSITIONS", "ANSWER_KEYS", "Query", "QueryBook", "QueryEvent",
    "QueryState", "query_step",
]

#: The channel commands that ask a device for a list (§1 "/bind /model /effort 指令实时拉取工作区 / 模型清单"; "Telegram
#: /session 仅拉取 … 会话摘要"; the reference takes /session from any provider).
COMMANDS: Final[Mapping[str, QueryKind]] = {
    "/bind": QueryKind.WORKSPACES, "/model": QueryKind.MODELS, "/effort": QueryKind.MODELS,
    "/session": QueryKind.SESSIONS,
}
#: "server 自行超时": the reference's timeout (not the spec's: it sets no value).
QUERY_TIMEOUT_MS: Final = 10_000
#: kind → the list an ok answer carries (§5 阶段 6 "ok 时按 kind 携带 workspaces、agents 或 sessions").
ANSWER_KEYS: Final[Mapping[QueryKind, str]] = {
    QueryKind.WORKSPACES: "workspaces", QueryKind.MODELS: "agents", QueryKind.SESSIONS: "sessions",
}


class QueryState(StrEnum):
    PENDING = "pending"
    ANSWERED = "answered"
    FAILED = "failed"
    TIMED_OUT = "timed-out"


class QueryEvent(StrEnum):
    ANSWER_OK = "answer-ok"        # query.response ok: true
    ANSWER_ERROR = "answer-error"  # query.response ok: false
    TIMEOUT = "timeout"            # no answer by expiresAt


#: state × event → next state; a pair not in the table does not apply (an ended query takes nothing more).
QUERY_TRANSITIONS: Final[dict[tuple[QueryState, QueryEvent], QueryState]] = {
    (QueryState.PENDING, QueryEvent.ANSWER_OK): QueryState.ANSWERED,
    (QueryState.PENDING, QueryEvent.ANSWER_ERROR): QueryState.FAILED,
    (QueryState.PENDING, QueryEvent.TIMEOUT): QueryState.TIMED_OUT,
}


def query_step(state: QueryState, event: QueryEvent) -> QueryState | None:
    """The next state, or None when ``event`` does not apply in ``state``."""
    return QUERY_TRANSITIONS.get((state, event))


def _well_formed(value: Any) -> Any:
    """A peer's JSON value as the control API can show it: every string well-formed Unicode (a lone surrogate, which
    JSON escapes allow and the core's parse takes, becomes "?")."""
    if isinstance(value, str):
        return value if value.isascii() else value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, list):
        return [_well_formed(v) for v in value]
    if isinstance(value, dict):
        return {_well_formed(k): _well_formed(v) for k, v in value.items()}
    return value


@dataclass(slots=True)
class Query:
    query_id: str
    device_id: str
    kind: QueryKind
    provider: str
    chat_id: str
    thread_id: str | None
    asked_at: int
    expires_at: int
    state: QueryState = QueryState.PENDING
    #: what the channel shows the user: ``{<the kind's key>: [the list as received]}`` (answered only)
    answer: dict[str, Any] | None = None
    error: str | None = None

    def public(self) -> dict[str, Any]:
        return {"queryId": self.query_id, "deviceId": self.device_id, "kind": self.kind.value,
                "provider": self.provider, "chatId": self.chat_id, "threadId": self.thread_id,
                "state": self.state.value, "askedAt": self.asked_at, "expiresAt": self.expires_at,
                "answer": self.answer, "error": self.error}


@dataclass(slots=True)
class QueryBook:
    timeout_ms: int = QUERY_TIMEOUT_MS
    queries: dict[str, Query] = field(default_factory=dict)  # insertion order = creation order

    def ask(self, device_id: str, kind: QueryKind, lane: tuple[str, str, str | None], now: int,
            ids: Callable[[], str]) -> Query:
        """A new pending query with a fresh queryId (§5 "queryId(server 生成 …)")."""
        provider, chat_id, thread_id = lane
        q = Query(ids(), device_id, QueryKind(kind), provider, chat_id, thread_id, now, now + self.timeout_ms)
        self.queries[q.query_id] = q
        return q

    def pending_for(self, query_id: str, device_id: str | None, kind: str, now: int) -> Query | None:
        """The query an answer pairs with ("响应回传配对"): pending, sent to that device, of that kind, not past its
        expiry. None: the answer is for no such query and changes nothing."""
        q = self.queries.get(query_id)
        if q is None or q.state is not QueryState.PENDING or q.device_id != device_id or q.kind != kind:
            return None
        if now >= q.expires_at:
            return None
        return q

    def answer(self, q: Query, ok: bool, wire: Mapping[str, Any]) -> bool:
        """End ``q`` with a valid answer (``wire``: the query.response payload as received)."""
        event = QueryEvent.ANSWER_OK if ok else QueryEvent.ANSWER_ERROR
        nxt = query_step(q.state, event)
        if nxt is None:
            return False
        q.state = nxt
        if ok:
            key = ANSWER_KEYS[q.kind]
            q.answer = {key: _well_formed(list(wire.get(key, [])))}
        else:
            error = wire.get("error")
            q.error = _well_formed(error) if isinstance(error, str) else None
        return True

    def expire(self, query_id: str, now: int) -> Query | None:
        """The server's own timeout ("server 自行超时"): a query still pending at its expiry ends timed-out."""
        q = self.queries.get(query_id)
        if q is None or now < q.expires_at:
            return None
        nxt = query_step(q.state, QueryEvent.TIMEOUT)
        if nxt is None:
            return None
        q.state = nxt
        return q

    def expire_due(self, now: int) -> list[Query]:
        return [q for qid in list(self.queries) if (q := self.expire(qid, now)) is not None]

    def listing(self, query_id: str | None = None) -> list[dict[str, Any]]:
        return [q.public() for q in self.queries.values() if query_id is None or q.query_id == query_id]
