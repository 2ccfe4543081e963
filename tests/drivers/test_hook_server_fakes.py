"""Fakes for the hook-server driver's unit tests (no network): a control client answering from a table, a desktop
role with an inbox of frames built by the core, and the clock of ``test_timing`` that never sleeps. The tests below
pin that the fakes stand in for the real classes: every method a fake offers exists on the real one."""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any

from test_timing import FakeClock

from simulator.subjects.control import ControlClient
from simulator.drivers.hook_server import HookServerDriver, HookServerScenario
from simulator.errors import MissingFrame, NotTestable
from simulator.hook import HookMessage, MessageType, WelcomePayload
from simulator.roles.hook_desktop import DesktopRole
from simulator.wirelog import WireLog

Answer = Any | Callable[[dict[str, Any]], Any]


class FakeControl:
    """A control API: ``answers`` maps a capability to its answer (a value, a function of the body, or an exception
    to raise); a capability it lacks is *not testable*, as with ``ControlClient``."""

    def __init__(self, answers: dict[str, Answer] | None = None) -> None:
        self.answers: dict[str, Answer] = dict(answers or {})
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def capabilities(self) -> frozenset[str]:
        """What ``GET /v1`` lists: the capabilities it answers."""
        return frozenset(self.answers)

    def require(self, capability: str) -> None:
        if capability not in self.answers:
            raise NotTestable(f"the hook-server control API does not offer the capability {capability!r}")

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        self.require(capability)
        self.calls.append((capability, dict(body or {})))
        answer = self.answers[capability]
        if isinstance(answer, BaseException):
            raise answer
        return answer(dict(body or {})) if callable(answer) else copy.deepcopy(answer)


class FakeInbound:
    """A received frame as the roles hand it to a matcher (``simulator.roles.hook_conn.Inbound``)."""

    def __init__(self, message: HookMessage) -> None:
        self.message = message
        self.type = message.type
        self.ok = True
        self.payload = message.payload
        self.request_id = getattr(message.payload, "request_id", None)
        self.text = str(message.payload)


def _matches(match: Any, entry: FakeInbound) -> bool:
    if isinstance(match, str):
        return entry.type == match
    if callable(match):
        return bool(match(entry))
    return entry.type in {str(m) for m in match}


class FakeConnection:
    def __init__(self) -> None:
        self.last_sent: str | None = None
        self.closed = None
        self.is_open = False  # the barrier skips it


class FakeRole:
    """A desktop role (``DesktopRole``): what the server "sends" is put in ``inbox`` by the test; what the driver
    sends is recorded in ``sent`` as (operation, arguments)."""

    def __init__(self, label: str) -> None:
        self.role = label
        self.device_id = f"sim-device-{label}"
        self.device_name = "conformance-desktop"
        self.inbox: list[FakeInbound] = []
        self.sent: list[tuple[str, tuple[Any, ...]]] = []
        self.watched: list[tuple[Any, float]] = []
        self.identity: dict[str, Any] = {}
        self.welcome_payload: WelcomePayload | None = None
        self.conn: FakeConnection | None = None
        self.closed = None
        self.connection = FakeConnection()
        self.dispatches: dict[str, Any] = {}
        self.closed_by_harness = False

    def receives(self, message: HookMessage) -> None:
        self.inbox.append(FakeInbound(message))

    def _record(self, what: str, *args: Any) -> None:
        self.sent.append((what, args))
        self.connection.last_sent = f"{what}:{args!r}"

    def expect(self, match: Any, timeout: float | None = None) -> FakeInbound:
        for entry in self.inbox:
            if _matches(match, entry):
                self.inbox.remove(entry)
                return entry
        raise MissingFrame(f"{self.role}: no frame matching {match!r}")

    def expect_payload(self, type_: Any, timeout: float | None = None, *, where: Any = None, what: Any = None) -> Any:
        entry = self.expect(lambda e: e.type == str(type_) and (where is None or where(e.payload)), timeout)
        return entry.payload

    def expect_dispatch(self, timeout: float | None = None, *, request_id: str | None = None) -> Any:
        payload = self.expect_payload(MessageType.TASK_DISPATCH,
                                      where=lambda p: request_id is None or p.request_id == request_id)
        self.dispatches[payload.request_id] = payload
        return payload

    def expect_none(self, match: Any, within: float, *, include_pending: bool = True,
                    settle: Callable[[], float | None] | None = None) -> None:
        """As ``HookConnection.expect_none``: ``settle`` (after the fake barrier) may shorten the watch; what is
        watched is recorded in ``watched``."""
        if settle is not None:
            left = settle()
            within = within if left is None else left
        self.watched.append((match, within))
        # the fake's inbox holds only what the test put there for this check: pending or new, it counts
        found = [e for e in self.inbox if _matches(match, e)]
        assert not found, f"{self.role}: unexpected {found[0].type}"

    def session_for(self, request_id: str) -> str:
        return f"sim-session-{request_id}"

    def connect(self, url: str, token: str | None = None) -> None:
        self._record("connect", url, token)

    def hello(self, **kwargs: Any) -> None:
        self._record("hello", kwargs)

    def ack(self, *args: Any, **kwargs: Any) -> None:
        self._record("ack", args, kwargs)

    def progress(self, *args: Any) -> None:
        self._record("progress", *args)

    def end(self, *args: Any, **kwargs: Any) -> None:
        self._record("end", args, kwargs)

    def reopen(self, *args: Any, **kwargs: Any) -> None:
        self._record("reopen", args, kwargs)

    def interaction_request(self, request_id: str, **kwargs: Any) -> str:
        self._record("interaction_request", request_id, kwargs)
        return f"sim-interaction-{len(self.sent)}"

    def interaction_cancel(self, *args: Any) -> None:
        self._record("interaction_cancel", *args)

    def send_raw(self, text: str, **kwargs: Any) -> None:
        self._record("send_raw", text)

    def send_message(self, message: HookMessage, timeout: float | None = None) -> HookMessage:
        self._record("send_message", message)
        return message

    def query_response(self, *args: Any, **kwargs: Any) -> None:
        self._record("query_response", args, kwargs)

    def tool_request(self, *args: Any, **kwargs: Any) -> None:
        self._record("tool_request", args, kwargs)

    def close(self) -> None:
        self.closed_by_harness = True


