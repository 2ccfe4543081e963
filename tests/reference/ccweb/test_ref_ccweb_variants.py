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
#: PRD §3: the other communication tool, the only other one the fallback list may hold.
LIST_TOOL = "ccweb_list_conversations"
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
    if [t.name for t in tools].count(SEND_TOOL) != 1:
        found.add(Variant.SEND_LISTED_TWICE)
    properties = send.input_schema["properties"]
    if "default" in properties["replyMode"]:
        found.add(Variant.REPLYMODE_DEFAULT)
    if properties["targetConversationId"].get("type") != "string":
        found.add(Variant.TARGET_ID_NUMBER_OR_STRING)
    if "enum" not in properties["replyMode"]:
        found.add(Variant.REPLYMODE_NO_ENUM)
    if "replyMode" not in send.input_schema.get("required", []):
        found.add(Variant.REPLYMODE_OPTIONAL)
    if LEGACY_REQUEST_REPLY_TOOL in {t.name for t in tools}:
        found.add(Variant.ALIAS_LISTED)
    if alias.is_error:
        found.add(Variant.ALIAS_REJECTED)
    fallback = core.fallback_tools()
    fallback_names = {t["name"] for t in fallback}
    if LEGACY_REQUEST_REPLY_TOOL in fallback_names:
        found.add(Variant.ALIAS_IN_FALLBACK)
    if fallback_names - {SEND_TOOL, LIST_TOOL, LEGACY_REQUEST_REPLY_TOOL}:
        found.add(Variant.FALLBACK_ALL_TOOLS)
    fallback_send = next((t for t in fallback if t["name"] == SEND_TOOL), None)
    if fallback_send is None:
        found.add(Variant.FALLBACK_WITHOUT_SEND)
    elif (fallback_send["description"], fallback_send["inputSchema"]) != (send.description, send.input_schema):
        found.add(Variant.FALLBACK_COPIED_DRIFT)
    if "return_and_continue" not in send.description:
        found.add(Variant.DESCRIPTION_ONE_MODE)
    if core.dynamic_call(LEGACY_REQUEST_REPLY_TOOL, SEND).is_error:
        found.add(Variant.DYNAMIC_ALIAS_REJECTED)
    one_way = core.dispatch(SEND_TOOL, {**SEND, "replyMode": "one_way"})
    if SEND["content"] not in core.run(one_way.structured["targetRunId"])["prompt"]:
        found.add(Variant.ONEWAY_PROMPT_WITHOUT_CONTENT)
    outcome = core.dispatch(SEND_TOOL, {**SEND, "replyMode": "return_and_continue"})
    if not {"replyDelivery", "sourceAutoRun"} <= set(outcome.structured):
        found.add(Variant.RESULT_WITHOUT_DELIVERY_FIELDS)
    target_run = core.run(outcome.structured["targetRunId"])
    if SEND["content"] not in target_run["prompt"]:
        found.add(Variant.RETURN_PROMPT_WITHOUT_CONTENT)
    if "conv-source" not in target_run["prompt"]:
        found.add(Variant.TARGET_PROMPT_WITHOUT_SOURCE_ID)
    if target_run["status"] != "running":
        found.add(Variant.SEND_WAITS_FOR_TARGET)
        return found | _later_symptoms(core)
    answer = core.complete_run(outcome.structured["targetRunId"], "All green.")
    if "continuationRunId" not in answer:
        found.add(Variant.NO_DELIVERY)
    else:
        if outcome.structured["requestId"] not in core.run(answer["continuationRunId"])["prompt"]:
            found.add(Variant.CONTINUATION_WITHOUT_REQUEST_ID)
        listed = [r for r in core.runs() if r["runId"] == answer["continuationRunId"]]
        if listed[0]["requestId"] != outcome.structured["requestId"]:
            found.add(Variant.CONTINUATION_UNLINKED)
    return found | _later_symptoms(core)


def _later_symptoms(core) -> set[str]:
    """The symptoms of the legacy call and the control API."""
    found = set()
    legacy = core.dynamic_call(SEND_TOOL, SEND)  # no replyMode (PRD §2: may be handled as one_way)
    if legacy.is_error:
        found.add(Variant.LEGACY_NOMODE_REFUSED if "replyMode" in legacy.text else Variant.LEGACY_NOMODE_BROKEN)
    status, body = ControlApi(core).handle("POST", "/v1/pending-replies", b"{}")
    if status != 200 or not isinstance(body, dict):
        found.add(Variant.CONTROL_MALFORMED)
    return found


def test_the_correct_reference_has_no_symptom(core):
    assert symptoms(core) == set()


#: The robustness profile's variants (simulator/reference/mcp_robustness_variants.py) break the raw JSON-RPC handling
#: only, which these checks do not reach: tests/robustness/test_robustness_mcp_falsified.py catches them. The stdout
#: variant (simulator/reference/mcp_stdout_variants.py) breaks what the process writes to stdout over stdio, which a
#: core never does: tests/ccweb/test_ccweb_variants.py catches it.
_ROBUSTNESS = {"crash-on-huge-argument", "silent-unknown-method", "unknown-method-wrong-code"}
_STDOUT = {"stdout-chatter"}


@pytest.mark.parametrize("variant", [v for v in Variant if v.value not in _ROBUSTNESS | _STDOUT])
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
