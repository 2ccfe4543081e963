"""The ccweb MCP contract: the single source of every tool definition and of the reply-mode constants.

PRD "统一 ccweb 消息回传接口" §3: the formal tool list (``CCWEB_MCP_TOOLS``, what ``tools/list`` serves) is
defined here once; the Codex App fallback list is *filtered* from that same tuple by the communication-tool
allowlist and given a namespace (``codex_fallback_tools``), never copied, so the two can never drift.

Theory of operation. Definitions are plain JSON (``name``, ``description``, ``inputSchema``), exactly what goes on
the wire. ``check_arguments`` validates a call against the schema of the tool it names (JSON Schema Draft
2020-12) and never raises on peer input; ``parse_send`` turns the arguments of a send call into a typed
``SendRequest`` or the list of every issue found. The compatibility policy of PRD §2 lives here too:

* ``ccweb_request_reply`` (``LEGACY_REQUEST_REPLY_TOOL``) is in no public list, but is callable and always means
  ``return_and_continue``;
* a ``ccweb_send_message`` call without ``replyMode`` (a thread that loaded the old definition) is ``one_way``.
  The public schema still lists ``replyMode`` as required and gives it no default.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import Any, Final

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # types-jsonschema not installed

from ...jsonpointer import join as pointer_join

__all__ = [
    "ReplyMode",
    "REPLY_MODE_ONE_WAY",
    "REPLY_MODE_RETURN_AND_CONTINUE",
    "REPLY_MODES",
    "LEGACY_DEFAULT_REPLY_MODE",
    "REPLY_DELIVERY_AUTOMATIC",
    "SEND_TOOL",
    "LEGACY_REQUEST_REPLY_TOOL",
    "LIST_CONVERSATIONS_TOOL",
    "TASK_BOARD_LIST_TOOL",
    "TASK_BOARD_UPDATE_TOOL",
    "SHOW_IMAGE_TOOL",
    "USER_FORM_TOOL",
    "SOURCE_CONVERSATION_META_KEY",
    "DEFAULT_FALLBACK_NAMESPACE",
    "CCWEB_MCP_TOOLS",
    "COMMUNICATION_TOOLS",
    "PUBLIC_TOOL_NAMES",
    "HIDDEN_TOOL_SCHEMAS",
    "SendRequest",
    "public_tools",
    "tool_schema",
    "codex_fallback_tools",
    "check_arguments",
    "parse_send",
]


class ReplyMode(StrEnum):
    """PRD §1: the two reply modes of ``ccweb_send_message`` (members compare equal to their wire strings)."""

    ONE_WAY = "one_way"
    RETURN_AND_CONTINUE = "return_and_continue"


REPLY_MODE_ONE_WAY: Final = ReplyMode.ONE_WAY.value
REPLY_MODE_RETURN_AND_CONTINUE: Final = ReplyMode.RETURN_AND_CONTINUE.value
REPLY_MODES: Final = tuple(m.value for m in ReplyMode)
#: PRD §2: what the dispatcher uses for a legacy ``ccweb_send_message`` call that carries no ``replyMode``.
LEGACY_DEFAULT_REPLY_MODE: Final = ReplyMode.ONE_WAY
#: PRD §2: the ``replyDelivery`` of a ``return_and_continue`` result (kept compatible with the old tool).
REPLY_DELIVERY_AUTOMATIC: Final = "automatic"

SEND_TOOL: Final = "ccweb_send_message"
LEGACY_REQUEST_REPLY_TOOL: Final = "ccweb_request_reply"
LIST_CONVERSATIONS_TOOL: Final = "ccweb_list_conversations"
TASK_BOARD_LIST_TOOL: Final = "ccweb_task_board_list"
TASK_BOARD_UPDATE_TOOL: Final = "ccweb_task_board_update"
SHOW_IMAGE_TOOL: Final = "ccweb_show_image"
USER_FORM_TOOL: Final = "ccweb_user_form"

#: ``tools/call`` ``_meta`` key naming the calling (source) conversation; the server's default otherwise.
SOURCE_CONVERSATION_META_KEY: Final = "ccweb/sourceConversationId"
DEFAULT_FALLBACK_NAMESPACE: Final = "ccweb"

SEND_TOOL_DESCRIPTION: Final = (
    "Send a message to another cc-web conversation. The call always returns immediately; it never waits for the "
    "target.\n"
    "\n"
    "replyMode is required. Choose it deliberately:\n"
    "- one_way: deliver the message only. The target's output stays in the target conversation and is NOT "
    "returned to you. Use one_way ONLY when this conversation does not need the target's result (a notice, an "
    "FYI, a hand-off you will not follow up).\n"
    "- return_and_continue: create an asynchronous reply request. When the target has truly finished, or is "
    "clearly blocked, its final output is written back to this conversation automatically and this conversation "
    "continues from it (the result carries requestId and status \"waiting\").\n"
    "You MUST use return_and_continue for analysis, implementation, testing, acceptance or review work, whenever "
    "the target should report back when done, and whenever your next steps depend on the result. If in doubt, "
    "use return_and_continue."
)

_TARGET_PROPERTY: Final = {
    "type": "string",
    "minLength": 1,
    "description": "Id of the conversation that receives the message (see ccweb_list_conversations).",
}
_CONTENT_PROPERTY: Final = {
    "type": "string",
    "minLength": 1,
    "description": "The complete message for the target: what to do, with all the context it needs.",
}

_SEND_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {
        "targetConversationId": _TARGET_PROPERTY,
        "content": _CONTENT_PROPERTY,
        "replyMode": {
            "type": "string",
            "enum": list(REPLY_MODES),
            "description": (
                "one_way: the target's output is NOT returned (only when you do not need the result). "
                "return_and_continue: the target's final output is returned here automatically and this "
                "conversation continues (required for analysis, implementation, testing, acceptance, reporting "
                "back when done, or when your next steps depend on the result)."
            ),
        },
    },
    "required": ["targetConversationId", "content", "replyMode"],
    "additionalProperties": False,
}


def _tool(name: str, description: str, schema: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType({"name": name, "description": description, "inputSchema": schema})


#: Every public tool, in ``tools/list`` order (PRD §3: "正式 TOOLS"). Read-only views; ``public_tools()`` gives
#: mutable deep copies.
CCWEB_MCP_TOOLS: Final[tuple[Mapping[str, Any], ...]] = (
    _tool(SEND_TOOL, SEND_TOOL_DESCRIPTION, _SEND_SCHEMA),
    _tool(
        LIST_CONVERSATIONS_TOOL,
        "List the cc-web conversations you can message: id and title of each.",
        {"type": "object", "properties": {}, "additionalProperties": False},
    ),
    _tool(
        TASK_BOARD_LIST_TOOL,
        "List the cards of the shared task board.",
        {"type": "object", "properties": {}, "additionalProperties": False},
    ),
    _tool(
        TASK_BOARD_UPDATE_TOOL,
        "Create or update a card of the shared task board.",
        {
            "type": "object",
            "properties": {
                "taskId": {"type": "string", "minLength": 1},
                "title": {"type": "string"},
                "status": {"type": "string", "enum": ["todo", "doing", "done", "failed"]},
            },
            "required": ["taskId", "status"],
            "additionalProperties": False,
        },
    ),
    _tool(
        SHOW_IMAGE_TOOL,
        "Show an image to the user in the conversation.",
        {
            "type": "object",
            "properties": {"url": {"type": "string", "minLength": 1}, "caption": {"type": "string"}},
            "required": ["url"],
            "additionalProperties": False,
        },
    ),
    _tool(
        USER_FORM_TOOL,
        "Ask the user to fill in a form; the answers arrive later as a new message.",
        {
            "type": "object",
            "properties": {
                "title": {"type": "string", "minLength": 1},
                "fields": {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            },
            "required": ["title", "fields"],
            "additionalProperties": False,
        },
    ),
)

#: PRD §3: the communication tools, the only ones the Codex App fallback list may carry (task-board, image and
#: form tools are deliberately absent).
COMMUNICATION_TOOLS: Final = frozenset({SEND_TOOL, LIST_CONVERSATIONS_TOOL})
PUBLIC_TOOL_NAMES: Final = tuple(t["name"] for t in CCWEB_MCP_TOOLS)

_LEGACY_REQUEST_REPLY_SCHEMA: Final = {
    "type": "object",
    "properties": {
        "targetConversationId": _TARGET_PROPERTY,
        "content": _CONTENT_PROPERTY,
        # The alias always means return_and_continue; a caller may repeat that, not contradict it.
        "replyMode": {"const": REPLY_MODE_RETURN_AND_CONTINUE},
    },
    "required": ["targetConversationId", "content"],
    "additionalProperties": False,
}
#: Callable but never listed (PRD §2): name → the schema its arguments are checked against.
HIDDEN_TOOL_SCHEMAS: Final[Mapping[str, Mapping[str, Any]]] = MappingProxyType(
    {LEGACY_REQUEST_REPLY_TOOL: _LEGACY_REQUEST_REPLY_SCHEMA}
)


def _legacy_send_schema() -> dict[str, Any]:
    """The public send schema minus ``replyMode`` in ``required``: what a legacy call is checked against."""
    schema = copy.deepcopy(_SEND_SCHEMA)
    schema["required"] = [r for r in schema["required"] if r != "replyMode"]
    return schema


_VALIDATORS: Final = {
    **{t["name"]: Draft202012Validator(t["inputSchema"]) for t in CCWEB_MCP_TOOLS},
    **{name: Draft202012Validator(schema) for name, schema in HIDDEN_TOOL_SCHEMAS.items()},
}
_LEGACY_SEND_VALIDATOR: Final = Draft202012Validator(_legacy_send_schema())


def public_tools() -> list[dict[str, Any]]:
    """Deep copies of ``CCWEB_MCP_TOOLS`` as plain dicts (what ``tools/list`` serves)."""
    return [copy.deepcopy(dict(t)) for t in CCWEB_MCP_TOOLS]


def tool_schema(name: str) -> dict[str, Any] | None:
    """The input schema a call of ``name`` is checked against (public or hidden), or None for an unknown name."""
    for t in CCWEB_MCP_TOOLS:
        if t["name"] == name:
            schema: dict[str, Any] = copy.deepcopy(t["inputSchema"])  # built by _tool() from a dict[str, Any]
            return schema
    hidden = HIDDEN_TOOL_SCHEMAS.get(name)
    return copy.deepcopy(dict(hidden)) if hidden is not None else None


def codex_fallback_tools(
    namespace: str = DEFAULT_FALLBACK_NAMESPACE, tools: Iterable[Mapping[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """PRD §3: the Codex App fallback (dynamic) tool list, filtered from ``tools`` (default ``CCWEB_MCP_TOOLS``:
    the same definitions ``tools/list`` serves) by ``COMMUNICATION_TOOLS`` and given ``namespace``. Description
    and schema are the formal ones, unchanged."""
    return [
        {
            "name": t["name"],
            "namespace": namespace,
            "description": t["description"],
            "inputSchema": copy.deepcopy(t["inputSchema"]),
        }
        for t in (CCWEB_MCP_TOOLS if tools is None else tools)
        if t["name"] in COMMUNICATION_TOOLS
    ]


def _issue_text(error: Any) -> str:
    path = pointer_join("", *error.absolute_path)
    if list(error.absolute_path) == ["replyMode"] and error.validator in ("enum", "type", "const"):
        if error.validator == "const":
            return (f"/replyMode: {LEGACY_REQUEST_REPLY_TOOL} always means {REPLY_MODE_RETURN_AND_CONTINUE}; "
                    f"got {error.instance!r}")
        return (f"/replyMode: {error.instance!r} is not a reply mode; the allowed values are "
                f"{REPLY_MODE_ONE_WAY} and {REPLY_MODE_RETURN_AND_CONTINUE}")
    return f"{path or '/'}: {error.message}"


def check_arguments(name: str, arguments: Any) -> tuple[str, ...]:
    """Every issue of ``arguments`` against the schema of tool ``name`` (empty: valid). A ``ccweb_send_message``
    call without ``replyMode`` is checked against the legacy shape (PRD §2). Never raises on peer input; an
    unknown ``name`` is one issue."""
    validator = _VALIDATORS.get(name)
    if validator is None:
        return (f"unknown tool {name!r}",)
    if name == SEND_TOOL and isinstance(arguments, dict) and "replyMode" not in arguments:
        validator = _LEGACY_SEND_VALIDATOR
    errors = sorted(validator.iter_errors(arguments), key=lambda e: (list(e.absolute_path), e.validator))
    return tuple(dict.fromkeys(_issue_text(e) for e in errors))  # one line per issue, in order


@dataclass(frozen=True, slots=True)
class SendRequest:
    """A valid send call, whichever name it came by."""

    tool: str
    target_conversation_id: str
    content: str
    reply_mode: ReplyMode
    #: True when ``replyMode`` was absent from a legacy ``ccweb_send_message`` call (PRD §2: one_way).
    legacy_default: bool = False


def parse_send(name: str, arguments: Any) -> SendRequest | tuple[str, ...]:
    """A send call (``ccweb_send_message`` or the hidden ``ccweb_request_reply``) → ``SendRequest``, or every
    issue found. The alias always maps to ``return_and_continue``; a send without ``replyMode`` to ``one_way``."""
    if name not in (SEND_TOOL, LEGACY_REQUEST_REPLY_TOOL):
        return (f"{name!r} is not a send tool",)
    issues = check_arguments(name, arguments)
    if issues:
        return issues
    if name == LEGACY_REQUEST_REPLY_TOOL:
        mode, defaulted = ReplyMode.RETURN_AND_CONTINUE, False
    elif "replyMode" in arguments:
        mode, defaulted = ReplyMode(arguments["replyMode"]), False
    else:
        mode, defaulted = LEGACY_DEFAULT_REPLY_MODE, True
    return SendRequest(name, arguments["targetConversationId"], arguments["content"], mode, defaulted)
