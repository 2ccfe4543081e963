"""Exceptions that carry a conformance verdict out of a step, and the harness's own errors.

    Exception
    ├── ConformanceOutcome              a step decided the scenario's verdict
    │   ├── NotApplicable               the subject did not declare the capability → not-applicable
    │   ├── NotTestable                 the harness cannot observe what it needs → not-testable (a failure)
    │   ├── NeedsReview                 only a human reader can judge the material → review (settled by --reviews)
    │   └── SubjectTimeout              the subject stopped answering at all → timeout
    └── HarnessError                    the harness or its infrastructure failed → error (exit code 3)
        ├── TargetError                 a target could not be started or reached
        └── ConfigError                 bad options or configuration → usage error (exit code 2)

    AssertionError
    ├── MissingFrame                    the subject is alive (answers ping) but never sent the required frame → fail
    ├── SubjectRefused                  the subject answered with a refusal (HTTP status, refused upgrade) → fail
    └── NegativeWindowBroken            a "nothing arrives" window ended by a close or an unanswered ping → fail

Plain ``AssertionError`` from a step is a failed expectation: fail (or warn for a @should requirement).
The verdict table is docs/targets.md "Verdicts"; ``simulator.verdicts.decide.judge`` applies it.
"""

from __future__ import annotations

__all__ = [
    "ConformanceOutcome",
    "NotApplicable",
    "NotTestable",
    "SubjectTimeout",
    "NeedsReview",
    "MissingFrame",
    "SubjectRefused",
    "NegativeWindowBroken",
    "HarnessError",
    "TargetError",
    "ConfigError",
]


class ConformanceOutcome(Exception):
    """Base of the exceptions that set a verdict; ``reason`` is shown in every report."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class NotApplicable(ConformanceOutcome):
    """The requirement depends on a capability the subject did not declare (e.g. a ``welcome.features`` string).
    The reason names the capability."""


class NotTestable(ConformanceOutcome):
    """The harness cannot observe or drive what the requirement needs (e.g. the subject has no control API).
    Counts as a failure: "Not testable:" is never a silent pass."""


class SubjectTimeout(ConformanceOutcome):
    """The subject did not answer (or did not do what was awaited) within the step's limit."""

    def __init__(self, reason: str, *, waited_s: float | None = None) -> None:
        super().__init__(reason)
        self.waited_s = waited_s


class NeedsReview(ConformanceOutcome):
    """The requirement can only be judged by a human reader (e.g. the wording of a prompt). ``material`` is what the
    reader must judge; the verdict is *review* (it neither passes nor fails a run) until a reviewed-decisions file
    (``--reviews``) settles it."""

    def __init__(self, reason: str, material: str = "") -> None:
        super().__init__(reason)
        self.material = material


class MissingFrame(AssertionError):
    """The subject is alive (it answered a ping after the wait) but did not send the frame or message the
    requirement needs within the step limit: the subject's failure, reported as "no <frame> within N s"."""


class SubjectRefused(AssertionError):
    """The subject answered with a refusal where the step needed an acceptance: an HTTP error status from its
    control API, a refused WebSocket upgrade. It is the subject's answer, judged (fail), never an infrastructure
    error. ``status`` is the HTTP status, ``body`` what came with it."""

    def __init__(self, message: str, *, status: int | None = None, body: str = "", code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body
        #: The ``error.code`` of a control-API error body, when it had one.
        self.code = code


class NegativeWindowBroken(AssertionError):
    """A negative check ("nothing arrives within N s") could not hold: the connection closed during the window, or
    the subject stopped answering ping, so silence is no evidence."""


class HarnessError(Exception):
    """Our side failed: a bug, a port in use, a crashed helper process."""


class TargetError(HarnessError):
    """A target could not be started, spawned or reached."""


class ConfigError(HarnessError):
    """Bad command-line options or configuration (unknown keys, malformed target specs)."""
