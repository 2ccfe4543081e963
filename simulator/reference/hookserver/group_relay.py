"""Group relay of the reference hook server: who is a member of which group, and who gets a group message (spec §5
阶段 14 group.message and its 设计边界; 阶段 19 group.message.author; contract: docs/control-api.md "Queries, gateway
tools, group relay and message operations (hook-server)", "Group relay").

Theory of operation. The server knows only which principals are members of which Telegram group (``Membership``:
chatId ↔ principalId, id-level metadata, durable in the table ``group_members``): spec "server 侧仅可存 chatId ↔
principal 成员元数据(id 级,无内容)用于路由". A group message is never kept: ``read_group_message`` checks the control
request and gives the wire payload of the ``group.message`` (without ``recipient``), the caller fans it out at once
(``fan_out``: for every member principal, for every device holding, at that moment, a confirmed telegram binding of
that principal whose connection has group relay on, one target with that binding as recipient: "每个扇出帧的 recipient
必须来自发送当刻再次确认的 binding") and drops it ("转发即弃"). Nothing here keeps text, file names, author or chat
names.

Sans-I/O: the bindings are the caller's (``provider_binding.Binding``), the clock and ids are arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

import orjson

from ...hook import GroupMessagePayload, HookBuildError, build_hook_message
from ...hook.checks import is_telegram_group_chat_id, is_telegram_user_id
from .effects import MachineError, opt_str, req_str, well_formed

__all__ = [
    "GROUP_MEMBERS_TABLE", "RELAY_PROVIDER", "Membership", "RelayTarget", "fan_out", "is_one_time_credential",
    "read_group_message",
]

#: The durable table of the memberships (store.py).
GROUP_MEMBERS_TABLE: Final = "group_members"
#: Group chats are Telegram's (docs/control-api.md "Group chats are Telegram chats with a negative chatId").
RELAY_PROVIDER: Final = "telegram"
#: The author fields a group.message carries (spec 阶段 14 "author{name,isBot?,id?,username?}").
_AUTHOR_KEYS: Final = ("id", "name", "username", "isBot")


class BindingLike(Protocol):
    binding_id: str
    device_id: str
    provider: str
    principal_id: str


def _invalid(message: str) -> MachineError:
    return MachineError("invalid-request", message)


def is_one_time_credential(text: str) -> bool:
    """spec 阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发": a text that starts with ``/start``."""
    return text.lstrip().startswith("/start")


def member_key(chat_id: str, principal_id: str) -> str:
    return orjson.dumps([chat_id, principal_id]).decode()


