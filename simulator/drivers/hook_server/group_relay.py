"""Group relay, judged from the desktop side (spec §1 群消息中继; §5 阶段 14 group.message and its 设计边界; 阶段 19
group.message.author), with the Telegram side played through the control API (docs/control-api.md "Queries, gateway
tools, group relay and message operations (hook-server)": ``group-member``, ``inject-group-message``).

Names: a *group* ("team") gets a fresh negative chat id; a *principal* ("ann") a fresh Telegram user id (a canonical
positive decimal) per scenario; a device binds a principal through the provider binding driver (``provider.bind.start``
→ the user's ``/start <token>`` → confirmed), the binding named by the feature ("a1"); a *group message* ("m1") is
named when a member writes it: its fields are fresh markers (text, file name, author name and handle, chat name) that
must reach the member desktops exactly and must show in no control answer afterwards ("群聊内容不得驻留在 server").

Every group.message a device receives is parsed by the core (``parse_hook_message``): an invalid one fails the step
that meets it. A "nothing arrives" check ends on the role's barrier (``expect_none``: a closed or silent connection is
no evidence) and also looks at everything the device's connections received in the scenario; a check that needs a
listing capability the server lacks is *not testable*.
"""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any, Final, cast

from ...errors import NotTestable
from ...hook import GroupMessageAuthor, MessageType, make_group_message, make_msg_op_result
from ...roles.hook_conn import Inbound
from .channel import ChannelOps
from .provider_bindings import ProviderBindingOps
from .scenario import HookServerScenario

__all__ = ["CONTENT_LISTINGS", "GroupMessage", "GroupRelayOps", "RelayState"]

#: The listing capabilities whose answers must show no group content (docs/control-api.md, hook-server; a capability
#: the server does not offer is not read), and the two that must be offered for the check to prove anything.
CONTENT_LISTINGS: Final = ("list-messages", "list-tasks", "dropped-frames", "connections", "notices", "list-bindings",
                           "list-posts", "list-queries", "list-tool-calls")
REQUIRED_LISTINGS: Final = ("list-messages", "dropped-frames")
#: The group.message fields the member desktops must receive as the provider gave them (spec 阶段 14 table).
RELAYED_FIELDS: Final = ("provider", "chatId", "threadId", "messageId", "chatName", "author", "text", "fileNames",
                         "sentAt")
_TELEGRAM_ID_MAX: Final = (1 << 52) - 1


def _fresh_user_id() -> str:
    """A Telegram user id: a canonical positive decimal within the Bot API's 52-bit range (spec 阶段 19)."""
    return str(random.randint(10**9, _TELEGRAM_ID_MAX))


def _fresh_group_id() -> str:
    """A Telegram group chat id: a canonical negative decimal within the 52-bit range."""
    return f"-{random.randint(10**12, _TELEGRAM_ID_MAX)}"


@dataclass
class GroupMessage:
    """One message written in a group: the fields given to the server (wire keys), its markers (the content that must
    not stay on the server) and the server's answer."""

    name: str
    fields: dict[str, Any]
    markers: tuple[str, ...]
    answer: dict[str, Any] = field(default_factory=dict)

    @property
    def message_id(self) -> str:
        message_id: str = self.fields["messageId"]
        return message_id


@dataclass
class RelayState:
    groups: dict[str, str] = field(default_factory=dict)
    principals: dict[str, str] = field(default_factory=dict)
    #: binding name → the principal id it binds
    bound_principal: dict[str, str] = field(default_factory=dict)
    messages: dict[str, GroupMessage] = field(default_factory=dict)
    #: message name → {device name: the group.message payloads it received}
    received: dict[str, dict[str, list[Any]]] = field(default_factory=dict)


