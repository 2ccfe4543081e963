"""``python -m simulator serve desktop`` as a process: readiness line on stdout, dials, stops on SIGTERM."""

from __future__ import annotations

import json
import subprocess
import sys

from simulator.reference.desktop.cli import main, parse_workspaces
from simulator.roles import ServerRole


def test_parse_workspaces_and_usage_errors():
    assert parse_workspaces("a=/x,b=/y") == {"a": "/x", "b": "/y"}
    assert main(["--connect", "ws://127.0.0.1:1/hook", "--workspaces", "broken"]) == 2
    assert main(["--connect", "ws://127.0.0.1:1/hook", "--variant", "bogus"]) == 2


def test_serve_desktop_process(tmp_path):
    server = ServerRole(step_timeout=10.0)
    url = server.listen()
    (tmp_path / "repo").mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "desktop", "--connect", url, "--control", "127.0.0.1:0",
         "--workspaces", f"repo={tmp_path / 'repo'}", "--default-workspace", "repo",
         "--db", str(tmp_path / "outbox.sqlite3")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["ready"] is True and ready["connect"] == url and ready["control"].startswith("http://")
        server.accept()
        hello = server.expect_hello()
        assert list(hello.workspaces) == ["chat", "repo"] and hello.default_workspace == "repo"
        server.welcome([])
        rid = server.dispatch(workspace="repo")
        assert server.expect_ack(rid).result == "accepted"
        assert server.expect_end(rid).status == "ok"
    finally:
        proc.terminate()
        assert proc.wait(10) == 0
        server.close()
