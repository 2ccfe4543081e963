"""Arguments for a tool, built from the subject's own ``inputSchema``.

A conformance scenario may only expect what the spec says. Where the spec defines no input for a tool, the call must
still be one the subject itself declares valid, or a refusal proves nothing (it may just be "missing argument").
MCP 2025-11-25 server/tools#tool: "inputSchema: JSON Schema defining expected parameters"; a schema without
``$schema`` is JSON Schema 2020-12 (basic#json-schema-usage).

Theory of operation. A schema says which arguments are *valid*, not which ones make a tool *work*: a tool may need
a property its schema leaves optional (``required: []`` with a handler that wants ``error_message``), and may
refuse a valid string that is not what it expects (``project_root`` must name a directory that exists). So the
harness does not guess one call: ``argument_sets`` lists several, every one valid against the schema, those that
say least in the harness's own words first (a value the harness makes up, the scenario's text in a ``project_root``
or a commit ``type``, may be valid and still not what the tool expects):

1. the required properties and every property whose value the schema itself gives (``const``, ``default``,
   ``examples``, ``enum``: the subject's own word on a meaningful value);
2. that, plus one more declared property at a time, in the schema's order;
3. every declared property (``every_argument``);
4. the required properties plus one more declared property at a time;
5. the required properties only.

A value is the schema's own where it has one (``const``, then ``default``, then the first of ``examples``, then the
first of ``enum``), else one of the declared type: strings are the scenario's text (or, where a ``pattern`` refuses
it, a slug of it or the pattern's simplest match), a known ``format`` gets a canned value of that format, numbers
respect their bounds, booleans without a default are false (a flag left off). The caller tries the sets in order
and keeps the first the tool accepts (simulator/drivers/probekit ``working_call``).

``breaking_arguments`` breaks one declared property of a valid set (a value of another type, or outside its enum).

Pure functions: they never raise on the subject's schema; they return what they built, or why nothing could be.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ArgumentSet", "argument_sets", "breaking_arguments", "every_argument", "schema_errors",
           "valid_arguments"]

#: How deep nested object and array schemas are followed.
MAX_DEPTH = 8
#: At most this many argument sets are offered (each may cost the caller a call).
MAX_SETS = 24
#: The longest string and the longest array the harness builds: a ``minLength`` or ``minItems`` above it asks for
#: more than a call should carry, so the value stays shorter and the set is left out as invalid.
MAX_LENGTH = 10_000

_WRONG_TYPE_VALUE: dict[str, Any] = {
    "string": 12345, "number": "not a number", "integer": "not an integer", "boolean": "not a boolean",
    "array": "not an array", "object": "not an object", "null": "not null",
}

#: A value of each ``format`` JSON Schema 2020-12 names (validation vocabulary §7.3) that a scenario's text is not.
_FORMAT_VALUE: dict[str, str] = {
    "date-time": "2026-01-01T00:00:00Z", "date": "2026-01-01", "time": "00:00:00Z", "duration": "P1D",
    "email": "harness@example.com", "idn-email": "harness@example.com", "hostname": "example.com",
    "idn-hostname": "example.com", "ipv4": "127.0.0.1", "ipv6": "::1", "uri": "https://example.com/harness",
    "uri-reference": "https://example.com/harness", "iri": "https://example.com/harness",
    "iri-reference": "https://example.com/harness", "url": "https://example.com/harness",
    "uuid": "00000000-0000-4000-8000-000000000000", "json-pointer": "/harness", "relative-json-pointer": "0",
    "regex": "^harness$", "uri-template": "https://example.com/{id}",
}


@dataclass(frozen=True, slots=True)
class ArgumentSet:
    """One set of arguments valid against the tool's inputSchema, and what it holds (for evidence)."""

    label: str
    arguments: dict[str, Any]


def schema_errors(instance: Any, schema: Mapping[str, Any]) -> list[str]:
    """Why ``instance`` is not valid against ``schema`` (empty: it is), each at its JSON pointer. A schema that is
    not a valid JSON Schema, or that cannot be applied (a ``$ref`` to nowhere, a pattern that is not a regular
    expression), is itself the one problem returned: never an exception."""
    # a dependency of the MCP SDK; imported here to keep the role's import light
    import jsonschema  # type: ignore[import-untyped]  # types-jsonschema not installed
    import referencing

    try:
        cls = jsonschema.validators.validator_for(schema, default=jsonschema.Draft202012Validator)
        cls.check_schema(schema)
    except jsonschema.SchemaError as exc:
        return [f"the inputSchema is not a valid JSON Schema: {exc.message}"]
    except Exception as exc:  # noqa: BLE001 - a subject's schema must never crash the harness
        return [f"the inputSchema cannot be read: {type(exc).__name__}: {exc}"[:500]]
    try:
        # a $ref resolves within the schema (and to the meta-schemas), never over the network
        validator = cls(schema, registry=referencing.Registry())
        return [f"/{'/'.join(map(str, e.absolute_path))}: {e.message}"[:500] for e in validator.iter_errors(instance)]
    except Exception as exc:  # noqa: BLE001 - e.g. referencing.exceptions.Unresolvable, re.error
        return [f"the inputSchema cannot be applied: {type(exc).__name__}: {exc}"[:500]]


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "harness"


