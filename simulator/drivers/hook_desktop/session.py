"""The scenario state of a desktop under test and the primitives every desktop operation builds on: every part of
the driver (``driver.DesktopDriver``) takes this one object.

``DesktopSession`` holds what one scenario knows: the harness's ``ServerRole`` the desktop dialled, the desktop's
control API, the features the harness's ``welcome`` names, the names the feature gives to requests ("first", …) and
external keys ("thread", …) mapped to fresh ids, and what the desktop sent so far (hellos, acks, turn.end entries,
turn.reopen entries, interaction.request payloads) so that a later Then step compares with an earlier frame.

Every request name gets a fresh UUID v4 requestId and every external-key name a fresh externalKey in the spec's
format convention, ``<providerId>:<uuid>`` (§2 "externalKey 不透明 … 由 hook server 的 provider 生成(格式约定
<providerId>:...)"): a desktop may route by that prefix. The provider is the lane's: Slack, unless the scenario
negotiated the Telegram channel (``lane_provider``). Fresh keys mean scenarios never see each other's work even when
an external desktop keeps its state between them. What a Then step
judges is always what the desktop sent or what its control API answered, never a counter a When step kept.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...subjects.control import ControlClient
from ...errors import MissingFrame, SubjectTimeout
from ...hook import (
    HOOK_FEATURE_PROVIDER_BIND,
    HOOK_FEATURE_PROVIDER_TELEGRAM,
    MessageType,
)
from ...roles.hook_conn import Inbound, Matcher, described
from ...roles.hook_server import ServerRole
from ...subjects.settling import SETTLE, SETTLE_FAILED, offers_settle, settle_window
from ...wirelog import Direction, WireLog
from ..timing import POLL_S, NotYet, eventually, quiet_window, timer_window
from .answers import checked_control

__all__ = ["RECONNECT_MIN_S", "SLACK", "TELEGRAM", "DesktopSession"]

#: The providers of the desktop's task lanes (§1: Slack, and the negotiated Telegram channel).
SLACK = "slack"
TELEGRAM = "telegram"

#: How long the harness waits for a desktop to dial again after a dropped or closed connection. A harness setting,
#: not a protocol number: the spec has a desktop reconnect (slack-hook-protocol.md §3 "断线重连: … desktop 补发未送达的
#: turn.end") but names no backoff, and a desktop that backs off may take longer than one step limit.
RECONNECT_MIN_S = 15.0


def _keep(teardown: Callable[[], None]) -> None:
    """The default teardown registrar: nothing to tear down outside a scenario (unit tests)."""


@dataclass(eq=False)
class DesktopSession:
    """One scenario with a desktop under test: the harness plays the hook server the desktop dialled."""

    server: ServerRole
    control: ControlClient
    #: The feature strings of the harness's ``welcome`` (§2: a frame is used only when both sides declare it).
    features: tuple[str, ...]
    step_timeout: float
    wire: WireLog
    #: The scenario's temporary folder: the workspace folders the scenario registers live there.
    tmp: Path
    #: The bearer token the harness's server requires (None: none).
    token: str | None = None
    #: Registers a teardown that runs at the end of the scenario (pytest's ``request.addfinalizer``).
    defer: Callable[[Callable[[], None]], Any] = _keep
    sleep: Callable[[float], None] = time.sleep
    clock: Callable[[], float] = time.monotonic
    request_ids: dict[str, str] = field(default_factory=dict)
    keys: dict[str, str] = field(default_factory=dict)
    #: request name → the external-key name it was dispatched with
    key_names: dict[str, str] = field(default_factory=dict)
    #: task.ack payloads by request name, in arrival order
    acks: dict[str, list[Any]] = field(default_factory=dict)
    ends: dict[str, list[Inbound]] = field(default_factory=dict)
    hellos: list[Any] = field(default_factory=list)
    #: the turn.reopen entries seen since the last retry
    reopens: list[Inbound] = field(default_factory=list)
    #: the requestIds of every turn.reopen seen, in order (kept across retries)
    reopen_ids: list[str] = field(default_factory=list)
    #: the control API's answer to the last ``retry-turn``
    last_reopen_answer: Any = None
    #: interaction.request payloads by request name
    interactions: dict[str, list[Any]] = field(default_factory=dict)
    #: pings the harness sent in ``ping_while_running``, the inbox position before the first, and the request whose
    #: turn ran meanwhile: ``check_every_ping_answered`` judges the pongs the desktop sent after that position
    pings: int = 0
    ping_floor: int = 0
    ping_request: str | None = None
    #: the inbox position when the user last changed the lifecycle preference: only later frames answer the change
    lifecycle_mark: int = 0
    #: the lifecycle preference the scenario last set (None: not set in this scenario)
    lifecycle_set: bool | None = None
    #: the connection whose welcome the desktop was seen to have read (``user_action``)
    _welcome_read: Any = None

    # -- names ---------------------------------------------------------------------------------------------------

    def rid(self, name: str) -> str:
        """The requestId of request ``name`` (a fresh UUID v4 the first time)."""
        return self.request_ids.setdefault(name, str(uuid.uuid4()))

    def lane_provider(self) -> str:
        """The provider of the scenario's task lanes: ``telegram`` when the Telegram channel is negotiated (§2: the
        hello declares ``provider-bind-v1`` and the welcome ``provider:telegram``), else ``slack``, the channel every
        desktop has. A lane of a channel the desktop did not negotiate would be refused for that, never for the rule
        under test."""
        hello = self.hellos[-1] if self.hellos else None
        declared = tuple(getattr(hello, "features", None) or ())
        if HOOK_FEATURE_PROVIDER_TELEGRAM in self.features and HOOK_FEATURE_PROVIDER_BIND in declared:
            return TELEGRAM
        return SLACK

    def fresh_key(self, provider: str | None = None) -> str:
        """A new externalKey in the format convention ``<providerId>:<uuid>`` (default provider: the lane's)."""
        return f"{provider or self.lane_provider()}:{uuid.uuid4()}"

    def key(self, name: str) -> str:
        """The externalKey of external-key ``name`` (``fresh_key`` the first time)."""
        if name not in self.keys:
            self.keys[name] = self.fresh_key()
        return self.keys[name]

    def key_for(self, name: str) -> str:
        """The externalKey request ``name`` was dispatched with."""
        return self.key(self.key_names.get(name, name))

    # -- control API and timing ----------------------------------------------------------------------------------

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        """One control-API call (docs/control-api.md, desktop): its answer, checked against
        docs/desktop-control-api.schema.json (``$defs/<capability>.response``) before anyone reads it (``answers``);
        an error status raises as the control client raises it."""
        return checked_control(self.control).call(capability, body or {})

    def poll(self, read: Callable[[], dict[str, Any]], shows: Callable[[dict[str, Any]], bool],
             what: str) -> dict[str, Any]:
        """``read()`` (a view of the control ``state``) until ``shows(view)`` holds, bounded by the step limit. A
        refused or malformed answer ends the wait at once: it is the desktop's failure, not "not yet"."""

        def look() -> dict[str, Any]:
            view = read()
            if not shows(view):
                raise NotYet(f"the desktop's state never showed {what} within {self.step_timeout:g} s: "
                             f"{json.dumps(view)[:600]}")
            return view

        return eventually(look, self.step_timeout, poll=POLL_S * 4, clock=self.clock, sleep=self.sleep, retry=NotYet)

    def barrier(self) -> None:
        """A ping answered with a pong: the desktop has read every frame the harness sent before it (frames are
        read in order; spec §5 阶段 1 "收到 ping 必须回 pong")."""
        self.server.ping()
        pong = self.server.expect(MessageType.PONG.value)
        assert pong.ok, f"the desktop's pong is invalid: {pong.issue}"

    def user_action(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        """A user action at the desktop that needs its welcomed connection (docs/control-api.md "Bindings and
        preferences (desktop)": "409 offline when the desktop has no welcomed connection"). While the harness's
        connection is open, the desktop first shows it has read the welcome (a barrier, once per connection), so a 409
        ``offline`` is its answer, never a race with the welcome in flight."""
        conn = self.server.conn
        if conn is not None and conn.is_open and self._welcome_read is not conn:
            self.barrier()
            self._welcome_read = conn
        return self.call(capability, body)

    @property
    def quiet(self) -> float:
        """How long a "nothing was sent" check watches the desktop after its ping/pong barrier, for a frame the
        desktop would send in direct answer to the harness's frames or to a control-API action."""
        return quiet_window(self.step_timeout)

    @property
    def timer(self) -> float:
        """How long a "nothing was sent" check watches, after its barrier, for what the desktop does in the
        background (an agent run and what it sends: turn.progress, turn.end, turn.reopen, tool.request; the re-send
        of undelivered results): the barrier proves nothing about work still running."""
        return timer_window(self.step_timeout)

    def none_from_work(self, match: Matcher) -> None:
        """No frame ``match`` selects comes from the desktop's background work (an agent run and what it sends, the
        re-send of undelivered results), on a connection that stays open: the check of docs/waits.md "timer
        windows". With the control capability ``settle`` (docs/control-api.md "How the harness uses `settle`") the
        window ends on the desktop's word: a barrier, ``settle`` bounded by the window, a second barrier, then
        what is left of the window (nothing once settled). Without ``settle``, or when it fails: the barrier and
        the whole window."""
        self.server.expect_none(match, self.timer, settle=self._settler(self.timer))

    def none_answered(self, match: Matcher) -> None:
        """No frame ``match`` selects comes in direct answer to the harness's frames or control-API actions, on a
        connection that stays open: a barrier, then the grace (``quiet``) for what the desktop does outside the
        connection's order (a control-API action's frames). With ``settle``: ``settle`` bounded by the grace, a
        second barrier, then what is left of the grace (nothing once settled), as for ``none_from_work``."""
        self.server.expect_none(match, self.quiet, settle=self._settler(self.quiet))

    def wait_for_work(self) -> None:
        """Let the desktop's background work run before its state is read (a second run, if any, has started by
        then): a barrier and ``settle`` where offered, else the timer window."""
        if self._offers_settle():
            self.barrier()
            left = self._settle(self.timer)
            if left is not None:
                if left > 0:
                    self.sleep(left)
                return
        self.sleep(self.timer)

    def _offers_settle(self) -> bool:
        """Whether the desktop's control API lists ``settle`` (``GET /v1``); no control API: no."""
        return offers_settle(self.control)

    def _settle(self, window: float) -> float | None:
        """``settle`` bounded by ``window`` (``settle_window``)."""
        return settle_window(lambda body: self.call(SETTLE, body), window, self.clock,
                             lambda text: self.note(text, SETTLE_FAILED))

    def _settler(self, window: float) -> Callable[[], float | None] | None:
        """What ``expect_none`` calls between its barriers: ``settle`` bounded by ``window`` (None: no ``settle``)."""
        return (lambda: self._settle(window)) if self._offers_settle() else None

    def note(self, text: str, summary: str) -> None:
        """A harness note in the wire log (what the harness chose not to do, and why)."""
        self.wire.record(self.server.role, Direction.NOTE, "harness", text, summary=summary)

    # -- the connection ------------------------------------------------------------------------------------------

    def handshake(self, timeout: float | None = None) -> Any:
        """Accept the desktop's next connection, read its hello, answer ``welcome`` with the scenario's features."""
        self.server.accept(timeout)
        hello = self.server.expect_hello()
        self.hellos.append(hello)
        self.server.welcome(self.features)
        return hello

    def reconnect(self) -> Any:
        """The next handshake, waiting at least ``RECONNECT_MIN_S`` for the desktop to dial again. A desktop that
        dials again only to have every upgrade refused (401: e.g. without its bearer token) did not reconnect: a
        failure with the refusal's reason, not a timeout."""
        refused = len(self.server.refusals)
        try:
            return self.handshake(max(self.step_timeout, RECONNECT_MIN_S))
        except SubjectTimeout:
            new = self.server.refusals[refused:]
            if new:
                raise AssertionError(f"the desktop dialled again {len(new)} time(s), each refused by the hook server "
                                     f"(401: {new[-1][2]})") from None
            raise

    def await_close(self, why: str) -> Any:
        """Wait for the desktop to close the current connection. A desktop that stays connected and answers ping did
        not do what ``why`` requires: a failure, not a timeout."""
        try:
            return self.server.wait_closed()
        except SubjectTimeout:
            if self.server.connection.is_alive():
                raise AssertionError(f"the desktop kept the connection open for {self.step_timeout:g} s although "
                                     f"{why}") from None
            raise

    def received(self) -> list[tuple[int, Inbound]]:
        """Every frame the desktop sent in this scenario: (connection index, entry), in order."""
        return [(i, e) for i, conn in enumerate(self.server.connections) for e in conn.received]

    # -- what the desktop sent, remembered -----------------------------------------------------------------------

    def ack(self, name: str) -> Any:
        """The desktop's next valid task.ack for ``name`` (recorded)."""
        ack = self.server.expect_ack(self.rid(name))
        self.acks.setdefault(name, []).append(ack)
        return ack

    def first_ack(self, name: str) -> Any:
        """The first task.ack the desktop sent for ``name`` (awaited when none was seen yet)."""
        return self.acks[name][0] if self.acks.get(name) else self.ack(name)

    def seen_of(self, name: str) -> str:
        """What the desktop answered about request ``name`` so far, on any connection of the scenario: its task.acks
        (result and reason) and how many turn.end it sent; "" when nothing. A failed wait names it, so a reason says
        what the harness saw ("the dispatch was acked rejected (invalid)"), not only what it missed."""
        rid = self.rid(name)
        acks, ends = [], 0
        for _, e in self.received():
            if e.request_id != rid or not e.ok:
                continue
            if e.type == MessageType.TASK_ACK:
                p = e.payload
                acks.append(f"{p.result}" + (f" ({p.reason})" if p.reason else ""))
            elif e.type == MessageType.TURN_END:
                ends += 1
        parts = ([f"task.ack {', '.join(acks)}"] if acks else []) + ([f"{ends} turn.end"] if ends else [])
        return "; ".join(parts)

    def end_entry(self, name: str) -> Inbound:
        """The desktop's next turn.end for ``name``; an invalid one fails. A turn.end that never comes is reported
        with what the desktop did answer about the request (``seen_of``)."""
        rid = self.rid(name)

        def its_end(e: Inbound) -> bool:
            return e.type == MessageType.TURN_END and e.request_id == rid
        described(its_end, f"a turn.end for {name!r}")
        try:
            entry = self.server.expect(its_end)
        except MissingFrame as missing:
            seen = self.seen_of(name)
            if not seen:
                raise
            raise MissingFrame(f"{missing}; what the desktop answered about {name!r}: {seen}") from None
        if not entry.ok:
            raise AssertionError(f"the desktop's turn.end for {name!r} is invalid: {entry.issue}")
        self.ends.setdefault(name, []).append(entry)
        return entry

    def last_end(self, name: str) -> Inbound:
        """The latest turn.end seen for ``name`` (awaited when none was seen yet)."""
        if not self.ends.get(name):
            self.end_entry(name)
        return self.ends[name][-1]

    def reopen(self) -> Any:
        """The turn.reopen payload of the current retry (awaited, left in the inbox); an invalid one fails."""
        if not self.reopens:
            entry = self.server.expect(MessageType.TURN_REOPEN.value, consume=False)
            if not entry.ok:
                raise AssertionError(f"the desktop's turn.reopen is invalid: {entry.issue}")
            self.reopens.append(entry)
            self.reopen_ids.append(entry.payload.request_id)
        return self.reopens[-1].payload

    def last_reopen_id(self) -> str:
        """The requestId of the latest turn.reopen received."""
        assert self.reopen_ids, "no turn.reopen was received"
        return self.reopen_ids[-1]

    def last_interaction(self) -> Any:
        """The latest interaction.request payload received."""
        reqs = [v[-1] for v in self.interactions.values()]
        assert reqs, "no interaction.request was received"
        return reqs[-1]
