"""matrix.html: the implementation matrix (reports/matrix.py) as one self-contained page, readable offline and with
scripts off.

The whole table is static HTML generated here; the page's script (``matrix_script.MATRIX_JS``) only adds the
filters, which stay hidden (``form#filters[hidden]``) when scripts do not run. The page has the same Content
Security Policy as report.html (``html.CSP``: nothing from outside, inline style and script only). Top to bottom:

* ``#implementations``: a row per implementation (``tr.impl-row[data-impl]``): its number, its name linked to its
  report.html, its subjects (role and target), its run's result, its requirement counts per verdict and "not
  judged", and its spec grades (``span.grade.g-<colour>[data-scope="spec"][data-name]``, the reason as title);
* ``#filters``: spec, level and verdict checkboxes, "only where they differ", reset, ``#filter-status``;
* ``table#matrix``: a header cell per implementation (``th.impl[data-impl]``), then per spec a ``tr.spec-row``,
  per family a ``tr.family-row`` (its title, requirement count and, per implementation, its family grade in a
  ``td.fgrade`` or "—"), and per requirement a ``tr.req-row`` (``data-req-id``, ``data-spec``, ``data-family``,
  ``data-level``, ``data-verdicts``: the verdicts the runs gave it, ``data-differs``) holding its id, level and
  summary and a ``td.cell[data-verdict]`` per implementation: the verdict (or "—", ``data-verdict="not-judged"``),
  linked to that requirement in the implementation's report.html when there is one.

All text goes through ``html_noscript.esc``; text holding CJK characters carries ``lang="zh"``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._common import HARNESS_NAME, VERDICT_LABELS, VERDICTS
from .html import page_head
from .html_noscript import esc, lang_attr
from .html_style import MONO_STACK, SANS_STACK
from .matrix import LEVELS, NOT_JUDGED, NOT_JUDGED_MARK, Cell, Implementation, Matrix, Row
from .matrix_script import MATRIX_JS

__all__ = ["render_matrix_html", "MATRIX_CSS", "MARKS"]

#: A verdict's mark before its word in a cell (those of report.html).
MARKS = {"pass": "\u2713", "fail": "\u2717", "warn": "!", "review": "R", "not-applicable": "\u2013",
         "not-testable": "?", "error": "E", "timeout": "T"}

MATRIX_CSS = """
:root {
  --pass: #1a7f37; --fail: #cf222e; --warn: #9a6700; --review: #0969da; --not-applicable: #6e7781;
  --not-testable: #8250df; --error: #a0114e; --timeout: #bc4c00;
  --green: #1a7f37; --yellow: #bf8700; --red: #cf222e;
  --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --soft: #f6f8fa; --bg: #ffffff;
}
.v-pass { --v: var(--pass); } .v-fail { --v: var(--fail); } .v-warn { --v: var(--warn); }
.v-review { --v: var(--review); } .v-not-applicable { --v: var(--not-applicable); }
.v-not-testable { --v: var(--not-testable); } .v-error { --v: var(--error); } .v-timeout { --v: var(--timeout); }
.g-green { --g: var(--green); } .g-yellow { --g: var(--yellow); } .g-red { --g: var(--red); }
html { background: var(--bg); }
[hidden] { display: none !important; }
body { margin: 0 auto; max-width: 1600px; padding: 16px 24px 48px; color: var(--fg); font: 14px/1.45 %(sans)s; }
code { font-family: %(mono)s; font-size: 12.5px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 26px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.muted { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; }
a { color: var(--review); }
table { border-collapse: collapse; }
.impls td, .impls th { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
.impls th { background: var(--soft); font-weight: 600; }
.impls td.count { text-align: right; font-variant-numeric: tabular-nums; }
.impls td.count.zero { color: var(--muted); }
.impls th.vcol { color: var(--v, var(--muted)); font-size: 12px; }
.grade { display: inline-block; margin: 1px 4px 1px 0; padding: 0 8px; border-radius: 10px; font-size: 12px;
  color: #fff; background: var(--g); white-space: nowrap; }
.filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: flex-start; margin: 8px 0 12px; }
.filters fieldset { border: 1px solid var(--line); border-radius: 6px; padding: 2px 10px 6px; margin: 0; }
.filters legend { font-size: 12px; color: var(--muted); }
.filters label { margin-right: 10px; white-space: nowrap; }
.filters .status { color: var(--muted); align-self: center; }
.matrix { width: 100%%; }
.matrix th, .matrix td { border-bottom: 1px solid var(--line); padding: 3px 6px; vertical-align: top; text-align: left; }
.matrix thead th { position: sticky; top: 0; background: var(--soft); z-index: 1; font-size: 12px;
  border-bottom: 2px solid var(--line); }
.matrix th.impl { min-width: 96px; max-width: 160px; overflow-wrap: break-word; font-weight: 600; }
.matrix tr.spec-row th { background: var(--fg); color: var(--bg); font-size: 14px; }
.matrix tr.family-row th { background: var(--soft); font-weight: 600; }
.matrix tr.family-row td.fgrade { background: color-mix(in srgb, var(--g) 18%%, var(--bg)); font-size: 12px;
  border-left: 3px solid var(--g); }
.matrix td.rid { white-space: nowrap; }
.matrix td.summary { color: var(--fg); min-width: 280px; }
.matrix tr.differs td.rid { box-shadow: inset 3px 0 var(--fail); }
.matrix td.cell { white-space: nowrap; font-size: 12.5px; color: var(--v, var(--muted));
  background: color-mix(in srgb, var(--v, transparent) 10%%, transparent); }
.matrix td.cell a { color: inherit; text-decoration: none; }
.matrix td.cell a:hover { text-decoration: underline; }
.matrix td.cell.v-fail, .matrix td.cell.v-error, .matrix td.cell.v-timeout, .matrix td.cell.v-not-testable {
  font-weight: 700; }
.matrix td.cell.dim { opacity: .3; }
.tag { font-size: 11px; border: 1px solid var(--line); border-radius: 8px; padding: 0 5px; margin-left: 4px;
  color: var(--muted); }
footer { margin-top: 24px; color: var(--muted); font-size: 12px; }
""" % {"sans": SANS_STACK, "mono": MONO_STACK}


def _text(tag: str, text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<{tag}{attr}{lang_attr(text)}>{esc(text)}</{tag}>"


def _grade_chip(scope: str, name: str, title: str, colour: str, reason: str) -> str:
    return (f'<span class="grade g-{esc(colour)}" data-scope="{esc(scope)}" data-name="{esc(name)}" '
            f'title="{esc(reason)}"{lang_attr(title)}>{esc(title)}: {esc(colour)}</span>')


def _implementations(matrix: Matrix) -> list[str]:
    impls = matrix.implementations
    used = [v for v in (*VERDICTS, NOT_JUDGED) if any(i.counts.get(v) for i in impls)]
    out = ['<section id="implementations">', f"<h2>Implementations ({len(impls)})</h2>",
           '<table class="impls"><thead><tr><th>#</th><th>implementation</th><th>subjects</th><th>result</th>']
    out.extend(f'<th class="vcol v-{esc(v)}">{esc(VERDICT_LABELS.get(v, "not judged"))}</th>' for v in used)
    out.append("<th>spec grades</th></tr></thead><tbody>")
    for n, impl in enumerate(impls, start=1):
        name = (f'<a href="{esc(impl.report_href)}">{esc(impl.name)}</a>' if impl.report_href else esc(impl.name))
        subjects = "<br>".join(f"{esc(s.role)}: <code>{esc(s.target)}</code>" for s in impl.subjects) \
            or '<span class="empty">none recorded</span>'
        counts = "".join(
            f'<td class="count{" zero" if not impl.counts.get(v) else ""}" data-verdict="{esc(v)}">'
            f"{impl.counts.get(v, 0)}</td>" for v in used)
        grades = "".join(_grade_chip(g.scope, g.name, g.title, g.colour, g.reason)
                         for g in impl.grades if g.scope == "spec") or '<span class="empty">none</span>'
        out.append(f'<tr class="impl-row" data-impl="{esc(impl.key)}"><td>{n}</td><td>{name}'
                   f'<div class="muted"><code>{esc(impl.source)}</code></div></td><td>{subjects}</td>'
                   f"<td>{esc(impl.overall)}</td>{counts}<td>{grades}</td></tr>")
    out.append("</tbody></table></section>")
    return out


def _filters(matrix: Matrix) -> list[str]:
    specs = [spec for spec, _ in matrix.groups()]
    levels = sorted({r.level for r in matrix.rows}, key=lambda lv: (LEVELS.index(lv) if lv in LEVELS else 9, lv))
    verdicts = [v for v in VERDICTS if any(c.verdict and c.verdict.value == v for r in matrix.rows for c in r.cells)]

    def boxes(name: str, legend: str, items: Sequence[tuple[str, str]]) -> str:
        inner = "".join(f'<label><input type="checkbox" name="{name}" value="{esc(value)}" checked> {esc(label)}'
                        f"</label>" for value, label in items)
        return f"<fieldset><legend>{esc(legend)}</legend>{inner}</fieldset>"

    return [
        '<form id="filters" class="filters" hidden>',
        boxes("spec", "Spec", [(s, matrix.spec_titles.get(s, s)) for s in specs]),
        boxes("level", "Level", [(lv, lv) for lv in levels]),
        boxes("verdict", "Verdict (any implementation)", [(v, VERDICT_LABELS[v]) for v in verdicts]),
        '<fieldset><legend>Rows</legend><label><input type="checkbox" id="only-differing"> only where the '
        "implementations differ</label></fieldset>",
        '<button type="reset">Reset</button><span class="status" id="filter-status"></span>',
        "</form>",
        "<noscript><p class=\"muted\">The filters need JavaScript; every requirement is shown.</p></noscript>",
    ]


def _cell(cell: Cell) -> str:
    if cell.verdict is None:
        return f'<td class="cell" data-verdict="{NOT_JUDGED}" title="not judged by this run">{NOT_JUDGED_MARK}</td>'
    v = cell.verdict.value
    text = f"{MARKS[v]} {esc(VERDICT_LABELS[v])}" + ('<span class="tag">baselined</span>' if cell.baselined else "")
    inner = f'<a href="{esc(cell.link)}">{text}</a>' if cell.link else text
    return f'<td class="cell v-{esc(v)}" data-verdict="{esc(v)}">{inner}</td>'


def _req_row(row: Row) -> str:
    judged = sorted({c.verdict.value for c in row.cells if c.verdict}, key=VERDICTS.index)
    attrs = (f'class="req-row{" differs" if row.differs else ""}" data-req-id="{esc(row.id)}" '
             f'data-spec="{esc(row.spec)}" data-family="{esc(row.family)}" data-level="{esc(row.level)}" '
             f'data-verdicts="{esc(" ".join(judged))}" data-differs="{"true" if row.differs else "false"}"')
    where = f"{row.document} {row.section}".strip()
    summary = (f'<td class="summary" title="{esc(where)}"{lang_attr(row.summary)}>{esc(row.summary)}</td>')
    return (f'<tr {attrs}><td class="rid"><code>{esc(row.id)}</code></td><td>{esc(row.level)}</td>{summary}'
            + "".join(_cell(c) for c in row.cells) + "</tr>")


def _family_cells(impls: Sequence[Implementation], family: str) -> str:
    out = []
    for impl in impls:
        grade = impl.grade("family", family)
        if grade is None:
            out.append(f'<td class="fgrade-none muted">{NOT_JUDGED_MARK}</td>')
        else:
            out.append(f'<td class="fgrade g-{esc(grade.colour)}" data-impl="{esc(impl.key)}" '
                       f'title="{esc(grade.reason)}">{esc(grade.colour)}</td>')
    return "".join(out)


def _table(matrix: Matrix) -> list[str]:
    impls = matrix.implementations
    width = 3 + len(impls)
    out = ['<table class="matrix" id="matrix"><thead><tr><th>Requirement</th><th>Level</th><th>Summary</th>']
    out.extend(f'<th class="impl" data-impl="{esc(i.key)}" title="{esc(i.overall)}">{n}. {esc(i.name)}</th>'
               for n, i in enumerate(impls, start=1))
    out.append("</tr></thead><tbody>")
    for spec, families in matrix.groups():
        count = sum(len(rows) for _, rows in families)
        title = matrix.spec_titles.get(spec, spec)
        out.append(f'<tr class="spec-row" data-spec="{esc(spec)}"><th colspan="{width}"{lang_attr(title)}>'
                   f"{esc(title)} <span>({count} requirements)</span></th></tr>")
        for family, rows in families:
            ftitle = matrix.family_titles.get(family, family)
            out.append(f'<tr class="family-row" data-spec="{esc(spec)}" data-family="{esc(family)}">'
                       f'<th colspan="3"{lang_attr(ftitle)}>{esc(ftitle)} <span class="muted">({len(rows)})</span>'
                       f"</th>{_family_cells(impls, family)}</tr>")
            out.extend(_req_row(r) for r in rows)
    out.append("</tbody></table>")
    out.append('<p id="empty-note" class="empty" hidden>No requirement matches the filters.</p>')
    return out


def render_matrix_html(matrix: Matrix) -> str:
    """The self-contained matrix.html of a matrix."""
    impls = matrix.implementations
    title = f"Implementation matrix: {len(impls)} implementations × {len(matrix.rows)} requirements"
    body = [
        "<header>", _text("h1", title),
        f'<p class="muted">Built by {esc(HARNESS_NAME)} (<code>python -m simulator report matrix</code>) from the '
        "report.json of each run. A cell is that run's verdict on the requirement, linked to it in the run's "
        f"report.html; {NOT_JUDGED_MARK}: the run did not judge it. A family row shows each implementation's grade "
        "of that family; the requirement id is marked when the implementations that judged it differ.</p>",
        "</header>",
        *_implementations(matrix),
        '<section id="requirements">', f"<h2>Requirements ({len(matrix.rows)})</h2>",
        *_filters(matrix), *_table(matrix), "</section>",
        "<footer>Self-contained: no network access; the filters are the only script.</footer>",
    ]
    return (
        page_head(title, MATRIX_CSS)
        + "\n".join(body)
        + f"\n<script>{MATRIX_JS}</script>\n"
        "</body>\n"
        "</html>\n"
    )
