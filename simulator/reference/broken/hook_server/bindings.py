"""Broken variants of the reference hook server: Slack binding, multi-team and the Slack preferences (spec
slack-hook-protocol.md 阶段 5 bind.*, 阶段 11 prefs.*, 阶段 13 multi-team, §1 durability, §2 坏帧;
docs/hook-server-plan.md "Broken variants").

Each class is the correct ``HookServerMachine`` with one method overridden, or one of its pure books
(``SlackBindings``, ``SlackPrefs``) swapped for a subclass that overrides one rule, so that exactly one rule is broken;
each is registered with the requirements that catch it (tests/hook_server/test_server_variants.py reads them).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import orjson

from ....hook import HOOK_CHAT_WORKSPACE_ALIAS, Feature, HookMessage, HookParseResult, MessageType, TaskSource, \
    parse_hook_message
from ...hookserver.effects import Effect, Send
from ...hookserver.machine import HookServerMachine
from ...hookserver.slack_binding import Outcome, Pending, SlackBinding, SlackBindings
from ...hookserver.slack_prefs import PREF_KEYS, SlackPrefs
from ...hookserver.state import Connection
from ..registry import broken


class _SwappedBook(HookServerMachine):
    """The machine with its Slack bindings book (``BOOK``) or preferences book (``PREFS``) swapped."""

    BOOK: ClassVar[type[SlackBindings]] = SlackBindings
    PREFS: ClassVar[type[SlackPrefs]] = SlackPrefs

    def _slack_init(self) -> None:
        self.slack = self.BOOK()
        self.slack_prefs = self.PREFS()


class _Repairs(HookServerMachine):
    """Takes one kind of frame the core refuses: ``_repair`` returns the frame repaired (or None), which is parsed
    again and handled."""

    def _repair(self, data: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any] | None:
        raise NotImplementedError

    def _parse(self, raw: str | bytes) -> HookParseResult:
        result = super()._parse(raw)
        if result.ok:
            return result
        try:
            data = orjson.loads(raw)
        except orjson.JSONDecodeError:
            return result
        payload = data.get("payload") if isinstance(data, dict) else None
        if not isinstance(payload, dict):
            return result
        repaired = self._repair(data, payload)
        if repaired is None:
            return result
        again = parse_hook_message(orjson.dumps(repaired))
        return again if again.ok else result


# -- bind.* (spec 阶段 5) -----------------------------------------------------------------------------------------------


class _PendingTeamEmpty(SlackBindings):
    def start(self, device_id: str, team_id: str | None, nonce: str, multi_team: bool) -> Outcome:
        out = super().start(device_id, team_id, nonce, multi_team)
        for _device, fields in out.updates:
            if fields["team_id"] is None:
                fields["team_id"] = ""
        return out


@broken("pending-team-not-null", subject="hook-server", breaks=["HOOK-SERVER-BIND-PENDING-01"],
        also=["HOOK-SERVER-BIND-CONFIRM-01", "HOOK-SERVER-BIND-DURABLE-01", "HOOK-SERVER-BIND-FAILED-01", "HOOK-SERVER-BIND-OUTCOME-01", "HOOK-SERVER-BIND-REVOKE-02"],
        clause='阶段 5 "pending 期团队未知为 null"')
class PendingTeamNotNull(_SwappedBook):
    """``pending-team-not-null``: bind.update pending names the team "" although none was pinned. Breaks 阶段 5
    "pending 期团队未知为 null"."""

    BOOK = _PendingTeamEmpty


class _KeepsPendingOnConfirm(SlackBindings):
    def _end_authorization(self, pending: Pending, outcome: str, out: Outcome) -> None:
        if outcome != "confirm":
            super()._end_authorization(pending, outcome, out)


@broken("confirm-keeps-pending", subject="hook-server", breaks=["HOOK-SERVER-BIND-CONFIRM-01"],
        clause='阶段 5 "绑定状态机推送:none / pending / confirmed …"')
class ConfirmKeepsPending(_SwappedBook):
    """``confirm-keeps-pending``: a confirmed sign-in leaves its pending authorization open. Breaks 阶段 5 "绑定状态机
    推送:none / pending / confirmed …" (one state at a time)."""

    BOOK = _KeepsPendingOnConfirm


