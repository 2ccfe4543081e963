"""The harness plugin end to end, on a small project of its own run by pytester: verdicts, timeouts that do not
stop the run, not-applicable, not-testable, the baseline and its stale entries, and the reports."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
from pytester_project import make_project

pytest_plugins = ["pytester"]

REGISTRY = """
[[requirement]]
id = "T-PASS-01"
level = "must"
spec = "demo.md"
section = "§1"
quote = "it holds"
summary = "a requirement that holds"

[[requirement]]
id = "T-FAIL-01"
level = "must"
spec = "demo.md"
section = "§2"
quote = "it must hold"
summary = "a MUST that does not hold"

[[requirement]]
id = "T-WARN-01"
level = "should"
spec = "demo.md"
section = "§3"
quote = "it should hold"
summary = "a SHOULD that does not hold"

[[requirement]]
id = "T-NA-01"
level = "must"
spec = "demo.md"
section = "§4"
quote = "when the feature is declared"
summary = "depends on an undeclared capability"

[[requirement]]
id = "T-NT-01"
level = "must"
spec = "demo.md"
section = "§5"
quote = "observable through the control API"
summary = "needs a control API the subject lacks"

[[requirement]]
id = "T-SLOW-01"
level = "must"
spec = "demo.md"
section = "§6"
quote = "answers"
summary = "a subject that never answers"

[[requirement]]
id = "T-NA-02"
level = "must"
spec = "demo.md"
section = "§4"
quote = "only when welcome.features has turn-reopen-v1"
summary = "a real server role that does not declare the feature"

[[requirement]]
id = "T-SLOW-02"
level = "must"
spec = "demo.md"
section = "§6"
quote = "welcome answers hello"
summary = "a real WebSocket server that never welcomes"

[[requirement]]
id = "T-AFTER-01"
level = "must"
spec = "demo.md"
section = "§7"
quote = "still runs"
summary = "runs after the timeout"
"""

FEATURE = """
@subject:hook-server
Feature: demo

  @req:T-PASS-01 @must
  Scenario: holds
    Then all is well

  @req:T-FAIL-01 @must
  Scenario: breaks a must
    Then the subject answers "pong"

  @req:T-WARN-01 @should
  Scenario: breaks a should
    Then the subject answers "pong"

  @req:T-NA-01 @must
  Scenario: needs a capability
    Then the subject declares "turn-reopen-v1"

  @req:T-NT-01 @must
  Scenario: needs the control API
    Then the channel shows the message

  @req:T-SLOW-01 @must
  Scenario: subject never answers
    Then the silent subject answers

  @req:T-NA-02 @must
  Scenario: a real server without the feature
    Then a server that declares no features makes the reopen requirement not applicable

  @req:T-SLOW-02 @must
  Scenario: a real server that never welcomes
    Then the hello to a silent server is answered

  @req:T-AFTER-01 @must
  Scenario: runs after the timeout
    Then all is well
