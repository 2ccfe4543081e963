"""The robustness profile over the raw JSON-RPC of an MCP subject (``-m robustness``; features/robustness/ccweb.feature
and probekit.feature): Hypothesis throws batches of inputs (``simulator.profiles.fuzz.mcp_inputs``: malformed lines, JSON that
is no JSON-RPC, unknown methods, wrong argument types, unknown tools, huge and deep arguments, duplicate ids,
cancellations) at the subject through a raw channel (``simulator.roles.mcp_raw``), each batch followed by a barrier
``ping``, and one property is judged per requirement:

* ``ALIVE``: after every batch the subject (the process, or the endpoint) is still there and answers the barrier
  ``ping`` with an empty result (MCP ping "The receiver MUST respond promptly with an empty response"); after the
  search, ``tools/list`` still lists the tools it listed before (the next valid call answered correctly);
* ``ANSWER``: every well-formed request of the batch got exactly one response (JSON-RPC 2.0 §5 "When a rpc call is
  made, the Server MUST reply with a Response, except for in the case of Notifications"), a cancelled one at most
  one (MCP cancellation: a receiver SHOULD "Not send a response for the cancelled request"), and no response names
  an id that was never sent (a notification is never answered, §4.1);
* ``ERROR_SHAPE``: every response is a JSON-RPC response (result or error, never both), every error has an integer
  ``code`` and a string ``message`` (§5.1);
* ``ERROR_CODE``: an error answering a method the protocol does not define has the code -32601 (§5.1 "Method not
  found"; a should: the spec defines the code without a MUST).

Evidence: the inputs tried (by kind), the answers (results, ``isError`` results, JSON-RPC errors) and the requests
allowed to go unanswered. A pass needs evidence: a batch after which the property could not be observed (the
barrier unanswered) counts for nothing, ``UNOBSERVED_STREAK`` such batches in a row end the search as a failure, and
``ANSWER`` / ``ERROR_SHAPE`` / ``ERROR_CODE`` fail when no answer / no error / no error to an unknown method was
seen at all.

A failing batch is shrunk on the subject (each input alone, then the shortest failing prefix; a subject the harness
spawns is spawned again when it died), saved as a replay file (``simulator.profiles.fuzz.replay``, format ``mcp``) whose path
the failure names; ``--replay FILE`` sends exactly that batch again. ``--fuzz-frames N`` is the budget: at least N
inputs go out per property.
"""

from __future__ import annotations

import itertools
import json
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, cast

from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from ...errors import SubjectTimeout, TargetError
from ...profiles.fuzz.mcp_inputs import Expect, McpInput, ToolSeed, mcp_inputs, with_id
from ...profiles.fuzz.replay import Replay, save_replay
from ...roles.mcp_raw import RawChannel, Received

__all__ = ["McpFuzzReport", "McpFuzzer", "Property"]

#: Largest batch of inputs between two barrier pings.
MAX_BATCH = 6
#: Batches in a row after which the property could not be observed before the search stops: no evidence.
UNOBSERVED_STREAK = 3


class Property(StrEnum):
    ALIVE = "alive"
    ANSWER = "answer"
    ERROR_SHAPE = "error-shape"
    ERROR_CODE = "error-code"


_RULES = {
    Property.ALIVE: "MCP 2025-11-25 ping: The receiver MUST respond promptly with an empty response",
    Property.ANSWER: "JSON-RPC 2.0 §5: When a rpc call is made, the Server MUST reply with a Response, except for in "
                     "the case of Notifications",
    Property.ERROR_SHAPE: "JSON-RPC 2.0 §5: Either the result member or error member MUST be included, but both "
                          "members MUST NOT be included; §5.1: code … This MUST be an integer; message: A String",
    Property.ERROR_CODE: "JSON-RPC 2.0 §5.1: -32601 Method not found: The method does not exist / is not available",
}


