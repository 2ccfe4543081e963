"""Exceptions that carry a conformance verdict out of a step, and the harness's own errors.

    Exception
    ├── ConformanceOutcome              a step decided the scenario's verdict
    │   ├── NotApplicable               the subject did not declare the capability → not-applicable
    │   ├── NotTestable                 the harness cannot observe what it needs → not-testable (a failure)
    │   └── SubjectTimeout              the subject did not answer within the limit → timeout
    └── HarnessError                    the harness or its infrastructure failed → error (exit code 3)
        ├── TargetError                 a target could not be started or reached
        └── ConfigError                 bad options or configuration → usage error (exit code 2)

Plain ``AssertionError`` from a step is a failed expectation: fail (or warn for a @should requirement).
"""

from __future__ import annotations

__all__ = [
    "ConformanceOutcome",
    "NotApplicable",
    "NotTestable",
    "SubjectTimeout",
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


class HarnessError(Exception):
    """Our side failed: a bug, a port in use, a crashed helper process."""


class TargetError(HarnessError):
    """A target could not be started, spawned or reached."""


class ConfigError(HarnessError):
    """Bad command-line options or configuration (unknown keys, malformed target specs)."""
