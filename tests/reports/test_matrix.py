"""``report matrix``: four real runs side by side (tests/reports/matrix_fixtures/, made by its regenerate.sh): the
hook-server reference, two of its broken variants (accepts-any-token, delivered-not-reported) on six requirements,
and the ccweb reference on four. Three of them get a report.html (rendered here from their report.json); the ccweb
run has none, so its cells link nothing.

What is checked: the columns and their names, the rows (grouped by spec, family, level), every cell's verdict and
link in matrix.json and in matrix.html, the rows where the runs differ, the grades, matrix.md, the command line and
its usage errors (missing input, invalid report, wrong number of names).
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest

from reports import render_html
from reports.json_report import load_report
from reports.matrix import (
    Cell, MatrixInput, build_matrix, fallback_family, render_matrix_json, subject_name, to_json, to_markdown,
    unique_names,
)
from reports.matrix_html import render_matrix_html
from simulator.__main__ import main
from simulator.verdicts.grades import Family, default_families
from simulator.verdicts.results import RequirementResult, RunRecord, Subject, Verdict

FIXTURES = Path(__file__).parent / "matrix_fixtures"
#: The inputs in column order, and whether the test gives each a report.html.
RUNS = (("hook-server-ref", True), ("hook-server-accepts-any-token", True),
        ("hook-server-delivered-not-reported", True), ("ccweb-ref", False))
NAMES = ["simulator hook-server reference 0.1.0", "simulator hook-server reference 0.1.0 [accepts-any-token]",
         "simulator hook-server reference 0.1.0 [delivered-not-reported]", "simulator ccweb reference 0.1.0"]
HOOK_IDS = ["HOOK-SERVER-AUTH-01", "HOOK-SERVER-AUTH-02", "HOOK-SERVER-DELIVERY-01", "HOOK-SERVER-DELIVERY-02",
            "HOOK-SERVER-DELIVERY-03", "HOOK-SERVER-DELIVERY-04"]
CCWEB_IDS = ["CCWEB-SCHEMA-FIELDS-01", "CCWEB-SCHEMA-NODEFAULT-01", "CCWEB-SCHEMA-REPLYMODE-ENUM-01",
             "CCWEB-SCHEMA-REQUIRED-01"]
#: Each row's verdicts per column (None: not judged), as the fixture runs gave them.
EXPECTED = {
    "HOOK-SERVER-AUTH-01": ["pass", "fail", "pass", None],
    "HOOK-SERVER-AUTH-02": ["pass", "warn", "pass", None],
    **{f"HOOK-SERVER-DELIVERY-0{n}": ["pass", "pass", "fail", None] for n in range(1, 5)},
    **{rid: [None, None, None, "pass"] for rid in CCWEB_IDS},
}
DIFFERING = HOOK_IDS


def _runs_folder(root: Path) -> list[Path]:
    folders = []
    for name, with_html in RUNS:
        folder = root / "runs" / name
        folder.mkdir(parents=True)
        shutil.copy(FIXTURES / name / "report.json", folder / "report.json")
        if with_html:
            (folder / "report.html").write_text(render_html(load_report(folder / "report.json")), encoding="utf-8")
        folders.append(folder)
    return folders


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path], dict[str, object]]:
    """The matrix written by the command line from the four runs: (its folder, the run folders, matrix.json)."""
    root = tmp_path_factory.mktemp("matrix")
    folders = _runs_folder(root)
    out = root / "out"
    # one input given as a folder, the others as report.json files: both are inputs
    assert main(["report", "matrix", str(folders[0]), *(str(f / "report.json") for f in folders[1:]),
                 "--out", str(out)]) == 0
    return out, folders, json.loads((out / "matrix.json").read_text(encoding="utf-8"))


def test_columns_are_named_from_the_subjects_identity(built: tuple[Path, list[Path], dict]) -> None:
    _, folders, doc = built
    impls = doc["implementations"]
    assert [i["name"] for i in impls] == NAMES
    assert [i["key"] for i in impls] == ["i1", "i2", "i3", "i4"]
    assert [i["exitCode"] for i in impls] == [0, 1, 1, 0]
    assert [[s["role"] for s in i["subjects"]] for i in impls] == [["hook-server"]] * 3 + [["ccweb"]]
    assert [i["report"] for i in impls] == ["../runs/hook-server-ref/report.html",
                                            "../runs/hook-server-accepts-any-token/report.html",
                                            "../runs/hook-server-delivered-not-reported/report.html", None]


def test_every_cell_has_its_runs_verdict(built: tuple[Path, list[Path], dict]) -> None:
    _, _, doc = built
    rows = doc["rows"]
    assert len(rows) == 10 and all(len(r["cells"]) == 4 for r in rows)
    assert {r["id"]: [c["verdict"] for c in r["cells"]] for r in rows} == EXPECTED
    counts = [i["counts"] for i in doc["implementations"]]
    assert [{k: v for k, v in c.items() if v} for c in counts] == [
        {"pass": 6, "not-judged": 4}, {"pass": 4, "fail": 1, "warn": 1, "not-judged": 4},
        {"pass": 2, "fail": 4, "not-judged": 4}, {"pass": 4, "not-judged": 6}]


def test_rows_are_grouped_by_spec_family_and_level(built: tuple[Path, list[Path], dict]) -> None:
    _, _, doc = built
    rows = doc["rows"]
    assert [r["spec"] for r in rows] == ["slack-hook"] * 6 + ["ccweb"] * 4
    families = [f.key for f in default_families()]
    hook = [r for r in rows if r["spec"] == "slack-hook"]
    # the families table's order, and within a family must before should
    assert [families.index(r["family"]) for r in hook] == sorted(families.index(r["family"]) for r in hook)
    auth = [r for r in hook if r["id"].startswith("HOOK-SERVER-AUTH-")]
    assert [r["level"] for r in auth] == ["must", "should"]
    assert [s["name"] for s in doc["specs"]] == ["slack-hook", "ccweb"]
    assert sum(f["requirements"] for s in doc["specs"] for f in s["families"]) == 10
    for row in rows:  # each row's family is the first family of the table holding its id
        holder = next((f for f in default_families() if f.holds(row["id"])), None)
        assert row["family"] == (holder.key if holder else fallback_family(row["id"]))


def test_cells_link_to_the_requirement_in_each_runs_report(built: tuple[Path, list[Path], dict]) -> None:
    out, _, doc = built
    by_id = {r["id"]: r for r in doc["rows"]}
    assert by_id["HOOK-SERVER-AUTH-01"]["cells"][1]["link"] == \
        "../runs/hook-server-accepts-any-token/report.html#req-HOOK-SERVER-AUTH-01"
    assert by_id["HOOK-SERVER-AUTH-01"]["cells"][0]["link"] == "../runs/hook-server-ref/report.html#all-requirements"
    assert by_id["HOOK-SERVER-AUTH-01"]["cells"][3] == {"verdict": None, "link": None, "baselined": False}
    assert all(c["link"] is None for rid in CCWEB_IDS for c in by_id[rid]["cells"])  # that run has no report.html
    for row in doc["rows"]:
        for cell in row["cells"]:
            if cell["link"]:
                assert (out / cell["link"].split("#")[0]).is_file()
    # a failing requirement's anchor is the id of its card in report.html's script (html_script.py)
    page = (out / "../runs/hook-server-accepts-any-token/report.html").read_text(encoding="utf-8")
    assert 'id: "req-" + r.id' in page and '"id":"HOOK-SERVER-AUTH-01"' in page


def test_rows_differ_only_where_judging_runs_disagree(built: tuple[Path, list[Path], dict]) -> None:
    _, _, doc = built
    assert [r["id"] for r in doc["rows"] if r["differs"]] == DIFFERING


def test_grades_per_spec_and_family(built: tuple[Path, list[Path], dict]) -> None:
    _, _, doc = built
    spec = [{g["name"]: g["colour"] for g in i["grades"] if g["scope"] == "spec"} for i in doc["implementations"]]
    assert spec == [{"slack-hook": "green"}, {"slack-hook": "red"}, {"slack-hook": "red"}, {"ccweb": "green"}]
    red = next(g for g in doc["implementations"][1]["grades"] if g["scope"] == "spec")
    assert "HOOK-SERVER-AUTH-01" in red["reason"]
    family_rows = {r["family"] for r in doc["rows"]}
    for impl in doc["implementations"]:
        assert {g["name"] for g in impl["grades"] if g["scope"] == "family"} <= family_rows | {
            f.key for f in default_families()}


class _Page(HTMLParser):
    """The parts of matrix.html the tests count: cells, requirement rows, family grade cells, the filter form."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str | None]] = []
        self.rows: list[dict[str, str | None]] = []
        self.fgrades: list[dict[str, str | None]] = []
        self.chips: list[dict[str, str | None]] = []
        self.form: dict[str, str | None] | None = None
        self.links: list[str] = []
        self.scripts_with_src = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        if tag == "td" and "cell" in classes:
            self.cells.append(a)
        elif tag == "td" and "fgrade" in classes:
            self.fgrades.append(a)
        elif tag == "tr" and "req-row" in classes:
            self.rows.append(a)
        elif tag == "span" and "grade" in classes:
            self.chips.append(a)
        elif tag == "form":
            self.form = a
        elif tag == "a" and a.get("href"):
            self.links.append(str(a["href"]))
        elif tag in ("script", "img", "link") and a.get("src"):
            self.scripts_with_src += 1


