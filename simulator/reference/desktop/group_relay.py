"""Group relay at the desktop: the rolling window of group messages, the recipient check and the context of a
dispatch. Pure: no I/O, no clock (slack-hook-protocol.md §1 群消息中继, §5 阶段 14, 阶段 19 group.message.author).

Spec sentences this module keeps:

* §1 "群消息中继(group-relay):group.message —— server 把群消息实时转发给该群已知绑定成员的桌面(fire-and-forget),
  滚动窗口与上下文拼装全部在 desktop 本地;基础能力协商双向(HOOK_FEATURE_GROUP_RELAY='group-relay-v1')。接收方代际由追加能力
  HOOK_FEATURE_GROUP_RELAY_RECIPIENT='group-relay-recipient-v1' 协商:server 按扇出目标填 recipient{bindingId,principalId},
  desktop 仅在它与当前 confirmed binding 精确匹配时入窗" (``relay_on``, ``recipient_check_on``, ``recipient_matches``);
* 阶段 14 "messageId(反查 id,与 task.dispatch 引用块、桌面窗口条目同键关联)": the window is keyed by messageId
  (``GroupWindow.add`` keeps the first entry of a messageId);
* 阶段 14 "task.dispatch.source 增加可选 triggerMessageId(与 group.message.messageId 同一 id 空间):desktop 据此在本地窗口中
  精确剔除"当前消息";旧 server 不发时 desktop 降级为不剔重" (``GroupWindow.context``);
* 阶段 14 "Telegram 无历史 API,存储方为用户自己的设备": the window is kept on the device (the effects
  ``SaveGroupEntry`` / ``ForgetGroupEntries``, carried out by the client into SQLite).

The window keeps the newest ``WINDOW_PER_CHAT`` entries of each chat (a rolling window; the spec sets no size:
docs/control-api.md "Queries, gateway tools, group relay and message operations (desktop)").
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ...hook import ABSENT, Feature

__all__ = [
    "WINDOW_PER_CHAT", "relay_on", "recipient_check_on", "recipient_matches", "WindowEntry", "GroupWindow",
    "SaveGroupEntry", "ForgetGroupEntries",
]

#: How many entries of one chat the window keeps (the newest); a reference choice, the spec sets none.
WINDOW_PER_CHAT: Final = 50


def _both(feature: Feature, hello: Iterable[str], welcome: Iterable[str]) -> bool:
    return feature.value in set(hello) and feature.value in set(welcome)


def relay_on(hello: Iterable[str], welcome: Iterable[str]) -> bool:
    """§1 "基础能力协商双向(HOOK_FEATURE_GROUP_RELAY='group-relay-v1')": group-relay-v1 in hello and in welcome."""
    return _both(Feature.GROUP_RELAY, hello, welcome)


def recipient_check_on(hello: Iterable[str], welcome: Iterable[str]) -> bool:
    """§1 "接收方代际由追加能力 HOOK_FEATURE_GROUP_RELAY_RECIPIENT='group-relay-recipient-v1' 协商": the recipient check
    applies when group relay is on and group-relay-recipient-v1 is in hello and in welcome too."""
    return relay_on(hello, welcome) and _both(Feature.GROUP_RELAY_RECIPIENT, hello, welcome)


def recipient_matches(recipient: Any, confirmed: Iterable[tuple[str, str | None]]) -> bool:
    """§1 "desktop 仅在它与当前 confirmed binding 精确匹配时入窗": ``recipient`` (the frame's, or ``ABSENT``) equals
    ``(bindingId, principalId)`` of one of the ``confirmed`` bindings of the frame's provider, both fields exactly."""
    if recipient is ABSENT or recipient is None:
        return False
    return (recipient.binding_id, recipient.principal_id) in set(confirmed)


@dataclass(frozen=True, slots=True)
class WindowEntry:
    """One group message as the desktop keeps it (what ``state.groupWindow`` shows; docs/control-api.md)."""

    provider: str
    chat_id: str
    thread_id: str | None
    message_id: str
    chat_name: str | None
    author: Mapping[str, Any]
    text: str
    file_names: tuple[str, ...]
    sent_at: int

    @classmethod
    def from_payload(cls, p: Any) -> WindowEntry:
        """The entry of a parsed group.message payload (its author in wire form, known fields only)."""
        a = p.author
        author: dict[str, Any] = {"name": a.name}
        for key, value in (("isBot", a.is_bot), ("id", a.id), ("username", a.username)):
            if value is not ABSENT:
                author[key] = value
        names = () if p.file_names is ABSENT else tuple(p.file_names)
        return cls(p.provider, p.chat_id, p.thread_id, p.message_id, p.chat_name, author, p.text, names,
                   int(p.sent_at))

    @property
    def chat(self) -> tuple[str, str]:
        return self.provider, self.chat_id

    @property
    def thread(self) -> tuple[str, str, str | None]:
        return self.provider, self.chat_id, self.thread_id

    def to_json(self) -> dict[str, Any]:
        return {"provider": self.provider, "chatId": self.chat_id, "threadId": self.thread_id,
                "messageId": self.message_id, "chatName": self.chat_name, "author": dict(self.author),
                "text": self.text, "fileNames": list(self.file_names), "sentAt": self.sent_at}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> WindowEntry:
        return cls(data["provider"], data["chatId"], data["threadId"], data["messageId"], data["chatName"],
                   dict(data["author"]), data["text"], tuple(data["fileNames"]), int(data["sentAt"]))


@dataclass(frozen=True, slots=True)
class SaveGroupEntry:
    """Keep a window entry on the device (SQLite): ``seq`` orders the window, ``text`` is ``to_json`` as JSON."""

    message_id: str
    seq: int
    text: str


@dataclass(frozen=True, slots=True)
class ForgetGroupEntries:
    """Drop entries that left the rolling window."""

    message_ids: tuple[str, ...]


@dataclass
class GroupWindow:
    """The desktop's rolling window: entries by messageId, in the order they entered, at most ``per_chat`` per chat."""

    per_chat: int = WINDOW_PER_CHAT
    entries: dict[str, tuple[int, WindowEntry]] = field(default_factory=dict)
    seq: int = 0

    def load(self, saved: Iterable[tuple[int, str]]) -> None:
        """The entries an earlier run saved: (seq, JSON text), in any order."""
        for seq, text in sorted(saved):
            entry = WindowEntry.from_json(json.loads(text))
            self.entries[entry.message_id] = (seq, entry)
            self.seq = max(self.seq, seq)

    def add(self, entry: WindowEntry) -> list[SaveGroupEntry | ForgetGroupEntries]:
        """Enter ``entry`` unless its messageId is already in the window (阶段 14: window entries keyed by messageId);
        the chat's oldest entries beyond ``per_chat`` leave. Returns the effects that keep the device's copy."""
        if entry.message_id in self.entries:
            return []
        self.seq += 1
        self.entries[entry.message_id] = (self.seq, entry)
        effects: list[SaveGroupEntry | ForgetGroupEntries] = [
            SaveGroupEntry(entry.message_id, self.seq, json.dumps(entry.to_json(), ensure_ascii=False))]
        chat = [mid for mid, (_, e) in self.entries.items() if e.chat == entry.chat]
        gone = tuple(chat[:max(0, len(chat) - self.per_chat)])
        for mid in gone:
            del self.entries[mid]
        if gone:
            effects.append(ForgetGroupEntries(gone))
        return effects

    def context(self, trigger_message_id: Any) -> list[str] | None:
        """阶段 14 "desktop 据此在本地窗口中精确剔除"当前消息"": the messageIds of the other entries of the trigger's chat
        and thread, oldest first (by ``sentAt``, then by entry order); None when there is no trigger or it is not in
        the window (nothing to assemble the context around)."""
        if not isinstance(trigger_message_id, str) or trigger_message_id not in self.entries:
            return None
        thread = self.entries[trigger_message_id][1].thread
        others = [(e.sent_at, seq, mid) for mid, (seq, e) in self.entries.items()
                  if e.thread == thread and mid != trigger_message_id]
        return [mid for _, _, mid in sorted(others)]

    def state(self) -> list[dict[str, Any]]:
        """``state.groupWindow``: every entry, in the order they entered."""
        return [e.to_json() for _, e in sorted(self.entries.values(), key=lambda se: se[0])]