@dataclass
class McpFuzzReport:
    """What one property's run tried and what came back."""

    tried: int = 0
    observed: int = 0
    batches: int = 0
    by_kind: Counter[str] = field(default_factory=Counter)
    results: int = 0
    is_error: int = 0
    errors: int = 0
    error_codes: Counter[Any] = field(default_factory=Counter)  # the error's code as sent (any JSON), or "?"
    cancelled_unanswered: int = 0
    unknown_method_errors: int = 0
    restarts: int = 0
    seconds: float = 0.0
    seed: int = 0
    transport: str = ""

    def evidence(self) -> str:
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.by_kind.items()))
        codes = ", ".join(f"{c}×{n}" for c, n in sorted(self.error_codes.items())) or "none"
        return (f"{self.tried} fuzzed inputs in {self.batches} batches ({kinds}) over {self.transport}; the property "
                f"observed after {self.observed} of them; answers: {self.results} results ({self.is_error} with "
                f"isError true), {self.errors} JSON-RPC errors (codes {codes}; {self.unknown_method_errors} to unknown "
                f"methods); {self.cancelled_unanswered} "
                f"cancelled requests left unanswered; {self.restarts} restarts of the subject; "
                f"{self.seconds:.1f} s; Hypothesis seed {self.seed}")


@dataclass
class _Outcome:
    sent: list[tuple[McpInput, str | None]]
    responses: list[Received]
    barrier: Received | None
    alive: bool
    note: str = ""