def test_html_has_a_cell_per_run_and_requirement(built: tuple[Path, list[Path], dict]) -> None:
    out, _, doc = built
    text = (out / "matrix.html").read_text(encoding="utf-8")
    page = _Page()
    page.feed(text)
    assert len(page.rows) == 10 and len(page.cells) == 40
    assert [r["data-req-id"] for r in page.rows] == [r["id"] for r in doc["rows"]]
    verdicts = [c["data-verdict"] for c in page.cells]
    assert verdicts.count("not-judged") == 4 * 3 + 6 * 1 and verdicts.count("fail") == 5
    assert verdicts.count("warn") == 1 and verdicts.count("pass") == 40 - 18 - 6
    assert [r["data-differs"] for r in page.rows].count("true") == len(DIFFERING)
    assert [r["data-verdicts"] for r in page.rows][0] == "pass fail"
    # the filters stay hidden until the script shows them; nothing is loaded from outside
    assert page.form is not None and "hidden" in page.form
    assert page.scripts_with_src == 0 and "default-src 'none'" in text
    assert not [h for h in page.links if re.match(r"[a-z]+://", h)]
    # spec grades in the header, family grades in the family rows (one per run that has one)
    assert {(c["data-scope"], c["data-name"]) for c in page.chips} == {("spec", "slack-hook"), ("spec", "ccweb")}
    assert len(page.fgrades) == sum(1 for i in doc["implementations"] for g in i["grades"]
                                    if g["scope"] == "family" and g["name"] in {r["family"] for r in doc["rows"]})


