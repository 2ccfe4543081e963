"""Broken variants of the reference hook server's group relay and message operations (docs/hook-server-plan.md
"Broken variants"): each is the correct ``HookServerMachine`` with one hook of ``relay_families.RelayFamilies``
overridden, so that exactly one rule of slack-hook-protocol.md 阶段 14 (and its 设计边界) / 阶段 19, §3, or of the
msg.op family (UPSTREAM-FACTS.md) is broken. Test fixtures, picked by ``variant_machines.machine_class``; the features
of features/hook/server/group_relay.feature and message_ops.feature must catch each one
(tests/hook_server/test_server_variants.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson

from ...hook import Feature, HookMessage, MessageType, parse_hook_message
from .channel import ChannelMessage
from .effects import Effect
from .group_relay import RelayTarget, fan_out
from .machine import Connection, HookServerMachine
from .posts import Lane, Post, PostBook
from .variants import Variant

__all__ = ["RELAY_WRAPPED"]


class RelayDropsAuthorId(HookServerMachine):
    """``relay-drops-author-id``: group.message.author carries only the name. Breaks 阶段 14 / 阶段 19 (the author's
    ``id`` and ``username`` as the provider gave them)."""

    def _relayed(self, wire: Mapping[str, Any], target: RelayTarget) -> dict[str, Any]:
        out = super()._relayed(wire, target)
        out["author"] = {k: v for k, v in out["author"].items() if k not in ("id", "username")}
        return out


class RelayWithoutRecipientFeature(HookServerMachine):
    """``relay-without-recipient-feature``: group-relay-v1 alone turns the relay on. Breaks 阶段 14 "对已声明
    group-relay-v1 与 group-relay-recipient-v1 的成员桌面转发即弃"."""

    def _relay_on(self, conn: Connection) -> bool:
        f = Feature.GROUP_RELAY.value
        return f in conn.features and f in conn.welcome_features


class RelayRecipientCached(HookServerMachine):
    """``relay-recipient-cached``: the targets of a chat's first relayed message are reused for every later one.
    Breaks 阶段 14 "每个扇出帧的 recipient 必须来自发送当刻再次确认的 binding"."""

    def _relay_targets(self, chat_id: str) -> list[RelayTarget]:
        cache: dict[str, list[RelayTarget]] = self.__dict__.setdefault("_cached_targets", {})
        if not cache.get(chat_id):
            cache[chat_id] = super()._relay_targets(chat_id)
        return cache[chat_id]


class GroupContextInPrompt(HookServerMachine):
    """``group-context-in-prompt``: the server keeps the texts relayed in a chat, in memory, and puts them before the
    prompt of a task triggered in that chat (a "context" for the agent). Breaks 阶段 14 设计边界 "群聊内容不得驻留在
    server(内存亦不允许) … 滚动窗口、增量游标与上下文拼装全部在 desktop 本地完成"."""

    def _recent(self, chat_id: str) -> list[str]:
        kept: dict[str, list[str]] = self.__dict__.setdefault("_kept_texts", {})
        return kept.setdefault(chat_id, [])

    def inject_group_message(self, body: Mapping[str, Any], now: int) -> tuple[dict[str, Any], list[Effect]]:
        answer, out = super().inject_group_message(body, now)
        if isinstance(body.get("chatId"), str) and isinstance(body.get("text"), str):
            self._recent(body["chatId"]).append(body["text"])
        return answer, out

    def _mention_task(self, wire: Mapping[str, Any], now: int, out: list[Effect]) -> str | None:
        context = "\n".join(self._recent(wire["chatId"]))
        text = f"{context}\n{wire['text']}" if context else wire["text"]
        return super()._mention_task({**wire, "text": text}, now, out)