"""

STEPS = '''
import os
import socket

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.subjects.control import no_control
from simulator.roles import DesktopRole, ServerRole
from simulator.errors import NotApplicable
from simulator.wirelog import Direction

bdd.scenarios("demo.feature")


@bdd.then("all is well")
def all_is_well():
    pass


@bdd.then(parsers.parse('the subject answers "{want}"'))
def subject_answers(wire_log, want):
    wire_log.record("desktop-sim", Direction.SENT, "hook", '{"type":"ping","note":"</script> | <b>"}', summary="ping")
    wire_log.record("desktop-sim", Direction.RECEIVED, "hook", "WIRE-EVIDENCE-\\u00e9", verdict="ok", summary="pang")
    assert "pang" == want, "the subject answered pang"


@bdd.then(parsers.parse('the subject declares "{feature}"'))
def declares(feature):
    raise NotApplicable(f"the server does not declare {feature} in welcome.features")


@bdd.then("the channel shows the message")
def channel_shows():
    no_control("hook-server").call("read-channel-messages")


@bdd.then("a server that declares no features makes the reopen requirement not applicable")
def server_without_feature(wire_log, harness_config):
    with ServerRole(wire=wire_log, step_timeout=harness_config.step_timeout) as server, \
            DesktopRole(wire=wire_log, step_timeout=harness_config.step_timeout) as desktop:
        url = server.listen()
        desktop.connect(url)
        server.accept()
        desktop.hello(expect_welcome=False)
        server.expect_hello()
        server.welcome(features=[])
        desktop.expect_welcome()
        desktop.require_feature("turn-reopen-v1")


@bdd.then("the hello to a silent server is answered")
def silent_server(wire_log, harness_config):
    with ServerRole(wire=wire_log, step_timeout=harness_config.step_timeout) as server, \
            DesktopRole(wire=wire_log, step_timeout=harness_config.step_timeout) as desktop:
        url = server.listen()
        desktop.connect(url)
        desktop.hello()  # the server never welcomes: the step times out


@bdd.then("the silent subject answers")
def silent_subject():
    sock = socket.create_connection(("127.0.0.1", int(os.environ["SILENT_PORT"])))
    sock.recv(1)  # the subject never answers: only the scenario time limit ends this
'''

@pytest.fixture
def silent_server(monkeypatch):
    """A TCP server that accepts and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def loop():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
                accepted.append(conn)
            except OSError:
                continue

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    monkeypatch.setenv("SILENT_PORT", str(server.getsockname()[1]))
    yield
    stop.set()
    thread.join(2)
    for conn in accepted:
        conn.close()
    server.close()


@pytest.fixture
def demo(pytester: pytest.Pytester, silent_server):
    return make_project(pytester, REGISTRY, FEATURE, STEPS)


def run(demo: pytest.Pytester, *args: str):
    out = demo.path / "out"
    started = time.monotonic()
    result = demo.runpytest_subprocess("--report-dir", str(out), "--scenario-timeout", "2", "--step-timeout", "1",
                                       *args, timeout=120)
    elapsed = time.monotonic() - started
    report = json.loads((out / "report.json").read_text(encoding="utf-8")) if (out / "report.json").exists() else None
    return result, report, elapsed, out


def verdicts(report) -> dict[str, str]:
    return {r["id"]: r["verdict"] for r in report["requirements"]}


def test_verdicts_reports_and_exit_code(demo):
    result, report, elapsed, out = run(demo)
    assert verdicts(report) == {
        "T-PASS-01": "pass",
        "T-FAIL-01": "fail",
        "T-WARN-01": "warn",
        "T-NA-01": "not-applicable",
        "T-NT-01": "not-testable",
        "T-SLOW-01": "timeout",
        "T-NA-02": "not-applicable",
        "T-SLOW-02": "fail",  # alive (it answers WebSocket pings) but never welcomes: "no welcome within 1 s"
        "T-AFTER-01": "pass",  # the run went on after the wedged subjects
    }
    assert result.ret == 1
    assert report["exitCode"] == 1
    slow = next(s for s in report["scenarios"] if s["requirement"] == "T-SLOW-01")
    assert slow["durationSeconds"] < 2 + 1.5, "the timeout verdict came within its limit"
    assert elapsed < 60
    silent = next(s for s in report["scenarios"] if s["requirement"] == "T-SLOW-02")
    assert silent["durationSeconds"] < 1 + 1 + 1.5, "the step limit and the liveness ping came within their limits"
    assert "no welcome frame" in silent["reason"] and "alive" in silent["reason"], silent["reason"]
    assert any(e["summary"] == "hello" and e["direction"] == "sent" for e in silent["wire"])
    na2 = next(s for s in report["scenarios"] if s["requirement"] == "T-NA-02")
    assert "turn-reopen-v1" in na2["reason"]
    na = next(s for s in report["scenarios"] if s["requirement"] == "T-NA-01")
    assert "turn-reopen-v1" in na["reason"]
    nt = next(s for s in report["scenarios"] if s["requirement"] == "T-NT-01")
    assert nt["reason"].startswith("Not testable:") and "control API" in nt["reason"]
    # the wire log of the failing scenario is in report.json and in the HTML report
    failing = next(s for s in report["scenarios"] if s["requirement"] == "T-FAIL-01")
    assert any("WIRE-EVIDENCE-" in e["text"] for e in failing["wire"])
    html = (out / "report.html").read_text(encoding="utf-8")
    assert "WIRE-EVIDENCE-" in html
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == [
        "junit.xml", "recording.jsonl.gz", "report.html", "report.json", "summary.md"]  # the default formats
    for path in out.iterdir():
        assert not path.is_file() or path.stat().st_size > 0, path
    result.stdout.fnmatch_lines(["*conformance*", "*reports: *out*"])


