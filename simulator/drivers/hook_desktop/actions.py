"""What the harness does to a desktop under test: as its hook server (dispatch, cancel, archive, deliveries, dropping
the connection, pinging) and as its user, through the control API (docs/control-api.md, desktop: scripting the next
turn, retrying, asking, changing preferences and workspaces, going offline, advancing the clock).

The turns the desktop's agent runs are scripted (``script-next-turn``): expectations come from the feature. The user
actions that a Then step judges by what follows (``retry``, ``ask_in_session``, ``answer_interaction_again``) first
drain the inbox, so the checks after them see only what the desktop sent afterwards.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ...errors import NotTestable
from ...hook import (
    ABSENT,
    HOOK_CHAT_WORKSPACE_ALIAS,
    HOOK_FEATURE_TURN_DELIVERY,
    DeliveryState,
    MessageType,
)
from ..timing import POLL_S
from .session import DesktopSession

__all__ = ["DesktopActions"]

#: ``advance-clock`` takes milliseconds.
_DAY_MS = 24 * 60 * 60 * 1000


@dataclass(eq=False)
class DesktopActions:
    """The When operations of a desktop scenario."""

    session: DesktopSession

    # -- as the hook server ------------------------------------------------------------------------------------

    def script_next_turn(self, script: dict[str, Any]) -> None:
        """The control ``script-next-turn``: the next turn to start runs ``script``."""
        self.session.call("script-next-turn", script)

    def dispatch(self, name: str, workspace: str | None = None, key: str | None = None) -> None:
        """task.dispatch of request ``name`` into ``workspace`` (default: the chat pseudo-folder), with the externalKey
        of key name ``key`` (default: the request's own name)."""
        self.session.key_names[name] = key or name
        self.session.server.dispatch(self.session.rid(name), self.session.key_for(name),
                                     workspace or HOOK_CHAT_WORKSPACE_ALIAS, prompt=f"Conformance task {name}.")

    def dispatch_to_unknown_session(self, name: str) -> None:
        """task.dispatch naming a sessionId the desktop never gave (§2: sessionId non-null, no workspace)."""
        self.session.server.dispatch(self.session.rid(name), self.session.key(name), None,
                                     session_id=f"no-such-session-{uuid.uuid4()}")

    def dispatch_takeover(self, name: str, other: str, key: str) -> None:
        """A takeover (§2: sessionId non-null): the session the desktop acked for ``other``, no workspace."""
        session_id = self.session.first_ack(other).session_id
        assert isinstance(session_id, str) and session_id, f"{other!r} was not acked with a session id"
        self.session.key_names[name] = key
        self.session.server.dispatch(self.session.rid(name), self.session.key(key), None, session_id=session_id,
                                     prompt=f"Conformance task {name}.")

    def dispatch_agent_kind(self, name: str, kind: str) -> None:
        """task.dispatch asking for the agent kind ``kind`` (``options.agentKind``)."""
        self.session.key_names[name] = name
        self.session.server.dispatch(self.session.rid(name), self.session.key(name), HOOK_CHAT_WORKSPACE_ALIAS,
                                     prompt=f"Conformance task {name}.", options={"agentKind": kind})

    def dispatch_first_hello_agent(self, name: str) -> None:
        """task.dispatch asking for the first agent kind the latest hello lists."""
        agents = list(self.session.hellos[-1].agents)
        assert agents, "hello.agents lists no agent kind"
        self.dispatch_agent_kind(name, agents[0])

    def redeliver(self, name: str) -> None:
        """The same task.dispatch again (what a server does after a reconnect)."""
        self.session.server.redispatch(self.session.rid(name))

    def cancel(self, name: str) -> None:
        """task.cancel of ``name`` (also a name never dispatched)."""
        self.session.server.cancel(self.session.rid(name))

    def archive(self, key: str) -> None:
        """session.archive of external key ``key``."""
        self.session.server.archive(self.session.key(key))

    def archive_unknown_key(self) -> None:
        self.session.server.archive(self.session.fresh_key())

    def drop_and_reconnect(self) -> None:
        """Abort the connection (no close frame) and wait for the desktop's next handshake."""
        self.session.server.drop()
        self.session.reconnect()

    def accept_delivery(self, name: str) -> None:
        """turn.delivery ``accepted``, attempt 0, for ``name``; nothing to a desktop whose hello does not declare
        turn-delivery-v1 (§5: "双方必须在 hello.features / welcome.features 同时声明 … 后才启用 … 新 server 不向未声明能力
        的老 desktop 推未知帧"): its turn.end was final when written."""
        if HOOK_FEATURE_TURN_DELIVERY not in self.session.server.desktop_features:
            return
        self.session.server.delivery(self.session.rid(name), DeliveryState.ACCEPTED.value, 0)

    def ping_while_running(self, count: int, name: str) -> None:
        """Send ``count`` pings, spaced, while the turn of ``name`` runs; ``check_every_ping_answered`` judges the
        pongs. A turn already ended leaves nothing to ping during: not testable (the scripted turn did not run long
        enough)."""
        rid = self.session.rid(name)
        conn = self.session.server.connection
        if any(e.type == MessageType.TURN_END and e.request_id == rid for e in list(conn.received)):
            raise NotTestable(f"{name!r} ended before the harness could ping: the turn scripted with script-next-turn "
                              f"did not run long enough to ping the desktop while it runs")
        self.session.ping_floor = len(conn.received)
        self.session.ping_request = name
        for _ in range(count):
            self.session.server.ping()
            self.session.pings += 1
            self.session.sleep(POLL_S * 2)

    # -- as the desktop's user (control API) -------------------------------------------------------------------

    def retry(self, name: str) -> None:
        """The user presses retry on the finished turn of ``name`` (control ``retry-turn``)."""
        self._retry(self.session.rid(name))

    def retry_reopened_round(self) -> None:
        """The user presses retry on the latest reopened round."""
        self._retry(self.session.last_reopen_id())

    def _retry(self, request_id: str) -> None:
        self.session.server.drain()  # what follows is judged on the frames sent after the retry
        self.session.reopens.clear()
        self.session.last_reopen_answer = self.session.call("retry-turn", {"requestId": request_id})

    def ask_in_session(self, text: str, name: str) -> None:
        """Another question in the session of ``name``, at the desktop (control ``ask-in-session``)."""
        self.session.server.drain()  # what follows is judged on the frames sent after the question
        self.session.call("ask-in-session", {"requestId": self.session.rid(name), "text": text})

    def set_lifecycle_preference(self, enabled: bool) -> None:
        """The user changes the lifecycle preference to ``enabled`` (control ``set-lifecycle-preference``), a real
        change: a desktop kept between scenarios may already hold that value (the hello of this connection says
        which, a missing field read as true), and setting it again changes nothing, so the other value is set first.
        Only a frame sent after the change may answer it: a desktop may have sent its current value earlier (the
        Cindy desktop re-sends it after welcome), which says nothing of this change (``lifecycle_mark``)."""
        if self.lifecycle_now() is enabled:
            self.session.call("set-lifecycle-preference", {"enabled": not enabled})
            if self.session.server.connection.is_open:
                self.session.barrier()  # what the first change sent (before the pong) is received before the mark
        conn = self.session.server.connection
        self.session.lifecycle_mark = max((e.seq for e in list(conn.received)), default=0)
        self.session.call("set-lifecycle-preference", {"enabled": enabled})
        self.session.lifecycle_set = enabled

    def lifecycle_now(self) -> bool | None:
        """The preference as far as the scenario knows it: the last one it set, else the latest hello's (§1 "缺省按
        true"); None without a hello."""
        if self.session.lifecycle_set is not None:
            return self.session.lifecycle_set
        if not self.session.hellos:
            return None
        sent = self.session.hellos[-1].lifecycle_announcement
        return True if sent is ABSENT or sent is None else bool(sent)

    def set_default_workspace(self, alias: str) -> None:
        """Register workspace ``alias`` (a folder under the scenario's temporary folder) as the only and default one."""
        folder = self.session.tmp / alias
        folder.mkdir(parents=True, exist_ok=True)
        self.session.call("set-workspaces", {"workspaces": {alias: str(folder)}, "defaultWorkspace": alias})

    def set_workspace(self, alias: str) -> None:
        """Register workspace ``alias`` (a folder under the scenario's temporary folder) as the only one, no default."""
        folder = self.session.tmp / alias
        folder.mkdir(parents=True, exist_ok=True)
        self.session.call("set-workspaces", {"workspaces": {alias: str(folder)}, "defaultWorkspace": None})

    def remove_workspace_folder(self, alias: str) -> None:
        self.session.call("remove-workspace-folder", {"alias": alias})

    def disable(self) -> None:
        """Control ``set-enabled`` false; enabled again at the end of the scenario (an external desktop keeps its
        state for the next scenario)."""
        self.session.call("set-enabled", {"enabled": False})

        def enable_again() -> None:
            try:
                self.session.call("set-enabled", {"enabled": True})
            except Exception:  # noqa: BLE001 - best effort at teardown
                pass
        self.session.defer(enable_again)

    def enable(self) -> None:
        self.session.call("set-enabled", {"enabled": True})

    def advance_clock(self, days: int) -> None:
        """Control ``advance-clock`` (not testable without it)."""
        self.session.control.require("advance-clock")
        self.session.call("advance-clock", {"ms": days * _DAY_MS})

    def go_offline(self) -> None:
        """Control ``disconnect``: the desktop closes its connection and stays offline."""
        self.session.call("disconnect")
        self.session.await_close("its control API was told to disconnect")

    def come_online(self) -> None:
        """Control ``reconnect``, then the desktop's next handshake."""
        self.session.call("reconnect")
        self.session.reconnect()
