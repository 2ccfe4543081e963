"""The broken cc-web subjects (simulator/reference/broken/ccweb/): each one visibly shows its own symptom and nothing
else (all are broken on purpose except ``legacy-nomode-refused``, a conformant refusal of an optional behaviour); the
correct reference names none of them."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp import Client

from simulator.reference.broken.ccweb.select import CHOOSER, VARIANT_ENV
from simulator.reference.broken.mcp_transport import TransportFault
from simulator.reference.ccweb import start_embedded
from simulator.reference.ccweb.cli import main as cli_main
from simulator.reference.ccweb.control import ControlApi
from simulator.reference.ccweb.parts import CcwebParts
from simulator.reference.ccweb.server import build_server

#: PRD "目标": the one public send tool; PRD §2: the hidden compatibility alias.
SEND_TOOL = "ccweb_send_message"
LEGACY_REQUEST_REPLY_TOOL = "ccweb_request_reply"
#: PRD §3: the other communication tool, the only other one the fallback list may hold.
LIST_TOOL = "ccweb_list_conversations"
SEND = {"targetConversationId": "conv-target", "content": "Run the tests and report back."}


def symptoms(core, control: type[ControlApi] = ControlApi) -> set[str]:
    """Which requirement checks fail against ``core`` and its ``control`` API (empty for the correct reference), by
    the name of the broken subject that shows it."""
    async def main():
        async with Client(build_server(core), mode="legacy") as client:
            tools = (await client.list_tools()).tools
            alias = await client.call_tool(LEGACY_REQUEST_REPLY_TOOL, SEND)
            return tools, alias
    tools, alias = anyio.run(main)
    found = set()
    send = next(t for t in tools if t.name == SEND_TOOL)
    if [t.name for t in tools].count(SEND_TOOL) != 1:
        found.add("send-listed-twice")
    properties = send.input_schema["properties"]
    if "default" in properties["replyMode"]:
        found.add("replymode-default")
    if properties["targetConversationId"].get("type") != "string":
        found.add("target-id-number-or-string")
    if "enum" not in properties["replyMode"]:
        found.add("replymode-no-enum")
    if "replyMode" not in send.input_schema.get("required", []):
        found.add("replymode-optional")
    if LEGACY_REQUEST_REPLY_TOOL in {t.name for t in tools}:
        found.add("alias-listed")
    if alias.is_error:
        found.add("alias-rejected")
    fallback = core.fallback_tools()
    fallback_names = {t["name"] for t in fallback}
    if LEGACY_REQUEST_REPLY_TOOL in fallback_names:
        found.add("alias-in-fallback")
    if fallback_names - {SEND_TOOL, LIST_TOOL, LEGACY_REQUEST_REPLY_TOOL}:
        found.add("fallback-all-tools")
    fallback_send = next((t for t in fallback if t["name"] == SEND_TOOL), None)
    if fallback_send is None:
        found.add("fallback-without-send")
    elif (fallback_send["description"], fallback_send["inputSchema"]) != (send.description, send.input_schema):
        found.add("fallback-copied-drift")
    if "return_and_continue" not in send.description:
        found.add("description-one-mode")
    if core.dynamic_call(LEGACY_REQUEST_REPLY_TOOL, SEND).is_error:
        found.add("dynamic-alias-rejected")
    one_way = core.dispatch(SEND_TOOL, {**SEND, "replyMode": "one_way"})
    if SEND["content"] not in core.run(one_way.structured["targetRunId"])["prompt"]:
        found.add("oneway-prompt-without-content")
    outcome = core.dispatch(SEND_TOOL, {**SEND, "replyMode": "return_and_continue"})
    if not {"replyDelivery", "sourceAutoRun"} <= set(outcome.structured):
        found.add("result-without-delivery-fields")
    target_run = core.run(outcome.structured["targetRunId"])
    if SEND["content"] not in target_run["prompt"]:
        found.add("return-prompt-without-content")
    if "conv-source" not in target_run["prompt"]:
        found.add("target-prompt-without-source-id")
    if target_run["status"] != "running":
        found.add("send-waits-for-target")
        return found | _later_symptoms(core, control)
    answer = core.complete_run(outcome.structured["targetRunId"], "All green.")
    if "continuationRunId" not in answer:
        found.add("no-delivery")
    else:
        if outcome.structured["requestId"] not in core.run(answer["continuationRunId"])["prompt"]:
            found.add("continuation-without-request-id")
        listed = [r for r in core.runs() if r["runId"] == answer["continuationRunId"]]
        if listed[0]["requestId"] != outcome.structured["requestId"]:
            found.add("continuation-unlinked")
    return found | _later_symptoms(core, control)


def _later_symptoms(core, control: type[ControlApi]) -> set[str]:
    """The symptoms of the legacy call and the control API."""
    found = set()
    legacy = core.dynamic_call(SEND_TOOL, SEND)  # no replyMode (PRD §2: may be handled as one_way)
    if legacy.is_error:
        found.add("legacy-nomode-refused" if "replyMode" in legacy.text else "legacy-nomode-broken")
    status, body = control(core).handle("POST", "/v1/pending-replies", b"{}")
    if status != 200 or not isinstance(body, dict):
        found.add("control-malformed")
    return found


def test_the_correct_reference_has_no_symptom(core):
    assert symptoms(core) == set()


def _is_transport_fault(name: str) -> bool:
    chosen = CHOOSER.target(name)
    assert chosen is not None
    return isinstance(chosen[1], type) and issubclass(chosen[1], TransportFault)


#: The transport faults (simulator/reference/broken/mcp_transport.py) break the raw JSON-RPC handling or what the
#: process writes to stdout over stdio, which these checks do not reach: tests/robustness/
#: test_robustness_mcp_falsified.py and tests/ccweb/test_ccweb_variants.py catch them.
IN_CORE = [name for name in CHOOSER.names() if not _is_transport_fault(name)]


@pytest.mark.parametrize("name", IN_CORE)
def test_each_variant_breaks_exactly_its_own_requirement(make_core, name):
    parts = CHOOSER.parts(name)
    assert symptoms(make_core(parts), parts.control) == {name}


def test_alias_rejected_only_at_tools_call(make_core):
    core = make_core(CHOOSER.parts("alias-rejected"))
    assert not core.dynamic_call(LEGACY_REQUEST_REPLY_TOOL, SEND).is_error
    assert not core.dispatch(LEGACY_REQUEST_REPLY_TOOL, SEND).is_error


def test_each_transport_fault_wraps_the_correct_server():
    for name in set(CHOOSER.names()) - set(IN_CORE):
        parts = CHOOSER.parts(name)
        assert parts.machine is CcwebParts().machine and parts.control is ControlApi
        assert parts.guard_stdout is (name != "stdout-chatter")


def test_variant_selection(monkeypatch):
    assert CHOOSER.target(None) is None and CHOOSER.target("") is None and CHOOSER.target("none") is None
    assert CHOOSER.parts(None).identity == {"variant": None}
    assert CHOOSER.from_env({VARIANT_ENV: "alias-listed"}).identity == {"variant": "alias-listed"}
    with pytest.raises(ValueError, match="unknown ccweb reference variant 'nope' \\(known: alias-in-fallback"):
        CHOOSER.parts("nope")
    monkeypatch.setenv(VARIANT_ENV, "fallback-copied-drift")
    running = start_embedded(None)
    try:
        assert running.identity["variant"] == "fallback-copied-drift"
    finally:
        running.stop()


def test_cli_rejects_an_unknown_variant(capsys):
    assert cli_main(["--variant", "nope"]) == 2
    assert "unknown ccweb reference variant" in capsys.readouterr().err


def test_the_correct_reference_names_no_broken_subject():
    """STYLE.md 13: the correct code states only the correct rule; which subject breaks which rule lives under
    simulator/reference/broken/."""
    package = Path(__file__).resolve().parents[3] / "simulator" / "reference" / "ccweb"
    naming = [p.name for p in package.rglob("*") if p.suffix in {".py", ".md"} and "variant" in p.read_text().lower()]
    assert naming == []
