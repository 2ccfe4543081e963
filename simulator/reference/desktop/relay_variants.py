"""Broken variants of the reference desktop's group relay and message operations (docs/desktop-plan.md "Broken
variants"): each is the correct ``DesktopMachine`` with one hook of ``relay_families.RelayFamilies`` overridden (or
one pure class swapped) so that exactly one rule of slack-hook-protocol.md §1 / §2 / §3 / §5 阶段 14 / 阶段 19 or of
UPSTREAM-FACTS.md msg.op is broken. Test fixtures, picked by ``variants.py``; the features of
features/hook/desktop/group_relay.feature and message_ops.feature must catch each one
(tests/hook_desktop/test_desktop_variants.py).
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any, Final

from ...hook import ABSENT, MessageOpScope, MessageType, parse_hook_message
from .group_relay import GroupWindow, WindowEntry
from .machine import DesktopMachine, Variant
from .message_ops import OpBook, OpState

__all__ = ["RELAY_WRAPPED"]


def _frame_of(raw: str | bytes, type_: MessageType) -> dict[str, Any] | None:
    """The decoded frame when ``raw`` is a JSON object of type ``type_`` with an object payload, else None."""
    try:
        data = json.loads(raw)
    except (ValueError, TypeError):
        return None
    if isinstance(data, dict) and data.get("type") == type_.value and isinstance(data.get("payload"), dict):
        return data
    return None


class WindowFieldsDropped(DesktopMachine):
    """``window-fields-dropped``: a window entry keeps the author's name only and no file names. Breaks 阶段 14
    "滚动窗口、增量游标与上下文拼装全部在 desktop 本地完成" (the desktop keeps what was relayed: the server keeps nothing)."""

    def _window_entry(self, payload: Any) -> WindowEntry:
        e = super()._window_entry(payload)
        return WindowEntry(e.provider, e.chat_id, e.thread_id, e.message_id, e.chat_name, {"name": e.author["name"]},
                           e.text, (), e.sent_at)


class RecipientPrincipalUnchecked(DesktopMachine):
    """``recipient-principal-unchecked``: the recipient is matched by its bindingId alone. Breaks §1 "desktop 仅在它与
    当前 confirmed binding 精确匹配时入窗"."""

    def _recipient_ok(self, payload: Any) -> bool:
        r = payload.recipient
        return r is not ABSENT and any(bid == r.binding_id for bid, _ in self._confirmed(payload.provider))


class EndedBindingReceives(DesktopMachine):
    """``ended-binding-receives``: a binding once confirmed keeps receiving after it was revoked or superseded. Breaks
    §1 "desktop 仅在它与当前 confirmed binding 精确匹配时入窗" (阶段 14 recipient "绑定本帧实际接收方代际")."""

    def _confirmed(self, provider: str) -> list[tuple[str, str | None]]:
        book = self.provider_book.bindings.get(provider, {})
        return [(b.binding_id, b.principal_id) for b in book.values()] if self._channel_on(provider) else []

    def _take_status(self, payload: Any) -> None:
        before = self.provider_book.bindings.get(payload.provider, {}).get(payload.binding_id or "")
        super()._take_status(payload)
        if before is not None and payload.principal_id is None:  # an ended snapshot may leave the principal out
            self.provider_book.bindings[payload.provider][payload.binding_id].principal_id = before.principal_id


class RelayWithoutFeature(DesktopMachine):
    """``relay-without-feature``: group messages are taken whatever welcome declares. Breaks §1 "基础能力协商双向
    (HOOK_FEATURE_GROUP_RELAY='group-relay-v1')"."""

    def _relay_on(self) -> bool:
        return True


class TriggerInContext(DesktopMachine):
    """``trigger-in-context``: the context of a dispatch keeps the trigger message itself. Breaks 阶段 14 "desktop 据此在
    本地窗口中精确剔除"当前消息""."""

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


class WindowDuplicates(DesktopMachine):
    """``window-duplicates``: the same messageId relayed again is a second entry. Breaks 阶段 14 "messageId(反查 id,与
    task.dispatch 引用块、桌面窗口条目同键关联)"."""

    def _new_window(self) -> GroupWindow:
        return _DuplicatingWindow()


