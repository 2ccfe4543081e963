"""``python -m simulator``: run, list, report, serve, and the documented exit codes."""

from __future__ import annotations

import fnmatch
import json
import subprocess
import sys
from pathlib import Path

import pytest
from conformance_runs import child_env

from simulator.__main__ import main
from simulator.verdicts.requirements import load_registry

ROOT = Path(__file__).resolve().parents[2]
#: What a run writes by default (Cucumber JSON only when ``--formats`` names it).
DEFAULT_FILES = ("report.json", "junit.xml", "summary.md", "report.html", "recording.jsonl.gz")


def cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simulator", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=timeout)


#: A selection from every feature area (the whole suite runs in-process in this same test run: features/ is a
#: test path), with a reader-judged requirement (a review) and one not applicable to the embedded reference.
SELECTION = ("HOOK-FRAME-ACK-*", "CCWEB-SCHEMA-*", "CCWEB-DESC-*", "PROBE-TOOLSET-CORE-*", "HOOK-DESKTOP-HELLO-*",
             "HOOK-SERVER-DELIVERY-*")


@pytest.fixture(scope="module")
def full_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run")
    proc = cli("run", "--report-dir", str(out), *SELECTION, "--", "-q")
    return proc, out


def test_run_against_the_reference_is_conformant_and_writes_the_default_reports(full_run):
    proc, out = full_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == sorted(DEFAULT_FILES)
    for name in DEFAULT_FILES:
        assert (out / name).stat().st_size > 0, name
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    selected = {rid for rid in registry if any(fnmatch.fnmatchcase(rid, glob) for glob in SELECTION)}
    assert {r["id"] for r in report["requirements"]} == selected
    assert {r["verdict"] for r in report["requirements"]} >= {"pass", "review", "not-applicable"}
    # A requirement whose wording only a reader can judge is a review (it neither passes nor fails the run),
    # with the material quoted; everything else passes, or is not applicable where the reference declares a
    # feature that requirement needs absent (tests/hook_server runs a server configured without them).
    for r in report["requirements"]:
        evidence = " ".join(s.get("reason", "") + " ".join(s.get("evidence", [])) for s in report["scenarios"]
                            if s["requirement"] == r["id"])
        if r["verdict"] == "review":
            assert "material to review" in evidence, r["id"]
        elif r["verdict"] != "pass":
            assert r["verdict"] == "not-applicable" and "configured without it" in evidence, (r, evidence)
    assert report["exitCode"] == 0
    # every requirement names the subject it judged; the frame requirements judged both hook subjects
    assert all(r["subjects"] for r in report["requirements"]), [r["id"] for r in report["requirements"] if not r["subjects"]]
    ack = [r for r in report["requirements"] if r["id"].startswith("HOOK-FRAME-ACK-")]
    assert ack and all({s["role"] for s in r["subjects"]} >= {"hook-server", "desktop"} for r in ack), ack
    assert not any(s["role"] == "frame-validator" for s in report["subjects"])
    assert "requirements:" in proc.stdout and str(out) in proc.stdout


@pytest.mark.parametrize("fmt, name", [("html", "report.html"), ("md", "summary.md"), ("junit", "junit.xml"),
                                       ("json", "report.json")])
