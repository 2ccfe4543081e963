"""What the harness does to a desktop under test: as its hook server (dispatch, cancel, archive, deliveries, dropping
the connection, pinging) and as its user, through the control API (docs/control-api.md, desktop: scripting the next
turn, retrying, asking, changing preferences and workspaces, going offline, advancing the clock).

The turns the desktop's agent runs are scripted (``script-next-turn``): expectations come from the feature. The user
actions that a Then step judges by what follows (``retry``, ``ask_in_session``, ``answer_interaction_again``) first
drain the inbox, so the checks after them see only what the desktop sent afterwards.
"""

from __future__ import annotations

import uuid
from typing import Any

from ...errors import NotTestable
from ...hook import ABSENT, HOOK_CHAT_WORKSPACE_ALIAS, HOOK_FEATURE_TURN_DELIVERY, DeliveryState, MessageType
from ..timing import POLL_S
from .session import DesktopSession

__all__ = ["DesktopActions"]

#: ``advance-clock`` takes milliseconds.
_DAY_MS = 24 * 60 * 60 * 1000


class DesktopActions(DesktopSession):
    """The When operations of a desktop scenario."""

    # -- as the hook server ------------------------------------------------------------------------------------

    def script_next_turn(self, script: dict[str, Any]) -> None:
        """The control ``script-next-turn``: the next turn to start runs ``script``."""
        self.call("script-next-turn", script)

    def dispatch(self, name: str, workspace: str | None = None, key: str | None = None) -> None:
        """task.dispatch of request ``name`` into ``workspace`` (default: the chat pseudo-folder), with the externalKey
        of key name ``key`` (default: the request's own name)."""
        self.key_names[name] = key or name
        self.server.dispatch(self.rid(name), self.key_for(name), workspace or HOOK_CHAT_WORKSPACE_ALIAS,
                             prompt=f"Conformance task {name}.")

    def dispatch_to_unknown_session(self, name: str) -> None:
        """task.dispatch naming a sessionId the desktop never gave (§2: sessionId non-null, no workspace)."""
        self.server.dispatch(self.rid(name), self.key(name), None, session_id=f"no-such-session-{uuid.uuid4()}")

    def dispatch_takeover(self, name: str, other: str, key: str) -> None:
        """A takeover (§2: sessionId non-null): the session the desktop acked for ``other``, no workspace."""
        session_id = self.first_ack(other).session_id
        assert isinstance(session_id, str) and session_id, f"{other!r} was not acked with a session id"
        self.key_names[name] = key
        self.server.dispatch(self.rid(name), self.key(key), None, session_id=session_id,
                             prompt=f"Conformance task {name}.")

    def dispatch_agent_kind(self, name: str, kind: str) -> None:
        """task.dispatch asking for the agent kind ``kind`` (``options.agentKind``)."""
        self.key_names[name] = name
        self.server.dispatch(self.rid(name), self.key(name), HOOK_CHAT_WORKSPACE_ALIAS,
                             prompt=f"Conformance task {name}.", options={"agentKind": kind})

    def dispatch_first_hello_agent(self, name: str) -> None:
        """task.dispatch asking for the first agent kind the latest hello lists."""
        agents = list(self.hellos[-1].agents)
        assert agents, "hello.agents lists no agent kind"
        self.dispatch_agent_kind(name, agents[0])

    def redeliver(self, name: str) -> None:
        """The same task.dispatch again (what a server does after a reconnect)."""
        self.server.redispatch(self.rid(name))

    def cancel(self, name: str) -> None:
        """task.cancel of ``name`` (also a name never dispatched)."""
        self.server.cancel(self.rid(name))

    def archive(self, key: str) -> None:
        """session.archive of external key ``key``."""
        self.server.archive(self.key(key))

    def archive_unknown_key(self) -> None:
        self.server.archive(self.fresh_key())

    def drop_and_reconnect(self) -> None:
        """Abort the connection (no close frame) and wait for the desktop's next handshake."""
        self.server.drop()
        self.reconnect()

    def accept_delivery(self, name: str) -> None:
        """turn.delivery ``accepted``, attempt 0, for ``name``; nothing to a desktop whose hello does not declare
        turn-delivery-v1 (§5: "双方必须在 hello.features / welcome.features 同时声明 … 后才启用 … 新 server 不向未声明能力
        的老 desktop 推未知帧"): its turn.end was final when written."""
        if HOOK_FEATURE_TURN_DELIVERY not in self.server.desktop_features:
            return
        self.server.delivery(self.rid(name), DeliveryState.ACCEPTED.value, 0)

    def ping_while_running(self, count: int, name: str) -> None:
        """Send ``count`` pings, spaced, while the turn of ``name`` runs; ``check_every_ping_answered`` judges the
        pongs. A turn already ended leaves nothing to ping during: not testable (the scripted turn did not run long
        enough)."""
        rid = self.rid(name)
        conn = self.server.connection
        if any(e.type == MessageType.TURN_END and e.request_id == rid for e in list(conn.received)):
            raise NotTestable(f"{name!r} ended before the harness could ping: the turn scripted with script-next-turn "
                              f"did not run long enough to ping the desktop while it runs")
        self.ping_floor = len(conn.received)
        self.ping_request = name
        for _ in range(count):
            self.server.ping()
            self.pings += 1
            self.sleep(POLL_S * 2)

    # -- as the desktop's user (control API) -------------------------------------------------------------------

    def retry(self, name: str) -> None:
        """The user presses retry on the finished turn of ``name`` (control ``retry-turn``)."""
        self._retry(self.rid(name))

    def retry_reopened_round(self) -> None:
        """The user presses retry on the latest reopened round."""
        self._retry(self.last_reopen_id())

    def _retry(self, request_id: str) -> None:
        self.server.drain()  # what follows is judged on the frames sent after the retry
        self.reopens.clear()
        self.last_reopen_answer = self.call("retry-turn", {"requestId": request_id})

    def ask_in_session(self, text: str, name: str) -> None:
        """Another question in the session of ``name``, at the desktop (control ``ask-in-session``)."""
        self.server.drain()  # what follows is judged on the frames sent after the question
        self.call("ask-in-session", {"requestId": self.rid(name), "text": text})

    def set_lifecycle_preference(self, enabled: bool) -> None:
        """The user changes the lifecycle preference to ``enabled`` (control ``set-lifecycle-preference``), a real
        change: a desktop kept between scenarios may already hold that value (the hello of this connection says
        which, a missing field read as true), and setting it again changes nothing, so the other value is set first.
        Only a frame sent after the change may answer it: a desktop may have sent its current value earlier (the
        Cindy desktop re-sends it after welcome), which says nothing of this change (``lifecycle_mark``)."""
        if self.lifecycle_now() is enabled:
            self.call("set-lifecycle-preference", {"enabled": not enabled})
            if self.server.connection.is_open:
                self.barrier()  # what the first change sent (before the pong) is received before the mark
        conn = self.server.connection
        self.lifecycle_mark = max((e.seq for e in list(conn.received)), default=0)
        self.call("set-lifecycle-preference", {"enabled": enabled})
        self.lifecycle_set = enabled

    def lifecycle_now(self) -> bool | None:
        """The preference as far as the scenario knows it: the last one it set, else the latest hello's (§1 "缺省按
        true"); None without a hello."""
        if self.lifecycle_set is not None:
            return self.lifecycle_set
        if not self.hellos:
            return None
        sent = self.hellos[-1].lifecycle_announcement
        return True if sent is ABSENT or sent is None else bool(sent)

    def set_default_workspace(self, alias: str) -> None:
        """Register workspace ``alias`` (a folder under the scenario's temporary folder) as the only and default one."""
        folder = self.tmp / alias
        folder.mkdir(parents=True, exist_ok=True)
        self.call("set-workspaces", {"workspaces": {alias: str(folder)}, "defaultWorkspace": alias})

    def set_workspace(self, alias: str) -> None:
        """Register workspace ``alias`` (a folder under the scenario's temporary folder) as the only one, no default."""
        folder = self.tmp / alias
        folder.mkdir(parents=True, exist_ok=True)
        self.call("set-workspaces", {"workspaces": {alias: str(folder)}, "defaultWorkspace": None})

    def remove_workspace_folder(self, alias: str) -> None:
        self.call("remove-workspace-folder", {"alias": alias})

    def disable(self) -> None:
        """Control ``set-enabled`` false; enabled again at the end of the scenario (an external desktop keeps its
        state for the next scenario)."""
        self.call("set-enabled", {"enabled": False})

        def enable_again() -> None:
            try:
                self.call("set-enabled", {"enabled": True})
            except Exception:  # noqa: BLE001 - best effort at teardown
                pass
        self.defer(enable_again)

    def enable(self) -> None:
        self.call("set-enabled", {"enabled": True})

    def advance_clock(self, days: int) -> None:
        """Control ``advance-clock`` (not testable without it)."""
        self.control.require("advance-clock")
        self.call("advance-clock", {"ms": days * _DAY_MS})

    def go_offline(self) -> None:
        """Control ``disconnect``: the desktop closes its connection and stays offline."""
        self.call("disconnect")
        self.await_close("its control API was told to disconnect")

    def come_online(self) -> None:
        """Control ``reconnect``, then the desktop's next handshake."""
        self.call("reconnect")
        self.reconnect()
