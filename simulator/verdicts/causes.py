"""Why a verdict is not a pass, normalised: the cause a reader acts on, and the run's "Next steps".

A scenario that does not pass has a reason (free text, the evidence); its **cause** is what that reason comes down
to, one of a few kinds a reader can act on:

    capability      the subject's control API does not offer a capability the scenario drives (named)
    control-api     the subject has no control API at all (``--control ROLE=URL``)
    configuration   the run lacks an option the scenario needs (``--hook-token``, ``--target``)
    frame           the subject never sent a frame the spec requires (its type)
    refusal         the subject's control API refused a call the scenario makes (the capability and the status): its
                    answer, judged a failure, and often one cause of many requirements
    rule            the subject broke the requirement's rule (the requirement)
    observation     the harness could not observe what the requirement needs (the requirement)
    silence         the subject stopped answering (its role)
    harness         the harness or its infrastructure failed (a bug to report, not the subject's fault)
    review          only a human reader can judge the material (``--reviews``)

The phrases that name a missing capability, control API or option are written by the functions below and read
back by ``cause_of``: one module owns both the wording and its parse, so the drivers' reasons and the triage agree.
Older wordings (reports written before) are read too.

``next_steps`` groups a run's non-passing requirements by cause, ordered by how many requirements each cause
blocks or fails, each with one concrete action: the block that heads the console, summary.md, the HTML report and
``report.json`` (``nextSteps``). Pure functions of a ``RunRecord``: a re-rendered or merged report computes the
same steps.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .results import FAILING, VERDICT_ORDER, RunRecord, ScenarioResult, Verdict

__all__ = [
    "CauseKind",
    "Cause",
    "NextStep",
    "cause_of",
    "requirement_causes",
    "first_scenarios",
    "next_steps",
    "missing_capabilities_text",
    "no_control_api_text",
    "missing_option_text",
]


class CauseKind(StrEnum):
    CAPABILITY = "capability"
    CONTROL_API = "control-api"
    CONFIGURATION = "configuration"
    FRAME = "frame"
    REFUSAL = "refusal"
    RULE = "rule"
    OBSERVATION = "observation"
    SILENCE = "silence"
    HARNESS = "harness"
    REVIEW = "review"


@dataclass(frozen=True, slots=True)
class Cause:
    """One normalised cause: its kind, what it names (capabilities joined by ``+``, an option, a frame type, a
    requirement id) and the role of the subject it concerns ("" when none)."""

    kind: CauseKind
    name: str
    role: str = ""

    @property
    def key(self) -> str:
        return f"{self.kind.value}:{self.role}:{self.name}"

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind.value, "name": self.name, "role": self.role}


# -- the phrases the drivers write ---------------------------------------------------------------------------------

_ROLE_WORDS = {"hook server": "hook-server", "hook-server": "hook-server", "desktop": "desktop", "ccweb": "ccweb",
               "probekit": "probekit", "probe-kit": "probekit", "server": "hook-server"}


def missing_capabilities_text(role: str, names: Iterable[str], why: str = "") -> str:
    """The reason of a scenario that needs control capabilities the subject does not offer (``GET /v1``), with
    ``why`` the scenario cannot do without them when that is not plain."""
    listed = ", ".join(repr(n) for n in names)
    plural = "capabilities" if "," in listed else "capability"
    return f"the {role} control API does not offer the {plural} {listed} (docs/control-api.md#{role})" + (
        f": {why}" if why else "")


def no_control_api_text(role: str, why: str = "") -> str:
    """The reason of a scenario that drives the subject through a control API the run does not name."""
    return f"the {role} subject has no control API{f' ({why})' if why else ''}: give --control {role}=URL"


def missing_option_text(option: str, why: str) -> str:
    """The reason of a scenario that needs a run option the run does not give (``--hook-token``, ``--target``)."""
    return f"the run gives no {option}: {why}"


_CAPABILITIES = re.compile(
    r"the (?P<role>hook[ -]server|desktop|ccweb|probekit)(?:'s)? control API (?:does not offer|lacks)"
    r"(?: the (?:capability|capabilities))? (?P<names>'[\w-]+'(?:, '[\w-]+')*|[\w-]+(?:, [\w-]+)*)")
_NO_CONTROL = re.compile(r"the (?P<role>hook[ -]server|desktop|ccweb|probekit) subject has no control API|"
                         r"give --control (?P<role2>hook-server|desktop|ccweb|probekit)=URL")
_OPTION = re.compile(r"the run gives no (?P<option>--[\w-]+)|the run gives no hook token|give the run (?P<given>--[\w-]+)|"
                     r"give --target (?P<target>hook-server|desktop|ccweb|probekit)")
#: ``MissingFrame``: "<role>: no <what> from the subject within N s" (simulator.roles), "no <what> within N s".
_FRAME = re.compile(r"(?:^|: )no (?:a |an )?(?P<what>[\w.-]+(?: frame)?)(?: [^;:]*?)? (?:from the subject )?within "
                    r"[\d.]+ s")
#: ``SubjectRefused`` of the control client (simulator/subjects/control.py): "control API POST URL/v1/CAP answered HTTP N: …".
_REFUSED = re.compile(r"control API POST \S+/v1/(?P<cap>[\w-]+) answered HTTP (?P<status>\d{3})(?:: (?P<body>.*))?")
_ERROR_CODE = re.compile(r'"code":\s*"(?P<code>[\w-]+)"')
_FRAME_TYPE = re.compile(r"^[a-z]+(?:\.[a-z_]+)+$|^(?:hello|welcome|ping|pong|ack)$")


def _role(word: str | None) -> str:
    return _ROLE_WORDS.get((word or "").strip(), word or "")


def cause_of(result: ScenarioResult) -> Cause | None:
    """The cause of one scenario's verdict (None for a pass or not-applicable: nothing to act on)."""
    verdict, reason = result.verdict, result.reason or ""
    role = (result.subject or {}).get("role", "")
    rid = result.requirement or result.name
    if verdict in (Verdict.PASS, Verdict.NOT_APPLICABLE):
        return None
    if verdict is Verdict.REVIEW:
        return Cause(CauseKind.REVIEW, "reader", "")
    if verdict is Verdict.ERROR:
        return Cause(CauseKind.HARNESS, "error", role)
    if verdict is Verdict.TIMEOUT:
        return Cause(CauseKind.SILENCE, "stopped answering", role)
    if verdict is Verdict.NOT_TESTABLE:
        if m := _CAPABILITIES.search(reason):
            names = [n.strip(" '") for n in m.group("names").split(",")]
            return Cause(CauseKind.CAPABILITY, "+".join(names), _role(m.group("role")))
        if m := _NO_CONTROL.search(reason):
            return Cause(CauseKind.CONTROL_API, "control API", _role(m.group("role") or m.group("role2")))
        if m := _OPTION.search(reason):
            if m.group("target"):
                return Cause(CauseKind.CONFIGURATION, f"--target {m.group('target')}=…", _role(m.group("target")))
            option = m.group("option") or m.group("given") or "--hook-token"
            return Cause(CauseKind.CONFIGURATION, option, role)
        return Cause(CauseKind.OBSERVATION, rid, role)
    # fail, warn: an observed violation; a refused control call is grouped by what was refused, a frame never sent
    # by its type
    if m := _REFUSED.search(reason):
        code = _ERROR_CODE.search(m.group("body") or "")
        name = f"{m.group('cap')} {m.group('status')}" + (f" {code.group('code')}" if code else "")
        return Cause(CauseKind.REFUSAL, name, role)
    m = _FRAME.search(reason)
    if m and _FRAME_TYPE.match(what := m.group("what").removesuffix(" frame")):
        return Cause(CauseKind.FRAME, what, role)
    return Cause(CauseKind.RULE, rid, role)


