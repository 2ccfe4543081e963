"""The two tool lists a ccweb server shows, and what the features ask of them (ccweb-reply-mode-prd.md §1 公开工具契约,
§3 Codex App fallback): ``tools/list`` (MCP 2025-11-25 server/tools "Listing Tools") and the Codex App fallback
(dynamic) tool list, read through the control API (``fallback-tools``, docs/control-api.md).

The fallback list is filtered from the same definitions as ``tools/list`` and given a namespace: each of its tools
carries the description and input schema of the listed tool of the same name, never a copy that may drift. A check
about *every* fallback tool never passes on an empty list.
"""

from __future__ import annotations

import fnmatch
import json
from typing import Any, Protocol

from ...roles.mcp_values import tool_list_problems
from . import schema_reading
from .control_view import CcwebControl

__all__ = [
    "ToolLists", "ToolLister", "tool_names", "find_tool", "input_schema", "description", "quote_block",
    "expect_named_once", "expect_not_named", "expect_description_mentions", "expect_every_namespaced",
    "expect_same_definitions", "expect_no_name_matches",
]

LISTED = "tools/list"
FALLBACK = "the fallback list"

Tools = list[dict[str, Any]]


def tool_names(tools: Tools) -> list[str]:
    return [str(t.get("name")) for t in tools]


def find_tool(tools: Tools, name: str) -> dict[str, Any]:
    """The listed tool ``name``; tools/list without it fails."""
    found = [t for t in tools if t.get("name") == name]
    assert found, f"tools/list has no tool {name!r} (it lists {tool_names(tools)})"
    return found[0]


def input_schema(tools: Tools, name: str) -> dict[str, Any]:
    """The ``inputSchema`` object of the listed tool ``name`` (MCP server/tools: required on every tool)."""
    schema = find_tool(tools, name).get("inputSchema")
    assert isinstance(schema, dict), f"the tool {name!r} has no inputSchema object: {schema!r}"
    return schema


def description(tools: Tools, name: str) -> str:
    """The description text of the listed tool ``name``; none is a failure (there is nothing to judge)."""
    text = find_tool(tools, name).get("description")
    assert isinstance(text, str), f"the tool {name!r} has no description: {text!r}"
    return text


def quote_block(text: str) -> str:
    """``text`` indented as a quotation in a failure message."""
    return "\n".join(f"    > {line}" for line in (text or "(empty)").splitlines() or ["(empty)"])


def expect_named_once(tools: Tools, name: str, where: str) -> None:
    """``where`` ("tools/list", "the fallback list") names ``name`` exactly once."""
    names = tool_names(tools)
    assert names.count(name) == 1, f"{where} names {name!r} {names.count(name)} times; it lists {names}"


def expect_not_named(tools: Tools, name: str, where: str) -> None:
    names = tool_names(tools)
    assert name not in names, f"{where} holds {name!r}: {names}"


def expect_description_mentions(tools: Tools, name: str, text: str) -> None:
    found = find_tool(tools, name).get("description")
    assert isinstance(found, str) and text in found, (
        f"the description of {name!r} does not mention {text!r}; it reads:\n{quote_block(str(found))}"
    )


def _seen(fallback: Tools) -> Tools:
    """The fallback list for an "every fallback tool …" check, which must not pass on no tool at all."""
    assert fallback, "the Codex App fallback list is empty: no tool shows what is asked of every fallback tool"
    return fallback


def expect_every_namespaced(fallback: Tools) -> None:
    bad = [t.get("name") for t in _seen(fallback) if not isinstance(t.get("namespace"), str) or not t["namespace"]]
    assert not bad, f"fallback tools without a namespace: {bad}"