def test_report_re_renders_a_saved_run(full_run, tmp_path, fmt, name):
    _, out = full_run
    target = tmp_path / name
    assert main(["report", str(out / "report.json"), "--format", fmt, "--output", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == (out / name).read_text(encoding="utf-8")


def test_report_renders_cucumber_json_from_a_saved_run(full_run, tmp_path):
    """A run writes Cucumber JSON when ``--formats`` names it; rendered later from report.json, a passing scenario
    has one ``Then verdict`` step (report.json keeps the Gherkin steps of the scenarios that did not pass)."""
    _, out = full_run
    target = tmp_path / "cucumber.json"
    assert main(["report", str(out / "report.json"), "--format", "cucumber", "--output", str(target)]) == 0
    features = json.loads(target.read_text(encoding="utf-8"))
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert sum(len(f["elements"]) for f in features) == len(report["scenarios"])
    review = next(e for f in features for e in f["elements"] if any(s["result"]["status"] == "pending"
                                                                    for s in e["steps"]))
    assert len(review["steps"]) > 1  # a scenario that did not pass keeps its real steps


def test_formats_chooses_the_files_a_run_writes(tmp_path):
    proc = cli("run", "HOOK-FRAME-ENV-VERSION-*", "--report-dir", str(tmp_path), "--formats", "junit,cucumber",
               "--", "-q")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_file()) == ["cucumber.json", "junit.xml"]


def test_report_of_a_broken_file_is_a_usage_error(tmp_path, capsys):
    bad = tmp_path / "report.json"
    bad.write_text('{"schemaVersion": "1.0"}', encoding="utf-8")
    assert main(["report", str(bad), "--format", "md"]) == 2
    assert "report.json" in capsys.readouterr().err


def test_list_prints_every_requirement_id(capsys):
    assert main(["list"]) == 0
    printed = {line.split()[0] for line in capsys.readouterr().out.splitlines() if line.strip()}
    registry, _ = load_registry(ROOT / "scenarios" / "requirements")
    assert set(registry) <= printed


def test_list_selection_and_scenarios(capsys):
    assert main(["list", "HOOK-FRAME-REOPEN-*", "--scenarios"]) == 0
    out = capsys.readouterr().out
    assert "HOOK-FRAME-REOPEN-" in out and "turns.feature:" in out
    assert "HOOK-FRAME-ACK" not in out
    assert main(["list", "NO-SUCH-*"]) == 2


def test_run_selection_by_requirement(tmp_path):
    proc = cli("run", "HOOK-FRAME-ENV-VERSION-*", "--report-dir", str(tmp_path), "--", "-q")
    assert proc.returncode == 0, proc.stdout[-2000:]
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert {r["id"] for r in report["requirements"]} and all(
        r["id"].startswith("HOOK-FRAME-ENV-VERSION-") for r in report["requirements"])


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["run", "--target", "hook-server=stdio:x", "--no-report"], "does not fit this role"),
        (["run", "NO-SUCH-REQ-*", "--no-report"], "matched no scenario"),
        (["run", "--bogus"], "unknown options --bogus"),
        (["run", "--formats", "json,pdf", "--no-report"],
         "conformance: usage error: --formats 'json,pdf': unknown report format 'pdf' (known: json, junit, md, html, "
         "cucumber, recording)"),
        (["serve", "nothing"], "no reference implementation named 'nothing'"),
    ],
)
def test_usage_errors_exit_2(args, fragment):
    proc = cli(*args, timeout=120)
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert fragment in proc.stdout + proc.stderr


def test_run_help_explains_every_option(capsys):
    """``run --help`` explains each option, not just its name."""
    assert main(["run", "--help"]) == 0
    text = capsys.readouterr().out
    from simulator.__main__ import build_parser

    run = build_parser()._subparsers._group_actions[0].choices["run"]  # the argparse tree, read not re-declared
    undocumented = [a.option_strings or a.dest for a in run._actions if not a.help]
    assert not undocumented, undocumented
    for flag in ("--target", "--control", "--subject-env", "--no-preflight", "--step-timeout"):
        assert flag in text


@pytest.mark.parametrize(("subject", "own_option"), [("hook-server", "--listen"), ("desktop", "--connect"),
                                                     ("ccweb-mcp", "--http"), ("probekit-mcp", "--http")])
def test_serve_subject_help_shows_the_subjects_own_options(subject, own_option, capsys):
    assert main(["serve", subject, "--help"]) == 0
    out = capsys.readouterr().out
    assert f"serve {subject}" in out and own_option in out, out


