"""Broken variants of the reference desktop's group relay and message operations (slack-hook-protocol.md §1, §2, §3,
§5 阶段 14, 阶段 19; UPSTREAM-FACTS.md msg.op): each is the correct ``DesktopMachine`` with one hook of
``relay_families.RelayFamilies`` overridden (or one pure class swapped) so that exactly one rule is broken. The
features of features/hook/desktop/group_relay.feature and message_ops.feature must catch each one
(tests/hook_desktop/test_desktop_variants.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

from ....hook import ABSENT, MessageOpScope, MessageType, parse_hook_message
from ...desktop.group_relay import GroupWindow, WindowEntry
from ...desktop.machine import DesktopMachine
from ...desktop.message_ops import OpBook, OpState
from ..registry import broken

__all__ = ["WindowFieldsDropped", "RecipientPrincipalUnchecked", "EndedBindingReceives", "RelayWithoutFeature",
    "TriggerInContext", "WindowDuplicates", "LenientAuthorFields", "LenientGroupFrames", "OpScopeSessionKey",
    "OpWithoutFeature", "OpResultToOldest", "LenientOpResults"]


def _frame_of(raw: str | bytes, type_: MessageType) -> dict[str, Any] | None:
    """The decoded frame when ``raw`` is a JSON object of type ``type_`` with an object payload, else None."""
    try:
        data = json.loads(raw)
    except (ValueError, TypeError):
        return None
    if isinstance(data, dict) and data.get("type") == type_.value and isinstance(data.get("payload"), dict):
        return data
    return None


@broken("window-fields-dropped", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-01"],
        clause='阶段 14 "滚动窗口、增量游标与上下文拼装全部在 desktop 本地完成" (the desktop keeps what was relayed: the server keeps '
               'nothing)')
class WindowFieldsDropped(DesktopMachine):
    """A window entry keeps the author's name only and no file names."""

    def _window_entry(self, payload: Any) -> WindowEntry:
        e = super()._window_entry(payload)
        return WindowEntry(e.provider, e.chat_id, e.thread_id, e.message_id, e.chat_name, {"name": e.author["name"]},
                           e.text, (), e.sent_at)


@broken("recipient-principal-unchecked", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-02"],
        clause='§1 "desktop 仅在它与当前 confirmed binding 精确匹配时入窗"')
class RecipientPrincipalUnchecked(DesktopMachine):
    """The recipient is matched by its bindingId alone."""

    def _recipient_ok(self, payload: Any) -> bool:
        r = payload.recipient
        return r is not ABSENT and any(bid == r.binding_id for bid, _ in self._confirmed(payload.provider))


@broken("ended-binding-receives", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-02"],
        clause='§1 "desktop 仅在它与当前 confirmed binding 精确匹配时入窗" (阶段 14 recipient "绑定本帧实际接收方代际")')
class EndedBindingReceives(DesktopMachine):
    """A binding once confirmed keeps receiving after it was revoked or superseded."""

    def _confirmed(self, provider: str) -> list[tuple[str, str | None]]:
        book = self.provider_book.bindings.get(provider, {})
        return [(b.binding_id, b.principal_id) for b in book.values()] if self._channel_on(provider) else []

    def _take_status(self, payload: Any) -> None:
        before = self.provider_book.bindings.get(payload.provider, {}).get(payload.binding_id or "")
        super()._take_status(payload)
        if before is not None and payload.principal_id is None:  # an ended snapshot may leave the principal out
            self.provider_book.bindings[payload.provider][payload.binding_id].principal_id = before.principal_id


@broken("relay-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-03"],
        clause="§1 \"基础能力协商双向(HOOK_FEATURE_GROUP_RELAY='group-relay-v1')\"")
class RelayWithoutFeature(DesktopMachine):
    """Group messages are taken whatever welcome declares."""

    def _relay_on(self) -> bool:
        return True


@broken("trigger-in-context", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-04"],
        clause='阶段 14 "desktop 据此在本地窗口中精确剔除"当前消息""')
class TriggerInContext(DesktopMachine):
    """The context of a dispatch keeps the trigger message itself."""

    def group_context(self, source: Any) -> list[str] | None:
        context = super().group_context(source)
        return None if context is None else [*context, source.trigger_message_id]


class _DuplicatingWindow(GroupWindow):
    def add(self, entry: WindowEntry) -> list[Any]:
        if entry.message_id not in self.entries:
            return super().add(entry)
        self.seq += 1
        self.entries[f"{entry.message_id}#{self.seq}"] = (self.seq, entry)  # a second entry of the same messageId
        return []