class _DenyExpireAsFailed(SlackBindings):
    def _ended(self, outcome: str, team_id: str | None, body: dict[str, Any]) -> dict[str, Any]:
        ended = super()._ended(outcome, team_id, body)
        if outcome in ("deny", "expire"):
            ended = {**ended, "state": "failed", "message": f"the sign-in ended: {outcome}"}
        return ended


@broken("deny-expire-as-failed", subject="hook-server", breaks=["HOOK-SERVER-BIND-OUTCOME-01"],
        clause='阶段 5 "绑定状态机推送:… denied / expired / failed …"')
class DenyExpireAsFailed(_SwappedBook):
    """``deny-expire-as-failed``: a denied or expired sign-in is reported as failed. Breaks 阶段 5 "绑定状态机推送:…
    denied / expired / failed …"."""

    BOOK = _DenyExpireAsFailed


class _FailedWithoutMessage(SlackBindings):
    def _ended(self, outcome: str, team_id: str | None, body: dict[str, Any]) -> dict[str, Any]:
        ended = super()._ended(outcome, team_id, body)
        return {**ended, "message": None} if ended["state"] == "failed" else ended


@broken("failed-without-message", subject="hook-server", breaks=["HOOK-SERVER-BIND-FAILED-01"],
        clause='阶段 5 "failed 时 message 非空"')
class FailedWithoutMessage(_SwappedBook):
    """``failed-without-message``: bind.update failed carries no message. Breaks 阶段 5 "failed 时 message 非空"."""

    BOOK = _FailedWithoutMessage


class _PendingOnlyRevokesAll(SlackBindings):
    def revoke(self, device_id: str, team_id: str | None, pending_only: bool, multi_team: bool) -> Outcome:
        return super().revoke(device_id, None if pending_only else team_id, False, multi_team)


@broken("revoke-pending-drops-bindings", subject="hook-server", breaks=["HOOK-SERVER-BIND-REVOKE-02"],
        clause='阶段 5 "不动已确认绑定"')
class RevokePendingDropsBindings(_SwappedBook):
    """``revoke-pending-drops-bindings``: bind.revoke {pendingOnly: true} removes the confirmed bindings too. Breaks
    阶段 5 "pendingOnly … 只作废在途授权、不动已确认绑定"."""

    BOOK = _PendingOnlyRevokesAll


class _RevokeAllKeepsBindings(SlackBindings):
    def _all_bindings(self, device_id: str) -> list[SlackBinding]:
        return []


@broken("revoke-all-keeps-bindings", subject="hook-server", breaks=["HOOK-SERVER-BIND-REVOKE-01"],
        also=["HOOK-SERVER-PREFS-UNBOUND-01"], clause='阶段 5 "空/缺省 = 解绑本设备全部"')
class RevokeAllKeepsBindings(_SwappedBook):
    """``revoke-all-keeps-bindings``: bind.revoke without a team ends the pending sign-in only. Breaks 阶段 5 "空/缺省
    = 解绑本设备全部"."""

    BOOK = _RevokeAllKeepsBindings


class _RevokeTeamRemovesAll(SlackBindings):
    def _team_bindings(self, device_id: str, team_id: str) -> list[SlackBinding]:
        return self.of(device_id)


@broken("revoke-team-removes-all", subject="hook-server", breaks=["HOOK-SERVER-MULTITEAM-TEAMS-01"],
        also=["HOOK-SERVER-MULTITEAM-STATE-02"], clause='阶段 5 "teamId 非空 = 只解绑该 team"')
class RevokeTeamRemovesAll(_SwappedBook):
    """``revoke-team-removes-all``: bind.revoke {teamId} removes every binding of the device. Breaks 阶段 5 "teamId
    非空 = 只解绑该 team"."""

    BOOK = _RevokeTeamRemovesAll


@broken("bind-state-missing", subject="hook-server", breaks=["HOOK-SERVER-MULTITEAM-STATE-02"],
        also=["HOOK-SERVER-MULTITEAM-SOURCE-01", "HOOK-SERVER-MULTITEAM-STATE-01", "HOOK-SERVER-MULTITEAM-TEAMS-01", "HOOK-SERVER-PREFS-TEAM-01"],
        clause='阶段 5 bind.state "任何绑定变化 ... 后推送"')
class BindStateMissing(HookServerMachine):
    """``bind-state-missing``: no bind.state after a change of the device's bindings. Breaks 阶段 5 bind.state "任何绑定
    变化(新增/解除/被顶)后推送"."""

    def _bind_states(self, devices: Iterable[str], now: int, out: list[Effect]) -> None:
        return None


