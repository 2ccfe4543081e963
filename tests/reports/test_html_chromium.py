"""The HTML report in a real browser: headless Chromium loads the file offline, runs its script, and the DOM it
dumps has the JavaScript-built matrix (a row per requirement, with the verdict class and the mark in the
verdict's column) and a section per scenario that did not pass, with its wire log table.

Needs ``chromium`` on PATH (Debian: ``apt-get install chromium``); skipped, naming it, when it is missing. Set
``REPORT_SCREENSHOT=/path/shot.png`` to keep the screenshot the test takes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reports import render_html
from simulator.results import Verdict

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)")

VERDICTS = [v.value for v in Verdict]


def _chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        f"--user-data-dir={tmp_path / 'chromium-profile'}", *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False, stdin=subprocess.DEVNULL)


class _Dom(HTMLParser):
    """The JavaScript-built parts of a dumped DOM: matrix rows (their classes and cells) and scenario sections."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, dict] = {}
        self.scenarios: dict[str, dict] = {}
        self.wire_rows = 0
        self._row: dict | None = None
        self._cell: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "tr" and "data-req-id" in a:
            row = {"classes": classes, "verdict": a.get("data-verdict"), "cells": []}
            self._row = self.rows[a["data-req-id"]] = row
        elif tag == "td" and self._row is not None and "cell" in classes:
            self._cell = {"classes": classes, "text": ""}
            self._row["cells"].append(self._cell)
        elif tag == "details" and "scenario" in classes:
            self.scenarios[a["id"]] = {"classes": classes, "verdict": a.get("data-verdict")}
        elif tag == "tr" and any(c.startswith("dir-") for c in classes):
            self.wire_rows += 1

    def handle_endtag(self, tag):
        if tag == "td":
            self._cell = None
        elif tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def test_chromium_renders_the_matrix_from_the_embedded_json(tmp_path, record):
    page = tmp_path / "report.html"
    page.write_text(render_html(record), encoding="utf-8")
    url = page.as_uri()

    shot = tmp_path / "report.png"
    run = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1400,1000", url)
    assert shot.is_file() and shot.stat().st_size > 10_000, f"no screenshot: {run.stderr[-2000:]}"
    if os.environ.get("REPORT_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["REPORT_SCREENSHOT"])

    run = _chromium(tmp_path, "--dump-dom", "--virtual-time-budget=5000", url)
    dom = run.stdout
    assert 'data-rendered="true"' in dom, f"the page script did not finish: {run.stderr[-2000:]}"
    # With scripting on, <noscript> content is dumped as text: drop it so only script-built markup is counted.
    parser = _Dom()
    parser.feed(re.sub(r"<noscript>.*?</noscript>", "", dom, flags=re.S))
    parser.close()

    assert list(parser.rows) != [] and set(parser.rows) == {r.id for r in record.requirements}
    for req in record.requirements:
        row = parser.rows[req.id]
        assert "req-row" in row["classes"] and f"v-{req.verdict.value}" in row["classes"], row
        assert row["verdict"] == req.verdict.value
        assert len(row["cells"]) == len(VERDICTS)
        hits = [i for i, c in enumerate(row["cells"]) if "hit" in c["classes"]]
        assert hits == [VERDICTS.index(req.verdict.value)], row
        assert row["cells"][hits[0]]["text"].strip(), "the verdict cell has no mark"
        assert f"v-{req.verdict.value}" in row["cells"][hits[0]]["classes"]

    expected = {
        f"scenario-{i}": s.verdict.value for i, s in enumerate(record.scenarios)
        if s.verdict not in (Verdict.PASS, Verdict.NOT_APPLICABLE)
    }
    assert {k: v["verdict"] for k, v in parser.scenarios.items()} == expected
    assert parser.wire_rows == sum(len(record.scenarios[int(k.split("-")[1])].wire) for k in expected)
    # The hostile wire text reached the page as text (the lone surrogate shown as its escape), not as markup.
    assert "bad \\udc80 byte&lt;/script&gt;&lt;!-- | a&lt;b &amp; c" in dom
