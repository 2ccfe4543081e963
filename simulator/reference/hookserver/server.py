"""The reference hook server's I/O shell: a ``websockets`` asyncio server driving ``HookServerMachine``.

Theory of operation. ``HookServer`` runs its own asyncio loop in a daemon thread (the pattern of the reference
desktop's client). Every input — a connection opening, a frame, a connection ending, a due wake-up, a control
command — is fed to the machine under one lock, so effects keep their order; the effects are then carried out:

* ``Persist`` rows go into the current *batch* (group commit). One dedicated committer thread writes a batch in one
  SQLite transaction (``store.apply``) while the machine goes on with the next inputs, whose ``Persist`` rows
  gather in the next batch; the machine's lock is never held across a commit. A ``Send`` or ``Close`` that follows
  a ``Persist`` in an input is **held** until the batch holding that ``Persist`` is committed, then released in
  order (spec "accepted ... 持久交接/恢复边界": ``turn.delivery(accepted)`` leaves only after the result's commit).
  A frame of an input without ``Persist`` goes at once, unless an earlier frame to the same connection is still
  held (it then waits behind it: per-connection order holds), or it may show state that is not committed yet:
  only ``ping``/``pong`` carry no state; any other such frame (a replayed ``turn.delivery``) waits for the newest
  uncommitted batch. ``Persist(lazy=True)`` (a ``turn.progress`` snapshot: latest-wins, losing it is harmless)
  does not call for a commit of its own: it rides the next batch, or a flush ``LAZY_FLUSH_S`` later. A control
  command (a view too) answers once every row gathered before its answer is committed; a restart and a stop commit
  everything first;
* ``Send`` / ``Close`` go to the connection's outbox (``_Outbox``): a text frame is written at once when nothing
  waits before it and ``websockets`` would not wait either (connection open, write buffer under its high-water
  mark); otherwise it is queued, and a writer task writes the queue in order (a slow peer never blocks the machine).
  The frames a committed batch releases to one connection (a ``task.dispatch``, a ``turn.delivery(accepted)`` and
  its ``delivered``) are framed one after the other and handed to the transport in one write;
* ``Wake`` re-arms the ticker (unless it already sleeps until that time or sooner), which calls ``tick(now)``
  when the earliest wake-up is due.

Inputs arrive without a task switch: a connection (``_Connection``) hands a complete text frame to the machine
from ``data_received`` as it is parsed, unless a frame of that connection still waits in ``recv``'s queue (a
binary or fragmented one, or one that arrived while a restart or a control command held the lock): then the frame
is queued behind it and the connection's handler takes them in order, as every frame was taken before.

The event loop is asyncio's, or uvloop's when the CLI finds it installed (``loops.py``).

The clock is the wall clock in unix ms plus an offset that the control capability ``advance-clock`` moves forward.
The bearer token is checked at the upgrade (HTTP 401 with a text body, docs/hook-server-plan.md). ``max_size`` is
four times the protocol's 48 MiB-character limit in bytes (a frame at the limit takes at most three UTF-8 bytes per
UTF-16 unit, 144 MiB), so the parser, not the transport, judges frame size and the connection stays open. Binary
frames are dropped and logged (spec §3: text frames only); a text frame that is not UTF-8 is failed by the
WebSocket layer with 1007, as RFC 6455 §8.1 requires.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import queue as _queue
import threading
import time
from collections import deque
from collections.abc import Callable
from http import HTTPStatus
from typing import Any, TypeVar, overload

from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.exceptions import WebSocketException
from websockets.frames import TEXT, Frame
from websockets.http11 import Request, Response
from websockets.protocol import State

from ...hook import HOOK_MAX_FRAME_CHARS
from .machine import CLOSE_RESTART, Close, Effect, HookServerMachine, Persist, Send, ServerSettings, Wake
from .loops import new_event_loop
from .store import HookServerStore

__all__ = ["HookServer", "MAX_SIZE", "LAZY_FLUSH_S"]

log = logging.getLogger(__name__)
#: the value a control command computes along with its effects (``HookServer.call``)
_T = TypeVar("_T")

#: Bytes accepted per WebSocket message: room for any frame of up to HOOK_MAX_FRAME_CHARS UTF-16 units, and more,
#: so that over-limit frames reach the parser and are dropped there (the connection stays open).
MAX_SIZE = 4 * HOOK_MAX_FRAME_CHARS
#: A batch holding only lazy rows (turn.progress snapshots) is committed at the latest this long after it opened.
LAZY_FLUSH_S = 0.05
#: Frame types that show no server state: sent at once when their input persists nothing.
_STATELESS = frozenset({"ping", "pong"})
#: How often ``settle`` looks again while the server is busy.
SETTLE_POLL_S = 0.01


class _Outbox:
    """One connection's outgoing frames, in order: written at once when nothing waits, else by a writer task."""

    __slots__ = ("ws", "queue", "task", "closed")

    def __init__(self, ws: ServerConnection) -> None:
        self.ws = ws
        self.queue: deque[Send | Close] = deque()
        self.task: asyncio.Task[None] | None = None
        self.closed = False  # a Close is posted (or a write failed): later frames are dropped


