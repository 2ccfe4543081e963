"""elicitation.py, the decisions only: mode choice, sensitive detection, the design's text fallback, the questions of
interview / ask_user / a workflow, the plan, the 2026-07-28 input request and its answer, answers mapped to results.

Expected values are the design's literals (§5 ``fallbackToText``; "安全考虑": no secret in a form) and the MCP
spec's (``elicitation/create`` form and url modes, ``action`` accept | decline | cancel). The interview's four
questions, the secure-input URL, the input key ``probekit-question`` and the ``requestState`` form are the
reference's own choices (docs/probekit-decisions.md "Elicitation"), said where they are checked.
"""

import mcp.types as types
import pytest

from simulator.reference.probekit.elicitation import (TEXT_ANSWER, Answer, Mode, Question, asks_by_request,
                                                      choose_mode, fallback_to_text, filled, form_schema,
                                                      input_required, is_sensitive, mode_for, plan, plan_in, resumed,
                                                      supported_modes, task_question, tool_question, tool_result,
                                                      workflow_question)

FORM_CAPS = types.ClientCapabilities(elicitation=types.ElicitationCapability())


def never():
    raise AssertionError("no url elicitation id was needed")


def test_supported_modes():
    assert supported_modes(None) == set()
    assert supported_modes(types.ClientCapabilities()) == set()
    assert supported_modes(FORM_CAPS) == {Mode.FORM}
    both = types.ClientCapabilities.model_validate({"elicitation": {"form": {}, "url": {}}})
    assert supported_modes(both) == {Mode.FORM, Mode.URL}


def test_secrets_never_in_a_form():
    assert is_sensitive("What is your GitHub token?") and is_sensitive("请输入数据库密码")
    assert not is_sensitive("Which framework?")
    assert choose_mode("Your API key?", {Mode.FORM, Mode.URL}) is Mode.URL
    assert choose_mode("Your API key?", {Mode.FORM}) is Mode.TEXT
    assert choose_mode("Which framework?", {Mode.FORM}) is Mode.FORM
    assert choose_mode("Which framework?", set()) is Mode.TEXT


def test_fallback_text_is_the_designs():
    assert fallback_to_text("Pick", ["a", "b"]) == "❓ Pick\n\n可选项：\n1. a\n2. b\n\n请回答："
    assert fallback_to_text("Why?") == "❓ Why?\n\n\n请回答："


def test_form_schema_is_flat():
    schema = form_schema([("answer", "Pick")], ["a", "b"])
    assert schema["properties"]["answer"]["enum"] == ["a", "b"] and schema["required"] == ["answer"]


def test_request_era():
    assert asks_by_request("2025-06-18") and asks_by_request("2025-11-25") and not asks_by_request("2026-07-28")


def test_questions():
    assert tool_question("ask_user", {"question": " Which db? ", "options": ["pg"]}) == Question(
        "Which db?", [("answer", "Which db?")], ["pg"])
    assert tool_question("ask_user", {}) is None
    interview = tool_question("interview", {"description": "billing"})
    assert interview is not None and interview.message == "Interview about: billing"
    # The four interview questions are the reference's choice (docs/probekit-decisions.md).
    assert [key for key, _ in interview.fields] == ["goal", "scope", "constraints", "acceptance"]
    assert workflow_question("start_doc", {}) == Question("start_doc needs code: the code to document",
                                                          [("code", "Describe the code to document")])
    assert workflow_question("start_doc", {"code": "x"}) is None and workflow_question("gencommit", {}) is None


