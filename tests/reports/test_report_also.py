"""The other non-passing verdicts of a requirement (``RequirementResult.also``) on one short line beside its verdict,
in every report that shows requirement verdicts: report.json (valid against the schema), Markdown, the HTML page's
view, its script and its ``<noscript>`` fallback."""

from __future__ import annotations

import json
import re

import pytest
from jsonschema import Draft202012Validator

from reports.html import render_html
from reports.html_view import page_view
from reports.json_report import load_schema, render_json
from reports.markdown import render_markdown
from simulator.verdicts.results import ScenarioResult, Verdict, also_of

ACK = "HOOK-FRAME-TASK-ACK-01"
LINE = "and 1 scenario could not be tested: the harness cannot see the ack's reason | <b>"


@pytest.fixture
def mixed(record):
    """The fixed record with a not-testable scenario added to the failing ``HOOK-FRAME-TASK-ACK-01``."""
    record.scenarios.append(ScenarioResult(
        "features/hook/test_hook_frames.py::test_task_ack_reason_is_observable", "features/hook/frames/tasks.feature",
        "task.ack reason is observable", ACK, "must", Verdict.NOT_TESTABLE,
        reason="the harness cannot see the ack's reason | <b>\nsecond line"))
    req = next(r for r in record.requirements if r.id == ACK)
    req.scenarios.append(record.scenarios[-1].nodeid)
    req.also = also_of([s for s in record.scenarios if s.requirement == ACK], req.verdict)
    return record


def test_the_line_names_the_count_the_words_and_the_first_line_of_the_first_reason(mixed):
    assert next(r for r in mixed.requirements if r.id == ACK).also_text() == LINE
    assert all(not r.also_text() for r in mixed.requirements if r.id != ACK)


def test_report_json_carries_it_and_stays_valid(mixed):
    doc = json.loads(render_json(mixed))
    assert not list(Draft202012Validator(load_schema()).iter_errors(doc))
    ack = next(r for r in doc["requirements"] if r["id"] == ACK)
    assert ack["verdict"] == "fail"
    assert ack["also"] == [{"verdict": "not-testable", "count": 1,
                            "reasons": ["the harness cannot see the ack's reason | <b>\nsecond line"]}]


def test_markdown_puts_it_under_the_reason_of_the_requirement(mixed):
    row = next(x for x in render_markdown(mixed).splitlines() if x.startswith(f"| {ACK} | must | fail |"))
    assert row.endswith("(it answered with task.ack \\| status=ok)<br>and 1 scenario could not be tested: the "
                        "harness cannot see the ack's reason \\| \\<b\\> |")


def test_the_html_view_gives_it_to_the_card_and_to_the_matrix_row(mixed):
    view = page_view(mixed)
    assert next(i for i in view["attention"] if i["id"] == ACK)["also"] == LINE
    assert {i["id"] for i in view["attention"] if i["also"]} == {ACK}
    assert view["also"] == {ACK: LINE}


def test_the_page_without_script_shows_it_on_the_card_and_in_the_matrix(mixed):
    page = render_html(mixed)
    noscript = page[page.index("<noscript>"):page.index("</noscript>")]
    shown = '<span class="also">and 1 scenario could not be tested: the harness cannot see the ack&#x27;s reason | ' \
            "&lt;b&gt;</span>"
    card = re.search(rf'<div class="noscript-card" data-req-id="{ACK}".*?</div>', noscript, re.S).group()
    assert f"<p>Also: {shown}</p>" in card
    row = next(x for x in noscript.splitlines() if x.startswith(f"<tr><td><code>{ACK}</code>"))
    assert row.endswith(f"fail<br>{shown}</td></tr>")
    assert 'h("dt", {text: "Also"})' in page and 'view.also[r.id]' in page  # the script renders the same view


def test_nothing_is_added_for_a_requirement_without_other_verdicts(record):
    page = render_html(record)
    assert "Also:" not in page[page.index("<noscript>"):page.index("</noscript>")]
    assert "could not be tested" not in render_markdown(record)