def test_markdown_has_summary_grades_and_the_differing_rows(built: tuple[Path, list[Path], dict]) -> None:
    out, _, _ = built
    md = (out / "matrix.md").read_text(encoding="utf-8")
    assert "[matrix.html](matrix.html)" in md
    assert "| 2 | simulator hook-server reference 0.1.0 \\[accepts-any-token\\] | NOT CONFORMANT (exit 1) | 4 | 1 | 1" \
        in md
    assert "## Where they differ (6 of 10 requirements)" in md
    differing = [line for line in md.splitlines() if line.startswith("| `HOOK-SERVER-")]
    assert [line.split("`")[1] for line in differing] == DIFFERING
    family = next((f.key for f in default_families() if f.holds("HOOK-SERVER-AUTH-01")), "hook-server-auth")
    assert differing[0] == f"| `HOOK-SERVER-AUTH-01` | {family} | must | pass | **fail** | pass | \u2014 |"
    assert "\U0001f534 red: HOOK-SERVER-AUTH-01 (MUST) fails" in md


def test_console_prints_the_shape_and_the_page(built: tuple[Path, list[Path], dict], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    _, folders, _ = built
    assert main(["report", "matrix", *map(str, folders[:2]), "--out", str(tmp_path / "m")]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == ["matrix: 2 implementations × 6 requirements, 2 differing", str(tmp_path / "m" / "matrix.html")]


def test_names_given_and_duplicates_told_apart(built: tuple[Path, list[Path], dict], tmp_path: Path) -> None:
    _, folders, _ = built
    assert main(["report", "matrix", str(folders[0]), str(folders[0]), "--out", str(tmp_path / "a")]) == 0
    doc = json.loads((tmp_path / "a" / "matrix.json").read_text(encoding="utf-8"))
    assert [i["name"] for i in doc["implementations"]] == [NAMES[0], f"{NAMES[0]} (2)"]
    assert main(["report", "matrix", str(folders[0]), str(folders[3]), "--name", "ours", "--name", "ours",
                 "--out", str(tmp_path / "b")]) == 0
    doc = json.loads((tmp_path / "b" / "matrix.json").read_text(encoding="utf-8"))
    assert [i["name"] for i in doc["implementations"]] == ["ours (hook-server-ref)", "ours (ccweb-ref)"]


def test_unique_names_numbers_what_folders_cannot_tell_apart() -> None:
    assert unique_names(["a", "b", "a"], ["x/r.json", "y/r.json", "z/r.json"]) == ["a (x)", "b", "a (z)"]
    assert unique_names(["a", "a", "a (2)"], ["x/r.json", "x/r.json", "y/r.json"]) == ["a", "a (2)", "a (2) (2)"]


@pytest.mark.parametrize(("args", "expected"), [
    (["{missing}"], "{missing}: (document): no such file or folder"),
    (["{empty_dir}"], "{empty_dir}/report.json: (document): no report.json in this run folder"),
    (["{invalid}"], "{invalid}: /summary/requirements/pass: 'four' is not of type 'integer'"),
    (["{not_json}"], "{not_json}: (document): not JSON"),
    (["{good}", "--name", "one", "--name", "two"], "2 --name for 1 inputs"),
    ([], "usage:"),
])
def test_bad_inputs_are_usage_errors(args: list[str], expected: str, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    paths = {"missing": tmp_path / "nowhere", "empty_dir": tmp_path / "empty", "invalid": tmp_path / "invalid.json",
             "not_json": tmp_path / "broken.json", "good": FIXTURES / "ccweb-ref" / "report.json"}
    paths["empty_dir"].mkdir()
    doc = json.loads((FIXTURES / "ccweb-ref" / "report.json").read_text(encoding="utf-8"))
    doc["summary"]["requirements"]["pass"] = "four"
    paths["invalid"].write_text(json.dumps(doc), encoding="utf-8")
    paths["not_json"].write_text('{"schemaVersion": ', encoding="utf-8")
    words = [a.format(**{k: str(v) for k, v in paths.items()}) for a in args]
    assert main(["report", "matrix", *words, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert expected.format(**{k: str(v) for k, v in paths.items()}) in err
    assert not (tmp_path / "out").exists()


def test_an_output_folder_that_cannot_be_made_is_a_usage_error(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    assert main(["report", "matrix", str(FIXTURES / "ccweb-ref"), "--out", str(tmp_path / "a-file" / "m")]) == 2
    assert f"cannot write into {tmp_path / 'a-file' / 'm'}: " in capsys.readouterr().err


# -- the pure core ---------------------------------------------------------------------------------------------


def test_fallback_family_takes_the_ids_leading_segments() -> None:
    assert fallback_family("HOOK-SERVER-MSGOP-02") == "hook-server-msgop"
    assert fallback_family("ROBUST-HOOK-SERVER-PING-01") == "robust-hook-server"
    assert fallback_family("FAULT-DESKTOP-DROP-ACK-01") == "fault-desktop-drop"
    assert fallback_family("PROBE-TASK-RESULT-01") == "probe-task"


def test_subject_name_reads_implementation_server_info_and_variant() -> None:
    assert subject_name(Subject("ccweb", "stdio:x", {"serverInfo": {"name": "mcp-probe-kit", "version": "3.7.0"}})) \
        == "mcp-probe-kit 3.7.0"
    assert subject_name(Subject("hook-server", "ref", {"implementation": "ref", "version": "1", "variant": "v"})) \
        == "ref 1 [v]"
    assert subject_name(Subject("desktop", "listen:127.0.0.1:9100", {})) == "desktop listen:127.0.0.1:9100"


def _record(verdicts: dict[str, Verdict], summary: str = "s", subject: Subject | None = None) -> RunRecord:
    return RunRecord(
        harness_version="0", spec_revisions={}, subjects=[subject or Subject("ccweb", "ref", {})],
        started_at="2026-01-01T00:00:00+00:00", finished_at="2026-01-01T00:00:01+00:00", strict=False,
        requirements=[RequirementResult(rid, "must", "ccweb-reply-mode-prd.md", "§1", "q", summary, v)
                      for rid, v in verdicts.items()],
    )


def test_families_table_decides_the_family_and_its_order() -> None:
    table = (Family("second", "Second", ("CCWEB-B-*",)), Family("first", "First", ("CCWEB-A-*", "CCWEB-B-*")))
    matrix = build_matrix([MatrixInput(_record({"CCWEB-A-01": Verdict.PASS, "CCWEB-B-01": Verdict.FAIL,
                                                "CCWEB-C-01": Verdict.PASS}), "r.json")], table)
    assert [(r.id, r.family) for r in matrix.rows] == [("CCWEB-B-01", "second"), ("CCWEB-A-01", "first"),
                                                       ("CCWEB-C-01", "ccweb-c")]
    assert matrix.family_titles == {"second": "Second", "first": "First", "ccweb-c": "CCWEB-C-* (in no family)"}


def test_hostile_text_is_escaped_in_every_format() -> None:
    hostile = "a</script><b>x</b> | *y* 第二"
    record = _record({"CCWEB-X-01": Verdict.FAIL}, hostile, Subject("ccweb", "ref", {"implementation": hostile}))
    matrix = build_matrix([MatrixInput(record, "r.json", "r e/report.html")], ())
    page = render_matrix_html(matrix)
    assert "</script><b>" not in page and "&lt;/script&gt;&lt;b&gt;" in page
    assert 'href="r e/report.html#req-CCWEB-X-01"' in page
    assert '<td class="summary" title="ccweb-reply-mode-prd.md §1" lang="zh">' in page
    md = to_markdown(matrix)
    assert "a\\</script\\>\\<b\\>x\\</b\\> \\| \\*y\\* 第二" in md
    doc = json.loads(render_matrix_json(matrix))
    assert doc == to_json(matrix) and doc["rows"][0]["summary"] == hostile


def test_a_cell_reads_as_its_verdict_or_a_dash() -> None:
    assert Cell(None).text == "\u2014" and Cell(Verdict.NOT_TESTABLE).text == "not testable"
