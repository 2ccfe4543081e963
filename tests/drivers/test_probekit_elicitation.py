"""``simulator.drivers.probekit.elicitation``: the requests a server sent, judged; the harness's answers (no
network)."""

from __future__ import annotations

import pytest

from simulator.drivers.probekit import (
    Call, check_form_sent, check_no_elicitation, check_no_form, check_no_secret_in_forms, check_numbered_options,
    check_url_only, check_url_sent, fill_form, form_answerer, secret_fields,
)
from simulator.roles.mcp_client import ElicitationRequest


def _form(message: str, properties: dict) -> ElicitationRequest:
    schema = {"type": "object", "properties": properties}
    return ElicitationRequest(1, "form", message, schema, None, None, {"mode": "form", "requestedSchema": schema})


def _url(url: str | None = "https://example.test/secure", eid: str | None = "e-1") -> ElicitationRequest:
    return ElicitationRequest(2, "url", "Open the page", None, url, eid, {"mode": "url", "url": url})


NAME_FORM = _form("What should the service be called?", {"answer": {"type": "string", "title": "Answer"}})
CALL = Call("ask_user", {"question": "q"}, {"result": {"content": [{"type": "text", "text": "done"}]}})


def test_a_form_asking_for_a_password_fails():
    form = _form("What is the database password?", {"answer": {"type": "string"}})
    assert secret_fields(form)
    with pytest.raises(AssertionError, match="asks for a secret"):
        check_no_secret_in_forms([form])


@pytest.mark.parametrize("prop", [{"type": "string", "title": "API key"}, {"type": "string", "format": "password"},
                                  {"type": "string", "description": "您的密钥"}])
def test_a_secret_field_is_found_by_its_title_format_or_description(prop):
    assert secret_fields(_form("Fill this in", {"value": prop})) == [f"value: {prop}"]


def test_a_plain_form_and_a_url_elicitation_ask_for_no_secret():
    check_no_secret_in_forms([NAME_FORM, _url()])
    assert secret_fields(_url()) == []


def test_a_form_must_carry_a_requested_schema():
    check_form_sent([NAME_FORM])
    with pytest.raises(AssertionError, match="no form elicitation was sent"):
        check_form_sent([_url()])
    with pytest.raises(AssertionError, match="without a requested schema"):
        check_form_sent([_form("q", {})])


def test_modes_the_client_did_not_declare_fail():
    check_no_elicitation([])
    with pytest.raises(AssertionError, match="declared none"):
        check_no_elicitation([NAME_FORM])
    check_no_form([_url()])
    with pytest.raises(AssertionError, match="did not declare form mode"):
        check_no_form([NAME_FORM])


def test_a_url_elicitation_needs_a_url_and_an_elicitation_id():
    check_url_sent([_url()], CALL)
    check_url_only([_url()])
    check_url_only([])
    with pytest.raises(AssertionError, match="no url-mode elicitation"):
        check_url_sent([_url(eid=None)], CALL)
    with pytest.raises(AssertionError, match="not a complete url-mode elicitation"):
        check_url_only([_url(url=None)])
    with pytest.raises(AssertionError, match="not a complete url-mode elicitation"):
        check_url_only([NAME_FORM])


def test_the_text_fallback_offers_numbered_options():
    text = "❓ Which database?\n\n可选项：\n1. PostgreSQL\n2. SQLite\n"
    check_numbered_options(Call("ask_user", {}, {"result": {"content": [{"type": "text", "text": text}]}}))
    with pytest.raises(AssertionError, match="numbered options"):
        check_numbered_options(Call("ask_user", {}, {"result": {"content": [{"type": "text", "text": "1. only"}]}}))


def test_a_form_is_filled_field_by_field():
    schema = {"properties": {"name": {"type": "string"}, "ok": {"type": "boolean"}, "n": {"type": "integer",
              "minimum": 3}, "db": {"enum": ["pg", "lite"]}, "pick": {"oneOf": [{"const": "a"}]},
              "tags": {"type": "array", "items": {"enum": ["x", "y"]}}, "free": {"type": "array"}}}
    assert fill_form(schema, "t") == {"name": "t", "ok": True, "n": 3, "db": "pg", "pick": "a", "tags": ["x"],
                                      "free": ["t"]}
    assert fill_form(None, "t") == {}


def test_the_answerer_fills_forms_and_accepts_urls():
    answer = form_answerer("harness-answer")
    assert answer(NAME_FORM).result == {"action": "accept", "content": {"answer": "harness-answer"}}
    assert answer(_url()).result == {"action": "accept"}
