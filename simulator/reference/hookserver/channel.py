"""The fake IM channel behind the reference hook server: messages, cards, lifecycle notices, providers.

A channel message is the one reply the bot posts for a task (spec §6 典型时序): created when the user's message is
injected, updated by ack, progress, the published result, a reopen and the disconnect clean-up. Its state moves
by the table ``MESSAGE_TRANSITIONS`` (state × event); a pair not in the table is ignored by the caller (e.g. a
late ack on a finished message: spec §4 idempotency).

Providers (spec §1 多 provider; docs/hook-server-plan.md "Lanes and dispatch") only shape what differs between
Slack, Telegram and X: the ``externalKey`` (opaque to the protocol, "<providerId>:..." by convention, spec §2) and
the default channel name in ``task.dispatch.source``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Protocol

from ...hook import Provider

__all__ = [
    "MessageState", "MessageEvent", "MESSAGE_TRANSITIONS", "FINAL_STATES", "message_step", "ChannelMessage",
    "Card", "Notice", "ProviderShape", "PROVIDERS", "provider_for", "INTERRUPTED_SUFFIX",
]

#: What the clean-up appends to the remembered final text (docs/hook-server-plan.md "turn.reopen").
INTERRUPTED_SUFFIX: Final = "\n\n(reopen interrupted)"


class MessageState(StrEnum):
    PENDING = "pending"            # injected, dispatched or waiting for the device, no ack yet
    QUEUED = "queued"              # ack queued
    IN_PROGRESS = "in_progress"    # ack accepted, progress, or reopened
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"
    REJECTED = "rejected"
    REOPEN_INTERRUPTED = "reopen_interrupted"


class MessageEvent(StrEnum):
    ACK_ACCEPTED = "ack-accepted"
    ACK_QUEUED = "ack-queued"
    ACK_REJECTED = "ack-rejected"
    PROGRESS = "progress"
    FINAL_OK = "final-ok"              # a published ok result, or a reopen round's turn.end ok
    FINAL_ERROR = "final-error"
    FINAL_CANCELLED = "final-cancelled"
    REOPEN = "reopen"                  # spec 阶段 18 "把那条消息改回进行中态"
    CLEANUP = "cleanup"                # spec 阶段 18 disconnect clean-up ("续跑中断")


FINAL_STATES: Final = frozenset({MessageState.DONE, MessageState.FAILED, MessageState.CANCELLED,
                                 MessageState.REJECTED, MessageState.REOPEN_INTERRUPTED})
_OPEN = (MessageState.PENDING, MessageState.QUEUED, MessageState.IN_PROGRESS)
_FINAL_BY_EVENT = {MessageEvent.FINAL_OK: MessageState.DONE, MessageEvent.FINAL_ERROR: MessageState.FAILED,
                   MessageEvent.FINAL_CANCELLED: MessageState.CANCELLED}


def _table() -> dict[tuple[MessageState, MessageEvent], MessageState]:
    t: dict[tuple[MessageState, MessageEvent], MessageState] = {
        (MessageState.PENDING, MessageEvent.ACK_ACCEPTED): MessageState.IN_PROGRESS,
        (MessageState.PENDING, MessageEvent.ACK_QUEUED): MessageState.QUEUED,
        (MessageState.PENDING, MessageEvent.ACK_REJECTED): MessageState.REJECTED,
        (MessageState.IN_PROGRESS, MessageEvent.CLEANUP): MessageState.REOPEN_INTERRUPTED,
    }
    for state in _OPEN:
        t[(state, MessageEvent.PROGRESS)] = MessageState.IN_PROGRESS
        for event, final in _FINAL_BY_EVENT.items():
            t[(state, event)] = final
    for state in (*FINAL_STATES, MessageState.IN_PROGRESS):
        t[(state, MessageEvent.REOPEN)] = MessageState.IN_PROGRESS
    return t


#: state × event → next state. Missing pairs are not transitions: the event changes nothing.
MESSAGE_TRANSITIONS: Final[dict[tuple[MessageState, MessageEvent], MessageState]] = _table()


def message_step(state: MessageState, event: MessageEvent) -> MessageState | None:
    """The next state, or None when the event does not apply in ``state``."""
    return MESSAGE_TRANSITIONS.get((state, event))


@dataclass(slots=True)
class Card:
    """An interaction card rendered on a message (spec §5 阶段 10: the server is a dumb renderer)."""

    interaction_id: str
    kind: str
    title: str
    body: str
    buttons: list[dict[str, str]]
    state: str = "open"            # open | decided | cancelled
    reason: str | None = None      # interaction.cancel reason
    decision: str | None = None    # the pressed buttonId

    def public(self) -> dict[str, Any]:
        return {"interactionId": self.interaction_id, "kind": self.kind, "title": self.title, "body": self.body,
                "buttons": [dict(b) for b in self.buttons], "state": self.state, "reason": self.reason,
                "decision": self.decision}

    def row(self) -> dict[str, Any]:
        return self.public()

    @classmethod
    def from_row(cls, d: dict[str, Any]) -> Card:
        return cls(d["interactionId"], d["kind"], d["title"], d["body"], list(d["buttons"]), d["state"],
                   d.get("reason"), d.get("decision"))


@dataclass(slots=True)
class ChannelMessage:
    """One bot message in a lane. ``generation`` counts reopens; ``owner`` is the (connection, generation) of the
    latest reopen (spec 阶段 18 "给每条消息的归属挂一个连接 / 世代标记"); ``final_state``/``final_text`` are the
    final state remembered at the first reopen after it."""

    message_id: str
    seq: int
    provider: str
    chat_id: str
    thread_id: str | None
    request_id: str
    text: str
    state: MessageState = MessageState.PENDING
    revision: int = 0
    routes: list[str] = field(default_factory=list)
    generation: int = 0
    owner_connection: str | None = None
    owner_generation: int | None = None
    final_state: MessageState | None = None
    final_text: str | None = None
    attachments: list[str] = field(default_factory=list)
    cards: list[Card] = field(default_factory=list)
    publishes: int = 0

    def apply(self, event: MessageEvent, text: str | None = None) -> bool:
        """Take ``event`` (with the new ``text``, if any): True when it was a transition."""
        nxt = message_step(self.state, event)
        if nxt is None:
            return False
        self.state = nxt
        if text is not None:
            self.text = text
        self.revision += 1
        return True

    def card(self, interaction_id: str) -> Card | None:
        return next((c for c in self.cards if c.interaction_id == interaction_id), None)

    def public(self) -> dict[str, Any]:
        owner = None
        if self.owner_connection is not None:
            owner = {"connectionId": self.owner_connection, "generation": self.owner_generation}
        return {"messageId": self.message_id, "provider": self.provider, "chatId": self.chat_id,
                "threadId": self.thread_id, "requestId": self.request_id, "routes": list(self.routes),
                "text": self.text, "state": self.state.value, "revision": self.revision, "owner": owner,
                "attachments": list(self.attachments), "cards": [c.public() for c in self.cards],
                "publishes": self.publishes}

    def row(self) -> dict[str, Any]:
        return {"message_id": self.message_id, "seq": self.seq, "provider": self.provider, "chat_id": self.chat_id,
                "thread_id": self.thread_id, "request_id": self.request_id, "text": self.text,
                "state": self.state.value, "revision": self.revision, "routes": list(self.routes),
                "generation": self.generation, "owner_connection": self.owner_connection,
                "owner_generation": self.owner_generation,
                "final_state": self.final_state.value if self.final_state else None, "final_text": self.final_text,
                "attachments": list(self.attachments), "cards": [c.row() for c in self.cards],
                "publishes": self.publishes}

    @classmethod
    def from_row(cls, d: dict[str, Any]) -> ChannelMessage:
        data = dict(d)
        data["state"] = MessageState(data["state"])
        data["final_state"] = MessageState(data["final_state"]) if data.get("final_state") else None
        data["cards"] = [Card.from_row(c) for c in data.get("cards") or []]
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Notice:
    """A lifecycle notice in the device's DM (spec 上下线通知偏好)."""

    kind: str  # online | offline
    device_id: str
    at: int

    def public(self) -> dict[str, Any]:
        return {"kind": self.kind, "deviceId": self.device_id, "at": self.at}


class ProviderShape(Protocol):
    """What differs between providers: the externalKey and the channel name shown in ``source``."""

    @property
    def name(self) -> str: ...  # read-only: a provider is a frozen record

    def external_key(self, chat_id: str, thread_id: str | None, generation: int) -> str: ...

    def channel_name(self, chat_id: str) -> str: ...


@dataclass(frozen=True, slots=True)
class _Provider:
    name: str
    channel_prefix: str

    def external_key(self, chat_id: str, thread_id: str | None, generation: int) -> str:
        # docs/hook-server-plan.md: <provider>:<chatId>:<threadId or "-">:<generation>
        return f"{self.name}:{chat_id}:{thread_id if thread_id else '-'}:{generation}"

    def channel_name(self, chat_id: str) -> str:
        return f"{self.channel_prefix}{chat_id}"


PROVIDERS: Final[dict[str, ProviderShape]] = {
    Provider.SLACK.value: _Provider(Provider.SLACK.value, "#"),
    Provider.TELEGRAM.value: _Provider(Provider.TELEGRAM.value, ""),
    Provider.X.value: _Provider(Provider.X.value, "@"),
}


def provider_for(name: str) -> ProviderShape | None:
    return PROVIDERS.get(name)
