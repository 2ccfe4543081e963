"""Broken variants of the reference hook server: group relay and message operations (spec slack-hook-protocol.md
阶段 14 and its 设计边界, 阶段 19, §3; UPSTREAM-FACTS.md msg.op; docs/hook-server-plan.md "Broken variants").

Each class is the correct ``HookServerMachine`` with one hook of ``relay_families.RelayFamilies`` overridden (or its
posts' book swapped), so that exactly one rule is broken; each is registered with the requirements that catch it
(features/hook/server/group_relay.feature and message_ops.feature; tests/hook_server/test_server_variants.py reads
them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ....hook import Feature, HookMessage, MessageType, parse_hook_message
from ...hookserver.channel import ChannelMessage
from ...hookserver.effects import Effect
from ...hookserver.group_relay import RelayTarget, fan_out
from ...hookserver.machine import HookServerMachine
from ...hookserver.posts import Lane, Post, PostBook
from ...hookserver.state import Connection
from ..registry import broken


@broken("relay-drops-author-id", subject="hook-server", breaks=["HOOK-SERVER-GROUP-01"],
        clause='阶段 14 group.message author {name, isBot?, id?, username?}; 阶段 19')
class RelayDropsAuthorId(HookServerMachine):
    """``relay-drops-author-id``: group.message.author carries only the name. Breaks 阶段 14 / 阶段 19 (the author's
    ``id`` and ``username`` as the provider gave them)."""

    def _relayed(self, wire: Mapping[str, Any], target: RelayTarget) -> dict[str, Any]:
        out = super()._relayed(wire, target)
        out["author"] = {k: v for k, v in out["author"].items() if k not in ("id", "username")}
        return out


@broken("relay-without-recipient-feature", subject="hook-server", breaks=["HOOK-SERVER-GROUP-02"],
        clause='阶段 14 "对已声明 group-relay-v1 与 group-relay-recipient-v1 的成员桌面转发即弃"')
class RelayWithoutRecipientFeature(HookServerMachine):
    """``relay-without-recipient-feature``: group-relay-v1 alone turns the relay on. Breaks 阶段 14 "对已声明
    group-relay-v1 与 group-relay-recipient-v1 的成员桌面转发即弃"."""

    def _relay_on(self, conn: Connection) -> bool:
        f = Feature.GROUP_RELAY.value
        return f in conn.features and f in conn.welcome_features


@broken("relay-recipient-cached", subject="hook-server", breaks=["HOOK-SERVER-GROUP-03"],
        clause='阶段 14 "recipient 必须来自发送当刻再次确认的 binding"')
class RelayRecipientCached(HookServerMachine):
    """``relay-recipient-cached``: the targets of a chat's first relayed message are reused for every later one.
    Breaks 阶段 14 "每个扇出帧的 recipient 必须来自发送当刻再次确认的 binding"."""

    def _relay_targets(self, chat_id: str) -> list[RelayTarget]:
        cache: dict[str, list[RelayTarget]] = self.__dict__.setdefault("_cached_targets", {})
        if not cache.get(chat_id):
            cache[chat_id] = super()._relay_targets(chat_id)
        return cache[chat_id]


@broken("group-context-in-prompt", subject="hook-server", breaks=["HOOK-SERVER-GROUP-08"],
        clause='阶段 14 设计边界 "群聊内容不得驻留在 server(内存亦不允许) … 上下文拼装全部在 desktop 本地完成"')
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


@broken("relay-queues-offline", subject="hook-server", breaks=["HOOK-SERVER-GROUP-04"], clause='阶段 14 "桌面离线即丢"')
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


@broken("relay-mirrors-group-chat", subject="hook-server", breaks=["HOOK-SERVER-GROUP-05"],
        clause='阶段 14 "群聊内容不得驻留在 server(内存亦不允许)"')
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


@broken("mention-trigger-fresh-id", subject="hook-server", breaks=["HOOK-SERVER-GROUP-06"],
        clause='阶段 14 "与 group.message.messageId 同一 id 空间"')
