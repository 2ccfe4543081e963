"""The reference desktop's I/O shell: a WebSocket client driving ``DesktopMachine`` (STYLE.md: effects out).

``DesktopClient`` runs its own asyncio loop in a daemon thread: it dials ``url`` (``Authorization: Bearer`` when a
token is given), feeds the machine every event (connected, frame, timer, written, disconnected) under one lock so
effects keep their order, carries the effects out (socket writes, SQLite outbox, timers) and reconnects after a
short pause unless the control API said ``disconnect``. ``call(fn)`` runs a control command on the loop.
The machine's clock is the wall clock plus ``clock_offset_ms``, which only grows (control ``advance-clock``: the
reopen bookkeeping's TTL can be judged without waiting); timers are computed on the same clock, so they keep their
real delays. ``stop()`` is bounded and idempotent.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException

from ...hook import HOOK_MAX_FRAME_CHARS
from .gateway import TOOL_TIMER
from .group_relay import ForgetGroupEntries, SaveGroupEntry
from .machine import (
    DesktopMachine, Effect, Forget, Persist, SaveAck, SaveSession, Schedule, Send, Unschedule,
)
from .store import OutboxStore

__all__ = ["DesktopClient", "reconnect_log_due"]

log = logging.getLogger(__name__)


#: Largest WebSocket message the desktop reads. The protocol limit is 48 Mi UTF-16 units (spec §3
#: HOOK_MAX_FRAME_CHARS), and a unit can take three UTF-8 bytes: a smaller transport limit would close the
#: connection (1009) on a valid frame of CJK text instead of letting the parser judge it.
MAX_FRAME_BYTES = 4 * HOOK_MAX_FRAME_CHARS


def _now() -> float:
    return time.time() * 1000


#: A connection that lasted this long ends a run of quick redials (its successor is logged again).
STABLE_S = 1.0
#: The first pause before dialling again (spec §"turn.reopen": "desktop 可能在毫秒级重连"): after a connection that
#: opened, and before the first redial of a run of failed ones.
RECONNECT_DELAY_S = 0.02
#: The longest pause between dials: each failed dial doubles the pause up to this (no longer than the 0.2 s the
#: reference paused before: a desktop started once for a whole run against a harness that listens anew for each
#: scenario, ``--target desktop=listen:…``, must not lose time between scenarios).
RECONNECT_MAX_S = 0.25

#: The machine's timers that wait for something from outside the desktop (docs/control-api.md, desktop ``settle``):
#: an open interaction card's timeout (it waits for a decision) and a tool call's deadline (it waits for the
#: tool.response). Every other timer (a turn's next step, a throttled progress frame) is work still running.
WAITING_TIMERS = frozenset({"interaction", TOOL_TIMER})

#: How often ``settle`` looks again while the desktop is busy.
SETTLE_POLL_S = 0.01


def reconnect_log_due(attempt: int) -> bool:
    """Whether the ``attempt``-th dial in a row is logged: the 1st, 2nd, 4th, 8th, … (a desktop that redials every
    0.25 s while the server is away would otherwise write four lines a second)."""
    return attempt >= 1 and attempt & (attempt - 1) == 0


def redial_pause(last: float, *, opened: bool, first: float = RECONNECT_DELAY_S) -> float:
    """The pause before the next dial: ``first`` after a connection that opened (or before any pause), else twice
    the ``last`` pause, at most ``RECONNECT_MAX_S`` (or ``first``, if that is longer)."""
    if opened or last <= 0:
        return first
    return min(last * 2, max(RECONNECT_MAX_S, first))


class DesktopClient:
    def __init__(self, url: str, token: str | None, machine: DesktopMachine, store: OutboxStore, *,
                 reconnect_delay: float = RECONNECT_DELAY_S, max_size: int | None = MAX_FRAME_BYTES) -> None:
        self.url, self.token = url, token
        self.machine, self.store = machine, store
        self.reconnect_delay = reconnect_delay
        #: Whether the current dial is one whose troubles are logged (the logging backs off: ``_dial_forever``).
        self._log_this_dial = True
        self.max_size = max_size
        self.loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._ws: ClientConnection | None = None
        self._lock: asyncio.Lock | None = None
        self._timers: dict[tuple[str, str], asyncio.TimerHandle] = {}
        self._paused = False
        self._resume: asyncio.Event | None = None
        self._main: asyncio.Task[None] | None = None
        self._stopped = False
        self.connections = 0
        self.clock_offset_ms = 0.0
        #: Timers that fired and whose event has not run yet (``_fire`` → ``_event``): work still running.
        self._firing = 0

    def now(self) -> float:
        """The machine's clock (unix ms): the wall clock plus the offset ``advance_clock`` added."""
        return _now() + self.clock_offset_ms

    # -- lifecycle ------------------------------------------------------------------------------------------

    def start(self) -> DesktopClient:
        self._thread = threading.Thread(target=self._run, name="desktop-reference", daemon=True)
        self._thread.start()
        if not self._ready.wait(5):
            raise RuntimeError("the desktop loop did not start")
        return self

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self.loop = loop
        asyncio.set_event_loop(loop)
        self._lock = asyncio.Lock()
        self._resume = asyncio.Event()
        self._main = loop.create_task(self._dial_forever())
        self._ready.set()
        try:
            loop.run_until_complete(self._main)
        except (asyncio.CancelledError, Exception):  # noqa: BLE001 - the loop ends with the client
            pass
        finally:
            for handle in self._timers.values():
                handle.cancel()
            pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            try:
                loop.run_until_complete(loop.shutdown_asyncgens())
            finally:
                loop.close()

    def stop(self, timeout: float = 5.0) -> None:
        """Close the connection and end the loop (bounded; safe to call twice)."""
        if self._stopped:
            return
        self._stopped = True
        loop, main = self.loop, self._main
        if loop is not None and main is not None and not loop.is_closed():
            try:
                loop.call_soon_threadsafe(main.cancel)
            except RuntimeError:
                pass
        if self._thread is not None:
            self._thread.join(timeout)

    # -- the connection -------------------------------------------------------------------------------------

    def _auth_headers(self) -> dict[str, str] | None:
        """The upgrade's ``Authorization: Bearer <token>``, on every (re)connection (docs/targets.md
        "Authentication")."""
        if not self.token:
            return None
        return {"Authorization": f"Bearer {self.token}"}

    async def _dial_forever(self) -> None:
        """Dial, serve the connection, dial again: ``reconnect_delay`` after a connection that opened, and after
        each failed dial twice the pause before it, up to ``RECONNECT_MAX_S`` (a server that is away is not dialled
        fifty times a second). Logging backs off too: the dials since the last connection that lasted ``STABLE_S``
        are counted, and only the 1st, 2nd, 4th, 8th, … of them is logged (a relay that accepts and hangs up would
        otherwise cost a line per dial)."""
        assert self._resume is not None
        loop = asyncio.get_running_loop()
        attempt = 0
        pause = 0.0
        while True:
            if self._paused:
                self._resume.clear()
                await self._resume.wait()
                continue
            attempt += 1
            due = self._log_this_dial = reconnect_log_due(attempt)
            again = f" (dial {attempt} in a row; logged again at dial {attempt * 2})" if attempt > 1 else ""
            headers = self._auth_headers()
            opened: float | None = None
            try:
                async with connect(self.url, additional_headers=headers, max_size=self.max_size,
                                   open_timeout=5, close_timeout=1, ping_interval=None) as ws:
                    self._ws = ws
                    self.connections += 1
                    opened = loop.time()
                    if due:
                        log.info("connected to %s%s", self.url, again)
                    await self._event(lambda now: self.machine.on_connected(now))
                    async for raw in ws:
                        await self._event(partial(self.machine.on_frame, raw))
            except asyncio.CancelledError:
                raise
            except (OSError, WebSocketException, asyncio.TimeoutError) as exc:
                if due:
                    log.info("connection to %s ended: %s%s", self.url, exc, again)
            finally:
                if self._ws is not None:
                    self._ws = None
                    await self._event(lambda now: self.machine.on_disconnected(now))
            if opened is not None and loop.time() - opened >= STABLE_S:
                attempt = 0  # a connection that lasted: the next dial is logged again
            pause = redial_pause(pause, opened=opened is not None, first=self.reconnect_delay)
            await asyncio.sleep(pause)

    async def _event(self, fn: Callable[[float], list[Effect]]) -> Any:
        assert self._lock is not None
        async with self._lock:
            effects = fn(self.now())
            await self._apply(effects)

    async def _apply(self, effects: list[Effect]) -> None:
        for effect in effects:
            if isinstance(effect, Send):
                ws = self._ws
                ok = False
                if ws is not None:
                    try:
                        await ws.send(effect.text)
                        ok = True
                    except (OSError, WebSocketException) as exc:
                        if self._log_this_dial:
                            log.info("could not send %s: %s", effect.type, exc)
                more = (self.machine.on_written(effect, self.now()) if ok
                        else self.machine.on_send_failed(effect, self.now()))
                await self._apply(more)
            elif isinstance(effect, Persist):
                self.store.put(effect.request_id, effect.text)
            elif isinstance(effect, Forget):
                self.store.delete(effect.request_id)
            elif isinstance(effect, SaveSession):
                self.store.put_session(effect.session_id, effect.external_key, effect.workspace, effect.archived)
            elif isinstance(effect, SaveAck):
                self.store.put_ack(effect.request_id, effect.text)
            elif isinstance(effect, SaveGroupEntry):
                self.store.put_group_entry(effect.message_id, effect.seq, effect.text)
            elif isinstance(effect, ForgetGroupEntries):
                self.store.delete_group_entries(effect.message_ids)
            elif isinstance(effect, Schedule):
                self._unschedule(effect.key)
                delay = max(0.0, (effect.at - self.now()) / 1000)
                assert self.loop is not None
                self._timers[effect.key] = self.loop.call_later(delay, self._fire, effect.key)
            elif isinstance(effect, Unschedule):
                self._unschedule(effect.key)

    def _unschedule(self, key: tuple[str, str]) -> None:
        handle = self._timers.pop(key, None)
        if handle is not None:
            handle.cancel()

    def _fire(self, key: tuple[str, str]) -> None:
        self._timers.pop(key, None)
        assert self.loop is not None
        self._firing += 1
        self.loop.create_task(self._timer_event(key))

    async def _timer_event(self, key: tuple[str, str]) -> None:
        try:
            await self._event(lambda now: self.machine.on_timer(key, now))
        finally:
            self._firing -= 1

    # -- control (called from other threads) ------------------------------------------------------------------

    def call(self, fn: Callable[[float], Any], timeout: float = 5.0) -> Any:
        """Run ``fn(now)`` on the loop under the lock; ``fn`` returns effects, or (value, effects). Returns value."""
        async def run() -> Any:
            assert self._lock is not None
            async with self._lock:
                out = fn(self.now())
                value, effects = out if isinstance(out, tuple) else (None, out)
                await self._apply(list(effects or []))
                return value

        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def advance_clock(self, ms: float, timeout: float = 5.0) -> None:
        """Move the machine's clock ``ms`` forward (never back), under the lock."""
        if ms < 0:
            raise ValueError("the clock only moves forward")

        def run(now: float) -> list[Effect]:
            self.clock_offset_ms += ms
            return []
        self.call(run, timeout)

    def settled(self) -> bool:
        """Whether the desktop is settled (docs/control-api.md, desktop ``settle``), read under the event lock: no
        event is being handled (the frames of every event handled so far are written), no timer fired without its
        event run, and every timer left waits for something from outside (``WAITING_TIMERS``). A turn queued behind
        a waiting turn waits too; a turn.end kept for the next welcome waits for a connection."""
        def look(now: float) -> tuple[bool, list[Effect]]:
            return self._firing == 0 and all(kind in WAITING_TIMERS for kind, _ in self._timers), []
        return bool(self.call(look))

    def settle(self, timeout_s: float) -> bool:
        """Wait until ``settled()`` or ``timeout_s`` passed; whether it settled (control ``settle``)."""
        deadline = time.monotonic() + timeout_s
        while not self.settled():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            time.sleep(min(SETTLE_POLL_S, left))
        return True

    def disconnect(self, timeout: float = 5.0) -> None:
        async def run() -> None:
            self._paused = True
            if self._ws is not None:
                await self._ws.close()

        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)

    def reconnect(self, timeout: float = 5.0) -> None:
        async def run() -> None:
            self._paused = False
            assert self._resume is not None
            self._resume.set()

        assert self.loop is not None
        asyncio.run_coroutine_threadsafe(run(), self.loop).result(timeout)
