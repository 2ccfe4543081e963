"""Result records: what a conformance run found, independent of how it is rendered.

    RunRecord
    ├── harness version, spec revisions, subjects (per role), started / finished
    ├── scenarios: ScenarioResult(nodeid, feature, name, requirement, level, verdict, reason, evidence, wire, duration)
    ├── requirements: RequirementResult(id, level, spec, section, quote, summary, verdict, scenarios, also)
    └── limits: what the profiles measured of each subject (the largest ping answered, pongs under a flood,
        connections held), gathered from the scenarios' ``limits`` (``limits_of``)

Verdicts (``Verdict``; the table in docs/targets.md "Verdicts" is the contract): pass; fail; warn (a @should not
met); review (only a human reader can judge: neither passes nor fails a run until ``--reviews`` settles it);
not-applicable (the subject itself declared the capability absent); not-testable (missing run configuration or
control capability, or the harness cannot observe what it needs: a failure); error (the harness cannot reach or
start the subject, or breaks); timeout (the subject stopped answering at all).

A requirement's verdict is the gravest of its scenarios' verdicts (``worst``, by ``VERDICT_ORDER``, which
docs/targets.md "Verdicts and timeouts" states for readers). A fail comes first because it is an observed
violation: a requirement one scenario proved broken is broken, and "could not test" elsewhere never hides that.
The requirement's other non-passing verdicts are listed beside it (``RequirementResult.also``, from ``also_of``), so
what could not be tested is still read. Each scenario names the subject (role and target) it judged. Reports
(``reports/``) render a ``RunRecord`` and nothing else; ``RunRecord.to_json`` is the ``report.json`` document
(schema: docs/report-schema.json).
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..wirelog import WireEvent

__all__ = [
    "Verdict",
    "FAILING",
    "VERDICT_ORDER",
    "worst",
    "OtherVerdict",
    "Subject",
    "ScenarioResult",
    "RequirementResult",
    "RunRecord",
    "REPORT_SCHEMA_VERSION",
    "TOKEN_VARIABLE",
    "exit_code_for",
    "requirement_verdict",
    "also_of",
    "subjects_of",
    "limits_of",
    "READABLE_SCHEMA_VERSIONS",
    "SELECTION_KEYS",
    "SCENARIO_DEFAULTS",
    "REQUIREMENT_DEFAULTS",
    "named_scenarios",
    "selection_args",
]

#: Bumped on any incompatible change of ``report.json`` (docs/report-schema.json).
REPORT_SCHEMA_VERSION = "1.7"
#: How a run's ``command`` names the hook token: a shell variable, never the secret (simulator/replay/reproduce.py).
TOKEN_VARIABLE = "$HOOK_CONFORMANCE_TOKEN"
#: The report.json versions this harness reads (1.1 is 1.2 without ``interrupted``; 1.2 is 1.3 without ``limits``;
#: 1.3 is 1.4 without the wire events' ``conn``; 1.4 is 1.5 without the requirements' ``also``; 1.5 is 1.6 without
#: ``selection``, the requirements' ``cause`` and ``nextSteps``, which a reader computes again from the rest; 1.6 is 1.7
#: without ``grades``, computed again from the rest, and ``requirementSet``: the latest revision of every spec).
READABLE_SCHEMA_VERSIONS = ("1.1", "1.2", "1.3", "1.4", "1.5", "1.6", "1.7")


class Verdict(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    WARN = "warn"
    REVIEW = "review"
    NOT_APPLICABLE = "not-applicable"
    NOT_TESTABLE = "not-testable"
    ERROR = "error"
    TIMEOUT = "timeout"


#: Verdicts that make a run non-conformant (warn joins them under ``--strict``).
FAILING = frozenset({Verdict.FAIL, Verdict.NOT_TESTABLE, Verdict.ERROR, Verdict.TIMEOUT})

#: Gravest first: the order ``worst`` picks a requirement's verdict by and the order reports list verdicts in. An
#: observed violation (fail) outranks every verdict that only says the harness could not see (error, timeout,
#: not-testable): one scenario that proved the requirement broken makes it broken, whatever the others could not do
#: (docs/targets.md "Verdicts and timeouts"). Every failing verdict still outranks every one that does not fail a run.
VERDICT_ORDER: tuple[Verdict, ...] = (
    Verdict.FAIL,
    Verdict.ERROR,
    Verdict.TIMEOUT,
    Verdict.NOT_TESTABLE,
    Verdict.WARN,
    Verdict.REVIEW,
    Verdict.PASS,
    Verdict.NOT_APPLICABLE,
)
_SEVERITY = {v: len(VERDICT_ORDER) - i for i, v in enumerate(VERDICT_ORDER)}


def worst(verdicts: list[Verdict] | tuple[Verdict, ...]) -> Verdict:
    """The verdict of a requirement from its scenarios' verdicts: the first of them in ``VERDICT_ORDER`` (a fail
    whatever the others are; not-applicable only if all are; not-testable for none)."""
    if not verdicts:
        return Verdict.NOT_TESTABLE
    return max(verdicts, key=_SEVERITY.__getitem__)


#: How the one-line text of ``OtherVerdict`` says what its scenarios came to.
_OTHER_WORDS = {
    Verdict.FAIL: "failed",
    Verdict.ERROR: "ended in error",
    Verdict.TIMEOUT: "timed out",
    Verdict.NOT_TESTABLE: "could not be tested",
    Verdict.WARN: "gave a warning",
    Verdict.REVIEW: "went to review",
}
#: A reason longer than this is cut in the one-line text (report.json keeps it whole).
_OTHER_REASON_CHARS = 100


@dataclass(frozen=True, slots=True)
class OtherVerdict:
    """A non-passing verdict of some of a requirement's scenarios other than the requirement's own verdict: how many
    scenarios had it and the first of their distinct reasons (at most ``also_of``'s ``reasons``), so a report lists
    what could not be tested beside a fail that outranks it."""

    verdict: Verdict
    count: int
    reasons: tuple[str, ...] = ()

    def text(self) -> str:
        """``2 scenarios could not be tested: <the first reason's first line>``."""
        head = f"{self.count} scenario{'s' if self.count != 1 else ''} "
        head += _OTHER_WORDS.get(self.verdict, self.verdict.value)
        first = next(iter(self.reasons[0].strip().splitlines()), "") if self.reasons else ""
        first = first.removeprefix("Not testable: ")  # the words before it say so already
        if len(first) > _OTHER_REASON_CHARS:
            first = first[:_OTHER_REASON_CHARS - 1] + "…"
        return f"{head}: {first}" if first else head

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict.value, "count": self.count, "reasons": list(self.reasons)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OtherVerdict:
        return cls(Verdict(data["verdict"]), int(data["count"]), tuple(data.get("reasons", ())))


@dataclass(frozen=True, slots=True)
class Subject:
    """What was tested in one role: ``role`` (hook-server, desktop, ccweb, probekit), the target spec as given,
    and what the subject said about itself (server name, features, MCP serverInfo) when the run saw it."""

    role: str
    target: str
    identity: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"role": self.role, "target": self.target, "identity": dict(self.identity)}


