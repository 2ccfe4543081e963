"""Control answers, checked against the control API's JSON Schema before a driver reads a field of them.

Every control answer is the subject's own word (docs/control-api.md "Common shape"). A driver reads an answer only
after it matched its ``$defs`` entry of the schema (draft 2020-12): a missing or mistyped field is the subject's
malformed answer, a failure that names the JSON pointer and the ``$defs`` entry, never a default that happens to
pass. Nothing here is specific to the hook server: ``ControlSchema`` takes the schema file, ``CheckedControl`` the
subject's listings, so another role driver (the desktop's) checks its own control API the same way.

A listing (``{<key>: [row…]}``, e.g. ``list-messages``) is checked row by row instead of in one go, which is cheaper
on a server that has served a whole run: every row must carry the fields ``$defs/<row>`` requires (a row without
them could hide from a filter and make a "there is none" check pass), and the rows kept are checked in full.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from jsonschema import Draft202012Validator

from ...suite import schema_path

__all__ = [
    "HOOK_SERVER_CONTROL_SCHEMA", "HOOK_SERVER_LISTINGS", "CheckedControl", "ControlCalls", "ControlSchema", "Listing",
]


Row = dict[str, Any]


class ControlCalls(Protocol):
    """What a driver needs of a control client (``simulator.control.ControlClient``)."""

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any: ...

    def require(self, capability: str) -> None: ...


@dataclass(frozen=True, slots=True)
class Listing:
    """A capability that answers ``{<key>: [row…]}``, each row a ``$defs/<row>`` object."""

    key: str
    row: str


class ControlSchema:
    """One control-API schema file, read once; its ``$defs`` entries checked by name."""

    def __init__(self, path: Path, label: str | None = None) -> None:
        self.path = path
        #: How failures name the schema (``docs/control-api.schema.json``).
        self.label = label or f"docs/{path.name}"
        self._defs: dict[str, Any] | None = None
        self._validators: dict[str, Draft202012Validator] = {}

    @property
    def defs(self) -> dict[str, Any]:
        if self._defs is None:
            self._defs = json.loads(self.path.read_text(encoding="utf-8"))["$defs"]
        return self._defs

    def _validator(self, definition: str) -> Draft202012Validator:
        if definition not in self._validators:
            if definition not in self.defs:
                raise KeyError(f"{self.label} has no $defs/{definition}")
            self._validators[definition] = Draft202012Validator({"$defs": self.defs, "$ref": f"#/$defs/{definition}"})
        return self._validators[definition]

    def required(self, definition: str) -> frozenset[str]:
        """The fields ``$defs/<definition>`` requires."""
        return frozenset(self.defs[definition].get("required", ()))

    def check(self, value: Any, definition: str, what: str, *, subject: str = "server") -> None:
        """``value`` matches ``$defs/<definition>``, else the subject's malformed answer fails the step (a field it
        omits is never read as a default)."""
        error = next(iter(self._validator(definition).iter_errors(value)), None)
        if error is not None:
            where = "".join(f"/{p}" for p in error.absolute_path) or "/"
            raise AssertionError(f"the {subject}'s control answer to {what} does not match {self.label} "
                                 f"($defs/{definition}) at {where}: {error.message}"[:800])


#: The contract of the hook-server control API: every answer a hook-server driver reads is checked against it.
HOOK_SERVER_CONTROL_SCHEMA = ControlSchema(schema_path("control-api.schema.json"))

#: The hook-server capabilities that answer a listing (docs/control-api.md).
HOOK_SERVER_LISTINGS: Mapping[str, Listing] = {
    "list-messages": Listing("messages", "message"), "list-tasks": Listing("tasks", "task"),
    "connections": Listing("connections", "connection"), "dropped-frames": Listing("dropped", "dropped"),
    "notices": Listing("notices", "notice"),
    "list-posts": Listing("posts", "post"),  # part 2b, message operations
    # part 2b: queries and gateway tools
    "list-queries": Listing("queries", "query"), "list-tool-calls": Listing("calls", "toolCall"),
}


class CheckedControl:
    """A control client whose answers are checked before anyone reads them: ``$defs/<capability>.response`` for a
    plain answer, ``Listing`` rows for a listing."""

    def __init__(self, client: ControlCalls, schema: ControlSchema, listings: Mapping[str, Listing], *,
                 subject: str = "server") -> None:
        self.client = client
        self.schema = schema
        self.listings = listings
        self.subject = subject

    def require(self, capability: str) -> None:
        """``NotTestable`` unless the subject's control API offers ``capability``."""
        self.client.require(capability)

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        """Call ``capability`` and return its answer, checked (a listing: only that it holds its list)."""
        answer = self.client.call(capability, body or {})
        listing = self.listings.get(capability)
        if listing is not None:
            if not isinstance(answer, dict) or not isinstance(answer.get(listing.key), list):
                raise AssertionError(f"the {self.subject}'s control answer to {capability} has no list "
                                     f"{listing.key!r} ({self.schema.label} requires it): {answer!r}"[:600])
        else:
            self.schema.check(answer, f"{capability}.response", capability, subject=self.subject)
        return answer

    def rows(self, capability: str, body: dict[str, Any] | None = None,
             keep: Callable[[Row], bool] = lambda row: True) -> list[Row]:
        """The rows of the listing ``capability`` that ``keep`` selects. Every row must carry the fields the schema
        requires before ``keep`` looks at it; the rows kept are checked in full."""
        if capability not in self.listings:
            raise KeyError(f"{capability!r} is not a listing capability ({sorted(self.listings)})")
        listing = self.listings[capability]
        answer = self.call(capability, body)
        required = self.schema.required(listing.row)
        kept = []
        for index, row in enumerate(answer[listing.key]):
            if not isinstance(row, dict) or not required <= row.keys():
                missing = sorted(required - row.keys()) if isinstance(row, dict) else "(not an object)"
                raise AssertionError(f"the {self.subject}'s control answer to {capability} is malformed at "
                                     f"/{listing.key}/{index}: missing {missing} ({self.schema.label} "
                                     f"$defs/{listing.row}): {row!r}"[:800])
            if keep(row):
                self.schema.check(row, listing.row, f"{capability} /{listing.key}/{index}", subject=self.subject)
                kept.append(row)
        return kept
