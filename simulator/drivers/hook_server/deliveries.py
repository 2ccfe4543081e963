"""turn.delivery, judged from the desktop side (spec §5 "turn.delivery 可靠性与兼容"), and the delivery receipt the
server keeps for it.

The per-state shape of a turn.delivery (attempt, retryAt, error and retryable per state; error holds only
code/message/retryable) is the core's rule (``simulator.hook`` turns ``check_delivery``, run by
``parse_hook_message`` on every received frame): ``expect_payload`` fails the step with the core's issue (path,
code, spec reference) for an invalid one. What is judged here is what the core cannot know from one frame: the
sequence of states, the error's code being machine-readable, and the error text repeating nothing of this scenario
(user content, results, the token) and no raw provider body.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ...hook import ABSENT, DeliveryState, MessageType
from .channel import ChannelOps
from .scenario import HookServerScenario

__all__ = [
    "CODE_RE", "LEAK_WINDOW", "MAX_DELIVERY_FRAMES", "RAW_RESPONSE_MARKERS", "DeliveryChecks", "check_delivery_error",
    "leaks",
]

#: A machine-readable error code (§5: the error is "安全结构化 code/message/retryable"): no spaces, no markup, no raw
#: provider body. The spec gives no grammar; this is the harness's reading of "structured".
CODE_RE = re.compile(r"[A-Za-z0-9_.:\-]{1,80}")
#: A piece of user content this long found in a delivery error counts as a leak.
LEAK_WINDOW = 16
#: What marks error.message as a provider's raw response (§5 "不得透传 provider 原始响应"; "provider 的原始响应正文不得上
#: wire"): an HTTP status line, markup, a stack trace, a JSON body, an authorization header.
RAW_RESPONSE_MARKERS = ("HTTP/", "<html", "<!DOCTYPE", "Traceback", '{"', "{'", "Bearer ")
#: The most turn.delivery frames a failing delivery may take before it ends (a bound for the loop, not a rule).
MAX_DELIVERY_FRAMES = 30


def leaks(secret: str, text: str) -> bool:
    """True when ``secret``, or any ``LEAK_WINDOW``-character piece of it, appears in ``text``."""
    if secret in text:
        return True
    return any(secret[i:i + LEAK_WINDOW] in text for i in range(len(secret) - LEAK_WINDOW + 1))


def check_delivery_error(payload: Any, secrets: list[str]) -> None:
    """§5 turn.delivery: "retrying/failed 的 error 仅含安全结构化 code/message/retryable,不得透传 provider 原始响应、
    凭证或用户内容". The shape (exactly those three keys, non-empty strings, retryable per state) is the core's
    (``check_delivery``, already run on the frame); this fails when the code is not machine-readable, the message is
    blank, the error repeats one of ``secrets``, or the message looks like a raw provider response."""
    error = payload.error
    assert error is not None and error is not ABSENT, f"turn.delivery {payload.state} carries no error"
    assert CODE_RE.fullmatch(error.code), f"error.code {error.code!r} is not a machine-readable code"
    assert error.message.strip(), "error.message is blank"
    text = json.dumps(error.to_wire(), ensure_ascii=False)
    leaked = [s for s in secrets if s and leaks(s, text)]
    assert not leaked, f"the turn.delivery error repeats user content or a credential: {leaked!r} in {text}"
    markers = [m for m in RAW_RESPONSE_MARKERS if m in error.message]
    assert not markers, f"error.message looks like a raw provider response ({markers!r}): {error.message!r}"


@dataclass(eq=False)
class DeliveryChecks:
    """turn.delivery and its receipt (spec §5 turn.delivery 可靠性与兼容), over the scenario (``scenario``) and the
    server's clock and task listing (``channel``)."""

    scenario: HookServerScenario
    channel: ChannelOps

    def next_delivery(self, dev: str, name: str) -> Any:
        """The next turn.delivery of ``name`` at the device, typed (checked by the core) and remembered."""
        rid = self.scenario.rid(name)
        payload = self.scenario.device(dev).role.expect_payload(MessageType.TURN_DELIVERY,
                                                                where=lambda p: p.request_id == rid,
                                                                what=f"requestId {rid}")
        self.scenario.deliveries.setdefault(name, []).append(payload)
        return payload

    def last_delivery(self, name: str, *states: DeliveryState, purpose: str = "") -> Any:
        """The last turn.delivery of ``name`` received, which must be in one of ``states`` (``purpose`` ends the
        failure message)."""
        last = (self.scenario.deliveries.get(name) or [None])[-1]
        assert last is not None and last.state in states, f"no {'/'.join(states)} turn.delivery of {name!r}{purpose}"
        return last

    def expect_delivery(self, dev: str, name: str, state: str) -> None:
        """The next turn.delivery of ``name`` is in ``state``."""
        p = self.next_delivery(dev, name)
        assert p.state == state, f"the next turn.delivery of {name!r} is {p.state!r} (attempt {p.attempt}), " \
                                 f"expected {state!r}"

    def expect_retries_until(self, name: str, state: str) -> None:
        """At the first device: retrying frames, each with a safe error, the server's clock moved to each retryAt,
        until a frame in ``state`` (within ``MAX_DELIVERY_FRAMES``)."""
        dev = self.scenario.first_device().name
        for _ in range(MAX_DELIVERY_FRAMES):
            p = self.next_delivery(dev, name)
            if p.state == state:
                return
            assert p.state == DeliveryState.RETRYING, f"turn.delivery {p.state!r} before {state!r}"
            self.check_error_safe(p)
            self.channel.advance_to(p.retry_at)
        raise AssertionError(f"the delivery of {name!r} did not end {state!r} after {MAX_DELIVERY_FRAMES} frames")

    def reach_retry_time(self, name: str) -> None:
        """Move the server's clock past the retryAt of the last (retrying) turn.delivery of ``name``."""
        self.channel.advance_to(self.last_delivery(name, DeliveryState.RETRYING, purpose=" to wait for").retry_at)

    def check_error_safe(self, payload: Any) -> None:
        """``check_delivery_error`` with this scenario's secrets and the hook token."""
        check_delivery_error(payload, self.scenario.secrets + [self.scenario.token or ""])

    def expect_error_safe(self, name: str) -> None:
        """The error of the last retrying/failed turn.delivery of ``name`` is safe and structured."""
        self.check_error_safe(self.last_delivery(name, DeliveryState.RETRYING, DeliveryState.FAILED))

    def expect_no_delivery_for(self, dev: str, name: str) -> None:
        rid = self.scenario.rid(name)
        self.scenario.none_arrives(self.scenario.device(dev).role,
                                   lambda e: e.type == MessageType.TURN_DELIVERY and e.request_id == rid)

    def expect_no_delivery(self, dev: str) -> None:
        self.scenario.none_arrives(self.scenario.device(dev).role, MessageType.TURN_DELIVERY)

    # -- the delivery receipt ------------------------------------------------------------------------------------

    def expect_receipt_bounded(self, name: str) -> None:
        """Spec "服务端若要保证断线后仍可查询或回放终态，需保留有界 TTL 的 delivery receipt" (turn.delivery 可靠性与兼容):
        right after a terminal delivery the server holds its receipt, with an expiry time in the future."""
        row = self.channel.delivery_receipt(name)
        assert row is not None, \
            f"right after the delivery of {name!r} ended the server holds no delivery receipt for it"
        expires = row["receiptExpiresAt"]
        now = self.channel.server_now()
        assert isinstance(expires, int), f"the receipt of {name!r} has no expiry (receiptExpiresAt {expires!r})"
        assert expires > now, f"the receipt of {name!r} expires at {expires}, not after now {now}"
        self.scenario.receipt_expiry[name] = expires

    def pass_receipt_expiry(self, name: str) -> None:
        """Move the server's clock past the receipt expiry of ``name`` read before."""
        expires = self.scenario.receipt_expiry.get(name)
        assert expires is not None, f"the receipt expiry of {name!r} was not read first"
        self.channel.advance_to(expires)

    def expect_no_receipt(self, name: str) -> None:
        """The server comes to hold no delivery receipt of ``name`` (after its expiry)."""
        def check() -> None:
            row = self.channel.delivery_receipt(name)
            assert row is None, f"the server still holds the delivery receipt of {name!r} after its expiry: {row!r}"

        self.scenario.eventually(check)
