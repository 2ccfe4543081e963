"""What the robustness profile throws at an MCP subject (ccweb, probe-kit): Hypothesis strategies of raw JSON-RPC
inputs, seeded from the subject's own ``tools/list`` (names and input schemas) and mutated field by field (sans-I/O:
values in, values out).

Spec basis (scenarios/sources/jsonrpc-2.0.md, scenarios/sources/mcp-2025-11-25.md, the protocol revision
mcp-probe-kit-v2-design.md names): a request with an id gets one response, a result or an error ("When a rpc call is
made, the Server MUST reply with a Response, except for in the case of Notifications"); a notification gets none; a
cancelled request may go unanswered (MCP cancellation "Not send a response for the cancelled request"). Each input
says what it may be answered with (``Expect``):

* ``ONE``: a well-formed MCP request (``"jsonrpc": "2.0"``, a string id, a string method, params an object or
  absent, parseable by a JSON parser of ordinary depth) must get exactly one response. Kinds ``unknown-method``
  (a method the protocol does not define: the error, if its code is checked, is -32601), ``wrong-types`` (a
  ``tools/call`` of a listed tool with one argument of another JSON kind, removed or added, or a known method's
  params with a field of the wrong kind), ``unknown-tool``, ``huge`` (a string argument of 1 to 3 MB), ``deep``
  (an argument nested 20 to 100 levels);
* ``MAYBE``: ``cancelled``, a ``tools/call`` followed by ``notifications/cancelled`` for its id: none or one;
* ``ANY``: not judged by the answer rule (only by liveness, and by the shape of whatever comes back): ``malformed``
  (not JSON, or a truncated request), ``not-jsonrpc`` (JSON that is no MCP request: scalars, arrays, a missing or
  wrong ``jsonrpc``, a null id, params an array), ``too-deep`` (nesting of 200 to 5,000 levels, past what common
  JSON parsers take: a parse error, which neither spec obliges a stdio server to answer), ``duplicate-id`` (two
  requests with one id in flight: MCP "The request ID MUST NOT have been previously used by the requestor within
  the same session", so the subject's answer to them is not specified);
* ``NONE``: ``notification`` (an unknown notification) and ``cancel-unknown`` (a cancellation of an id never
  sent): notifications are never answered.

An input is one or more raw lines (``lines``); the placeholder ``"__ID__"`` (a JSON string literal) in them is
replaced at send time by a fresh id, the same for every line of the input (a duplicate, a cancellation and its
request share it), so that a replayed input never reuses an id of the session.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Literal

from hypothesis import strategies as st

__all__ = ["ID_SLOT", "Expect", "McpInput", "McpKind", "ToolSeed", "mcp_inputs", "with_id",
           "METHOD_NOT_FOUND", "KNOWN_METHODS"]

#: Where an input's id goes (a JSON string literal in its lines).
ID_SLOT = '"__ID__"'
#: JSON-RPC 2.0 §5.1: "-32601 Method not found The method does not exist / is not available."
METHOD_NOT_FOUND = -32601

#: The methods of MCP 2025-11-25 (client → server, server → client and notifications), and the later draft's
#: additions a subject may serve: none of them is generated as an unknown method.
KNOWN_METHODS = frozenset({
    "initialize", "ping", "tools/list", "tools/call", "prompts/list", "prompts/get", "resources/list",
    "resources/templates/list", "resources/read", "resources/subscribe", "resources/unsubscribe",
    "completion/complete", "logging/setLevel", "tasks/get", "tasks/result", "tasks/list", "tasks/cancel",
    "sampling/createMessage", "elicitation/create", "roots/list", "server/discover", "subscriptions/listen",
    "notifications/initialized", "notifications/cancelled", "notifications/progress", "notifications/message",
    "notifications/roots/list_changed", "notifications/tools/list_changed", "notifications/resources/updated",
    "notifications/resources/list_changed", "notifications/prompts/list_changed", "notifications/tasks/status",
    "notifications/elicitation/complete",
})


class McpKind(StrEnum):
    MALFORMED = "malformed"
    NOT_JSONRPC = "not-jsonrpc"
    UNKNOWN_METHOD = "unknown-method"
    WRONG_TYPES = "wrong-types"
    UNKNOWN_TOOL = "unknown-tool"
    HUGE = "huge"
    DEEP = "deep"
    TOO_DEEP = "too-deep"
    DUPLICATE_ID = "duplicate-id"
    CANCELLED = "cancelled"
    CANCEL_UNKNOWN = "cancel-unknown"
    NOTIFICATION = "notification"


class Expect(StrEnum):
    ONE = "one"
    MAYBE = "maybe"
    ANY = "any"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class McpInput:
    """One fuzzed input: its raw ``lines`` (``ID_SLOT`` where the fresh id goes), what it may be answered with, and
    the error code an error answer must carry when a sentence names one (``code``)."""

    kind: McpKind
    lines: tuple[str, ...]
    expect: Expect
    code: int | None = None

    @property
    def size(self) -> int:
        return sum(len(line) for line in self.lines)

    def describe(self, limit: int = 120) -> str:
        shown = " ⏎ ".join(line[:limit] + (f"… ({len(line)} in all)" if len(line) > limit else "")
                           for line in self.lines)
        return f"{self.kind.value} {shown!r}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind.value, "lines": list(self.lines), "expect": self.expect.value}
        if self.code is not None:
            out["code"] = self.code
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> McpInput:
        lines = data["lines"]
        if not isinstance(lines, list) or not lines or not all(isinstance(line, str) for line in lines):
            raise ValueError("a replayed MCP input needs 'lines', a non-empty list of strings")
        code = data.get("code")
        if code is not None and not isinstance(code, int):
            raise ValueError("'code' must be an integer")
        return cls(McpKind(data["kind"]), tuple(lines), Expect(data["expect"]), code)


def with_id(line: str, rid: str) -> str:
    """``line`` with its id slot filled with ``rid``."""
    return line.replace(ID_SLOT, json.dumps(rid))


@dataclass(frozen=True, slots=True)
class ToolSeed:
    """A listed tool the inputs are made from: its name and input schema (``tools/list``)."""

    name: str
    schema: dict[str, Any]


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _request(method: str, params: Any = None, *, with_params: bool = True) -> str:
    """A request line with the id slot (``params`` omitted when ``with_params`` is false)."""
    body = _compact({"jsonrpc": "2.0", "id": "__ID__", "method": method,
                     **({"params": params} if with_params else {})})
    return body.replace('"id":"__ID__"', '"id":' + ID_SLOT)


def _plausible(schema: Any) -> Any:
    """A value of the kind ``schema`` names (first enum value, else a small value of its type)."""
    if not isinstance(schema, dict):
        return "x"
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind: Any = schema.get("type")  # a type name, or a list of them
    kind = kind[0] if isinstance(kind, list) and kind else kind
    return {"string": "robustness", "integer": 1, "number": 1.5, "boolean": True, "array": [], "object": {},
            "null": None}.get(kind, "x")


def _arguments(seed: ToolSeed) -> dict[str, Any]:
    props = seed.schema.get("properties") if isinstance(seed.schema, dict) else None
    return {k: _plausible(v) for k, v in (props or {}).items()} if isinstance(props, dict) else {}


def _string_field(seed: ToolSeed) -> str:
    props = seed.schema.get("properties") if isinstance(seed.schema, dict) else None
    key: str  # a JSON object's keys are strings
    for key, value in (props or {}).items() if isinstance(props, dict) else ():
        if isinstance(value, dict) and value.get("type") == "string" and "enum" not in value:
            return key
    return "text"


#: The Unicode category of the surrogates.
_SURROGATES: tuple[Literal["Cs"]] = ("Cs",)


def _text(**kwargs: Any) -> st.SearchStrategy[str]:
    """Text without lone surrogates: every generated line is valid UTF-8 (a line that is not is ``malformed``)."""
    return st.text(alphabet=st.characters(exclude_categories=_SURROGATES), **kwargs)


#: Values a field is set to in a mutation: every JSON kind, and hostile ones.
_HOSTILE = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False), _text(max_size=40), st.just(""),
    st.lists(st.integers(), max_size=3), st.dictionaries(_text(max_size=5), st.integers(), max_size=3),
    st.just({"toString": 1}), st.just(-1), _text(min_size=4097, max_size=5000),
)
_REMOVE = object()
_NO_NEWLINE = _text(max_size=200).filter(lambda t: "\n" not in t and "\r" not in t)


def _not_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return True
    return False


def mcp_inputs(tools: list[ToolSeed]) -> st.SearchStrategy[McpInput]:
    """Inputs of every kind, seeded from the subject's listed ``tools`` (at least one)."""
    if not tools:
        raise ValueError("the MCP robustness inputs need at least one listed tool to seed from")
    tool = st.sampled_from(tools)
    names = {t.name for t in tools}

    @st.composite
    def malformed(draw: st.DrawFn) -> McpInput:
        text = draw(st.one_of(
            _NO_NEWLINE.filter(_not_json),
            st.builds(lambda s, n: _request("tools/call", {"name": s.name, "arguments": _arguments(s)})[:n], tool,
                      st.integers(min_value=1, max_value=60)).filter(_not_json),
            st.sampled_from(["{", "}", "[", '{"jsonrpc":"2.0",', "NaN", "{'a':1}", '{"a":1}}', "\x00", "\ufeff{}"]),
        ))
        return McpInput(McpKind.MALFORMED, (text,), Expect.ANY)

    @st.composite
    def not_jsonrpc(draw: st.DrawFn) -> McpInput:
        line = draw(st.one_of(
            st.sampled_from(["null", "true", "0", "[]", "[1,2]", '"ping"', "{}", "[{}]",
                             '{"jsonrpc":"2.0"}', '{"id":' + ID_SLOT + '}', '{"jsonrpc":"2.0","id":' + ID_SLOT + '}',
                             '{"jsonrpc":"1.0","id":' + ID_SLOT + ',"method":"ping"}',
                             '{"id":' + ID_SLOT + ',"method":"ping"}',
                             '{"jsonrpc":"2.0","id":null,"method":"ping"}',
                             '{"jsonrpc":"2.0","id":' + ID_SLOT + ',"method":7}',
                             '{"jsonrpc":"2.0","id":' + ID_SLOT + ',"method":"ping","params":[1]}',
                             '{"jsonrpc":"2.0","id":' + ID_SLOT + ',"method":"tools/list","params":"x"}',
                             '{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}',
                             '{"jsonrpc":"2.0","id":' + ID_SLOT + ',"result":{}}',
                             '{"jsonrpc":"2.0","id":' + ID_SLOT + ',"error":{"code":1,"message":"x"}}',
                             '[{"jsonrpc":"2.0","id":' + ID_SLOT + ',"method":"ping"}]']),
            st.builds(lambda v: _compact(v), st.one_of(st.integers(), _text(max_size=20).filter(
                lambda t: "\n" not in t), st.lists(st.integers(), max_size=3))),
        ))
        return McpInput(McpKind.NOT_JSONRPC, (line,), Expect.ANY)

    @st.composite
    def unknown_method(draw: st.DrawFn) -> McpInput:
        name = draw(st.one_of(
            _text(min_size=1, max_size=40).filter(lambda t: t not in KNOWN_METHODS and "\n" not in t),
            st.sampled_from(["tools/lists", "Tools/List", "tools/call/", "ping ", "rpc.discover", "resources/write",
                             "notifications/x", "tools/delete", "initialize2", ""])))
        params = draw(st.one_of(st.just(None), st.dictionaries(_text(max_size=5), st.integers(), max_size=2)))
        line = _request(name, params, with_params=params is not None)
        return McpInput(McpKind.UNKNOWN_METHOD, (line,), Expect.ONE, METHOD_NOT_FOUND)

    @st.composite
    def wrong_types(draw: st.DrawFn) -> McpInput:
        choice = draw(st.integers(min_value=0, max_value=2))
        if choice == 0:  # a listed tool, one argument mutated
            seed = draw(tool)
            args = _arguments(seed)
            key = draw(st.one_of(st.sampled_from(sorted(args)) if args else st.just("extra"), st.just("extra")))
            value = draw(st.one_of(_HOSTILE, st.just(_REMOVE)))
            if value is _REMOVE:
                args.pop(key, None)
            else:
                args[key] = value
            return McpInput(McpKind.WRONG_TYPES, (_request("tools/call", {"name": seed.name, "arguments": args}),),
                            Expect.ONE)
        if choice == 1:  # the params of tools/call of the wrong kind
            seed = draw(tool)
            field_, value = draw(st.sampled_from(["name", "arguments"])), draw(_HOSTILE)
            params = {"name": seed.name, "arguments": _arguments(seed)}
            params[field_] = value
            return McpInput(McpKind.WRONG_TYPES, (_request("tools/call", params),), Expect.ONE)
        method, key = draw(st.sampled_from([("tools/list", "cursor"), ("ping", "_meta"), ("tools/call", "_meta"),
                                            ("tools/list", "_meta")]))
        params = {key: draw(_HOSTILE)}
        if method == "tools/call":
            params["name"] = draw(tool).name
        return McpInput(McpKind.WRONG_TYPES, (_request(method, params),), Expect.ONE)

    @st.composite
    def unknown_tool(draw: st.DrawFn) -> McpInput:
        name = draw(st.one_of(_text(max_size=40).filter(lambda t: t not in names),
                              st.builds(lambda s: s.name.upper() + "_", tool)))
        args = draw(st.one_of(st.just({}), st.builds(_arguments, tool)))
        return McpInput(McpKind.UNKNOWN_TOOL, (_request("tools/call", {"name": name, "arguments": args}),),
                        Expect.ONE)

    @st.composite
    def huge(draw: st.DrawFn) -> McpInput:
        seed = draw(tool)
        size = draw(st.sampled_from([1_000_000, 2_000_000, 3_000_000]))
        args = _arguments(seed)
        args[_string_field(seed)] = draw(st.sampled_from(["a", "é", "🙂", "\\"])) * (size // 4)
        return McpInput(McpKind.HUGE, (_request("tools/call", {"name": seed.name, "arguments": args}),),
                        Expect.ONE)

    def nested(depth: int, opener: str) -> str:
        return (opener * depth + ("1" if opener == '{"a":' else "") + ("}" if opener == '{"a":' else "]") * depth)

    @st.composite
    def deep(draw: st.DrawFn) -> McpInput:
        seed = draw(tool)
        depth = draw(st.sampled_from([20, 64, 100]))
        opener = draw(st.sampled_from(["[", '{"a":']))
        line = _request("tools/call", {"name": seed.name, "arguments": {_string_field(seed): "__DEEP__"}})
        return McpInput(McpKind.DEEP, (line.replace('"__DEEP__"', nested(depth, opener)),), Expect.ONE)

    @st.composite
    def too_deep(draw: st.DrawFn) -> McpInput:
        depth = draw(st.sampled_from([200, 1000, 5000]))
        opener = draw(st.sampled_from(["[", '{"a":']))
        line = _request("tools/call", {"name": draw(tool).name, "arguments": {"a": "__DEEP__"}})
        return McpInput(McpKind.TOO_DEEP, (line.replace('"__DEEP__"', nested(depth, opener)),), Expect.ANY)

    @st.composite
    def duplicate_id(draw: st.DrawFn) -> McpInput:
        first = draw(st.sampled_from(["ping", "tools/list"]))
        seed = draw(tool)
        second = draw(st.sampled_from([_request("ping"), _request("tools/list"),
                                       _request("tools/call", {"name": seed.name, "arguments": _arguments(seed)})]))
        return McpInput(McpKind.DUPLICATE_ID, (_request(first), second), Expect.ANY)

    @st.composite
    def cancelled(draw: st.DrawFn) -> McpInput:
        seed = draw(tool)
        call = _request("tools/call", {"name": seed.name, "arguments": _arguments(seed)})
        reason = draw(st.one_of(st.none(), _text(max_size=20)))
        params = {"requestId": "__ID__", **({"reason": reason} if reason is not None else {})}
        cancel = _compact({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params}).replace(
            '"requestId":"__ID__"', '"requestId":' + ID_SLOT)
        return McpInput(McpKind.CANCELLED, (call, cancel), Expect.MAYBE)

    @st.composite
    def cancel_unknown(draw: st.DrawFn) -> McpInput:
        rid = draw(st.one_of(st.integers(min_value=-(2**40), max_value=2**40), _text(max_size=20).map(
            lambda t: "never-sent-" + t)))
        line = _compact({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": rid}})
        return McpInput(McpKind.CANCEL_UNKNOWN, (line,), Expect.NONE)

    @st.composite
    def notification(draw: st.DrawFn) -> McpInput:
        name = draw(st.one_of(_text(max_size=30).filter(lambda t: t not in KNOWN_METHODS),
                              st.sampled_from(["notifications/unknown", "notifications/progress",
                                               "notifications/roots/list_changed"])))
        params = draw(st.one_of(st.just({}), st.dictionaries(_text(max_size=5), _HOSTILE, max_size=2)))
        return McpInput(McpKind.NOTIFICATION, (_compact({"jsonrpc": "2.0", "method": name, "params": params}),),
                        Expect.NONE)

    return st.one_of(malformed(), not_jsonrpc(), unknown_method(), wrong_types(), unknown_tool(), huge(), deep(),
                     too_deep(), duplicate_id(), cancelled(), cancel_unknown(), notification())