@broken("window-duplicates", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-05"],
        clause='阶段 14 "messageId(反查 id,与 task.dispatch 引用块、桌面窗口条目同键关联)"')
class WindowDuplicates(DesktopMachine):
    """The same messageId relayed again is a second entry."""

    def _new_window(self) -> GroupWindow:
        return _DuplicatingWindow()


@broken("lenient-author-fields", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-06"],
        clause='阶段 19 "两个字段按 Telegram 当前实际契约收紧校验"')
class LenientAuthorFields(DesktopMachine):
    """A group.message refused only for its author.id / author.username is taken with those fields left out."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        issue = parse_hook_message(raw).error
        data = _frame_of(raw, MessageType.GROUP_MESSAGE)
        author = data["payload"].get("author") if data is not None else None
        if issue is not None and issue.path in ("/payload/author/id", "/payload/author/username") \
                and data is not None and isinstance(author, dict):
            stripped = {k: v for k, v in author.items() if k not in ("id", "username")}
            again = parse_hook_message(json.dumps({**data, "payload": {**data["payload"], "author": stripped}}))
            if again.ok:
                return self.on_group_message(again.message, now)
        return super()._on_bad_frame(raw, now)


@broken("lenient-group-frames", subject="desktop", breaks=["HOOK-DESKTOP-GROUP-07"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"')
class LenientGroupFrames(DesktopMachine):
    """A group.message that fails the core's checks (anywhere but its author) is entered anyway, read field by field,
    when it names a messageId."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        issue = parse_hook_message(raw).error
        data = _frame_of(raw, MessageType.GROUP_MESSAGE)
        p: dict[str, Any] = data["payload"] if data is not None else {}
        if data is not None and isinstance(p.get("messageId"), str) and self._relay_on() \
                and not (issue is not None and issue.path.startswith("/payload/author")):
            author: Mapping[str, Any] = p["author"] if isinstance(p.get("author"), dict) else {"name": "?"}
            entry = WindowEntry(str(p.get("provider")), str(p.get("chatId")), p.get("threadId"), p["messageId"],
                                p.get("chatName"), author, str(p.get("text", "")), tuple(p.get("fileNames") or ()),
                                int(p.get("sentAt") or 0))
            return list(self.group_window.add(entry))
        return super()._on_bad_frame(raw, now)


@broken("op-scope-session-key", subject="desktop", breaks=["HOOK-DESKTOP-MSGOP-01"],
        clause='UPSTREAM-FACTS "server-resolved message operations … scoped by `externalKey`"')
class OpScopeSessionKey(DesktopMachine):
    """``msg.op`` is scoped by the turn's sessionId instead of its externalKey."""

    def _op_scope(self, turn: Any) -> MessageOpScope:
        return MessageOpScope(turn.session_id)


@broken("op-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-MSGOP-02"],
        clause='§3 "新端在能力缺席时不会发送它们"')
class OpWithoutFeature(DesktopMachine):
    """``msg.op`` is sent whatever welcome declares."""

    def _ops_on(self) -> bool:
        return True


class _OldestFirstBook(OpBook):
    def take_result(self, p: Any) -> bool:
        if not self.pending:
            return False
        oldest = next(iter(self.pending))
        return super().take_result(SimpleNamespace(op_id=oldest, ok=p.ok, message_id=p.message_id,
                                                   message_ids=p.message_ids, error=p.error))


@broken("op-result-to-oldest", subject="desktop", breaks=["HOOK-DESKTOP-MSGOP-03"],
        clause="UPSTREAM-FACTS msg.op / msg.op.result (a result answers the op of its opId)")
class OpResultToOldest(DesktopMachine):
    """A msg.op.result ends the oldest pending op, whatever its opId."""

    def _new_op_book(self) -> OpBook:
        return _OldestFirstBook()


@broken("lenient-op-results", subject="desktop", breaks=["HOOK-DESKTOP-MSGOP-04"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"')
class LenientOpResults(DesktopMachine):
    """A msg.op.result that fails the core's checks still ends the pending op it names."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        data = _frame_of(raw, MessageType.MSG_OP_RESULT)
        op = self.op_book.pending.pop(data["payload"].get("opId"), None) if data is not None else None
        if op is not None and data is not None:  # an op was found only in a decoded frame
            p = data["payload"]
            op.state = OpState.OK if p.get("ok") else OpState.ERROR
            op.message_id, op.error = p.get("messageId"), p.get("error")
            op.message_ids = tuple(m for m in p.get("messageIds") or () if isinstance(m, str))
            return []
        return super()._on_bad_frame(raw, now)
