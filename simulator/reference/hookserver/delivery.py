"""The delivery of an accepted ``turn.end`` result to the channel (spec §4, §5 "turn.delivery 可靠性与兼容").

Theory of operation. A normal ``turn.end`` becomes a ``Delivery``: the result is persisted and committed, then
``accepted`` (attempt 0) is reported; from then on publishing is the server's job. Each publish attempt either
succeeds (``delivered``, terminal) or fails: a retryable failure before the last attempt schedules the next one
(``retrying`` with ``retryAt`` = now + ``backoff_ms``·2^(n−1)); the last attempt failing, or a non-retryable
failure, ends in ``failed`` (terminal). The receipt is kept ``receipt_ttl_ms`` after the terminal state so a
replayed ``turn.end`` is answered with the latest state, then purged.

The error carried on the wire is always the safe structured one (``SAFE_ERROR``): never the provider's response,
a token or user text (spec: "retrying/failed 的 error 仅含安全结构化 code/message/retryable").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

from ...hook import DeliveryState

__all__ = [
    "DeliveryEvent", "DELIVERY_TRANSITIONS", "TERMINAL", "RetryPolicy", "Delivery", "SAFE_ERROR_CODE",
    "SAFE_ERROR_MESSAGE", "delivery_step",
]

SAFE_ERROR_CODE: Final = "channel_publish_failed"
SAFE_ERROR_MESSAGE: Final = "the channel rejected the update"
TERMINAL: Final = frozenset({DeliveryState.DELIVERED, DeliveryState.FAILED})


class DeliveryEvent(StrEnum):
    PUBLISHED = "published"          # the channel took the update
    FAILED_RETRYABLE = "failed-retryable"  # a retryable failure with attempts left
    GAVE_UP = "gave-up"              # the last attempt failed, or the failure is not retryable


#: state × event → next state; a pair not in the table cannot happen (terminal states take no event).
DELIVERY_TRANSITIONS: Final[dict[tuple[DeliveryState, DeliveryEvent], DeliveryState]] = {
    (DeliveryState.ACCEPTED, DeliveryEvent.PUBLISHED): DeliveryState.DELIVERED,
    (DeliveryState.ACCEPTED, DeliveryEvent.FAILED_RETRYABLE): DeliveryState.RETRYING,
    (DeliveryState.ACCEPTED, DeliveryEvent.GAVE_UP): DeliveryState.FAILED,
    (DeliveryState.RETRYING, DeliveryEvent.PUBLISHED): DeliveryState.DELIVERED,
    (DeliveryState.RETRYING, DeliveryEvent.FAILED_RETRYABLE): DeliveryState.RETRYING,
    (DeliveryState.RETRYING, DeliveryEvent.GAVE_UP): DeliveryState.FAILED,
}


def delivery_step(state: DeliveryState, event: DeliveryEvent) -> DeliveryState:
    try:
        return DELIVERY_TRANSITIONS[(state, event)]
    except KeyError:
        raise ValueError(f"hook-server delivery: no transition from {state} on {event}") from None


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Attempts 1..max_attempts; the wait after failed attempt n is ``backoff_ms``·2^(n−1)."""

    max_attempts: int = 3
    backoff_ms: int = 1000
    receipt_ttl_ms: int = 86_400_000

    def retry_at(self, now: int, attempt: int) -> int:
        return now + self.backoff_ms * (1 << (attempt - 1))

    def event_for_failure(self, attempt: int, retryable: bool) -> DeliveryEvent:
        if retryable and attempt < self.max_attempts:
            return DeliveryEvent.FAILED_RETRYABLE
        return DeliveryEvent.GAVE_UP


@dataclass(slots=True)
class Delivery:
    """The durable record of one accepted result and its delivery receipt."""

    request_id: str
    message_id: str
    #: whether turn.delivery frames are sent (both sides declared turn-delivery-v1 on the ending connection)
    notify: bool
    status: str
    final_text: str
    error_message: str | None
    attachments: list[str] = field(default_factory=list)
    state: DeliveryState = DeliveryState.ACCEPTED
    attempt: int = 0
    retry_at: int | None = None
    receipt_expires_at: int | None = None
    last_error_retryable: bool | None = None
    accepted_at: int = 0

    def row(self) -> dict[str, Any]:
        return {
            "request_id": self.request_id, "message_id": self.message_id, "notify": self.notify,
            "status": self.status, "final_text": self.final_text, "error_message": self.error_message,
            "attachments": list(self.attachments), "state": self.state.value, "attempt": self.attempt,
            "retry_at": self.retry_at, "receipt_expires_at": self.receipt_expires_at,
            "last_error_retryable": self.last_error_retryable, "accepted_at": self.accepted_at,
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Delivery:
        data = dict(row)
        data["state"] = DeliveryState(data["state"])
        data["attachments"] = list(data.get("attachments") or [])
        return cls(**data)

    @property
    def terminal(self) -> bool:
        return self.state in TERMINAL
