"""The ccweb driver: a ccweb MCP server under test, driven as its MCP client and observed through its control API
(ccweb-reply-mode-prd.md "统一 ccweb 消息回传接口"; docs/control-api.md "ccweb"; docs/ccweb-contract-plan.md).

| module | holds |
|---|---|
| ``contract`` | the control API's closed sets (capabilities, run kinds, statuses), the call entries, the caller key |
| ``control_view`` | ``CcwebControl``: the control API's answers, each checked against the contract before use |
| ``calls`` | ``CallOutcome``: one call of a tool, how its answer is read and judged |
| ``tool_lists`` | ``ToolLists``: tools/list and the Codex App fallback list, and their checks |
| ``schema_reading`` | what the tool-list checks read in an input schema (properties, required, allowed values, defaults) |
| ``deliveries`` | what the conversations show after a send (runs, messages, pending replies) |
| ``waiting`` | the positive and negative waits over the control API (on ``drivers.timing``) |
| ``reader_judgement`` | the *review* material, with stable placeholders for the ids of the run |
| ``driver`` | ``CcwebDriver``: one scenario's session, conversations, call, runs, and the named operations |
"""

from __future__ import annotations

from .calls import CallOutcome
from .contract import (
    FINISHED_STATUSES, SOURCE_META_KEY, Capability, Entry, PendingStatus, RunKind, RunStatus,
)
from .control_view import CcwebControl, ControlCaller
from .driver import CcwebDriver, Conversation, PromptedRun, PromptItem, initialize_session, json_literal
from .reader_judgement import hand_to_reader, stable_material
from .schema_reading import allowed_values, find_defaults, resolve_ref, schema_property
from .tool_lists import ToolLists
from .waiting import SETTLE_REFUSED_S, SETTLE_WRITE_BACK_S, stays_absent, wait_for

__all__ = [
    "CallOutcome", "Capability", "CcwebControl", "CcwebDriver", "ControlCaller", "Conversation", "Entry",
    "FINISHED_STATUSES", "PendingStatus", "PromptItem", "PromptedRun", "RunKind", "RunStatus", "SETTLE_REFUSED_S",
    "SETTLE_WRITE_BACK_S", "SOURCE_META_KEY", "ToolLists", "allowed_values", "find_defaults", "hand_to_reader",
    "initialize_session", "json_literal", "resolve_ref", "schema_property", "stable_material", "stays_absent",
    "wait_for",
]
