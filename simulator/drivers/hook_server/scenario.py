"""The state of one hook-server scenario: the names the feature gives, the devices, the checked control API, the
barrier. Every part of the driver (``driver.HookServerDriver``) takes this one object and builds on it.

One hook server serves the whole run, so a scenario never sees another's work: devices are ``DesktopRole`` instances
named in the feature ("A", …), each with a fresh deviceId; chats are named in the feature and mapped to fresh chat
ids; tasks are named at injection ("first") and get the requestId the server chose; reopen rounds are named too and
get a fresh UUID v4.

Timing. Before observing the channel a check puts a barrier on every open device connection (a ``ping`` and its
``pong``: the server has read every frame sent before it), then polls the control API up to the step limit for a
positive expectation (``eventually``); a negative one (``none_arrives``) ends on the watched connection's own
barrier and then watches ``quiet``, the short grace (``simulator.drivers.timing``, docs/waits.md).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ...hook import (
    HOOK_CHAT_WORKSPACE_ALIAS,
    HOOK_FEATURE_TURN_DELIVERY,
    MessageType,
    Provider,
    make_ping,
)
from ...roles.hook_conn import Inbound
from ...roles.hook_desktop import DesktopRole
from ...subjects.settling import SETTLE, SETTLE_FAILED, offers_settle, settle_window
from ...wirelog import Direction, WireLog
from ..timing import GRACE_S, eventually, quiet_window, timer_window
from .control_answers import (
    HOOK_SERVER_CONTROL_SCHEMA,
    HOOK_SERVER_LISTINGS,
    CheckedControl,
    ControlCalls,
    Row,
)

__all__ = ["DEFAULT_HELLO", "DEFAULT_PROVIDER", "SETTLE_S", "Device", "HookServerScenario"]

T = TypeVar("T")


def _pong_after(seq: int) -> Callable[[Inbound], bool]:
    """Selects a pong received after the entry numbered ``seq``."""
    return lambda e: e.type == MessageType.PONG and e.seq > seq

#: The protocol's names and limits (slack-hook-protocol.md §3, §5) come from the core's constants, the spec's single
#: source. The provider a chat uses unless the scenario names another (spec §1: Slack, Telegram, X).
DEFAULT_PROVIDER = Provider.SLACK.value
#: The hello of a device unless the feature overrides it: the chat workspace and turn-delivery-v1, no
#: lifecycleAnnouncement, no defaultWorkspace.
DEFAULT_HELLO: dict[str, Any] = {"workspaces": [HOOK_CHAT_WORKSPACE_ALIAS], "features": [HOOK_FEATURE_TURN_DELIVERY]}
#: After a barrier, how long a "nothing changed" check lets asynchronous channel writes land before it looks (a
#: harness setting, not a protocol rule): the grace of every barrier-ended check.
SETTLE_S = GRACE_S


@dataclass
class Device:
    """A desktop the harness plays, named in the feature: its role and the hello it says."""

    name: str
    role: DesktopRole
    hello: dict[str, Any]


@dataclass
class HookServerScenario:
    """What one scenario against the hook server knows and the primitives its operations share (names, devices,
    waiting, the checked control API, teardown); every part of ``HookServerDriver`` holds this one object."""

    url: str
    token: str | None
    control: ControlCalls
    wire: WireLog
    step_timeout: float
    note: Callable[[dict[str, Any]], None]
    devices: dict[str, Device] = field(default_factory=dict)
    chats: dict[str, str] = field(default_factory=dict)
    #: chat name → its IM platform, when not Slack
    providers: dict[str, str] = field(default_factory=dict)
    #: task or round name → requestId
    request_ids: dict[str, str] = field(default_factory=dict)
    #: task name → chat name (tasks only)
    task_chat: dict[str, str] = field(default_factory=dict)
    #: task name → the task.dispatch payloads received, in order
    dispatches: dict[str, list[Any]] = field(default_factory=dict)
    #: round name → the task (or round) name it continues
    rounds: dict[str, str] = field(default_factory=dict)
    #: session name → takeover sessionId
    sessions: dict[str, str] = field(default_factory=dict)
    #: task name → the text the user wrote
    user_texts: dict[str, str] = field(default_factory=dict)
    #: texts that must never appear in a turn.delivery error (user content, results, credentials)
    secrets: list[str] = field(default_factory=list)
    #: name → turn.delivery payloads received, in order
    deliveries: dict[str, list[Any]] = field(default_factory=dict)
    #: name → the raw turn.end text sent
    end_frames: dict[str, str] = field(default_factory=dict)
    #: name → the message as last observed
    seen: dict[str, Row] = field(default_factory=dict)
    cleanups: list[Callable[[], None]] = field(default_factory=list)
    cleanup_latency_ms: int = 0
    #: name → the receipt expiry (server clock, ms) read from list-tasks
    receipt_expiry: dict[str, int] = field(default_factory=dict)
    #: builds the role of a device from its wire-log label (unit tests give fakes); a ``DesktopRole`` by default
    role_factory: Callable[[str], DesktopRole] | None = None
    clock: Callable[[], float] = time.monotonic
    sleep: Callable[[float], None] = time.sleep
    #: whether the control API offers ``settle`` (None: not asked yet)
    _settle_offered: bool | None = None

    def __post_init__(self) -> None:
        #: The control API, every answer checked against docs/control-api.schema.json before it is read.
        self.answers = CheckedControl(self.control, HOOK_SERVER_CONTROL_SCHEMA, HOOK_SERVER_LISTINGS)

    # -- ids -----------------------------------------------------------------------------------------------------

    def chat(self, name: str) -> str:
        """The chat id of the chat the feature calls ``name`` (fresh on first use)."""
        return self.chats.setdefault(name, f"sim-chat-{uuid.uuid4()}")

    def provider(self, chat: str) -> str:
        """The IM platform of a chat: Slack unless the feature names another (spec §1: Slack, Telegram, X)."""
        return self.providers.get(chat, DEFAULT_PROVIDER)

    def rid(self, name: str) -> str:
        """The requestId of the task or round the feature calls ``name``; a name it never introduced fails."""
        if name not in self.request_ids:
            raise AssertionError(f"no request named {name!r} in this scenario (the feature uses it before it exists)")
        return self.request_ids[name]

    def new_round(self, name: str, of: str) -> str:
        """Name a fresh reopen round of ``of``: a fresh UUID v4 (阶段 18 requestId 命名空间)."""
        self.request_ids[name] = str(uuid.uuid4())
        self.rounds[name] = of
        return self.request_ids[name]

    def root(self, name: str) -> str:
        """The task a round (or chain of rounds) continues: whose channel message it writes."""
        seen = set()
        while name in self.rounds and name not in seen:
            seen.add(name)
            name = self.rounds[name]
        return name

    def dispatch(self, name: str) -> Any:
        """The first task.dispatch a device received for ``name`` (or for the task its round continues)."""
        root = self.root(name)
        if not self.dispatches.get(root):
            raise AssertionError(f"task {root!r} was never received by a device")
        return self.dispatches[root][0]

    # -- devices -------------------------------------------------------------------------------------------------

    def new_role(self, label: str) -> DesktopRole:
        """A desktop role for this scenario's wire log, labelled ``label``."""
        if self.role_factory is not None:
            return self.role_factory(label)
        return DesktopRole(wire=self.wire, step_timeout=self.step_timeout, role=label)

    def device(self, name: str) -> Device:
        """The device the feature calls ``name`` (created, not yet connected, on first use)."""
        dev = self.devices.get(name)
        if dev is None:
            dev = Device(name, self.new_role(f"desktop-{name}"), dict(DEFAULT_HELLO))
            dev.role.settled = self.settled_word
            self.devices[name] = dev
        return dev

    def first_device(self) -> Device:
        if not self.devices:
            raise AssertionError("the scenario has no device yet")
        return next(iter(self.devices.values()))

    # -- waiting -------------------------------------------------------------------------------------------------

    @property
    def quiet(self) -> float:
        """How long a "nothing arrives" check watches after its ping/pong barrier (``HookConnection.expect_none``)."""
        return quiet_window(self.step_timeout)

    @property
    def timer(self) -> float:
        """How long a "nothing arrives" check watches what the server does after a disconnect it learns of on its
        own time (the closed connection's clean-up: no barrier reaches it)."""
        return timer_window(self.step_timeout)

    def eventually(self, check: Callable[[], T], timeout: float | None = None) -> T:
        """``check()`` until it stops raising ``AssertionError`` (up to the step limit); the last failure otherwise.
        A server that offers ``settle`` is asked for its word once the looks of the first ``GRACE_S`` have not
        satisfied the check (``settled_word``): settled, one more look decides, as the server's final answer."""
        limit = self.step_timeout if timeout is None else timeout
        if limit > GRACE_S and self.settle_offered():
            start = self.clock()
            try:
                return eventually(check, GRACE_S, clock=self.clock, sleep=self.sleep)
            except AssertionError:
                pass
            if self.settled_word():
                return check()
            limit = max(0.0, limit - (self.clock() - start))
        return eventually(check, limit, clock=self.clock, sleep=self.sleep)

    def barrier(self, *, skip: DesktopRole | None = None) -> None:
        """Every open device connection (but ``skip``'s): ping, and wait for its pong (the server has read what came
        before)."""
        for dev in self.devices.values():
            if dev.role is skip:
                continue
            conn = dev.role.conn
            if conn is None or not conn.is_open:
                continue
            floor = len(conn.received)
            dev.role.send_message(make_ping())
            conn.expect(_pong_after(floor))

    def none_arrives(self, role: DesktopRole, match: Any, *, include_pending: bool = True) -> None:
        """No frame ``match`` selects reaches ``role``: first the barrier on every other open device connection (the
        server has read every frame any device sent before), then the role's own check (its ping/pong barrier and
        the ``quiet`` grace, the connection alive: ``HookConnection.expect_none``). A server that offers
        ``settle`` ends the grace with its word and a second barrier (docs/control-api.md "How the harness uses
        `settle`")."""
        self.barrier(skip=role)
        role.expect_none(match, self.quiet, include_pending=include_pending,
                         settle=self.settle_within_grace if self.settle_offered() else None)

    def settle(self) -> None:
        """The barrier, then ``SETTLE_S`` for asynchronous channel writes to land, before a "nothing changed" look;
        with ``settle``, the server's word that they have landed instead (what is left of ``SETTLE_S`` when it did
        not settle)."""
        self.barrier()
        self.settled()

    def settled(self) -> None:
        """``settle`` without a barrier first (the caller's barrier already covers every frame it sent): the server's
        word where offered, else ``SETTLE_S``."""
        left = self.settle_within_grace() if self.settle_offered() else None
        wait = SETTLE_S if left is None else left
        if wait > 0:
            self.sleep(wait)

    def settled_word(self) -> bool:
        """The server's word that everything it was due to send is written, for a device's positive wait
        (``HookConnection.expect``'s ``settled``; docs/control-api.md "How the harness uses `settle`"): the barrier on
        every open device connection, ``settle`` bounded by the grace, and a second round of barriers, so what the
        server wrote before it answered has been read. False (the wait goes on to its limit) without ``settle``,
        when it fails, or when the server did not settle within the grace."""
        if not self.settle_offered():
            return False
        self.barrier()
        if self.settle_within_grace() != 0.0:
            return False
        self.barrier()
        return True

    def settle_offered(self) -> bool:
        """Whether the server's control API offers ``settle`` (asked once per scenario)."""
        if self._settle_offered is None:
            self._settle_offered = offers_settle(self.control)
        return self._settle_offered

    def settle_within_grace(self) -> float | None:
        """``settle`` bounded by the grace (``settle_window``), its failure noted in the wire log."""
        def note(text: str) -> None:
            self.wire.record("harness", Direction.NOTE, "harness", text, summary=SETTLE_FAILED)

        return settle_window(lambda body: self.ctl(SETTLE, body), self.quiet, self.clock, note)

    # -- the control API -----------------------------------------------------------------------------------------

    def ctl(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        """Call a control capability; its answer checked against ``$defs/<capability>.response``."""
        return self.answers.call(capability, body)

    def rows(self, capability: str, body: dict[str, Any] | None = None,
             keep: Callable[[Row], bool] = lambda row: True) -> list[Row]:
        """The rows of a listing capability that ``keep`` selects, checked (``CheckedControl.rows``)."""
        return self.answers.rows(capability, body, keep)

    def on_teardown(self, undo: Callable[[], None]) -> None:
        """Run ``undo`` when the scenario ends (a control setting the scenario changed)."""
        self.cleanups.append(undo)

    def finish(self) -> None:
        """The scenario's end: undo its control settings (newest first), close every device. Never raises."""
        for undo in reversed(self.cleanups):
            try:
                undo()
            except Exception:  # noqa: BLE001, S110 - teardown goes on
                pass
        for dev in self.devices.values():
            dev.role.close()
