"""The HTML report without a browser: the embedded data (report.json with the scenarios the page shows) and view,
what the view says (verdict, per-spec counts, attention order, reasons, rerun commands), the noscript fallback,
self-containment, the font stacks."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest

from reports.html import embed_json, page_document, render_html
from reports.html_script import JS
from reports.html_style import CSS, MONO_STACK, SANS_STACK
from reports.html_view import page_view
from reports.json_report import dumps, load_schema, render_json, report_document
from simulator.verdicts.results import Verdict

_EMBED = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)
_VIEW = re.compile(r'<script type="application/json" id="report-view">(.*?)</script>', re.S)
_NOSCRIPT = re.compile(r"<noscript>(.*?)</noscript>", re.S)


def _embedded(page):
    (body,) = _EMBED.findall(page)
    return body


def _view(page):
    (body,) = _VIEW.findall(page)
    assert "<" not in body and ">" not in body and "&" not in body
    return json.loads(body)


def _noscript(page):
    (body,) = _NOSCRIPT.findall(page)
    return body


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []  # (tag, attrs)
        self.noscript_rows = []
        self._in_noscript = False
        self._in_matrix = False
        self._row = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "noscript":
            self._in_noscript = True
        elif tag == "table" and self._in_noscript:
            self._in_matrix = dict(attrs).get("class") == "noscript-matrix"
        elif tag == "tr" and self._in_matrix:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._row.append("")

    def handle_endtag(self, tag):
        if tag == "noscript":
            self._in_noscript = False
        elif tag == "table":
            self._in_matrix = False
        elif tag == "tr" and self._row is not None:
            if self._row:
                self.noscript_rows.append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._row:
            self._row[-1] += data


def _parse(page):
    parser = _Tags()
    parser.feed(page)
    parser.close()
    return parser


def test_embedded_data_is_report_json_with_the_scenarios_the_page_shows(record):
    page = render_html(record)
    body = _embedded(page)
    assert "<" not in body and ">" not in body and "&" not in body
    data = json.loads(body)
    assert body == "\n" + embed_json(dumps(page_document(record)))
    full = report_document(record)
    shown = [i for i, s in enumerate(record.scenarios) if s.verdict not in (Verdict.PASS, Verdict.NOT_APPLICABLE)]
    assert data == {**full, "scenarios": [full["scenarios"][i] for i in shown]}
    assert _view(page)["shown"] == shown and 0 < len(shown) < len(record.scenarios)
    assert data["summary"]["scenarios"] == len(record.scenarios)  # what the page says of the others: a count


def test_wire_log_text_is_in_report_json_and_in_the_html(record, hostile_text):
    report = render_json(record)
    page = render_html(record)
    assert json.loads(report)["scenarios"][3]["wire"][3]["text"] == hostile_text
    at = _view(page)["shown"].index(3)  # the page's data holds the scenarios it shows, report.json's index in "shown"
    assert json.loads(_embedded(page))["scenarios"][at]["wire"][3]["text"] == hostile_text
    as_json_string = dumps(hostile_text).rstrip("\n")
    assert as_json_string in report
    assert embed_json(as_json_string) in page


def test_page_is_utf8_with_one_data_script_and_no_external_resource(record):
    page = render_html(record)
    page.encode("utf-8")
    assert page.startswith("<!DOCTYPE html>\n")
    tags = _parse(page).tags
    assert [(t, a.get("id")) for t, a in tags if t == "script"] == [
        ("script", "report-data"), ("script", "report-view"), ("script", None)]
    assert not [t for t, a in tags if t in {"link", "img", "iframe", "object", "embed", "base"}]
    assert not [a for _, a in tags if "src" in a or "href" in a]
    assert "@import" not in page and "url(" not in page
    csp = next(a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert csp.startswith("default-src 'none';")
    # The script cannot end its element early.
    assert "</" not in JS and "<!--" not in JS


def test_matrix_rows_come_from_javascript_and_noscript_lists_every_requirement(record):
    parsed = _parse(render_html(record))
    assert not [a for t, a in parsed.tags if t == "tr" and "data-req-id" in a]  # built in the browser
    assert [(r[0], r[3]) for r in parsed.noscript_rows] == [
        (r.id, r.verdict.value + (" (baselined)" if r.baselined else "")) for r in record.requirements
    ]
    page = render_html(record)
    assert "<p>Stale baseline entries (they fail the run):</p><ul><li><code>HOOK-FRAME-PREFS-SET-02</code>" in page


def test_hostile_text_in_server_side_parts_is_escaped(record, hostile_text):
    record.requirements[0].id = hostile_text
    record.harness_version = "0.1.0</title><script>alert(1)</script>"
    record.scenarios[3].reason = hostile_text  # a reason: in the view, the noscript attention list and the n/a list
    record.scenarios[5].reason = hostile_text
    record.requirements[2].quote = hostile_text
    record.command = ["hook-conformance", "run", "--target", "x=</script><script>alert(1)</script>"]
    page = render_html(record)
    page.encode("utf-8")
    tags = _parse(page).tags
    assert [t for t, _ in tags if t == "script"] == ["script", "script", "script"]
    assert json.loads(_embedded(page))["requirements"][0]["id"] == hostile_text
    view = _view(page)
    assert next(i for i in view["attention"] if i["id"] == "HOOK-FRAME-TASK-ACK-01")["reason"] == hostile_text
    assert view["notApplicable"][0]["reason"] == hostile_text
    assert "<script>alert" not in page and "</title><script>" not in page


def test_deterministic_and_accepts_the_report_dict(record):
    assert render_html(record) == render_html(record.to_json())


# ---- the view: what the page shows beyond report.json ---------------------------------------------------------


def test_the_embedded_view_is_page_view_of_the_record(record):
    assert _view(render_html(record)) == page_view(record)


def test_overall_verdict_is_the_one_run_record_words(record):
    overall = page_view(record)["overall"]
    assert overall == {"kind": "not-conformant", "verdict": "NOT CONFORMANT", "line": record.overall()}
    record.exit_code = 0
    assert page_view(record)["overall"]["verdict"] == "CONFORMANT"
    record.exit_code = 3
    assert page_view(record)["overall"]["verdict"] == "ERROR"
    assert page_view(record)["overall"]["kind"] == "error"
    record.exit_code = 4
    assert page_view(record)["overall"]["verdict"] == "INCOMPLETE RUN"
    record.exit_code, record.interrupted = 130, "SIGINT"
    assert page_view(record)["overall"]["verdict"] == "INTERRUPTED"
    assert page_view(record)["overall"]["kind"] == "interrupted"


def test_spec_tables_count_requirements_per_spec_and_level(record):
    tables = page_view(record)["specs"]
    assert [t["spec"] for t in tables] == ["ccweb-reply-mode.md", "mcp-probe-kit-v2.md", "slack-hook-protocol.md"]
    hook = tables[2]
    assert hook["revision"] == "2026-04-30" and hook["total"] == 7
    assert [row["level"] for row in hook["rows"]] == ["must", "should", "may"]
    assert hook["rows"][0]["counts"] == {"pass": 2, "fail": 2, "warn": 0, "review": 0, "not-applicable": 0,
                                         "not-testable": 0, "error": 1, "timeout": 1}
    assert hook["rows"][1]["counts"]["warn"] == 1 and hook["rows"][2]["total"] == 0
    probekit = tables[1]
    assert [(row["level"], row["total"]) for row in probekit["rows"]] == [("must", 1), ("should", 0), ("may", 1)]
    assert sum(t["total"] for t in tables) == len(record.requirements)


def test_attention_lists_failing_then_baselined_then_review_then_warn(record):
    record.requirements[0].verdict = Verdict.REVIEW  # HOOK-FRAME-HELLO-SHAPE-01
    items = page_view(record)["attention"]
    assert [(i["id"], i["group"]) for i in items] == [
        ("HOOK-FRAME-TASK-ACK-01", "fails"),  # fail
        ("HOOK-FRAME-BIND-START-01", "fails"),  # error
        ("HOOK-FRAME-TURN-END-01", "fails"),  # timeout
        ("CCWEB-REPLY-MODE-01", "fails"),  # not-testable, in record order
        ("PROBEKIT-TOOLS-LIST-01", "fails"),
        ("HOOK-FRAME-BIND-REVOKE-03", "baselined"),
        ("HOOK-FRAME-HELLO-SHAPE-01", "review"),
        ("HOOK-FRAME-PING-02", "warn"),
    ]
    ack = next(i for i in items if i["id"] == "HOOK-FRAME-TASK-ACK-01")
    assert ack["scenarios"] == [3] and ack["passed"] == 1
    assert ack["reason"] == record.scenarios[3].reason
    tools = next(i for i in items if i["id"] == "PROBEKIT-TOOLS-LIST-01")
    assert tools["scenarios"] == [] and tools["reason"] == "no scenario covers this requirement"


def test_strict_runs_list_warn_among_the_failures(record):
    record.strict = True
    groups = {i["id"]: i["group"] for i in page_view(record)["attention"]}
    assert groups["HOOK-FRAME-PING-02"] == "fails"


def test_the_rerun_command_is_the_runs_command_with_the_requirement(record):
    for item in page_view(record)["attention"]:
        assert item["reproduce"] == (
            "hook-conformance run --target hook-server=ws://127.0.0.1:9000/ --hook-token "
            f'"$HOOK_CONFORMANCE_TOKEN" --req {item["id"]}')
    record.command = ["hook-conformance", "run", "--target", "ccweb=stdio:srv --control {control}", "--hook-token",
                      "$HOOK_CONFORMANCE_TOKEN", "--subject-env", "probekit=A=it's here", "--target", "x="]
    assert record.rerun_text("X-01") == (
        "hook-conformance run --target 'ccweb=stdio:srv --control {control}' --hook-token "
        '"$HOOK_CONFORMANCE_TOKEN" --subject-env \'probekit=A=it\'"\'"\'s here\' --target x= --req X-01')
    record.command = []
    assert record.rerun_text("X-01") is None
    assert {i["reproduce"] for i in page_view(record)["attention"]} == {None}
    assert "The run's command is not recorded in this report" in _noscript(render_html(record))


def test_not_applicable_requirements_carry_their_reason(record):
    assert page_view(record)["notApplicable"] == [
        {"id": "PROBEKIT-SAMPLING-01", "reason": 'the subject did not declare the capability "sampling"'}]


def test_a_failing_scenario_of_no_listed_requirement_is_shown_on_its_own(record):
    assert page_view(record)["otherScenarios"] == []
    from simulator.verdicts.results import ScenarioResult

    record.scenarios.append(ScenarioResult("tests/x.py::test_x", "", "x", None, None, Verdict.FAIL, reason="boom"))
    assert page_view(record)["otherScenarios"] == [len(record.scenarios) - 1]


# ---- the noscript fallback -------------------------------------------------------------------------------------


def test_noscript_has_the_verdict_the_spec_table_attention_and_not_applicable(record):
    body = _noscript(render_html(record))
    assert '<p class="verdict k-not-conformant" id="noscript-verdict">NOT CONFORMANT</p>' in body
    assert (
        '<tr data-level="must"><th rowspan="3">slack-hook-protocol.md</th><td>must</td>'
        "<td>2</td><td>2</td><td>0</td><td>0</td><td>0</td><td>0</td><td>1</td><td>1</td><td>6</td></tr>"
    ) in body
    cards = re.findall(r'<div class="noscript-card" data-req-id="([^"]+)" data-verdict="([^"]+)">', body)
    assert cards == [(i["id"], next(r.verdict.value for r in record.requirements if r.id == i["id"]))
                     for i in page_view(record)["attention"]]
    assert '<blockquote lang="zh">task.ack.payload.reason 不得含控制字符 | 拒收。</blockquote>' in body
    assert "<blockquote>The server MUST report the reply mode.</blockquote>" in body  # English: no lang
    assert (
        "<pre><code>hook-conformance run --target hook-server=ws://127.0.0.1:9000/ --hook-token "
        "&quot;$HOOK_CONFORMANCE_TOKEN&quot; --req HOOK-FRAME-TASK-ACK-01</code></pre>"
    ) in body
    assert "<h2>Not applicable (1)</h2>" in body and "the subject did not declare the capability" in body
    assert body.index("Needs attention") < body.index("Not applicable") < body.index("All requirements")


# ---- fonts, the falsifiability figure ----------------------------------------------------------------------------


@pytest.mark.parametrize("stack", [SANS_STACK, MONO_STACK], ids=["sans", "mono"])
def test_font_stacks_fall_back_to_chinese_faces_and_embed_none(stack):
    for face in ("Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", "WenQuanYi Micro Hei"):
        assert f'"{face}"' in stack
    assert stack.rstrip().endswith(("sans-serif", "monospace"))
    assert stack in CSS and "@font-face" not in CSS and "url(" not in CSS


def test_falsifiability_is_shown_only_when_report_json_carries_it():
    schema = load_schema()["properties"]["falsifiability"]
    assert {"type": "null"} in schema["oneOf"]  # null (a record that does not know it): no section
    assert "data.falsifiability != null" in JS and "falsifiabilityTable" in JS
