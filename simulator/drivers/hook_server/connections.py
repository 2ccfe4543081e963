"""Device connections and the handshake, driven from the desktop side (spec §5 阶段 1: hello / welcome, ping /
pong 双向; 上下线通知偏好 lifecycle.preference), and the server's restart (docs/control-api.md ``restart``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ...errors import NotApplicable, SubjectTimeout
from ...hook import MessageType
from ...roles.hook_conn import HookConnection
from .scenario import HookServerScenario

__all__ = ["ConnectionOps", "Hangup", "await_close", "hello_kwargs"]

#: The hello fields a feature may override (its JSON keys) → the ``DesktopRole.hello`` arguments.
_HELLO_KEYS = {"workspaces": "workspaces", "features": "features", "agents": "agents",
               "defaultWorkspace": "default_workspace", "lifecycleAnnouncement": "lifecycle_announcement"}


class Hangup(StrEnum):
    """How a device ends its connection: an abort without a closing handshake, or a clean close."""

    DROP = "drop"
    CLOSE = "close"


def hello_kwargs(hello: Mapping[str, Any]) -> dict[str, Any]:
    """A device's hello (wire keys) as ``DesktopRole.hello`` arguments; a key the driver cannot send is our misuse."""
    unknown = set(hello) - set(_HELLO_KEYS)
    if unknown:
        raise ValueError(f"hello overrides {sorted(unknown)} are not supported by the step")
    return {_HELLO_KEYS[k]: v for k, v in hello.items()}


def await_close(conn: HookConnection, timeout: float, why: str) -> Any:
    """Wait for the subject to close ``conn`` (a step that needs the close). A subject that stays open but answers
    ping did not do what ``why`` requires: a failure, not a timeout; one that stops answering is a timeout."""
    try:
        return conn.wait_closed(timeout)
    except SubjectTimeout:
        if conn.is_alive():
            raise AssertionError(f"the server kept the connection open for {timeout:g} s although {why}") from None
        raise


