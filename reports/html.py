"""A self-contained HTML report for a release manager: one file, inline CSS and JavaScript, no external resource
(a Content Security Policy forbids any), readable offline.

The page opens with the run's verdict (CONFORMANT, NOT CONFORMANT, ERROR, INTERRUPTED: ``RunRecord.overall()``),
then a table per spec × level, then every requirement needing attention (failing first, then review, then warn)
as a card with its reason, the quoted spec clause, its scenarios' evidence, Gherkin steps and wire log, and the
command that reruns it; then the not-applicable reasons, and the full requirement matrix with its filters.

Pieces:

* ``html_view.page_view``: what the page shows beyond the record (verdict, counts, attention order, reasons,
  rerun commands), computed in Python;
* ``html_script.JS``: builds the page in the browser from two embedded JSON documents, the page's data
  (``<script type="application/json" id="report-data">``, ``page_document``: report.json with only the scenarios
  the page shows, those that neither passed nor were not applicable; a full run's passing scenarios would be most of
  the page) and the view (``id="report-view"``), each with ``<``, ``>`` and ``&`` as ``\\u003c`` /
  ``\\u003e`` / ``\\u0026``, so no ``</script>`` in the data can end the element;
* ``html_noscript.render_noscript``: the same view as static HTML in ``<noscript>``;
* ``html_style.CSS``: the stylesheet (system fonts with CJK fallbacks; none embedded).

All text is inserted as text (never as markup); characters a page cannot show are ``\\uXXXX`` escapes, as in the
other reports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simulator.verdicts.results import RunRecord

from ._common import HARNESS_NAME, as_record
from .html_noscript import esc, render_noscript
from .html_script import JS
from .html_style import CSS
from .html_view import page_view, shown_indices
from .json_report import dumps, report_document

__all__ = ["render_html", "embed_json", "page_document", "page_head", "CSP"]

#: The page's Content Security Policy: nothing from outside, inline style and script only.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'"
)


def embed_json(json_text: str) -> str:
    """JSON text made safe inside an HTML ``<script>`` element (no ``</script>``, no ``<!--``); JSON readers
    decode it to the same value."""
    return json_text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def page_document(record: RunRecord) -> dict[str, Any]:
    """The page's data: ``report_document(record)`` with only the scenarios the page shows, in order
    (``html_view.shown_indices``: the view's ``shown``)."""
    doc = report_document(record)
    doc["scenarios"] = [doc["scenarios"][i] for i in shown_indices(record)]
    return doc


def page_head(title: str, css: str) -> str:
    """A self-contained page's start, up to and including ``<body>``: UTF-8, the Content-Security-Policy ``CSP``,
    the viewport, the (escaped) title and the inline style sheet (report.html and matrix.html)."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{esc(title)}</title>\n"
        f"<style>{css}</style>\n"
        "</head>\n"
        "<body>\n"
    )


def render_html(record: RunRecord | Mapping[str, Any]) -> str:
    """The self-contained HTML report of a record (or a report.json dict)."""
    record = as_record(record)
    view = page_view(record)
    title = f"{view['overall']['verdict']}: conformance report, {HARNESS_NAME} {record.harness_version} " \
        f"({record.started_at})"
    return (
        page_head(title, CSS)
        + f"{render_noscript(record, view)}\n"
        '<main id="app"></main>\n'
        f'<script type="application/json" id="report-data">\n{embed_json(dumps(page_document(record)))}</script>\n'
        f'<script type="application/json" id="report-view">\n{embed_json(dumps(view))}</script>\n'
        f"<script>{JS}</script>\n"
        "</body>\n"
        "</html>\n"
    )
