"""``simulator.drivers.ccweb.schema_reading``: what the tool-list checks read in an input schema (no network)."""

from __future__ import annotations

import pytest

from simulator.drivers.ccweb import allowed_values, find_defaults, resolve_ref, schema_property
from simulator.drivers.ccweb.schema_reading import (
    expect_allows_exactly, expect_no_default, expect_property_type, expect_required,
)

MODES = ["one_way", "return_and_continue"]


def send_schema(reply_mode: dict | None = None, **extra) -> dict:
    return {
        "type": "object",
        "properties": {
            "targetConversationId": {"type": "string"},
            "content": {"type": "string"},
            "replyMode": reply_mode if reply_mode is not None else {"type": "string", "enum": MODES},
        },
        "required": ["targetConversationId", "content", "replyMode"],
        **extra,
    }


def test_a_local_ref_is_followed_and_others_are_left_as_they_stand():
    schema = send_schema({"$ref": "#/$defs/mode"}, **{"$defs": {"mode": {"enum": MODES}}})
    assert schema_property(schema, "replyMode") == {"enum": MODES}
    for ref in ("#/$defs/missing", "#anchor", "other.json#/x"):
        assert resolve_ref(schema, {"$ref": ref}) == {"$ref": ref}
    looping = {"$defs": {"a": {"$ref": "#/$defs/a"}}}
    assert resolve_ref(looping, {"$ref": "#/$defs/a"}) == {"$ref": "#/$defs/a"}


def test_a_missing_property_fails_with_the_schema():
    with pytest.raises(AssertionError, match="has no property 'replyMode'"):
        schema_property({"type": "object", "properties": {}}, "replyMode")


def test_allowed_values_from_enum_const_and_one_of():
    schema = send_schema()
    assert allowed_values(schema, schema["properties"]["replyMode"]) == {'"one_way"', '"return_and_continue"'}
    one_of = {"oneOf": [{"const": "one_way"}, {"const": "return_and_continue"}]}
    assert allowed_values(schema, one_of) == {'"one_way"', '"return_and_continue"'}
    assert allowed_values(schema, {"anyOf": [{"const": "one_way"}, {"type": "string"}]}) is None
    assert allowed_values(schema, {"type": "string"}) is None


def test_no_default_anywhere_finds_nothing():
    assert find_defaults(send_schema(), "replyMode") == []
    expect_no_default("send", send_schema(), "replyMode")


def test_a_default_anywhere_in_the_schema_is_found_with_its_json_pointer():
    nested = send_schema({"anyOf": [{"const": "one_way", "default": "one_way"}, {"const": "return_and_continue"}]})
    assert find_defaults(nested, "replyMode") == ["/properties/replyMode/anyOf/0/default"]
    direct = send_schema({"enum": MODES, "default": "one_way"})
    assert find_defaults(direct, "replyMode") == ["/properties/replyMode/default"]
    in_object_default = send_schema(default={"replyMode": "one_way"})
    assert find_defaults(in_object_default, "replyMode") == ["/default/replyMode"]
    escaped = {"properties": {"a/b": {"default": 1}}}
    assert find_defaults(escaped, "a/b") == ["/properties/a~1b/default"]
    with pytest.raises(AssertionError, match=r"a default at \['/properties/replyMode/default'\]"):
        expect_no_default("send", direct, "replyMode")


def test_a_default_behind_a_local_ref_is_found():
    schema = send_schema({"$ref": "#/$defs/mode"}, **{"$defs": {"mode": {"enum": MODES, "default": "one_way"}}})
    assert find_defaults(schema, "replyMode") == ["/properties/replyMode->#/$defs/mode/default"]


def test_a_default_of_another_property_does_not_count():
    schema = send_schema()
    schema["properties"]["content"]["default"] = ""
    assert find_defaults(schema, "replyMode") == []


def test_property_type_required_and_exact_values():
    schema = send_schema()
    expect_property_type("send", schema, "content", "string")
    expect_property_type("send", {"properties": {"content": {"type": ["string"]}}}, "content", "string")
    with pytest.raises(AssertionError, match="has type 'string', expected 'integer'"):
        expect_property_type("send", schema, "content", "integer")
    expect_required("send", schema, "replyMode")
    with pytest.raises(AssertionError, match="without 'replyMode'"):
        expect_required("send", {**schema, "required": ["content"]}, "replyMode")
    expect_allows_exactly("send", schema, "replyMode", MODES)
    with pytest.raises(AssertionError, match="expected exactly"):
        expect_allows_exactly("send", schema, "replyMode", ["one_way"])
    with pytest.raises(AssertionError, match="does not list its values"):
        expect_allows_exactly("send", send_schema({"type": "string"}), "replyMode", MODES)