def test_plan_chooses_the_mode_and_builds_the_request():
    form = plan(Question("Which db?", [("answer", "Which db?")], ["pg", "sqlite"]), {Mode.FORM}, new_id=never)
    assert form.mode is Mode.FORM and form.elicitation_id is None
    assert isinstance(form.request.params, types.ElicitRequestFormParams)
    assert form.request.params.requested_schema["properties"]["answer"]["enum"] == ["pg", "sqlite"]
    secret = Question("Your deploy password?", [("answer", "Your deploy password?")])
    url = plan(secret, {Mode.FORM, Mode.URL}, new_id=lambda: "e-1")
    assert url.mode is Mode.URL and url.elicitation_id == "e-1"
    assert isinstance(url.request.params, types.ElicitRequestURLParams)
    assert url.request.params.url.endswith("?id=e-1")  # the secure-input page is the reference's choice
    assert plan(secret, {Mode.FORM}, new_id=never).mode is Mode.TEXT
    assert mode_for(secret, {Mode.FORM, Mode.URL}) is Mode.URL and mode_for(secret, {Mode.FORM}) is Mode.TEXT
    assert plan_in(Mode.FORM, secret, new_id=never).mode is Mode.FORM  # what the mode chose is what is built
    assert plan(Question("Which db?", [("answer", "Which db?")]), set(), new_id=never).mode is Mode.TEXT


def test_the_2026_input_request_and_its_answer():
    secret = plan(Question("Your token?", [("answer", "Your token?")]), {Mode.URL}, new_id=lambda: "e-9")
    asked = input_required("ask_user", secret)
    # The input key and the requestState form are the reference's choice (docs/probekit-decisions.md).
    assert list(asked.input_requests) == ["probekit-question"] and asked.request_state == "probekit:ask_user:e-9"
    answer = resumed(secret, {"action": "accept"}, {"requestState": "probekit:ask_user:e-1"})
    assert answer == Answer(Mode.URL, "accept", None, "e-1")
    form = plan(Question("Which db?", [("answer", "Which db?")]), {Mode.FORM}, new_id=never)
    assert resumed(form, types.ElicitResult(action="accept", content={"answer": "pg"}), {}) == Answer(
        Mode.FORM, "accept", {"answer": "pg"})


@pytest.mark.parametrize(("answer", "text", "meta"), [
    (Answer(Mode.FORM, "accept", {"answer": "pg"}), "User answers:\nanswer: pg",
     {"mode": "form", "action": "accept", "answers": {"answer": "pg"}}),
    (Answer(Mode.FORM, "decline"), "The user did not answer (decline).", {"mode": "form", "action": "decline"}),
    (Answer(Mode.URL, "accept", {"answer": "s3cr3t"}, "e-1"), "secure page",
     {"mode": "url", "action": "accept", "elicitationId": "e-1"}),
    (Answer(Mode.URL, "cancel", None, "e-1"), "did not open the secure page (cancel)",
     {"mode": "url", "action": "cancel", "elicitationId": "e-1"}),
])
def test_answers_map_to_results(answer, text, meta):
    result = tool_result(answer)
    assert text in result["content"][0]["text"] and result["_meta"] == meta and "isError" not in result
    assert "s3cr3t" not in str(result)  # a url-mode answer never carries the secret


def test_a_text_answer_leaves_the_result_to_the_text_handler():
    assert tool_result(TEXT_ANSWER) is None


def test_filled_workflow_arguments():
    question = workflow_question("start_doc", {})
    assert filled({}, question, Answer(Mode.FORM, "accept", {"code": "def f(): pass"})) == {"code": "def f(): pass"}
    for answer in (Answer(Mode.FORM, "accept", {"code": "  "}), Answer(Mode.FORM, "decline"), TEXT_ANSWER):
        assert filled({"x": 1}, question, answer) == {"x": 1}


def test_a_task_asks_only_on_a_request_era_connection_with_form_mode():
    assert task_question("start_doc", {}, "2025-11-25", FORM_CAPS) == workflow_question("start_doc", {})
    assert task_question("start_doc", {}, "2026-07-28", FORM_CAPS) is None
    assert task_question("start_doc", {}, "2025-11-25", None) is None
    assert task_question("start_doc", {"code": "x"}, "2025-11-25", FORM_CAPS) is None