class MentionTriggerFreshId(HookServerMachine):
    """``mention-trigger-fresh-id``: the task of a message addressing the bot names a fresh trigger. Breaks 阶段 14
    "task.dispatch.source 增加可选 triggerMessageId(与 group.message.messageId 同一 id 空间)"."""

    def _mention_trigger(self, message_id: str) -> str:
        return f"in-{self._ids()}"


@broken("relay-forwards-start", subject="hook-server", breaks=["HOOK-SERVER-GROUP-07"],
        clause='阶段 14 "一次性凭证 … 由 server 过滤,不转发"')
class RelayForwardsStart(HookServerMachine):
    """``relay-forwards-start``: a group text ``/start <token>`` is relayed. Breaks 阶段 14 "一次性凭证(如绑定深链
    /start <token>)由 server 过滤,不转发"."""

    def _is_credential(self, text: str) -> bool:
        return False


@broken("msg-op-ignores-thread", subject="hook-server", breaks=["HOOK-SERVER-MSGOP-01"],
        clause='UPSTREAM-FACTS "scoped by externalKey"')
class MsgOpIgnoresThread(HookServerMachine):
    """``msg-op-ignores-thread``: a scope resolves to its chat's main stream, not the lane's thread. Breaks
    UPSTREAM-FACTS "server-resolved message operations … scoped by externalKey"."""

    def _op_scope(self, device_id: str, external_key: str) -> Lane | None:
        lane = super()._op_scope(device_id, external_key)
        return None if lane is None else (lane[0], lane[1], None)


class _EditIgnoringBook(PostBook):
    def _edit_text(self, post: Post, text: str) -> None:
        post.edits += 1  # counted, text kept


@broken("msg-op-edit-ignored", subject="hook-server", breaks=["HOOK-SERVER-MSGOP-02"],
        clause='UPSTREAM-FACTS "send/edit/delete/react/typing/media"')
class MsgOpEditIgnored(HookServerMachine):
    """``msg-op-edit-ignored``: an edit is answered ok and leaves the text. Breaks UPSTREAM-FACTS "message operations
    send/edit/delete/react/typing/media"."""

    posts_class = _EditIgnoringBook


@broken("msg-op-any-device-scope", subject="hook-server", breaks=["HOOK-SERVER-MSGOP-03"],
        clause='UPSTREAM-FACTS "scoped by externalKey"')
class MsgOpAnyDeviceScope(HookServerMachine):
    """``msg-op-any-device-scope``: a scope names the lane of a task dispatched to any device. Breaks UPSTREAM-FACTS
    "scoped by externalKey" (the externalKey is the authorisation anchor of the device it was dispatched to)."""

    def _op_scope(self, device_id: str, external_key: str) -> Lane | None:
        for task in self.tasks.values():
            if task.external_key == external_key and task.dispatch_count > 0:
                return task.lane
        return None


@broken("msg-op-without-desktop-feature", subject="hook-server", breaks=["HOOK-SERVER-MSGOP-04"],
        clause='§3 "新端在能力缺席时不会发送它们"')
class MsgOpWithoutDesktopFeature(HookServerMachine):
    """``msg-op-without-desktop-feature``: msg.op is served on the welcome's feature alone. Breaks §3 "新端在能力缺席时
    不会发送它们" (both sides declare msg-op-v1 before it is used)."""

    def _msg_op_on(self, conn: Connection) -> bool:
        return Feature.MESSAGE_OPS.value in conn.welcome_features


@broken("lenient-msg-op", subject="hook-server", breaks=["HOOK-SERVER-MSGOP-05"],
        clause='UPSTREAM-FACTS "msg.op scope (no chatId/threadId)"; §2 "坏帧返回 ok:false"')
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


@broken("relays-desktop-group-message", subject="hook-server", breaks=["HOOK-SERVER-RELAY-UNHANDLED-01"],
        clause='§3 "丢帧不断连"; 阶段 14 server → desktop')
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