#: The members of a scenario that report.json and a recording leave out when they hold this value
#: (``ScenarioResult.to_report_json``): what a passing scenario has nothing to say in.
SCENARIO_DEFAULTS: dict[str, Any] = {"reason": "", "evidence": [], "wire": [], "baselined": False, "review": None,
                                     "gherkin": None, "limits": []}


@dataclass(slots=True)
class ScenarioResult:
    nodeid: str
    feature: str
    name: str
    requirement: str | None
    level: str | None
    verdict: Verdict
    reason: str = ""
    duration_s: float = 0.0
    #: Assertion text, quoted subject output, the wording a reader must judge, …
    evidence: list[str] = field(default_factory=list)
    wire: list[WireEvent] = field(default_factory=list)
    #: In the expected-failures baseline (a failure that does not fail the run).
    baselined: bool = False
    #: The subject the scenario judged: ``{"role", "target"}`` (None: it judged no subject).
    subject: dict[str, str] | None = None
    #: For a review verdict settled by ``--reviews``: the entry applied (decision, who, date, note).
    review: dict[str, str] | None = None
    #: The Gherkin scenario as it ran (simulator/harness/gherkin_steps.py): feature title, scenario line, steps with their
    #: statuses. None for a result that is not a Gherkin scenario (emitted frames) or never began.
    gherkin: dict[str, Any] | None = None
    #: What the scenario measured of its subject for the report's limits section: ``{"name", "value", "unit",
    #: "note"}`` each (a measurement, not a verdict: the scenario's requirement is judged on its own).
    limits: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Every member (what an xdist worker hands its controller: the Cucumber report needs every scenario's
        steps)."""
        return {
            "nodeid": self.nodeid,
            "feature": self.feature,
            "name": self.name,
            "requirement": self.requirement,
            "level": self.level,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "durationSeconds": round(self.duration_s, 6),
            "evidence": list(self.evidence),
            "wire": [e.to_json() for e in self.wire],
            "baselined": self.baselined,
            "subject": dict(self.subject) if self.subject else None,
            "review": dict(self.review) if self.review else None,
            "gherkin": self.gherkin,
            "limits": [dict(x) for x in self.limits],
        }

    def to_report_json(self) -> dict[str, Any]:
        """The scenario as report.json and a recording keep it (docs/report-schema.json): ``to_json`` without the
        members that hold their default (``SCENARIO_DEFAULTS``, which ``from_json`` reads an absent member as), and
        without the Gherkin steps of a scenario that passed: those are the feature file's steps, each passed, and no
        report shows them (the HTML report shows the steps of the scenarios that did not pass). Of a full run's
        some 3,700 scenarios nearly all pass: their steps would be two fifths of its report.json."""
        data = self.to_json()
        if self.verdict is Verdict.PASS:
            data["gherkin"] = None
        return {k: v for k, v in data.items() if k not in SCENARIO_DEFAULTS or v != SCENARIO_DEFAULTS[k]}

    @classmethod
    def from_json(cls, data: dict[str, Any], requirement_level: str | None = None) -> ScenarioResult:
        """``requirement_level``: the level of the scenario's requirement, its ``level`` when the document leaves it
        out (``RunRecord.to_json``)."""
        return cls(
            nodeid=data["nodeid"],
            feature=data["feature"],
            name=data["name"],
            requirement=data.get("requirement"),
            level=data["level"] if "level" in data else requirement_level,
            verdict=Verdict(data["verdict"]),
            reason=data.get("reason", ""),
            duration_s=float(data.get("durationSeconds", 0.0)),
            evidence=list(data.get("evidence", [])),
            wire=[WireEvent.from_json(e) for e in data.get("wire", [])],
            baselined=bool(data.get("baselined", False)),
            subject=dict(data["subject"]) if data.get("subject") else None,
            review=dict(data["review"]) if data.get("review") else None,
            gherkin=data.get("gherkin"),
            limits=[dict(x) for x in data.get("limits", [])],
        )


@dataclass(slots=True)
class RequirementResult:
    id: str
    level: str
    spec: str
    section: str
    quote: str
    summary: str
    verdict: Verdict
    scenarios: list[str] = field(default_factory=list)
    baselined: bool = False
    #: Per subject judged: ``{"role", "target", "verdict"}`` (the worst verdict of its scenarios for that subject).
    subjects: list[dict[str, str]] = field(default_factory=list)
    #: The non-passing verdicts of its scenarios other than ``verdict``, gravest first (``also_of``): listed beside
    #: the verdict so that a fail never hides what could not be tested, nor the reverse.
    also: list[OtherVerdict] = field(default_factory=list)

    def also_text(self) -> str:
        """The one line every report prints beside the verdict ("" when nothing else did not pass):
        ``and 2 scenarios could not be tested: <reason>; 1 scenario timed out: <reason>``."""
        return "and " + "; ".join(o.text() for o in self.also) if self.also else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "level": self.level,
            "spec": self.spec,
            "section": self.section,
            "quote": self.quote,
            "summary": self.summary,
            "verdict": self.verdict.value,
            "scenarios": list(self.scenarios),
            "baselined": self.baselined,
            "subjects": [dict(x) for x in self.subjects],
            "also": [o.to_json() for o in self.also],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any], named: list[str] | tuple[str, ...] = ()) -> RequirementResult:
        """``named``: the node ids of the report's scenarios that name this requirement, its ``scenarios`` when the
        document leaves them out (``RunRecord.to_json``)."""
        return cls(
            id=data["id"], level=data["level"], spec=data["spec"], section=data["section"], quote=data["quote"],
            summary=data["summary"], verdict=Verdict(data["verdict"]),
            scenarios=list(data["scenarios"] if "scenarios" in data else named),
            baselined=bool(data.get("baselined", False)),
            subjects=[dict(x) for x in data.get("subjects", [])],
            also=[OtherVerdict.from_json(x) for x in data.get("also", [])],
        )


@dataclass(slots=True)
class RunRecord:
    harness_version: str
    spec_revisions: dict[str, str]
    subjects: list[Subject]
    started_at: str
    finished_at: str
    strict: bool
    scenarios: list[ScenarioResult] = field(default_factory=list)
    requirements: list[RequirementResult] = field(default_factory=list)
    #: Baseline entries that now pass (they fail the run).
    stale_baseline: list[str] = field(default_factory=list)
    exit_code: int = 0
    #: The signal that stopped the run before it ended ("SIGINT", "SIGTERM"); None for a run that ran to its end.
    #: An interrupted run's report is partial: scenarios not reached are simply absent.
    interrupted: str | None = None
    #: The run's harness command (simulator/replay/reproduce.py), without secrets: a report appends ``--req <ID>`` to it
    #: to show how to rerun one requirement. Empty when unknown (a 1.1 report).
    command: list[str] = field(default_factory=list)
    #: The falsifiability figure over this run's requirements (simulator/verdicts/falsifiability.py): how many have a
    #: committed case that proves they can fail. None when unknown (a 1.1 report).
    falsifiability: dict[str, Any] | None = None
    #: What the run selected and what judged it besides the subject (``SELECTION_KEYS``: feature paths, ``--req``
    #: patterns, ``-m``, ``-k``, ``--only-scenarios``, ``--spec-revision``, ``--baseline``, ``--reviews``); empty:
    #: every requirement, nothing besides; ``merged``: the merged runs' selections, when they differ (``report
    #: merge``). ``command`` plus ``selection_args()`` is the command that reproduces the run.
    selection: dict[str, Any] = field(default_factory=dict)
    #: The requirement set the run judged (simulator/verdicts/revisions.py ``RequirementSet.to_json``): per keyed spec
    #: its key, file, revision, sha256 and ``latest`` or ``frozen``; ``notJudged``: the requirements of the set
    #: changed since a frozen revision, left out. None when unknown (a report written before it, a merged report).
    requirement_set: dict[str, Any] | None = None

    def counts(self) -> dict[str, int]:
        out = {v.value: 0 for v in Verdict}
        for r in self.requirements:
            out[r.verdict.value] += 1
        return out

    def selection_args(self) -> list[str]:
        """The words that repeat the run's selection, baseline and reviews after ``command``."""
        return selection_args(self.selection)

    def selection_text(self) -> str:
        """The selection in one line for a report's header ("every requirement" when nothing narrowed it)."""
        if self.selection.get("merged"):
            return "merged runs: " + " | ".join(map(str, self.selection["merged"]))
        parts = [f"{label} {_shell_words(value)}" for label, value in _selection_parts(self.selection)
                 if label not in ("--baseline", "--reviews")]
        return "; ".join(parts) if parts else "every requirement of the suite"

    def judged_with_text(self) -> str:
        """The files besides the subject that decided verdicts: the baseline and the reviewed decisions."""
        parts = [f"{label} {value}" for label, value in _selection_parts(self.selection)
                 if label in ("--baseline", "--reviews")]
        if "baseline" not in self.selection and any(r.baselined for r in self.requirements):
            parts.insert(0, "a baseline (its file is not recorded)")
        if "reviews" not in self.selection and any(s.review for s in self.scenarios):
            parts.append("reviewed decisions (their file is not recorded)")
        return "; ".join(parts) if parts else "no baseline, no reviewed decisions"

    def requirement_set_text(self) -> str | None:
        """The judged set in one line ("slack-hook protocol-1 (latest), ccweb prd-1 (frozen); 2 changed since: not
        judged"). None when the report does not record it."""
        if self.requirement_set is None:
            return None
        specs = ", ".join(f"{s['key']} {s['revision']} ({s['mode']})" for s in self.requirement_set.get("specs", []))
        left = len(self.requirement_set.get("notJudged", []))
        return (specs or "no keyed spec") + (f"; {left} changed since: not judged (report.json requirementSet)"
                                             if left else "")

    def command_text(self) -> str | None:
        """The shell text that repeats the whole run: ``command`` and the selection. None when unknown."""
        if not self.command or self.selection.get("merged"):
            return None
        return _shell([*self.command, *self.selection_args()])

    def rerun_text(self, requirement: str) -> str | None:
        """The shell text that reruns one requirement: the run's ``command``, its ``-m`` (a profile's requirement
        runs only under it), baseline and reviews, and ``--req <ID>``, each word quoted for a POSIX shell except the
        hook token's variable, which stays a variable (``"$HOOK_CONFORMANCE_TOKEN"``). None when the report does not
        record the run's command (a 1.1 report)."""
        if not self.command:
            return None
        kept = {k: v for k, v in self.selection.items() if k in ("markers", "specRevision", "baseline", "reviews")}
        return _shell([*self.command, *selection_args(kept), "--req", requirement])

    def counts_text(self) -> str:
        """The requirements' counts in one phrase; a baselined failure counts as an expected failure, never as the
        verdict it would otherwise be ("0 pass, 6 expected failures (baseline)")."""
        counts = self.counts()
        expected = 0
        for r in self.requirements:
            if r.baselined and r.verdict in FAILING | {Verdict.WARN}:
                counts[r.verdict.value] -= 1
                expected += 1
        words = [f"{n} {v}" for v, n in counts.items() if n or (v == "pass" and expected)]
        if expected:
            words.append(f"{expected} expected failure{'s' if expected != 1 else ''} (baseline)")
        return ", ".join(words) or "no requirement judged"

    def overall(self) -> str:
        """One line a release manager reads first: the run's verdict, its exit code and the counts behind it."""
        counts = self.counts_text()
        if self.interrupted:
            return (f"INTERRUPTED by {self.interrupted} (exit {self.exit_code}): a partial report of "
                    f"{len(self.scenarios)} scenarios; no verdict on the subject ({counts})")
        label = {0: "CONFORMANT", 1: "NOT CONFORMANT", 3: "ERROR: the harness could not judge every requirement"}
        return f"{label.get(self.exit_code, 'INCOMPLETE RUN')} (exit {self.exit_code}): {counts}"

    def review_note(self) -> str | None:
        """What a must-level review means for a release, when the run has any open: only a reader can decide it, and
        the release waits until one has (``--reviews FILE``). None when there is none."""
        open_must = [r.id for r in self.requirements if r.verdict is Verdict.REVIEW and r.level == "must"]
        if not open_must:
            return None
        shown = ", ".join(open_must[:4]) + (", …" if len(open_must) > 4 else "")
        n = len(open_must)
        return (f"{n} must-level review{'s' if n != 1 else ''} open ({shown}): {'it blocks' if n == 1 else 'they block'}"
                f" a release until a reader decides {'it' if n == 1 else 'each'} (--reviews FILE, docs/targets.md)")

    def to_json(self) -> dict[str, Any]:
        """The record's own fields; report.json adds what is computed from them (``reports.json_report``: the
        requirements' ``cause`` and ``nextSteps``, simulator/verdicts/causes.py). Scenarios are in their report form
        (``ScenarioResult.to_report_json``). What the record would say twice it says once: a requirement's
        ``scenarios`` are left out when they are the scenarios that name it (``named_scenarios``), and a scenario's
        ``level`` when it is its requirement's (both, always, in a run: the registry's levels are the features'
        tags, tests/test_requirements.py); ``from_json`` reads them back from the other side."""
        named = named_scenarios(self.scenarios)
        levels = {r.id: r.level for r in self.requirements}
        return {
            "schemaVersion": REPORT_SCHEMA_VERSION,
            "harness": {"name": "hook-conformance-simulator", "version": self.harness_version},
            "specRevisions": dict(self.spec_revisions),
            "subjects": [s.to_json() for s in self.subjects],
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "strict": self.strict,
            "exitCode": self.exit_code,
            "command": list(self.command),
            "selection": dict(self.selection),
            **({"requirementSet": self.requirement_set} if self.requirement_set is not None else {}),
            "falsifiability": self.falsifiability,
            "interrupted": self.interrupted,
            "summary": {"requirements": self.counts(), "scenarios": len(self.scenarios)},
            "limits": limits_of(self.scenarios),
            "staleBaseline": list(self.stale_baseline),
            "requirements": [_requirement_json(r, named.get(r.id, [])) for r in self.requirements],
            "scenarios": [_scenario_json(s, levels) for s in self.scenarios],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunRecord:
        levels = {r["id"]: r["level"] for r in data.get("requirements", [])}
        scenarios = [ScenarioResult.from_json(s, levels.get(s.get("requirement"))) for s in data.get("scenarios", [])]
        named = named_scenarios(scenarios)
        return cls(
            harness_version=data["harness"]["version"],
            spec_revisions=dict(data.get("specRevisions", {})),
            subjects=[Subject(s["role"], s["target"], dict(s.get("identity", {}))) for s in data.get("subjects", [])],
            started_at=data["startedAt"],
            finished_at=data["finishedAt"],
            strict=bool(data.get("strict", False)),
            scenarios=scenarios,
            requirements=[RequirementResult.from_json(r, named.get(r["id"], []))
                          for r in data.get("requirements", [])],
            stale_baseline=list(data.get("staleBaseline", [])),
            interrupted=data.get("interrupted"),
            command=list(data.get("command", [])),
            selection=dict(data.get("selection", {})),
            requirement_set=data.get("requirementSet"),
            falsifiability=data.get("falsifiability"),
            exit_code=int(data.get("exitCode", 0)),
        )


def named_scenarios(scenarios: list[ScenarioResult]) -> dict[str, list[str]]:
    """Requirement id → the node ids of the scenarios that name it, in record order."""
    out: dict[str, list[str]] = {}
    for s in scenarios:
        if s.requirement:
            out.setdefault(s.requirement, []).append(s.nodeid)
    return out


#: The members of a requirement that report.json leaves out when they hold this value (``from_json`` reads an absent
#: member as it).
REQUIREMENT_DEFAULTS: dict[str, Any] = {"baselined": False, "also": []}


def _scenario_json(scenario: ScenarioResult, levels: dict[str, str]) -> dict[str, Any]:
    """A scenario's report.json form (``RunRecord.to_json``): ``to_report_json`` without ``level`` when it is the
    level of its requirement (``levels``: requirement id → level)."""
    data = scenario.to_report_json()
    if scenario.requirement in levels and data["level"] == levels[scenario.requirement]:
        del data["level"]
    return data


def _requirement_json(requirement: RequirementResult, named: list[str]) -> dict[str, Any]:
    """A requirement's report.json form (``RunRecord.to_json``): without ``scenarios`` when they are ``named``, and
    without the members that hold their default (``REQUIREMENT_DEFAULTS``)."""
    data = requirement.to_json()
    if data["scenarios"] == named:
        del data["scenarios"]
    return {k: v for k, v in data.items() if k not in REQUIREMENT_DEFAULTS or v != REQUIREMENT_DEFAULTS[k]}


# -- the selection of a run ------------------------------------------------------------------------------------

#: ``RunRecord.selection``'s keys and the option that repeats each, in the order a command writes them.
SELECTION_KEYS: tuple[tuple[str, str], ...] = (
    ("paths", ""), ("req", "--req"), ("markers", "-m"), ("keyword", "-k"), ("onlyScenarios", "--only-scenarios"),
    ("specRevision", "--spec-revision"), ("baseline", "--baseline"), ("reviews", "--reviews"),
)


def _selection_parts(selection: dict[str, Any]) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, option in SELECTION_KEYS:
        value = selection.get(key)
        if value:
            out.append((option or "features", value))
    return out


def selection_args(selection: dict[str, Any]) -> list[str]:
    """The command words of a selection: paths first, then one option per pattern or file."""
    words: list[str] = []
    for key, option in SELECTION_KEYS:
        value = selection.get(key)
        if not value:
            continue
        values = value if isinstance(value, list) else [value]
        for v in values:
            words += [str(v)] if not option else [option, str(v)]
    return words


def _shell_words(value: Any) -> str:
    return " ".join(shlex.quote(str(v)) for v in (value if isinstance(value, list) else [value]))


def _shell(words: list[str]) -> str:
    return " ".join(f'"{TOKEN_VARIABLE}"' if w == TOKEN_VARIABLE else shlex.quote(w) for w in words)


# -- what a run's records add up to (the plugin at the end of a run, and ``report merge``) --------------------------


def subjects_of(scenarios: list[ScenarioResult]) -> list[dict[str, str]]:
    """Per subject the scenarios judged: ``{"role", "target", "verdict"}``, the worst verdict for that subject."""
    by: dict[tuple[str, str], list[Verdict]] = {}
    for s in scenarios:
        if s.subject:
            by.setdefault((s.subject["role"], s.subject.get("target", "")), []).append(s.verdict)
    return [{"role": role, "target": target, "verdict": worst(v).value} for (role, target), v in sorted(by.items())]


def limits_of(scenarios: list[ScenarioResult]) -> list[dict[str, Any]]:
    """The report's limits section: every measurement of the scenarios, with the subject it was taken of and the
    requirement and scenario that took it, ordered by subject, then as measured."""
    rows = [{"role": (s.subject or {}).get("role", ""), "target": (s.subject or {}).get("target", ""),
             "name": m["name"], "value": m["value"], "unit": m.get("unit", ""), "note": m.get("note", ""),
             "requirement": s.requirement, "scenario": s.name} for s in scenarios for m in s.limits]
    return sorted(rows, key=lambda r: (r["role"], r["target"]))


def requirement_verdict(scenarios: list[ScenarioResult]) -> Verdict:
    """The gravest verdict of the scenarios (``worst``: a fail whatever the others are); a requirement none of whose
    scenarios judged a subject is never a pass."""
    verdict = worst([s.verdict for s in scenarios])
    if verdict in (Verdict.PASS, Verdict.WARN, Verdict.NOT_APPLICABLE) and not any(s.subject for s in scenarios):
        return Verdict.NOT_TESTABLE
    return verdict


def also_of(scenarios: list[ScenarioResult], verdict: Verdict, reasons: int = 3) -> list[OtherVerdict]:
    """The non-passing verdicts of ``scenarios`` other than their requirement's ``verdict``, gravest first, each with
    its count and its first ``reasons`` distinct reasons. Scenarios are taken in node-id order, so the same scenarios
    give the same answer whatever order a run finished them in or ``report merge`` was given its inputs."""
    by: dict[Verdict, list[ScenarioResult]] = {}
    for s in sorted(scenarios, key=lambda s: s.nodeid):
        if s.verdict not in (verdict, Verdict.PASS, Verdict.NOT_APPLICABLE):
            by.setdefault(s.verdict, []).append(s)
    out = []
    for v in VERDICT_ORDER:
        if v in by:
            distinct = list(dict.fromkeys(s.reason for s in by[v] if s.reason))
            out.append(OtherVerdict(v, len(by[v]), tuple(distinct[:reasons])))
    return out


def exit_code_for(record: RunRecord) -> int:
    """0 conformant, 1 findings (including a stale baseline entry), 3 infrastructure error."""
    live = [s for s in record.scenarios if not s.baselined]
    if any(s.verdict is Verdict.ERROR for s in live):
        return 3
    failing = set(FAILING) | ({Verdict.WARN} if record.strict else set())
    if record.stale_baseline or any(s.verdict in failing for s in live):
        return 1
    if any(r.verdict in failing and not r.baselined for r in record.requirements):
        return 1  # e.g. a requirement whose scenarios passed without judging any subject (never a pass)
    return 0