def _write_now(ws: ServerConnection, text: str, flush: bool = True) -> bool:
    """Write a text frame without a task switch when ``ws.send`` would not wait: the connection open, its write
    buffer under the high-water mark, no fragmented message in progress (what ``send`` checks before it writes).
    False: the caller queues the frame for the writer task. ``flush=False`` only frames the text into the
    connection's outgoing bytes; the caller then hands them to the transport with ``_flush_writes`` (one write
    for several frames to one connection)."""
    if ws.protocol.state is not State.OPEN or getattr(ws, "paused", True) \
            or getattr(ws, "send_in_progress", True) is not None:
        return False
    try:
        ws.protocol.send_text(text.encode())
        if flush:
            ws.send_data()
    except Exception as exc:  # noqa: BLE001 - as ws.send does: the connection is dropped
        log.info("could not write to a connection: %s", exc)
        ws.transport.abort()
    return True


def _flush_writes(ws: ServerConnection) -> None:
    """Hand the frames ``_write_now(..., flush=False)`` framed to the transport, in one write."""
    try:
        ws.send_data()
    except Exception as exc:  # noqa: BLE001 - as ws.send does: the connection is dropped
        log.info("could not write to a connection: %s", exc)
        ws.transport.abort()


class _Connection(ServerConnection):
    """A ``websockets`` server connection that hands a complete text frame to ``sink`` from ``data_received``
    (no queue, no task switch), when that keeps the order of the connection's inputs: ``direct`` is set by the
    connection's handler once it has taken every frame queued before (``HookServer._handler``), and cleared by any
    frame that goes the usual way. The usual way, through ``recv`` and the handler, stays for everything else: a
    binary or fragmented frame, a text frame that is not UTF-8 (``recv`` fails the connection with 1007, RFC 6455
    §8.1), and a frame that ``sink`` declines (a restart or a control command holds the machine: it returns
    False)."""

    sink: Callable[[str], bool] | None = None
    direct = False

    def process_event(self, event: Any) -> None:
        if self.direct and type(event) is Frame and event.opcode is TEXT and event.fin:
            sink = self.sink
            if sink is not None:
                try:
                    text = str(event.data, "utf-8")  # as bytes.decode(), for any bytes-like payload
                except UnicodeDecodeError:
                    pass
                else:
                    if sink(text):
                        return
        if self.request is not None and type(event) is Frame and event.opcode.value <= 2:  # a data frame
            self.direct = False
        super().process_event(event)

    def queue_empty(self) -> bool:
        """No frame waits in ``recv``'s queue (False when this ``websockets`` does not say: no direct path)."""
        frames = getattr(self.recv_messages, "frames", None)
        return frames is not None and len(frames) == 0


class _Batch:
    """The ``Persist`` rows of consecutive inputs, committed in one transaction, and the frames held until then."""

    __slots__ = ("rows", "sends", "urgent", "done", "finished", "error")

    def __init__(self) -> None:
        self.rows: list[Persist] = []
        self.sends: list[Send | Close] = []
        self.urgent = False  # something waits for the commit (a held frame, a control answer, a non-lazy row)
        self.done: asyncio.Future[None] | None = None  # created by a waiter
        self.finished = False
        self.error: BaseException | None = None