@dataclass(eq=False)
class GroupRelayOps:
    """Group relay (spec §1 群消息中继, 阶段 14): memberships, the fan-out, no content kept; over the scenario
    (``scenario``), the channel's records (``channel``) and the Telegram bindings (``provider_bindings``)."""

    scenario: HookServerScenario
    channel: ChannelOps
    provider_bindings: ProviderBindingOps

    #: The scenario's groups, principals and group messages.
    relay: RelayState = field(default_factory=RelayState)

    def group_id(self, name: str) -> str:
        return self.relay.groups.setdefault(name, _fresh_group_id())

    def principal_id(self, name: str) -> str:
        return self.relay.principals.setdefault(name, _fresh_user_id())

    def group_message(self, name: str) -> GroupMessage:
        if name not in self.relay.messages:
            raise AssertionError(f"no group message named {name!r} in this scenario")
        return self.relay.messages[name]

    # -- Given / When ----------------------------------------------------------------------------------------------

    def hold_telegram_binding(self, dev: str, binding: str, principal: str, chat: str | None = None) -> None:
        """The device binds the Telegram principal: ``provider.bind.start``, the user's ``/start <token>`` in the DM
        chat ``chat`` (default: one per principal, so the same principal again on the device supersedes), confirmed."""
        pid = self.principal_id(principal)
        self.provider_bindings.start_binding(dev, "telegram", binding)
        self.provider_bindings.send_start(binding, chat or f"dm-{principal}", pid)
        self.provider_bindings.expect_provider_confirmed(dev, binding, pid)
        self.relay.bound_principal[binding] = pid

    def set_members(self, group: str, principals: list[str], member: bool = True) -> None:
        """The provider tells the server who joined (or left) the group (``group-member``)."""
        self.scenario.answers.require("group-member")
        for p in principals:
            self.scenario.ctl("group-member", {"provider": "telegram", "chatId": self.group_id(group),
                                               "principalId": self.principal_id(p), "member": member})

    def write_in_group(self, author: str, name: str, group: str, *, text: str | None = None,
                       thread: str | None = None, files: int = 1, mention: bool = False) -> GroupMessage:
        """``author`` writes the group message ``name`` (``inject-group-message``): its text, file names, author name
        and handle, and chat name are fresh markers unless ``text`` is given (then that text, no file)."""
        self.scenario.answers.require("inject-group-message")
        tag = uuid.uuid4().hex
        markers = {"name": f"sim-author-{tag}", "username": f"sim_{tag[:24]}", "chat": f"sim-chat-name-{tag}",
                   "text": f"sim-group-text-{tag}"}
        names = [f"sim-file-{tag}-{i}.txt" for i in range(files)] if text is None else []
        fields: dict[str, Any] = {
            "provider": "telegram", "chatId": self.group_id(group), "threadId": thread,
            "messageId": f"sim-gm-{tag}", "chatName": markers["chat"],
            "author": {"id": self.principal_id(author), "name": markers["name"], "username": markers["username"],
                       "isBot": False},
            "text": markers["text"] if text is None else text, "sentAt": 1_700_000_000_000 + random.randint(1, 10**9),
        }
        if names:
            fields["fileNames"] = names
        body = {**fields, "mentionsBot": mention}
        answer = self.scenario.ctl("inject-group-message", body)
        assert answer["messageId"] == fields["messageId"], \
            f"inject-group-message answered messageId {answer['messageId']!r}, the message was {fields['messageId']!r}"
        content = (markers["name"], markers["username"], markers["chat"], *names,
                   *((markers["text"],) if text is None else ()))
        msg = GroupMessage(name, fields, content, answer)
        self.relay.messages[name] = msg
        return msg

    def write_start_link(self, author: str, name: str, group: str) -> GroupMessage:
        """``author`` writes ``/start <token>`` in the group (a one-time credential: spec 阶段 14 "一次性凭证(如绑定深链
        /start <token>)由 server 过滤,不转发"); the token is fresh, its text the content that must reach nobody."""
        token = uuid.uuid4().hex
        msg = self.write_in_group(author, name, group, text=f"/start {token}")
        msg.markers = (*msg.markers, token)
        return msg

    def go_offline(self, dev: str) -> None:
        """The device closes its connection and the server has seen it go (``connections`` lists none of its
        connections open): a message injected now finds it offline."""
        self.scenario.device(dev).role.close_connection()
        self.scenario.eventually(lambda: self.channel.check_no_open_connection(dev))

    def come_back(self, dev: str) -> None:
        """The device opens a new connection and says its last hello again (welcomed)."""
        role = self.scenario.device(dev).role
        role.reconnect(close_old="keep", hello=True)
        self.scenario.note(dict(role.identity))

    def send_group_message_of_its_own(self, dev: str, group: str) -> None:
        """A group.message sent by the desktop (a server → desktop type), then the barrier."""
        tag = uuid.uuid4().hex
        self.scenario.device(dev).role.send_message(make_group_message(
            provider="telegram", chat_id=self.group_id(group), message_id=f"sim-echo-{tag}",
            # the wire object as given: make_group_message puts a payload field that is no Wire object on the wire
            # as is, but its annotation (simulator/hook) names only the typed GroupMessageAuthor
            author=cast(GroupMessageAuthor, {"id": self.principal_id(f"echo-{tag}"), "name": f"sim-echo-{tag}"}),
            text=f"sim-echo-{tag}",
            sent_at=1_700_000_000_000, thread_id=None, chat_name=None))
        self.scenario.barrier()

    def send_op_result_of_its_own(self, dev: str) -> None:
        """A msg.op.result sent by the desktop (a server → desktop type), then the barrier."""
        self.scenario.device(dev).role.send_message(make_msg_op_result(op_id=f"sim-op-{uuid.uuid4()}", ok=True))
        self.scenario.barrier()

    # -- Then --------------------------------------------------------------------------------------------------------

    def _is_group_message(self, msg: GroupMessage | None) -> Callable[[Inbound], bool]:
        def match(e: Any) -> bool:
            if e.type != MessageType.GROUP_MESSAGE.value:
                return False
            return msg is None or not e.ok or e.payload.message_id == msg.message_id
        return match

    def expect_relayed(self, dev: str, name: str, binding: str, *, every_field: bool = False) -> None:
        """spec §1 "server 把群消息实时转发给该群已知绑定成员的桌面 … server 按扇出目标填 recipient{bindingId,principalId}":
        the device receives the group message (by its messageId) with ``recipient`` = the binding (its bindingId and
        principal); ``every_field``: and every field as the provider gave it (阶段 14 table; author id / username
        阶段 19)."""
        msg = self.group_message(name)
        entry = self.scenario.device(dev).role.expect(self._is_group_message(msg))
        assert entry.ok, f"the server's group.message is invalid: {entry.issue}"
        p = entry.payload
        self.relay.received.setdefault(name, {}).setdefault(dev, []).append(p)
        want = {"bindingId": self.provider_bindings.binding_id(binding),
                "principalId": self.relay.bound_principal[binding]}
        wire = p.to_wire()
        got = wire.get("recipient")
        assert got == want, f"group.message {name!r} to device {dev!r}: recipient {got!r}, expected {want!r} " \
                            f"(the binding {binding!r} of that desktop)"
        if not every_field:
            return
        wrong = {k: (wire.get(k), msg.fields.get(k)) for k in RELAYED_FIELDS if wire.get(k) != msg.fields.get(k)}
        assert not wrong, f"group.message {name!r} to device {dev!r} differs from the message as written " \
                          f"(field: (received, written)): {wrong!r}"[:1200]

    def expect_not_relayed(self, devs: list[str], name: str | None = None) -> None:
        """No group.message (of ``name``, or any) reaches the devices: none arrived in the scenario on any of their
        connections, and none arrives in the quiet window on their open connection (the connection alive)."""
        msg = self.group_message(name) if name is not None else None
        match = self._is_group_message(msg)
        for dev in devs:
            role = self.scenario.device(dev).role
            self.scenario.none_arrives(role, match)
            sent = [e.text for conn in role.connections for e in conn.received if match(e)]
            what = f"group message {name!r}" if name else "a group.message"
            assert not sent, f"device {dev!r} received {what}: {sent!r}"[:800]

    def expect_mention_task(self, dev: str, name: str) -> None:
        """spec 阶段 14 "task.dispatch.source 增加可选 triggerMessageId(与 group.message.messageId 同一 id 空间)": the
        device receives the task of the message addressing the bot, its source.triggerMessageId the message's
        messageId (the one the member desktops received)."""
        msg = self.group_message(name)
        rid = msg.answer.get("requestId")
        assert rid, f"the server made no task of group message {name!r} addressing the bot: {msg.answer!r}"
        payload = self.scenario.device(dev).role.expect_dispatch(request_id=rid)
        self.scenario.request_ids[name], self.scenario.dispatches[name] = rid, [payload]
        source = payload.source
        trigger = getattr(source, "trigger_message_id", None) if source is not None else None
        assert trigger == msg.message_id, \
            f"task.dispatch.source.triggerMessageId {trigger!r}, the group message's messageId is {msg.message_id!r}"

    def expect_task_without_content(self, task: str, earlier: str) -> None:
        """spec 阶段 14 设计边界 "群聊内容不得驻留在 server(内存亦不允许) … 滚动窗口、增量游标与上下文拼装全部在 desktop
        本地完成": the task dispatched for the group message ``task`` (received by ``expect_mention_task``) holds none
        of the content of the earlier group message ``earlier`` (its text, file names, author name and handle, chat
        name) in any field: a server that kept nothing has no context to put there."""
        msg = self.group_message(earlier)
        dispatched = self.scenario.dispatches.get(task)
        assert dispatched, f"no task of group message {task!r} was received before this step"
        text = json.dumps(dispatched[0].to_wire(), ensure_ascii=False)
        found = [m for m in msg.markers if m in text]
        assert not found, (f"the task of group message {task!r} carries content of the earlier group message "
                           f"{earlier!r}: {found!r} (the server kept it): {text[:600]}")

    def expect_no_content_kept(self, name: str) -> None:
        """spec 阶段 14 设计边界 "群聊内容不得驻留在 server(内存亦不允许) … server 侧仅可存 chatId ↔ principal 成员元数据
        (id 级,无内容)": after the relay, no answer of any listing capability the server offers (``CONTENT_LISTINGS``)
        carries the message's text, file names, author name or handle, or chat name. Without ``list-messages`` and
        ``dropped-frames`` the check would prove nothing: not testable."""
        msg = self.group_message(name)
        answers = self.scenario.answers
        for capability in REQUIRED_LISTINGS:
            answers.require(capability)
        self.scenario.settle()
        read = []
        for capability in CONTENT_LISTINGS:
            try:
                answers.require(capability)
            except NotTestable:
                continue
            if capability not in answers.listings and f"{capability}.response" not in answers.schema.defs:
                continue  # a capability this harness's schema does not describe yet: its answer cannot be checked
            answer = self.scenario.ctl(capability, {})
            text = json.dumps(answer, ensure_ascii=False)
            found = [m for m in msg.markers if m in text]
            assert not found, f"the {capability} answer still holds content of group message {name!r}: {found!r}"
            read.append(capability)
        assert set(REQUIRED_LISTINGS) <= set(read), f"the listings read: {read!r}"
