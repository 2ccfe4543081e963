"""The run-wide state of a conformance run (``Harness``), where pytest keeps it and each scenario's records (the
stash keys), and how a run ends early as a usage error.

The pytest plugin (``simulator.harness.plugin``) makes the ``Harness`` when pytest configures and stashes it on the
config; its hooks and fixtures, and the plugins beside it, read it back with ``harness_of``.
"""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any, NoReturn

import pytest

from ..verdicts.baseline import Baseline, load_baseline
from ..subjects.config import HarnessConfig
from ..verdicts.decide import Judges
from ..drivers.emitted_frames import EmittedFrames
from ..drivers.emitted_lines import EmittedLines
from .preflight import Unreachable
from ..replay.recording import EventForms
from ..errors import ConfigError
from ..verdicts.requirements import REVISIONS_PROBLEM, load_registry
from ..verdicts.revisions import (RequirementSet, RevisionChoiceError, SpecTableError, load_spec_table,
                                  requirement_set, resolve_choices)
from ..verdicts.results import RunRecord, ScenarioResult, Subject
from ..verdicts.reviews import Reviews, load_reviews
from ..subjects.spawn import SubjectSpawns
from ..wirelog import WireLog

__all__ = ["Harness", "EXIT_USAGE", "EXIT_INFRA", "usage_error", "harness_of", "scenario_wire_log", "now",
           "HARNESS", "WIRE", "EVENT_FORMS", "EVIDENCE", "LIMITS"]

#: The run's exit code for a usage error, the same under ``pytest features/`` and ``python -m simulator run``
#: (docs/targets.md "Reports and exit codes"): bad options or configuration, a selection that matches no scenario,
#: a hook server that refuses the run's own token.
EXIT_USAGE = 2
#: A failure of the harness or its infrastructure (a scenario in error, an unreachable target, a feature file that
#: cannot be collected).
EXIT_INFRA = 3


def now() -> str:
    """The current UTC time as the reports write it (ISO 8601, milliseconds)."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="milliseconds")


class Harness:
    """Run-wide state: the configuration, the subjects seen, the scenario results."""

    def __init__(self, config: HarnessConfig, rootdir: Path) -> None:
        self.config = config
        self.rootdir = rootdir
        self.baseline: Baseline | None = load_baseline(config.baseline) if config.baseline else None
        try:
            #: Each spec's revisions (scenarios/specs.toml, simulator/verdicts/revisions.py).
            self.spec_table = load_spec_table(rootdir / "scenarios" / "specs.toml")
        except SpecTableError as exc:
            raise ConfigError(str(exc)) from None
        self.registry, problems = load_registry(rootdir / "scenarios" / "requirements", self.spec_table)
        revision_problems = [p for p in problems if f": {REVISIONS_PROBLEM}: " in p]
        if revision_problems:  # a requirement left out for a bad revision name would silently go unjudged
            raise ConfigError("the requirement registry names revisions wrongly: " + "; ".join(revision_problems))
        #: The set the run judges (``choose_revisions``): every spec at its latest revision unless --spec-revision
        #: names another.
        self.requirement_set: RequirementSet = requirement_set(self.spec_table, self.registry)
        self.reviews: Reviews | None = (
            load_reviews(config.reviews, set(self.registry)) if config.reviews else None)
        self.emitted = EmittedFrames()
        #: What every stdio MCP subject wrote to its stdout, run-wide (simulator/drivers/emitted_lines.py).
        self.emitted_lines = EmittedLines()
        self.selection: list[str] = []
        #: The usage error that ended the run (``usage_error``), if one did.
        self.usage_error: str | None = None
        #: pytest's word when feature files or steps could not be collected ("2 errors during collection").
        self.collection_failed: str | None = None
        #: ``RunRecord.selection`` (``simulator.harness.selection.selection_record``): paths, patterns, -m, -k, baseline,
        #: reviews.
        self.selection_record: dict[str, Any] = {}
        self.results: dict[str, ScenarioResult] = {}
        #: Each scenario's line of the run's recording (simulator.replay.recording), by node id; empty without a report.
        self.recorded: dict[str, str] = {}
        self.subjects: dict[str, Subject] = {}
        self.started = now()
        self.record: RunRecord | None = None
        self.report_paths: dict[str, Path] = {}
        #: The signal that stopped the run (simulator.harness.interruption), None while it runs on.
        self.interrupted: str | None = None
        #: A ``simulator judge`` run's playback of a recording (simulator.replay.playback), else None.
        self.playback: Any = None
        #: The targets the preflight could not reach (simulator.harness.preflight): the run stopped before any scenario.
        self.unreachable: list[Unreachable] = []
        #: How the subjects' commands start (simulator.subjects.spawn): where they run, where their stderr goes.
        self.spawns = SubjectSpawns(config.subject_cwd)
        #: The subjects' stderr log files in the report folder, by file name (simulator.harness.subject_logs_hooks).
        self.subject_logs: dict[str, Path] = {}

    def choose_revisions(self, words: list[str]) -> None:
        """The set frozen at the revisions ``--spec-revision KEY=REVISION`` names (the others at their latest)."""
        try:
            choices = resolve_choices(self.spec_table, words)
        except RevisionChoiceError as exc:
            raise ConfigError(str(exc)) from None
        self.requirement_set = requirement_set(self.spec_table, self.registry, choices)

    @property
    def judges(self) -> Judges:
        """What judges every scenario besides its evidence (``simulator.verdicts.decide``)."""
        return Judges(self.config.strict, self.baseline, self.reviews)

    def note_subject(self, role: str, target: str, identity: dict[str, Any] | None = None) -> None:
        """Roles and steps call this with what the subject said about itself (server name, features, …)."""
        known = self.subjects.get(role)
        merged = dict(known.identity) if known else {}
        merged.update(identity or {})
        self.subjects[role] = Subject(role, target, merged)


def usage_error(message: str, harness: Harness | None = None) -> NoReturn:
    """End the run as a usage error: exit code ``EXIT_USAGE`` and one line, ``conformance: usage error: …``, under
    both front doors (pytest's own ``UsageError`` would exit 4 under ``pytest features/``)."""
    if harness is not None:
        harness.usage_error = message
    pytest.exit(f"conformance: usage error: {message}", returncode=EXIT_USAGE)


HARNESS = pytest.StashKey[Harness]()
#: The wire log of a scenario (the ``wire_log`` fixture's).
WIRE = pytest.StashKey[WireLog]()
#: The recorded form of the scenario's events (``EventForms``), shared by its two recording lines; let go with its
#: wire log.
EVENT_FORMS = pytest.StashKey[EventForms]()
#: What a scenario observed of its subject (the ``evidence`` fixture's texts).
EVIDENCE = pytest.StashKey[list[str]]()
#: What a scenario measured of its subject (the ``limit`` fixture's figures).
LIMITS = pytest.StashKey[list[dict[str, Any]]]()


def harness_of(config: pytest.Config) -> Harness:
    return config.stash[HARNESS]


def scenario_wire_log(item: pytest.Item) -> WireLog | None:
    """The wire log of ``item``'s scenario, or None when the scenario asked for none (for plugins that read the
    traffic after a scenario ran, e.g. the message-type coverage of tests/wire_types_plugin.py). Kept until the
    scenario's teardown has been reported (``pytest_runtest_protocol`` of simulator.harness.plugin), then let go."""
    return item.stash.get(WIRE, None)