def message_row(request_id: str, chat_id: str, **fields: Any) -> dict[str, Any]:
    """A ``list-messages`` row that matches ``$defs/message``, with ``fields`` overriding."""
    row = {"messageId": f"m-{request_id}", "provider": "slack", "chatId": chat_id, "threadId": None,
           "requestId": request_id, "routes": [], "text": "", "state": "pending", "revision": 0, "owner": None,
           "attachments": [], "cards": [], "publishes": 0}
    return {**row, **fields}


def task_row(request_id: str, **fields: Any) -> dict[str, Any]:
    """A ``list-tasks`` row that matches ``$defs/task``, with ``fields`` overriding."""
    row = {"requestId": request_id, "deviceId": "sim-device-desktop-A", "externalKey": f"slack:C:{request_id}",
           "workspace": "chat", "sessionId": None, "ack": None, "reason": None, "queuePosition": None,
           "dispatchCount": 1, "ended": False, "endStatus": None, "delivery": None}
    return {**row, **fields}


def make_driver(answers: dict[str, Answer] | None = None, *, token: str | None = "hook-token",
                step_timeout: float = 1.0, role_factory: Callable[[str], FakeRole] = FakeRole,
                ) -> tuple[HookServerDriver, FakeControl, FakeClock]:
    """A driver over fakes: the control API answers ``answers``; devices are ``FakeRole``s (or ``role_factory``'s)."""
    control, clock = FakeControl(answers), FakeClock()
    driver = HookServerDriver(HookServerScenario(url="ws://hook.invalid/hook", token=token, control=control,
                                                 wire=WireLog(), step_timeout=step_timeout,
                                                 note=lambda identity: None,
                                                 role_factory=role_factory,  # type: ignore[arg-type]
                                                 clock=clock, sleep=clock.sleep))
    return driver, control, clock


def test_every_fake_role_method_is_a_desktop_role_method():
    own = {n for n, v in vars(FakeRole).items() if callable(v) and not n.startswith("_") and n != "receives"}
    missing = sorted(n for n in own if not hasattr(DesktopRole, n))
    assert not missing, f"FakeRole offers what DesktopRole does not: {missing}"


def test_the_fake_control_client_speaks_like_the_real_one():
    for name in ("call", "require", "capabilities"):
        assert list(inspect.signature(getattr(FakeControl, name)).parameters) == \
            list(inspect.signature(getattr(ControlClient, name)).parameters)


def test_make_driver_gives_fake_devices():
    driver, _, _ = make_driver()
    assert isinstance(driver.scenario.device("A").role, FakeRole)
    assert driver.scenario.device("A").role.role == "desktop-A"
