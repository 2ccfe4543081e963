"""What an MCP subject wrote to its stdout, judged against the stdio transport of MCP 2025-11-25 (the revision the
probe-kit design names and the ccweb server speaks), basic/transports#stdio: "The server MUST NOT write anything to
its stdout that is not a valid MCP message."

Every MCP session the harness opens over stdio records each line the subject wrote to its stdout: a JSON-RPC
message as itself, anything else as a received event with the summary ``invalid`` and the reason it is not a
message (simulator/roles/mcp_client.py, ``mcp_transports.InvalidFrame``). A connection is a stdio one when its
``open`` note names a ``stdio:`` target. ``stdout_lines`` reads one scenario's wire log that way; ``EmittedLines``
gathers every scenario of the run, and ``results`` gives one result per MCP role whose subject was reached over
stdio: *pass* with the number of lines read, *fail* naming the first line that is not a message and its scenario.
A role never reached over stdio gets no result (no evidence, no pass); the feature's own scenario
(features/*/stdio.feature) judges the lines of a session it opens over stdio.

Sans-I/O: wire events in, results out.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ..errors import NotTestable
from ..verdicts.results import ScenarioResult, Verdict
from ..wirelog import Direction, WireEvent

__all__ = ["EMITTED_LINES_FEATURE", "STDIO_RULES", "EmittedLines", "StdoutLines", "check_stdout_is_mcp",
           "judge_emitted_lines", "stdout_lines"]

#: MCP role → the requirement that its subject's stdout carries only MCP messages.
STDIO_RULES = {"ccweb": "CCWEB-STDIO-STDOUT-01", "probekit": "PROBE-STDIO-STDOUT-01"}
#: The ``feature`` of the run-wide results (they come from every scenario, not from one feature file).
EMITTED_LINES_FEATURE = "features (stdout lines the MCP subject wrote, in every scenario)"
_MAX_TEXT = 500
_MAX_KEPT = 20


@dataclass
class StdoutLines:
    """The lines the subject wrote to stdout on the stdio connections of a wire log: how many were MCP messages,
    and (reason, text) of each that was not."""

    messages: int = 0
    invalid: list[tuple[str, str]] = field(default_factory=list)
    connections: int = 0

    @property
    def total(self) -> int:
        return self.messages + len(self.invalid)


def stdout_lines(events: Iterable[WireEvent]) -> StdoutLines:
    """What the subject wrote to stdout on every stdio connection among ``events`` (one scenario's wire log)."""
    events = list(events)
    stdio = {(e.role, e.conn) for e in events
             if e.direction is Direction.NOTE and e.channel == "connection" and e.summary == "open"
             and e.text.startswith("open stdio:")}
    seen = StdoutLines(connections=len(stdio))
    for e in events:
        if e.direction is not Direction.RECEIVED or e.channel != "jsonrpc" or (e.role, e.conn) not in stdio:
            continue
        if e.summary == "invalid":
            seen.invalid.append((e.verdict or "not a JSON-RPC message", e.text[:_MAX_TEXT]))
        else:
            seen.messages += 1
    return seen


@dataclass
class _Role:
    target: str = ""
    messages: int = 0
    #: (scenario, reason, text) of each line that was not a message (the first ``_MAX_KEPT``), and how many in all.
    invalid: list[tuple[str, str, str]] = field(default_factory=list)
    invalid_count: int = 0


class EmittedLines:
    """The stdout lines of every stdio MCP session of a run, per role (``STDIO_RULES``)."""

    def __init__(self) -> None:
        self._by_role: dict[str, _Role] = {}

    def observe_scenario(self, subject: dict[str, str] | None, scenario: str, events: Iterable[WireEvent]) -> None:
        if subject is None or subject.get("role") not in STDIO_RULES:
            return
        seen = stdout_lines(events)
        if not seen.connections:
            return
        part = self._by_role.setdefault(subject["role"], _Role(subject.get("target", "")))
        part.messages += seen.messages
        part.invalid_count += len(seen.invalid)
        room = _MAX_KEPT - len(part.invalid)
        part.invalid.extend((scenario, reason, text) for reason, text in seen.invalid[:max(room, 0)])

    def to_json(self) -> dict[str, Any]:
        """What was seen (a pytest-xdist worker hands it to the controller: simulator/harness/xdist_bridge.py)."""
        return {role: {"target": p.target, "messages": p.messages, "invalidCount": p.invalid_count,
                       "invalid": [list(x) for x in p.invalid]} for role, p in self._by_role.items()}

    def absorb(self, data: dict[str, Any]) -> None:
        """Add what another ``EmittedLines`` saw (its ``to_json``)."""
        for role, got in data.items():
            part = self._by_role.setdefault(role, _Role(got.get("target", "")))
            part.messages += int(got.get("messages", 0))
            part.invalid_count += int(got.get("invalidCount", 0))
            room = _MAX_KEPT - len(part.invalid)
            part.invalid.extend((a, b, c) for a, b, c in got.get("invalid", [])[:max(room, 0)])

    def results(self, level_of: Callable[[str], str | None], selected: Callable[[str], bool]) -> list[ScenarioResult]:
        out = []
        for role, part in sorted(self._by_role.items()):
            rid = STDIO_RULES[role]
            if not selected(rid) or not (part.messages or part.invalid_count):
                continue
            level = level_of(rid)
            total = part.messages + part.invalid_count
            result = ScenarioResult(
                nodeid=f"emitted-lines::{role}::{rid}", feature=EMITTED_LINES_FEATURE,
                name=f"Every line the {role} subject wrote to its stdout is an MCP message", requirement=rid,
                level=level, verdict=Verdict.PASS, subject={"role": role, "target": part.target},
                evidence=[f"{total} line(s) the {role} subject wrote to stdout over stdio in this run, every one a "
                          f"JSON-RPC message"])
            if part.invalid_count:
                scenario, reason, text = part.invalid[0]
                result.verdict = Verdict.WARN if level == "should" else Verdict.FAIL
                result.reason = (f"{part.invalid_count} of the {total} line(s) the {role} subject wrote to stdout are "
                                 f"not MCP messages (MCP 2025-11-25 stdio: \"The server MUST NOT write anything to its "
                                 f"stdout that is not a valid MCP message.\"): {text[:200]!r} ({reason}), in "
                                 f"{scenario}")
                result.evidence = [f"{sc}: {why}: {line}" for sc, why, line in part.invalid]
            out.append(result)
        return out


def judge_emitted_lines(emitted: EmittedLines, registry: dict[str, Any], patterns: list[str], *,
                        strict: bool) -> list[ScenarioResult]:
    """The run-wide stdout results for the requirements of ``registry`` the run's ``patterns`` select (all when
    there are none), a ``should`` not met failing under ``strict``."""

    def level_of(rid: str) -> str | None:
        meta = registry.get(rid)
        return meta.level.value if meta else "must"

    def selected(rid: str) -> bool:
        if registry and rid not in registry:
            return False
        return not patterns or any(fnmatch.fnmatchcase(rid, p) for p in patterns)

    out = emitted.results(level_of, selected)
    for result in out:
        if result.verdict is Verdict.WARN and strict:
            result.verdict = Verdict.FAIL
    return out


def check_stdout_is_mcp(seen: StdoutLines) -> None:
    """Every line the subject wrote to stdout on the scenario's stdio sessions is an MCP message (the stdio rule);
    a scenario with no stdio session, or no line from the subject, saw nothing to judge (not testable)."""
    if not seen.connections:
        raise NotTestable("no MCP session of this scenario ran over stdio, so the subject's stdout could not be read "
                          "(the rule binds the stdio transport: give a stdio: target)")
    if not seen.total:
        raise NotTestable("the subject wrote nothing to its stdout in this scenario")
    if seen.invalid:
        reason, text = seen.invalid[0]
        raise AssertionError(f"{len(seen.invalid)} of the {seen.total} line(s) the subject wrote to its stdout are not "
                             f"MCP messages (MCP 2025-11-25 stdio: \"The server MUST NOT write anything to its stdout "
                             f"that is not a valid MCP message.\"): {text[:300]!r} ({reason})")
