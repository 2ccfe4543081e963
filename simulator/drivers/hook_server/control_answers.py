"""The hook server's control answers, checked against docs/control-api.schema.json before a driver reads a field.

The checking itself is role-neutral and lives in ``simulator.drivers.control_schema`` (``ControlSchema``,
``CheckedControl``, ``Listing``; re-exported here); this module names the hook server's schema and its listings
(docs/control-api.md "hook-server").
"""

from __future__ import annotations

from collections.abc import Mapping

from ...suite import schema_path
from ..control_schema import CheckedControl, ControlCalls, ControlSchema, Listing, Row

__all__ = [
    "HOOK_SERVER_CONTROL_SCHEMA", "HOOK_SERVER_LISTINGS", "CheckedControl", "ControlCalls", "ControlSchema", "Listing",
    "Row",
]

#: The contract of the hook-server control API: every answer a hook-server driver reads is checked against it.
HOOK_SERVER_CONTROL_SCHEMA = ControlSchema(schema_path("control-api.schema.json"))

#: The hook-server capabilities that answer a listing (docs/control-api.md).
HOOK_SERVER_LISTINGS: Mapping[str, Listing] = {
    "list-messages": Listing("messages", "message"), "list-tasks": Listing("tasks", "task"),
    "connections": Listing("connections", "connection"), "dropped-frames": Listing("dropped", "dropped"),
    "notices": Listing("notices", "notice"),
    "list-posts": Listing("posts", "post"),  # message operations
    # queries and gateway tools
    "list-queries": Listing("queries", "query"), "list-tool-calls": Listing("calls", "toolCall"),
}
