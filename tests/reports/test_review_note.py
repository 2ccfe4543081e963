"""A run with must-level reviews open says plainly that they block a release until a reader decides them, on the
console's conformance block and at the top of summary.md; a run without any says nothing of it."""

from __future__ import annotations

from reports.markdown import render_markdown
from simulator.verdicts.results import Verdict


def test_no_must_level_review_no_note(record):
    assert [r for r in record.requirements if r.verdict is Verdict.REVIEW] == []
    assert record.review_note() is None
    assert "must-level review" not in render_markdown(record)


def test_a_should_level_review_is_no_release_blocker(record):
    should = next(r for r in record.requirements if r.level == "should")
    should.verdict = Verdict.REVIEW
    assert record.review_note() is None


def test_must_level_reviews_block_a_release_until_decided(record):
    musts = [r for r in record.requirements if r.level == "must"][:2]
    for r in musts:
        r.verdict = Verdict.REVIEW
    note = record.review_note()
    assert note is not None and note.startswith("2 must-level reviews open (")
    assert all(r.id in note for r in musts) and "block a release until a reader decides each" in note
    assert "--reviews FILE" in note
    summary = render_markdown(record)
    assert summary.index("2 must-level reviews open") < summary.index("## Subjects")
