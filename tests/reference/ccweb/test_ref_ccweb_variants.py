"""The variants: each one visibly shows its own symptom and nothing else (all are broken on purpose except
``legacy-nomode-refused``, a conformant refusal of an optional behaviour)."""

from __future__ import annotations

import anyio
import pytest
from mcp import Client

from simulator.reference.ccweb import start_embedded
from simulator.reference.ccweb.cli import main as cli_main
from simulator.reference.ccweb.control import ControlApi
from simulator.reference.ccweb.variants import VARIANT_ENV, Variant
from simulator.reference.ccweb.server import build_server

#: PRD "目标": the one public send tool; PRD §2: the hidden compatibility alias.
SEND_TOOL = "ccweb_send_message"
LEGACY_REQUEST_REPLY_TOOL = "ccweb_request_reply"
SEND = {"targetConversationId": "conv-target", "content": "Run the tests and report back."}


def symptoms(core) -> set[str]:
    """Which requirement checks fail against ``core`` (empty for the correct reference)."""
    async def main():
        async with Client(build_server(core), mode="legacy") as client:
            tools = (await client.list_tools()).tools
            alias = await client.call_tool(LEGACY_REQUEST_REPLY_TOOL, SEND)
            return tools, alias
    tools, alias = anyio.run(main)
    found = set()
    send = next(t for t in tools if t.name == SEND_TOOL)
    if "default" in send.input_schema["properties"]["replyMode"]:
        found.add(Variant.REPLYMODE_DEFAULT)
    if LEGACY_REQUEST_REPLY_TOOL in {t.name for t in tools}:
        found.add(Variant.ALIAS_LISTED)
    if alias.is_error:
        found.add(Variant.ALIAS_REJECTED)
    fallback_send = next(t for t in core.fallback_tools() if t["name"] == SEND_TOOL)
    if (fallback_send["description"], fallback_send["inputSchema"]) != (send.description, send.input_schema):
        found.add(Variant.FALLBACK_COPIED_DRIFT)
    if "return_and_continue" not in send.description:
        found.add(Variant.DESCRIPTION_ONE_MODE)
    outcome = core.dispatch(SEND_TOOL, {**SEND, "replyMode": "return_and_continue"})
    answer = core.complete_run(outcome.structured["targetRunId"], "All green.")
    if "continuationRunId" not in answer:
        found.add(Variant.NO_DELIVERY)
    else:
        if outcome.structured["requestId"] not in core.run(answer["continuationRunId"])["prompt"]:
            found.add(Variant.CONTINUATION_WITHOUT_REQUEST_ID)
        listed = [r for r in core.runs() if r["runId"] == answer["continuationRunId"]]
        if listed[0]["requestId"] != outcome.structured["requestId"]:
            found.add(Variant.CONTINUATION_UNLINKED)
    legacy = core.dynamic_call(SEND_TOOL, SEND)  # no replyMode (PRD §2: may be handled as one_way)
    if legacy.is_error:
        found.add(Variant.LEGACY_NOMODE_REFUSED if "replyMode" in legacy.text else Variant.LEGACY_NOMODE_BROKEN)
    status, body = ControlApi(core).handle("POST", "/v1/pending-replies", b"{}")
    if status != 200 or not isinstance(body, dict):
        found.add(Variant.CONTROL_MALFORMED)
    return found


def test_the_correct_reference_has_no_symptom(core):
    assert symptoms(core) == set()


@pytest.mark.parametrize("variant", list(Variant))
def test_each_variant_breaks_exactly_its_own_requirement(make_core, variant):
    assert symptoms(make_core(variant)) == {variant}


def test_alias_rejected_only_at_tools_call(make_core):
    core = make_core(Variant.ALIAS_REJECTED)
    assert not core.dynamic_call(LEGACY_REQUEST_REPLY_TOOL, SEND).is_error
    assert not core.dispatch(LEGACY_REQUEST_REPLY_TOOL, SEND).is_error


def test_variant_selection(monkeypatch):
    assert Variant.parse(None) is None and Variant.parse("") is None
    assert Variant.from_env({VARIANT_ENV: "alias-listed"}) is Variant.ALIAS_LISTED
    with pytest.raises(ValueError, match="known: replymode-default"):
        Variant.parse("nope")
    monkeypatch.setenv(VARIANT_ENV, "fallback-copied-drift")
    running = start_embedded(None)
    try:
        assert running.identity["variant"] == "fallback-copied-drift"
    finally:
        running.stop()


def test_cli_rejects_an_unknown_variant(capsys):
    assert cli_main(["--variant", "nope"]) == 2
    assert "unknown ccweb reference variant" in capsys.readouterr().err
