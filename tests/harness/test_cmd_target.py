"""``--target hook-server=cmd:COMMAND`` (simulator/subjects/targets.py, simulator/subjects/command.py, simulator/harness/subjects.py):
parsing, the readiness line, and the spawn / SIGKILL / restart / stop of the command, with a fake subject (a few lines
of Python) instead of a hook server."""

from __future__ import annotations

import json
import os
import sys
import textwrap
from pathlib import Path

import pytest

from simulator.subjects.command import CommandSubject, Readiness, fill_state, parse_readiness
from simulator.subjects.config import build_config
from simulator.errors import ConfigError, NotTestable, TargetError
from simulator.harness.subjects import Subjects
from simulator.subjects.targets import Role, TargetKind, parse_target, parse_target_assignment

pytestmark = pytest.mark.timeout(60)

#: A fake subject: counts its starts in {state}/starts (the directory outlives a kill), starts a child process of
#: its own (to show the whole process group is killed), writes both pids, then prints its readiness line with the
#: start count as its port, and sleeps.
FAKE = textwrap.dedent("""
    import json, subprocess, sys, time
    from pathlib import Path
    state = Path(sys.argv[1])
    counter = state / "starts"
    n = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(n))
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    (state / "pids").write_text(json.dumps([__import__("os").getpid(), child.pid]))
    print("starting", file=sys.stderr, flush=True)
    print(json.dumps({"ready": True, "url": f"ws://127.0.0.1:{n}/hook", "control": f"http://127.0.0.1:{n}"}),
          flush=True)
    time.sleep(300)
""")


@pytest.fixture
def fake(tmp_path: Path) -> list[str]:
    script = tmp_path / "fake_subject.py"
    script.write_text(FAKE, encoding="utf-8")
    return [sys.executable, str(script), "{state}"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie child of ours counts as dead
    try:
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


# -- parsing -------------------------------------------------------------------------------------------------


def test_cmd_is_a_hook_server_target_split_like_a_shell():
    t = parse_target_assignment("hook-server=cmd:my-server --db '{state}/a b.sqlite3' --port 0")
    assert t.kind is TargetKind.CMD and t.role is Role.HOOK_SERVER
    assert t.command == ("my-server", "--db", "{state}/a b.sqlite3", "--port", "0")
    assert not t.is_reference


@pytest.mark.parametrize("role", ["desktop", "ccweb", "probekit"])
def test_cmd_fits_only_the_hook_server(role: str):
    with pytest.raises(ConfigError, match="does not fit this role"):
        parse_target(role, "cmd:my-server")


@pytest.mark.parametrize("spec, problem", [("cmd:", "names no command"), ("cmd:   ", "names no command"),
                                           ("cmd:srv 'unclosed", "cannot split")])
def test_a_bad_cmd_is_a_config_error(spec: str, problem: str):
    with pytest.raises(ConfigError, match=problem):
        parse_target("hook-server", spec)


def test_state_placeholder_is_filled_everywhere():
    assert fill_state(["srv", "--db={state}/x", "{state}"], "/tmp/s") == ["srv", "--db=/tmp/s/x", "/tmp/s"]


def test_the_readiness_line():
    assert parse_readiness('{"ready": true, "url": "ws://h:1/", "control": "http://h:2"}\n') == \
        Readiness("ws://h:1/", "http://h:2")
    assert parse_readiness('{"ready": true, "url": "wss://h/x"}') == Readiness("wss://h/x", None)
    for bad, why in [("", "empty"), ("hello", "not JSON"), ('{"ready": false, "url": "ws://h/"}', "ready"),
                     ('{"ready": true}', "url"), ('{"ready": true, "url": "http://h/"}', "url"),
                     ('{"ready": true, "url": "ws://h/", "control": 3}', "control")]:
        with pytest.raises(ValueError, match=why):
            parse_readiness(bad)


# -- the process -----------------------------------------------------------------------------------------------


def test_start_kill_restart_keeps_the_state_and_kills_the_process_group(fake: list[str]):
    subject = CommandSubject(fake)
    try:
        first = subject.start()
        assert first == Readiness("ws://127.0.0.1:1/hook", "http://127.0.0.1:1")
        pids = json.loads((subject.state_dir / "pids").read_text())
        assert all(_alive(p) for p in pids)
        second = subject.restart()
        assert not any(_alive(p) for p in pids), "SIGKILL reaches the command and its children"
        assert second.url == "ws://127.0.0.1:2/hook" and subject.url == second.url  # the new readiness line
        assert subject.control_url == "http://127.0.0.1:2"
        assert (subject.state_dir / "starts").read_text() == "2"  # same {state} directory
        assert (subject.starts, subject.kills) == (2, 1)
        assert "starting" in subject.stderr_tail()
        pids = json.loads((subject.state_dir / "pids").read_text())
    finally:
        subject.close()
    assert not any(_alive(p) for p in pids)
    assert not subject.state_dir.exists()


@pytest.mark.parametrize("code, problem", [
    ("import sys; print('boom', file=sys.stderr); sys.exit(4)", "exited with code 4 before its readiness line"),
    ("print('listening on 9000', flush=True); import time; time.sleep(30)", "not a readiness line"),
    ("import time; time.sleep(30)", "printed no readiness line within 1 s"),
])
def test_a_command_that_does_not_get_ready_is_a_target_error_with_its_stderr(code: str, problem: str):
    subject = CommandSubject([sys.executable, "-c", code], startup_limit=1.0)
    try:
        with pytest.raises(TargetError, match=problem) as caught:
            subject.start()
        if "boom" in code:
            assert "boom" in str(caught.value)
        assert not subject.running
    finally:
        subject.close()


# -- through Subjects --------------------------------------------------------------------------------------------


def test_subjects_start_the_command_once_and_restart_it_with_new_addresses(fake: list[str]):
    config = build_config({}, cli_targets=["hook-server=cmd:" + " ".join(fake)])
    subjects = Subjects(config)
    try:
        assert subjects.hook_server_url() == "ws://127.0.0.1:1/hook"
        assert subjects.hook_server_url() == "ws://127.0.0.1:1/hook"  # started once for the run
        assert subjects.control(Role.HOOK_SERVER).base_url == "http://127.0.0.1:1"
        subjects.restart_hook_server()
        assert subjects.hook_server_url() == "ws://127.0.0.1:2/hook"
        assert subjects.control(Role.HOOK_SERVER).base_url == "http://127.0.0.1:2"
        command = subjects.hook_server_command()
        assert command is not None and command.kills == 1
    finally:
        subjects.close()
    assert not command.running


def test_a_failed_start_fails_every_later_use_at_once():
    config = build_config({}, cli_targets=[f"hook-server=cmd:{sys.executable} -c 'raise SystemExit(2)'"])
    subjects = Subjects(config)
    try:
        for _ in range(2):
            with pytest.raises(TargetError, match="exited with code 2"):
                subjects.hook_server_url()
    finally:
        subjects.close()


def test_only_a_command_target_can_be_restarted():
    subjects = Subjects(build_config({}, cli_targets=["hook-server=ws://127.0.0.1:9/hook"]))
    assert subjects.hook_server_command() is None
    with pytest.raises(NotTestable, match="cmd:"):
        subjects.restart_hook_server()
