"""``simulator.drivers.hook_server.control_answers``: a control answer is read only after it matched the schema."""

from __future__ import annotations

import json

import pytest
from test_hook_server_fakes import FakeControl, message_row

from simulator.drivers.hook_server import (
    HOOK_SERVER_CONTROL_SCHEMA,
    HOOK_SERVER_LISTINGS,
    CheckedControl,
    ControlSchema,
    Listing,
)
from simulator.errors import NotTestable


def checked(answers):
    return CheckedControl(FakeControl(answers), HOOK_SERVER_CONTROL_SCHEMA, HOOK_SERVER_LISTINGS)


def test_an_answer_that_matches_its_response_definition_is_returned():
    assert checked({"advance-clock": {"now": 12}}).call("advance-clock", {"ms": 0}) == {"now": 12}


def test_an_answer_missing_a_required_field_fails_with_the_schema_pointer():
    with pytest.raises(AssertionError) as caught:
        checked({"config": {"serverName": "s", "features": []}}).call("config")
    message = str(caught.value)
    assert "control answer to config does not match docs/control-api.schema.json ($defs/config.response)" in message
    assert "at /:" in message and "required" in message


def test_a_mistyped_field_is_named_by_its_json_pointer():
    with pytest.raises(AssertionError, match=r"\(\$defs/advance-clock.response\) at /now:"):
        checked({"advance-clock": {"now": "soon"}}).call("advance-clock")


def test_a_capability_the_server_lacks_is_not_testable():
    with pytest.raises(NotTestable):
        checked({}).call("ping-desktops")


def test_a_listing_without_its_list_fails():
    with pytest.raises(AssertionError, match="has no list 'messages'"):
        checked({"list-messages": {"rows": []}}).call("list-messages")


def test_listing_rows_are_filtered_and_the_kept_rows_checked_in_full():
    rows = [message_row("r1", "c1"), message_row("r2", "c1")]
    assert checked({"list-messages": {"messages": rows}}).rows("list-messages", keep=lambda m: m["requestId"] == "r2") \
        == [rows[1]]


def test_a_listing_row_without_required_fields_fails_even_when_the_filter_would_skip_it():
    rows = [message_row("r1", "c1"), {"requestId": "r2"}]
    with pytest.raises(AssertionError) as caught:
        checked({"list-messages": {"messages": rows}}).rows("list-messages", keep=lambda m: False)
    assert "malformed at /messages/1: missing ['attachments'" in str(caught.value)
    assert "$defs/message" in str(caught.value)


def test_a_kept_row_with_a_mistyped_field_fails():
    rows = [message_row("r1", "c1", revision="one")]
    with pytest.raises(AssertionError, match=r"list-messages /messages/0 does not match .* at /revision"):
        checked({"list-messages": {"messages": rows}}).rows("list-messages")


def test_rows_of_a_capability_that_is_no_listing_is_our_misuse():
    with pytest.raises(KeyError, match="not a listing"):
        checked({"config": {}}).rows("config")


def test_the_checker_is_generic_over_the_schema_and_its_definitions(tmp_path):
    path = tmp_path / "desktop-control.schema.json"
    path.write_text(json.dumps({"$defs": {
        "run.response": {"type": "object", "properties": {"ok": {"const": True}}, "required": ["ok"]},
        "job": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
        "jobs.response": {"type": "object"},
    }}), encoding="utf-8")
    schema = ControlSchema(path)
    control = CheckedControl(FakeControl({"run": {"ok": False}, "jobs": {"jobs": [{"id": 1}]}}), schema,
                             {"jobs": Listing("jobs", "job")}, subject="desktop")
    with pytest.raises(AssertionError, match=r"the desktop's control answer to run does not match "
                                             r"docs/desktop-control.schema.json \(\$defs/run.response\) at /ok"):
        control.call("run")
    with pytest.raises(AssertionError, match=r"jobs /jobs/0 .* at /id"):
        control.rows("jobs")
    with pytest.raises(KeyError, match="no \\$defs/nothing"):
        schema.check({}, "nothing", "x")
