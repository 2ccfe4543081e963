"""Where the subjects the harness starts run, and what it keeps of them (simulator/subjects/spawn.py, docs/targets.md
"Where subjects run"): a fresh directory per ``stdio:`` start and per ``cmd:`` subject (never the harness's working
directory), ``--subject-cwd DIR`` instead, the command's relative paths resolved against the harness's directory,
and a subject that dies at start-up explained by its exit status and stderr, in the scenario, the preflight and the
report folder's ``subjects/`` log files. Subjects are a few lines of Python (``sys.executable``); no network."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conformance_runs import child_env

from simulator.subjects.config import build_config
from simulator.errors import TargetError
from simulator.harness.preflight import preflight
from simulator.roles.mcp_client import McpClientRole
from simulator.subjects.spawn import (SpawnExit, SubjectLogs, SubjectSpawns, describe_exit, resolve_relative_paths,
                                     startup_death, stderr_tail)
from simulator.harness.subjects import Subjects
from simulator.subjects.targets import Role

pytestmark = pytest.mark.timeout(120)

WRITTEN = "written-by-subject.txt"

#: An MCP subject that writes a file into its working directory, says where that is on stderr, and answers
#: ``initialize`` until its stdin closes.
SERVES = textwrap.dedent(f"""
    import json, os, sys
    open({WRITTEN!r}, "w").write("x")
    print("cwd=" + os.getcwd(), file=sys.stderr, flush=True)
    print("PWD=" + os.environ.get("PWD", ""), file=sys.stderr, flush=True)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("method") == "initialize":
            result = {{"protocolVersion": "2025-11-25", "capabilities": {{}},
                      "serverInfo": {{"name": "writer", "version": "0"}}}}
            print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": result}}), flush=True)
""")

#: An MCP subject that writes the same file, then dies before it answers anything.
DIES = textwrap.dedent(f"""
    import os, sys
    open({WRITTEN!r}, "w").write("x")
    print("cwd=" + os.getcwd(), file=sys.stderr)
    print("boom: missing config FOO", file=sys.stderr)
    sys.exit(3)
""")

#: A ``cmd:`` hook server that writes the file, then prints its readiness line and sleeps.
HOOK = textwrap.dedent(f"""
    import json, os, sys, time
    open({WRITTEN!r}, "w").write("x")
    print("cwd=" + os.getcwd(), file=sys.stderr, flush=True)
    print(json.dumps({{"ready": True, "url": "ws://127.0.0.1:1/hook"}}), flush=True)
    time.sleep(300)
""")


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """The directory the harness runs from, holding the subjects' scripts (named relatively in the commands)."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    for name, text in (("serves.py", SERVES), ("dies.py", DIES), ("hook.py", HOOK)):
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _stdio(script: str) -> str:
    return f"stdio:{shlex.quote(sys.executable)} {script}"


def _logged_cwds(log: Path) -> list[str]:
    return [line.split("cwd=", 1)[1] for line in log.read_text(encoding="utf-8").splitlines() if "] cwd=" in line]


# -- the pure parts ----------------------------------------------------------------------------------------------


KINDS = {"/h/build/index.js": "file", "/h/server.js": "file", "/h/simulator": "dir", "/h/build": "dir",
         "/h": "dir", "/h/bin/serve": "file", "/h/node": "file"}


@pytest.mark.parametrize(("command", "resolved"), [
    (["node", "build/index.js"], ["node", "/h/build/index.js"]),
    (["node", "server.js", "--port", "0"], ["node", "/h/server.js", "--port", "0"]),
    (["./bin/serve", "x"], ["/h/bin/serve", "x"]),
    (["bin/serve"], ["/h/bin/serve"]),
    # a bare program is looked up in PATH, never in the working directory
    (["node", "x"], ["node", "x"]),
    # a bare directory name is a module or package name more often than a path
    (["python", "-m", "simulator", "serve"], ["python", "-m", "simulator", "serve"]),
    (["npx", "srv", "build/", "."], ["npx", "srv", "/h/build", "/h"]),
    (["node", "/abs/server.js", "--config=server.js", "-"], ["node", "/abs/server.js", "--config=server.js", "-"]),
    (["node", "missing.js"], ["node", "missing.js"]),
])
def test_relative_paths_that_exist_are_resolved_against_the_harness_directory(command, resolved):
    assert resolve_relative_paths(command, Path("/h"), lambda p: KINDS.get(str(p))) == resolved


