"""bench/bench_triage.py's verdict lines, from figures made here (the measured runs themselves take minutes and are
the triage test's, tests/triage): a parallel run that judged differently is named, and each incomplete run is set
against the 60 s target."""

from __future__ import annotations

import io

from bench.bench_triage import TARGET_WALL_S, TriageFigure, render


def _figure(name: str, wall: float, verdicts: dict[str, str]) -> TriageFigure:
    return TriageFigure(name, wall, 10.0, 70, 1, 2022, 26, 130.0, verdicts)


def test_render_sets_each_incomplete_run_against_the_target_and_names_differing_verdicts():
    out = io.StringIO()
    render([_figure("incomplete, serial", 182.0, {"A": "fail", "B": "pass"}),
            _figure("incomplete, -n 8", 41.0, {"A": "fail", "B": "not-testable"}),
            _figure("reference, serial", 30.0, {"A": "pass", "B": "pass"})], out)
    text = out.getvalue()
    assert f"NOT MET  incomplete, serial: verdict within {TARGET_WALL_S:g} s: 182.0 s" in text
    assert f"MET      incomplete, -n 8: verdict within {TARGET_WALL_S:g} s: 41.0 s" in text
    assert "incomplete, -n 8: verdicts that differ from the serial run: B" in text
    assert "reference, serial: verdict within" not in text