def first_scenarios(record: RunRecord) -> dict[str, ScenarioResult]:
    """Per requirement that neither passes nor is not applicable, its first scenario (in node-id order) with the
    requirement's own verdict: the one whose reason and cause stand for the requirement."""
    by_req: dict[str, list[ScenarioResult]] = {}
    for s in record.scenarios:
        if s.requirement:
            by_req.setdefault(s.requirement, []).append(s)
    out: dict[str, ScenarioResult] = {}
    for r in record.requirements:
        if r.verdict in (Verdict.PASS, Verdict.NOT_APPLICABLE):
            continue
        same = [s for s in by_req.get(r.id, []) if s.verdict is r.verdict]
        if same:
            out[r.id] = min(same, key=lambda s: s.nodeid)
    return out


def requirement_causes(record: RunRecord) -> dict[str, Cause]:
    """Per requirement that neither passes nor is not applicable, the cause of its verdict: that of its first
    scenario with the requirement's verdict (``first_scenarios``); a requirement no scenario judged could not be
    observed."""
    first = first_scenarios(record)
    out: dict[str, Cause] = {}
    for r in record.requirements:
        if r.verdict in (Verdict.PASS, Verdict.NOT_APPLICABLE):
            continue
        cause = cause_of(first[r.id]) if r.id in first else None
        out[r.id] = cause or Cause(CauseKind.OBSERVATION, r.id, "")
    return out