def test_relative_paths_are_resolved_on_disk(tmp_path: Path):
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "index.js").write_text("")
    assert resolve_relative_paths(["node", "build/index.js", "other.js"], tmp_path) == [
        "node", str(tmp_path / "build" / "index.js"), "other.js"]


def test_exit_statuses_and_the_sentence_of_a_death():
    assert describe_exit(3) == "status 3"
    assert describe_exit(-11) == "signal SIGSEGV (11)"
    assert describe_exit(None) == "an unknown status"
    lines = [f"line {i}" for i in range(30)] + ["", "boom: missing config FOO"]
    tail = stderr_tail(lines)
    assert tail.splitlines()[-1] == "boom: missing config FOO" and len(tail.splitlines()) == 20
    assert stderr_tail(["x" * 5000]).startswith("…") and len(stderr_tail(["x" * 5000])) == 2000
    died = startup_death(SpawnExit(3, "exited 3", at_startup=True), ["boom: missing config FOO"])
    assert died == ("the subject exited with status 3 before answering initialize; its stderr ends with:\n"
                    "boom: missing config FOO")
    assert "killed by signal SIGSEGV (11)" in startup_death(SpawnExit(-11, "exited -11", at_startup=True), [])
    assert "it wrote nothing to stderr" in startup_death(SpawnExit(0, "exited 0", at_startup=True), [])
    closed = startup_death(SpawnExit(-15, "terminated after stdin close + 2 s (SIGTERM, code -15)",
                                     stopped_by="SIGTERM", at_startup=True), [])
    assert closed.startswith("the subject closed its stdout before answering initialize (it kept running;")


def test_a_log_file_per_role_appended_across_starts_bounded_and_delivered(tmp_path: Path):
    logs = SubjectLogs(tmp_path / "staging", tag="gw1", max_bytes=200)
    (tmp_path / "staging").mkdir()
    first = logs.record("probekit", ["node", "x.js"], "/work", label="preflight")
    first.started(11)
    for i in range(20):
        first.stderr(f"line {i} " + "." * 20)
    first.ended(SpawnExit(3, "exited 3", at_startup=True))
    second = logs.record("probekit", ["node", "x.js"], "/work")
    second.failed("[Errno 2] No such file or directory")
    text = (tmp_path / "staging" / "probekit.gw1.stderr.log").read_text(encoding="utf-8")
    assert "probekit start 1 (preflight): node x.js" in text and "cwd: /work; pid 11" in text
    assert "[11] line 0 " in text and "[11] line 19" not in text  # bounded: later lines are counted
    assert "pid 11 ended with status 3 (exited 3); it ended before it answered (died at start-up)" in text
    assert "stderr lines over the file's limit not kept" in text
    assert "probekit start 2: node x.js" in text and "could not start: [Errno 2]" in text
    assert logs.deaths() == {"probekit.gw1.stderr.log": 1}
    moved = logs.deliver(tmp_path / "report" / "subjects")
    assert moved == {"probekit.gw1.stderr.log": tmp_path / "report" / "subjects" / "probekit.gw1.stderr.log"}
    logs.discard()
    assert (tmp_path / "staging").is_dir()  # not the logs' own folder: never removed


# -- stdio subjects through Subjects and the preflight -------------------------------------------------------------


def _subjects(checkout: Path, target: str, logs: SubjectLogs, cwd: Path | None = None) -> Subjects:
    config = build_config({}, cli_targets=[f"ccweb={target}"], step_timeout=5.0)
    return Subjects(config, spawns=SubjectSpawns(cwd, base=checkout, logs=logs))