def expect_same_definitions(fallback: Tools, listed_tools: Tools) -> None:
    """Every fallback tool has the ``description`` and ``inputSchema`` of the tools/list tool of its name (§3)."""
    listed = {t["name"]: t for t in listed_tools if isinstance(t.get("name"), str)}
    problems = []
    for tool in _seen(fallback):
        name = tool.get("name")
        if not isinstance(name, str):
            problems.append(f"a fallback tool has no string name: {json.dumps(name, default=str)[:200]}")
            continue
        original = listed.get(name)
        if original is None:
            problems.append(f"{name!r} is in the fallback list but not in tools/list ({sorted(map(str, listed))})")
            continue
        for key in ("description", "inputSchema"):
            if tool.get(key) != original.get(key):
                problems.append(
                    f"{name!r}: the fallback {key} differs from tools/list:\n"
                    f"  fallback:   {json.dumps(tool.get(key), ensure_ascii=False, sort_keys=True)[:1500]}\n"
                    f"  tools/list: {json.dumps(original.get(key), ensure_ascii=False, sort_keys=True)[:1500]}"
                )
    assert not problems, "\n".join(problems)


def expect_no_name_matches(fallback: Tools, pattern: str) -> None:
    """No fallback tool's name matches the glob ``pattern`` (case-insensitive): no task-board, image or form tool."""
    names = tool_names(fallback)
    matching = [n for n in names if fnmatch.fnmatchcase(n.lower(), pattern.lower())]
    assert not matching, f"the fallback list holds {matching}, matching {pattern!r} (it holds {names})"


class ToolLister(Protocol):
    """What ``ToolLists`` needs of the MCP client role (``McpClientRole.list_tools``; a fake in unit tests)."""

    def list_tools(self) -> list[dict[str, Any]]: ...


class ToolLists:
    """The two lists of one scenario, each read once (when the feature says so, or at the first check that needs
    it), and the checks the features make of them."""

    def __init__(self, client: ToolLister, control: CcwebControl) -> None:
        self.client = client
        self.control = control
        self.tools: Tools | None = None
        self.fallback: Tools | None = None

    def list_tools(self) -> Tools:
        """``tools/list`` (all pages). An entry that is not a tool object with a string name fails
        (``tool_list_problems``): the checks tell tools by name."""
        tools = self.client.list_tools()
        problems = tool_list_problems(tools)
        assert not problems, "tools/list answered entries that are not tools: " + "; ".join(problems)[:1500]
        self.tools = tools
        return self.tools

    def listed(self) -> Tools:
        return self.tools if self.tools is not None else self.list_tools()

    def read_fallback(self) -> Tools:
        """The Codex App fallback tool list, through the control API (``fallback-tools``)."""
        self.fallback = self.control.fallback_tools()
        return self.fallback

    def fallback_list(self) -> Tools:
        return self.fallback if self.fallback is not None else self.read_fallback()

    def description(self, name: str) -> str:
        return description(self.listed(), name)

    def input_schema(self, name: str) -> dict[str, Any]:
        return input_schema(self.listed(), name)

    # tools/list (§1 公开工具契约) ------------------------------------------------------------------------------------

    def expect_listed_once(self, name: str) -> None:
        expect_named_once(self.listed(), name, LISTED)

    def expect_not_listed(self, name: str) -> None:
        expect_not_named(self.listed(), name, LISTED)

    def expect_description_mentions(self, name: str, text: str) -> None:
        expect_description_mentions(self.listed(), name, text)

    def expect_property_type(self, name: str, prop: str, kind: str) -> None:
        schema_reading.expect_property_type(name, self.input_schema(name), prop, kind)

    def expect_required(self, name: str, prop: str) -> None:
        schema_reading.expect_required(name, self.input_schema(name), prop)

    def expect_allows_exactly(self, name: str, prop: str, values: list[str]) -> None:
        schema_reading.expect_allows_exactly(name, self.input_schema(name), prop, values)

    def expect_no_default(self, name: str, prop: str) -> None:
        schema_reading.expect_no_default(name, self.input_schema(name), prop)

    # the fallback list (§3) ------------------------------------------------------------------------------------

    def expect_in_fallback_once(self, name: str) -> None:
        expect_named_once(self.fallback_list(), name, FALLBACK)

    def expect_not_in_fallback(self, name: str) -> None:
        expect_not_named(self.fallback_list(), name, FALLBACK)

    def expect_fallback_namespaced(self) -> None:
        expect_every_namespaced(self.fallback_list())

    def expect_fallback_same_definitions(self) -> None:
        listed = self.listed()
        expect_same_definitions(self.fallback_list(), listed)

    def expect_fallback_excludes(self, pattern: str) -> None:
        expect_no_name_matches(self.fallback_list(), pattern)
