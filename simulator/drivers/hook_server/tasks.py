"""The tasks a device receives, judged (spec §2 task.dispatch: workspace, sessionId, externalKey, source; §4
可靠性语义: redelivery; §5 阶段 2/4/7/9 task.cancel, 阶段 8 session.archive). Every received frame was parsed by the
core (``parse_hook_message``): an invalid dispatch failed there with the core's issue, so what is judged here is
what the scenario expects of a valid one."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...hook import ABSENT, MessageType
from .channel import ChannelOps
from .scenario import HookServerScenario

__all__ = ["REDELIVERY_SAME", "TaskChecks"]

#: What a redelivered task.dispatch repeats unchanged: the same task (§4 可靠性语义 "requestId 幂等:任务重投不重跑" and
#: "断线重连:server 重投未 ack 的任务" — a redelivery is the task again, not a new one). The spec lists no fields; these
#: are the fields that make up the task (the envelope's id and ts are the frame's, not the task's).
REDELIVERY_SAME = ("requestId", "externalKey", "workspace", "sessionId", "prompt", "options", "attachments")


def redelivery_changes(first: Any, again: Any) -> dict[str, tuple[Any, Any]]:
    """The ``REDELIVERY_SAME`` fields in which two task.dispatch payloads differ: field → (first, again)."""
    a, b = first.to_wire(), again.to_wire()
    return {k: (a.get(k), b.get(k)) for k in REDELIVERY_SAME if a.get(k) != b.get(k)}


@dataclass(eq=False)
class TaskChecks:
    """The tasks a device receives, judged (spec §2 task.dispatch, §4 redelivery, §5 task.cancel, session.archive),
    over the scenario (``scenario``) and the server's task listing (``channel``)."""

    scenario: HookServerScenario
    channel: ChannelOps

    def receive_task(self, dev: str, name: str) -> Any:
        """The next task.dispatch of ``name`` at the device, typed and remembered."""
        payload = self.scenario.device(dev).role.expect_dispatch(request_id=self.scenario.rid(name))
        self.scenario.dispatches.setdefault(name, []).append(payload)
        return payload

    def expect_task_for_workspace(self, dev: str, name: str, alias: str) -> None:
        payload = self.receive_task(dev, name)
        assert payload.workspace == alias, f"task.dispatch.workspace {payload.workspace!r}, expected {alias!r}"

    def expect_task_for_latest_hello(self, dev: str, name: str) -> None:
        """The task names a workspace alias of the device's latest hello."""
        payload = self.receive_task(dev, name)
        aliases = list(self.scenario.device(dev).hello.get("workspaces", []))
        assert payload.workspace in aliases, \
            f"task.dispatch.workspace {payload.workspace!r} is not an alias of the latest hello {aliases!r}"

    def expect_task_again(self, dev: str, name: str) -> None:
        """The device receives ``name`` again: the same requestId, and ``REDELIVERY_SAME`` unchanged (§4)."""
        first = self.scenario.dispatch(name)
        again = self.scenario.device(dev).role.expect_payload(MessageType.TASK_DISPATCH)
        assert again.request_id == first.request_id, \
            f"the task was dispatched again with requestId {again.request_id!r}, first {first.request_id!r}"
        self.scenario.dispatches[name].append(again)
        changed = redelivery_changes(first, again)
        assert not changed, f"the redelivered task.dispatch differs from the first one: {changed!r}"[:1200]

    def expect_no_dispatch(self, dev: str) -> None:
        self.scenario.none_arrives(self.scenario.device(dev).role, MessageType.TASK_DISPATCH)

    def expect_dispatch_count(self, name: str, n: int) -> None:
        """The server dispatched ``name`` ``n`` times, and no redelivery made another task of the same lane."""
        self.scenario.barrier()
        row = self.channel.task_row(name)
        assert row.get("dispatchCount") == n, f"dispatchCount {row.get('dispatchCount')!r}, expected {n}: {row!r}"
        others = self.scenario.rows("list-tasks", {}, keep=lambda t: t["externalKey"] == row["externalKey"]
                                    and t["requestId"] != row["requestId"])
        assert not others, f"the redelivery created another task for the same lane: {others!r}"[:600]

    def expect_no_session(self, name: str) -> None:
        """§2: in the normal flow the task carries sessionId null."""
        payload = self.scenario.dispatch(name)
        assert payload.session_id is None, f"task.dispatch.sessionId {payload.session_id!r} in the normal flow"

    def expect_workspace_without_session(self, name: str) -> None:
        """§2: a null sessionId needs a non-empty workspace alias. That linkage is the core's task.dispatch check (the
        dispatch was parsed by ``parse_hook_message`` when received, an invalid one failed there with the core's
        issue); this checks what the scenario expects: the dispatch has no sessionId."""
        payload = self.scenario.dispatch(name)
        assert payload.session_id is None, f"sessionId {payload.session_id!r}"

    def expect_takeover_session(self, name: str, session: str) -> None:
        payload = self.scenario.dispatch(name)
        want = self.scenario.sessions[session]
        assert payload.session_id == want, f"task.dispatch.sessionId {payload.session_id!r}, takeover of {want!r}"

    def expect_external_key_prefix(self, name: str, prefix: str) -> None:
        key = self.scenario.dispatch(name).external_key
        assert key.startswith(prefix) and len(key) > len(prefix), \
            f"task.dispatch.externalKey {key!r} is not of the form {prefix}…"

    def expect_other_external_key(self, a: str, b: str) -> None:
        ka, kb = self.scenario.dispatch(a).external_key, self.scenario.dispatch(b).external_key
        assert ka != kb, f"after /new the chat still uses the externalKey {ka!r}"

    def expect_source(self, name: str, im: str) -> None:
        """The task carries its source: platform ``im`` and the text the user wrote."""
        source = self.scenario.dispatch(name).source
        assert source is not ABSENT and source is not None, "task.dispatch carries no source"
        assert source.im == im, f"source.im {source.im!r}, expected {im!r}"
        wanted = self.scenario.user_texts[name]
        assert source.user_text == wanted, f"source.userText {source.user_text!r}, the user wrote {wanted!r}"

    def expect_cancel(self, dev: str, name: str) -> None:
        rid = self.scenario.rid(name)
        p = self.scenario.device(dev).role.expect_payload(MessageType.TASK_CANCEL)
        named = next((n for n, r in self.scenario.request_ids.items() if r == p.request_id), None)
        assert p.request_id == rid, (f"task.cancel names {p.request_id!r}"
                                     f"{f' (the task {named!r})' if named else ''}, expected {name!r} ({rid})")

    def expect_archive(self, dev: str, name: str) -> None:
        """session.archive names the externalKey of ``name``."""
        key = self.scenario.dispatch(name).external_key
        p = self.scenario.device(dev).role.expect_payload(MessageType.SESSION_ARCHIVE)
        assert p.external_key == key, f"session.archive names {p.external_key!r}, expected {key!r}"