@dataclass(eq=False)
class ConnectionOps:
    """Device connections and the handshake (spec §5 阶段 1, 上下线通知偏好), and the server's restart, over the
    scenario (``scenario``)."""

    scenario: HookServerScenario

    # -- Given / When ----------------------------------------------------------------------------------------------

    def online(self, dev: str, hello: Mapping[str, Any] | None = None) -> None:
        """Connect device ``dev`` and say hello (``DEFAULT_HELLO`` overridden by ``hello``), welcomed."""
        d = self.scenario.device(dev)
        if hello:
            d.hello.update(hello)
        d.role.connect(self.scenario.url, self.scenario.token)
        d.role.hello(**hello_kwargs(d.hello))
        self.scenario.note(dict(d.role.identity))

    def connect_without_hello(self, dev: str) -> None:
        self.scenario.device(dev).role.connect(self.scenario.url, self.scenario.token)

    def say_hello(self, dev: str) -> None:
        """Send the device's hello without waiting for a welcome (the Then step judges what comes)."""
        d = self.scenario.device(dev)
        d.role.hello(**hello_kwargs(d.hello), expect_welcome=False)

    def say_hello_again(self, dev: str, hello: Mapping[str, Any]) -> None:
        """Send the device's hello again, updated by ``hello`` (a second welcome is not required), then the
        barrier: the server has read it before the next step looks."""
        d = self.scenario.device(dev)
        d.hello.update(hello)
        d.role.hello(**hello_kwargs(d.hello), expect_welcome=False)
        self.scenario.barrier()

    def require_declared(self, feature: str) -> None:
        """Not applicable unless the server declares ``feature`` in ``welcome.features``."""
        self.scenario.first_device().role.require_feature(feature)

    def require_not_declared(self, feature: str) -> None:
        """Not applicable when the server declares ``feature``: the requirement concerns a server without it."""
        if feature in self.scenario.first_device().role.server_features:
            raise NotApplicable(f"the server declares {feature} in welcome.features: this requirement concerns a "
                                f"server configured without it")

    def hang_up(self, dev: str, how: Hangup) -> None:
        role = self.scenario.device(dev).role
        if how is Hangup.DROP:
            role.drop()
        else:
            role.close_connection()

    def reconnect(self, dev: str, how: Hangup, *, hello: bool = True) -> None:
        """End the device's connection ``how`` and open a new one, saying the last hello again unless told not to."""
        self.scenario.device(dev).role.reconnect(close_old=how.value, hello=hello)

    def ping(self, dev: str) -> None:
        self.scenario.device(dev).role.ping()

    def announce_lifecycle(self, dev: str, enabled: bool) -> None:
        """Send ``lifecycle.preference`` (上下线通知偏好), then the barrier: the server has read it."""
        self.scenario.device(dev).role.lifecycle_preference(enabled)
        self.scenario.barrier()

    def ping_desktops(self) -> None:
        """A server-initiated ping (§5 阶段 1 "ping / pong 双向") is driven with the control capability
        ``ping-desktops``. Without it the harness cannot make the server ping: not testable (the server did not
        declare it cannot ping)."""
        self.scenario.answers.require("ping-desktops")
        answer = self.scenario.ctl("ping-desktops")
        assert answer["sent"] >= 1, f"ping-desktops sent no ping although device connections are open: {answer!r}"

    def restart_server(self) -> None:
        """The control capability ``restart``: in-memory state dropped, reloaded from the durable store; every
        connection is closed by the server."""
        self.scenario.ctl("restart", {})
        for dev in self.scenario.devices.values():
            conn = dev.role.conn
            if conn is not None and conn.closed is None:
                await_close(conn, self.scenario.step_timeout, "its control API says restart closes every connection")

    # -- Then --------------------------------------------------------------------------------------------------------

    def expect_pong(self, dev: str) -> None:
        """The server answers the device's ping with a valid pong, its payload an empty object (§5 阶段 1)."""
        entry = self.scenario.device(dev).role.expect(MessageType.PONG)
        assert entry.ok, f"the server's pong is invalid: {entry.issue}"
        extra = dict(entry.payload.extra)
        assert not extra, f"the pong payload is not an empty object: {extra!r}"

    def expect_ping(self, dev: str) -> None:
        entry = self.scenario.device(dev).role.expect(MessageType.PING)
        assert entry.ok, f"the server's ping is invalid: {entry.issue}"
        assert not dict(entry.payload.extra), f"the ping payload is not empty: {dict(entry.payload.extra)!r}"

    def expect_nothing_but_pong(self, dev: str) -> None:
        """Nothing but pong arrives for the quiet window, and the connection stays open."""
        role = self.scenario.device(dev).role
        self.scenario.none_arrives(role, lambda e: e.type != MessageType.PONG)
        assert role.closed is None, f"the server closed the connection: {role.closed}"

    def expect_welcomed(self, dev: str) -> None:
        role = self.scenario.device(dev).role
        role.expect_welcome()
        self.scenario.note(dict(role.identity))

    def expect_welcome_matches_config(self, dev: str) -> None:
        """welcome.serverName and welcome.features are what the server's ``config`` answer says, features once each."""
        welcome = self.scenario.device(dev).role.welcome_payload
        assert welcome is not None, "no welcome received"
        # serverName and features are required fields of the answer (schema-checked)
        config = self.scenario.ctl("config")
        assert welcome.server_name == config["serverName"], \
            f"welcome.serverName {welcome.server_name!r}, configured {config['serverName']!r}"
        assert sorted(welcome.features) == sorted(config["features"]), \
            f"welcome.features {list(welcome.features)!r}, configured {config['features']!r}"
        assert len(set(welcome.features)) == len(welcome.features), f"welcome.features repeats: {welcome.features!r}"

    def expect_stays_open(self, dev: str) -> None:
        """The connection is open before and after a barrier (the server has read what came before, and kept it)."""
        role = self.scenario.device(dev).role
        assert role.closed is None, f"the server closed the connection: {role.closed}"
        self.scenario.barrier()
        assert role.closed is None, f"the server closed the connection: {role.closed}"

    def expect_pong_recorded(self, dev: str) -> None:
        """The server's ``connections`` listing shows a pong of the device's open connection."""
        device_id = self.scenario.device(dev).role.device_id

        def check() -> None:
            conns = self.scenario.rows("connections", {"deviceId": device_id},
                                       keep=lambda c: c["deviceId"] == device_id and c["open"])
            assert conns, f"the server lists no open connection of device {device_id}"
            assert any(c["lastPongAt"] is not None for c in conns), \
                f"the server recorded no pong for device {dev!r}: {conns!r}"

        self.scenario.eventually(check)
