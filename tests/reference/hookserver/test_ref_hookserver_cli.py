"""``python -m simulator serve hook-server`` as a process: readiness line on stdout, token, welcome options,
a clean stop on SIGTERM and SIGINT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request

import pytest
from websockets.sync.client import connect

from simulator.hook import make_hello, parse_hook_message, serialize_hook_message
from simulator.reference.hookserver.cli import main, parse_address

pytestmark = pytest.mark.timeout(60)


def test_usage_errors():
    assert parse_address("127.0.0.1:0") == ("127.0.0.1", 0) and parse_address("[::1]:80") == ("::1", 80)
    assert main(["--listen", "nowhere"]) == 2
    assert main(["--variant", "bogus"]) == 2


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_serve_hook_server_process(tmp_path, stop_signal):
    db = tmp_path / "hook.sqlite3"
    env = {k: v for k, v in os.environ.items() if k != "HOOK_SERVER_REFERENCE_VARIANT"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "simulator", "serve", "hook-server", "--listen", "127.0.0.1:0", "--control",
         "127.0.0.1:0", "--db", str(db), "--token", "tok", "--features", "turn-reopen-v1",
         "--server-name", "cli-test-server", "--variant", "progress-appends"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        ready = json.loads(proc.stdout.readline())
        assert ready["ready"] is True and ready["url"].startswith("ws://127.0.0.1:") and ready["url"].endswith("/")
        assert ready["control"].startswith("http://127.0.0.1:") and not ready["url"].endswith(":0/")
        with connect(ready["url"], additional_headers={"Authorization": "Bearer tok"}, open_timeout=5) as ws:
            ws.send(serialize_hook_message(make_hello(protocol_version=1, device_id="cli-d", device_name="d",
                                                      workspaces=("chat",), agents=("a",))))
            welcome = parse_hook_message(ws.recv(timeout=5)).message.payload
        assert welcome.server_name == "cli-test-server" and list(welcome.features) == ["turn-reopen-v1"]
        req = urllib.request.Request(f"{ready['control']}/v1/config", data=b"{}", method="POST")
        with urllib.request.urlopen(req, timeout=5) as resp:
            config = json.loads(resp.read())
        assert config["variant"] == "progress-appends" and config["tokenRequired"] is True
        assert db.exists()
    finally:
        proc.send_signal(stop_signal)
        assert proc.wait(15) == 0
