"""What the conversations show after a send, read through the control API (ccweb-reply-mode-prd.md 目标, §2, §5;
docs/control-api.md "ccweb").

* A call returns at once: the target run it started is still ``running``.
* A refused call sends nothing: no new message, run or pending reply in the target conversation.
* ``one_way``: no pending reply; the target run's output stays in the target conversation, and nothing is written
  back to the source (no message, no continuation run), also after the target run finished.
* ``return_and_continue``: a pending reply keeps the original request and stays ``waiting`` until the target run
  ends; then the output is written back to the source conversation.

Each check takes what it reads (the control API, the conversation ids, the message count noted at creation) so that
it stands on its own; ``CcwebDriver`` supplies the scenario's values.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .contract import FINISHED_STATUSES, PendingStatus, RunStatus, is_one_of
from .control_view import CcwebControl
from .waiting import SETTLE_REFUSED_S, SETTLE_WRITE_BACK_S, stays_absent, wait_for

__all__ = [
    "expect_still_running", "expect_nothing_sent", "expect_no_pending", "pending_for_request",
    "expect_keeps_original", "expect_still_waiting", "expect_output_in", "expect_no_write_back",
]

Record = dict[str, Any]


def expect_still_running(run: Record) -> None:
    """The call has returned and the target run it started is still running (目标: no mode waits for the run)."""
    assert run.get("status") == RunStatus.RUNNING, (
        f"the call has returned, but the target run is {run.get('status')!r}, not {RunStatus.RUNNING.value!r}: {run}"
    )


def expect_nothing_sent(control: CcwebControl, target_id: str, before: int, step_timeout: float) -> None:
    """Over the settle window after a refused call: no new message, no run and no pending reply in the target."""

    def sent() -> Any:
        messages = control.messages(target_id)
        if len(messages) > before:
            return {"new messages in the target conversation": messages[before:]}
        if runs := control.runs(target_id):
            return {"runs in the target conversation": runs}
        if pending := control.pending_for_target(target_id):
            return {"pending replies for the target conversation": pending}
        return None

    stays_absent("the refused call sent something", sent, SETTLE_REFUSED_S, step_timeout, settle=control.settle)


def expect_no_pending(control: CcwebControl, target_id: str) -> None:
    """A one_way send leaves no pending reply for the target conversation."""
    pending = control.pending_for_target(target_id)
    assert not pending, f"pending replies for the target conversation {target_id!r}: {pending}"


def pending_for_request(control: CcwebControl, rid: str) -> Record:
    """The pending reply of the request ``rid``; none is a failure."""
    pending = control.pending()
    record = next((p for p in pending if p.get("requestId") == rid), None)
    assert record is not None, f"no pending reply for the request {rid!r}; pending replies: {pending}"
    return record


def expect_keeps_original(record: Record, content: str | None) -> None:
    """§5: the pending reply keeps the original request text, the content the source sent."""
    assert record.get("originalRequest") == content, (
        f"the pending reply keeps {record.get('originalRequest')!r} as the original request, not the content sent "
        f"{content!r}: {record}"
    )


def expect_still_waiting(record: Record, target_id: str) -> None:
    """The pending reply names the target and is still ``waiting`` (nothing answered it yet)."""
    assert record.get("targetConversationId") == target_id, f"the pending reply names another target: {record}"
    assert record.get("status") == PendingStatus.WAITING, (
        f"the pending reply is {record.get('status')!r}, not {PendingStatus.WAITING.value!r} (nothing answered it "
        f"yet): {record}"
    )


def expect_output_in(control: CcwebControl, conv_id: str, output: str, since: int, what: str,
                     step_timeout: float) -> None:
    """Wait for a message of ``conv_id`` after the first ``since`` ones whose text holds ``output``; ``what`` names
    it in the failure ("no message with the output … within N s")."""
    wait_for(what, lambda: [m for m in control.messages(conv_id)[since:] if output in str(m.get("text"))] or None,
             lambda: f"its messages: {control.messages(conv_id)}", step_timeout)


def expect_no_write_back(control: CcwebControl, source_id: str, target_id: str, target_runs: Callable[[], list[Record]],
                         before: int, step_timeout: float) -> None:
    """Once the target run has finished, the source gets no new message and no run over the settle window."""
    wait_for("finished target run", lambda: [r for r in target_runs() if is_one_of(r.get("status"), FINISHED_STATUSES)]
             or None, lambda: f"runs of the target conversation: {control.runs(target_id)}", step_timeout)

    def written_back() -> Any:
        if new := control.messages(source_id)[before:]:
            return {"new messages in the source conversation": new}
        if runs := control.runs(source_id):
            return {"runs in the source conversation": runs}
        return None

    stays_absent("a one_way send wrote back to the source", written_back, SETTLE_WRITE_BACK_S, step_timeout,
                 settle=control.settle)
