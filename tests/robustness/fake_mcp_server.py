"""A minimal MCP server over stdio written from JSON-RPC 2.0 and MCP alone (no SDK), for the robustness profile's
tests (tests/robustness/test_robustness_mcp_falsified.py): it proves the MCP features judge a subject that is not the
reference, and its broken mode breaks one rule the SDK-based references cannot be made to break.

    python tests/robustness/fake_mcp_server.py MODE

Modes: ``conformant``; ``error-code-string`` (every JSON-RPC error carries its code as a string, "-32601", not an
integer: breaks JSON-RPC 2.0 §5.1 "This MUST be an integer", ROBUST-CCWEB-ERROR-SHAPE-01's rule).

What it serves: ``initialize``, ``ping``, ``tools/list`` (one tool, ``echo`` {text: string}), ``tools/call``
(``echo`` answers its text; an unknown tool or a bad argument is an ``isError`` result; params that are no
``{name: string}`` get -32602); every other method gets -32601. A line that is no JSON, or JSON that is no MCP
request (no ``"jsonrpc": "2.0"``, an id that is no string or integer, params that are no object), is dropped, as is
every notification.
"""

from __future__ import annotations

import json
import sys

TOOL = {"name": "echo", "description": "Answers its text.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}


def _error(rid, code: int, message: str, mode: str) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": str(code) if mode == "error-code-string" else code,
                                                   "message": message}}


def _result(rid, result: dict) -> dict:
    return {"jsonrpc": "2.0", "id": rid, "result": result}


def _text(text: str, is_error: bool = False) -> dict:
    return {"content": [{"type": "text", "text": text}], **({"isError": True} if is_error else {})}


def answer(message, mode: str) -> dict | None:
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
        return None
    if "id" not in message:
        return None  # a notification
    rid, method, params = message["id"], message["method"], message.get("params", {})
    if isinstance(rid, bool) or not isinstance(rid, (str, int)) or not isinstance(params, dict):
        return None
    if method == "initialize":
        version = params.get("protocolVersion") if isinstance(params.get("protocolVersion"), str) else "2025-11-25"
        return _result(rid, {"protocolVersion": version, "capabilities": {"tools": {}},
                             "serverInfo": {"name": "fake-mcp", "version": "1"}})
    if method == "ping":
        return _result(rid, {})
    if method == "tools/list":
        return _result(rid, {"tools": [TOOL]})
    if method == "tools/call":
        name, args = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str):
            return _error(rid, -32602, "Invalid params: name must be a string", mode)
        if name != "echo":
            return _result(rid, _text(f"unknown tool {name!r}", True))
        if not isinstance(args, dict) or not isinstance(args.get("text"), str):
            return _result(rid, _text("echo needs arguments {text: string}", True))
        return _result(rid, _text(args["text"]))
    return _error(rid, -32601, "Method not found", mode)


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "conformant"
    if mode not in ("conformant", "error-code-string"):
        print(f"unknown mode {mode!r}", file=sys.stderr)
        return 2
    for raw in sys.stdin.buffer:
        try:
            message = json.loads(raw.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        reply = answer(message, mode)
        if reply is not None:
            sys.stdout.write(json.dumps(reply) + "\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