def test_a_stdio_subject_writes_into_a_fresh_directory_removed_after_it(checkout: Path, tmp_path: Path):
    logs = SubjectLogs(tmp_path / "logs")
    (tmp_path / "logs").mkdir()
    subjects = _subjects(checkout, _stdio("serves.py"), logs)  # a relative script: resolved against the checkout
    for _ in range(2):
        client = McpClientRole()
        try:
            subjects.connect_mcp("ccweb", client)
            assert client.initialize()["serverInfo"]["name"] == "writer"
        finally:
            client.close()
    assert not (checkout / WRITTEN).exists()
    assert not (Path.cwd() / WRITTEN).exists()
    cwds = _logged_cwds(tmp_path / "logs" / "ccweb.stderr.log")
    assert len(set(cwds)) == 2, cwds  # one directory per start
    assert all(not Path(c).exists() for c in cwds), "a start's own directory is removed once it has ended"
    assert all(f"=== cwd: {c}; pid" in (tmp_path / "logs" / "ccweb.stderr.log").read_text() for c in cwds)
    assert all(f"PWD={c}" in (tmp_path / "logs" / "ccweb.stderr.log").read_text() for c in cwds)  # as a shell sets it
    assert logs.deaths() == {}


def test_subject_cwd_names_the_directory_and_it_is_kept(checkout: Path, tmp_path: Path):
    chosen = tmp_path / "chosen" / "work"
    subjects = _subjects(checkout, _stdio("serves.py"), SubjectLogs(), cwd=chosen)
    client = McpClientRole()
    try:
        subjects.connect_mcp("ccweb", client)
        client.initialize()
    finally:
        client.close()
        subjects.close()
        subjects.spawns.logs.discard()
    assert (chosen / WRITTEN).is_file() and not (checkout / WRITTEN).exists()


def test_a_stdio_subject_that_dies_at_start_is_explained(checkout: Path, tmp_path: Path):
    logs = SubjectLogs(tmp_path / "logs")
    (tmp_path / "logs").mkdir()
    subjects = _subjects(checkout, _stdio("dies.py"), logs)
    client = McpClientRole()
    try:
        subjects.connect_mcp("ccweb", client)
        with pytest.raises(TargetError) as caught:
            client.initialize(timeout=10)
    finally:
        client.close()
    reason = str(caught.value)
    assert "the subject exited with status 3 before answering initialize" in reason, reason
    assert "its stderr ends with:" in reason and "boom: missing config FOO" in reason, reason
    assert logs.deaths() == {"ccweb.stderr.log": 1}
    log = (tmp_path / "logs" / "ccweb.stderr.log").read_text(encoding="utf-8")
    assert "boom: missing config FOO" in log and "ended with status 3" in log
    assert not (checkout / WRITTEN).exists()


@pytest.mark.parametrize("chosen", [False, True])
def test_the_preflight_starts_the_command_the_same_way_and_names_its_death(checkout: Path, tmp_path: Path,
                                                                            chosen: bool):
    work = tmp_path / "work" if chosen else None
    logs = SubjectLogs(tmp_path / "logs")
    (tmp_path / "logs").mkdir()
    config = build_config({}, cli_targets=[f"ccweb={_stdio('dies.py')}"], step_timeout=5.0)
    failures = preflight(config, [Role.CCWEB], spawns=SubjectSpawns(work, base=checkout, logs=logs))
    assert len(failures) == 1
    assert "exited with status 3" in failures[0].reason and "boom: missing config FOO" in failures[0].reason
    assert not (checkout / WRITTEN).exists()
    assert (work / WRITTEN).is_file() if work is not None else True
    assert "(preflight)" in (tmp_path / "logs" / "ccweb.stderr.log").read_text(encoding="utf-8")