def _pattern_match(pattern: str, text: str) -> str | None:
    """A string ``pattern`` matches (JSON Schema patterns search, unanchored): ``text``, its slug, else the
    simplest string Hypothesis finds for the pattern; None when the pattern is not a regular expression or nothing
    matches."""
    try:
        regex = re.compile(pattern)
    except (re.error, TypeError):
        return None
    for candidate in (text, _slug(text), _slug(text).replace("-", "_"), _slug(text).replace("-", "")):
        if regex.search(candidate):
            return candidate
    try:
        from hypothesis import HealthCheck, find, settings
        from hypothesis import strategies as st

        return find(st.from_regex(regex), lambda s: True,
                    settings=settings(database=None, max_examples=50, suppress_health_check=list(HealthCheck)))
    except Exception:  # noqa: BLE001 - an unusual pattern: the set is then left out
        return None


def _string(node: Mapping[str, Any], text: str) -> str:
    fmt = node.get("format")
    value = _FORMAT_VALUE.get(fmt, text) if isinstance(fmt, str) else text
    pattern = node.get("pattern")
    if isinstance(pattern, str):
        value = _pattern_match(pattern, value) or value
    low, high = node.get("minLength"), node.get("maxLength")
    if isinstance(low, int) and len(value) < low <= MAX_LENGTH:
        value = (value + " ") * (low // max(len(value) + 1, 1) + 1)
    if isinstance(high, int) and high >= 0:
        value = value[:high]
    return value


def _number(node: Mapping[str, Any], integer: bool) -> int | float:
    def num(key: str) -> float | None:
        """The bound ``key`` as a finite float; None when there is none, or none a float can hold (an integer past
        1e308, infinity, NaN): the value built then may break it, and the set is left out as invalid."""
        v = node.get(key)
        if not isinstance(v, (int, float)) or isinstance(v, bool):
            return None
        try:
            bound = float(v)
        except OverflowError:
            return None
        return bound if math.isfinite(bound) else None

    low, high = num("minimum"), num("maximum")
    ex_low, ex_high = num("exclusiveMinimum"), num("exclusiveMaximum")
    value = 1.0
    if low is not None:
        value = low
    elif ex_low is not None:
        value = ex_low + 1
    if high is not None and value > high:
        value = high
    if ex_high is not None and value >= ex_high:
        value = ex_high - 1
    if integer:
        return int(value) if value == int(value) else int(value) + 1
    return int(value) if value == int(value) else value


def _given(node: Mapping[str, Any]) -> tuple[bool, Any]:
    """The value the schema itself gives a property: ``const``, ``default``, the first of ``examples``, the first of
    ``enum`` (``(False, None)``: none)."""
    if "const" in node:
        return True, node["const"]
    if "default" in node:
        return True, node["default"]
    for key in ("examples", "enum"):
        values = node.get(key)
        if isinstance(values, list) and values:
            return True, values[0]
    return False, None


def _value(node: Any, text: str, every: bool, depth: int = 0) -> Any:
    """A value of subschema ``node``; objects get their required properties (``every``: all declared ones)."""
    if not isinstance(node, Mapping) or depth > MAX_DEPTH:
        return text
    has, given = _given(node)
    if has:
        return given
    for key in ("oneOf", "anyOf", "allOf"):
        if isinstance(node.get(key), list) and node[key]:
            return _value(node[key][0], text, every, depth + 1)
    kind = node.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), kind[0] if kind else None)
    if kind == "object" or (kind is None and isinstance(node.get("properties"), Mapping)):
        props = declared if isinstance(declared := node.get("properties"), Mapping) else {}
        names = list(props) if every else _required(node)
        return {name: _value(props.get(name), text, every, depth + 1) for name in names}
    if kind == "array":
        count = least if isinstance(least := node.get("minItems"), int) else 1
        return [_value(node.get("items"), text, every, depth + 1) for _ in range(min(max(count, 1), MAX_LENGTH))]
    if kind in ("number", "integer"):
        return _number(node, kind == "integer")
    if kind == "boolean":
        return not every  # a flag left off when every property is set; true where the schema requires one
    if kind == "null":
        return None
    return _string(node, text)