class RelayQueuesOffline(HookServerMachine):
    """``relay-queues-offline``: a message for a member desktop that is offline is kept and sent at its next hello.
    Breaks 阶段 14 "fire-and-forget(无 ack,桌面离线即丢)"."""

    def inject_group_message(self, body: Mapping[str, Any], now: int) -> tuple[dict[str, Any], list[Effect]]:
        answer, out = super().inject_group_message(body, now)
        queued: list[tuple[RelayTarget, dict[str, Any]]] = self.__dict__.setdefault("_queued", [])
        chat_id = body["chatId"]
        wire = {"provider": "telegram", "chatId": chat_id, "threadId": body.get("threadId"),
                "messageId": answer["messageId"], "chatName": body.get("chatName") or chat_id,
                "author": dict(body["author"]), "text": body.get("text", ""), "sentAt": body.get("sentAt", now)}
        if body.get("fileNames") is not None:
            wire["fileNames"] = list(body["fileNames"])
        for target in fan_out(self.membership.of(chat_id), self.pbook.bindings.values(),
                              lambda device: self._relay_conn(device) is None):
            queued.append((target, wire))
        return answer, out

    def _on_hello(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        super()._on_hello(conn, message, now, out)
        queued: list[tuple[RelayTarget, dict[str, Any]]] = self.__dict__.setdefault("_queued", [])
        for item in [q for q in queued if q[0].device_id == conn.device_id]:
            if self._send_group(item[0], item[1], now, out):
                queued.remove(item)


class RelayMirrorsGroupChat(HookServerMachine):
    """``relay-mirrors-group-chat``: every relayed message is also kept as a channel message of the group (listed by
    ``list-messages``, stored in SQLite). Breaks 阶段 14 "群聊内容不得驻留在 server(内存亦不允许)"."""

    def inject_group_message(self, body: Mapping[str, Any], now: int) -> tuple[dict[str, Any], list[Effect]]:
        answer, out = super().inject_group_message(body, now)
        author = body["author"]
        text = " ".join([f"{author.get('name')} (@{author.get('username')}) in {body.get('chatName')}:",
                         body.get("text", ""), *(body.get("fileNames") or ())])
        m = ChannelMessage(self._ids(), self._next_seq(), "telegram", body["chatId"], body.get("threadId"),
                           f"group-{answer['messageId']}", text)
        self.messages[m.message_id] = m
        self._persist_message(out, m)
        return answer, out


class MentionTriggerFreshId(HookServerMachine):
    """``mention-trigger-fresh-id``: the task of a message addressing the bot names a fresh trigger. Breaks 阶段 14
    "task.dispatch.source 增加可选 triggerMessageId(与 group.message.messageId 同一 id 空间)"."""

    def _mention_trigger(self, message_id: str) -> str:
        return f"in-{self._ids()}"


class RelayForwardsStart(HookServerMachine):
    """``relay-forwards-start``: a group text ``/start <token>`` is relayed. Breaks 阶段 14 "一次性凭证(如绑定深链
    /start <token>)由 server 过滤,不转发"."""

    def _is_credential(self, text: str) -> bool:
        return False


class MsgOpIgnoresThread(HookServerMachine):
    """``msg-op-ignores-thread``: a scope resolves to its chat's main stream, not the lane's thread. Breaks
    UPSTREAM-FACTS "server-resolved message operations … scoped by externalKey"."""

    def _op_scope(self, device_id: str, external_key: str) -> Lane | None:
        lane = super()._op_scope(device_id, external_key)
        return None if lane is None else (lane[0], lane[1], None)


class _EditIgnoringBook(PostBook):
    def _edit_text(self, post: Post, text: str) -> None:
        post.edits += 1  # counted, text kept


class MsgOpEditIgnored(HookServerMachine):
    """``msg-op-edit-ignored``: an edit is answered ok and leaves the text. Breaks UPSTREAM-FACTS "message operations
    send/edit/delete/react/typing/media"."""

    posts_class = _EditIgnoringBook


class MsgOpAnyDeviceScope(HookServerMachine):
    """``msg-op-any-device-scope``: a scope names the lane of a task dispatched to any device. Breaks UPSTREAM-FACTS
    "scoped by externalKey" (the externalKey is the authorisation anchor of the device it was dispatched to)."""

    def _op_scope(self, device_id: str, external_key: str) -> Lane | None:
        for task in self.tasks.values():
            if task.external_key == external_key and task.dispatch_count > 0:
                return task.lane
        return None


class MsgOpWithoutDesktopFeature(HookServerMachine):
    """``msg-op-without-desktop-feature``: msg.op is served on the welcome's feature alone. Breaks §3 "新端在能力缺席时
    不会发送它们" (both sides declare msg-op-v1 before it is used)."""

    def _msg_op_on(self, conn: Connection) -> bool:
        return Feature.MESSAGE_OPS.value in conn.welcome_features


class LenientMsgOp(HookServerMachine):
    """``lenient-msg-op``: a msg.op whose scope carries chatId / threadId is served without them instead of dropped.
    Breaks UPSTREAM-FACTS "Extra keys are rejected in: … msg.op scope (no chatId/threadId)" and §2 "坏帧返回 ok:false"."""

    def frame(self, conn_id: str, raw: str | bytes, now: int, *, binary: bool = False) -> list[Effect]:
        if not binary:
            try:
                data = orjson.loads(raw)
            except orjson.JSONDecodeError:
                data = None
            scope = data.get("payload", {}).get("scope") if isinstance(data, dict) and \
                data.get("type") == MessageType.MSG_OP.value and isinstance(data.get("payload"), dict) else None
            if isinstance(scope, dict) and ("chatId" in scope or "threadId" in scope):
                data["payload"]["scope"] = {k: v for k, v in scope.items() if k not in ("chatId", "threadId")}
                raw = orjson.dumps(data).decode()
        return super().frame(conn_id, raw, now, binary=binary)


class RelaysDesktopGroupMessage(HookServerMachine):
    """``relays-desktop-group-message``: a group.message sent by a desktop is relayed to the chat's member desktops
    instead of dropped. Breaks §3 "老端收到未知 type 丢帧不断连" for a server → desktop type (阶段 14)."""

    def frame(self, conn_id: str, raw: str | bytes, now: int, *, binary: bool = False) -> list[Effect]:
        conn = self.connections.get(conn_id)
        result = parse_hook_message(raw) if not binary else None
        if conn is None or not conn.hello_count or result is None or not result.ok \
                or result.message.type is not MessageType.GROUP_MESSAGE:
            return super().frame(conn_id, raw, now, binary=binary)
        wire = result.message.payload.to_wire()
        wire.pop("recipient", None)
        out: list[Effect] = []
        for target in self._relay_targets(wire["chatId"]):
            self._send_group(target, wire, now, out)
        return out


RELAY_WRAPPED: Final[dict[Variant, type[HookServerMachine]]] = {
    Variant.RELAY_DROPS_AUTHOR_ID: RelayDropsAuthorId,
    Variant.RELAY_WITHOUT_RECIPIENT_FEATURE: RelayWithoutRecipientFeature,
    Variant.RELAY_RECIPIENT_CACHED: RelayRecipientCached,
    Variant.RELAY_QUEUES_OFFLINE: RelayQueuesOffline,
    Variant.GROUP_CONTEXT_IN_PROMPT: GroupContextInPrompt,
    Variant.RELAY_MIRRORS_GROUP_CHAT: RelayMirrorsGroupChat,
    Variant.MENTION_TRIGGER_FRESH_ID: MentionTriggerFreshId,
    Variant.RELAY_FORWARDS_START: RelayForwardsStart,
    Variant.MSG_OP_IGNORES_THREAD: MsgOpIgnoresThread,
    Variant.MSG_OP_EDIT_IGNORED: MsgOpEditIgnored,
    Variant.MSG_OP_ANY_DEVICE_SCOPE: MsgOpAnyDeviceScope,
    Variant.MSG_OP_WITHOUT_DESKTOP_FEATURE: MsgOpWithoutDesktopFeature,
    Variant.LENIENT_MSG_OP: LenientMsgOp,
    Variant.RELAYS_DESKTOP_GROUP_MESSAGE: RelaysDesktopGroupMessage,
}
