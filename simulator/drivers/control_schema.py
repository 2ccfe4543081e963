"""Control answers, checked against a role's control-API JSON Schema before a driver reads a field of them.

Every control answer is the subject's own word (docs/control-api.md "Common shape"). A driver reads an answer only
after it matched its ``$defs`` entry of the role's schema (draft 2020-12; ``docs/control-api.schema.json`` for the
hook server, ``docs/desktop-control-api.schema.json`` for the desktop): a missing or mistyped field is the subject's
malformed answer, a failure that names the schema file, the ``$defs`` entry and the JSON pointer, never a default
that happens to pass. Nothing here is specific to one role: ``ControlSchema`` takes the schema file, ``CheckedControl``
the subject's listings and how failures name the subject.

A listing (``{<key>: [row…]}``, e.g. the hook server's ``list-messages``) is checked row by row instead of in one go,
which is cheaper on a server that has served a whole run: every row must carry the fields ``$defs/<row>`` requires (a
row without them could hide from a filter and make a "there is none" check pass), and the rows kept are checked in
full. ``ControlSchema.check_fields`` checks some fields of an answer as its ``$defs`` entry defines them (a reader
of one part of a large answer, e.g. the desktop's ``state.groupWindow``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # types-jsonschema not installed
from jsonschema.exceptions import best_match  # type: ignore[import-untyped]  # as above

__all__ = ["CheckedControl", "ControlCalls", "ControlSchema", "Listing", "Row"]


Row = dict[str, Any]


class ControlCalls(Protocol):
    """What a driver needs of a control client (``simulator.subjects.control.ControlClient``)."""

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
        self._validators: dict[tuple[str, tuple[str, ...] | None], Draft202012Validator] = {}

    @property
    def defs(self) -> dict[str, Any]:
        if self._defs is None:
            self._defs = json.loads(self.path.read_text(encoding="utf-8"))["$defs"]
        return self._defs

    def _validator(self, definition: str, fields: tuple[str, ...] | None = None) -> Draft202012Validator:
        """The validator of ``$defs/<definition>``, or (``fields``) of only those of its properties: an object that
        carries every one of them (a reader reads them: one the definition leaves optional must be there too) as the
        definition defines them, the rest not looked at."""
        key = (definition, fields)
        if key not in self._validators:
            if definition not in self.defs:
                raise KeyError(f"{self.label} has no $defs/{definition}")
            if fields is None:
                schema: dict[str, Any] = {"$ref": f"#/$defs/{definition}"}
            else:
                props = self.defs[definition].get("properties", {})
                unknown = [f for f in fields if f not in props]
                if unknown:
                    raise KeyError(f"{self.label} $defs/{definition} defines no field {unknown}")
                schema = {"type": "object",
                          "properties": {f: {"$ref": f"#/$defs/{definition}/properties/{f}"} for f in fields},
                          "required": sorted(set(fields))}
            self._validators[key] = Draft202012Validator({"$defs": self.defs, **schema})
        return self._validators[key]

    def required(self, definition: str) -> frozenset[str]:
        """The fields ``$defs/<definition>`` requires."""
        return frozenset(self.defs[definition].get("required", ()))

    def _fail(self, error: Any, definition: str, what: str, subject: str) -> None:
        """The most relevant error (``best_match``: inside a ``oneOf`` of null or an object, the object's own
        error, e.g. a missing field, rather than "not valid under any of the given schemas")."""
        if error is not None:
            where = "".join(f"/{p}" for p in error.absolute_path) or "/"
            raise AssertionError(f"the {subject}'s control answer to {what} does not match {self.label} "
                                 f"($defs/{definition}) at {where}: {error.message}"[:800])

    def check(self, value: Any, definition: str, what: str, *, subject: str = "server") -> None:
        """``value`` matches ``$defs/<definition>``, else the subject's malformed answer fails the step (a field it
        omits is never read as a default)."""
        self._fail(best_match(self._validator(definition).iter_errors(value)), definition, what, subject)

    def check_fields(self, value: Any, definition: str, fields: Iterable[str], what: str, *,
                     subject: str = "server") -> None:
        """``value`` is an object that carries each of ``fields`` (an optional one too: the caller reads it) as
        ``$defs/<definition>`` defines it; its other fields are not looked at. Failures read as ``check``'s, with the
        pointer from the answer's root."""
        validator = self._validator(definition, tuple(sorted(set(fields))))
        self._fail(best_match(validator.iter_errors(value)), definition, what, subject)


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
