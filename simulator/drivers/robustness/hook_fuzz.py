"""The robustness profile over the wire of a hook subject (``-m robustness``; features/robustness): Hypothesis throws
batches of frames every conformant peer must drop (``simulator.profiles.fuzz.wire_inputs``) at the hook server or the desktop
under test, each batch followed by a barrier ping (``FrameProbe.deliver_many``), and one property is judged per
requirement:

* ``KEEP``: the subject never closes the connection after one (§3 "老端收到未知 type 丢帧不断连");
* ``PING``: the barrier ping after every batch is answered within the step limit (阶段 1 "收到 ping 必须回 pong");
* ``NO_EFFECT``: nothing is sent in reaction (§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"; a desktop
  may refuse an invalid task.dispatch with task.ack rejected ``invalid``, 阶段 2).

A pass needs evidence: the count of frames after which the property could be observed (a batch after which the
connection was gone says nothing about pings or reactions) must reach the run's budget's share, and is the pass's
evidence. A failing batch (Hypothesis generates; the search stops at the first failure) is shrunk on the subject
(``_shrink``: each frame alone, then the shortest failing prefix), saved as a replay file (``simulator.profiles.fuzz.replay``)
whose path the failure names, and ``--replay FILE`` sends exactly that batch again.

``--fuzz-frames N`` is spent in full: the search sends batches until at least N fuzzed frames have gone out; then
one frame a UTF-16 unit over the size limit goes (not saved when it fails: 50 MB, and made again at will).

``PING_FLOOD``: a burst of pings, each answered with one pong, judged on its own (``flood``).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from ...errors import SubjectTimeout, TargetError
from ...profiles.fuzz.replay import Replay, save_replay
from ...profiles.fuzz.wire_inputs import WireInput, oversize_input, wire_inputs
from ...hook import make_ping
from ...roles.frame_probe import DeliveryOutcome, FrameProbe
from ...roles.hook_conn import Inbound
from ...wirelog import WireLog
from ..hook_frames.judgement import refuses_invalid_dispatch

__all__ = ["FuzzReport", "HookFuzzer", "Property"]

#: Largest batch of inputs between two barrier pings.
MAX_BATCH = 9
#: A connection carries this many batches at most before the next one opens a fresh connection (bounded memory).
BATCHES_PER_CONNECTION = 500
#: The share of the budget that must have been observed for a pass (a subject that closes now and then still gives
#: evidence of its pings; one that closes after every batch gives none).
MIN_OBSERVED_SHARE = 0.5
#: Batches in a row after which the property could not be observed before the search stops: no evidence.
UNOBSERVED_STREAK = 3


class Property(StrEnum):
    KEEP = "keep"
    PING = "ping"
    NO_EFFECT = "no-effect"


_RULES = {
    Property.KEEP: "spec §3: 老端收到未知 type 丢帧不断连; §2: 坏帧返回 ok:false … 绝不抛异常",
    Property.PING: "阶段 1: ping / pong 双向心跳,收到 ping 必须回 pong",
    Property.NO_EFFECT: "spec §2: 两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false (a dropped frame is not acted on)",
}


@dataclass
class FuzzReport:
    """What one property's run tried: frames sent, frames after which the property was observed, by kind."""

    tried: int = 0
    observed: int = 0
    batches: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    seed: int = 0

    def evidence(self) -> str:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.by_kind.items()))
        return (f"{self.tried} fuzzed frames in {self.batches} batches ({kinds}); the property observed after "
                f"{self.observed} of them; {self.seconds:.1f} s; Hypothesis seed {self.seed}")


class _Violation(AssertionError):
    pass


def _pong_after(seq: int) -> Callable[[Inbound], bool]:
    """Selects a pong received after the entry numbered ``seq``."""
    return lambda e: e.type == "pong" and e.seq > seq