@dataclass(frozen=True, slots=True)
class NextStep:
    """One line of "Next steps": a cause, the requirements it blocks or fails, and what to do about it."""

    cause: Cause
    verdict: Verdict
    requirements: tuple[str, ...]
    action: str

    @property
    def count(self) -> int:
        return len(self.requirements)

    @property
    def names_its_requirement(self) -> bool:
        """The action names the one requirement it concerns (a rule to fix, a check to make observable): a
        listing of the ids would only repeat it."""
        return self.cause.kind in (CauseKind.RULE, CauseKind.OBSERVATION)

    def text(self) -> str:
        return self.action

    def to_json(self) -> dict[str, Any]:
        return {"cause": self.cause.to_json(), "verdict": self.verdict.value, "count": self.count,
                "requirements": list(self.requirements), "action": self.action}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


#: The reason a one-requirement step quotes is cut here (the report keeps it whole).
REASON_CHARS = 160


def _short(reason: str) -> str:
    text = " ".join(reason.removeprefix("Not testable: ").split())
    return text if len(text) <= REASON_CHARS else text[:REASON_CHARS - 1] + "…"


def _action(cause: Cause, verdict: Verdict, ids: list[str], record: RunRecord, reason: str) -> str:
    n = len(ids)
    reqs = _plural(n, "requirement")
    become = f"{reqs} become{'s' if n == 1 else ''} testable"
    kind, name, role = cause.kind, cause.name, cause.role
    if kind is CauseKind.CAPABILITY:
        names = " and ".join(f"`{c}`" for c in name.split("+"))
        what = "capability" if "+" not in name else "capabilities"
        return f"offer the {role} control {what} {names} (docs/control-api.md#{role}): {become}"
    if kind is CauseKind.CONTROL_API:
        return f"give the {role} subject a control API (--control {role}=URL, docs/control-api.md): {become}"
    if kind is CauseKind.CONFIGURATION:
        return f"give the run {name} (docs/targets.md): {become}"
    if kind is CauseKind.FRAME:
        who = f"the {role}" if role else "the subject"
        return f"send `{name}` where the spec requires it: {who} never sent it, and {reqs} fail{'s' if n == 1 else ''}"
    if kind is CauseKind.REFUSAL:
        cap, _, status = name.partition(" ")
        return (f"accept the control call `{cap}` as docs/control-api.md#{role} describes it: the {role} answered it "
                f"HTTP {status} ({_short(_refusal_body(reason))}), and {reqs} fail{'s' if n == 1 else ''}")
    if kind is CauseKind.RULE:
        meta = next((r for r in record.requirements if r.id == name), None)
        where = f" ({meta.spec} {meta.section})" if meta and meta.section else ""
        word = "warns" if verdict is Verdict.WARN else "fails"
        return f"fix {name}{where}: it {word}: {_short(reason)}"
    if kind is CauseKind.OBSERVATION:
        return f"make {name} observable" + (f": {_short(reason)}" if reason.strip() else "")
    if kind is CauseKind.SILENCE:
        return f"the {role or 'subject'} stopped answering in {reqs}: read its log (docs/targets.md \"Subject logs\")"
    if kind is CauseKind.HARNESS:
        them = "it" if n == 1 else "them"
        return f"{reqs} ended in a harness error: not the subject's fault; rerun {them}, report the error if it stays"
    must = sum(1 for r in record.requirements if r.id in set(ids) and r.level == "must")
    blocks = f" ({must} must-level: {'it blocks' if must == 1 else 'they block'} a release until decided)" if must else ""
    return f"decide {_plural(n, 'reader review')} with --reviews FILE (docs/targets.md){blocks}"


def _refusal_body(reason: str) -> str:
    m = _REFUSED.search(reason)
    return (m.group("body") or "no body") if m else reason


#: Among causes blocking as many requirements, the order of their verdicts: an observed violation first.
_RANK = {v: i for i, v in enumerate(VERDICT_ORDER)}


def next_steps(record: RunRecord) -> list[NextStep]:
    """The run's "Next steps": one per cause of its non-passing requirements (baselined ones left out: they are
    expected), ordered by how many requirements each blocks or fails, then failing verdicts before the rest."""
    causes = requirement_causes(record)
    first = first_scenarios(record)
    verdicts = {r.id: r.verdict for r in record.requirements}
    groups: dict[str, tuple[Cause, list[str]]] = {}
    for r in record.requirements:
        if r.id in causes and not r.baselined:
            cause = causes[r.id]
            groups.setdefault(cause.key, (cause, []))[1].append(r.id)
    steps = []
    for cause, ids in groups.values():
        verdict = min((verdicts[i] for i in ids), key=_RANK.__getitem__)
        reason = first[ids[0]].reason if ids[0] in first else ""
        steps.append(NextStep(cause, verdict, tuple(ids), _action(cause, verdict, ids, record, reason)))
    failing = set(FAILING) | ({Verdict.WARN} if record.strict else set())
    steps.sort(key=lambda s: (s.verdict not in failing, -s.count, _RANK[s.verdict], s.cause.key))
    return steps
