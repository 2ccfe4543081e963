"""cli.py and __init__.py: ``python -m simulator serve probekit-mcp`` over stdio (MCP_TOOLSET=core), usage errors,
and the embedded reference's server_factory."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys

from pathlib import Path

import anyio
from mcp import Client, ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from simulator.reference.probekit import start_embedded
from simulator.reference.probekit.cli import main

ROOT = Path(__file__).resolve().parents[3]
SERVE = ["-m", "simulator", "serve", "probekit-mcp"]


def test_stdio_smoke_core(tmp_path):
    errlog = tmp_path / "stderr.txt"

    async def body():
        with anyio.fail_after(30):
            return await talk()

    async def talk():
        params = StdioServerParameters(command=sys.executable, args=SERVE,
                                       env={"MCP_TOOLSET": "core", "PATH": os.environ.get("PATH", "")},
                                       cwd=str(ROOT))
        with errlog.open("w") as err:
            async with stdio_client(params, errlog=err) as (read, write), ClientSession(read, write) as s:
                await s.initialize()
                tools = await s.list_tools()
                hidden = await s.call_tool("start_ui", {})
                commit = await s.call_tool("gencommit", {"changes": "add a login form"})
                return tools, hidden, commit

    tools, hidden, commit = anyio.run(body)
    assert len(tools.tools) == 15 and "gencommit" in {t.name for t in tools.tools}
    assert hidden.is_error and "core" in hidden.content[0].text
    assert commit.structured_content["finalMessage"] and not commit.is_error
    ready = json.loads(errlog.read_text().splitlines()[0])
    assert ready == {"ready": True, "mcp": "stdio", "toolset": "core"}


def test_usage_errors(capsys):
    assert main(["--variant", "nope"]) == 2
    assert "unknown probekit variant" in capsys.readouterr().err
    assert main(["--http", "nowhere"]) == 2
    assert main(["--help"]) == 0 and "--variant" in capsys.readouterr().out


def test_embedded_factory_applies_the_environment():
    ref = start_embedded()
    assert ref.role.value == "probekit" and ref.server_factory is not None

    async def body():
        async with Client(ref.server_factory({"MCP_TOOLSET": "ui"}), mode="legacy") as c:
            return [t.name for t in (await c.list_tools()).tools]
    assert len(anyio.run(body)) == 6
    ref.stop()


def test_http_smoke_workflow(tmp_path):
    env = {**os.environ, "MCP_TOOLSET": "workflow"}
    proc = subprocess.Popen([sys.executable, *SERVE, "--http", "127.0.0.1:0"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=str(ROOT))
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "no readiness line within 30 s"
        line = json.loads(proc.stdout.readline())
        assert line["ready"] is True and line["toolset"] == "workflow" and line["mcp"].endswith("/mcp")

        async def body():
            with anyio.fail_after(30):
                async with streamable_http_client(line["mcp"]) as (read, write), ClientSession(read, write) as s:
                    await s.initialize()
                    tools = await s.list_tools()
                    report = await s.call_tool("start_release", {"version": "2.0.0"})
                    return tools, report

        tools, report = anyio.run(body)
        assert len(tools.tools) == 30
        assert report.structured_content["workflowName"] == "start_release" and not report.is_error
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0


def test_public_names_are_exported():
    import simulator.reference.probekit as pk

    assert all(hasattr(pk, name) for name in pk.__all__) and "start_embedded" in pk.__all__
