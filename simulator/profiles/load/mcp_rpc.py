"""Raw JSON-RPC to an MCP server for the load profile's ``McpTools`` users (locustfile.py): Streamable HTTP (a POST
per message, the answer as JSON or as a ``text/event-stream``) or stdio (a spawned command, one JSON message a
line), per the MCP transports. Kept out of anyio/asyncio: Locust runs its users as gevent greenlets. Importing
this module imports neither gevent nor Locust; ``sse_data`` is pure.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from typing import IO, Any, cast

__all__ = ["McpHttp", "McpStdio", "RpcFailed", "sse_data"]


class RpcFailed(Exception):
    """No answer, or an answer that is not one: the call fails."""


def sse_data(text: str) -> list[str]:
    """The data of each event of a ``text/event-stream`` body: its ``data:`` lines joined by newlines, an event
    ending at a blank line (the HTML event-stream format; lines end at CR LF or LF only)."""
    events: list[str] = []
    data: list[str] = []
    for line in [*(x.removesuffix("\r") for x in text.split("\n")), ""]:  # not splitlines: U+2028 is data
        if not line:
            if data:
                events.append("\n".join(data))
            data = []
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    return events


class McpHttp:
    """JSON-RPC over Streamable HTTP: POST, answers as JSON or as one SSE event stream (MCP transports)."""

    def __init__(self, url: str, timeout: float) -> None:
        import requests

        self.url, self.timeout = url, timeout
        self.http = requests.Session()
        self.session_id: str | None = None

    def request(self, body: dict[str, Any]) -> dict[str, Any] | None:
        headers = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json",
                   "MCP-Protocol-Version": "2025-06-18"}
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        r = self.http.post(self.url, data=json.dumps(body), headers=headers, timeout=self.timeout)
        self.session_id = r.headers.get("Mcp-Session-Id", self.session_id)
        if "id" not in body:
            return None
        if r.headers.get("Content-Type", "").startswith("text/event-stream"):
            for data in sse_data(r.text):
                msg = json.loads(data)
                if isinstance(msg, dict) and msg.get("id") == body["id"]:
                    return msg
            raise RpcFailed(f"no answer to {body['method']} in the event stream")
        answer: dict[str, Any] | None = r.json()  # a JSON-RPC answer, as decoded
        return answer

    def close(self) -> None:
        self.http.close()


class McpStdio:
    """JSON-RPC over a spawned command's stdin/stdout, one JSON message a line (MCP stdio transport)."""

    def __init__(self, command: str, timeout: float) -> None:
        self.timeout = timeout
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def request(self, body: dict[str, Any]) -> dict[str, Any] | None:
        import gevent  # type: ignore[import-untyped]  # no stubs: types-gevent is not installed
        # (the caller runs under gevent (a Locust user): the wait for the answer is bounded)

        # stdin=PIPE, stdout=PIPE, text=True: both pipes are there, as text
        stdin, stdout = cast(IO[str], self.proc.stdin), cast(IO[str], self.proc.stdout)
        stdin.write(json.dumps(body) + "\n")
        stdin.flush()
        if "id" not in body:
            return None
        late = RpcFailed(f"no answer to {body['method']} within {self.timeout:g} s")
        with gevent.Timeout(self.timeout, late):
            while True:
                line = stdout.readline()
                if not line:
                    raise RpcFailed("the MCP subject closed its stdout")
                msg: dict[str, Any] = json.loads(line)  # a JSON-RPC message, as decoded
                if msg.get("id") == body["id"]:
                    return msg

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
