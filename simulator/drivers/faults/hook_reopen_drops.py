"""Abrupt disconnects in the middle of a reopened round (fault profile, ``-m faults``; slack-hook-protocol.md 阶段 18),
over many rounds at random timing: the harness desktop of ``simulator.drivers.faults.hook_drops`` finishes a task
with an error, reopens it (``turn.reopen`` with a fresh UUID v4 requestId, then ``turn.progress``) and cuts its TCP
connection.

* ``closed_out`` (阶段 18 "连接断开时必须收口该连接上所有'已 reopen 但还没收到 turn.end'的消息 —— 恢复成原来的终态,
  或改写成一句「续跑中断」"): the message must leave the in-progress state for ``failed`` (its original final state)
  or ``reopen_interrupted``. The drop comes at a random moment: right after the reopen, after its progress, with or
  without a ping barrier first (so the server may or may not have read the reopen: "断在 server 装上映射之前" leaves the
  message failed, which is fine too).
* ``late_cleanup`` (阶段 18 "收口必须在真正落笔时校验所有权 ... 迟到的收口不得盖掉更新的一次 reopen 装上的进行中态、更不得
  盖掉已经到达的新终态"): the server's clean-up is delayed (control ``set-cleanup-latency``), the desktop comes back at
  once and reopens the same message again (in half the rounds it also ends that round); once the delay has passed
  (waited out, as the existing HOOK-SERVER-CLEANUP-02 steps do: no assertion on time) the message must show the newer
  round's progress, or its final text.
"""

from __future__ import annotations

import time
import uuid
from ...errors import MissingFrame, NotTestable, SubjectTimeout
from .hook_drops import DropReport, HookDrops, require_control, wait_message

__all__ = ["ReopenDrops"]

RULE_CLOSED_OUT = "阶段 18: 连接断开时必须收口该连接上所有\"已 reopen 但还没收到 turn.end\"的消息 —— 恢复成原来的终态,或改写成一句「续跑中断」。"
RULE_LATE = "阶段 18: 迟到的收口不得盖掉更新的一次 reopen 装上的进行中态、更不得盖掉已经到达的新终态。"
#: The clean-up delay of the late clean-up rounds, and how long after it the round looks (harness settings).
CLEANUP_DELAY_MS = 300
CLEANUP_MARGIN_S = 0.3


class ReopenDrops(HookDrops):
    """Reopen rounds with a drop mid-round (see the module docstring)."""

    def _open_reopen(self, needs: tuple[str, ...]) -> None:
        require_control(self.control, needs, self.requirement)
        self.open()
        if not self.reopen_declared:
            self.close()
            raise NotTestable(f"{self.requirement}: the hook server's welcome does not declare turn-reopen-v1 (阶段 18: "
                              f"desktop 只在 server 于 welcome.features 宣告 HOOK_FEATURE_TURN_REOPEN 时才发本帧)")

    def _failed_task(self, n: int, kind: str) -> tuple[str, str]:
        """A task of a chat of its own, ended with an error: its requestId once its message is ``failed``."""
        role = self.role
        assert role is not None
        chat = f"C-FAULT-{kind}-{self.seed}-{n}-{uuid.uuid4().hex[:6]}"
        rid = self.inject(chat, f"fault round {n}: {kind}")
        role.expect_dispatch(request_id=rid)
        role.ack(rid, "accepted")
        role.end(rid, "error", "", f"round {n} failed")
        wait_message(self.control, rid, self.step_timeout, lambda r: r.get("state") == "failed", "failed")
        return chat, rid

    def closed_out(self) -> DropReport:
        report = DropReport("reopen")
        started = time.monotonic()
        self._open_reopen(("inject-message", "list-messages"))
        try:
            for n in range(1, self.rounds + 1):
                try:
                    self._closed_out_round(n, report)
                except (AssertionError, MissingFrame, SubjectTimeout) as exc:
                    report.lost += 1
                    report.failures.append(f"round {n}: {exc} [{RULE_CLOSED_OUT}]")
                    break
                report.rounds += 1
        finally:
            report.seconds = time.monotonic() - started
            self.close()
        return report

    def _closed_out_round(self, n: int, report: DropReport) -> None:
        role = self.role
        assert role is not None
        _, rid = self._failed_task(n, "reopen")
        report.tasks += 1
        retry = str(uuid.uuid4())
        role.reopen(retry, rid)
        if self.rng.random() < 2 / 3:
            role.progress(retry, f"round {n}: retrying")
        if self.rng.random() < 0.5:
            self.barrier()
        self.drop_and_return()
        report.drops += 1
        try:
            wait_message(self.control, rid, self.step_timeout,
                         lambda r: r.get("state") in ("failed", "reopen_interrupted"), "failed or reopen_interrupted")
        except AssertionError as exc:
            raise AssertionError(f"the reopened message of {rid} was left in progress after the drop: {exc}") from None

    def late_cleanup(self) -> DropReport:
        report = DropReport("reopen")
        started = time.monotonic()
        self._open_reopen(("inject-message", "list-messages", "set-cleanup-latency"))
        self.control.call("set-cleanup-latency", {"ms": CLEANUP_DELAY_MS})
        try:
            for n in range(1, self.rounds + 1):
                try:
                    self._late_round(n, report)
                except (AssertionError, MissingFrame, SubjectTimeout) as exc:
                    report.duplicated += 1  # an older state written over a newer one
                    report.failures.append(f"round {n}: {exc} [{RULE_LATE}]")
                    break
                report.rounds += 1
        finally:
            report.seconds = time.monotonic() - started
            try:
                self.control.call("set-cleanup-latency", {"ms": 0})
            finally:
                self.close()
        return report

    def _late_round(self, n: int, report: DropReport) -> None:
        role = self.role
        assert role is not None
        _, rid = self._failed_task(n, "late-cleanup")
        report.tasks += 1
        first, second = str(uuid.uuid4()), str(uuid.uuid4())
        role.reopen(first, rid)
        role.progress(first, f"round {n}: first retry")
        self.barrier()
        self.drop_and_return()
        report.drops += 1
        role.reopen(second, rid)
        newer = f"round {n}: the newer retry"
        role.progress(second, newer)
        ended = self.rng.random() < 0.5
        final = f"round {n}: finished by the newer retry"
        if ended:
            self._end_round(second, rid, final)
        self.barrier()
        time.sleep(CLEANUP_DELAY_MS / 1000 + CLEANUP_MARGIN_S)  # the delayed clean-up has had time to run
        if ended:
            want, text = "done", final
        else:
            want, text = "in_progress", newer
        try:
            wait_message(self.control, rid, self.step_timeout,
                         lambda r: r.get("state") == want and text in str(r.get("text")), f"{want} with {text!r}")
        except AssertionError as exc:
            raise AssertionError(f"the late clean-up of the dropped connection overwrote the newer "
                                 f"{'final state' if ended else 'reopen'}: {exc}") from None
        if not ended:
            self._end_round(second, rid, final)
            self.barrier()

    def _end_round(self, round_id: str, rid: str, text: str) -> None:
        """turn.end ok of the reopen round ``round_id`` of task ``rid`` (its externalKey and session)."""
        role = self.role
        assert role is not None
        role.end(round_id, "ok", text, external_key=role.dispatches[rid].external_key,
                 session_id=role.session_for(rid))
