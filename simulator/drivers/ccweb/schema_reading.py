"""What the tool-list checks read in a tool's input schema: a property, the required list, the closed set of values
a property allows, and every place that gives a property a default (ccweb-reply-mode-prd.md §1 公开工具契约:
``replyMode`` required, ``one_way`` | ``return_and_continue``, no default).

A schema is the subject's JSON (JSON Schema 2020-12, MCP 2025-11-25 basic "JSON Schema Usage"). Local references
(``#/…``) are followed with ``simulator.jsonpointer`` (the fragment of ``#/…`` is a JSON pointer, RFC 6901); a
reference that points nowhere or is not a pointer (``#anchor``) is left as it stands. Places are named by JSON
pointer; a default reached through a reference is shown as ``<path>-><ref>/…``.
"""

from __future__ import annotations

import json
from typing import Any

from ...jsonpointer import join, pointer_get

__all__ = [
    "resolve_ref", "schema_property", "allowed_values", "find_defaults", "expect_property_type", "expect_required",
    "expect_allows_exactly", "expect_no_default",
]


def _local_ref(node: Any) -> str | None:
    ref = node.get("$ref") if isinstance(node, dict) else None
    return ref if isinstance(ref, str) and ref.startswith("#") else None


def resolve_ref(schema: dict[str, Any], node: Any, seen: frozenset[str] = frozenset()) -> Any:
    """Follow a local ``$ref`` (``#/…``) of ``node`` within ``schema``; other nodes are returned as they are."""
    ref = _local_ref(node)
    if ref is None or ref in seen:
        return node
    try:
        target = pointer_get(schema, ref[1:])  # the fragment of "#/…" is a JSON pointer (RFC 6901)
    except (KeyError, ValueError):  # points nowhere in the schema, or is not a pointer (e.g. "#anchor")
        return node
    return resolve_ref(schema, target, seen | {ref})


def schema_property(schema: dict[str, Any], prop: str) -> Any:
    """The subschema of ``prop`` under ``properties`` (its local ``$ref`` followed); a missing one fails."""
    props = schema.get("properties")
    assert isinstance(props, dict) and prop in props, (
        f"the input schema has no property {prop!r}: {json.dumps(schema, ensure_ascii=False)[:1500]}"
    )
    return resolve_ref(schema, props[prop])


def allowed_values(schema: dict[str, Any], node: Any) -> set[str] | None:
    """The closed set of values a (sub)schema allows, each as its JSON text: ``enum``, ``const``, or a
    ``oneOf``/``anyOf`` of those. None: the subschema does not close its values."""
    node = resolve_ref(schema, node)
    if not isinstance(node, dict):
        return None
    if isinstance(node.get("enum"), list):
        return {json.dumps(v) for v in node["enum"]}
    if "const" in node:
        return {json.dumps(node["const"])}
    for key in ("oneOf", "anyOf"):
        if isinstance(node.get(key), list):
            values: set[str] = set()
            for branch in node[key]:
                sub = allowed_values(schema, branch)
                if sub is None:
                    return None
                values |= sub
            return values
    return None


def find_defaults(schema: Any, prop: str) -> list[str]:
    """Every place of ``schema`` that gives ``prop`` a default, as JSON pointers: a ``default`` keyword anywhere
    inside a subschema of ``prop`` (following local ``$ref``), and a ``default`` object holding a ``prop`` key."""
    found: list[str] = []

    def walk(node: Any, path: str, inside: bool, refs: frozenset[str]) -> None:
        if isinstance(node, dict):
            if inside and "default" in node:
                found.append(join(path, "default"))
            if isinstance(node.get("default"), dict) and prop in node["default"]:
                found.append(join(path, "default", prop))
            ref = _local_ref(node)
            if inside and ref is not None and ref not in refs:
                walk(resolve_ref(schema, {"$ref": ref}), f"{path}->{ref}", True, refs | {ref})
            for key, value in node.items():
                if key == "default":
                    continue
                child_inside = inside or (key == prop and path.endswith("/properties"))
                walk(value, join(path, key), child_inside, refs)
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, join(path, i), inside, refs)

    walk(schema, "", False, frozenset())
    return sorted(set(found))


# -- the checks of the tool-list features -----------------------------------------------------------------------------


def expect_property_type(name: str, schema: dict[str, Any], prop: str, kind: str) -> None:
    """``prop`` is a schema object whose ``type`` is ``kind`` (or the one-element list of it)."""
    node = schema_property(schema, prop)
    assert isinstance(node, dict), f"{name}: the property {prop!r} is not a schema object: {node!r}"
    declared = node.get("type")
    assert declared == kind or (isinstance(declared, list) and declared == [kind]), (
        f"{name}: the property {prop!r} has type {declared!r}, expected {kind!r}: "
        f"{json.dumps(node, ensure_ascii=False)}"
    )


def expect_required(name: str, schema: dict[str, Any], prop: str) -> None:
    """``required`` lists ``prop``, and ``prop`` is a property of the schema."""
    required = schema.get("required")
    assert isinstance(required, list) and prop in required, f"{name}: required is {required!r}, without {prop!r}"
    schema_property(schema, prop)


def expect_allows_exactly(name: str, schema: dict[str, Any], prop: str, values: list[str]) -> None:
    """``prop`` closes its values (enum/const, or a oneOf/anyOf of those) to exactly ``values``."""
    node = schema_property(schema, prop)
    allowed = allowed_values(schema, node)
    assert allowed is not None, (
        f"{name}: the property {prop!r} does not list its values (enum/const): {json.dumps(node, ensure_ascii=False)}"
    )
    expected = {json.dumps(v) for v in values}
    assert allowed == expected, (
        f"{name}: {prop!r} allows {', '.join(sorted(allowed))}, expected exactly {', '.join(sorted(expected))}"
    )


def expect_no_default(name: str, schema: dict[str, Any], prop: str) -> None:
    """``prop`` exists and nothing in the schema gives it a default (``find_defaults`` finds no place)."""
    schema_property(schema, prop)
    places = find_defaults(schema, prop)
    assert not places, (
        f"{name}: the input schema gives {prop!r} a default at {places}: "
        f"{json.dumps(schema, ensure_ascii=False)[:2000]}"
    )
