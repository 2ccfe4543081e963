"""Group relay at a desktop under test (slack-hook-protocol.md §1 群消息中继, §5 阶段 14, 阶段 19 group.message.author;
docs/control-api.md "Queries, gateway tools, group relay and message operations (desktop)": ``state.groupWindow``,
``runs[].groupContext``).

The harness plays the server: it confirms a provider binding (``push_confirmed`` of ``providers``), relays group
messages (``group.message``, valid or malformed, to a recipient of its choice) and dispatches a task triggered by
one of them; it judges what the desktop's control ``state`` shows: the window (``groupWindow``) and the context of a
turn (``runs[].groupContext``). Names in the feature ("m1", "c1") map to fresh messageIds and chat ids per scenario,
so an external desktop's window from earlier scenarios never matches. A recipient "to binding b1" is the
{bindingId, principalId} that ``push_confirmed`` gave that binding.

A scenario concerns a desktop that declares the family in its own hello (``require_hello_features``: else not
applicable). "Not shown" checks read ``state`` after a ping answered with a pong (the desktop has read every frame
sent before it, on a connection still open). Every answer is checked before it is read against
docs/desktop-control-api.schema.json (``checked_window``: ``$defs/groupWindowEntry``; ``checked_run_context``:
``$defs/run``): a missing or mistyped field is the desktop's malformed answer, a failure.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from ...hook import HOOK_CHAT_WORKSPACE_ALIAS, MessageType
from .answers import checked_fields
from .providers import ProviderChecks
from .session import TELEGRAM, DesktopSession
from .state import StateChecks

__all__ = ["GroupRelayChecks", "checked_window", "checked_run_context"]

#: The author the harness relays (a Telegram member: a canonical user id and a handle, §5 阶段 19).
_AUTHOR = {"name": "Conformance member", "isBot": False, "id": "4503599627370495", "username": "conformance_member"}
#: The sentAt of the first message of a scenario (unix ms); each later one is a second later.
_SENT_AT = 1_767_225_600_000


def checked_window(state: dict[str, Any]) -> list[dict[str, Any]]:
    """``state.groupWindow`` when it matches ``$defs/state.response`` (each entry a ``$defs/groupWindowEntry``); else
    ``AssertionError`` naming the schema entry and the JSON pointer."""
    window: list[dict[str, Any]] = checked_fields(state, "state", ("groupWindow",))["groupWindow"]
    return window


def checked_run_context(run: dict[str, Any]) -> list[str] | None:
    """``groupContext`` of a ``runs`` entry (``$defs/run``): a list of messageIds or null; absent or mistyped is
    malformed."""
    context: list[str] | None = checked_fields(run, "state", ("groupContext",), definition="run")["groupContext"]
    return context


@dataclass(eq=False)
class GroupRelayChecks:
    """The group relay operations of a desktop scenario, over the session, its control ``state`` (``state``) and the
    provider families' bookkeeping (``providers``: the ids of the bindings a recipient names)."""

    session: DesktopSession
    state: StateChecks
    providers: ProviderChecks

    #: message name → the group.message payload the harness relayed (wire form), the latest per name.
    relayed: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: chat name → its Telegram supergroup id (``chat_id``).
    chats: dict[str, str] = field(default_factory=dict)

    def require_hello_features(self, features: Iterable[str]) -> None:
        """Not applicable unless the desktop declares every one of ``features`` in its own hello (§1: "基础能力协商
        双向"; the recipient generation is negotiated the same way)."""
        for feature in features:
            self.providers.require_hello(feature)

    def message_id(self, name: str) -> str:
        return self.providers.pid("message", name)

    def chat_id(self, name: str) -> str:
        """A fresh Telegram supergroup id for chat ``name`` (a canonical negative decimal), one per scenario."""
        return self.chats.setdefault(name, f"-100{uuid.uuid4().int % 10 ** 10:010d}")

    def recipient(self, binding: str, *, other_principal: bool = False) -> dict[str, str]:
        """{bindingId, principalId} of binding ``binding`` as ``push_confirmed`` confirmed it (``other_principal``: the
        same bindingId with a principal it was never confirmed for)."""
        principal = f"{binding}:other" if other_principal else binding
        return {"bindingId": self.providers.pid("binding", binding),
                "principalId": self.providers.pid("principal", principal)}

    def _payload(self, message: str, chat: str, recipient: dict[str, str] | None) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "provider": "telegram", "chatId": self.chat_id(chat), "threadId": None, "messageId": self.message_id(message),
            "chatName": f"Conformance chat {chat}", "author": dict(_AUTHOR), "text": f"Group message {message}.",
            "fileNames": [f"{message}.png"], "sentAt": _SENT_AT + 1000 * len(self.relayed),
        }
        if recipient is not None:
            payload["recipient"] = recipient
        return payload

    def _send(self, p: dict[str, Any], *, validate: bool = True) -> None:
        self.session.server.group_message(p["provider"], p["chatId"], p["messageId"], p["author"], p["text"],
                                          p["sentAt"], p["threadId"], p["chatName"], p.get("recipient"),
                                          p.get("fileNames"), validate=validate)

    def relay(self, message: str, chat: str, recipient: dict[str, str] | None) -> None:
        """group.message ``message`` in chat ``chat`` to ``recipient`` (None: the field left out)."""
        payload = self._payload(message, chat, recipient)
        self.relayed[message] = payload
        self._send(payload)

    def relay_again(self, message: str) -> None:
        """The same group.message again (same payload, a new envelope)."""
        assert message in self.relayed, f"the harness relayed no group message {message!r} before this step"
        self._send(self.relayed[message])

    def relay_bad_author(self, message: str, chat: str, binding: str, field: str, value: Any) -> None:
        """A group.message to ``binding`` whose author ``field`` is ``value``, sent as is (the core would refuse to
        build it where the value breaks 阶段 19): a desktop that took it would show it."""
        payload = self._payload(message, chat, self.recipient(binding))
        payload["author"][field] = value
        self.session.server.send_frame({"v": 1, "type": MessageType.GROUP_MESSAGE.value, "id": str(uuid.uuid4()),
                                        "ts": 1, "payload": payload})

    def relay_malformed(self, message: str, chat: str, binding: str) -> None:
        """group.message frames to ``binding`` that fail the core's checks, each of which a lenient desktop would enter
        under ``message``: a recipient without principalId, neither text nor file names, sentAt 0, an empty threadId,
        no chatId, a payload that is not an object, broken JSON."""
        good = self._payload(message, chat, self.recipient(binding))
        frames = [
            {**good, "recipient": {"bindingId": good["recipient"]["bindingId"]}},
            {**good, "text": "", "fileNames": []},
            {**good, "sentAt": 0},
            {**good, "threadId": ""},
            {k: v for k, v in good.items() if k != "chatId"},
        ]
        for payload in frames:
            self.session.server.send_frame({"v": 1, "type": MessageType.GROUP_MESSAGE.value, "id": str(uuid.uuid4()),
                                            "ts": 1, "payload": payload})
        self.session.server.send_frame({"v": 1, "type": MessageType.GROUP_MESSAGE.value, "id": str(uuid.uuid4()),
                                        "ts": 1, "payload": [good["messageId"]]})
        self.session.server.send_raw('{"v":1,"type":"group.message","id":"garbage-y","ts":1,"payload":{"messageId":"'
                                     + good["messageId"] + '"')

    def dispatch_triggered(self, name: str, message: str) -> None:
        """task.dispatch of ``name`` whose source.triggerMessageId is the messageId of group message ``message``
        (阶段 14: "与 group.message.messageId 同一 id 空间")."""
        self.session.key_names[name] = name
        self.session.keys.setdefault(name, self.session.fresh_key(TELEGRAM))  # group relay is Telegram's (阶段 14)
        self.session.server.dispatch(self.session.rid(name), self.session.key_for(name), HOOK_CHAT_WORKSPACE_ALIAS,
                                     prompt=f"Conformance task {name}.",
                                     source={"im": TELEGRAM, "triggerMessageId": self.message_id(message)})

    # -- what the desktop shows --------------------------------------------------------------------------------------

    def _entries(self, state: dict[str, Any], message: str) -> list[dict[str, Any]]:
        mid = self.message_id(message)
        return [e for e in checked_window(state) if e["messageId"] == mid]

    def check_shown(self, message: str) -> dict[str, Any]:
        """The window shows an entry of ``message`` (polled: the desktop enters it once it has read the frame)."""
        state = self.state.poll_state(lambda s: bool(self._entries(s, message)),
                                      f"group message {message!r} in its window")
        return self._entries(state, message)[0]

    def check_shown_as_relayed(self, message: str) -> None:
        """§1 / 阶段 14: the entry holds the relayed message's fields as sent ("滚动窗口 … 全部在 desktop 本地完成": the
        desktop keeps what the server relayed; the recipient is routing, not content)."""
        sent = self.relayed.get(message)
        assert sent is not None, f"the harness relayed no group message {message!r} before this step"
        entry = self.check_shown(message)
        want = {k: v for k, v in sent.items() if k != "recipient"}
        got = {k: entry.get(k) for k in want}
        assert got == want, f"the desktop's window shows {message!r} as {json.dumps(got)[:500]}, not as relayed: " \
                            f"{json.dumps(want)[:500]}"

    def check_not_shown(self, message: str) -> None:
        """The window holds no entry of ``message``, read after a pong (the desktop read the frames, its connection
        open)."""
        self.session.barrier()
        shown = self._entries(self.state.state(), message)
        assert not shown, f"the desktop entered group message {message!r} in its window: {json.dumps(shown)[:500]}"

    def check_shown_once(self, message: str) -> None:
        """阶段 14: "messageId(… 桌面窗口条目同键关联)": one entry per messageId, read after a pong."""
        self.check_shown(message)
        self.session.barrier()
        shown = self._entries(self.state.state(), message)
        assert len(shown) == 1, f"the desktop's window holds {len(shown)} entries of messageId " \
                                f"{self.message_id(message)} ({message!r}): {json.dumps(shown)[:500]}"

    def check_group_context(self, name: str, others: Iterable[str], trigger: str) -> None:
        """阶段 14 "desktop 据此在本地窗口中精确剔除"当前消息"": the context of ``name`` holds ``others`` (entries of the
        trigger's chat the feature names: those before the trigger) and not the trigger itself."""
        rid = self.session.rid(name)

        def run_of(state: dict[str, Any]) -> dict[str, Any] | None:
            return next((r for r in state["runs"] if r["requestId"] == rid), None)

        state = self.state.poll_state(lambda s: run_of(s) is not None, f"a run of {name!r}")
        # the poll ended once the state listed a run of name: run_of finds it
        context = checked_run_context(cast("dict[str, Any]", run_of(state)))
        assert context is not None, (
            f"the desktop assembled no group context for {name!r} (groupContext null) although its triggerMessageId "
            f"names group message {trigger!r} of its window")
        missing = [m for m in others if self.message_id(m) not in context]
        assert not missing, f"the group context of {name!r} lacks the messages {missing} of the trigger's chat: " \
                            f"{context!r}"[:600]
        assert self.message_id(trigger) not in context, (
            f"the group context of {name!r} holds the trigger message {trigger!r} itself: {context!r}"[:600])
