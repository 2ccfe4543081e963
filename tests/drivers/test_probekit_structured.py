"""``simulator.drivers.probekit.structured``, ``schemas`` and ``commits``: structured results judged against their
schemas, and gencommit's Conventional Commits header (no network)."""

from __future__ import annotations

import jsonschema
import pytest

from simulator.drivers.probekit import (
    Call, DesignSchemas, SchemaDialect, check_conventional_header, check_design_schema, check_every_structured,
    check_field_non_empty, check_meta_schema, check_meta_schema_requires, check_structured,
    check_text_carries_final_message, check_workflow_name, judge_structured, parse_header, schema_problems,
)

COMMIT_SCHEMA = {"type": "object", "properties": {"type": {"type": "string", "enum": ["feat", "fix", "docs"]},
                                                  "subject": {"type": "string"}, "finalMessage": {"type": "string"}},
                 "required": ["type", "subject", "finalMessage"]}


def _structured(content, *, schema=COMMIT_SCHEMA, text="feat: add export", tool="gencommit") -> Call:
    result = {"content": [{"type": "text", "text": text}], "structuredContent": content}
    if schema is not None:
        result["_meta"] = {"schema": schema}
    return Call(tool, {"changes": "x"}, {"result": result})


GOOD = {"type": "feat", "subject": "add export", "finalMessage": "feat: add export"}


def test_a_structured_result_valid_against_its_meta_schema_passes():
    call = _structured(GOOD)
    assert judge_structured(call, None, DesignSchemas()).problems == ()
    check_structured(call, None, DesignSchemas())
    check_meta_schema(call)
    check_field_non_empty(call, "finalMessage")


def test_a_structured_result_invalid_against_its_meta_schema_fails_with_the_pointer():
    call = _structured({**GOOD, "type": "feature"})
    judgement = judge_structured(call, None, DesignSchemas())
    assert judgement.structured
    assert len(judgement.problems) == 1 and "against _meta.schema is not valid: at /type:" in judgement.problems[0]
    with pytest.raises(AssertionError, match="at /type: 'feature' is not one of"):
        check_structured(call, None, DesignSchemas())
    with pytest.raises(AssertionError, match="at /type"):
        check_meta_schema(call)


def test_a_structured_result_without_its_meta_schema_is_a_problem():
    judgement = judge_structured(_structured(GOOD, schema=None), None, DesignSchemas())
    assert judgement.structured and "without its schema in _meta.schema" in judgement.problems[0]
    with pytest.raises(AssertionError, match="no schema in _meta.schema"):
        check_meta_schema(_structured(GOOD, schema=None))


def test_the_output_schema_is_read_as_2020_12_and_the_design_schema_by_glob():
    output_schema = {"type": "object", "required": ["breaking"]}
    design = DesignSchemas()
    design.add("gen*", {"type": "object", "required": ["scope"]})
    design.add("start_*", {"type": "object", "required": ["workflowName"]})
    judgement = judge_structured(_structured(GOOD), {"outputSchema": output_schema}, design)
    assert len(judgement.problems) == 2
    assert "against the outputSchema is not valid: at /: 'breaking' is a required property" in judgement.problems[0]
    assert "against the design's schema for 'gen*'" in judgement.problems[1]
    # read as 2020-12, where an empty prefixItems is not a valid schema (draft-07 knows no prefixItems)
    bad = judge_structured(_structured(GOOD), {"outputSchema": {"prefixItems": []}}, DesignSchemas())
    assert "the outputSchema: the schema is not a valid JSON Schema" in bad.problems[0]


def test_a_declared_output_schema_without_structured_content_is_a_problem():
    call = Call("gencommit", {}, {"result": {"content": [{"type": "text", "text": "feat: x"}]}})
    judgement = judge_structured(call, {"outputSchema": COMMIT_SCHEMA}, DesignSchemas())
    assert judgement.structured and "declares an outputSchema but" in judgement.problems[0]


def test_a_failed_or_plain_call_is_not_structured():
    failed = Call("gencommit", {}, {"result": {"isError": True, "structuredContent": {"x": 1}}})
    plain = Call("debug", {}, {"result": {"content": [{"type": "text", "text": "ok"}]}})
    assert not judge_structured(failed, None, DesignSchemas()).structured
    assert not judge_structured(plain, None, DesignSchemas()).structured
    with pytest.raises(AssertionError, match="answered no structured result"):
        check_structured(plain, None, DesignSchemas())


