"""Report renderers: a ``RunRecord`` (``simulator.verdicts.results``) in five formats.

=========  ==================  ===========================================================================
format     file                renderer
=========  ==================  ===========================================================================
json       report.json         ``json_report.render_json``: the record itself (docs/report-schema.json)
junit      junit.xml           ``junit.render_junit``: JUnit XML for CI test views
md         summary.md          ``markdown.render_markdown``: a summary for release notes
html       report.html         ``html.render_html``: one self-contained, offline HTML page
cucumber   cucumber.json       ``cucumber.render_cucumber``: Cucumber JSON for Cucumber HTML / JIRA tools
=========  ==================  ===========================================================================

Every renderer takes a ``RunRecord`` or a report.json dict and returns text; ``write_all`` writes the formats it
is given, by default ``DEFAULT_FORMATS``: every one but Cucumber JSON, which only Cucumber tooling reads and which is
the largest (every step of every scenario: 4.1 MB for a full run against the references). Whatever the formats, it
writes the grades' badges too (``badges.badge_files``: ``badges/<scope>-<name>.svg`` and ``.json``, and
``badges/overall.svg`` / ``.json``).
The renderers import nothing of the harness but ``simulator.verdicts.results``, ``simulator.wirelog``,
``simulator.verdicts.causes`` (the Next steps) and ``simulator.verdicts.grades`` (the grades), pure functions of the
record.
``json_report.load_report`` reads a report.json back (validated against the schema).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from simulator.verdicts.results import RunRecord

from ._common import as_record
from .badges import BADGE_DIR, badge_files
from .cucumber import render_cucumber
from .html import render_html
from .json_report import ReportError, load_report, render_json
from .junit import render_junit
from .markdown import render_markdown

__all__ = [
    "FORMATS",
    "FILENAMES",
    "DEFAULT_FORMATS",
    "BADGES",
    "ReportError",
    "load_report",
    "render_json",
    "render_junit",
    "render_cucumber",
    "render_markdown",
    "render_html",
    "write_all",
]

Renderer = Callable[[RunRecord | Mapping[str, Any]], str]

#: Format name → renderer.
FORMATS: dict[str, Renderer] = {
    "json": render_json,
    "junit": render_junit,
    "md": render_markdown,
    "html": render_html,
    "cucumber": render_cucumber,
}

#: Format name → the file name ``write_all`` gives it in a run's report directory.
FILENAMES: dict[str, str] = {
    "json": "report.json",
    "junit": "junit.xml",
    "md": "summary.md",
    "html": "report.html",
    "cucumber": "cucumber.json",
}

#: What ``write_all`` writes unless told otherwise (``--formats`` adds ``cucumber``).
DEFAULT_FORMATS: tuple[str, ...] = ("json", "junit", "md", "html")

#: The key of ``write_all``'s answer that names the badges' folder (written whatever the formats).
BADGES = "badges"


def write_all(record: RunRecord | Mapping[str, Any], directory: str | Path,
              formats: Iterable[str] = DEFAULT_FORMATS) -> dict[str, Path]:
    """Render ``formats`` (names of ``FORMATS``) into ``directory`` (created if missing; files replaced), and the
    grades' badges into ``directory/badges/`` (``badges.badge_files``; no folder when the run graded no scope, and
    badges of scopes an earlier run there graded are removed); format → path written, in ``FORMATS`` order, then
    ``BADGES`` → the badges' folder when it was written.

    Everything is rendered before the first file is written, so a renderer that fails leaves no partial set."""
    directory = Path(directory)
    chosen = set(formats)
    unknown = sorted(chosen - FORMATS.keys())
    if unknown:
        raise ValueError(f"unknown report format {unknown[0]!r} (known: {', '.join(FORMATS)})")
    record = as_record(record)
    texts = {fmt: render(record) for fmt, render in FORMATS.items() if fmt in chosen}
    badges = badge_files(record)
    directory.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for fmt, text in texts.items():
        path = directory / FILENAMES[fmt]
        path.write_text(text, encoding="utf-8", newline="")
        written[fmt] = path
    folder = directory / BADGE_DIR
    for stale in [*folder.glob("*.svg"), *folder.glob("*.json")]:
        if f"{BADGE_DIR}/{stale.name}" not in badges:  # a scope an earlier run into this directory graded
            stale.unlink()
    if badges:
        folder.mkdir(exist_ok=True)
        for name, text in badges.items():
            (directory / name).write_text(text, encoding="utf-8", newline="")
        written[BADGES] = folder
    return written
