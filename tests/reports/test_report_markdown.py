"""The Markdown summary: its sections, tables that keep their shape whatever the text, escaping."""

from __future__ import annotations

import re

from reports.markdown import md_cell, md_escape, render_markdown
from simulator.verdicts.results import Verdict


def _section(text, title):
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"no section {title!r}"
    return match.group(1)


def _table(block):
    """The rows of the first table of a block, as lists of cells (split on unescaped pipes)."""
    lines = [ln for ln in block.splitlines() if ln.startswith("|")]
    return [[c.strip() for c in re.split(r"(?<!\\)\|", ln)[1:-1]] for ln in lines]


def test_header_names_harness_date_result_and_subjects(record):
    text = render_markdown(record)
    assert text.startswith("# Conformance report: hook-conformance-simulator 0.1.0\n")
    assert "**Result: non-conformant** (exit code 1) · 2026-05-09 · 10 requirements, 11 scenarios" in text
    assert "| Started | 2026-05-09T10:00:00Z |" in text
    assert "| Spec slack-hook-protocol.md | 2026-04-30 |" in text
    rows = _table(_section(text, "Subjects"))
    assert rows[0] == ["role", "target", "identity"]
    assert rows[2][:2] == ["hook-server", "reference"] and "reference hook server" in rows[2][2]
    assert rows[3] == ["probekit", "python -m probekit --stdio", "–"]


def test_verdict_table_counts_every_verdict(record):
    rows = _table(_section(render_markdown(record), "Verdicts"))
    counts = {r[0]: (int(r[1]), int(r[2])) for r in rows[2:-1]}
    assert counts == {
        "pass": (2, 4), "fail": (2, 2), "warn": (1, 1), "not-applicable": (1, 1), "not-testable": (2, 1),
        "error": (1, 1), "timeout": (1, 1), "review": (0, 0),
    }
    assert rows[-1][:3] == ["**total**", "**10**", "**11**"]


def test_non_passing_table_lists_every_requirement_not_passing_worst_first(record):
    rows = _table(_section(render_markdown(record), "Requirements not passing"))
    assert rows[0] == ["id", "level", "verdict", "subjects", "spec section", "reason"]
    body = rows[2:]
    assert [r[0] for r in body] == [
        "HOOK-FRAME-TASK-ACK-01", "HOOK-FRAME-BIND-REVOKE-03", "HOOK-FRAME-BIND-START-01", "HOOK-FRAME-TURN-END-01",
        "CCWEB-REPLY-MODE-01", "PROBEKIT-TOOLS-LIST-01", "HOOK-FRAME-PING-02", "PROBEKIT-SAMPLING-01",
    ]
    assert all(len(r) == 6 for r in rows)
    ack = next(r for r in body if r[0] == "HOOK-FRAME-TASK-ACK-01")
    assert ack[3] == "(none)"  # the fixed record names no subject
    assert ack[4] == "slack-hook-protocol.md §5 阶段 2 任务"
    assert ack[5] == (
        "expected the frame to be rejected at /payload/reason, but the subject accepted it<br>"
        "(it answered with task.ack \\| status=ok)"
    )
    assert next(r for r in body if r[0] == "HOOK-FRAME-BIND-REVOKE-03")[2] == "fail (baselined)"
    assert next(r for r in body if r[0] == "PROBEKIT-TOOLS-LIST-01")[5] == "no scenario covers this requirement"


def test_stale_baseline_and_requirements_by_spec(record):
    text = render_markdown(record)
    assert "- HOOK-FRAME-PREFS-SET-02 (must, now pass): An empty prefs.set patch is rejected." in _section(
        text, "Stale baseline entries"
    )
    section = _section(text, "Requirements by spec")
    assert section.strip().startswith("10 requirements; each one, with its subjects and summary: the matrix of")
    rows = _table(section)
    assert rows[0] == ["spec", "level", "requirements", "pass", "fail", "warn", "review", "not applicable",
                       "not testable", "error", "timeout"]
    counted = {(r[0], r[1]): r[2:] for r in rows[2:]}
    by_level: dict[tuple[str, str], list[str]] = {}
    for r in record.requirements:
        by_level.setdefault((r.spec, r.level), []).append(r.verdict.value)
    assert set(counted) == set(by_level)  # a row per spec and level that has requirements
    for key, verdicts in by_level.items():
        assert int(counted[key][0]) == len(verdicts)
        assert counted[key][1:] == [str(verdicts.count(v.value)) if v.value in verdicts else "–" for v in Verdict]
    assert "A task.ack whose reason" not in text  # a summary, not a listing: each requirement is in report.html
    record.stale_baseline = []
    assert _section(render_markdown(record), "Stale baseline entries").strip() == "None."


def test_cells_survive_pipes_newlines_html_and_controls(record, hostile_text):
    record.scenarios[3].reason = hostile_text  # the reason of HOOK-FRAME-TASK-ACK-01, the first row not passing
    rows = _table(_section(render_markdown(record), "Requirements not passing"))
    assert all(len(r) == 6 for r in rows)
    cell = rows[2][5]
    assert "\n" not in cell and "\r" not in cell
    assert "\\<" in cell and "<script" not in cell and "\\|" in cell and "\\&" in cell
    assert "\\udc80" in cell and "第二行" in cell and "<br>" in cell
    assert md_cell("a\r\nb\rc\nd") == "a<br>b<br>c<br>d"
    assert md_cell("  ") == "–"
    assert md_escape("*x* _y_ `z` [l](u) ~s~") == "\\*x\\* \\_y\\_ \\`z\\` \\[l\\](u) \\~s\\~"


def test_the_falsifiability_figure_is_a_table_when_the_record_has_one(record):
    from reports.markdown import render_markdown

    assert "## Falsifiability" not in render_markdown(record)
    record.falsifiability = {"source": "scenarios/falsifiers.toml", "total": 2, "proven": 1, "rows": [
        {"family": "hook server", "level": "must", "total": 2, "proven": 1, "unproven": ["HOOK-SERVER-X-01"]}]}
    text = render_markdown(record)
    assert "## Falsifiability" in text and "1 of 2 requirements" in text
    assert "| hook server | must | 1 | 2 | HOOK-SERVER-X-01 |" in text