@broken("bind-state-not-after-welcome", subject="hook-server", breaks=["HOOK-SERVER-MULTITEAM-STATE-01"],
        clause='阶段 5 bind.state "连接建立 … 后推送"')
class BindStateNotAfterWelcome(HookServerMachine):
    """``bind-state-not-after-welcome``: no bind.state after the welcome. Breaks 阶段 5 bind.state "连接建立 …
    后推送"."""

    def _bind_state_after_welcome(self, conn: Connection, now: int, out: list[Effect]) -> None:
        return None


@broken("bad-bind-revoke-applied", subject="hook-server", breaks=["HOOK-SERVER-BIND-BADFRAME-01"],
        clause='§2 "坏帧返回 ok:false"')
class BadBindRevokeApplied(_Repairs):
    """``bad-bind-revoke-applied``: a bind.revoke with an unknown key is applied without it instead of dropped.
    Breaks §2 "坏帧返回 ok:false" (the frame is dropped)."""

    def _repair(self, data: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any] | None:
        if data.get("type") != MessageType.BIND_REVOKE.value:
            return None
        return {**data, "payload": {k: v for k, v in payload.items() if k in ("teamId", "pendingOnly")}}


@broken("bindings-not-durable", subject="hook-server", breaks=["HOOK-SERVER-BIND-DURABLE-01"],
        also=["HOOK-SERVER-PREFS-DURABLE-01"], clause='§1 "Slack 用户 ↔ 设备" 绑定 (durable across a restart)')
class BindingsNotDurable(HookServerMachine):
    """``bindings-not-durable``: the Slack bindings and pending sign-ins are written but not read back at a restart.
    Breaks §1 "Slack 用户 ↔ 设备" 绑定 (durable across a restart)."""

    def restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], now: int) -> list[Effect]:
        return super().restore({**tables, "slack_bindings": (), "slack_pending": ()}, now)


# -- multi-team (spec 阶段 13) ------------------------------------------------------------------------------------------


@broken("multi-team-without-desktop-feature", subject="hook-server", breaks=["HOOK-SERVER-MULTITEAM-FALLBACK-01"],
        clause='阶段 13 "任一侧缺席则整体回落单绑定行为"')
class MultiTeamWithoutDesktopFeature(HookServerMachine):
    """``multi-team-without-desktop-feature``: multi-team is on although the desktop's hello lacks it. Breaks 阶段 13
    "任一侧缺席则整体回落单绑定行为"."""

    def _multi_team(self, conn: Connection | None) -> bool:
        return conn is not None and Feature.MULTI_TEAM.value in conn.welcome_features


@broken("multi-team-without-server-feature", subject="hook-server", run="bare",
        breaks=["HOOK-SERVER-MULTITEAM-FALLBACK-02"], clause='阶段 13 "任一侧缺席则整体回落单绑定行为"')
class MultiTeamWithoutServerFeature(HookServerMachine):
    """``multi-team-without-server-feature``: multi-team is on when the desktop declares it although the server's
    welcome lacks it. Breaks 阶段 13 "任一侧缺席则整体回落单绑定行为" (caught by a run without welcome features)."""

    def _multi_team(self, conn: Connection | None) -> bool:
        return conn is not None and Feature.MULTI_TEAM.value in conn.features


@broken("source-without-team", subject="hook-server", breaks=["HOOK-SERVER-MULTITEAM-SOURCE-01"],
        clause='阶段 13 "task.dispatch.source(teamId + teamName)"')
class SourceWithoutTeam(HookServerMachine):
    """``source-without-team``: task.dispatch.source lacks the team's teamId and teamName. Breaks 阶段 13
    "task.dispatch.source(teamId + teamName)"."""

    def _team_source(self, source: TaskSource, team_id: str | None, provider: str, device_id: str) -> TaskSource:
        return source


# -- prefs.* (spec 阶段 11, 阶段 13) ------------------------------------------------------------------------------------


class _ReplacingPrefs(SlackPrefs):
    def patch(self, team_id: str, slack_user_id: str, workspace: str,
              patch: Mapping[str, str | None]) -> tuple[str, str, dict[str, Any]]:
        return super().patch(team_id, slack_user_id, workspace, {k: patch.get(k) for k in PREF_KEYS})


@broken("prefs-set-replaces", subject="hook-server", breaks=["HOOK-SERVER-PREFS-PATCH-01"],
        clause='阶段 11 "部分更新 ... undefined 不动"')