def test_every_structured_result_never_passes_on_none_of_them():
    plain = Call("debug", {}, {"result": {"content": [{"type": "text", "text": "ok"}]}})
    with pytest.raises(AssertionError, match=r"no call answered a successful structured result \(0 of 1 calls failed"):
        check_every_structured([plain], {}, DesignSchemas())
    check_every_structured([plain, _structured(GOOD)], {}, DesignSchemas())
    with pytest.raises(AssertionError, match="1 problem"):
        check_every_structured([_structured({**GOOD, "type": 1})], {}, DesignSchemas())


def test_schema_problems_never_raise_on_the_subjects_schema():
    assert "not a JSON object" in schema_problems({}, [], "x")[0]
    assert "not a valid JSON Schema" in schema_problems({}, {"type": 12}, "x")[0]
    assert schema_problems([1], {"prefixItems": [{"type": "string"}]}, "x") == []  # draft-07 ignores prefixItems
    assert schema_problems([1], {"prefixItems": [{"type": "string"}]}, "x", SchemaDialect.MCP)
    # a schema that cannot be applied is the subject's defect, judged: a $ref to nowhere, a broken $schema
    dangling = {"type": "object", "allOf": [{"$ref": "#/definitions/WorkflowReport"}]}
    assert "its $ref '/definitions/WorkflowReport' resolves to nothing" in schema_problems({}, dangling, "x")[0]
    assert "cannot be read" in schema_problems({}, {"$schema": 5}, "x")[0]
    assert schema_problems({"a": [1, {"b": 2}]}, {"properties": {"a": {"items": {"type": "string"}}}}, "x")


def test_a_design_schema_that_is_not_valid_is_a_feature_bug():
    with pytest.raises(jsonschema.SchemaError):
        DesignSchemas().add("gencommit", {"type": "nothing"})


def test_the_design_schema_the_feature_wrote_is_checked():
    check_design_schema(_structured(GOOD), COMMIT_SCHEMA)
    with pytest.raises(AssertionError, match="against the design's schema is not valid"):
        check_design_schema(_structured({"type": "feat"}), COMMIT_SCHEMA)
    with pytest.raises(AssertionError, match="no structuredContent object"):
        check_design_schema(_structured(None), COMMIT_SCHEMA)


def test_the_meta_schema_requires_the_named_fields():
    check_meta_schema_requires(_structured(GOOD), ["type", "subject", "finalMessage"])
    with pytest.raises(AssertionError, match=r"does not require \['finalMessage'\]"):
        check_meta_schema_requires(_structured(GOOD, schema={"required": ["type", "subject"]}),
                                   ["type", "subject", "finalMessage"])


def test_a_conventional_commits_header_is_parsed():
    header = parse_header("feat(export)!: add a CSV export")
    assert header is not None and (header.type, header.scope, header.breaking) == ("feat", "export", True)
    assert parse_header("Add a CSV export") is None
    assert parse_header("feat:add") is None


def test_a_final_message_with_a_conventional_header_of_the_type_passes():
    check_conventional_header(_structured({**GOOD, "finalMessage": "feat: add export\n\nbody"}), "feat")
    check_text_carries_final_message(_structured(GOOD))


@pytest.mark.parametrize("content, kind, message", [
    ({**GOOD, "finalMessage": "Added the export"}, "feat", "not a Conventional Commits header"),
    (GOOD, "docs", "the header's type is 'feat', expected 'docs'"),
    ({**GOOD, "type": "fix"}, "feat", "differs from structuredContent.type 'fix'"),
    ({**GOOD, "finalMessage": " "}, "feat", "no finalMessage"),
])
def test_a_commit_header_that_is_not_the_conventional_one_fails(content, kind, message):
    with pytest.raises(AssertionError, match=message):
        check_conventional_header(_structured(content), kind)


def test_a_text_without_the_final_message_fails():
    with pytest.raises(AssertionError, match="does not carry finalMessage"):
        check_text_carries_final_message(_structured(GOOD, text="a commit message"))


def test_the_workflow_name_names_the_called_tool():
    check_workflow_name(_structured({"workflowName": "start_bugfix"}, tool="start_bugfix"))
    with pytest.raises(AssertionError, match="workflowName is 'start_feature'"):
        check_workflow_name(_structured({"workflowName": "start_feature"}, tool="start_bugfix"))