class LenientAuthorFields(DesktopMachine):
    """``lenient-author-fields``: a group.message refused only for its author.id / author.username is taken with those
    fields left out. Breaks 阶段 19 "两个字段按 Telegram 当前实际契约收紧校验"."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        issue = parse_hook_message(raw).error
        data = _frame_of(raw, MessageType.GROUP_MESSAGE)
        author = data["payload"].get("author") if data is not None else None
        if issue is not None and issue.path in ("/payload/author/id", "/payload/author/username") \
                and isinstance(author, dict):
            stripped = {k: v for k, v in author.items() if k not in ("id", "username")}
            again = parse_hook_message(json.dumps({**data, "payload": {**data["payload"], "author": stripped}}))
            if again.ok:
                return self.on_group_message(again.message, now)
        return super()._on_bad_frame(raw, now)


class LenientGroupFrames(DesktopMachine):
    """``lenient-group-frames``: a group.message that fails the core's checks (anywhere but its author) is entered
    anyway, read field by field, when it names a messageId. Breaks §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回
    ok:false"."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        issue = parse_hook_message(raw).error
        data = _frame_of(raw, MessageType.GROUP_MESSAGE)
        p = data["payload"] if data is not None else {}
        if data is not None and isinstance(p.get("messageId"), str) and self._relay_on() \
                and not (issue is not None and issue.path.startswith("/payload/author")):
            author = p.get("author") if isinstance(p.get("author"), dict) else {"name": "?"}
            entry = WindowEntry(str(p.get("provider")), str(p.get("chatId")), p.get("threadId"), p["messageId"],
                                p.get("chatName"), author, str(p.get("text", "")), tuple(p.get("fileNames") or ()),
                                int(p.get("sentAt") or 0))
            return list(self.group_window.add(entry))
        return super()._on_bad_frame(raw, now)


class OpScopeSessionKey(DesktopMachine):
    """``op-scope-session-key``: msg.op is scoped by the turn's sessionId instead of its externalKey. Breaks
    UPSTREAM-FACTS "server-resolved message operations … scoped by `externalKey`"."""

    def _op_scope(self, turn: Any) -> MessageOpScope:
        return MessageOpScope(turn.session_id)


class OpWithoutFeature(DesktopMachine):
    """``op-without-feature``: msg.op is sent whatever welcome declares. Breaks §3 "新端在能力缺席时不会发送它们"."""

    def _ops_on(self) -> bool:
        return True


class _OldestFirstBook(OpBook):
    def take_result(self, p: Any) -> bool:
        if not self.pending:
            return False
        oldest = next(iter(self.pending))
        return super().take_result(SimpleNamespace(op_id=oldest, ok=p.ok, message_id=p.message_id,
                                                   message_ids=p.message_ids, error=p.error))


class OpResultToOldest(DesktopMachine):
    """``op-result-to-oldest``: a msg.op.result ends the oldest pending op, whatever its opId. Breaks UPSTREAM-FACTS
    msg.op / msg.op.result (a result answers the op of its opId)."""

    def _new_op_book(self) -> OpBook:
        return _OldestFirstBook()


class LenientOpResults(DesktopMachine):
    """``lenient-op-results``: a msg.op.result that fails the core's checks still ends the pending op it names. Breaks
    §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        data = _frame_of(raw, MessageType.MSG_OP_RESULT)
        op = self.op_book.pending.pop(data["payload"].get("opId"), None) if data is not None else None
        if op is not None:
            p = data["payload"]  # type: ignore[index]
            op.state = OpState.OK if p.get("ok") else OpState.ERROR
            op.message_id, op.error = p.get("messageId"), p.get("error")
            op.message_ids = tuple(m for m in p.get("messageIds") or () if isinstance(m, str))
            return []
        return super()._on_bad_frame(raw, now)


RELAY_WRAPPED: Final[dict[Variant, type[DesktopMachine]]] = {
    Variant.WINDOW_FIELDS_DROPPED: WindowFieldsDropped,
    Variant.RECIPIENT_PRINCIPAL_UNCHECKED: RecipientPrincipalUnchecked,
    Variant.ENDED_BINDING_RECEIVES: EndedBindingReceives,
    Variant.RELAY_WITHOUT_FEATURE: RelayWithoutFeature,
    Variant.TRIGGER_IN_CONTEXT: TriggerInContext,
    Variant.WINDOW_DUPLICATES: WindowDuplicates,
    Variant.LENIENT_AUTHOR_FIELDS: LenientAuthorFields,
    Variant.LENIENT_GROUP_FRAMES: LenientGroupFrames,
    Variant.OP_SCOPE_SESSION_KEY: OpScopeSessionKey,
    Variant.OP_WITHOUT_FEATURE: OpWithoutFeature,
    Variant.OP_RESULT_TO_OLDEST: OpResultToOldest,
    Variant.LENIENT_OP_RESULTS: LenientOpResults,
}