class PrefsSetReplaces(_SwappedBook):
    """``prefs-set-replaces``: prefs.set clears the keys it does not name. Breaks 阶段 11 "部分更新某目录偏好(undefined
    不动、null 显式清空)"."""

    PREFS = _ReplacingPrefs


@broken("prefs-unbound-leaks", subject="hook-server", breaks=["HOOK-SERVER-PREFS-UNBOUND-01"],
        clause='阶段 11 "bound=false 时 prefs 恒空数组"')
class PrefsUnboundLeaks(HookServerMachine):
    """``prefs-unbound-leaks``: prefs.state with bound=false lists every user's rows. Breaks 阶段 11 "bound=false 时
    prefs 恒空数组"."""

    def _prefs_entries(self, bindings: list[SlackBinding], with_team: bool) -> list[dict[str, Any]]:
        if bindings:
            return super()._prefs_entries(bindings, with_team)
        return [r.entry(with_team) for r in sorted(self.slack_prefs.rows.values(), key=lambda r: r.seq)]


@broken("prefs-get-reply-to-frame-id", subject="hook-server", breaks=["HOOK-SERVER-PREFS-GET-01"],
        also=["HOOK-SERVER-PREFS-BADFRAME-01", "HOOK-SERVER-PREFS-DURABLE-01", "HOOK-SERVER-PREFS-UNBOUND-01"],
        clause='阶段 11 "requestId 由 prefs.state.replyTo 回显配对"')
class PrefsGetReplyToFrameId(HookServerMachine):
    """``prefs-get-reply-to-frame-id``: prefs.state answering prefs.get echoes the frame's id, not its requestId.
    Breaks 阶段 11 "requestId 由 prefs.state.replyTo 回显配对"."""

    def _on_prefs_get(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        out.append(self._prefs_state(conn, message.id, now))


@broken("prefs-push-has-reply-to", subject="hook-server", breaks=["HOOK-SERVER-PREFS-PUSH-01"],
        clause='阶段 11 "主动推送(渠道 /model 卡写入后)为 null"')
class PrefsPushHasReplyTo(HookServerMachine):
    """``prefs-push-has-reply-to``: the prefs.state pushed after a channel change carries a replyTo. Breaks 阶段 11
    "主动推送(渠道 /model 卡写入后)为 null"."""

    def _push_prefs_state(self, conn: Connection, now: int) -> Send:
        return self._prefs_state(conn, self._ids(), now)


@broken("prefs-set-ignores-team", subject="hook-server", breaks=["HOOK-SERVER-PREFS-TEAM-01"],
        clause='阶段 13 "prefs.set … 可选 teamId 扩展 (多绑定下的归属消歧)"')
class PrefsSetIgnoresTeam(HookServerMachine):
    """``prefs-set-ignores-team``: prefs.set ignores its teamId and patches the device's oldest binding. Breaks 阶段 13
    "prefs.set … 可选 teamId 扩展(多绑定下的归属消歧)"."""

    def _prefs_binding(self, conn: Connection, team_id: Any) -> SlackBinding | None:
        bindings = self.slack.of(conn.device_id or "")
        return bindings[0] if bindings else None


@broken("prefs-set-without-workspace-applied", subject="hook-server", breaks=["HOOK-SERVER-PREFS-BADFRAME-01"],
        clause='§2 "坏帧返回 ok:false + 字段路径"')
class PrefsSetWithoutWorkspaceApplied(_Repairs):
    """``prefs-set-without-workspace-applied``: a prefs.set without workspace is applied to "chat" instead of dropped.
    Breaks §2 "坏帧返回 ok:false + 字段路径"."""

    def _repair(self, data: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any] | None:
        if data.get("type") != MessageType.PREFS_SET.value or "workspace" in payload:
            return None
        return {**data, "payload": {**payload, "workspace": HOOK_CHAT_WORKSPACE_ALIAS}}


@broken("prefs-not-durable", subject="hook-server", breaks=["HOOK-SERVER-PREFS-DURABLE-01"],
        clause='§1 "偏好 … server 侧目录偏好" (durable across a restart)')
class PrefsNotDurable(HookServerMachine):
    """``prefs-not-durable``: the Slack preferences are written but not read back at a restart. Breaks §1 "偏好 …
    server 侧目录偏好" (durable across a restart)."""

    def restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], now: int) -> list[Effect]:
        return super().restore({**tables, "slack_prefs": ()}, now)
