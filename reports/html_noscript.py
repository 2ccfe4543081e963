"""The HTML report without JavaScript: a ``<noscript>`` block generated in Python from the same view the script
renders (``html_view.page_view``): the overall verdict, the grades, the subjects and spec revisions, the per-spec × level
table, the requirements needing attention (reason, the other non-passing verdicts of their scenarios, quoted clause,
how to reproduce), the not-applicable reasons, the stale baseline entries and every requirement with its verdict
(and that line of other verdicts). Wire logs, Gherkin steps and the filters need the script.

Every piece of text goes through ``esc`` (``visible`` then HTML escaping); text holding CJK characters is marked
``lang="zh"`` so a browser picks Chinese glyphs.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from simulator.verdicts.grades import Grade, grade_message, grade_run
from simulator.verdicts.results import RequirementResult, RunRecord, limits_of

from ._common import HARNESS_NAME, VERDICT_LABELS, VERDICTS, visible

__all__ = ["esc", "lang_attr", "render_noscript"]

#: CJK characters (radicals, punctuation, kana, ideographs, compatibility ideographs, full-width forms): text
#: holding one is marked ``lang="zh"`` (the same class as ``HAN`` in the page script).
CJK = re.compile("[\u2e80-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef]")


def esc(text: str) -> str:
    """Text made safe as HTML text or a quoted attribute value."""
    return html.escape(visible(text), quote=True)


def lang_attr(text: str) -> str:
    """`` lang="zh"`` when ``text`` holds a CJK character, else ""."""
    return ' lang="zh"' if CJK.search(text) else ""


def _span(text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<span{attr}{lang_attr(text)}>{esc(text)}</span>"


def _block(tag: str, text: str, cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<{tag}{attr}{lang_attr(text)}>{esc(text)}</{tag}>"


def _identity(identity: dict[str, Any]) -> str:
    return json.dumps(identity, ensure_ascii=False, sort_keys=True) if identity else ""


def _grades(grades: tuple[Grade, ...]) -> list[str]:
    """The grades: a line per spec (colour, name, passing count, reason), then the families with their colours."""
    if not grades:
        return []
    out = ['<div class="grades" id="noscript-grades">']
    out.extend(f'<p class="grade g-{esc(g.colour)}" data-name="{esc(g.name)}"><span class="chip">{esc(g.colour)}'
               f'</span> <code>{esc(g.name)}</code> <span class="muted">{esc(grade_message(g))}</span> '
               f'{_span(g.reason)}</p>' for g in grades if g.scope == "spec")
    families = [g for g in grades if g.scope == "family"]
    if families:
        out.append('<ul class="family-grades">')
        out.extend(f'<li class="g-{esc(g.colour)}" data-name="{esc(g.name)}" title="{esc(g.colour)}: '
                   f'{esc(g.reason)}">{esc(g.colour)}: {_span(g.title)}</li>' for g in families)
        out.append("</ul>")
    out.append("</div>")
    return out


def _header(record: RunRecord, view: dict[str, Any]) -> list[str]:
    overall = view["overall"]
    out = [
        f"<h1>Conformance report: {esc(HARNESS_NAME)} {esc(record.harness_version)}</h1>",
        f'<p class="verdict k-{esc(overall["kind"])}" id="noscript-verdict">{esc(overall["verdict"])}</p>',
        f'<p class="overall-line">{esc(overall["line"])}</p>',
        *_grades(grade_run(record)),
        f"<p>Started {esc(record.started_at)}, finished {esc(record.finished_at)}; exit code {record.exit_code}"
        + ("; strict (warn fails the run)" if record.strict else "")
        + (f"; interrupted by {esc(record.interrupted)}" if record.interrupted else "")
        + ". The full report (Gherkin steps, wire logs, filters) needs JavaScript.</p>",
        f"<p>Selected: {_span(view['selection'])}. Judged with: {_span(view['judgedWith'])}."
        + (f" Command: <code>{esc(view['command'])}</code>" if view["command"] else "") + "</p>",
    ]
    if view["nextSteps"]:
        out.append('<h2>Next steps</h2><ol class="noscript-next-steps">')
        out.extend(f'<li>{esc(step["verdict"])}: {_span(step["action"])} ({esc(", ".join(step["requirements"][:6]))}'
                   + (f" and {len(step['requirements']) - 6} more" if len(step["requirements"]) > 6 else "")
                   + ")</li>" for step in view["nextSteps"])
        out.append("</ol>")
    if record.subjects:
        out.append("<p>Subjects:</p><ul>")
        out.extend(
            f"<li>{esc(s.role)}: <code>{esc(s.target)}</code>"
            + (f" {_span(_identity(s.identity))}" if s.identity else "") + "</li>"
            for s in record.subjects
        )
        out.append("</ul>")
    if record.spec_revisions:
        out.append("<p>Spec revisions:</p><ul>")
        out.extend(
            f"<li><code>{esc(doc)}</code>: {_span(record.spec_revisions[doc])}</li>"
            for doc in sorted(record.spec_revisions)
        )
        out.append("</ul>")
    return out


def _spec_table(view: dict[str, Any]) -> list[str]:
    if not view["specs"]:
        return []
    head = "".join(f"<th>{esc(VERDICT_LABELS[v])}</th>" for v in VERDICTS)
    out = [
        "<h2>By spec and level</h2>",
        '<table class="noscript-specs">',
        f"<thead><tr><th>spec</th><th>level</th>{head}<th>total</th></tr></thead>",
    ]
    for table in view["specs"]:
        out.append(f'<tbody data-spec="{esc(table["spec"])}">')
        for i, row in enumerate(table["rows"]):
            spec = f'<th rowspan="{len(table["rows"])}">{esc(table["spec"])}</th>' if i == 0 else ""
            cells = "".join(f"<td>{row['counts'][v]}</td>" for v in VERDICTS)
            out.append(f'<tr data-level="{esc(row["level"])}">{spec}<td>{esc(row["level"])}</td>{cells}'
                       f"<td>{row['total']}</td></tr>")
        out.append("</tbody>")
    out.append("</table>")
    return out


def _attention(record: RunRecord, view: dict[str, Any], by_id: dict[str, RequirementResult]) -> list[str]:
    cards = view["attention"]
    out = [f"<h2>Needs attention ({len(cards)})</h2>"]
    if not cards:
        out.append("<p>Nothing: every requirement passed or is not applicable.</p>")
    titles = {g["group"]: g["title"] for g in view["attentionGroups"]}
    group = None
    for item in cards:
        r = by_id[item["id"]]
        if item["group"] != group:
            group = item["group"]
            out.append(f"<h3>{esc(titles[group])}</h3>")
        reproduce = (
            f"<pre><code>{esc(item['reproduce'])}</code></pre>" if item["reproduce"] is not None
            else f"<p>The run's command is not recorded in this report: rerun it with <code>--req {esc(r.id)}"
                 "</code>.</p>"
        )
        subjects = "; ".join(f"{s.get('role')} {s.get('target')}: {s.get('verdict')}" for s in r.subjects)
        also = f"<p>Also: {_span(item['also'], 'also')}</p>" if item["also"] else ""
        out.append(
            f'<div class="noscript-card" data-req-id="{esc(r.id)}" data-verdict="{esc(r.verdict.value)}">'
            f"<h4><code>{esc(r.id)}</code> {esc(r.verdict.value)}{' (baselined)' if r.baselined else ''}"
            f" ({esc(r.level)}): {_span(r.summary)}</h4>"
            f"<p>Subjects: {_span(subjects or 'none judged')}</p>"
            f"<p>Reason:</p>{_block('pre', item['reason'] or '(none recorded)')}{also}"
            f"{_block('blockquote', r.quote)}"
            f"<p>{_span(f'{r.spec} {r.section}'.strip())}</p>"
            f"<p>How to reproduce:</p>{reproduce}</div>"
        )
    if record.stale_baseline:
        out.append("<p>Stale baseline entries (they fail the run):</p><ul>"
                   + "".join(f"<li><code>{esc(e)}</code></li>" for e in record.stale_baseline) + "</ul>")
    return out


def _not_applicable(view: dict[str, Any], by_id: dict[str, RequirementResult]) -> list[str]:
    items = view["notApplicable"]
    if not items:
        return []
    out = [f"<h2>Not applicable ({len(items)})</h2>", '<ul class="noscript-na">']
    for item in items:
        r = by_id[item["id"]]
        out.append(f'<li data-req-id="{esc(r.id)}"><code>{esc(r.id)}</code> ({esc(r.level)}, '
                   f"{_span(f'{r.spec} {r.section}'.strip())}): {_span(item['reason'] or 'no reason recorded')}</li>")
    out.append("</ul>")
    return out


def _matrix(record: RunRecord) -> list[str]:
    rows = [
        f"<tr><td><code>{esc(r.id)}</code></td><td>{esc(r.level)}</td><td>{_span(f'{r.spec} {r.section}'.strip())}"
        f'</td><td class="v-{esc(r.verdict.value)}">{esc(r.verdict.value)}{" (baselined)" if r.baselined else ""}'
        + (f"<br>{_span(r.also_text(), 'also')}" if r.also else "") + "</td></tr>"
        for r in record.requirements
    ]
    return [
        f"<h2>All requirements ({len(record.requirements)})</h2>",
        '<table class="noscript-matrix">',
        "<thead><tr><th>requirement</th><th>level</th><th>spec section</th><th>verdict</th></tr></thead>",
        "<tbody>", *rows, "</tbody>", "</table>",
    ]


def _limit_row(r: dict[str, Any]) -> str:
    value = f"{r['value']:,} {r['unit']}".strip()
    subject = f"{r['role']} ({r['target']})" if r["role"] else "–"
    return (f"<tr><td>{esc(subject)}</td><td>{esc(r['name'])}</td>"
            f'<td class="num">{esc(value)}</td><td>{_span(r["note"] or "–")}</td>'
            f"<td>{esc(r['requirement'] or '–')}</td></tr>")


def _limits(record: RunRecord) -> list[str]:
    rows = [_limit_row(r) for r in limits_of(record.scenarios)]
    if not rows:
        return []
    return ["<h2>Limits</h2>", '<table class="noscript-limits">',
            "<thead><tr><th>subject</th><th>measured</th><th>value</th><th>how</th><th>requirement</th></tr></thead>",
            "<tbody>", *rows, "</tbody>", "</table>"]


def render_noscript(record: RunRecord, view: dict[str, Any]) -> str:
    """The ``<noscript>`` element of the page."""
    by_id = {r.id: r for r in record.requirements}
    parts = [
        *_header(record, view),
        *_spec_table(view),
        *_attention(record, view, by_id),
        *_not_applicable(view, by_id),
        *_limits(record),
        *_matrix(record),
    ]
    return '<noscript>\n<div class="noscript">\n' + "\n".join(parts) + "\n</div>\n</noscript>"
