"""An asyncio event loop in a background thread, driven by plain synchronous calls.

Theory of operation. pytest-bdd has no async steps (STYLE.md principle 12), so every simulator role owns a
``LoopThread``: a daemon thread running one event loop forever. A step calls ``run(coro, timeout)``; the coroutine
runs on the loop under an ``asyncio.timeout`` deadline and its result (or exception) comes back to the calling
thread. When the deadline passes, the coroutine is cancelled *inside* the loop (so its ``finally`` blocks and the
transports it holds are cleaned up) and the caller gets ``SubjectTimeout``. A second, slightly longer deadline on
the calling side guards against a wedged loop: the caller never waits much more than ``timeout``.

``close()`` cancels every task, gives them a bounded grace period, stops the loop, and joins the thread within a
bound. It is idempotent, and it never hangs: the thread is a daemon, so a task that refuses to die cannot keep the
interpreter alive either.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from ..errors import HarnessError, SubjectTimeout

__all__ = ["LoopThread", "LoopClosed"]

T = TypeVar("T")

#: Extra seconds the calling thread waits beyond the in-loop deadline before declaring the loop wedged.
_GRACE_S = 1.0


class LoopClosed(HarnessError):
    """A coroutine was submitted to a ``LoopThread`` that is closed (our misuse, not the subject's)."""


class _Expired(Exception):
    """Internal: the in-loop deadline of ``run`` passed."""


class LoopThread:
    """One event loop in one daemon thread. ``run(coro, timeout)`` from any other thread; ``close()`` to stop."""

    def __init__(self, name: str = "sim-loop", *, close_timeout: float = 5.0) -> None:
        self.name = name
        self.close_timeout = close_timeout
        self._loop = asyncio.new_event_loop()
        self._closed = False
        self._lock = threading.Lock()
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._main, name=name, daemon=True)
        self._thread.start()
        self._started.wait(5.0)

    # -- the thread ----------------------------------------------------------------------------------------------

    def _main(self) -> None:
        loop = self._loop
        asyncio.set_event_loop(loop)
        loop.call_soon(self._started.set)
        try:
            loop.run_forever()
        finally:
            try:
                self._cancel_remaining(loop)
                loop.run_until_complete(asyncio.wait_for(loop.shutdown_asyncgens(), 1.0))
            except BaseException:  # noqa: BLE001, S110 - teardown must finish whatever a task did
                pass
            finally:
                loop.close()

    @staticmethod
    def _cancel_remaining(loop: asyncio.AbstractEventLoop) -> None:
        tasks = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for t in tasks:
            t.cancel()
        if tasks:
            loop.run_until_complete(asyncio.wait(tasks, timeout=1.0))
        for t in tasks:  # retrieve exceptions so asyncio does not log "never retrieved"
            if t.done() and not t.cancelled():
                t.exception()

    # -- public API ----------------------------------------------------------------------------------------------

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    @property
    def closed(self) -> bool:
        return self._closed

    def in_loop_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def run(self, coro: Coroutine[Any, Any, T], timeout: float, *, what: str | None = None) -> T:
        """Run ``coro`` on the loop and return its result; raise what it raises.

        After ``timeout`` seconds the coroutine is cancelled and ``SubjectTimeout`` is raised, its reason naming
        ``what`` was awaited ("a task.ack from the subject") and ``waited_s`` the time spent."""
        if timeout is None or timeout < 0:
            coro.close()
            raise ValueError(f"{self.name}: a timeout (seconds, >= 0) is required, got {timeout!r}")
        if self.in_loop_thread():
            coro.close()
            raise RuntimeError(f"{self.name}: run() called from the loop's own thread (would deadlock)")
        with self._lock:
            if self._closed:
                coro.close()
                raise LoopClosed(f"{self.name}: the event loop is closed")
            future = asyncio.run_coroutine_threadsafe(self._guard(coro, timeout), self._loop)
        started = time.monotonic()
        try:
            return future.result(timeout + _GRACE_S)
        except _Expired:
            waited = time.monotonic() - started
            raise SubjectTimeout(self._reason(what, timeout), waited_s=round(waited, 3)) from None
        except concurrent.futures.TimeoutError:
            future.cancel()
            waited = time.monotonic() - started
            raise SubjectTimeout(
                self._reason(what, timeout) + " (and the event loop did not respond to cancellation)",
                waited_s=round(waited, 3),
            ) from None
        except concurrent.futures.CancelledError:
            raise LoopClosed(f"{self.name}: the call was cancelled (the loop is shutting down)") from None

    def call_soon(self, fn: Callable[..., Any], *args: Any) -> None:
        """Schedule a plain callback on the loop (fire and forget); ignored once closed."""
        with self._lock:
            if not self._closed:
                self._loop.call_soon_threadsafe(fn, *args)

    def close(self, timeout: float | None = None) -> None:
        """Cancel every task, stop the loop and join the thread, all within ``timeout`` (default
        ``close_timeout``). Idempotent; never raises for what the tasks do."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        bound = self.close_timeout if timeout is None else timeout
        if self._thread.is_alive():
            try:
                self._loop.call_soon_threadsafe(self._loop.stop)
            except RuntimeError:  # the loop closed by itself meanwhile
                pass
            self._thread.join(bound)

    @property
    def thread_alive(self) -> bool:
        return self._thread.is_alive()

    def __enter__(self) -> LoopThread:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- helpers -------------------------------------------------------------------------------------------------

    @staticmethod
    async def _guard(coro: Coroutine[Any, Any, T], timeout: float) -> T:
        deadline = asyncio.timeout(timeout)
        try:
            async with deadline:
                return await coro
        except TimeoutError:
            if deadline.expired():
                raise _Expired() from None
            raise

    def timeout_reason(self, what: str | None, timeout: float) -> str:
        """The reason ``run`` gives when ``what`` did not end within ``timeout`` (for callers that bound parts of
        one coroutine themselves and report each part as ``run`` would)."""
        return self._reason(what, timeout)

    def _reason(self, what: str | None, timeout: float) -> str:
        return f"{self.name}: timed out after {timeout:g} s waiting for {what or 'the operation to complete'}"