def test_formats_chooses_the_report_files(demo):
    result, report, _, out = run(demo, "--formats=html,cucumber,recording", "--req", "T-PASS-01")
    assert result.ret == 0 and report is None
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == ["cucumber.json", "recording.jsonl.gz",
                                                                   "report.html"]
    result.stdout.fnmatch_lines(["*reports: *out*"])


def test_an_unknown_format_is_a_usage_error(demo):
    result = demo.runpytest_subprocess("--formats=json,xml", timeout=60)
    assert result.ret == 2  # the harness's usage error, as under python -m simulator run
    result.stderr.fnmatch_lines(["*conformance: usage error: --formats 'json,xml': unknown report format 'xml' "
                                 "(known: json, junit, md, html, cucumber, recording)*"])


def test_strict_turns_the_warning_into_a_failure(demo):
    _, report, _, _ = run(demo, "--strict-conformance", "--req", "T-WARN-01")
    assert verdicts(report) == {"T-WARN-01": "fail"}
    assert report["exitCode"] == 1


def test_warning_alone_is_conformant(demo):
    result, report, _, _ = run(demo, "--req", "T-WARN-01", "--req", "T-PASS-01", "--req", "T-NA-01")
    assert result.ret == 0 and report["exitCode"] == 0


def test_baseline_hides_known_failures_and_flags_stale_entries(demo):
    baseline = demo.path / "baseline.toml"
    baseline.write_text('[[expected]]\nrequirement = "T-FAIL-01"\nreason = "known"\n', encoding="utf-8")
    result, report, _, _ = run(demo, "--baseline", str(baseline), "--req", "T-FAIL-01", "--req", "T-PASS-01")
    assert result.ret == 0, result.stdout.str()
    assert next(r for r in report["requirements"] if r["id"] == "T-FAIL-01")["baselined"] is True
    result.stdout.fnmatch_lines(["*1 xfailed*"])

    baseline.write_text('[[expected]]\nrequirement = "T-PASS-01"\n', encoding="utf-8")
    result, report, _, _ = run(demo, "--baseline", str(baseline), "--req", "T-PASS-01")
    assert result.ret == 1
    assert report["staleBaseline"] == ["requirement T-PASS-01"]
    result.stdout.fnmatch_lines(["*stale baseline*T-PASS-01*"])


def test_write_baseline_then_use_it(demo):
    written = demo.path / "written.toml"
    run(demo, "--write-baseline", str(written), "--req", "T-FAIL-01", "--req", "T-NT-01")
    text = written.read_text(encoding="utf-8")
    assert 'requirement = "T-FAIL-01"' in text and 'requirement = "T-NT-01"' in text
    result, _, _, _ = run(demo, "--baseline", str(written), "--req", "T-FAIL-01", "--req", "T-NT-01")
    assert result.ret == 0


def test_bad_options_are_a_usage_error(demo):
    result = demo.runpytest_subprocess("--target", "hook-server=stdio:x", timeout=60)
    assert result.ret == 2  # the harness's usage error, as under python -m simulator run
    result.stderr.fnmatch_lines(["*does not fit this role*"])
