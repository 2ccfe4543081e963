"""The desktop's control answers, checked against docs/desktop-control-api.schema.json before a driver reads a field
(docs/control-api.md "desktop": "How the harness reads these answers").

Every answer is the desktop's own word. ``DesktopSession.call`` checks each one against ``$defs/<capability>.response``
(``CheckedControl``, the role-neutral checking of ``simulator.drivers.control_schema``) before any operation reads it:
a field left out or mistyped, anywhere in the answer (in a ``state`` answer also in the fields of a family the scenario
does not use), is the desktop's malformed answer, a failure naming the schema file, the ``$defs`` entry and the JSON
pointer, never a default that happens to pass. An error status is raised by the control client as it always is
(``SubjectRefused``; a capability missing from ``GET /v1``: ``NotTestable``). The readers of one part of an answer
(``checked_slack_view``, ``checked_window``, …) check that part again with ``checked_fields``, so they never read an
answer that was not checked, whoever got it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ...suite import schema_path
from ..control_schema import CheckedControl, ControlCalls, ControlSchema, Listing

__all__ = ["DESKTOP_CONTROL_SCHEMA", "DESKTOP_LISTINGS", "SUBJECT", "checked_answer", "checked_control",
           "checked_fields"]

#: The contract of the desktop control API: every answer a desktop driver reads is checked against it.
DESKTOP_CONTROL_SCHEMA = ControlSchema(schema_path("desktop-control-api.schema.json"))
#: How a failure names who answered.
SUBJECT = "desktop"
#: The desktop's capabilities answer one object each (``state`` included): none is a listing, each answer is checked
#: whole against ``$defs/<capability>.response``.
DESKTOP_LISTINGS: Mapping[str, Listing] = {}


def checked_control(client: ControlCalls) -> CheckedControl:
    """``client`` with every answer checked against the desktop's schema before it is returned."""
    return CheckedControl(client, DESKTOP_CONTROL_SCHEMA, DESKTOP_LISTINGS, subject=SUBJECT)


def checked_answer(answer: Any, capability: str) -> Any:
    """``answer`` when it matches ``$defs/<capability>.response``; else ``AssertionError`` naming the schema, the
    ``$defs`` entry and the JSON pointer."""
    DESKTOP_CONTROL_SCHEMA.check(answer, f"{capability}.response", capability, subject=SUBJECT)
    return answer


def checked_fields(answer: Any, capability: str, fields: Iterable[str], definition: str | None = None) -> Any:
    """``answer`` when its ``fields`` match ``$defs/<capability>.response`` (or ``$defs/<definition>``: a row of the
    answer); its other fields are not looked at. Else ``AssertionError`` as ``checked_answer``'s."""
    DESKTOP_CONTROL_SCHEMA.check_fields(answer, definition or f"{capability}.response", fields, capability,
                                        subject=SUBJECT)
    return answer
