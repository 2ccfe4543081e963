"""Badges of a run's grades (simulator/verdicts/grades.py): a flat SVG and a shields.io endpoint JSON per grade.

``badge_files(record)`` names every file ``write_all`` writes under ``badges/``: ``<scope>-<name>.svg`` and
``<scope>-<name>.json`` for each spec and family grade, and ``overall.svg`` / ``overall.json`` for the worst spec
grade (none when no spec has a grade). The JSON is the shields.io endpoint format
(``{"schemaVersion": 1, "label", "message", "color"}``: https://shields.io/badges/endpoint-badge), so a CI job
that publishes the file gets a live badge from ``https://img.shields.io/endpoint?url=…``; the SVG is the same
badge drawn without any service.

The SVG is written by hand (no dependency): two rectangles, the label on grey and the message on the grade's colour,
text in Verdana 11 px centred in each. Text widths are estimated per character (``text_width``), as shields.io
does with a width table; a badge wider than its text by a pixel or two is the only cost of the estimate. Every
piece of text is XML-escaped, and characters XML forbids become ``\\uXXXX`` escapes (``visible``).
"""

from __future__ import annotations

import json
import unicodedata
from xml.sax.saxutils import escape, quoteattr

from simulator.verdicts.grades import Grade, grade_message, grade_run, overall_grade
from simulator.verdicts.results import RunRecord

from ._common import visible

__all__ = ["BADGE_DIR", "COLOUR_HEX", "badge_svg", "badge_json", "badge_files", "text_width"]

#: The folder of a report directory the badges go to.
BADGE_DIR = "badges"

#: Grade colour → the fill shields.io gives the colour of that name.
COLOUR_HEX = {"green": "#97ca00", "yellow": "#dfb317", "red": "#e05d44"}
_LABEL_HEX = "#555"
#: The label of the overall badge.
OVERALL_LABEL = "conformance"

_NARROW = set("fijlrtI!'()*,-./:;[]`{|} ")
_WIDE = set("mwMW%@")


def text_width(text: str) -> float:
    """An estimate, in pixels, of ``text`` in Verdana 11 px: narrow punctuation 4, wide letters 10, capitals and
    digits 7.5, east-Asian wide characters 11, every other character 6.5."""
    width = 0.0
    for c in text:
        if unicodedata.east_asian_width(c) in ("W", "F"):
            width += 11
        elif c in _NARROW:
            width += 4
        elif c in _WIDE:
            width += 10
        elif c.isupper() or c.isdigit():
            width += 7.5
        else:
            width += 6.5
    return width


def _label(grade: Grade) -> str:
    return OVERALL_LABEL if grade.scope == "overall" else grade.name


def badge_svg(grade: Grade) -> str:
    """The flat SVG badge of a grade: its label (the spec or family key), its message (``grade_message``) on its
    colour, and its title (what a mouse-over and a screen reader give) with the reason."""
    label, message = visible(_label(grade)), visible(grade_message(grade))
    title = visible(f"{label}: {message}: {grade.colour}: {grade.reason}")
    left = round(text_width(label) + 10)
    right = round(text_width(message) + 10)
    total = left + right
    fill = COLOUR_HEX.get(grade.colour, "#9f9f9f")
    font = 'font-family="Verdana,Geneva,DejaVu Sans,sans-serif" font-size="11"'
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" '
        f"aria-label={quoteattr(f'{label}: {message}')}>"
        f"<title>{escape(title)}</title>"
        '<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/>'
        '<stop offset="1" stop-opacity=".1"/></linearGradient>'
        f'<clipPath id="r"><rect width="{total}" height="20" rx="3" fill="#fff"/></clipPath>'
        f'<g clip-path="url(#r)"><rect width="{left}" height="20" fill="{_LABEL_HEX}"/>'
        f'<rect x="{left}" width="{right}" height="20" fill="{fill}"/>'
        f'<rect width="{total}" height="20" fill="url(#s)"/></g>'
        f'<g fill="#fff" text-anchor="middle" {font}>'
        f'<text x="{left / 2:g}" y="15" fill="#010101" fill-opacity=".3">{escape(label)}</text>'
        f'<text x="{left / 2:g}" y="14">{escape(label)}</text>'
        f'<text x="{left + right / 2:g}" y="15" fill="#010101" fill-opacity=".3">{escape(message)}</text>'
        f'<text x="{left + right / 2:g}" y="14">{escape(message)}</text>'
        "</g></svg>\n"
    )


def badge_json(grade: Grade) -> str:
    """The shields.io endpoint document of a grade (``color`` is the grade's colour name, which shields.io knows)."""
    doc = {"schemaVersion": 1, "label": _label(grade), "message": grade_message(grade), "color": grade.colour}
    return json.dumps(doc, ensure_ascii=False) + "\n"


def badge_files(record: RunRecord, grades: tuple[Grade, ...] | None = None) -> dict[str, str]:
    """Path under a report directory (``badges/…``) → text, for every grade of the record (``grades``: by default
    ``grade_run(record)``) and the overall badge, in the grades' order, the overall last."""
    chosen = grade_run(record) if grades is None else grades
    out: dict[str, str] = {}
    for grade in chosen:
        out[f"{BADGE_DIR}/{grade.key}.svg"] = badge_svg(grade)
        out[f"{BADGE_DIR}/{grade.key}.json"] = badge_json(grade)
    overall = overall_grade(chosen)
    if overall is not None:
        out[f"{BADGE_DIR}/overall.svg"] = badge_svg(overall)
        out[f"{BADGE_DIR}/overall.json"] = badge_json(overall)
    return out
