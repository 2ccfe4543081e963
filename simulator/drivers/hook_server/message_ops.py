"""Message operations, judged from the desktop side (UPSTREAM-FACTS.md "msg.op / msg.op.result (feature msg-op-v1:
server-resolved message operations send/edit/delete/react/typing/media scoped by externalKey) … support them as an
optional family"; §3 "新端在能力缺席时不会发送它们"; §2 parseHookMessage), with the bot's posts read through the
control API (docs/control-api.md "Queries, gateway tools, group relay and message operations (hook-server)":
``list-posts``, every row checked against docs/control-api.schema.json ``$defs/post``).

Names: a *lane task* ("t") is a task the server dispatched to a device in a Telegram chat thread; its externalKey is the
scope of the ops the feature runs "in the lane of" it. An *op* ("s1") gets a fresh opId; its msg.op.result is
remembered, and ``"@s1"`` in a later action stands for the messageId that result named. Every msg.op.result a device
receives is parsed by the core: an invalid one fails the step that meets it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any, Final

from ...hook import MessageType
from .control_answers import Row
from .scenario import HookServerScenario
from .tasks import TaskChecks

__all__ = ["MALFORMED_OPS", "MessageOps", "OpsState", "UNKNOWN_LANE_PREFIX"]

#: An externalKey no task was dispatched with (the server's own keys are opaque: spec §2 "externalKey 不透明").
UNKNOWN_LANE_PREFIX: Final = "telegram:sim-unknown-lane-"
#: msg.op frames the core refuses (UPSTREAM-FACTS: "Extra keys are rejected in: … msg.op scope (no chatId/threadId)";
#: the action kinds send/edit/delete/react/typing/media; edit needs messageId; media a non-empty list of items):
#: case → (the action, whether the scope carries the lane's chatId).
MALFORMED_OPS: Final[dict[str, tuple[dict[str, Any], bool]]] = {
    "a scope carrying chatId": ({"kind": "send", "text": "sim-malformed-scope"}, True),
    "an unknown action kind": ({"kind": "shout", "text": "sim-malformed-kind"}, False),
    "an edit without messageId": ({"kind": "edit", "text": "sim-malformed-edit"}, False),
    "a media action without items": ({"kind": "media", "items": []}, False),
}


@dataclass
class OpsState:
    #: lane task name → (chatId, threadId)
    lanes: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: op name → its opId, the device that ran it
    ops: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: op name → its msg.op.result payload
    results: dict[str, Any] = field(default_factory=dict)
    #: op name → the text its action carried (a post of it shows that text)
    texts: dict[str, str] = field(default_factory=dict)


@dataclass(eq=False)
class MessageOps:
    """Message operations (UPSTREAM-FACTS msg.op / msg.op.result), over the scenario (``scenario``) and the tasks
    a device receives (``tasks``)."""

    scenario: HookServerScenario
    tasks: TaskChecks

    #: The scenario's lanes, ops and their results.
    ops: OpsState = field(default_factory=OpsState)

    def _op(self, name: str) -> tuple[str, str]:
        if name not in self.ops.ops:
            raise AssertionError(f"no message op named {name!r} in this scenario")
        return self.ops.ops[name]

    def _result(self, name: str) -> Any:
        if name not in self.ops.results:
            raise AssertionError(f"the message op {name!r} got no msg.op.result in this scenario (expect it first)")
        return self.ops.results[name]

    def _resolve(self, action: dict[str, Any]) -> dict[str, Any]:
        """``"@<op>"`` values stand for the messageId of that op's result."""
        out = {}
        for k, v in action.items():
            if isinstance(v, str) and v.startswith("@"):
                mid = self._result(v[1:]).message_id
                assert isinstance(mid, str) and mid, f"the result of {v[1:]!r} named no messageId: {mid!r}"
                v = mid
            out[k] = v
        return out

    # -- Given / When ----------------------------------------------------------------------------------------------

    def lane_task(self, dev: str, name: str, chat: str, thread: str) -> None:
        """A user writes in a thread of a Telegram chat; the server must take it as a task of the device and dispatch
        it there (its externalKey is the scope of the lane's ops)."""
        self.scenario.providers[chat] = "telegram"
        thread_id = f"sim-thread-{thread}-{uuid.uuid4().hex[:8]}"
        body = {"provider": "telegram", "chatId": self.scenario.chat(chat), "threadId": thread_id,
                "userId": f"sim-user-{uuid.uuid4().hex[:12]}", "userName": "Conformance User",
                "text": f"sim-lane-task-{uuid.uuid4().hex}", "deviceId": self.scenario.device(dev).role.device_id}
        answer = self.scenario.ctl("inject-message", body)
        assert answer.get("kind") == "task", f"the server did not take the message as a task: {answer!r}"
        self.scenario.request_ids[name], self.scenario.task_chat[name] = answer["requestId"], chat
        self.ops.lanes[name] = (self.scenario.chat(chat), thread_id)
        self.tasks.receive_task(dev, name)

    def _scope_key(self, lane: str | None) -> str:
        if lane is None:
            return f"{UNKNOWN_LANE_PREFIX}{uuid.uuid4().hex}:-:1"
        external_key: str = self.scenario.dispatch(lane).external_key
        return external_key

    def run_op(self, dev: str, name: str, lane: str | None, action: dict[str, Any]) -> None:
        """The device sends the valid ``msg.op`` ``name`` scoped by the externalKey of the lane task ``lane`` (None:
        an externalKey no task was dispatched with). Nothing is waited for but the barrier."""
        op_id = f"sim-op-{uuid.uuid4()}"
        self.ops.ops[name] = (op_id, dev)
        if isinstance(action.get("text"), str):
            self.ops.texts[name] = action["text"]
        self.scenario.device(dev).role.msg_op(op_id, self._scope_key(lane), self._resolve(action))
        self.scenario.barrier()

    def run_malformed_op(self, dev: str, name: str, lane: str, case: str) -> None:
        """The device sends a ``msg.op`` the core refuses (``MALFORMED_OPS[case]``), scoped by the lane's externalKey,
        then the barrier."""
        if case not in MALFORMED_OPS:
            raise ValueError(f"unknown malformed msg.op case {case!r}: one of {sorted(MALFORMED_OPS)}")
        action, with_chat = MALFORMED_OPS[case]
        op_id = f"sim-op-{uuid.uuid4()}"
        self.ops.ops[name] = (op_id, dev)
        self.ops.texts[name] = action.get("text", "")
        extra = {"chatId": self.ops.lanes[lane][0]} if with_chat else None
        self.scenario.device(dev).role.msg_op(op_id, self._scope_key(lane), action, scope_extra=extra, validate=False)
        self.scenario.barrier()

    # -- Then: results ---------------------------------------------------------------------------------------------

    def expect_op_result(self, name: str, ok: bool, *, message_id: bool = False, message_ids: int | None = None) -> None:
        """UPSTREAM-FACTS msg.op / msg.op.result: the device that ran ``name`` gets one msg.op.result carrying its opId,
        with ``ok``; ``message_id``: a non-empty messageId; ``message_ids``: that many distinct messageIds."""
        op_id, dev = self._op(name)
        entry = self.scenario.device(dev).role.expect(lambda e: e.type == MessageType.MSG_OP_RESULT.value
                                                      and (not e.ok or e.payload.op_id == op_id))
        assert entry.ok, f"the server's msg.op.result is invalid: {entry.issue}"
        p = entry.payload
        self.ops.results[name] = p
        assert p.ok is ok, f"msg.op {name!r} was answered ok {p.ok!r}, expected {ok!r}: {entry.text[:300]}"
        if message_id:
            assert isinstance(p.message_id, str) and p.message_id, \
                f"msg.op {name!r} was answered without a messageId: {entry.text[:300]}"
        if message_ids is not None:
            ids = list(p.message_ids) if isinstance(p.message_ids, tuple) else []
            assert len(ids) == message_ids and len(set(ids)) == message_ids, \
                f"msg.op {name!r} was answered with messageIds {ids!r}, expected {message_ids} distinct ids"

    def expect_no_op_result(self, name: str) -> None:
        """No msg.op.result for ``name`` arrives (quiet window, the connection alive), and none arrived before."""
        op_id, dev = self._op(name)
        role = self.scenario.device(dev).role

        def about(e: Any) -> bool:
            return e.type == MessageType.MSG_OP_RESULT.value and (not e.ok or e.payload.op_id == op_id)

        self.scenario.none_arrives(role, about)
        sent = [e.text for conn in role.connections for e in conn.received if about(e)]
        assert not sent, f"the server answered the msg.op {name!r}: {sent!r}"[:600]

    # -- Then: posts -----------------------------------------------------------------------------------------------

    def posts(self, keep: Any = lambda row: True) -> list[Row]:
        """The ``list-posts`` rows ``keep`` selects (checked against ``$defs/post``)."""
        self.scenario.answers.require("list-posts")
        return self.scenario.rows("list-posts", {}, keep=keep)

    def post_of(self, name: str, index: int = 0) -> Row:
        """The post the op ``name`` created (its result's messageId, or the index-th of its messageIds)."""
        p = self._result(name)
        ids = list(p.message_ids) if isinstance(p.message_ids, tuple) and p.message_ids else [p.message_id]
        mid = ids[index]
        rows = self.posts(lambda r: r["messageId"] == mid)
        assert len(rows) == 1, f"list-posts lists {len(rows)} posts with the messageId {mid!r} of {name!r}: {rows!r}"
        return rows[0]

    def expect_post_in_lane(self, name: str, lane: str, text: str) -> None:
        """The op's post is listed in the lane task's chat and thread (the server resolved the scope), with ``text``."""
        chat_id, thread_id = self.ops.lanes[lane]
        row = self.post_of(name)
        where = (row["provider"], row["chatId"], row["threadId"])
        assert where == ("telegram", chat_id, thread_id), \
            f"the post of {name!r} is in {where!r}, the lane of {lane!r} is {('telegram', chat_id, thread_id)!r}"
        assert row["text"] == text and not row["deleted"], f"the post of {name!r}: {row!r}"

    def expect_post(self, name: str, *, text: str | None = None, edits: int | None = None,
                    reactions: list[str] | None = None, deleted: bool | None = None) -> None:
        """The op's post shows what the ops that followed did to it."""
        row = self.post_of(name)
        want = {"text": text, "edits": edits, "reactions": reactions, "deleted": deleted}
        wrong = {k: (row[k], v) for k, v in want.items() if v is not None and row[k] != v}
        assert not wrong, f"the post of {name!r} (field: (listed, expected)): {wrong!r}"

    def expect_media_posts(self, name: str, names: list[str]) -> None:
        """One post per media item, in order, each holding that item's name (never its data)."""
        got = [self.post_of(name, i)["media"] for i in range(len(names))]
        assert got == [[n] for n in names], f"the posts of {name!r} hold the media {got!r}, expected {names!r}"

    def expect_no_post(self, name: str) -> None:
        """The op posted nothing: no listed post carries its opId or the text its action carried."""
        op_id, _dev = self._op(name)
        text = self.ops.texts.get(name)
        self.scenario.settle()
        rows = self.posts(lambda r: r["opId"] == op_id or (bool(text) and r["text"] == text))
        assert not rows, f"the refused or dropped msg.op {name!r} posted: {rows!r}"[:600]
