"""matrix.html in a real browser: headless Chromium (the DevTools pipe of tests/reports/test_html_chromium.py) opens
the matrix of the four fixture runs (tests/reports/test_matrix.py) offline, counts its cells, works its filters
(spec, level, verdict, only differing rows, reset), reads the page again with scripts off (every row shown, no
filter) and follows a failing cell's link into that run's report.html, to the requirement's card.

Needs ``chromium`` on PATH (Debian: ``apt-get install chromium``); skipped, naming it, when it is missing.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from simulator.__main__ import main
from tests.reports.test_html_chromium import CHROMIUM, Browser, screenshot_dir
from tests.reports.test_matrix import DIFFERING, EXPECTED, _runs_folder

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)")

#: What the test reads from the page, in one evaluation.
_READ = r"""(() => {
  const shown = (el) => el.checkVisibility();
  return {
    cells: document.querySelectorAll("#matrix td.cell").length,
    rows: [...document.querySelectorAll("tr.req-row")].filter(shown).map((tr) => tr.getAttribute("data-req-id")),
    specRows: [...document.querySelectorAll("tr.spec-row")].filter(shown).map((tr) => tr.getAttribute("data-spec")),
    familyRows: [...document.querySelectorAll("tr.family-row")].filter(shown).length,
    dimmed: [...document.querySelectorAll("td.cell.dim")].filter(shown).length,
    filters: shown(document.getElementById("filters")),
    status: document.getElementById("filter-status").textContent,
    empty: shown(document.getElementById("empty-note")),
    implementations: document.querySelectorAll("#implementations tr.impl-row").length,
  };
})()"""


def _click(browser: Browser, selector: str) -> None:
    browser.eval(f"document.querySelector({json.dumps(selector)}).click()")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Browser, Path]]:
    root = tmp_path_factory.mktemp("matrix-chromium")
    folders = _runs_folder(root)
    out = root / "out"
    assert main(["report", "matrix", *map(str, folders), "--out", str(out)]) == 0
    b = Browser(root / "chromium-profile")
    try:
        yield b, out / "matrix.html"
    finally:
        b.close()


def test_matrix_renders_every_cell_and_the_filters_work(page: tuple[Browser, Path], tmp_path: Path) -> None:
    browser, html = page
    browser.open(html.as_uri())
    seen: dict[str, Any] = browser.eval(_READ)
    assert seen["cells"] == 40 and seen["implementations"] == 4
    assert seen["rows"] == list(EXPECTED) and seen["filters"] and not seen["empty"]
    assert seen["status"] == "showing 10 of 10 requirements" and seen["specRows"] == ["slack-hook", "ccweb"]
    browser.screenshot(screenshot_dir(tmp_path) / "matrix.png")

    _click(browser, "input[name=spec][value=ccweb]")  # spec: hide ccweb
    seen = browser.eval(_READ)
    assert seen["rows"] == [rid for rid in EXPECTED if rid.startswith("HOOK-")] and seen["specRows"] == ["slack-hook"]

    _click(browser, "button[type=reset]")
    _click(browser, "input[name=level][value=must]")  # level: only should is left
    seen = browser.eval(_READ)
    assert seen["rows"] == ["HOOK-SERVER-AUTH-02"] and seen["familyRows"] == 1

    _click(browser, "button[type=reset]")
    for verdict in ("pass", "warn"):  # verdict: only rows some implementation failed
        _click(browser, f"input[name=verdict][value={verdict}]")
    seen = browser.eval(_READ)
    failed = [rid for rid, verdicts in EXPECTED.items() if "fail" in verdicts]
    assert seen["rows"] == failed and seen["status"] == f"showing {len(failed)} of 10 requirements"
    assert seen["dimmed"] == sum(1 for rid in failed for v in EXPECTED[rid] if v in ("pass", "warn"))

    _click(browser, "input[name=verdict][value=fail]")  # nothing left to show
    seen = browser.eval(_READ)
    assert seen["rows"] == [] and seen["empty"] and seen["specRows"] == [] and seen["familyRows"] == 0

    _click(browser, "button[type=reset]")
    _click(browser, "#only-differing")
    assert browser.eval(_READ)["rows"] == DIFFERING


def test_matrix_without_scripts_shows_every_row_and_no_filter(page: tuple[Browser, Path]) -> None:
    browser, html = page
    browser.open(html.as_uri(), scripts=False)
    seen = browser.eval(_READ)
    assert seen["cells"] == 40 and seen["rows"] == list(EXPECTED) and not seen["filters"]
    assert browser.eval("document.documentElement.getAttribute('data-rendered')") is None


def test_a_failing_cell_leads_to_the_requirements_card(page: tuple[Browser, Path]) -> None:
    browser, html = page
    browser.open(html.as_uri())
    href = browser.eval("document.querySelector('tr[data-req-id=\"HOOK-SERVER-AUTH-01\"] td.cell.v-fail a').href")
    assert href.endswith("/runs/hook-server-accepts-any-token/report.html#req-HOOK-SERVER-AUTH-01")
    browser.open(href)
    card = browser.eval("(() => { const el = document.getElementById(location.hash.slice(1));"
                        " return el && [el.tagName, el.getAttribute('data-verdict')]; })()")
    assert card == ["ARTICLE", "fail"]