@pytest.mark.parametrize(("extra", "files"), [
    ([], {"features/ccweb/test_ccweb.py"}),
    # a selection of its own (a feature path) is not narrowed by the named target
    (["features/probekit"], {"features/probekit/test_probekit.py"}),
])
def test_naming_a_target_narrows_the_run_to_its_role(extra, files):
    """A run that names --target judges only that role's requirements unless a selection says otherwise."""
    cmd = [sys.executable, "-m", "simulator", "run", "--target", "ccweb=stdio:never-started", *extra,
           "--", "--collect-only", "-q"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120)
    collected = {line.split("::")[0] for line in proc.stdout.splitlines() if "::" in line}
    assert collected == files, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_list_counts_scenarios_the_way_a_run_does(capsys):
    """Outline rows count one each, a frame case once per hook subject it is sent to."""
    assert main(["list", "HOOK-FRAME-ACK-RESULT-01"]) == 0
    captured = capsys.readouterr()
    line = next(line for line in captured.out.splitlines() if line.startswith("HOOK-FRAME-ACK-RESULT-01"))
    listed = int(line.split()[2])
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", "features",
           "--req", "HOOK-FRAME-ACK-RESULT-01"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    collected = sum(1 for line in proc.stdout.splitlines() if "::" in line)
    assert listed == collected > 1, (listed, collected)


def test_run_passes_last_failed_to_pytest_with_a_cache_in_the_working_directory(tmp_path):
    """``run … -- --lf`` works: the cache is on only then, in the directory the run starts from."""
    cmd = [sys.executable, "-m", "simulator", "run", "HOOK-FRAME-ENV-VERSION-*", "--report-dir",
           str(tmp_path / "out"), "--", "-q", "--lf"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=child_env())
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert (tmp_path / ".pytest_cache").is_dir()
    plain = [sys.executable, "-m", "simulator", "run", "HOOK-FRAME-ENV-VERSION-*", "--report-dir",
             str(tmp_path / "again"), "--", "-q"]
    other = tmp_path / "plain"
    other.mkdir()
    proc = subprocess.run(plain, cwd=other, capture_output=True, text=True, timeout=300, env=child_env())
    assert proc.returncode == 0 and not (other / ".pytest_cache").exists(), proc.stdout[-2000:]


def test_list_counts_the_scenarios_of_the_profiles_and_names_the_profile(capsys):
    """A robustness or fault requirement is listed with the scenarios ``-m`` would run, never "0 scenarios"."""
    assert main(["list", "FAULT-*", "ROBUST-*"]) == 0
    captured = capsys.readouterr()
    lines = [line for line in captured.out.splitlines() if line.strip()]
    assert lines and all(int(line.split()[2]) >= 1 for line in lines), lines
    assert all(line.endswith(("(-m faults)", "(-m robustness)")) for line in lines), lines
    assert "in a profile, run only when -m names it" in captured.err
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q", "features", "-m",
           "faults", "--req", "FAULT-DESKTOP-DROP-END-01"]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
    collected = sum(1 for line in proc.stdout.splitlines() if "::" in line)
    listed = next(int(line.split()[2]) for line in lines if line.startswith("FAULT-DESKTOP-DROP-END-01"))
    assert listed == collected, (listed, collected)


def test_a_run_with_assertions_disabled_is_refused():
    """The drivers judge with assert statements: under ``python -O`` they would vanish and every check pass."""
    proc = subprocess.run([sys.executable, "-O", "-m", "pytest", "-p", "no:cacheprovider", "--collect-only", "-q",
                           "features/ccweb"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2, proc.stdout[-1500:] + proc.stderr[-1500:]  # the harness's usage error
    assert "conformance: usage error: the harness cannot judge with assertions disabled" in proc.stderr


def test_run_works_without_pytest_xdist(tmp_path):
    """pytest-xdist is a test extra, not a dependency: ``pip install .`` then ``run`` (README) must not need it."""
    cmd = [sys.executable, "-m", "simulator", "run", "HOOK-FRAME-ENV-VERSION-*", "--report-dir", str(tmp_path / "out"),
           "--", "-p", "no:xdist"]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300, env=child_env())
    assert proc.returncode == 0 and "INTERNALERROR" not in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
    assert proc.stdout.rstrip().splitlines()[-1].startswith("conformance: CONFORMANT (exit 0)")
