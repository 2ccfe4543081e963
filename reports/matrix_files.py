"""The implementation matrix's edge: reading the runs it compares and writing matrix.html, matrix.json and
matrix.md (``python -m simulator report matrix``; the table itself is reports/matrix.py).

An input is a run folder (holding report.json) or a report.json file, read with ``json_report.load_report`` (valid
against the schema, else ``ReportError``: the file, the JSON pointer, what is wrong). Its column links to the
report.html beside that report.json, by a path relative to the output folder, when that file exists.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from simulator.verdicts.grades import Family, default_families

from .json_report import ReportError, load_report
from .matrix import Matrix, MatrixInput, build_matrix, render_matrix_json, to_markdown
from .matrix_html import render_matrix_html

__all__ = ["MATRIX_FILES", "report_path", "report_href", "read_inputs", "write_matrix"]

#: The files ``write_matrix`` writes: format → file name.
MATRIX_FILES = {"html": "matrix.html", "json": "matrix.json", "md": "matrix.md"}


def report_path(given: Path) -> Path:
    """The report.json an input names: the file itself, or ``report.json`` in a run folder. ``ReportError`` when
    there is neither."""
    if given.is_dir():
        inside = given / "report.json"
        if not inside.is_file():
            raise ReportError(inside, "", "no report.json in this run folder")
        return inside
    if not given.exists():
        raise ReportError(given, "", "no such file or folder (give a run folder holding report.json, or a "
                                     "report.json)")
    return given


def report_href(report_json: Path, out: Path) -> str | None:
    """The link from the folder ``out`` to the report.html beside ``report_json``, URL-quoted; None when there is no
    such file. A path no relative link reaches (another drive) becomes a ``file:`` URL."""
    page = report_json.with_name("report.html")
    if not page.is_file():
        return None
    try:
        relative = Path(os.path.relpath(page.resolve(), out.resolve())).as_posix()
    except ValueError:
        return page.resolve().as_uri()
    return quote(relative, safe="/")


def read_inputs(paths: Sequence[Path], out: Path, names: Sequence[str] = ()) -> list[MatrixInput]:
    """The matrix's inputs, in order, each loaded and validated (``ReportError`` for the first that is not a
    report). ``names``: one per input, or none (then each column is named from its run's subjects)."""
    if names and len(names) != len(paths):
        raise ValueError(f"{len(names)} --name for {len(paths)} inputs: give one per input, in order, or none")
    inputs = []
    for n, given in enumerate(paths):
        report = report_path(given)
        inputs.append(MatrixInput(load_report(report), str(report), report_href(report, out),
                                  names[n] if names else None))
    return inputs


def write_matrix(paths: Sequence[Path], out: Path, names: Sequence[str] = (),
                 families: Sequence[Family] | None = None) -> tuple[Matrix, dict[str, Path]]:
    """Build the matrix of the runs at ``paths`` and write its files into ``out`` (created when missing): all three
    are rendered before any is written. ``families``: the families table (default: the suite's,
    ``grades.default_families``)."""
    inputs = read_inputs(paths, out, names)
    matrix = build_matrix(inputs, default_families() if families is None else families)
    texts = {"html": render_matrix_html(matrix), "json": render_matrix_json(matrix),
             "md": to_markdown(matrix, MATRIX_FILES["html"])}
    out.mkdir(parents=True, exist_ok=True)
    written = {}
    for fmt, text in texts.items():
        path = out / MATRIX_FILES[fmt]
        with path.open("w", encoding="utf-8", newline="") as handle:
            handle.write(text)
        written[fmt] = path
    return matrix, written