class HookFuzzer:
    """Runs the properties against one subject through ``probe``.

    ``samples``: the valid sample frames the inputs are made from; ``frames``: the budget of fuzzed frames per
    property; ``replay``: a saved failing batch to send instead of searching; ``save_dir``: where a failing batch is
    saved; ``rng_seed``: Hypothesis's seed (the evidence names it)."""

    def __init__(self, probe: FrameProbe, samples: list[dict[str, Any]], *, frames: int, save_dir: Path,
                 replay: Replay | None = None, replay_source: str = "", rng_seed: int = 0) -> None:
        self.probe, self.samples, self.frames, self.save_dir = probe, samples, frames, save_dir
        self.replay, self.replay_source, self.rng_seed = replay, replay_source, rng_seed
        self._batches_on_connection = 0

    # -- one batch ----------------------------------------------------------------------------------------------

    def _deliver(self, batch: list[WireInput]) -> DeliveryOutcome:
        if self._batches_on_connection >= BATCHES_PER_CONNECTION:
            self.probe.retire()
            self._batches_on_connection = 0
        outcome = self.probe.deliver_many([i.data for i in batch], WireLog())
        self._batches_on_connection += 1
        if outcome.closed is not None or outcome.silent:
            self.probe.retire()
            self._batches_on_connection = 0
        return outcome

    @staticmethod
    def _judge(prop: Property, subject: str, batch: list[WireInput], outcome: DeliveryOutcome) -> bool:
        """Raise ``_Violation`` when ``outcome`` breaks ``prop``; return whether the property could be observed."""
        shown = "; ".join(i.describe(100) for i in batch[:3]) + (f"; and {len(batch) - 3} more" if len(batch) > 3
                                                                  else "")
        if prop is Property.KEEP:
            if outcome.closed is not None:
                raise _Violation(f"the {subject} closed the connection after frames every peer must drop "
                                 f"({outcome.closed}) [{_RULES[prop]}]: {shown}")
            return outcome.answered_barrier  # kept, and read: a subject that stopped reading keeps every connection
        if outcome.closed is not None:
            return False  # KEEP's business: no ping or reaction to judge after a close
        if prop is Property.PING:
            if not outcome.answered_barrier:
                raise _Violation(f"the {subject} did not answer the ping sent after frames every peer must drop, "
                                 f"within the step limit ({outcome.note}) [{_RULES[prop]}]: {shown}")
            return True
        if not outcome.answered_barrier:
            return False  # no barrier: reactions cannot be told apart from late answers
        acted = [r for r in outcome.reactions if not refuses_invalid_dispatch(r)]
        if acted:
            raise _Violation(f"the {subject} sent {acted[0].text[:300]!r} in reaction to frames every peer must "
                             f"drop [{_RULES[prop]}]: {shown}")
        return True

    # -- a property over many batches ----------------------------------------------------------------------------

    def check(self, prop: Property, requirement: str) -> FuzzReport:
        """Search for a batch that breaks ``prop`` (or send the replayed one); the report on success, an
        ``AssertionError`` naming the smallest failing batch and its replay file otherwise. The search stops at the
        first violation, and when ``UNOBSERVED_STREAK`` batches in a row left the property unobservable (the
        subject silent, gone or closing each time): that is no evidence, a failure, found in seconds."""
        subject = self.probe.subject
        report = FuzzReport(seed=self.rng_seed)
        started = time.monotonic()
        violations: list[tuple[list[WireInput], str]] = []
        stopped: list[AssertionError] = []
        streak = [0]

        def attempt(batch: list[WireInput], *, budgeted: bool = True) -> None:
            if stopped:  # after the first finding Hypothesis only replays it: nothing more is sent
                raise stopped[0]
            if budgeted and report.tried >= self.frames:
                return  # the budget is spent: Hypothesis's last examples go unsent
            try:
                outcome = self._deliver(batch)
            except (SubjectTimeout, TargetError) as exc:
                stopped.append(_Violation(f"the {subject} could not be reached again during the robustness run "
                                          f"({exc}): no evidence for {requirement} [{_RULES[prop]}]"))
                raise stopped[0] from None
            report.tried += len(batch)
            report.batches += 1
            report.by_kind.update(i.kind.value for i in batch)
            try:
                observed = self._judge(prop, subject, batch, outcome)
            except _Violation as exc:
                violations.append((batch, str(exc)))
                stopped.append(exc)
                raise
            if observed:
                report.observed += len(batch)
                streak[0] = 0
                return
            streak[0] += 1
            if streak[0] >= UNOBSERVED_STREAK:
                stopped.append(_Violation(
                    f"the {subject} left {requirement} unobservable after {UNOBSERVED_STREAK} batches in a row "
                    f"({outcome.describe()}): no evidence after {report.observed} of {report.tried} fuzzed frames "
                    f"[{_RULES[prop]}]"))
                raise stopped[0]

        if self.replay is not None:
            try:
                # the replay of a hook requirement is one this fuzzer saved: WebSocket frames (format "frames")
                attempt(list(cast("tuple[WireInput, ...]", self.replay.inputs)), budgeted=False)
            except _Violation as exc:
                raise AssertionError(f"{exc} (replayed from {self.replay_source})") from None
        else:
            # a batch holds 1 to MAX_BATCH inputs, about 4.8 on average: enough examples to spend the whole budget
            examples = max(1, -(-self.frames // 4) + 10)

            @seed(self.rng_seed)
            @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                      suppress_health_check=list(HealthCheck), phases=(Phase.generate,),
                      report_multiple_bugs=False)
            @given(st.lists(wire_inputs(self.samples), min_size=1, max_size=MAX_BATCH))
            def search(batch: list[WireInput]) -> None:
                attempt(batch)

            try:
                search()
            except Exception as exc:  # noqa: BLE001 - what attempt() stopped on (Hypothesis may wrap it)
                if not stopped:
                    inner = getattr(exc, "exceptions", None)
                    if inner:  # Hypothesis's wrapper (a flaky or multiple failure) names less than what it wraps
                        raise inner[0] from exc
                    raise
                if not violations:
                    raise AssertionError(str(stopped[0])) from None
                batch, message = violations[0]
                smallest, message = self._shrink(prop, subject, batch, message)
                path = save_replay(self.save_dir, Replay(requirement, subject, tuple(smallest)))
                raise AssertionError(f"{message} — after {report.tried} fuzzed frames; the failing batch of "
                                     f"{len(batch)} shrunk to {len(smallest)} frame(s), saved to {path} "
                                     f"(replay: --replay {path})") from None
        if self.replay is None:
            try:  # the frame limit once per run, after the search (§3: dropped, the connection kept)
                attempt([oversize_input()], budgeted=False)
            except _Violation as exc:
                raise AssertionError(f"{exc} — the frame one UTF-16 unit over 48 MiB (not saved: "
                                     f"simulator.profiles.fuzz.wire_inputs.oversize_input() makes it again)") from None
        report.seconds = time.monotonic() - started
        if self.replay is None and report.observed < MIN_OBSERVED_SHARE * report.tried:
            raise AssertionError(f"the {subject} could be observed after only {report.observed} of {report.tried} "
                                 f"fuzzed frames (closed or silent after the rest): no evidence for "
                                 f"{requirement} [{_RULES[prop]}]")
        if report.observed == 0:
            raise AssertionError(f"the {subject} could not be observed after the replayed frames: no evidence")
        return report

    def _shrink(self, prop: Property, subject: str, batch: list[WireInput],
                message: str) -> tuple[list[WireInput], str]:
        """A smaller batch that still breaks ``prop``, checked on the subject: each frame alone, then the shortest
        failing prefix; the batch itself when neither fails (the fault needs the frames together). Bounded: at
        most twice the batch's length of deliveries (a subject that must redial after a close is not retried for
        minutes, as a generic shrinker would)."""
        candidates = [[item] for item in batch] + [batch[:n] for n in range(2, len(batch))]
        for candidate in candidates:
            try:
                self._judge(prop, subject, candidate, self._deliver(candidate))
            except _Violation as exc:
                return candidate, str(exc)
            except (SubjectTimeout, TargetError, AssertionError):
                break  # the subject is gone (or silent): keep what failed
        return batch, message

    def flood(self, pings: int) -> int:
        """Send ``pings`` pings back to back, then wait for as many pongs (阶段 1); the pongs that arrived."""
        self.probe.retire()
        self._batches_on_connection = 0
        conn = self.probe.connection(WireLog())
        floor = conn.received[-1].seq if conn.received else 0
        for _ in range(pings):
            conn.send(make_ping())

        def pongs() -> int:
            return sum(1 for e in conn.received if e.seq > floor and e.type == "pong")

        try:
            while pongs() < pings:
                seen = max((e.seq for e in conn.received if e.seq > floor and e.type == "pong"), default=floor)
                conn.expect(_pong_after(seen), consume=False)
        except SubjectTimeout:
            pass
        except Exception:  # noqa: BLE001 - a close or a missing frame: what arrived is the answer
            pass
        got = pongs()
        self.probe.retire()
        return got