class _Violation(AssertionError):
    pass


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class McpFuzzer:
    """Runs the properties against one MCP subject through channels ``open_channel`` makes.

    ``open_channel``: a new raw channel to the subject (spawning it, for stdio); ``respawns``: whether a new channel
    is a new subject process (stdio), so that a dead one can be replaced for shrinking; ``inputs``: the budget per
    property; ``step_timeout``: how long a barrier, or a request's answer, is awaited."""

    def __init__(self, open_channel: Callable[[], RawChannel], *, subject: str, transport: str, inputs: int,
                 step_timeout: float, save_dir: Path, respawns: bool, connect_timeout: float | None = None,
                 replay: Replay | None = None, replay_source: str = "", rng_seed: int = 0) -> None:
        self.open_channel, self.subject, self.transport = open_channel, subject, transport
        self.inputs, self.step_timeout, self.save_dir, self.respawns = inputs, step_timeout, save_dir, respawns
        self.replay, self.replay_source, self.rng_seed = replay, replay_source, rng_seed
        self.connect_timeout = connect_timeout or step_timeout
        self.channel: RawChannel | None = None
        self.tools: list[ToolSeed] = []
        self._ids = itertools.count(1)
        self._restarts = 0

    # -- the channel ---------------------------------------------------------------------------------------------

    def _request(self, method: str, params: dict[str, Any] | None = None) -> Received | None:
        assert self.channel is not None
        rid = f"harness-{next(self._ids)}"
        since = self.channel.mark()
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            body["params"] = params
        self.channel.send(json.dumps(body))
        return self.channel.wait_for(rid, self.step_timeout, since=since)

    def _list_tools(self) -> list[ToolSeed]:
        got = self._request("tools/list")
        tools = got.value.get("result", {}).get("tools") if got is not None else None
        if not isinstance(tools, list):
            raise _Violation(f"the {self.subject} did not answer tools/list with a list of tools"
                             f"{': ' + got.text if got else ''}")
        return [ToolSeed(t["name"], schema if isinstance(schema := t.get("inputSchema"), dict) else {})
                for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]

    def start(self) -> None:
        """Open the channel (initialize) and read the tools the inputs are seeded from."""
        self._open()
        try:
            self.tools = self._list_tools()
        except _Violation as exc:
            raise AssertionError(f"{exc} before any fuzzed input: the inputs cannot be seeded") from None
        if not self.tools:
            raise AssertionError(f"the {self.subject} lists no tools: the inputs cannot be seeded (tools/list)")

    def _open(self) -> None:
        if self.channel is not None:
            self.channel.close()
        self.channel = None
        channel = self.open_channel()
        try:
            channel.handshake(self.connect_timeout)
        except (SubjectTimeout, TargetError):
            channel.close()
            raise
        self.channel = channel

    def _ensure_alive(self) -> None:
        if self.channel is not None and self.channel.alive():
            return
        if not self.respawns:
            raise TargetError(f"the {self.subject} at {self.transport} is gone and the harness cannot start it again")
        self._restarts += 1
        self._open()

    def close(self) -> None:
        if self.channel is not None:
            self.channel.close()
            self.channel = None

    # -- one batch -----------------------------------------------------------------------------------------------

    def _deliver(self, batch: list[McpInput]) -> _Outcome:
        self._ensure_alive()
        channel = self.channel
        assert channel is not None
        since = channel.mark()
        sent: list[tuple[McpInput, str | None]] = []
        for item in batch:
            rid = f"fuzz-{next(self._ids)}" if any('"__ID__"' in line for line in item.lines) else None
            for line in item.lines:
                channel.send(with_id(line, rid) if rid is not None else line)
            sent.append((item, rid))
        barrier_id = f"barrier-{next(self._ids)}"
        channel.send(json.dumps({"jsonrpc": "2.0", "id": barrier_id, "method": "ping"}))
        deadline = time.monotonic() + self.step_timeout
        barrier = channel.wait_for(barrier_id, self.step_timeout, since=since)
        for item, rid in sent:  # the requests that must be answered get the rest of the step limit
            if rid is not None and item.expect is Expect.ONE:
                channel.wait_for(rid, max(0.0, deadline - time.monotonic()), since=since)
        channel.settle(max(0.0, deadline - time.monotonic()))
        responses = [m for m in channel.received()[since:] if m.id != barrier_id]
        return _Outcome(sent, responses, barrier, channel.alive(), channel.exit_note())

    def _judge(self, prop: Property, batch: list[McpInput], outcome: _Outcome, report: McpFuzzReport | None
               ) -> bool:
        """Raise ``_Violation`` when ``outcome`` breaks ``prop``; return whether the property could be observed."""
        shown = "; ".join(i.describe(100) for i in batch[:3]) + (f"; and {len(batch) - 3} more" if len(batch) > 3
                                                                  else "")
        subject = self.subject
        if prop is Property.ALIVE:
            if not outcome.alive:
                raise _Violation(f"the {subject} is gone after fuzzed inputs{outcome.note} [{_RULES[prop]}]: {shown}")
            if outcome.barrier is None:
                raise _Violation(f"the {subject} did not answer the ping sent after fuzzed inputs within "
                                 f"{self.step_timeout:.0f} s [{_RULES[prop]}]: {shown}")
            if outcome.barrier.value.get("result") != {}:
                raise _Violation(f"the {subject} answered the ping after fuzzed inputs with "
                                 f"{outcome.barrier.text[:200]!r}, not an empty result [{_RULES[prop]}]: {shown}")
            self._count(outcome, report, self._codes(outcome))
            return True
        by_id: dict[Any, list[Received]] = {}
        for msg in outcome.responses:
            if msg.is_response:
                by_id.setdefault(msg.id, []).append(msg)
        if prop is Property.ANSWER:
            if outcome.barrier is None and outcome.alive:
                return False  # no barrier: a missing answer cannot be told from a slow one
            sent_ids = {rid for _, rid in outcome.sent if rid is not None}
            for item, rid in outcome.sent:
                if rid is None:
                    continue
                got = len(by_id.get(rid, []))
                if item.expect is Expect.ONE and got != 1:
                    how = ("no response" + (f" before it exited{outcome.note}" if not outcome.alive else
                                            f" within {self.step_timeout:.0f} s (the ping after it was answered)")
                           if got == 0 else f"{got} responses")
                    raise _Violation(f"the {subject} gave {how} to the request {item.describe(160)} "
                                     f"(id {rid!r}) [{_RULES[prop]}]: {shown}")
                if item.expect is Expect.MAYBE and got > 1:
                    raise _Violation(f"the {subject} gave {got} responses to the cancelled request "
                                     f"{item.describe(160)} [{_RULES[prop]}]: {shown}")
                if item.expect is Expect.MAYBE and got == 0 and report is not None:
                    report.cancelled_unanswered += 1
            stray = [m for rid, msgs in by_id.items() if rid is not None and rid not in sent_ids for m in msgs]
            if stray:
                raise _Violation(f"the {subject} sent a response for an id that was never sent as a request: "
                                 f"{stray[0].text[:200]!r} [JSON-RPC 2.0 §4.1: The Server MUST NOT reply to a "
                                 f"Notification]: {shown}")
            self._count(outcome, report, self._codes(outcome))
            return outcome.alive
        if outcome.barrier is None:
            return False
        codes = self._codes(outcome)
        for msg in outcome.responses:
            if not msg.is_response:
                continue
            value = msg.value
            problem = ""
            if value.get("jsonrpc") != "2.0":
                problem = 'no "jsonrpc": "2.0"'
            elif "result" in value and "error" in value:
                problem = "both result and error (Either the result member or error member MUST be included, but " \
                          "both members MUST NOT be included)"
            elif "error" in value:
                error = value["error"]
                if not isinstance(error, dict):
                    problem = "an error that is not an object"
                elif not _is_int(error.get("code")):
                    problem = f"an error code {error.get('code')!r} that is not an integer"
                elif not isinstance(error.get("message"), str):
                    problem = f"an error message {error.get('message')!r} that is not a string"
                elif prop is Property.ERROR_CODE and msg.id in codes and error["code"] != codes[msg.id]:
                    problem = (f"the error code {error['code']} for a method the protocol does not define, not "
                               f"{codes[msg.id]} (Method not found: The method does not exist / is not available)")
            if problem and (prop is Property.ERROR_SHAPE or "for a method the protocol" in problem):
                raise _Violation(f"the {subject} answered {msg.text[:200]!r} to fuzzed inputs: {problem} "
                                 f"[{_RULES[prop]}]: {shown}")
            # else, for ERROR_CODE: a malformed answer is ERROR_SHAPE's finding (its code cannot be read)
        self._count(outcome, report, codes)
        return True

    @staticmethod
    def _codes(outcome: _Outcome) -> dict[Any, int]:
        """The ids of the inputs whose error must carry a code a sentence names (an unknown method: -32601)."""
        return {rid: item.code for item, rid in outcome.sent if rid is not None and item.code is not None}

    @staticmethod
    def _count(outcome: _Outcome, report: McpFuzzReport | None, codes: dict[Any, int] | None = None) -> None:
        if report is None:
            return
        for msg in outcome.responses:
            if not msg.is_response:
                continue
            if "error" in msg.value:
                report.errors += 1
                error = msg.value["error"]
                report.error_codes[error.get("code") if isinstance(error, dict) else "?"] += 1
                if codes and msg.id in codes and isinstance(error, dict) and _is_int(error.get("code")):
                    report.unknown_method_errors += 1  # an error whose code can be read (ERROR_CODE's evidence)
            else:
                report.results += 1
                result = msg.value.get("result")
                if isinstance(result, dict) and result.get("isError") is True:
                    report.is_error += 1

    # -- a property over many batches ----------------------------------------------------------------------------

    def check(self, prop: Property, requirement: str) -> McpFuzzReport:
        """Search for a batch that breaks ``prop`` (or send the replayed one); the report on success, an
        ``AssertionError`` naming the smallest failing batch and its replay file otherwise."""
        report = McpFuzzReport(seed=self.rng_seed, transport=self.transport)
        started = time.monotonic()
        violations: list[tuple[list[McpInput], str]] = []
        stopped: list[AssertionError] = []
        streak = [0]

        def attempt(batch: list[McpInput], *, budgeted: bool = True) -> None:
            if stopped:
                raise stopped[0]
            if budgeted and report.tried >= self.inputs:
                return
            try:
                outcome = self._deliver(batch)
            except (SubjectTimeout, TargetError) as exc:
                stopped.append(_Violation(f"the {self.subject} could not be reached again during the robustness "
                                          f"run ({exc}): no evidence for {requirement} [{_RULES[prop]}]"))
                raise stopped[0] from None
            report.tried += len(batch)
            report.batches += 1
            report.by_kind.update(i.kind.value for i in batch)
            try:
                observed = self._judge(prop, batch, outcome, report)
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
                    f"the {self.subject} left {requirement} unobservable after {UNOBSERVED_STREAK} batches in a row "
                    f"(the ping after them unanswered{outcome.note}): no evidence after {report.observed} of "
                    f"{report.tried} fuzzed inputs [{_RULES[prop]}]"))
                raise stopped[0]

        try:
            if self.replay is not None:
                try:
                    # the replay of an MCP requirement is one this fuzzer saved: JSON-RPC lines (format "mcp")
                    attempt(list(cast("tuple[McpInput, ...]", self.replay.inputs)), budgeted=False)
                except _Violation as exc:
                    raise AssertionError(f"{exc} (replayed from {self.replay_source})") from None
            else:
                self._search(attempt, prop, requirement, report, violations, stopped)
            if prop is Property.ALIVE and self.replay is None:
                self._still_lists()
        finally:
            report.restarts = self._restarts
            report.seconds = time.monotonic() - started
        if report.observed == 0:
            raise AssertionError(f"the {self.subject} could not be observed after any fuzzed input: no evidence for "
                                 f"{requirement} [{_RULES[prop]}]")
        if prop is Property.ANSWER and report.results + report.errors == 0:
            raise AssertionError(f"no fuzzed request was answered at all: no evidence for {requirement}")
        if prop is Property.ERROR_CODE and report.unknown_method_errors == 0:
            raise AssertionError(f"no request for an unknown method was answered with a JSON-RPC error whose code "
                                 f"is an integer: the code could not be judged, no evidence for {requirement} "
                                 f"[{_RULES[prop]}]")
        if prop is Property.ERROR_SHAPE and report.errors == 0:
            raise AssertionError(f"no fuzzed input was answered with a JSON-RPC error: the shape of an error could "
                                 f"not be judged, no evidence for {requirement} [{_RULES[prop]}]")
        return report

    def _search(self, attempt: Callable[[list[McpInput]], None], prop: Property, requirement: str,
                report: McpFuzzReport, violations: list[tuple[list[McpInput], str]],
                stopped: list[AssertionError]) -> None:
        examples = max(1, -(-self.inputs // 3) + 10)  # a batch holds 3.5 inputs on average

        @seed(self.rng_seed)
        @settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                  suppress_health_check=list(HealthCheck), phases=(Phase.generate,), report_multiple_bugs=False)
        @given(st.lists(mcp_inputs(self.tools), min_size=1, max_size=MAX_BATCH))
        def search(batch: list[McpInput]) -> None:
            attempt(batch)

        try:
            search()
        except Exception:  # noqa: BLE001 - what attempt() stopped on (Hypothesis may wrap it)
            if not stopped:
                raise
            if not violations:
                raise AssertionError(str(stopped[0])) from None
            batch, message = violations[0]
            smallest, message = self._shrink(prop, batch, message)
            path = save_replay(self.save_dir, Replay(requirement, self.subject, tuple(smallest), fmt="mcp"))
            raise AssertionError(f"{message} — after {report.tried} fuzzed inputs; the failing batch of {len(batch)} "
                                 f"shrunk to {len(smallest)} input(s), saved to {path} (replay: --replay {path})"
                                 ) from None

    def _still_lists(self) -> None:
        """After the search: ``tools/list`` still answers the tools listed before it (the next valid call)."""
        before = sorted(t.name for t in self.tools)
        try:
            self._ensure_alive()
            after = sorted(t.name for t in self._list_tools())
        except (_Violation, SubjectTimeout, TargetError) as exc:
            raise AssertionError(f"after the fuzzed inputs: {exc} [{_RULES[Property.ALIVE]}]") from None
        if after != before:
            raise AssertionError(f"after the fuzzed inputs tools/list lists {len(after)} tools, not the {len(before)} "
                                 f"listed before them (missing: {sorted(set(before) - set(after))[:5]})")

    def _shrink(self, prop: Property, batch: list[McpInput], message: str) -> tuple[list[McpInput], str]:
        """A smaller batch that still breaks ``prop``, checked on the subject: each input alone, then the shortest
        failing prefix; the batch itself when neither fails. Stops when the subject cannot be reached again."""
        candidates = [[item] for item in batch] + [batch[:n] for n in range(2, len(batch))]
        for candidate in candidates:
            try:
                self._judge(prop, candidate, self._deliver(candidate), None)
            except _Violation as exc:
                return candidate, str(exc)
            except (SubjectTimeout, TargetError, AssertionError):
                break
        return batch, message
