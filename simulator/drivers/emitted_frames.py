"""Frames a hook subject sent, judged against the frame requirements (issue "every requirement judges the subject").

Every frame the harness receives from a hook server or a desktop under test, in every scenario, is parsed by the
protocol core. ``EmittedFrames`` keeps, per subject role, how many valid frames of each type it saw and every
invalid one (its type, the JSON pointer and code of the issue, the scenario, the text). ``results`` turns that into
one scenario result per (subject, HOOK-FRAME requirement) that the frames bear on: *fail* with the frame and the
pointer as evidence when a frame the subject sent violates the requirement (``FrameRuleIndex.requirement_for``),
*pass* with the count of frames of the requirement's types that were valid. A requirement none of whose message
types the subject sent gets no emitted-frames result (no evidence, so no pass); nor does a rule no frame can break
(one with only acceptance cases, such as "a valid frame of each of the 41 types is accepted": it binds the
receiver, judged by delivering such frames to the subject: features/hook/conftest.py).

Whole-run rules, one result each per run (a pass with the count of frames scanned, or a fail naming the frame, the
scenario and what it carried); a rule with nothing to scan gives no result (no evidence, no pass):

* every frame a **desktop** sends is scanned for a local absolute path (§2 "workspace 是别名:本地绝对路径只存在于
  desktop,永不过网线"; ``simulator.hook.local_paths``): HOOK-DESKTOP-NO-LOCAL-PATH-01;
* every frame a **hook server** sends is scanned for a local absolute path in an alias field (§2 "server 只能派发 hello
  注册过的别名"): HOOK-SERVER-NO-LOCAL-PATH-01. Only alias fields: a server relays its users' words into prompts and
  cards, where a path-shaped word is their content, not a leak;
* in every scenario where a **hook server** handed out a one-time Telegram connect token (the start parameter of a
  pending ``connectUrl``, ``simulator.hook.connect_links``), every frame it sent in that scenario is scanned for the
  token anywhere else (阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发"):
  HOOK-SERVER-TOKEN-01;
* once the harness has made a **hook server**'s far side answer a raw provider error (control ``fail-publishes`` /
  ``fail-tool-calls`` ``rawError``, read from the scenario's control requests: ``simulator.drivers.hook_server.raw_errors``), every frame
  it sends from then on in the run is scanned for any of those texts, whole or in part ("turn.delivery 可靠性与兼容":
  "provider 的原始响应正文不得上 wire"): HOOK-SERVER-NO-RAW-ERROR-01. (The texts are fresh per scenario: a frame sent
  before one was made up cannot carry it.)

Sans-I/O: texts in, results out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from ..hook.connect_links import MIN_SCANNED_TOKEN, pending_connect_tokens, token_leaks
from ..hook.local_paths import find_local_paths_in_frame
from .hook_server.raw_errors import raw_error_leaks, raw_errors_given
from ..verdicts.results import ScenarioResult, Verdict
from ..roles.hook_conn import describe_frame
from ..wirelog import Direction, WireEvent

if TYPE_CHECKING:
    from ..harness.frame_cases import FrameRuleIndex

__all__ = ["EmittedFrames", "HOOK_SUBJECT_ROLES", "judge_emitted", "Violation", "EMITTED_FEATURE"]

#: The ``feature`` of emitted-frame results (they come from every scenario, not from one feature file).
EMITTED_FEATURE = "features/hook/frames (frames the subject sent, in every scenario)"
_MAX_TEXT = 2000
_MAX_VIOLATIONS = 20


@dataclass(frozen=True, slots=True)
class Violation:
    type: str | None
    path: str
    code: str
    message: str
    scenario: str
    text: str


#: Role → (the requirement that none of its frames carries a local absolute path, whether free text is scanned too),
#: judged on every frame it sends.
#: The subjects whose frames are judged here: the two hook-protocol roles.
HOOK_SUBJECT_ROLES = frozenset({"hook-server", "desktop"})
PATH_RULES = {"desktop": ("HOOK-DESKTOP-NO-LOCAL-PATH-01", True), "hook-server": ("HOOK-SERVER-NO-LOCAL-PATH-01", False)}
#: Role → the requirement that a one-time connect token it handed out appears in none of its other frames.
TOKEN_RULES = {"hook-server": "HOOK-SERVER-TOKEN-01"}
#: Role → the requirement that a raw provider error its far side answered appears in none of its frames.
RAW_ERROR_RULES = {"hook-server": "HOOK-SERVER-NO-RAW-ERROR-01"}


@dataclass
class _Seen:
    valid: dict[str, int] = field(default_factory=dict)
    violations: list[Violation] = field(default_factory=list)
    #: Frames scanned for local paths, and (scenario, where, frame text) of each frame that carried one.
    scanned: int = 0
    paths: list[tuple[str, str, str]] = field(default_factory=list)
    #: One-time tokens handed out, frames scanned for them, and (scenario, token, frame text) of each leak.
    tokens: int = 0
    token_scanned: int = 0
    leaks: list[tuple[str, str, str]] = field(default_factory=list)
    #: Raw provider errors given so far in the run, frames scanned for them, and (scenario, raw error, frame text) of
    #: each frame that carried one.
    raw_errors: list[str] = field(default_factory=list)
    raw_scanned: int = 0
    raw_leaks: list[tuple[str, str, str]] = field(default_factory=list)


class EmittedFrames:
    def __init__(self) -> None:
        self._by_role: dict[str, _Seen] = {}
        self.targets: dict[str, str] = {}

    def observe(self, role: str, target: str, scenario: str, texts: Iterable[str],
                raw_errors: Iterable[str] = ()) -> None:
        """The frames (texts as received) the subject in ``role`` sent during ``scenario``, and the raw provider
        errors the scenario made its far side answer."""
        seen = self._by_role.setdefault(role, _Seen())
        self.targets.setdefault(role, target)
        texts = list(texts)
        scan, free_text = role in PATH_RULES, PATH_RULES.get(role, ("", True))[1]
        if role in TOKEN_RULES:
            self._scan_tokens(seen, scenario, texts)
        if role in RAW_ERROR_RULES:
            self._scan_raw_errors(seen, scenario, texts, raw_errors)
        for text in texts:
            if scan:
                seen.scanned += 1
                found = find_local_paths_in_frame(text, free_text=free_text)
                if found:
                    seen.paths.append((scenario, "; ".join(str(p) for p in found[:3]), text[:_MAX_TEXT]))
            described = describe_frame(text)
            if described.issue is None:
                t = described.claimed_type or ""
                seen.valid[t] = seen.valid.get(t, 0) + 1
                continue
            err = described.issue
            seen.violations.append(Violation(described.claimed_type, err.path, err.code.value, err.message, scenario,
                                             text[:_MAX_TEXT]))

    def observe_scenario(self, subject: dict[str, str] | None, scenario: str, events: Iterable[WireEvent]) -> None:
        """Every hook frame the subject of a scenario sent (its wire log's received hook frames), with the raw
        provider errors the scenario's control requests made up: what the plugin hands over after each scenario and
        what ``simulator judge`` hands over from a recording."""
        if subject is None or subject["role"] not in HOOK_SUBJECT_ROLES:
            return
        events = list(events)
        texts = [e.text for e in events if e.direction is Direction.RECEIVED and e.channel == "hook"]
        if texts:
            self.observe(subject["role"], subject["target"], scenario, texts, raw_errors_given(events))

    @staticmethod
    def _scan_tokens(seen: _Seen, scenario: str, texts: list[str]) -> None:
        tokens = {t for text in texts for t in pending_connect_tokens(text) if len(t) >= MIN_SCANNED_TOKEN}
        if not tokens:
            return
        seen.tokens += len(tokens)
        seen.token_scanned += len(texts)
        for text in texts:
            for token in token_leaks(text, tokens):
                seen.leaks.append((scenario, token, text[:_MAX_TEXT]))

    @staticmethod
    def _scan_raw_errors(seen: _Seen, scenario: str, texts: list[str], given: Iterable[str]) -> None:
        seen.raw_errors.extend(r for r in given if r and r not in seen.raw_errors)
        if not seen.raw_errors:
            return
        seen.raw_scanned += len(texts)
        for text in texts:
            for raw in raw_error_leaks(text, seen.raw_errors):
                seen.raw_leaks.append((scenario, raw, text[:_MAX_TEXT]))

    def roles(self) -> list[str]:
        return sorted(self._by_role)

    def to_json(self) -> dict[str, Any]:
        """What was seen, as JSON (a pytest-xdist worker hands it to the controller: simulator/harness/xdist_bridge.py)."""
        return {"targets": dict(self.targets), "roles": {
            role: {"valid": dict(seen.valid), "violations": [asdict(v) for v in seen.violations],
                   "scanned": seen.scanned, "paths": [list(p) for p in seen.paths],
                   "tokens": seen.tokens, "tokenScanned": seen.token_scanned, "leaks": [list(x) for x in seen.leaks],
                   "rawErrors": list(seen.raw_errors), "rawScanned": seen.raw_scanned,
                   "rawLeaks": [list(x) for x in seen.raw_leaks]}
            for role, seen in self._by_role.items()}}

    def absorb(self, data: dict[str, Any]) -> None:
        """Add what another ``EmittedFrames`` saw (its ``to_json``): the results are then those of one run that saw
        both (counts added, violations and paths appended)."""
        for role, target in data.get("targets", {}).items():
            self.targets.setdefault(role, target)
        for role, part in data.get("roles", {}).items():
            seen = self._by_role.setdefault(role, _Seen())
            for t, n in part["valid"].items():
                seen.valid[t] = seen.valid.get(t, 0) + int(n)
            seen.violations.extend(Violation(**v) for v in part["violations"])
            seen.scanned += int(part["scanned"])
            seen.paths.extend((a, b, c) for a, b, c in part["paths"])
            seen.tokens += int(part.get("tokens", 0))
            seen.token_scanned += int(part.get("tokenScanned", 0))
            seen.leaks.extend((a, b, c) for a, b, c in part.get("leaks", []))
            seen.raw_errors.extend(r for r in part.get("rawErrors", []) if r not in seen.raw_errors)
            seen.raw_scanned += int(part.get("rawScanned", 0))
            seen.raw_leaks.extend((a, b, c) for a, b, c in part.get("rawLeaks", []))

    def results(self, index: FrameRuleIndex, level_of: Callable[[str], str | None],
                selected: Callable[[str], bool] = lambda rid: True) -> list[ScenarioResult]:
        out: list[ScenarioResult] = []
        for role in self.roles():
            seen = self._by_role[role]
            charged: dict[str, list[Violation]] = {}
            for v in seen.violations:
                charged.setdefault(index.requirement_for(v.type, v.path, v.code), []).append(v)
            for rid in index.sender_rules():
                if not selected(rid):
                    continue
                bad = charged.get(rid, [])
                counted = {t: n for t, n in seen.valid.items() if index.applies_to(rid, t)}
                if not bad and not counted:
                    continue
                level = level_of(rid)
                result = ScenarioResult(
                    nodeid=f"emitted-frames::{role}::{rid}", feature=EMITTED_FEATURE,
                    name=f"Every frame the {role} subject sent satisfies {rid}", requirement=rid, level=level,
                    verdict=Verdict.PASS, subject={"role": role, "target": self.targets.get(role, "")},
                )
                total = sum(counted.values())
                kinds = ", ".join(f"{n} {t}" for t, n in sorted(counted.items()))
                if bad:
                    result.verdict = Verdict.WARN if level == "should" else Verdict.FAIL
                    first = bad[0]
                    result.reason = (f"the {role} subject sent {len(bad)} frame(s) the protocol core rejects under "
                                     f"{rid}: {first.type or '(no type)'} at {first.path or '(frame)'!r} "
                                     f"({first.code}: {first.message}), in {first.scenario}")
                    result.evidence = [f"{v.scenario}: {v.type or '(no type)'} rejected at {v.path or '(frame)'!r} "
                                       f"({v.code}: {v.message}): {v.text}" for v in bad[:_MAX_VIOLATIONS]]
                else:
                    result.evidence = [f"{total} frame(s) of the requirement's types from the {role} subject, all "
                                       f"valid: {kinds}"]
                out.append(result)
            rid = PATH_RULES.get(role, ("", True))[0]
            if rid and selected(rid) and seen.scanned:
                out.append(self._path_result(role, rid, level_of(rid), seen))
            rid = TOKEN_RULES.get(role, "")
            if rid and selected(rid) and seen.tokens:
                out.append(self._token_result(role, rid, level_of(rid), seen))
            rid = RAW_ERROR_RULES.get(role, "")
            if rid and selected(rid) and seen.raw_errors and seen.raw_scanned:
                out.append(self._raw_error_result(role, rid, level_of(rid), seen))
        return out

    def _raw_error_result(self, role: str, rid: str, level: str | None, seen: _Seen) -> ScenarioResult:
        result = ScenarioResult(
            nodeid=f"emitted-frames::{role}::{rid}", feature=EMITTED_FEATURE,
            name=f"No frame the {role} subject sent carries a raw provider error", requirement=rid, level=level,
            verdict=Verdict.PASS, subject={"role": role, "target": self.targets.get(role, "")},
            evidence=[f"{len(seen.raw_errors)} raw provider error(s) made up in this run; the {seen.raw_scanned} "
                      f"frame(s) the {role} subject sent from then on carry none of them"],
        )
        if seen.raw_leaks:
            scenario, raw, _ = seen.raw_leaks[0]
            result.verdict = Verdict.WARN if level == "should" else Verdict.FAIL
            result.reason = (f"{len(seen.raw_leaks)} frame(s) the {role} subject sent carry a provider's raw response "
                             f"(turn.delivery 可靠性与兼容: provider 的原始响应正文不得上 wire): {raw[:120]!r}, in "
                             f"{scenario}")
            result.evidence = [f"{sc}: {text}" for sc, _raw, text in seen.raw_leaks[:_MAX_VIOLATIONS]]
        return result

    def _token_result(self, role: str, rid: str, level: str | None, seen: _Seen) -> ScenarioResult:
        result = ScenarioResult(
            nodeid=f"emitted-frames::{role}::{rid}", feature=EMITTED_FEATURE,
            name=f"No frame the {role} subject sent forwards a one-time connect token", requirement=rid, level=level,
            verdict=Verdict.PASS, subject={"role": role, "target": self.targets.get(role, "")},
            evidence=[f"{seen.tokens} one-time token(s) handed out in pending connect links; the {seen.token_scanned} "
                      f"frame(s) the {role} subject sent in those scenarios carry none of them elsewhere"],
        )
        if seen.leaks:
            scenario, token, _ = seen.leaks[0]
            result.verdict = Verdict.WARN if level == "should" else Verdict.FAIL
            result.reason = (f"{len(seen.leaks)} frame(s) the {role} subject sent carry a one-time connect token "
                             f"outside the pending link that handed it out (阶段 14: 一次性凭证由 server 过滤,不转发): "
                             f"{token!r}, in {scenario}")
            result.evidence = [f"{sc}: token {tok!r} in: {text}" for sc, tok, text in seen.leaks[:_MAX_VIOLATIONS]]
        return result

    def _path_result(self, role: str, rid: str, level: str | None, seen: _Seen) -> ScenarioResult:
        result = ScenarioResult(
            nodeid=f"emitted-frames::{role}::{rid}", feature=EMITTED_FEATURE,
            name=f"No frame the {role} subject sent carries a local absolute path", requirement=rid, level=level,
            verdict=Verdict.PASS, subject={"role": role, "target": self.targets.get(role, "")},
            evidence=[f"{seen.scanned} frame(s) from the {role} subject scanned in this run, none with a local path"],
        )
        if seen.paths:
            scenario, where, _ = seen.paths[0]
            result.verdict = Verdict.WARN if level == "should" else Verdict.FAIL
            result.reason = (f"{len(seen.paths)} of the {seen.scanned} frame(s) the {role} subject sent carry a local "
                             f"absolute path (§2: 本地绝对路径只存在于 desktop,永不过网线): {where}, in {scenario}")
            result.evidence = [f"{sc}: {w}: {text}" for sc, w, text in seen.paths[:_MAX_VIOLATIONS]]
        return result



def judge_emitted(emitted: EmittedFrames, rule_index: Callable[[], FrameRuleIndex], registry: dict[str, Any],
                  patterns: list[str], *, strict: bool) -> list[ScenarioResult]:
    """The emitted-frames results of a run (``EmittedFrames.results``; ``rule_index`` reads the frame features'
    rejection cases, ``harness.frame_cases.frame_rule_index``, only when a hook subject sent frames) for the
    requirements of ``registry`` the
    run's ``patterns`` select (all when there are none), a ``should`` not met failing under ``strict``: the plugin
    calls it at the end of a run, ``simulator judge`` on the frames of a recording."""
    if not emitted.roles():
        return []

    def level_of(rid: str) -> str | None:
        meta = registry.get(rid)
        return meta.level.value if meta else "must"

    def selected(rid: str) -> bool:
        """Selected by the run's patterns, and a requirement of this suite's registry (a suite without the run-wide
        rules' requirements gets no result for them)."""
        if registry and rid not in registry:
            return False
        return not patterns or any(fnmatch.fnmatchcase(rid, p) for p in patterns)

    out = emitted.results(rule_index(), level_of, selected)
    for result in out:
        if result.verdict is Verdict.WARN and strict:
            result.verdict = Verdict.FAIL
    return out
