"""The group relay and message operations of the reference hook server, wired to the machine: ``group.message``,
``msg.op`` / ``msg.op.result`` and their control commands ``group-member``, ``inject-group-message``, ``list-posts``
(docs/control-api.md "Queries, gateway tools, group relay and message operations (hook-server)").

Spec: §5 阶段 14 group.message ("fire-and-forget(无 ack,桌面离线即丢)") and its 设计边界 ("群聊内容不得驻留在
server(内存亦不允许)——server 收到群消息后对已声明 group-relay-v1 与 group-relay-recipient-v1 的成员桌面转发即弃;
server 侧仅可存 chatId ↔ principal 成员元数据(id 级,无内容)用于路由。每个扇出帧的 recipient 必须来自发送当刻再次确认
的 binding"; "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发"), "task.dispatch.source 增加可选
triggerMessageId(与 group.message.messageId 同一 id 空间)"; 阶段 19 author id / username; UPSTREAM-FACTS.md msg.op
(msg-op-v1, "support them as an optional family"); §3 "新端在能力缺席时不会发送它们".

``RelayFamilies`` is a mixin of ``HookServerMachine`` (sans-I/O like it). The rules are the pure modules
``group_relay`` (memberships, fan-out) and ``posts`` (the bot's posts, op results); this module routes ``msg.op`` to
them, turns answers into frames (built from the core's payload classes) and ``Persist`` effects (the table
``group_members`` only: group content is never stored, posts and results stay in memory). Each rule is one method
(``_relay_on``, ``_relay_targets``, ``_relayed``, ``_is_credential``, ``_mention_trigger``, ``_op_scope``,
``_msg_op_on``), called through ``self``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from ...hook import (Feature, GroupMessagePayload, HookMessage, MessageOpPayload, MessageOpResultPayload,
                     build_hook_message)
from ...hook.checks import is_telegram_group_chat_id, is_telegram_user_id
from .effects import Effect, MachineError, Persist, opt_str, req_str
from .group_relay import GROUP_MEMBERS_TABLE, RELAY_PROVIDER, Membership, RelayTarget, fan_out, \
    is_one_time_credential, read_group_message
from .host import MachineHost
from .posts import Lane, PostBook
from .state import hello_device
from .wire import payload_as

if TYPE_CHECKING:
    from .state import Connection

__all__ = ["RELAY_TABLES", "RelayFamilies"]

RELAY_TABLES = (GROUP_MEMBERS_TABLE,)
_GROUP_RELAY = (Feature.GROUP_RELAY.value, Feature.GROUP_RELAY_RECIPIENT.value)
_MSG_OP = Feature.MESSAGE_OPS.value


class RelayFamilies(MachineHost):
    """Mixin: needs the machine's ``_frame``, ``_log``, ``_open_conn_of``, ``_ids``, ``tasks``, ``pbook`` (the
    provider bindings), ``inject_message``."""

    #: the posts' book (posts.py)
    posts_class: ClassVar[type[PostBook]] = PostBook

    def _relay_init(self) -> None:
        self.membership = Membership()
        self.posts = self.posts_class()

    # -- negotiation ----------------------------------------------------------------------------------------------

    def _relay_on(self, conn: Connection) -> bool:
        """Group relay is on for a connection: group-relay-v1 and group-relay-recipient-v1 in both its latest hello
        and its welcome (spec 阶段 14 "对已声明 group-relay-v1 与 group-relay-recipient-v1 的成员桌面")."""
        return all(f in conn.features and f in conn.welcome_features for f in _GROUP_RELAY)

    def _msg_op_on(self, conn: Connection) -> bool:
        """Message operations are on: msg-op-v1 in both the connection's hello and its welcome (§3 rolling upgrade:
        "新端在能力缺席时不会发送它们")."""
        return _MSG_OP in conn.features and _MSG_OP in conn.welcome_features

    def _relay_conn(self, device_id: str) -> Connection | None:
        """The device's open connection, if group relay is on there."""
        conn = self._open_conn_of(device_id)
        return conn if conn is not None and self._relay_on(conn) else None

    # -- group relay ----------------------------------------------------------------------------------------------

    def group_member(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        """Control ``group-member``: the provider reports that a principal joined or left a group (id-level
        metadata, durable)."""
        provider = req_str(body, "provider")
        if provider != RELAY_PROVIDER:
            raise MachineError("invalid-request", f"provider: group chats are {RELAY_PROVIDER!r} (got {provider!r})")
        chat_id, principal_id = req_str(body, "chatId"), req_str(body, "principalId")
        if not is_telegram_group_chat_id(chat_id):
            raise MachineError("invalid-request", "chatId: a canonical negative decimal (a Telegram group) is required")
        if not is_telegram_user_id(principal_id):
            raise MachineError("invalid-request", "principalId: a canonical positive decimal is required")
        member = body.get("member", True)
        if not isinstance(member, bool):
            raise MachineError("invalid-request", "member: a boolean is expected")
        return [Persist(*self.membership.set(chat_id, principal_id, member))]

    def inject_group_message(self, body: Mapping[str, Any], now: int) -> tuple[dict[str, Any], list[Effect]]:
        """Control ``inject-group-message``: one message in a group, fanned out at once and forgotten; a
        ``mentionsBot`` message is also a task for the author's bound device."""
        wire, mentions = read_group_message(body, now, self._ids)
        out: list[Effect] = []
        relayed = 0
        if not self._is_credential(wire["text"]):
            for target in self._relay_targets(wire["chatId"]):
                relayed += self._send_group(target, wire, now, out)
        request_id = self._mention_task(wire, now, out) if mentions else None
        return {"ok": True, "messageId": wire["messageId"], "relayed": relayed, "requestId": request_id}, out

    def _is_credential(self, text: str) -> bool:
        return is_one_time_credential(text)

    def _relay_targets(self, chat_id: str) -> list[RelayTarget]:
        """The targets of a message of ``chat_id``, from the bindings held now ("发送当刻再次确认的 binding")."""
        return fan_out(self.membership.of(chat_id), self.pbook.bindings.values(),
                       lambda device: self._relay_conn(device) is not None)

    def _relayed(self, wire: Mapping[str, Any], target: RelayTarget) -> dict[str, Any]:
        """The payload of one fan-out frame: the message with that target's recipient."""
        return {**wire, "recipient": target.recipient()}

    def _send_group(self, target: RelayTarget, wire: Mapping[str, Any], now: int, out: list[Effect]) -> int:
        conn = self._relay_conn(target.device_id)
        if conn is None:
            return 0
        payload = GroupMessagePayload.from_wire(self._relayed(wire, target))
        out.append(self._frame(conn.conn_id, build_hook_message(payload, ids=self._ids, ts=now, validate=False)))
        return 1

    def _mention_task(self, wire: Mapping[str, Any], now: int, out: list[Effect]) -> str | None:
        """spec 阶段 14 "task.dispatch.source 增加可选 triggerMessageId(与 group.message.messageId 同一 id 空间)": a
        message addressing the bot is a task (lane (telegram, chatId, threadId)) for the device holding a confirmed
        binding of its author (the newest), whose source.triggerMessageId is the group message's messageId."""
        author = wire["author"]
        holders = [b for b in self.pbook.bindings.values()
                   if b.provider == RELAY_PROVIDER and b.principal_id == author["id"]]
        if not holders or not wire["text"].strip() or self._is_credential(wire["text"]):
            return None
        body = {"provider": RELAY_PROVIDER, "chatId": wire["chatId"], "threadId": wire["threadId"],
                "userId": author["id"], "userName": author["name"], "text": wire["text"],
                "deviceId": holders[-1].device_id}
        answer, effects = self.inject_message(body, now, trigger_message_id=self._mention_trigger(wire["messageId"]))
        out.extend(effects)
        request_id: str = answer["requestId"]  # inject_message answers a new task's requestId
        return request_id

    def _mention_trigger(self, message_id: str) -> str:
        return message_id

    # -- msg.op (UPSTREAM-FACTS msg-op-v1) ------------------------------------------------------------------------

    def _op_scope(self, device_id: str, external_key: str) -> Lane | None:
        """The lane whose externalKey (any generation) is ``external_key`` and which dispatched a task to the device
        ("scoped by externalKey"): the server resolves the chat and thread from it."""
        for task in self.tasks.values():
            if task.external_key == external_key and task.device_id == device_id and task.dispatch_count > 0:
                return task.lane
        return None

    def _on_msg_op(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """One msg.op: dropped (``feature-not-declared``, answered by nothing) unless msg-op-v1 is on; else one
        msg.op.result with its opId."""
        p = payload_as(message, MessageOpPayload)
        if not self._msg_op_on(conn):
            self._log(conn.conn_id, now, "feature-not-declared", type_=message.type.value,
                      request_id=p.request_id if isinstance(p.request_id, str) else None)
            return
        lane = self._op_scope(hello_device(conn), p.scope.external_key)
        result, _repeat = self.posts.apply(hello_device(conn), p.op_id, lane, p.action, self._ids)
        frame = build_hook_message(MessageOpResultPayload.from_wire(result.wire()), ids=self._ids, ts=now,
                                   validate=False)
        out.append(self._frame(conn.conn_id, frame))

    def list_posts(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """Control ``list-posts``."""
        return {"posts": self.posts.listing(opt_str(body, "provider"), opt_str(body, "chatId"))}

    # -- restore --------------------------------------------------------------------------------------------------

    def _relay_restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> None:
        self.membership.restore(tables.get(GROUP_MEMBERS_TABLE, ()))

