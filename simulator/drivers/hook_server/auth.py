"""A desktop without the bearer token, and the server's refusal of it (spec §7 "base64 内联复用已鉴权的 WS 通道":
the hook WebSocket is an authenticated channel)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from enum import StrEnum

from ...errors import MissingFrame, NotTestable, SubjectRefused
from ...hook import MessageType
from ...roles.hook_conn import HandshakeRejected, HookConnectionClosed
from .scenario import Device, HookServerScenario

__all__ = ["AuthOps", "BadToken", "Refusal", "RefusalStage"]


class BadToken(StrEnum):
    """How a stranger dials the server (the Gherkin words)."""

    MISSING = "without a token"
    WRONG = "with a wrong token"


class RefusalStage(StrEnum):
    """Where a stranger's attempt ended."""

    #: the upgrade was refused (an HTTP error status) or cut off without an HTTP answer
    UPGRADE = "upgrade"
    #: the server closed the hook connection
    CLOSED = "closed"
    #: alive, neither welcomed nor closed within the step limit
    OPEN = "open"
    #: the server welcomed it (or dispatched to it)
    WELCOMED = "welcomed"


@dataclass
class Refusal:
    """What happened to a desktop that dialled ``how``: the stage, the HTTP status or close code, the reason."""

    how: BadToken
    stage: RefusalStage | None = None
    status: int | None = None
    reason: str = ""
    #: the refused upgrade's error, or the first frame of a welcomed stranger
    detail: str = ""


@dataclass(eq=False)
class AuthOps:
    """A desktop without the bearer token (spec §7): dials and judges the refusal, over the scenario (``scenario``)."""

    scenario: HookServerScenario

    #: What happened to the last stranger that dialled (``connect_badly``), for ``expect_refused`` to judge.
    refusal: Refusal | None = None

    def require_token(self) -> None:
        """The run must say which bearer token the server was started with (``--hook-token``): without it the
        harness cannot tell a server that refuses strangers from one it cannot talk to. Not a capability the server
        declared absent, so *not testable* (a failure), never *not applicable*."""
        if not self.scenario.token:
            raise NotTestable("the run gives no hook token: start the hook server under test with its bearer token "
                              "and give the run --hook-token TOKEN, so the harness can judge the refusal of a desktop "
                              "without it")

    def connect_badly(self, how: BadToken) -> Refusal:
        """Dial ``how`` and say hello. The refusal comes at the upgrade (an HTTP error status: ``HandshakeRejected``,
        caught here and only here) or at the hook level (the server closes the connection); a welcome, or a
        connection left open without one for the step limit, is recorded for ``expect_refused`` to judge."""
        role = self.scenario.new_role("desktop-unauthenticated")
        self.scenario.devices[f"unauthenticated-{len(self.scenario.devices)}"] = Device("unauthenticated", role, {})
        token = None if how is BadToken.MISSING else f"wrong-{uuid.uuid4().hex}"
        refusal = self.refusal = Refusal(how)
        try:
            role.connect(self.scenario.url, token)
        except HandshakeRejected as exc:
            refusal.stage, refusal.status, refusal.reason = RefusalStage.UPGRADE, exc.status, exc.body.strip()
            return refusal
        except SubjectRefused as exc:  # the upgrade was cut off without an HTTP answer: refused, with no reason given
            refusal.stage, refusal.detail = RefusalStage.UPGRADE, str(exc)[:300]
            return refusal
        try:
            role.hello(expect_welcome=False)
        except HookConnectionClosed:
            pass  # closed before the hello could go out: the close is read below
        try:  # the first of a welcome (or a dispatch) and the close
            entry = role.expect((MessageType.WELCOME, MessageType.TASK_DISPATCH), timeout=self.scenario.step_timeout)
        except HookConnectionClosed as exc:
            close = exc.close or role.closed
            refusal.stage = RefusalStage.CLOSED
            refusal.status, refusal.reason = (close.code, close.reason) if close else (None, "")
        except MissingFrame:
            refusal.stage = RefusalStage.OPEN
        else:
            refusal.stage, refusal.detail = RefusalStage.WELCOMED, entry.text[:300]
        return refusal

    def expect_refused(self) -> None:
        """§7: a desktop without the bearer token is refused, at the upgrade (a 4xx, or the upgrade cut off) or by
        a close, and never welcomed."""
        r = self.refusal
        assert r is not None, "no desktop without the token has dialled the server"
        assert r.stage in (RefusalStage.UPGRADE, RefusalStage.CLOSED), f"a desktop {r.how} was not refused: {r!r}"[:600]
        if r.stage is RefusalStage.UPGRADE and r.status is not None:
            assert 400 <= int(r.status) < 500, f"the upgrade was refused with HTTP {r.status}, not a 4xx"

    def expect_refused_with_reason(self) -> None:
        """The refusal says why: an HTTP error body, or a close reason."""
        self.expect_refused()
        r = self.refusal
        assert r is not None and r.reason, f"the refusal of a desktop {r.how if r else None} gives no reason: {r!r}"
