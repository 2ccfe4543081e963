"""How a subject's answer to a delivered frame case is judged (what ``FrameProbe`` observed: ``DeliveryOutcome``).

A frame the parser rejects must be dropped: the connection kept, nothing sent in reaction, the barrier ping still
answered (spec §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false", §3 "老端收到未知 type 丢帧不断连",
阶段 1 "收到 ping 必须回 pong"). Where the subject's control API offers ``dropped-frames`` (docs/control-api.md),
the drop it reports must name the case's pointer and code. A valid ping must be answered with a pong. Any other
valid frame must not be refused by the parser: the hook server keeps the connection, answers the barrier ping and
reports no drop for it with one of the parser's reasons (``PARSER_REASONS``); what it does with the frame after
parsing (act on it, answer it, drop it as unhandled or as naming an unknown task) is its own business here.
"""

from __future__ import annotations

from typing import Any

from ...verdicts.causes import missing_capabilities_text
from ...errors import NotTestable, SubjectTimeout
from ...hook import AckResult, MessageType, RejectReason
from ...roles.frame_probe import DeliveryOutcome
from ...roles.hook_conn import Inbound

__all__ = ["DROP_RULE", "PARSER_REASONS", "check_accepted_frame", "check_accepted_ping", "check_alive", "check_error_code", "check_rejected_at",
           "refuses_invalid_dispatch", "reported_drop"]

DROP_RULE = ("spec §2: 两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false; §3: 老端收到未知 type 丢帧不断连; "
             "阶段 1: 收到 ping 必须回 pong")

#: The ``dropped-frames`` reasons that mean the frame failed the parser (docs/control-api.md "dropped-frames
#: reasons": ``invalid``, ``unknown-type``, ``too-large``, or ``binary`` for a binary frame); every other reason
#: is about a frame that parsed.
PARSER_REASONS = frozenset({"invalid", "unknown-type", "too-large", "binary"})
ACCEPT_RULE = ("spec §2: 两端收帧唯一入口是 parseHookMessage; §3: 字段级宽容:校验器只查已知字段,未知字段静默忽略; "
               "a frame the parser accepts is not dropped as invalid")


def check_alive(subject: str, outcome: DeliveryOutcome, what: str) -> None:
    """The subject kept the connection, still answered the barrier ping and acted on nothing after ``what``."""
    if outcome.closed is not None:
        raise AssertionError(f"the {subject} closed the connection after {what} instead of dropping it: "
                             f"{outcome.describe()} ({DROP_RULE})")
    if not outcome.answered_barrier:
        if outcome.silent:
            raise SubjectTimeout(f"the {subject} stopped answering after {what}: {outcome.describe()}")
        raise AssertionError(f"the {subject} did not answer the ping sent after {what}: {outcome.describe()} "
                             f"({DROP_RULE})")
    if any(not refuses_invalid_dispatch(r) for r in outcome.reactions):
        raise AssertionError(f"the {subject} acted on {what}: {outcome.describe()} ({DROP_RULE})")


def refuses_invalid_dispatch(frame: Inbound) -> bool:
    """A desktop may answer a task.dispatch it cannot accept with ``task.ack`` rejected ``invalid`` (阶段 2: "拒绝原因:
    … / `invalid`"): a refusal, not acting on the frame. Every other frame sent in reaction is acting on it."""
    if not frame.ok or frame.type != MessageType.TASK_ACK:
        return False
    payload = frame.payload
    result, reason = getattr(payload, "result", None), getattr(payload, "reason", None)
    return result == AckResult.REJECTED and reason == RejectReason.INVALID


def reported_drop(subject: str, outcome: DeliveryOutcome) -> dict[str, Any] | None:
    """The ``dropped-frames`` entry the subject reported for the case: None when its control API does not offer the
    capability, or when a binary frame was dropped as binary (its pointer and code are then not the parser's)."""
    if outcome.dropped is None:
        return None
    assert outcome.dropped, (f"the {subject}'s control API offers dropped-frames but lists no drop for this "
                             f"frame: {outcome.describe()}")
    entry = outcome.dropped[0]
    if outcome.sent_as == "binary" and entry.get("reason") == "binary":
        return None
    return entry


