"""docs/control-api.md is a public contract others implement from the document alone: every capability a reference
serves is documented in its role's section (a table row naming it), and every capability the document gives a
role is served by that role's reference. The hook server's capabilities each have a request and a response schema
in docs/control-api.schema.json, the desktop's in docs/desktop-control-api.schema.json (the schema tests exercise them
against the references): the capabilities the desktop section documents, the desktop schema's ``capabilities`` list and
the ones the reference desktop advertises on ``GET /v1`` are the same."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from simulator.reference.ccweb.control import CAPABILITIES as CCWEB
from simulator.reference.desktop.control import CAPABILITIES as DESKTOP
from simulator.reference.hookserver.control import CAPABILITIES as HOOK_SERVER

DOCS = Path(__file__).resolve().parents[1] / "docs"
DOC = (DOCS / "control-api.md").read_text(encoding="utf-8")
#: role → (its section heading, the next top-level heading or None, the capabilities its reference serves)
ROLES = {
    "ccweb": ("## ccweb", "## desktop", CCWEB),
    "desktop": ("## desktop", "## hook-server", DESKTOP),
    "hook-server": ("## hook-server", None, HOOK_SERVER),
}


def section(start: str, end: str | None) -> str:
    i = DOC.index(f"\n{start}\n")
    j = DOC.index(f"\n{end}\n", i) if end else len(DOC)
    return DOC[i:j]


def documented(text: str) -> set[str]:
    """The capabilities of a section: the first cell of its capability tables (``| `name` |``, ``/`` joins two)."""
    names: set[str] = set()
    for cell in re.findall(r"^\| (`[a-z][a-z0-9-]*`(?: / `[a-z][a-z0-9-]*`)*) \|", text, re.M):
        names |= set(re.findall(r"`([a-z0-9-]+)`", cell))
    return names


@pytest.mark.parametrize("role", sorted(ROLES))
def test_every_served_capability_is_documented_and_every_documented_one_served(role):
    start, end, served = ROLES[role]
    doc = documented(section(start, end))
    assert set(served) - doc == set(), f"{role}: served but not in docs/control-api.md: {sorted(set(served) - doc)}"
    assert doc - set(served) == set(), f"{role}: documented but not served: {sorted(doc - set(served))}"


def test_every_hook_server_capability_has_a_request_and_a_response_schema():
    schema = json.loads((DOCS / "control-api.schema.json").read_text(encoding="utf-8"))
    assert schema["capabilities"] == list(HOOK_SERVER)
    missing = [f"{c}.{part}" for c in HOOK_SERVER for part in ("request", "response")
               if f"{c}.{part}" not in schema["$defs"]]
    assert not missing, missing


def _desktop_schema() -> dict:
    return json.loads((DOCS / "desktop-control-api.schema.json").read_text(encoding="utf-8"))


def _desktop_advertised() -> list[str]:
    """The capabilities the reference desktop answers ``GET /v1`` with (its routing, no socket)."""
    from simulator.reference.desktop.client import DesktopClient
    from simulator.reference.desktop.control import DesktopControlApi
    from simulator.reference.desktop.machine import DesktopMachine

    api = DesktopControlApi(DesktopClient("ws://127.0.0.1:1/hook", None, DesktopMachine(), store=None))
    status, described = api.handle("GET", "/v1")
    assert status == 200 and described["role"] == "desktop", described
    return described["capabilities"]


def test_the_desktop_doc_its_schema_and_the_reference_name_the_same_capabilities():
    schema = _desktop_schema()
    doc = documented(section("## desktop", "## hook-server"))
    advertised = _desktop_advertised()
    assert len(set(schema["capabilities"])) == len(schema["capabilities"]), schema["capabilities"]
    assert set(schema["capabilities"]) == doc, (
        f"schema only: {sorted(set(schema['capabilities']) - doc)}, doc only: {sorted(doc - set(schema['capabilities']))}")
    assert schema["capabilities"] == advertised == list(DESKTOP)


def test_every_desktop_capability_has_a_request_and_a_response_schema():
    defs = _desktop_schema()["$defs"]
    missing = [f"{c}.{part}" for c in DESKTOP for part in ("request", "response") if f"{c}.{part}" not in defs]
    assert not missing, missing
    assert {"error", "describe.response"} <= defs.keys()


def test_the_desktop_section_names_its_schema_and_every_state_row_it_lists_exists():
    text = section("## desktop", "## hook-server")
    assert "`docs/desktop-control-api.schema.json`" in text
    listed = re.search(r"one per row of the `state` answer:\s*(.*?)\)", text, re.S)
    assert listed, "the desktop section does not list the $defs rows of the state answer"
    rows = re.findall(r"`([A-Za-z]+)`", listed.group(1))
    defs = _desktop_schema()["$defs"]
    assert rows and not [r for r in rows if r not in defs], [r for r in rows if r not in defs]
    nested = {k for k, v in defs.items() if "." not in k and k not in ("error",)}
    assert nested == set(rows), f"rows not listed in the doc: {sorted(nested - set(rows))}"


def test_the_readme_lists_every_capability_of_every_role():
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    for role, (_, _, served) in ROLES.items():
        row = next(line for line in readme.splitlines() if line.startswith(f"| {role} | `"))
        listed = set(re.findall(r"`([a-z0-9-]+)`", row))
        assert listed == set(served), f"README {role}: missing {sorted(set(served) - listed)}, extra {sorted(listed - set(served))}"


def test_the_readme_names_both_control_api_schemas():
    readme = (DOCS.parent / "README.md").read_text(encoding="utf-8")
    paragraph = readme[readme.index("### Control API capabilities"):readme.index("| role | capabilities |")]
    assert "`docs/control-api.schema.json`" in paragraph and "`docs/desktop-control-api.schema.json`" in paragraph
