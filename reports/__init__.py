"""Report renderers: a ``RunRecord`` (``simulator.results``) in five formats.

=========  ==================  ===========================================================================
format     file                renderer
=========  ==================  ===========================================================================
json       report.json         ``json_report.render_json``: the record itself (docs/report-schema.json)
junit      junit.xml           ``junit.render_junit``: JUnit XML for CI test views
cucumber   cucumber.json       ``cucumber.render_cucumber``: Cucumber JSON for Cucumber HTML / JIRA tools
md         summary.md          ``markdown.render_markdown``: a summary for release notes
html       report.html         ``html.render_html``: one self-contained, offline HTML page
=========  ==================  ===========================================================================

Every renderer takes a ``RunRecord`` or a report.json dict and returns text; ``write_all`` writes all five.
The renderers import nothing of the harness but ``simulator.results``, ``simulator.wirelog`` and
``simulator.causes`` (the Next steps, a pure function of the record).
``json_report.load_report`` reads a report.json back (validated against the schema).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from simulator.results import RunRecord

from .cucumber import render_cucumber
from .html import render_html
from .json_report import ReportError, load_report, render_json
from .junit import render_junit
from .markdown import render_markdown

__all__ = [
    "FORMATS",
    "FILENAMES",
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
    "cucumber": render_cucumber,
    "md": render_markdown,
    "html": render_html,
}

#: Format name → the file name ``write_all`` gives it in a run's report directory.
FILENAMES: dict[str, str] = {
    "json": "report.json",
    "junit": "junit.xml",
    "cucumber": "cucumber.json",
    "md": "summary.md",
    "html": "report.html",
}


def write_all(record: RunRecord | Mapping[str, Any], directory: str | Path) -> dict[str, Path]:
    """Render every format into ``directory`` (created if missing; files replaced); format → path written.

    Everything is rendered before the first file is written, so a renderer that fails leaves no partial set."""
    directory = Path(directory)
    texts = {fmt: render(record) for fmt, render in FORMATS.items()}
    directory.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for fmt, text in texts.items():
        path = directory / FILENAMES[fmt]
        path.write_text(text, encoding="utf-8", newline="")
        written[fmt] = path
    return written