@dataclass(slots=True)
class Membership:
    """chatId → its member principals (in the order they joined). Ids only, never a name or any content."""

    chats: dict[str, dict[str, None]] = field(default_factory=dict)

    def of(self, chat_id: str) -> list[str]:
        return list(self.chats.get(chat_id, ()))

    def set(self, chat_id: str, principal_id: str, member: bool) -> tuple[str, str, dict[str, Any] | None]:
        """The provider reports a join (``member``) or a leave: the row to persist ``(table, key, row or None)``."""
        if member:
            self.chats.setdefault(chat_id, {})[principal_id] = None
            row: dict[str, Any] | None = {"chat_id": chat_id, "principal_id": principal_id}
        else:
            members = self.chats.get(chat_id)
            if members is not None:
                members.pop(principal_id, None)
                if not members:
                    del self.chats[chat_id]
            row = None
        return GROUP_MEMBERS_TABLE, member_key(chat_id, principal_id), row

    def restore(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for r in rows:
            self.chats.setdefault(r["chat_id"], {})[r["principal_id"]] = None


@dataclass(frozen=True, slots=True)
class RelayTarget:
    """One group.message to send: to ``device_id``, with ``recipient {bindingId, principalId}``."""

    device_id: str
    binding_id: str
    principal_id: str

    def recipient(self) -> dict[str, str]:
        return {"bindingId": self.binding_id, "principalId": self.principal_id}


def fan_out(members: Iterable[str], bindings: Iterable[BindingLike],
            relay_on: Callable[[str], bool]) -> list[RelayTarget]:
    """The targets of one group message, decided now: for every member principal (in order), for every device holding
    a confirmed telegram binding of that principal (the newest, when it holds several) and for which ``relay_on``
    (its open connection negotiated group relay), one target. spec "对已声明 group-relay-v1 与
    group-relay-recipient-v1 的成员桌面转发即弃"; "recipient 必须来自发送当刻再次确认的 binding"."""
    held: dict[tuple[str, str], BindingLike] = {}
    for b in bindings:  # in confirmation order: a later binding of the same (principal, device) is the newest
        if b.provider == RELAY_PROVIDER:
            held[(b.principal_id, b.device_id)] = b
    out: list[RelayTarget] = []
    for principal in dict.fromkeys(members):
        for (p, device), b in held.items():
            if p == principal and relay_on(device):
                out.append(RelayTarget(device, b.binding_id, b.principal_id))
    return out


def read_group_message(body: Mapping[str, Any], now: int, ids: Callable[[], str]) -> tuple[dict[str, Any], bool]:
    """Control ``inject-group-message``: the ``group.message`` payload (wire keys, no ``recipient``) and
    ``mentionsBot``. Defaults: ``messageId`` a fresh id, ``chatName`` the chatId, ``sentAt`` now. The fields must pass
    the group.message check of the core (400 ``invalid-request`` naming the field otherwise)."""
    provider = req_str(body, "provider")
    if provider != RELAY_PROVIDER:
        raise _invalid(f"provider: group chats are {RELAY_PROVIDER!r} (got {provider!r})")
    chat_id = req_str(body, "chatId")
    if not is_telegram_group_chat_id(chat_id):
        raise _invalid("chatId: a canonical negative decimal (a Telegram group) is required")
    author = body.get("author")
    if not isinstance(author, dict):
        raise _invalid("author: an object {id, name, username?, isBot?} is required")
    if not is_telegram_user_id(author.get("id")):
        raise _invalid("author.id: a canonical positive decimal (a Telegram user id) is required")
    text = body.get("text", "")
    if not isinstance(text, str):
        raise _invalid("text: a string is expected")
    names = body.get("fileNames")
    if names is not None and (not isinstance(names, list) or not all(isinstance(n, str) for n in names)):
        raise _invalid("fileNames: a list of strings is expected")
    if not text and not names:
        raise _invalid("text: a group message carries a non-empty text or fileNames")
    sent_at = body.get("sentAt", now)
    if not isinstance(sent_at, int) or isinstance(sent_at, bool) or sent_at <= 0:
        raise _invalid("sentAt: a positive integer (unix ms) is expected")
    mentions = body.get("mentionsBot", False)
    if not isinstance(mentions, bool):
        raise _invalid("mentionsBot: a boolean is expected")
    wire: dict[str, Any] = {
        "provider": RELAY_PROVIDER, "chatId": chat_id, "threadId": opt_str(body, "threadId"),
        "messageId": opt_str(body, "messageId") or ids(), "chatName": opt_str(body, "chatName") or chat_id,
        "author": {k: author[k] for k in _AUTHOR_KEYS if k in author}, "text": well_formed("text", text),
        "sentAt": sent_at,
    }
    if names is not None:
        wire["fileNames"] = [well_formed("fileNames", n) for n in names]
    try:  # the core's group.message check, once (the frames sent differ only by their recipient)
        build_hook_message(GroupMessagePayload.from_wire(wire), ids=ids, ts=now)
    except HookBuildError as exc:
        path = exc.issue.path.removeprefix("/payload")
        raise _invalid(f"{path.lstrip('/').replace('/', '.') or 'body'}: {exc.issue.message}") from None
    except (TypeError, AttributeError, KeyError) as exc:
        raise _invalid(f"the group message cannot be relayed: {exc}") from None
    return wire, mentions
