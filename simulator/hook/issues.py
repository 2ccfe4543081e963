"""What a failed parse says: where (a JSON pointer), what (a stable code), why (a sentence) and the spec reference.

    HookParseResult                       (envelope.py, next to HookMessage)
    ├── ok=True   .message: HookMessage
    └── ok=False  .error:   HookIssue(path, code, message, spec_ref, origin)

``parse_hook_message`` never raises on peer input (spec §2: "坏帧返回 ok:false + 字段路径,绝不抛异常"): every problem
becomes a ``HookIssue``. Exceptions are for our own misuse only (``HookBuildError`` when a builder is handed
values that would make an invalid frame).

This module imports no other module of the core (not even under ``TYPE_CHECKING``): every family module, ``checks``,
``registry`` and ``envelope`` import it, so it sits at the bottom of the core's one-way import graph. The result
type that holds a ``HookMessage`` lives in ``envelope`` for that reason (tests/test_import_graph.py pins it).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

__all__ = ["IssueCode", "HookIssue", "HookBuildError", "SPEC", "UPSTREAM"]

#: Reference prefixes: the spec document, and the facts about the upstream package real peers run.
SPEC = "slack-hook-protocol.md"
UPSTREAM = "UPSTREAM-FACTS.md"


class IssueCode(StrEnum):
    """Stable codes; documented in docs/hook-protocol-core.md. Never renamed, only added to."""

    # Envelope pipeline (UPSTREAM-FACTS "Envelope and pipeline", first failure wins in this order).
    FRAME_TOO_LARGE = "FRAME_TOO_LARGE"
    NOT_UTF8 = "NOT_UTF8"
    NOT_JSON = "NOT_JSON"
    NOT_OBJECT = "NOT_OBJECT"
    UNSUPPORTED_VERSION = "UNSUPPORTED_VERSION"
    UNKNOWN_TYPE = "UNKNOWN_TYPE"
    # Field rules.
    MISSING = "MISSING"  # a required field is absent (a `string | null` field must be present, null or not)
    WRONG_TYPE = "WRONG_TYPE"  # not the JSON type the field takes (booleans are never numbers)
    EMPTY = "EMPTY"  # an empty string, list or object where a non-empty one is required
    NOT_ALLOWED_VALUE = "NOT_ALLOWED_VALUE"  # outside a closed set (enum)
    OUT_OF_RANGE = "OUT_OF_RANGE"  # a number outside its range, not an integer, or not finite
    TOO_LONG = "TOO_LONG"  # a string over its length limit (UTF-16 code units)
    TOO_MANY = "TOO_MANY"  # a list over its item limit
    DUPLICATE = "DUPLICATE"  # a value that must be unique is repeated
    BAD_FORMAT = "BAD_FORMAT"  # a string that does not match its format (ids, handles, e-mail, '|' in a button id)
    BAD_URL = "BAD_URL"  # not an https URL without user info (WHATWG URL rules)
    ABSOLUTE_PATH = "ABSOLUTE_PATH"  # a local absolute path where only a workspace alias may travel
    UNKNOWN_FIELD = "UNKNOWN_FIELD"  # a key the type forbids (ping/pong, bind.revoke, turn.delivery.error, ...)
    LINKAGE = "LINKAGE"  # a field's value contradicts another field (status/errorMessage, state/attemptId, ...)
    NOT_A_MEMBER = "NOT_A_MEMBER"  # hello.defaultWorkspace not among hello.workspaces
    SAME_AS = "SAME_AS"  # turn.reopen requestId equal to reopenOf
    EMPTY_PATCH = "EMPTY_PATCH"  # provider.behavior.set with nothing to change
    # Not the peer's rule but ours: a value we could not validate at all (never expected; reported, not raised).
    UNVALIDATABLE = "UNVALIDATABLE"


@dataclass(frozen=True, slots=True)
class HookIssue:
    """One problem with a frame. ``path`` is a JSON pointer into the decoded frame ("" is the whole frame)."""

    path: str
    code: IssueCode
    message: str
    spec_ref: str
    #: Who sent the frame ("harness", "subject", a role name), filled in by whoever received it.
    origin: str | None = None

    def with_origin(self, origin: str) -> HookIssue:
        return replace(self, origin=origin)

    def to_json(self) -> dict[str, str | None]:
        return {
            "path": self.path,
            "code": self.code.value,
            "message": self.message,
            "specRef": self.spec_ref,
            "origin": self.origin,
        }

    def __str__(self) -> str:
        where = self.path or "(frame)"
        return f"{where}: {self.message} [{self.code.value}; {self.spec_ref}]"


class HookBuildError(ValueError):
    """A builder or serializer was asked to produce a frame the protocol rejects (our misuse, not the peer's)."""

    def __init__(self, issue: HookIssue) -> None:
        super().__init__(str(issue))
        self.issue = issue
