"""The HTML report without a browser: the embedded report.json, the noscript fallback, self-containment."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser

from reports.html import _JS, embed_json, render_html
from reports.json_report import dumps, render_json
from simulator.results import RunRecord

_EMBED = re.compile(r'<script type="application/json" id="report-data">(.*?)</script>', re.S)


def _embedded(page):
    (body,) = _EMBED.findall(page)
    return body


class _Tags(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags = []  # (tag, attrs)
        self.noscript_rows = []
        self._in_noscript = False
        self._row = None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "noscript":
            self._in_noscript = True
        elif tag == "tr" and self._in_noscript:
            self._row = []
        elif tag == "td" and self._row is not None:
            self._row.append("")

    def handle_endtag(self, tag):
        if tag == "noscript":
            self._in_noscript = False
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


def test_embedded_json_reads_back_equal_to_the_record(record):
    page = render_html(record)
    body = _embedded(page)
    assert "<" not in body and ">" not in body and "&" not in body
    data = json.loads(body)
    assert data == record.to_json()
    assert RunRecord.from_json(data) == record
    assert body == "\n" + embed_json(render_json(record))


def test_wire_log_text_is_in_report_json_and_in_the_html(record, hostile_text):
    report = render_json(record)
    page = render_html(record)
    assert json.loads(report)["scenarios"][3]["wire"][3]["text"] == hostile_text
    assert json.loads(_embedded(page))["scenarios"][3]["wire"][3]["text"] == hostile_text
    as_json_string = dumps(hostile_text).rstrip("\n")
    assert as_json_string in report
    assert embed_json(as_json_string) in page


def test_page_is_utf8_with_one_data_script_and_no_external_resource(record):
    page = render_html(record)
    page.encode("utf-8")
    assert page.startswith("<!DOCTYPE html>\n")
    tags = _parse(page).tags
    assert [t for t, _ in tags if t == "script"] == ["script", "script"]
    assert not [t for t, a in tags if t in {"link", "img", "iframe", "object", "embed", "base"}]
    assert not [a for _, a in tags if "src" in a or "href" in a]
    assert "@import" not in page and "url(" not in page
    csp = next(a["content"] for t, a in tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy")
    assert csp.startswith("default-src 'none';")
    # The script cannot end its element early.
    assert "</" not in _JS and "<!--" not in _JS


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
    page = render_html(record)
    page.encode("utf-8")
    tags = _parse(page).tags
    assert [t for t, _ in tags if t == "script"] == ["script", "script"]
    assert json.loads(_embedded(page))["requirements"][0]["id"] == hostile_text


def test_deterministic_and_accepts_the_report_dict(record):
    assert render_html(record) == render_html(record.to_json())
