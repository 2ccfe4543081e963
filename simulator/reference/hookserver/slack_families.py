"""The Slack families of the reference hook server, wired to the machine: bind.* (Sign in with Slack), prefs.* (the
Slack workspace preferences), multi-team, and their control commands ``slack-authorize`` and the Slack branch of
``channel-set-prefs`` (docs/control-api.md "Bindings and preferences (hook-server)", "Slack preferences").

Spec: §5 阶段 5 bind.start / bind.update / bind.revoke / bind.state ("任何绑定变化(新增/解除/被顶)后推送", "连接建立 …
后推送"); 阶段 11 prefs.get / prefs.set / prefs.state ("requestId 由 prefs.state.replyTo 回显配对", "主动推送(渠道 /model
卡写入后)为 null", "bound=false 时 prefs 恒空数组"); 阶段 13 multi-team ("desktop 在 hello.features、server 在
welcome.features 各自声明 HOOK_FEATURE_MULTI_TEAM,任一侧缺席则整体回落单绑定行为"; prefs.set / tool.request teamId;
task.dispatch.source teamId + teamName).

``SlackFamilies`` is a mixin of ``HookServerMachine`` (sans-I/O like it): the state and its rules are the pure modules
``slack_binding`` (``SlackBindings``: bindings, pending sign-ins) and ``slack_prefs`` (``SlackPrefs``: rows); this
module routes frames to them and turns their answers into frames (``make_bind_update``, ``make_bind_state``,
``make_prefs_state``) and ``Persist`` effects (tables ``slack_bindings``, ``slack_pending``, ``slack_prefs``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...hook import (ABSENT, BindRevokePayload, BindStartPayload, BindStateEntry, Feature, HookMessage, PrefsGetPayload,
                     PrefsSetPayload, TaskSource, WorkspacePrefsEntry, make_bind_state, make_bind_update,
                     make_prefs_state)
from .effects import Effect, MachineError, Persist, Send, opt_str, req_str
from .host import MachineHost
from .slack_binding import BindingRefusal, Outcome, SlackBinding, SlackBindings
from .slack_prefs import PREF_KEYS, SlackPrefs
from .state import hello_device
from .wire import payload_as

if TYPE_CHECKING:
    from .state import Connection

__all__ = ["SLACK_TABLES", "SlackFamilies"]

SLACK_TABLES = ("slack_bindings", "slack_pending", "slack_prefs")


class SlackFamilies(MachineHost):
    """Mixin: needs the machine's ``_frame``, ``_ids``, ``_open_conn_of``, ``connections``."""

    def _slack_init(self) -> None:
        self.slack = SlackBindings()
        self.slack_prefs = SlackPrefs()

    # -- negotiation ----------------------------------------------------------------------------------------------

    def _multi_team(self, conn: Connection | None) -> bool:
        """spec 阶段 13 "desktop 在 hello.features、server 在 welcome.features 各自声明 HOOK_FEATURE_MULTI_TEAM,任一侧
        缺席则整体回落单绑定行为"."""
        feature = Feature.MULTI_TEAM.value
        return conn is not None and feature in conn.welcome_features and feature in conn.features

    def _latest_conn_of(self, device_id: str) -> Connection | None:
        """The device's open connection, else its newest hello'd one (what it negotiated last)."""
        conn = self._open_conn_of(device_id)
        if conn is not None:
            return conn
        return next((c for c in reversed(self.connections.values()) if c.device_id == device_id and c.hello_count),
                    None)

    # -- bind.* (spec 阶段 5) ---------------------------------------------------------------------------------------

    def _slack_outcome(self, outcome: Outcome, now: int, out: list[Effect]) -> None:
        """Carry out a binding outcome: rows, bind.update to each device's open connection, then bind.state to each
        device whose list changed."""
        out.extend(Persist(table, key, row) for table, key, row in outcome.writes)
        for device_id, fields in outcome.updates:
            conn = self._open_conn_of(device_id)
            if conn is not None:
                out.append(self._frame(conn.conn_id, make_bind_update(**fields, ids=self._ids, ts=now,
                                                                      validate=False)))
        self._bind_states(outcome.changed, now, out)

    def _bind_states(self, devices: Iterable[str], now: int, out: list[Effect]) -> None:
        """bind.state "任何绑定变化(新增/解除/被顶)后推送": to each device whose binding list changed."""
        for device_id in devices:
            self._bind_state(self._open_conn_of(device_id), now, out)

    def _bind_state_after_welcome(self, conn: Connection, now: int, out: list[Effect]) -> None:
        """bind.state "连接建立 … 后推送": the device's bindings right after the welcome."""
        self._bind_state(conn, now, out)

    def _bind_state(self, conn: Connection | None, now: int, out: list[Effect]) -> None:
        """The device's bindings, when multi-team is on for the connection."""
        if conn is None or conn.device_id is None or not self._multi_team(conn):
            return
        entries = tuple(BindStateEntry.from_wire(b.entry()) for b in self.slack.of(conn.device_id))
        out.append(self._frame(conn.conn_id, make_bind_state(bindings=entries, ids=self._ids, ts=now, validate=False)))

    def _on_bind_start(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        team = payload_as(message, BindStartPayload).team_id
        self._slack_outcome(self.slack.start(hello_device(conn), team if isinstance(team, str) else None, self._ids(),
                                             self._multi_team(conn)), now, out)

    def _on_bind_revoke(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        p = payload_as(message, BindRevokePayload)
        team = p.team_id if isinstance(p.team_id, str) else None
        self._slack_outcome(self.slack.revoke(hello_device(conn), team, p.pending_only is True, self._multi_team(conn)),
                            now, out)

    # -- prefs.* (spec 阶段 11, 阶段 13) ------------------------------------------------------------------------------

    def _prefs_binding(self, conn: Connection, team_id: Any) -> SlackBinding | None:
        """The binding a prefs.set patches: ``teamId``'s (multi-team on), else the device's only binding."""
        bindings = self.slack.of(conn.device_id or "")
        if isinstance(team_id, str) and self._multi_team(conn):
            return next((b for b in bindings if b.team_id == team_id), None)
        return bindings[0] if len(bindings) == 1 else None

    def _prefs_entries(self, bindings: list[SlackBinding], with_team: bool) -> list[dict[str, Any]]:
        """Every row of every binding of the device ("全量快照"); unbound: none ("bound=false 时 prefs 恒空数组")."""
        if not bindings:
            return []
        return self.slack_prefs.entries(((b.team_id, b.slack_user_id) for b in bindings), with_team)

    def _prefs_state(self, conn: Connection, reply_to: str | None, now: int) -> Send:
        """prefs.state: the device's snapshot, answering ``reply_to`` (None: a push)."""
        bindings = self.slack.of(conn.device_id or "")
        entries = self._prefs_entries(bindings, self._multi_team(conn))
        return self._frame(conn.conn_id, make_prefs_state(
            bound=bool(bindings), reply_to=reply_to, prefs=tuple(WorkspacePrefsEntry.from_wire(e) for e in entries),
            ids=self._ids, ts=now, validate=False))

    def _on_prefs_get(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """"requestId 由 prefs.state.replyTo 回显配对"."""
        out.append(self._prefs_state(conn, payload_as(message, PrefsGetPayload).request_id, now))

    def _on_prefs_set(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """A partial patch of one row ("undefined 不动、null 显式清空"), answered with the snapshot; unbound: nothing
        is stored."""
        p = payload_as(message, PrefsSetPayload)
        binding = self._prefs_binding(conn, p.team_id)
        if binding is not None:
            patch = {k: getattr(p, attr) for k, attr in PREF_KEYS.items() if getattr(p, attr) is not ABSENT}
            out.append(Persist(*self.slack_prefs.patch(binding.team_id, binding.slack_user_id, p.workspace, patch)))
        out.append(self._prefs_state(conn, p.request_id, now))

    def _push_prefs_state(self, conn: Connection, now: int) -> Send:
        """prefs.state after a change made in the channel: "主动推送(渠道 /model 卡写入后)为 null"."""
        return self._prefs_state(conn, None, now)

    # -- task.dispatch.source (spec 阶段 13) ------------------------------------------------------------------------

    def _team_source(self, source: TaskSource, team_id: str | None, provider: str, device_id: str) -> TaskSource:
        """spec 阶段 13 task.dispatch.source "teamId + teamName": with multi-team on and that team bound."""
        if team_id is None or provider != "slack" or not self._multi_team(self._latest_conn_of(device_id)):
            return source
        binding = self.slack.team(device_id, team_id)
        if binding is None:
            return source
        return dataclasses.replace(source, team_id=team_id, team_name=binding.team_name)

    # -- control commands -----------------------------------------------------------------------------------------

    def slack_authorize(self, body: Mapping[str, Any], now: int) -> list[Effect]:
        """Control ``slack-authorize``: the identity provider's outcome of a pending authorization."""
        device_id = opt_str(body, "deviceId")
        outcome = req_str(body, "outcome")
        for key in ("teamId", "teamName", "slackUserId", "slackUserName", "message"):
            opt_str(body, key)
        install = body.get("installUrl")
        if install is not None and not isinstance(install, str):
            raise MachineError("invalid-request", "installUrl: a string or null is expected")
        try:
            result = self.slack.authorize(device_id, outcome, dict(body))
        except BindingRefusal as exc:
            raise MachineError(exc.code, exc.message, exc.status) from None
        out: list[Effect] = []
        self._slack_outcome(result, now, out)
        return out

    def channel_set_slack_prefs(self, body: Mapping[str, Any], now: int) -> tuple[int, list[Effect]]:
        """The Slack branch of ``channel-set-prefs``: patch a bound Slack user's row, then push prefs.state to the
        binding's device."""
        team, user, workspace = req_str(body, "teamId"), req_str(body, "slackUserId"), req_str(body, "workspace")
        patch = _prefs_patch(body)
        binding = self.slack.by_user(team, user)
        if binding is None:
            raise MachineError("not-bound", f"no device holds the Slack binding ({team!r}, {user!r})", 409)
        out: list[Effect] = [Persist(*self.slack_prefs.patch(team, user, workspace, patch))]
        conn = self._open_conn_of(binding.device_id)
        if conn is None:
            return 0, out
        out.append(self._push_prefs_state(conn, now))
        return 1, out

    # -- restore --------------------------------------------------------------------------------------------------

    def _slack_restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]]) -> None:
        self.slack.restore(list(tables.get("slack_bindings", ())), list(tables.get("slack_pending", ())))
        self.slack_prefs.restore(tables.get("slack_prefs", ()))


def _prefs_patch(body: Mapping[str, Any]) -> dict[str, str | None]:
    """The patch keys present in a control body (absent keeps, null clears, a string is stored as given)."""
    patch = {k: body[k] for k in PREF_KEYS if k in body}
    for key, value in patch.items():
        if value is not None and not isinstance(value, str):
            raise MachineError("invalid-request", f"{key}: a string or null is expected")
    return patch
