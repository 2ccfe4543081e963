"""The SDK-free values of the MCP-client role: what it records (elicitation requests, progress events), how it
answers the server (``ElicitAnswer``), its errors, and the helpers the MCP drivers use without a session
(``tool_text``, arguments built from a subject's own ``inputSchema``).

They live apart from ``mcp_client`` so that importing a driver or a step package costs nothing of the ``mcp`` SDK
(about a second of start-up): only opening a session (``McpClientRole``) loads it. ``mcp_client`` re-exports all
of them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

__all__ = [
    "AnswerFn",
    "ElicitAnswer",
    "ElicitationRequest",
    "ElicitationSupport",
    "McpErrorResponse",
    "ProgressEvent",
    "SubjectDisconnected",
    "breaking_arguments",
    "tool_text",
    "valid_arguments",
]


# -- data ----------------------------------------------------------------------------------------------------------


class ElicitationSupport(StrEnum):
    """Which elicitation modes the client declares at ``initialize`` (client/elicitation#capabilities)."""

    FORM = "form"
    URL = "url"
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    """One ``elicitation/create`` request the server sent (client/elicitation, 2025-11-25)."""

    request_id: int | str
    #: "form" or "url"; an absent ``mode`` means form (2025-11-25: "MAY omit the mode field" for form).
    mode: str
    message: str | None
    requested_schema: dict[str, Any] | None
    url: str | None
    elicitation_id: str | None
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ProgressEvent:
    """One ``notifications/progress`` (basic/utilities/progress)."""

    progress_token: str | int | None
    progress: float | None
    total: float | None
    message: str | None
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class ElicitAnswer:
    """How the role answers a request from the server: a result, a JSON-RPC error, or no answer at all.

    ``accept(content)`` / ``decline()`` / ``cancel()`` are the three elicitation actions; ``raw(result)`` sends any
    result (e.g. a malformed one, on purpose); ``error(code, message)`` a JSON-RPC error; ``none()`` never
    answers (the server's own timeout is then under test)."""

    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    silent: bool = False

    @classmethod
    def accept(cls, content: Mapping[str, Any] | None = None) -> ElicitAnswer:
        result: dict[str, Any] = {"action": "accept"}
        if content is not None:
            result["content"] = dict(content)
        return cls(result=result)

    @classmethod
    def decline(cls) -> ElicitAnswer:
        return cls(result={"action": "decline"})

    @classmethod
    def cancel(cls) -> ElicitAnswer:
        return cls(result={"action": "cancel"})

    @classmethod
    def raw(cls, result: Mapping[str, Any]) -> ElicitAnswer:
        return cls(result=dict(result))

    @classmethod
    def fail(cls, code: int, message: str, data: Any = None) -> ElicitAnswer:
        error: dict[str, Any] = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        return cls(error=error)

    @classmethod
    def none(cls) -> ElicitAnswer:
        return cls(silent=True)


#: ``answer_fn(request)`` → an ``ElicitAnswer``, a plain result dict, or an awaitable of either. It runs on the
#: role's event loop: keep it quick, and never call the role's synchronous methods from it.
AnswerFn = Callable[[ElicitationRequest], "ElicitAnswer | dict[str, Any] | Awaitable[ElicitAnswer | dict[str, Any]]"]


class McpErrorResponse(AssertionError):
    """The subject answered with a JSON-RPC error where a result was expected (a failed expectation).
    ``code``, ``message``, ``data`` are the error's members; ``response`` is the whole response."""

    def __init__(self, method: str, response: dict[str, Any]) -> None:
        error = response.get("error") if isinstance(response.get("error"), dict) else {}
        self.method = method
        self.response = response
        self.code: int | None = error.get("code")
        self.message: str | None = error.get("message")
        self.data: Any = error.get("data")
        super().__init__(f"{method}: the subject answered with JSON-RPC error {self.code}: {self.message}")


class SubjectDisconnected(AssertionError):
    """The connection ended (the subject exited or closed it) while the role still needed it."""


def tool_text(result: Mapping[str, Any]) -> str:
    """The text blocks of a ``tools/call`` result joined by newlines (non-text blocks skipped)."""
    return "\n".join(
        block.get("text", "")
        for block in result.get("content") or []
        if isinstance(block, dict) and block.get("type") == "text"
    )


# -- arguments for a tool, from its own inputSchema ---------------------------------------------------------------
#
# A conformance scenario may only expect what the spec says. Where the spec defines no input for a tool, the call
# must still be one the subject itself declares valid, or a refusal proves nothing (it may just be "missing
# argument"). These two helpers build such calls from the subject's ``inputSchema`` (server/tools#tool: "inputSchema:
# JSON Schema defining expected parameters"; a schema without ``$schema`` is JSON Schema 2020-12, 2025-11-25
# basic#json-schema-usage). They never raise on the subject's schema: they return the arguments, or None and why.

_WRONG_TYPE_VALUE: dict[str, Any] = {
    "string": 12345, "number": "not a number", "integer": "not an integer", "boolean": "not a boolean",
    "array": "not an array", "object": "not an object", "null": "not null",
}


def _schema_errors(instance: Any, schema: Mapping[str, Any]) -> list[str]:
    import jsonschema  # a dependency of the MCP SDK; imported here to keep the role's import light

    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"the inputSchema is not a valid JSON Schema: {exc.message}"]
    return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in cls(schema).iter_errors(instance)]


