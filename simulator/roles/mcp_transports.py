"""The three transports of the MCP-client role: stdio (our own), Streamable HTTP and in-memory (the SDK's).

Theory of operation. Each transport is an async context manager, entered and left by one task (anyio cancel
scopes are task-bound), that yields a ``Streams``: a read stream of ``SessionMessage`` (or an exception for
something unreadable) and a write stream taking ``SessionMessage``, the same pair the SDK's own transports hand
to ``ClientSession``. The role's raw JSON-RPC session sits on top and never sees bytes.

Why our own stdio transport rather than ``mcp.client.stdio.stdio_client``: a conformance harness must see what
the subject wrote even when it is not a valid message (the SDK logs and drops the text), must record the child's
stderr line by line (the SDK hands stderr to a file), and must know the child's pid (to prove it is gone after
``close``). The spawn follows the SDK: the child environment is ``get_default_environment()`` plus the caller's
``env``, a new session (process group) so the whole tree can be killed, and the shutdown order of the MCP
lifecycle (basic/lifecycle#shutdown, stdio): close the child's stdin, wait, SIGTERM the group, wait, SIGKILL.
Every wait is bounded. How the child ended is kept as a ``SpawnExit`` (``Streams.ended``): its exit status, the
signal the harness had to send, and whether it ended before writing a single message (it died at start-up); a
``SpawnWatch`` (simulator.subjects.spawn) is told the pid, each stderr line and that end, once stderr is drained.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import anyio.abc
from mcp.client.stdio import get_default_environment
from mcp.shared.message import SessionMessage
from mcp_types import jsonrpc_message_adapter

from ..subjects.spawn import SpawnExit, SpawnWatch, with_working_directory

__all__ = [
    "InvalidFrame",
    "Streams",
    "http_transport",
    "memory_transport",
    "stdio_transport",
]

#: Longest stderr line kept (characters); the rest is cut and marked.
STDERR_LINE_MAX = 2000
#: Stderr lines recorded per connection; later ones are counted, not kept.
STDERR_LINES_MAX = 2000
#: How long the shutdown waits, once the child is gone, for the rest of its stderr.
STDERR_DRAIN_S = 1.0


class InvalidFrame(Exception):
    """Something the subject wrote that is not a JSON-RPC message; ``text`` is what it wrote (one stdio line, or
    the transport's description), ``reason`` why it was refused. Travels on the read stream as a value."""

    def __init__(self, text: str, reason: str) -> None:
        super().__init__(reason)
        self.text = text
        self.reason = reason


@dataclass
class Streams:
    """What a transport yields: the two message streams, and for stdio the child's pid."""

    read: Any  # receive stream of SessionMessage | Exception
    write: Any  # send stream of SessionMessage
    kind: str  # "stdio", "http" or "memory"
    pid: int | None = None
    #: Filled by the stdio transport at shutdown: "exited 0", "terminated (SIGTERM)", "killed (SIGKILL)".
    exit_note: list[str] = field(default_factory=list)
    #: Filled by the stdio transport at shutdown, once the child's stderr is drained: how the child ended.
    ended: SpawnExit | None = None


def parse_frame(line: str) -> SessionMessage | InvalidFrame:
    """One line (or body) of subject output → a message, or ``InvalidFrame``; never raises."""
    try:
        return SessionMessage(jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:  # pydantic.ValidationError is a ValueError
        first = str(exc).splitlines()
        return InvalidFrame(line, f"not a JSON-RPC message: {first[0] if first else type(exc).__name__}")


# -- stdio ---------------------------------------------------------------------------------------------------------


@asynccontextmanager
async def stdio_transport(
    command: Sequence[str],
    *,
    env: dict[str, str] | None = None,
    cwd: str | Path | None = None,
    on_stderr: Callable[[str], None] | None = None,
    stdin_grace_s: float = 2.0,
    term_grace_s: float = 2.0,
    watch: SpawnWatch | None = None,
) -> AsyncIterator[Streams]:
    """Spawn ``command`` (argv list) in ``cwd`` and speak newline-delimited JSON-RPC on its stdin/stdout.

    ``on_stderr(line)`` is called (in the loop) for each stderr line, already trimmed; ``watch`` is told the pid,
    each kept stderr line and, once the child is gone and its stderr drained, how it ended (also on
    ``Streams.ended``). Raises ``OSError`` when the command cannot be spawned (``watch`` hears ``failed`` when it
    has one)."""
    if not command:
        raise ValueError("stdio_transport: empty command")
    try:
        process = await anyio.open_process(
            list(command),
            env=with_working_directory(get_default_environment() | dict(env or {}), cwd),
            cwd=cwd,
            start_new_session=(sys.platform != "win32"),
        )
    except OSError as exc:
        if watch is not None:
            watch.failed(str(exc))
        raise
    if watch is not None:
        watch.started(process.pid)
    read_tx, read_rx = anyio.create_memory_object_stream[SessionMessage | Exception](64)
    write_tx, write_rx = anyio.create_memory_object_stream[SessionMessage](64)
    streams = Streams(read_rx, write_tx, "stdio", pid=process.pid)
    #: JSON-RPC messages read from stdout, and whether stdout ended before the harness stopped the child.
    messages = 0
    stdout_ended = False
    stderr_drained = anyio.Event()

    async def stdout_reader() -> None:
        nonlocal messages, stdout_ended
        assert process.stdout is not None
        buffer = b""
        try:
            async with read_tx:
                async for chunk in process.stdout:
                    buffer += chunk
                    *lines, buffer = buffer.split(b"\n")
                    for raw in lines:
                        frame = _decode_and_parse(raw)
                        if isinstance(frame, SessionMessage):
                            messages += 1
                        await read_tx.send(frame)
                stdout_ended = True
                if buffer.strip():
                    await read_tx.send(InvalidFrame(buffer.decode("utf-8", "replace"), "unterminated last line"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass

    async def stderr_reader() -> None:
        assert process.stderr is not None
        buffer = b""
        kept = dropped = 0

        def emit(raw: bytes) -> None:
            nonlocal kept, dropped
            if kept >= STDERR_LINES_MAX:
                dropped += 1
                return
            kept += 1
            line = _trim(raw.decode("utf-8", "replace"))
            if on_stderr is not None:
                on_stderr(line)
            if watch is not None:
                watch.stderr(line)

        try:
            async for chunk in process.stderr:
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for raw in lines:
                    emit(raw)
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream, OSError):
            pass
        finally:
            if buffer:
                emit(buffer)
            if dropped:
                note = f"[{dropped} further stderr lines not recorded]"
                if on_stderr is not None:
                    on_stderr(note)
                if watch is not None:
                    watch.stderr(note)
            stderr_drained.set()

    async def stdin_writer() -> None:
        assert process.stdin is not None
        try:
            async with write_rx:
                async for message in write_rx:
                    data = message.message.model_dump_json(by_alias=True, exclude_unset=True) + "\n"
                    await process.stdin.send(data.encode("utf-8"))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass

    async with anyio.create_task_group() as tg:
        tg.start_soon(stdout_reader)
        tg.start_soon(stderr_reader)
        tg.start_soon(stdin_writer)
        try:
            yield streams
        finally:
            with anyio.CancelScope(shield=True):
                write_tx.close()
                by_itself = stdout_ended
                note = await _stop(process, stdin_grace_s, term_grace_s)
                streams.exit_note.append(note)
                # The last lines a dying child wrote are the ones that say why: read them before going on (bounded,
                # for a grandchild that holds the pipe open).
                with anyio.move_on_after(STDERR_DRAIN_S):
                    await stderr_drained.wait()
                streams.ended = SpawnExit(process.returncode, note, stopped_by=_stop_signal(note),
                                          at_startup=by_itself and messages == 0)
            tg.cancel_scope.cancel()
            if watch is not None:
                assert streams.ended is not None  # set in the shielded scope above, which nothing cancels
                watch.ended(streams.ended)
    read_rx.close()
    with anyio.CancelScope(shield=True):
        for pipe in (process.stdout, process.stderr):
            if pipe is None:  # no such pipe: nothing to close
                continue
            with suppress(Exception):
                await pipe.aclose()
        # Close the asyncio subprocess transport now rather than at GC (no ResourceWarning); the SDK does the same.
        transport = getattr(getattr(process, "_process", None), "_transport", None)
        with suppress(Exception):
            if transport is not None:
                transport.close()


def _decode_and_parse(raw: bytes) -> SessionMessage | InvalidFrame:
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return InvalidFrame(raw.decode("utf-8", "replace"), f"not UTF-8: {exc}")
    return parse_frame(line.rstrip("\r"))


def _stop_signal(note: str) -> str | None:
    """The signal ``_stop`` had to send, read from its note (None: the child ended by itself or once its stdin
    closed)."""
    for name in ("SIGKILL", "SIGTERM"):
        if name in note:
            return name
    return None


def _trim(line: str) -> str:
    line = line.rstrip()
    return line if len(line) <= STDERR_LINE_MAX else line[:STDERR_LINE_MAX] + f"… [{len(line)} chars]"


async def _stop(process: anyio.abc.Process, stdin_grace_s: float, term_grace_s: float) -> str:
    """Close stdin, wait; SIGTERM the group, wait; SIGKILL. Returns how the child ended."""
    with suppress(Exception):
        assert process.stdin is not None
        await process.stdin.aclose()
    if await _exited_within(process, stdin_grace_s):
        return f"exited {process.returncode}"
    _signal_group(process, signal.SIGTERM)
    if await _exited_within(process, term_grace_s):
        return f"terminated after stdin close + {stdin_grace_s:g} s (SIGTERM, code {process.returncode})"
    _signal_group(process, getattr(signal, "SIGKILL", signal.SIGTERM))
    if await _exited_within(process, 2.0):
        return f"killed after SIGTERM + {term_grace_s:g} s (SIGKILL, code {process.returncode})"
    return f"pid {process.pid} still alive after SIGKILL; abandoned"


def _signal_group(process: anyio.abc.Process, sig: int) -> None:
    with suppress(ProcessLookupError, PermissionError, OSError):
        if sys.platform == "win32":  # pragma: no cover
            process.kill()
        else:
            os.killpg(process.pid, sig)  # the leader's pid is the group id (start_new_session)


async def _exited_within(process: anyio.abc.Process, timeout: float) -> bool:
    # Polling returncode, not process.wait(): on 3.11 wait() also waits for pipe EOF, which a grandchild holding
    # the pipes would delay (the SDK avoids it for the same reason).
    with anyio.move_on_after(timeout):
        while process.returncode is None:
            await anyio.sleep(0.01)
    return process.returncode is not None


# -- Streamable HTTP -------------------------------------------------------------------------------------------------


@asynccontextmanager
async def http_transport(url: str, *, headers: dict[str, str] | None = None) -> AsyncIterator[Streams]:
    """The SDK's Streamable HTTP client transport (POST per message, SSE or JSON answers, ``Mcp-Session-Id``,
    DELETE on close). ``headers`` go on every HTTP request (e.g. ``Authorization``). Nothing is sent before the
    first message, so an unreachable URL shows up on the first request."""
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    client = create_mcp_http_client(headers=dict(headers or {}))
    async with client, streamable_http_client(url, http_client=client) as (read, write):
        yield Streams(read, write, "http")


# -- in-memory -------------------------------------------------------------------------------------------------------


@asynccontextmanager
async def memory_transport(server: Any, *, shutdown_grace_s: float = 2.0) -> AsyncIterator[Streams]:
    """Run a low-level ``mcp.server.Server`` (or an ``MCPServer``) in this event loop, joined to us by a pair of
    memory streams. On exit the server sees end-of-input and gets ``shutdown_grace_s`` to finish; then it is
    cancelled."""
    from mcp.shared.memory import create_client_server_memory_streams

    lowlevel = getattr(server, "_lowlevel_server", server)  # MCPServer wraps a low-level Server
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        client_read, client_write = client_streams
        server_read, server_write = server_streams
        done = anyio.Event()

        async def run_server() -> None:
            try:
                await lowlevel.run(server_read, server_write, lowlevel.create_initialization_options())
            finally:
                done.set()

        async with anyio.create_task_group() as tg:
            tg.start_soon(run_server)
            try:
                yield Streams(client_read, client_write, "memory")
            finally:
                with anyio.CancelScope(shield=True):
                    client_write.close()  # end of input for the server
                    with anyio.move_on_after(shutdown_grace_s):
                        await done.wait()
                tg.cancel_scope.cancel()
