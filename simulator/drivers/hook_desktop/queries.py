"""Live queries of a desktop under test (slack-hook-protocol.md §5 阶段 6 query.request / query.response, §2
workspace 是别名 / provider 能力必须双向协商 (session-picker-v1), §1 最近会话; docs/control-api.md "Queries, gateway
tools, group relay and message operations (desktop)").

The harness plays the server: it sends ``query.request`` (a fresh queryId per query the feature names) and judges the
``query.response`` the desktop sends back, read from the wire (the core's check runs on every received frame: an
invalid answer fails the step with its issue). What a valid answer must say on top is judged here against what the
desktop itself declared: the aliases and agent kinds of its latest hello (read from the frames it sent on the current
connection, never from a list the harness keeps), the sessions the desktop acked in this scenario. A "no session list"
check holds on a live connection only: the answer, when one comes, is judged; silence is judged after a ping barrier.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ...errors import MissingFrame, NotApplicable, NotTestable
from ...hook import (
    ABSENT,
    HOOK_FEATURE_SESSION_PICKER,
    MAX_QUERY_SESSIONS,
    QUERY_KINDS,
    MessageType,
)
from ...roles.hook_conn import Inbound, described
from .session import DesktopSession

__all__ = ["QueryChecks", "QueryScenario"]


@dataclass
class QueryScenario:
    """What the queries of one scenario left behind: query name → (queryId, kind), the answers read, the tasks that
    made sessions (in the order they ran) and the private marker of their prompts."""

    asked: dict[str, tuple[str, str]] = field(default_factory=dict)
    answers: dict[str, Any] = field(default_factory=dict)
    session_tasks: list[str] = field(default_factory=list)
    marker: str = field(default_factory=lambda: f"private-note-{uuid.uuid4().hex[:12]}")


@dataclass(eq=False)
class QueryChecks:
    """The query operations of a desktop scenario."""

    session: DesktopSession

    #: What the scenario's queries left behind.
    names: QueryScenario = field(default_factory=QueryScenario)

    # -- preconditions -----------------------------------------------------------------------------------------------

    def require_desktop_session_picker(self) -> None:
        """Not applicable unless the desktop declares session-picker-v1 in its own hello (§2: "只有 hello 与 welcome
        同时包含 … session-picker-v1 时才可使用对应新增帧"; this requirement concerns a desktop that offers the picker)."""
        if HOOK_FEATURE_SESSION_PICKER not in self.session.server.desktop_features:
            raise NotApplicable(f"the desktop does not declare {HOOK_FEATURE_SESSION_PICKER} in hello.features")

    def latest_hello(self) -> Any:
        """The latest valid hello the desktop sent on the current connection (§5 阶段 1 "server 以最新一帧为准")."""
        hellos = [e for e in self.session.server.connection.received if e.type == MessageType.HELLO and e.ok]
        assert hellos, "the desktop sent no valid hello on this connection"
        return hellos[-1].payload

    # -- the harness as the server -----------------------------------------------------------------------------------

    def ask(self, name: str, kind: str) -> str:
        """§5 阶段 6 query.request of ``kind`` with a fresh queryId ("queryId(server 生成,响应回传配对…)")."""
        assert kind in QUERY_KINDS, f"unknown query kind {kind!r} in the feature"
        query_id = str(uuid.uuid4())
        self.names.asked[name] = (query_id, kind)
        self.session.server.query(kind, query_id)
        return query_id

    def dispatch_session_tasks(self, count: int) -> None:
        """``count`` tasks, each in a thread of its own (a fresh externalKey: a new session each), one after the other:
        each is acked and ended before the next is dispatched, so the order in which the sessions were last active is
        the order of dispatch. Each prompt (and ``source.userText``) carries the scenario's private marker, the user's
        text that a redacted session summary must not show."""
        assert count >= 1, "the feature dispatches no task"
        start = len(self.names.session_tasks)
        for i in range(start + 1, start + count + 1):
            name = f"session-task-{i}"
            self.session.key_names[name] = name
            text = f"Summarise {self.names.marker} for me (task {i})."
            self.session.server.dispatch(self.session.rid(name), self.session.key(name), "chat", prompt=text,
                                         source={"im": self.session.lane_provider(), "userText": text})
            ack = self.session.ack(name)
            if not (ack.result == "accepted" and ack.session_id):
                raise NotTestable(f"the desktop did not accept task {i} of {count} into a session, so there are not "
                                  f"the sessions the query needs: task.ack {ack.result!r} ({ack.reason!r})")
            self.session.end_entry(name)
            self.names.session_tasks.append(name)

    # -- reading the answers -----------------------------------------------------------------------------------------

    def _answer_match(self, name: str) -> Callable[[Inbound], bool]:
        query_id = self.names.asked[name][0] if name in self.names.asked else None
        assert query_id is not None, f"the harness asked no query {name!r} before this step"

        def match(e: Inbound) -> bool:
            return e.type == MessageType.QUERY_RESPONSE and e.query_id == query_id
        return described(match, f"a query.response to {name!r} ({query_id})")

    def answer(self, name: str) -> Any:
        """The desktop's query.response to query ``name`` (its queryId echoed, §5 阶段 6 "响应回传配对"), awaited up to
        the step limit; an invalid one fails with the core's issue."""
        if name in self.names.answers:
            return self.names.answers[name]
        try:
            entry = self.session.server.expect(self._answer_match(name))
        except MissingFrame as missing:
            # 阶段 6 "queryId(server 生成,响应回传配对,server 自行超时)": the server times out on its own, so an
            # unanswered query is allowed and leaves nothing to judge
            raise NotTestable(f"the desktop did not answer query {name!r} (allowed: \"server 自行超时\"), so there is "
                              f"no answer to judge: {missing}") from None
        assert entry.ok, f"the desktop's query.response to {name!r} is invalid: {entry.issue}"
        _, kind = self.names.asked[name]
        assert entry.payload.kind == kind, (
            f"the desktop answered the {kind} query {name!r} with a query.response of kind {entry.payload.kind!r}")
        self.names.answers[name] = entry.payload
        return entry.payload

    def _ok_answer(self, name: str) -> Any:
        """The answer to ``name`` when it is ok; an ok:false answer is allowed (阶段 6 "ok=false 时 error 非空") and
        carries no list to judge: not testable."""
        answer = self.answer(name)
        if answer.ok is not True:
            raise NotTestable(f"the desktop answered query {name!r} ok:false ({answer.error!r}), which the spec "
                              f"allows: there is no list to judge")
        return answer

    # -- judgements ------------------------------------------------------------------------------------------------

    def check_workspaces_answer(self, name: str) -> None:
        """§5 阶段 6 "ok 时按 kind 携带 workspaces" + §2 "workspace 是别名 … server 只能派发 hello 注册过的别名": the
        answer lists aliases of the desktop's latest hello, each once, and at least one (which of them is the
        desktop's choice)."""
        listed = list(self._ok_answer(name).workspaces)
        aliases = list(self.latest_hello().workspaces)
        assert listed, "the workspaces answer is ok but lists no workspace: there is nothing to judge"
        assert len(set(listed)) == len(listed), f"the workspaces answer lists an alias twice: {listed!r}"
        unregistered = [w for w in listed if w not in aliases]
        assert not unregistered, (
            f"the workspaces answer lists {unregistered!r}, not among the aliases of the desktop's latest hello "
            f"{aliases!r}: the server can dispatch only registered aliases")

    def check_models_answer(self, name: str) -> None:
        """§5 阶段 6 "ok 时按 kind 携带 … agents" (the /model /effort list) for the agents of hello ("agents(可用 agent
        类型)"): at least one entry, at most one per agent kind, and none for a kind hello does not offer."""
        agents = self._ok_answer(name).agents
        assert agents is not ABSENT, "the models answer carries no agents"
        kinds = [a.agent_kind for a in agents]
        offered = list(self.latest_hello().agents)
        assert kinds, "the models answer is ok but lists no agent kind: there is nothing to judge"
        assert len(set(kinds)) == len(kinds), f"the models answer lists an agent kind twice: {kinds!r}"
        foreign = [k for k in kinds if k not in offered]
        assert not foreign, (
            f"the models answer lists the agent kinds {foreign!r}, which the desktop's hello does not offer "
            f"({offered!r})")

    def _sessions(self, name: str) -> Sequence[Any]:
        answer = self._ok_answer(name)
        assert answer.sessions is not ABSENT, f"the sessions answer to {name!r} carries no sessions"
        sessions: Sequence[Any] = answer.sessions
        return sessions

    def check_sessions_answer(self, name: str) -> None:
        """§5 阶段 6 "sessions 最多 20 条 {id,title,workspace,lastActiveAt},workspace 只能是别名": with more than 20 sessions
        at the desktop, the answer lists some and at most 20, ids unique, each workspace an alias of the latest hello,
        each lastActiveAt a positive integer (unix ms)."""
        made = len(self.names.session_tasks)
        assert made > MAX_QUERY_SESSIONS, f"the scenario made {made} sessions: more than {MAX_QUERY_SESSIONS} needed"
        sessions = self._sessions(name)
        assert sessions, f"the desktop holds {made} sessions of this scenario, its answer lists none"
        assert len(sessions) <= MAX_QUERY_SESSIONS, f"the sessions answer lists {len(sessions)} sessions"
        ids = [s.id for s in sessions]
        assert len(set(ids)) == len(ids), f"the sessions answer lists a session id twice: {ids!r}"
        aliases = set(self.latest_hello().workspaces)
        bad = [s.workspace for s in sessions if s.workspace not in aliases]
        assert not bad, f"session workspaces {bad!r} are not aliases of the desktop's hello {sorted(aliases)!r}"
        times = [s.last_active_at for s in sessions]
        assert all(isinstance(t, int) and not isinstance(t, bool) and t > 0 for t in times), (
            f"lastActiveAt values {times!r} are not all positive integers")

    def check_sessions_most_recent(self, name: str) -> None:
        """§1 "最近会话:query.kind=sessions —— Telegram /session 仅拉取最多 20 条脱敏会话摘要": the sessions listed are the
        most recently active ones: the N listed are the sessions of the last N tasks this scenario ran (one after the
        other), whatever N (at most 20)."""
        sessions = self._sessions(name)
        assert sessions, "the sessions answer lists no session: there is nothing to judge"
        order = [self.session.first_ack(t).session_id for t in self.names.session_tasks]
        latest = order[-len(sessions):]
        listed = [s.id for s in sessions]
        older = [sid for sid in listed if sid not in latest]
        assert not older, (
            f"the sessions answer lists {len(listed)} sessions, {len(older)} of them not among the {len(listed)} most "
            f"recently active of this scenario (e.g. {older[0]!r}, the session of task "
            f"{order.index(older[0]) + 1 if older[0] in order else '?'} of {len(order)})")

    def check_sessions_redacted(self, name: str) -> None:
        """§1 "仅拉取最多 20 条脱敏会话摘要": no title shows what the user wrote (the scenario's private marker, which every
        prompt and source.userText carried)."""
        sessions = self._sessions(name)
        assert sessions, "the sessions answer lists no session: there is nothing to judge"
        marker = self.names.marker
        leaked = [s.title for s in sessions if marker in s.title]
        assert not leaked, f"{len(leaked)} session title(s) show the user's prompt text: {leaked[0][:200]!r}"

    def check_no_session_list(self, name: str) -> None:
        """§2 "只有 hello 与 welcome 同时包含 … session-picker-v1 时才可使用对应新增帧": without it in welcome the sessions
        query discloses nothing. An answer, when one comes, lists no session; silence holds only on a
        live connection, after a ping answered with a pong (the desktop has read the query by then)."""
        match = self._answer_match(name)
        try:
            entry = self.session.server.expect(match, self.session.timer)
        except MissingFrame:
            self.session.barrier()
            late = [e for e in self.session.server.pending() if match(e)]
            if not late:
                self.session.note(f"no answer to the sessions query {name!r}: nothing disclosed", "query unanswered")
                return
            entry = late[0]
        assert entry.ok, f"the desktop's query.response to {name!r} is invalid: {entry.issue}"
        p = entry.payload
        listed = [] if p.sessions is ABSENT else list(p.sessions)
        assert not listed, (
            f"without {HOOK_FEATURE_SESSION_PICKER} in welcome the desktop answered the sessions query ok:{p.ok} "
            f"listing {len(listed)} session(s)")

    def check_each_answered_once(self, names: Sequence[str]) -> None:
        """§5 阶段 6 "queryId(server 生成,响应回传配对,server 自行超时)": no query in flight is answered more than once
        (after a ping barrier no second answer to any of them is waiting), each answer with its queryId and kind; one
        left unanswered (allowed) makes the check not testable once no duplicate was seen."""
        assert len(names) >= 2, "the feature names fewer than two queries in flight"
        unanswered: list[str] = []
        for name in names:
            try:
                self.answer(name)
            except NotTestable:
                unanswered.append(name)
        self.session.barrier()
        again = [n for n in names if any(self._answer_match(n)(e) for e in self.session.server.pending())]
        assert not again, f"the desktop answered {again!r} more than once" + (
            f" and {unanswered!r} never: answers that do not echo their own query's queryId" if unanswered else "")
        if unanswered:
            raise NotTestable(f"the desktop did not answer {unanswered!r} (allowed: \"server 自行超时\"), so not every "
                              f"query in flight has an answer to judge")