# -- cmd: subjects -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("chosen", [False, True])
def test_a_cmd_hook_server_starts_in_a_directory_of_its_own_or_the_chosen_one(checkout: Path, tmp_path: Path,
                                                                               chosen: bool):
    work = tmp_path / "work" if chosen else None
    logs = SubjectLogs(tmp_path / "logs")
    (tmp_path / "logs").mkdir()
    config = build_config({}, cli_targets=[f"hook-server=cmd:{shlex.quote(sys.executable)} hook.py"])
    subjects = Subjects(config, spawns=SubjectSpawns(work, base=checkout, logs=logs))
    try:
        assert subjects.hook_server_url() == "ws://127.0.0.1:1/hook"
        command = subjects.hook_server_command()
        assert command is not None
        place = command.cwd
        assert (place / WRITTEN).is_file()
        assert place == work if chosen else place.parent.name.startswith("simulator-hook-server-")
        subjects.restart_hook_server()
        assert command.cwd == place  # one directory for the run: it outlives a restart
    finally:
        subjects.close()
    assert not (checkout / WRITTEN).exists()
    assert place.is_dir() is chosen  # the harness removes only a directory it made
    log = (tmp_path / "logs" / "hook-server.stderr.log").read_text(encoding="utf-8")
    assert log.count(f"=== cwd: {place}; pid") == 2 and "cwd=" in log
    assert "stopped by the harness (SIGKILL" in log and "stopped by the harness (SIGTERM" in log


# -- the whole run -------------------------------------------------------------------------------------------------


#: A ccweb requirement of one scenario (the run against a dying subject stays short).
ONE = "CCWEB-ALIAS-DYNAMIC-CALL-01"


def _run(checkout: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "simulator", "run", "--target", f"ccweb={_stdio('dies.py')}",
                           "--step-timeout", "5", *args], cwd=checkout, env=child_env(), capture_output=True,
                          text=True, timeout=300)


def test_a_run_leaves_the_checkout_alone_and_explains_a_subject_that_dies(checkout: Path):
    stopped = _run(checkout, "--report-dir", str(checkout / "stopped"))
    output = stopped.stdout + stopped.stderr
    assert stopped.returncode == 3, output[-3000:]
    assert "exited with status 3" in output and "boom: missing config FOO" in output, output[-3000:]
    judged = _run(checkout, "--report-dir", str(checkout / "judged"), "--no-preflight", ONE)
    output = judged.stdout + judged.stderr
    assert judged.returncode == 3, output[-3000:]
    report = json.loads((checkout / "judged" / "report.json").read_text(encoding="utf-8"))
    (scenario,) = report["scenarios"]
    assert scenario["verdict"] == "error"
    assert "exited with status 3" in scenario["reason"] and "boom: missing config FOO" in scenario["reason"]
    log = checkout / "judged" / "subjects" / "ccweb.stderr.log"
    assert "boom: missing config FOO" in log.read_text(encoding="utf-8")
    assert f"subject ccweb died at start-up (once); its stderr: {log}" in output, output[-3000:]
    assert not (checkout / WRITTEN).exists()


def test_subject_cwd_on_the_command_line(checkout: Path):
    proc = _run(checkout, "--no-report", "--subject-cwd", "work")
    assert proc.returncode == 3, (proc.stdout + proc.stderr)[-3000:]
    assert (checkout / "work" / WRITTEN).is_file() and not (checkout / WRITTEN).exists()


def test_under_xdist_each_worker_logs_into_the_report_folder(checkout: Path):
    pytest.importorskip("xdist")
    proc = _run(checkout, "--report-dir", str(checkout / "parallel"), "--no-preflight", ONE, "--", "-n", "2")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 3, output[-3000:]
    (log,) = (checkout / "parallel" / "subjects").glob("ccweb.gw*.stderr.log")
    assert "boom: missing config FOO" in log.read_text(encoding="utf-8")
    assert f"its stderr: {log}" in output, output[-3000:]
    assert not (checkout / WRITTEN).exists()


def test_a_subject_is_told_the_directory_it_runs_in_as_a_shell_tells_it():
    from simulator.subjects.spawn import with_working_directory

    assert with_working_directory({"PATH": "/bin", "PWD": "/home/me/checkout"}, "/tmp/s-1") == \
        {"PATH": "/bin", "PWD": "/tmp/s-1"}
    assert with_working_directory({"PATH": "/bin"}, None) == {"PATH": "/bin"}