def check_rejected_at(subject: str, outcome: DeliveryOutcome, pointer: str, *, ping_case: bool) -> None:
    """Dropped (``check_alive``); a rejected ping not answered; a reported drop at ``pointer``."""
    what = f"a frame its parser must reject at {pointer!r}"
    check_alive(subject, outcome, what)
    if ping_case:
        assert outcome.pongs == 1, (f"the {subject} answered {what} with a pong ({outcome.pongs} pongs "
                                    f"for one valid ping): {outcome.describe()} ({DROP_RULE})")
    entry = reported_drop(subject, outcome)
    if entry is not None:
        assert entry.get("path") == pointer, (
            f"the {subject} reported the drop at {entry.get('path')!r}, the frame is invalid at "
            f"{pointer!r} (docs/control-api.md dropped-frames: path is the JSON pointer of the parse issue): {entry!r}")


def check_error_code(subject: str, outcome: DeliveryOutcome, code: str) -> None:
    """Dropped (``check_alive``); a reported drop with ``code``."""
    check_alive(subject, outcome, f"a frame its parser must reject with {code}")
    entry = reported_drop(subject, outcome)
    if entry is not None:
        assert entry.get("code") == code, (
            f"the {subject} reported the drop with code {entry.get('code')!r}, expected {code!r} "
            f"(docs/control-api.md dropped-frames: code comes from the parse result): {entry!r}")


def check_accepted_ping(subject: str, outcome: DeliveryOutcome) -> None:
    """A valid ping: the subject stays alive and answers it with a pong (阶段 1)."""
    what = "a valid ping"
    if outcome.closed is None and not outcome.answered_barrier and outcome.pongs == 1:
        # two pings went out (the case, then the barrier) and one pong came back: pongs carry nothing to tell which
        # ping one answers, so the subject is alive and left a ping unanswered, the valid case as far as one can tell
        raise AssertionError(f"the {subject} answered one pong for two pings, a valid ping and the barrier ping after "
                             f"it: it dropped or ignored a valid ping (阶段 1: 收到 ping 必须回 pong): "
                             f"{outcome.describe()}")
    check_alive(subject, outcome, what)
    assert outcome.pongs >= 2, (f"the {subject} did not answer {what} with a pong "
                                f"(阶段 1: 收到 ping 必须回 pong): {outcome.describe()}")


def check_accepted_frame(subject: str, outcome: DeliveryOutcome) -> None:
    """A valid frame (not a ping): the subject keeps the connection and answers the barrier ping (anything it sends
    in reaction is allowed), and its ``dropped-frames`` lists no drop of it with a parser's reason. Without the
    capability, a drop and an acceptance look the same on the wire: not testable."""
    what = "a valid frame"
    if outcome.closed is not None:
        raise AssertionError(f"the {subject} closed the connection after {what}: {outcome.describe()} ({ACCEPT_RULE})")
    if not outcome.answered_barrier:
        if outcome.silent:
            raise SubjectTimeout(f"the {subject} stopped answering after {what}: {outcome.describe()}")
        raise AssertionError(f"the {subject} did not answer the ping sent after {what}: {outcome.describe()}")
    if outcome.dropped is None:
        raise NotTestable(missing_capabilities_text(subject, ["dropped-frames"], "without it, a valid frame it accepted "
                                                     "and one it dropped look the same on the wire"))
    refused = [e for e in outcome.dropped if e.get("reason") in PARSER_REASONS]
    assert not refused, (f"the {subject} dropped {what} as unparseable ({ACCEPT_RULE}): dropped-frames reported "
                         f"{refused[0]!r}; {outcome.describe()}")
