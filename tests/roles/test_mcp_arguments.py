"""``simulator.roles.mcp_arguments``: argument sets built from a subject's own inputSchema, most complete first, each
valid against it, and never an exception on the subject's schema."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from simulator.roles.mcp_arguments import (
    MAX_SETS, argument_sets, breaking_arguments, every_argument, schema_errors, valid_arguments,
)

BUGFIX = {"type": "object", "required": [], "additionalProperties": True, "properties": {
    "error_message": {"type": "string"}, "project_root": {"type": "string"},
    "template_profile": {"type": "string", "default": "auto"},
    "spec_layout": {"type": "string", "enum": ["flat", "parent-child"]},
    "feature_name": {"type": "string", "pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$"},
    "loop_max_rounds": {"type": "number", "minimum": 1, "maximum": 5},
    "force": {"type": "boolean"}, "since": {"type": "string", "format": "date-time"},
    "score": {"type": "number", "minimum": 7.5, "maximum": 10}, "tag": {"type": "string", "examples": ["v1"]}}}


def test_every_declared_property_gets_the_schemas_own_value_or_one_of_its_type():
    arguments, problems = every_argument(BUGFIX, "The Login Page fails")
    assert problems == []
    assert arguments == {
        "error_message": "The Login Page fails", "project_root": "The Login Page fails", "template_profile": "auto",
        "spec_layout": "flat", "feature_name": "the-login-page-fails", "loop_max_rounds": 1, "force": False,
        "since": "2026-01-01T00:00:00Z", "score": 7.5, "tag": "v1"}


def test_the_sets_go_from_the_schemas_own_values_one_made_up_value_at_a_time_to_every_property():
    sets, problems = argument_sets(BUGFIX, "x")
    assert problems == [] and 3 <= len(sets) <= MAX_SETS
    informed = {"template_profile": "auto", "spec_layout": "flat", "tag": "v1"}
    assert sets[0].arguments == informed
    assert sets[1].arguments == {**informed, "error_message": "x"}
    assert sets[2].arguments == {**informed, "project_root": "x"}
    assert "every declared property" in [s.label for s in sets]
    assert all(schema_errors(s.arguments, BUGFIX) == [] for s in sets)
    assert len({repr(sorted(s.arguments.items())) for s in sets}) == len(sets)  # no set twice


def test_a_required_property_is_in_every_set():
    schema = {"type": "object", "required": ["description"],
              "properties": {"description": {"type": "string"}, "mode": {"type": "string"}}}
    sets, _ = argument_sets(schema, "d")
    assert [s.arguments for s in sets] == [{"description": "d"}, {"description": "d", "mode": "d"}]


def test_breaking_keeps_the_base_and_breaks_one_property():
    arguments, what = breaking_arguments(BUGFIX, "x", {"error_message": "x"})
    assert arguments == {"error_message": 12345} and what.startswith("/error_message = 12345")


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                     lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner,
                                                                                 max_size=3), max_leaves=10)
_KEYWORDS = st.sampled_from(["type", "properties", "required", "enum", "const", "default", "pattern", "format",
                             "minimum", "maxLength", "items", "$ref", "$schema", "allOf", "oneOf", "examples"])
_SCHEMA = st.dictionaries(_KEYWORDS, _JSON, max_size=5) | st.dictionaries(st.just("properties"), st.dictionaries(
    st.text(max_size=4), st.dictionaries(_KEYWORDS, _JSON, max_size=4), max_size=3), max_size=1)


@settings(max_examples=300, deadline=None)
@given(schema=_SCHEMA | _JSON)
def test_no_schema_a_subject_sends_makes_the_builders_raise(schema: Any):
    sets, problems = argument_sets(schema, "t")
    assert sets or problems
    for candidate in sets:
        assert schema_errors(candidate.arguments, schema) == []
    valid_arguments(schema, "t")
    every_argument(schema, "t")
    breaking_arguments(schema, "t")
