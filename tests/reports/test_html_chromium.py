"""The HTML report in a real browser: headless Chromium loads the file offline and runs its script; the test then
reads the page it built, through the DevTools protocol over a pipe (no port, no network): the overall verdict in the
header, the per-spec × level counts, the attention cards (one per requirement needing attention, before the matrix,
each with its quote, its rerun command and a collapsed wire log), the not-applicable reasons, the matrix rows, and
the hostile wire text shown as text. It saves full-page screenshots into ``REPORT_SCREENSHOT_DIR`` when set (a CI
artefacts folder), else into the test's ``tmp_path``.

Needs ``chromium`` on PATH (Debian: ``apt-get install chromium``); skipped, naming it, when it is missing.
"""

from __future__ import annotations

import base64
import json
import os
import re
import select
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from reports import render_html
from reports.html_view import page_view
from simulator.verdicts.causes import next_steps
from simulator.verdicts.results import Verdict

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)")

VERDICTS = [v.value for v in Verdict]
WIDTH, HEIGHT = 1400, 1000


class Browser:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (DevTools protocol messages, NUL-terminated JSON,
    on file descriptors 3 and 4 of the child): open a page, evaluate expressions, take screenshots."""

    def __init__(self, profile: Path) -> None:
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        cmd = [
            CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
            "--remote-debugging-pipe", f"--user-data-dir={profile}",
        ]

        def wire_fds() -> None:  # the child reads commands on fd 3 and writes answers on fd 4
            write_end = os.dup(from_child_w) if from_child_w == 3 else from_child_w
            os.dup2(to_child_r, 3)
            os.dup2(write_end, 4)

        # close_fds runs after preexec_fn: only 0-2 and the two pipe ends (as 3 and 4) reach Chromium.
        self._proc = subprocess.Popen(
            cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, pass_fds=(3, 4),
            preexec_fn=wire_fds,
        )
        os.close(to_child_r)
        os.close(from_child_w)
        self._buffer = b""
        self._next_id = 0
        self._session: str | None = None

    def _send(self, method: str, params: dict[str, Any] | None = None, session: bool = True,
              timeout: float = 60.0) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self._session:
            message["sessionId"] = self._session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self._buffer:
                raw, self._buffer = self._buffer.split(b"\0", 1)
                answer = json.loads(raw)
                if answer.get("id") == self._next_id:
                    if "error" in answer:
                        raise RuntimeError(f"{method}: {answer['error']}")
                    return answer["result"]
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_child], [], [], left)[0]:
                raise TimeoutError(f"Chromium did not answer {method} in {timeout} s")
            chunk = os.read(self._from_child, 1 << 20)
            if not chunk:
                raise RuntimeError(f"Chromium exited: {self._proc.stderr.read().decode(errors='replace')[-2000:]}")
            self._buffer += chunk

    def open(self, url: str, width: int = WIDTH, height: int = HEIGHT, scripts: bool = True) -> None:
        """Open ``url`` in a new tab and wait until the page script has finished (``data-rendered``), or, with
        ``scripts`` off, until the page has loaded."""
        target = self._send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self._session = self._send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                   session=False)["sessionId"]
        self._send("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        if not scripts:
            self._send("Emulation.setScriptExecutionDisabled", {"value": True})
        self._send("Page.navigate", {"url": url})
        done = ("document.documentElement.getAttribute('data-rendered') === 'true'" if scripts
                else "document.readyState === 'complete'")
        deadline = time.monotonic() + 30
        while True:
            try:  # while the page loads there may be no document yet, or the context is replaced
                if self.eval(f"location.href === {json.dumps(url)} && {done}"):
                    return
            except RuntimeError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"the page script did not finish: {self.eval('document.title')!r}")
            time.sleep(0.05)

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (JSON-serialisable)."""
        result = self._send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        """A PNG of the page: all of it (``full_page``) or the first screen."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            size = self._send("Page.getLayoutMetrics")["cssContentSize"]
            params |= {"captureBeyondViewport": True,
                       "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}}
        path.write_bytes(base64.b64decode(self._send("Page.captureScreenshot", params)["data"]))
        return path

    def close(self) -> None:
        try:
            self._send("Browser.close", session=False, timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        os.close(self._to_child)
        os.close(self._from_child)


@contextmanager
def browser(tmp_path: Path) -> Iterator[Browser]:
    b = Browser(tmp_path / "chromium-profile")
    try:
        yield b
    finally:
        b.close()


def screenshot_dir(tmp_path: Path) -> Path:
    """Where screenshots go: ``REPORT_SCREENSHOT_DIR`` (created) if set, else the test's ``tmp_path``."""
    out = Path(os.environ.get("REPORT_SCREENSHOT_DIR") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def assert_png(path: Path, min_height: int = 0) -> tuple[int, int]:
    """The PNG's width and height, after checking it is one and is not trivially small."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert len(data) > 20_000 and width >= 800 and height >= min_height, (path, len(data), width, height)
    return width, height


#: What the test reads from the built page, in one evaluation.
_READ_PAGE = r"""(() => {
  const text = (el) => el ? el.textContent : null;
  const top = (el) => el ? el.getBoundingClientRect().top + window.scrollY : null;
  const app = document.getElementById("app");
  return {
    verdict: text(document.getElementById("overall-verdict")),
    verdictKind: document.getElementById("overall-verdict").getAttribute("data-kind"),
    verdictTop: document.getElementById("overall-verdict").getBoundingClientRect().top,
    verdictFontSize: parseFloat(getComputedStyle(document.getElementById("overall-verdict")).fontSize),
    line: text(document.getElementById("overall-line")),
    revisions: [...document.querySelectorAll("#spec-revisions tbody tr")].map((tr) => tr.getAttribute("data-spec")),
    subjects: [...document.querySelectorAll("#subjects tbody tr")].map((tr) => tr.cells[1].textContent),
    specs: Object.fromEntries([...document.querySelectorAll("#spec-summary tbody")].map((tb) => [
      tb.getAttribute("data-spec"),
      Object.fromEntries([...tb.querySelectorAll("tr")].map((tr) => [tr.getAttribute("data-level"),
        Object.fromEntries([...tr.querySelectorAll("td.count")].map((td) => [td.getAttribute("data-verdict"),
          Number(td.textContent)]))])),
    ])),
    cards: [...document.querySelectorAll("#attention article.card")].map((c) => ({
      id: c.getAttribute("data-req-id"), verdict: c.getAttribute("data-verdict"), group: c.getAttribute("data-group"),
      quote: text(c.querySelector("blockquote.quote")), quoteLang: c.querySelector("blockquote.quote").lang,
      caption: text(c.querySelector(".clause figcaption")),
      reason: text(c.querySelector("pre.reason")),
      reproduce: text(c.querySelector(".reproduce-command")),
      scenarios: [...c.querySelectorAll("section.scenario")].map((s) => s.id),
      wireLogs: [...c.querySelectorAll("details.wire-log")].map((d) => ({open: d.open,
        rows: d.querySelectorAll("table.wire tbody tr").length,
        visibleRows: [...d.querySelectorAll("table.wire tbody tr")].filter((tr) => tr.checkVisibility()).length})),
      steps: [...c.querySelectorAll("ol.steps li")].map((li) => li.getAttribute("data-status")),
    })),
    stale: [...document.querySelectorAll("#attention ul.stale li code")].map((el) => el.textContent),
    na: [...document.querySelectorAll("#not-applicable tr.na-row")].map((tr) => ({id: tr.getAttribute("data-req-id"),
      reason: text(tr.querySelector(".na-reason"))})),
    falsifiability: text(document.getElementById("falsifiability")),
    order: [...app.children].map((el) => el.id || el.tagName.toLowerCase()),
    attentionTop: top(document.getElementById("attention")),
    nextSteps: [...document.querySelectorAll("#next-steps li.step")].map((li) => ({
      action: text(li.querySelector(".step-action")), cause: li.getAttribute("data-cause"),
      count: Number(li.getAttribute("data-count"))})),
    nextStepsTop: top(document.getElementById("next-steps")),
    facts: Object.fromEntries([...document.querySelectorAll("#run-facts dt")].map((dt) => [dt.textContent,
      text(dt.nextElementSibling)])),
    scrollWidth: document.documentElement.scrollWidth,
    matrixTop: top(document.getElementById("matrix")),
    cjkFont: getComputedStyle(document.querySelector("blockquote.quote")).fontFamily,
    monoFont: getComputedStyle(document.querySelector("pre.reason") || document.body).fontFamily,
    dom: document.documentElement.outerHTML,
  };
})()"""


class _Matrix(HTMLParser):
    """The matrix rows of a page's markup: their classes and verdict cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: dict[str, dict] = {}
        self._row: dict | None = None
        self._cell: dict | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "tr" and "req-row" in classes:
            row = {"classes": classes, "verdict": a.get("data-verdict"), "cells": []}
            self._row = self.rows[a["data-req-id"]] = row
        elif tag == "td" and self._row is not None and "cell" in classes:
            self._cell = {"classes": classes, "text": ""}
            self._row["cells"].append(self._cell)

    def handle_endtag(self, tag):
        if tag == "td":
            self._cell = None
        elif tag == "tr":
            self._row = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell["text"] += data


def _render(tmp_path: Path, record, name: str = "report.html", falsifiability: dict | None = None) -> str:
    page = render_html(record)
    if falsifiability is not None:  # what a report.json may carry: the page shows it as is
        top_level = '\n "staleBaseline":'
        assert page.count(top_level) == 1
        page = page.replace(top_level, f'\n  "falsifiability": {json.dumps(falsifiability)},{top_level}')
    path = tmp_path / name
    path.write_text(page, encoding="utf-8")
    return path.as_uri()


def test_chromium_shows_the_verdict_the_spec_table_and_what_needs_attention(tmp_path, record):
    url = _render(tmp_path, record)
    shots = screenshot_dir(tmp_path)
    with browser(tmp_path) as b:
        b.open(url)
        page = b.eval(_READ_PAGE)
        first = b.screenshot(shots / "report-first-screen.png", full_page=False)
        full = b.screenshot(shots / "report-full.png")
    assert assert_png(first) == (WIDTH, HEIGHT)
    _, full_height = assert_png(full, min_height=HEIGHT + 1)
    assert full_height > page["matrixTop"], "the full-page screenshot does not reach the matrix"

    # The header: the verdict first, big, on the first screen; subjects and spec revisions.
    assert page["verdict"] == "NOT CONFORMANT" and page["verdictKind"] == "not-conformant"
    assert page["line"] == record.overall()
    assert 0 <= page["verdictTop"] < 200 and page["verdictFontSize"] >= 32
    assert page["subjects"] == [s.target for s in record.subjects]
    assert page["revisions"] == sorted(record.spec_revisions)
    assert page["facts"]["Judged with"] == record.judged_with_text(), page["facts"]

    # Next steps: right under the run's facts, before what needs attention, one per cause, the largest first.
    assert page["nextSteps"] == [{"action": s.action, "cause": s.cause.kind.value, "count": s.count}
                                 for s in next_steps(record)] and page["nextSteps"]
    assert page["nextStepsTop"] < page["attentionTop"]
    assert page["scrollWidth"] <= WIDTH, "the page scrolls sideways at 1400 px"

    # The per-spec x level table: the fixture's counts.
    expected: dict[str, dict[str, dict[str, int]]] = {}
    for r in record.requirements:
        levels = expected.setdefault(r.spec, {lv: dict.fromkeys(VERDICTS, 0) for lv in ("must", "should", "may")})
        levels[r.level][r.verdict.value] += 1
    assert page["specs"] == expected
    assert page["specs"]["slack-hook-protocol.md"]["must"] == {
        "pass": 2, "fail": 2, "warn": 0, "review": 0, "not-applicable": 0, "not-testable": 0, "error": 1, "timeout": 1}

    # Needs attention: before the matrix, one card per requirement neither passed nor not applicable, failing first.
    assert page["order"].index("attention") < page["order"].index("all-requirements")
    assert page["attentionTop"] < page["matrixTop"]
    needing = [r for r in record.requirements if r.verdict not in (Verdict.PASS, Verdict.NOT_APPLICABLE)]
    assert sorted(c["id"] for c in page["cards"]) == sorted(r.id for r in needing)
    assert [c["id"] for c in page["cards"]] == [
        "HOOK-FRAME-TASK-ACK-01", "HOOK-FRAME-BIND-START-01", "HOOK-FRAME-TURN-END-01", "CCWEB-REPLY-MODE-01",
        "PROBEKIT-TOOLS-LIST-01", "HOOK-FRAME-BIND-REVOKE-03", "HOOK-FRAME-PING-02",
    ]
    assert [c["group"] for c in page["cards"]] == ["fails"] * 5 + ["baselined", "warn"]
    by_id = {r.id: r for r in record.requirements}
    for c in page["cards"]:
        r = by_id[c["id"]]
        assert c["verdict"] == r.verdict.value
        assert c["quote"] == r.quote and r.section in c["caption"] and r.spec in c["caption"]
        assert c["reproduce"] == record.rerun_text(r.id)
        assert all(not log["open"] and log["visibleRows"] == 0 for log in c["wireLogs"]), c
    wired = {f"scenario-{i}" for i, s in enumerate(record.scenarios) if s.wire}
    for c in page["cards"]:
        assert len(c["wireLogs"]) == len(wired.intersection(c["scenarios"])), c
    ack = next(c for c in page["cards"] if c["id"] == "HOOK-FRAME-TASK-ACK-01")
    assert ack["quoteLang"] == "zh" and ack["quote"] == "task.ack.payload.reason 不得含控制字符 | 拒收。"
    assert ack["reason"].startswith("expected the frame to be rejected at /payload/reason")
    assert ack["scenarios"] == ["scenario-3"] and ack["wireLogs"] == [{"open": False, "rows": 6, "visibleRows": 0}]
    assert ack["steps"] == ["passed", "passed", "failed", "skipped"]
    assert next(c for c in page["cards"] if c["id"] == "CCWEB-REPLY-MODE-01")["quoteLang"] == ""  # English
    assert page["stale"] == record.stale_baseline

    # Not applicable, with the reason.
    assert page["na"] == [
        {"id": "PROBEKIT-SAMPLING-01", "reason": 'the subject did not declare the capability "sampling"'}]
    assert page["falsifiability"] is None  # report.json carries none

    # CJK text falls back to Chinese faces, in prose and in monospace.
    assert "Noto Sans CJK SC" in page["cjkFont"] and "Microsoft YaHei" in page["cjkFont"]
    assert "Noto Sans Mono CJK SC" in page["monoFont"] and "WenQuanYi Micro Hei" in page["monoFont"]

    # The matrix stays: a row per requirement, the verdict's class and a mark in its column.
    dom = re.sub(r"<noscript>.*?</noscript>", "", page["dom"], flags=re.S)
    matrix = _Matrix()
    matrix.feed(dom)
    matrix.close()
    assert set(matrix.rows) == {r.id for r in record.requirements}
    for r in record.requirements:
        row = matrix.rows[r.id]
        assert "req-row" in row["classes"] and f"v-{r.verdict.value}" in row["classes"], row
        assert row["verdict"] == r.verdict.value and len(row["cells"]) == len(VERDICTS)
        hits = [i for i, c in enumerate(row["cells"]) if "hit" in c["classes"]]
        assert hits == [VERDICTS.index(r.verdict.value)], row
        assert row["cells"][hits[0]]["text"].strip() and f"v-{r.verdict.value}" in row["cells"][hits[0]]["classes"]
    # The hostile wire text reached the page as text (the lone surrogate shown as its escape), not as markup.
    assert "bad \\udc80 byte&lt;/script&gt;&lt;!-- | a&lt;b &amp; c" in dom
    assert "<script>alert" not in dom


def test_chromium_opens_a_wire_log_and_shows_falsifiability_when_present(tmp_path, record):
    figure = {"mutants": 40, "killed": 38, "score": "95%", "survivors": ["HOOK-FRAME-PING-02: latency 1.1 s"]}
    url = _render(tmp_path, record, falsifiability=figure)
    with browser(tmp_path) as b:
        b.open(url + "#scenario-3")
        section = b.eval("document.getElementById('falsifiability').textContent")
        logs = b.eval("[...document.querySelectorAll('#scenario-3 details.wire-log')].map((d) => d.open)")
        log = "document.querySelector('#req-HOOK-FRAME-TURN-END-01 details.wire-log')"
        b.eval(f"{log}.open = true")
        shown = b.eval(f"{log}.querySelector('tbody tr').checkVisibility()")
        b.screenshot(screenshot_dir(tmp_path) / "report-falsifiability.png")
    assert "Falsifiability" in section and "38" in section and "HOOK-FRAME-PING-02: latency 1.1 s" in section
    assert logs == [False]  # the card scrolls into view; its wire log stays collapsed until asked
    assert shown is True


def test_chromium_renders_a_conformant_run_and_an_unknown_command(tmp_path, record):
    for r in record.requirements:
        r.verdict, r.baselined = Verdict.PASS, False
    record.scenarios = [s for s in record.scenarios if s.verdict is Verdict.PASS]
    record.requirements[0].verdict = Verdict.REVIEW
    record.stale_baseline, record.exit_code, record.command = [], 0, []
    view = page_view(record)
    assert view["overall"]["verdict"] == "CONFORMANT"
    with browser(tmp_path) as b:
        b.open(_render(tmp_path, record))
        page = b.eval(_READ_PAGE)
    assert page["verdict"] == "CONFORMANT" and page["verdictKind"] == "conformant"
    assert [(c["id"], c["group"]) for c in page["cards"]] == [(record.requirements[0].id, "review")]
    assert "not recorded" in page["cards"][0]["reproduce"] and "--req " + record.requirements[0].id in (
        page["cards"][0]["reproduce"])
    assert page["na"] == []


def test_without_javascript_the_noscript_part_shows_the_verdict_and_attention(tmp_path, record):
    with browser(tmp_path) as b:
        b.open(_render(tmp_path, record), scripts=False)
        page = b.eval("""(() => ({
          built: document.getElementById("app").children.length,
          verdict: document.getElementById("noscript-verdict").textContent,
          verdictShown: document.getElementById("noscript-verdict").checkVisibility(),
          cards: [...document.querySelectorAll(".noscript-card")].map((c) => c.getAttribute("data-req-id")),
          quoteLang: document.querySelector(".noscript-card blockquote").lang,
        }))()""")
        shot = b.screenshot(screenshot_dir(tmp_path) / "report-noscript.png")
    assert_png(shot, min_height=HEIGHT + 1)
    assert page["built"] == 0 and page["verdict"] == "NOT CONFORMANT" and page["verdictShown"]
    assert page["cards"] == [i["id"] for i in page_view(record)["attention"]]
    assert page["quoteLang"] == "zh"
