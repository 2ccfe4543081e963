"""output.py and schemas.py: the design's helpers and schemas (expected values: the design's literals, §2)."""

from simulator.reference.probekit.output import error_response, ok_structured, ok_text, to_call_tool_result
from simulator.reference.probekit.schemas import CommitMessageSchema, errors_of


def test_ok_text_never_empty():
    assert ok_text("")["content"][0]["text"]
    assert ok_text("hi", {"a": 1}) == {"content": [{"type": "text", "text": "hi"}], "_meta": {"a": 1}}


def test_ok_structured_carries_schema_in_meta():
    r = ok_structured(schema=CommitMessageSchema, data={"x": 1}, text_fallback="t", meta={"m": 2})
    assert r["structuredContent"] == {"x": 1} and r["_meta"] == {"m": 2, "schema": CommitMessageSchema}


def test_error_response_form():
    r = error_response("boom", {"code": "c"})
    assert r["isError"] is True and r["content"][0]["text"] == "❌ 错误: boom"  # design §2 errorResponse
    assert r["_meta"] == {"error": {"code": "c"}}
    wire = to_call_tool_result(r).model_dump(by_alias=True, exclude_none=True)
    assert wire["isError"] is True and wire["_meta"]["error"] == {"code": "c"}


def test_schema_errors_name_the_pointer():
    assert errors_of("CommitMessage", {"type": "feat", "subject": "s", "finalMessage": "f"}) == []
    problems = errors_of("CommitMessage", {"type": "feature", "subject": "s"})
    assert any(p.startswith("/type:") for p in problems) and any("finalMessage" in p for p in problems)
    assert errors_of("WorkflowReport", {"workflowName": "w", "summary": "s", "steps": [], "nextActions": [],
                                        "timestamps": {"started": "not a date"}})