class HookServer:
    def __init__(self, settings: ServerSettings, store: HookServerStore, *, host: str = "127.0.0.1",
                 port: int = 0, token: str | None = None, ids: Callable[[], str] | None = None,
                 loop: str = "asyncio") -> None:
        self.settings, self.store = settings, store
        #: the loop asked for (``loops.LOOP_CHOICES``) and, once started, the one that runs (``loop_name``)
        self.loop_choice, self.loop_name = loop, ""
        self.host, self.port, self.token = host, port, token
        self._ids = ids
        self.machine = self._new_machine()
        self.clock_offset_ms = 0
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._start_error: BaseException | None = None
        self._server: Server | None = None
        self._lock: asyncio.Lock | None = None
        self._wake: asyncio.Event | None = None
        #: the machine time the ticker sleeps until (None: until woken): a later ``Wake`` need not wake it
        self._ticker_due: int | None = None
        self._stop: asyncio.Event | None = None
        self._outboxes: dict[str, _Outbox] = {}
        self._sockets: dict[str, ServerConnection] = {}
        self._conn_n = 0
        self._stopped = False
        # group commit (see the module docstring)
        self._batch = _Batch()  # open: gathering rows
        self._inflight: _Batch | None = None  # handed to the committer thread
        self._held: dict[str, _Batch] = {}  # connection → the latest uncommitted batch holding a frame for it
        self._commits: _queue.SimpleQueue[_Batch | None] = _queue.SimpleQueue()
        self._committer: threading.Thread | None = None
        self._lazy_timer: asyncio.TimerHandle | None = None
        self.bound: tuple[str, int] | None = None

    def _new_machine(self) -> HookServerMachine:
        """The machine the settings name (``ServerSettings.machine_class``; ``HookServerMachine`` by default)."""
        return (self.settings.machine_class or HookServerMachine)(self.settings, ids=self._ids)

    def now(self) -> int:
        return time.time_ns() // 1_000_000 + self.clock_offset_ms

    @property
    def url(self) -> str:
        assert self.bound is not None, "the server is not started"
        host, port = self.bound
        shown = f"[{host}]" if ":" in host else host
        return f"ws://{shown}:{port}/"

    # -- lifecycle ------------------------------------------------------------------------------------------

    def start(self, timeout: float = 10.0) -> HookServer:
        self._thread = threading.Thread(target=self._run, name="hook-server-reference", daemon=True)
        self._thread.start()
        if not self._ready.wait(timeout):
            raise RuntimeError("the hook server loop did not start")
        if self._start_error is not None:
            raise self._start_error
        return self

    def _run(self) -> None:
        try:
            loop, self.loop_name = new_event_loop(self.loop_choice)
        except (ValueError, RuntimeError) as exc:
            self._start_error = exc
            self._ready.set()
            return
        self.loop = loop
        asyncio.set_event_loop(loop)
        try:
            loop.run_until_complete(self._main())
        except BaseException as exc:  # noqa: BLE001 - reported to start() or logged
            if not self._ready.is_set():
                self._start_error = exc
                self._ready.set()
            else:
                log.exception("hook server loop ended with an error")
        finally:
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.close()

    async def _main(self) -> None:
        self._lock, self._wake, self._stop = asyncio.Lock(), asyncio.Event(), asyncio.Event()
        self._committer = threading.Thread(target=self._commit_loop, args=(asyncio.get_running_loop(),),
                                           name="hook-server-commit", daemon=True)
        self._committer.start()
        try:
            await self._serve()
        finally:
            try:
                await asyncio.wait_for(self._flush(), 10)
            except Exception:  # noqa: BLE001 - a failed last commit is logged where it failed
                log.warning("the last batch could not be committed at stop")
            self._commits.put(None)
            self._committer.join(10)

    async def _serve(self) -> None:
        assert self._stop is not None
        restored = self.machine.restore(self.store.load(), self.now())
        self._apply(restored)
        await self._flush()
        self._server = await serve(self._handler, self.host, self.port, process_request=self._check_token,
                                   max_size=MAX_SIZE, max_queue=64, ping_interval=None, compression=None,
                                   close_timeout=2, create_connection=_Connection)
        sock = next(iter(self._server.sockets))
        self.bound = (sock.getsockname()[0], sock.getsockname()[1])
        ticker = asyncio.create_task(self._ticker())
        self._ready.set()
        await self._stop.wait()
        ticker.cancel()
        self._server.close()
        try:
            await asyncio.wait_for(self._server.wait_closed(), 5)
        except TimeoutError:
            pass

    def stop(self, timeout: float = 10.0) -> None:
        """Close every connection and end the loop (bounded; safe to call twice)."""
        if self._stopped:
            return
        self._stopped = True
        loop, stop = self.loop, self._stop
        if loop is not None and stop is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(stop.set)
            except RuntimeError:
                pass
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the upgrade ----------------------------------------------------------------------------------------

    def _check_token(self, connection: ServerConnection, request: Request) -> Response | None:
        if self.token is None:
            return None
        header = request.headers.get("Authorization")
        if not header or not header.startswith("Bearer ") or not header[7:].strip():
            return connection.respond(HTTPStatus.UNAUTHORIZED, "missing bearer token\n")
        if not self._token_matches(header[7:].strip()):
            return connection.respond(HTTPStatus.UNAUTHORIZED, "invalid bearer token\n")
        return None

    def _token_matches(self, given: str) -> bool:
        """The bearer token a desktop presented is the server's (compared in constant time)."""
        assert self.token is not None
        return hmac.compare_digest(given.encode(), self.token.encode())

    # -- connections ----------------------------------------------------------------------------------------

    async def _handler(self, ws: ServerConnection) -> None:
        self._conn_n += 1
        conn_id = f"conn-{self._conn_n}"
        outbox = self._outboxes[conn_id] = _Outbox(ws)
        self._sockets[conn_id] = ws
        machine = self.machine
        #: the connection, when it is ours: frames may then take the direct path (``_Connection``)
        direct = ws if type(ws) is _Connection else None
        try:
            await self._event(lambda now: machine.connect(conn_id, now), machine)
            lock = self._lock
            assert lock is not None
            if direct is not None:
                direct.sink = self._direct_sink(conn_id, machine)
                direct.direct = direct.queue_empty()
            async for raw in ws:
                binary = type(raw) is not str
                if lock.locked():  # a restart or a control command is running: wait for it
                    def frame_input(now: int, raw: str | bytes = raw, b: bool = binary) -> list[Effect]:
                        return machine.frame(conn_id, raw, now, binary=b)

                    await self._event(frame_input, machine)
                else:
                    self._take(conn_id, machine, raw, binary)
                if direct is not None and direct.queue_empty():
                    direct.direct = True  # what arrives now is the next input
        except WebSocketException as exc:
            log.info("%s ended: %s", conn_id, exc)
        finally:
            if direct is not None:
                direct.sink, direct.direct = None, False
            await self._event(lambda now: machine.disconnect(conn_id, now), machine)
            if self._outboxes.get(conn_id) is outbox:
                del self._outboxes[conn_id]
            self._sockets.pop(conn_id, None)
            writer = outbox.task
            if writer is not None:  # let it write what is queued (bounded)
                try:
                    await asyncio.wait_for(asyncio.shield(writer), 2)
                except (TimeoutError, asyncio.CancelledError):
                    writer.cancel()

    def _take(self, conn_id: str, machine: HookServerMachine, raw: str | bytes, binary: bool) -> None:
        """One frame, in the common case: nothing holds the lock, and carrying out the effects never awaits, so
        this runs as one step under the lock would (called without a task switch, by the handler or from
        ``data_received`` through ``_direct_sink``)."""
        if machine is not self.machine:
            return  # a connection of the machine before a restart: its events end with it
        try:
            effects = machine.frame(conn_id, raw, self.now(), binary=binary)
        except Exception:  # noqa: BLE001 - a machine bug must not take the server down; it is logged
            log.exception("the hook server machine failed on an input")
            return
        self._apply(effects)

    def _direct_sink(self, conn_id: str, machine: HookServerMachine) -> Callable[[str], bool]:
        """What ``_Connection`` calls with a text frame as it arrives: takes it (True), or declines it while a
        restart or a control command holds the lock (False: it goes through ``recv`` and waits for the lock)."""
        lock = self._lock
        assert lock is not None

        def sink(text: str) -> bool:
            if lock.locked():
                return False
            try:
                self._take(conn_id, machine, text, False)
            except Exception:  # noqa: BLE001 - as in the handler, where it ended the connection; logged
                log.exception("the hook server failed on an input")
            return True

        return sink

    def _post(self, outbox: _Outbox, effect: Send | Close,
              unflushed: dict[int, ServerConnection] | None = None) -> None:
        """Write ``effect`` now, or queue it behind the connection's writer task. ``unflushed`` (a batch's release):
        frame it only, and note the connection; the caller then writes each noted connection's frames in one
        transport write (``_flush_writes``), before anything else can write to it."""
        if outbox.closed:
            return
        if type(effect) is Send:
            if outbox.task is None and _write_now(outbox.ws, effect.text, unflushed is None):
                if unflushed is not None:
                    unflushed[id(outbox.ws)] = outbox.ws
                return
        else:
            outbox.closed = True
        outbox.queue.append(effect)
        if outbox.task is None:
            outbox.task = asyncio.get_running_loop().create_task(self._writer(outbox))

    async def _writer(self, outbox: _Outbox) -> None:
        ws, queue = outbox.ws, outbox.queue
        try:
            while queue:
                item = queue.popleft()
                if type(item) is Send:
                    await ws.send(item.text)
                else:
                    await ws.close(item.code, item.reason)
                    queue.clear()
        except (OSError, WebSocketException) as exc:
            log.info("could not write to a connection: %s", exc)
            outbox.closed = True
            queue.clear()
        finally:
            outbox.task = None

    # -- effects --------------------------------------------------------------------------------------------

    async def _event(self, fn: Callable[[int], list[Effect]], machine: HookServerMachine | None = None) -> None:
        assert self._lock is not None
        async with self._lock:
            if machine is not None and machine is not self.machine:
                return  # a connection of the machine before a restart: its events end with it
            try:
                effects = fn(self.now())
            except Exception:  # noqa: BLE001 - a machine bug must not take the server down; it is logged
                log.exception("the hook server machine failed on an input")
                return
            self._apply(effects)

    def _apply(self, effects: list[Effect]) -> _Batch | None:
        """Carry out one input's effects (on the loop, no await); returns the batch holding its rows, if any."""
        batch = self._batch
        persisted = False
        for effect in effects:
            if type(effect) is Persist:
                batch.rows.append(effect)
                if not effect.lazy:
                    batch.urgent = True
                persisted = True
            elif type(effect) is Send or type(effect) is Close:
                conn = effect.conn
                hold = batch if persisted else self._held.get(conn)
                if hold is None and (type(effect) is Close or effect.type not in _STATELESS):
                    hold = batch if batch.rows else self._inflight
                if hold is None:
                    self._deliver(effect)
                else:
                    hold.sends.append(effect)
                    hold.urgent = True
                    self._held[conn] = hold
            elif type(effect) is Wake and self._wake is not None:
                due = self._ticker_due
                if due is None or effect.at < due:
                    self._wake.set()
        self._kick()
        return batch if persisted else None

    def _deliver(self, effect: Send | Close, unflushed: dict[int, ServerConnection] | None = None) -> None:
        outbox = self._outboxes.get(effect.conn)
        if outbox is not None:
            self._post(outbox, effect, unflushed)

    def _kick(self) -> None:
        """Hand the open batch to the committer thread when it is idle and the batch is due."""
        if self._inflight is not None:
            return  # its completion kicks again
        batch = self._batch
        if not batch.rows:
            if batch.sends:  # nothing to commit: nothing to wait for
                self._batch = _Batch()
                self._release(batch, None)
            return
        if not batch.urgent:
            if self._lazy_timer is None:
                self._lazy_timer = asyncio.get_running_loop().call_later(LAZY_FLUSH_S, self._lazy_flush)
            return
        if self._lazy_timer is not None:
            self._lazy_timer.cancel()
            self._lazy_timer = None
        self._batch, self._inflight = _Batch(), batch
        self._commits.put(batch)

    def _lazy_flush(self) -> None:
        self._lazy_timer = None
        self._batch.urgent = True
        self._kick()

    def _commit_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """The committer thread: one transaction per batch, then the loop releases the batch's frames."""
        while True:
            batch = self._commits.get()
            if batch is None:
                return
            error: BaseException | None = None
            try:
                self.store.apply(batch.rows)
            except BaseException as exc:  # noqa: BLE001 - reported on the loop
                error = exc
            try:
                loop.call_soon_threadsafe(self._committed, batch, error)
            except RuntimeError:  # the loop is closed: nobody waits any more
                return

    def _committed(self, batch: _Batch, error: BaseException | None) -> None:
        self._inflight = None
        self._release(batch, error)
        self._kick()

    def _release(self, batch: _Batch, error: BaseException | None) -> None:
        held = self._held
        if error is not None:
            log.error("a commit failed (%d rows): %r; the frames that waited for it are not sent", len(batch.rows),
                      error, exc_info=error)
        closed: set[str] = set()
        unflushed: dict[int, ServerConnection] = {}  # the frames of one connection go in one write
        for effect in batch.sends:
            conn = effect.conn
            if held.get(conn) is batch:
                del held[conn]
            if error is None:
                self._deliver(effect, unflushed)
            elif conn not in closed:
                closed.add(conn)  # not durable: the peer must not see what follows; it reconnects and resumes
                self._deliver(Close(conn, 1011, "internal error"))
        for ws in unflushed.values():
            _flush_writes(ws)
        batch.finished, batch.error = True, error
        if batch.done is not None and not batch.done.done():
            batch.done.set_result(None)

    async def _committed_batch(self, batch: _Batch) -> None:
        """Wait until ``batch`` is committed (raises if its commit failed)."""
        if not batch.finished:
            if batch.done is None:
                batch.done = asyncio.get_running_loop().create_future()
            batch.urgent = True
            self._kick()
            await batch.done
        if batch.error is not None:
            raise RuntimeError(f"the commit failed: {batch.error!r}")

    async def _flush(self) -> None:
        """Commit every row gathered so far (and release the frames that wait for them)."""
        if self._batch.rows:
            await self._committed_batch(self._batch)
        elif self._inflight is not None:
            await self._committed_batch(self._inflight)

    async def _ticker(self) -> None:
        assert self._wake is not None
        while True:
            self._wake.clear()
            nxt = self.machine.next_wake()
            self._ticker_due = None
            if nxt is not None and nxt <= self.now():
                await self._event(lambda now: self.machine.tick(now))
                continue
            timeout = None if nxt is None else min(60.0, (nxt - self.now()) / 1000)
            self._ticker_due = nxt
            try:
                await asyncio.wait_for(self._wake.wait(), timeout)
            except TimeoutError:
                pass

    # -- control (called from other threads) ----------------------------------------------------------------

    @overload
    def call(self, fn: Callable[[int], tuple[_T, list[Effect]]], timeout: float = 30.0) -> _T: ...

    @overload
    def call(self, fn: Callable[[int], list[Effect] | None], timeout: float = 30.0) -> None: ...

    def call(self, fn: Callable[[int], tuple[_T, list[Effect]] | list[Effect] | None],
             timeout: float = 30.0) -> _T | None:
        """Run ``fn(now)`` on the loop under the lock; ``fn`` returns effects, or ``(value, effects)``."""
        async def run() -> _T | None:
            assert self._lock is not None
            async with self._lock:
                out = fn(self.now())
                value, effects = out if isinstance(out, tuple) else (None, out)
                self._apply(list(effects or []))
            # answered once everything gathered so far is committed: what a command did, and what a view shows,
            # is durable when the answer arrives (as when every input committed before the next one ran)
            await self._flush()
            return value

        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def _settled(self, now: int) -> bool:
        """Whether the server is settled (docs/control-api.md, hook-server ``settle``), on the loop under the lock:
        nothing gathered and not committed, no commit running, no frame held for a commit, no frame queued for a
        writer or left in a transport's buffer, no frame waiting in a connection's queue to be taken, no connection
        closing or closed whose clean-up has not run (its handler still lists it), and no wake-up of the machine
        due. A wake-up due later (a clean-up delay, a publish held by ``hold-publishes``) does not count."""
        batch = self._batch
        if batch.rows or batch.sends or self._inflight is not None or self._held:
            return False
        for ws in self._sockets.values():
            if ws.protocol.state is not State.OPEN:
                return False
            frames = getattr(getattr(ws, "recv_messages", None), "frames", None)
            if frames:
                return False
            transport = ws.transport
            if transport is not None and transport.get_write_buffer_size():
                return False
        if any(outbox.queue or outbox.task is not None for outbox in self._outboxes.values()):
            return False
        due = self.machine.next_wake()
        return due is None or due > now

    def settle(self, timeout_s: float) -> bool:
        """Wait until the server is settled (``_settled``) or ``timeout_s`` passed; whether it settled."""
        deadline = time.monotonic() + timeout_s
        while not self.call(lambda now: (self._settled(now), [])):
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(SETTLE_POLL_S, left))
        return True

    def advance_clock(self, ms: int) -> int:
        def run(now: int) -> tuple[int, list[Effect]]:
            self.clock_offset_ms += ms
            now = self.now()
            assert self._wake is not None
            self._wake.set()  # the ticker's sleep was timed on the clock before the move
            return now, self.machine.tick(now)

        return self.call(run)

    def restart(self, timeout: float = 30.0) -> None:
        """Close every connection (1012), drop the in-memory state and reload it from SQLite."""
        async def run() -> None:
            assert self._lock is not None
            async with self._lock:
                await self._flush()  # everything gathered is committed and its frames queued before the close
                for conn_id, outbox in self._outboxes.items():
                    self._post(outbox, Close(conn_id, *CLOSE_RESTART))
                self._outboxes.clear()
                self._held.clear()
                self.machine = self._new_machine()
                self._apply(self.machine.restore(self.store.load(), self.now()))
                await self._flush()
            assert self._wake is not None
            self._wake.set()

        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def connection_count(self) -> int:
        return len(self._sockets)