def _required(node: Mapping[str, Any]) -> list[str]:
    """The names a schema's ``required`` lists (nothing, when it is not a list of strings)."""
    required = node.get("required")
    return [n for n in required if isinstance(n, str)] if isinstance(required, list) else []


def _object_parts(schema: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    props = declared if isinstance(declared := schema.get("properties"), Mapping) else {}
    return dict(props), _required(schema)


def valid_arguments(schema: Any, text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Arguments the subject's ``schema`` itself accepts: every *required* property given a value (strings set to
    ``text``), nothing else. ``(arguments, [])``, or ``(None, problems)`` when no valid arguments could be built
    (the schema is not an object schema, is not a valid JSON Schema, or rejects the sample)."""
    if not isinstance(schema, Mapping):
        return None, [f"the inputSchema is not an object: {schema!r}"[:300]]
    props, required = _object_parts(schema)
    arguments = {name: _value(props.get(name), text, every=False) for name in required}
    problems = schema_errors(arguments, schema)
    return (arguments, []) if not problems else (None, problems)


def every_argument(schema: Any, text: str) -> tuple[dict[str, Any] | None, list[str]]:
    """Arguments with every declared property set (nested objects too), or ``(None, problems)``."""
    if not isinstance(schema, Mapping):
        return None, [f"the inputSchema is not an object: {schema!r}"[:300]]
    props, _ = _object_parts(schema)
    arguments = {name: _value(props.get(name), text, every=True) for name in props}
    problems = schema_errors(arguments, schema)
    return (arguments, []) if not problems else (None, problems)


def argument_sets(schema: Any, text: str) -> tuple[list[ArgumentSet], list[str]]:
    """The argument sets to try, each valid against ``schema``, in the module's order (the schema's own values first,
    then one made-up value at a time, then every property), at most ``MAX_SETS``; with the problems of the sets
    left out (every one, when none is valid)."""
    if not isinstance(schema, Mapping):
        return [], [f"the inputSchema is not an object: {schema!r}"[:300]]
    props, required = _object_parts(schema)
    minimal = {name: _value(props.get(name), text, every=False) for name in required}
    full = {name: _value(props.get(name), text, every=True) for name in props}
    for name in required:
        if name not in props:
            full[name] = minimal[name]
    informed = dict(minimal)
    for name, node in props.items():
        has, given = _given(node) if isinstance(node, Mapping) else (False, None)
        if has and name not in informed:
            informed[name] = given
    optional = [n for n in props if n not in required]
    candidates: list[tuple[str, dict[str, Any]]] = [("the properties the schema gives a value", informed)]
    candidates += [(f"the properties the schema gives a value, and {name!r}", {**informed, name: full[name]})
                   for name in optional if name not in informed]
    candidates.append(("every declared property", full))
    candidates += [(f"the required properties and {name!r}", {**minimal, name: full[name]}) for name in optional]
    candidates.append(("the required properties", minimal))
    out: list[ArgumentSet] = []
    seen: set[str] = set()
    problems: list[str] = []
    for label, arguments in candidates:
        key = json.dumps(arguments, sort_keys=True, default=str)
        if key in seen:
            continue
        seen.add(key)
        errors = schema_errors(arguments, schema)
        if errors:
            problems.append(f"{label}: {errors[0]}")
            continue
        out.append(ArgumentSet(label, arguments))
        if len(out) >= MAX_SETS:
            break
    return out, ([] if out else problems)


def breaking_arguments(schema: Any, text: str, base: Mapping[str, Any] | None = None
                       ) -> tuple[dict[str, Any] | None, str]:
    """Arguments that break the subject's own ``schema`` in exactly one declared property: ``base`` (valid
    arguments; by default ``valid_arguments``) with one property given a value of another type (or outside its
    enum). ``(arguments, what was broken)``, or ``(None, why none could be built)`` when the schema constrains no
    property (then every call is valid)."""
    if base is None:
        base, problems = valid_arguments(schema, text)
        if base is None:
            return None, "; ".join(problems)
    if not isinstance(schema, Mapping):
        return None, "the inputSchema is not an object"
    props, required = _object_parts(schema)
    for name in [n for n in required if n in props] + [n for n in props if n not in required]:
        node = props[name] if isinstance(props[name], Mapping) else {}
        kind = node.get("type")
        candidates: list[Any] = []
        if isinstance(kind, str) and kind in _WRONG_TYPE_VALUE:
            candidates.append(_WRONG_TYPE_VALUE[kind])
        if isinstance(node.get("enum"), list):
            candidates.append("not-one-of-the-enum-values")
        for value in candidates:
            attempt = {**base, name: value}
            if schema_errors(attempt, schema):
                return attempt, f"/{name} = {json.dumps(value)} (its schema: {json.dumps(node, default=str)[:200]})"
    return None, f"no property of the inputSchema constrains its value: {json.dumps(schema, default=str)[:500]}"