def _sample(node: Any, text: str, depth: int = 0) -> Any:
    """A value of subschema ``node``: const, first enum value, else by (first non-null) type; strings are ``text``."""
    if not isinstance(node, Mapping) or depth > 8:
        return text
    if "const" in node:
        return node["const"]
    if isinstance(node.get("enum"), list) and node["enum"]:
        return node["enum"][0]
    for key in ("oneOf", "anyOf", "allOf"):
        if isinstance(node.get(key), list) and node[key]:
            return _sample(node[key][0], text, depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and isinstance(node.get("properties"), Mapping)):
        props = node.get("properties") if isinstance(node.get("properties"), Mapping) else {}
        return {name: _sample(props.get(name), text, depth + 1)
                for name in node.get("required") or [] if isinstance(name, str)}
    if kind == "array":
        count = node.get("minItems") if isinstance(node.get("minItems"), int) else 1
        return [_sample(node.get("items"), text, depth + 1) for _ in range(max(count, 1))]
    if kind in ("number", "integer"):
        low = node.get("minimum", node.get("exclusiveMinimum", 0))
        return int(low) + 1 if isinstance(low, (int, float)) and not isinstance(low, bool) else 1
    if kind == "boolean":
        return True
    if kind == "null":
        return None
    value = text
    if isinstance(node.get("minLength"), int) and len(value) < node["minLength"]:
        value = (value + " ") * (node["minLength"] // max(len(value) + 1, 1) + 1)
    if isinstance(node.get("maxLength"), int):
        value = value[: node["maxLength"]]
    return value


def valid_arguments(schema: Any, text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Arguments the subject's ``schema`` itself accepts: every *required* property given a value (strings set to
    ``text``), nothing else. ``(arguments, [])``, or ``(None, problems)`` when no valid arguments could be built
    (the schema is not an object schema, is not a valid JSON Schema, or rejects the sample)."""
    if not isinstance(schema, Mapping):
        return None, [f"the inputSchema is not an object: {schema!r}"[:300]]
    arguments = _sample({**schema, "type": "object"}, text)
    problems = _schema_errors(arguments, schema)
    return (arguments, []) if not problems else (None, problems)


def breaking_arguments(schema: Any, text: str) -> tuple[dict[str, Any] | None, str]:
    """Arguments that break the subject's own ``schema`` in exactly one declared property: ``valid_arguments``
    with one property given a value of another type (or outside its enum). ``(arguments, what was broken)``, or
    ``(None, why none could be built)`` when the schema constrains no property (then every call is valid)."""
    base, problems = valid_arguments(schema, text)
    if base is None:
        return None, "; ".join(problems)
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    required = [n for n in schema.get("required") or [] if n in props]
    for name in required + [n for n in props if n not in required]:
        node = props[name] if isinstance(props[name], Mapping) else {}
        kind = node.get("type")
        candidates: list[Any] = []
        if isinstance(kind, str) and kind in _WRONG_TYPE_VALUE:
            candidates.append(_WRONG_TYPE_VALUE[kind])
        if isinstance(node.get("enum"), list):
            candidates.append("not-one-of-the-enum-values")
        for value in candidates:
            attempt = {**base, name: value}
            if _schema_errors(attempt, schema):
                return attempt, f"/{name} = {json.dumps(value)} (its schema: {json.dumps(node)[:200]})"
    return None, f"no property of the inputSchema constrains its value: {json.dumps(schema)[:500]}"
