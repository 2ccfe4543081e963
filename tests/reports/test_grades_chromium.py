"""The grades in a real browser: headless Chromium builds the HTML report's masthead with a line per spec grade and
the family chips, near the top of the page; and it draws a badge SVG at the size the file states.

Needs ``chromium`` on PATH (Debian: ``apt-get install chromium``); skipped, naming it, when it is missing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reports import render_html
from reports.badges import badge_files
from simulator.verdicts.grades import grade_message, grade_run
from tests.reports.test_html_chromium import CHROMIUM, browser

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not installed (apt-get install chromium)")

_READ_GRADES = r"""(() => {
  const top = (el) => el ? el.getBoundingClientRect().top + window.scrollY : null;
  return {
    specs: [...document.querySelectorAll("#grades div.grade")].map((d) => ({
      name: d.getAttribute("data-name"), colour: d.getAttribute("data-colour"), text: d.textContent,
      chip: getComputedStyle(d.querySelector(".chip")).backgroundColor})),
    families: [...document.querySelectorAll("#grades ul.family-grades li")].map((li) => ({
      name: li.getAttribute("data-name"), colour: li.getAttribute("data-colour"), title: li.title,
      text: li.textContent})),
    gradesTop: top(document.getElementById("grades")),
    nextStepsTop: top(document.getElementById("next-steps")),
  };
})()"""


def test_chromium_shows_the_grades_at_the_top(tmp_path: Path, record):
    path = tmp_path / "report.html"
    path.write_text(render_html(record), encoding="utf-8")
    with browser(tmp_path) as b:
        b.open(path.as_uri())
        page = b.eval(_READ_GRADES)
    grades = grade_run(record)
    specs = [g for g in grades if g.scope == "spec"]
    assert [(s["name"], s["colour"]) for s in page["specs"]] == [(g.name, g.colour) for g in specs]
    for shown, grade in zip(page["specs"], specs, strict=True):
        assert grade.reason in shown["text"] and grade_message(grade) in shown["text"]
    assert page["specs"][0]["chip"] == "rgb(207, 34, 46)"  # red: the page's fail colour
    families = [g for g in grades if g.scope == "family"]
    assert [(f["name"], f["colour"], f["text"]) for f in page["families"]] == [
        (g.name, g.colour, g.title) for g in families]
    assert all(f["title"] == f"{g.colour}: {g.reason}" for f, g in zip(page["families"], families, strict=True))
    assert page["gradesTop"] < page["nextStepsTop"] < 1000  # in the masthead, on the first screen


def test_chromium_draws_a_badge_at_its_stated_size(tmp_path: Path, record):
    files = badge_files(record)
    (tmp_path / "badges").mkdir()
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    page = tmp_path / "badges.html"
    page.write_text('<!DOCTYPE html><img id="b" src="badges/overall.svg">', encoding="utf-8")
    with browser(tmp_path) as b:
        b.open(page.as_uri(), scripts=False)
        size = b.eval("(() => { const i = document.getElementById('b');"
                      " return [i.complete, i.naturalWidth, i.naturalHeight]; })()")
    width = int(files["badges/overall.svg"].split('width="', 1)[1].split('"', 1)[0])
    assert size == [True, width, 20]
