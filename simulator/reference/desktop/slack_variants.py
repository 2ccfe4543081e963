"""Broken variants of the reference desktop's Slack binding and preferences (docs/desktop-plan.md "Broken variants").

Each is the correct ``SlackSide`` (slack.py) with one method overridden so that exactly one rule of the spec is
broken, carried by a ``DesktopMachine`` subclass that only swaps ``slack_class``; ``bad-bind-state-applied`` overrides
the machine's bad-frame path instead. They are test fixtures: the
conformance features must catch each one (tests/hook_desktop/test_desktop_variants.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from ...hook import (
    BindStatePayload,
    BindUpdatePayload,
    HookMessage,
    PrefsStatePayload,
    make_bind_revoke,
    make_bind_start,
)
from .machine import DesktopMachine, Effect, Variant
from .slack import GENERIC_INSTALL_URL, PREFS_KEYS, SlackSide

__all__ = ["SLACK_WRAPPED"]


class _BindStartEmail(SlackSide):
    """``bind-start-email``: bind.start carries the user's e-mail, as an old client did. Breaks 阶段 5 "新端发空对象 {}
    … email 字段仅用于 server 识别旧客户端(deprecated)"."""

    def bind_start(self, team_id: str | None, env: Mapping[str, Any]) -> HookMessage:
        return make_bind_start(email="user@example.com", **({"team_id": team_id} if team_id and self.multi_team else {}),
                               **env)


class _RevokeTeamWithoutFeature(SlackSide):
    """``revoke-team-without-feature``: bind.revoke names the team whether or not multi-team is on. Breaks 阶段 5
    "desktop 仅在 server 声明 multi-team 后才发带 teamId 的形态"."""

    def bind_revoke(self, team_id: str | None, pending_only: bool, env: Mapping[str, Any]) -> HookMessage:
        if team_id and not pending_only:
            return make_bind_revoke(team_id=team_id, **env)
        return super().bind_revoke(team_id, pending_only, env)


class _BindStateMerged(SlackSide):
    """``bind-state-merged``: bind.state adds and updates bindings but never removes one. Breaks 阶段 5 bind.state
    "绑定全量快照(权威列表)"."""

    def on_bind_state(self, p: BindStatePayload) -> None:
        if not self.multi_team:
            return
        before = dict(self.bindings)
        super().on_bind_state(p)
        self.bindings = {**before, **self.bindings}


class _BindStateWithoutFeature(SlackSide):
    """``bind-state-without-feature``: bind.state replaces the bindings even when multi-team is off. Breaks 阶段 13
    "任一侧缺席则整体回落单绑定行为"."""

    def on_bind_state(self, p: BindStatePayload) -> None:
        on, self.multi_team = self.multi_team, True
        try:
            super().on_bind_state(p)
        finally:
            self.multi_team = on


class _InstallUrlMissing(SlackSide):
    """``install-url-missing``: a not-installed failure without installUrl shows no link. Breaks §3 "新增可选字段的缺省
    行为必须定义(如 bind.update.installUrl 缺省回退通用链接)"."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if self.authorization is not None and self.authorization["link"] == GENERIC_INSTALL_URL:
            self.authorization["link"] = None


class _PrefsSetFullRow(SlackSide):
    """``prefs-set-full-row``: prefs.set carries every key of the row, null for those the user did not change (which
    clears them). Breaks 阶段 11 prefs.set "部分更新某目录偏好(undefined 不动、null 显式清空)"."""

    def prefs_set(self, request_id: str, workspace: str, changes: Mapping[str, str | None], team_id: str | None,
                  env: Mapping[str, Any]) -> HookMessage:
        full = {k: changes.get(k) for k in PREFS_KEYS}
        return super().prefs_set(request_id, workspace, full, team_id, env)


class _PrefsStateMerged(SlackSide):
    """``prefs-state-merged``: a prefs.state is merged into the shown preferences by workspace instead of replacing
    them. Breaks §4 "latest-wins 帧(turn.progress / prefs.state 主动推送):… 每帧整体替换,不拼接不累积"."""

    def on_prefs_state(self, p: PrefsStatePayload) -> None:
        before = {e["workspace"]: e for e in (self.prefs or {}).get("prefs", [])}
        super().on_prefs_state(p)
        if self.prefs is not None and p.bound:
            now = {e["workspace"]: e for e in self.prefs["prefs"]}
            self.prefs["prefs"] = list({**before, **now}.values())


class _AuthorizeUrlHidden(SlackSide):
    """``authorize-url-hidden``: a pending bind.update shows no link. Breaks 阶段 5 bind.update "pending 时 authorizeUrl
    非空" (the page the user signs in on)."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if p.state == "pending" and self.authorization is not None:
            self.authorization["link"] = None


class _InstallUrlIgnored(SlackSide):
    """``install-url-ignored``: a not-installed failure always shows the generic link, also when the server gave
    installUrl. Breaks 阶段 5 bind.update "可选结构化 reason(已知值 not-installed,配 installUrl)"."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if p.state == "failed" and p.reason == "not-installed" and self.authorization is not None:
            self.authorization["link"] = GENERIC_INSTALL_URL


class _PendingOnlyDropped(SlackSide):
    """``pending-only-dropped``: cancelling the sign-in in flight sends a plain bind.revoke (which revokes every
    binding). Breaks 阶段 5 bind.revoke "pendingOnly=true = 只作废在途授权、不动已确认绑定"."""

    def bind_revoke(self, team_id: str | None, pending_only: bool, env: Mapping[str, Any]) -> HookMessage:
        return super().bind_revoke(team_id, False, env)


class _MultiTeamRevokeAll(SlackSide):
    """``multi-team-revoke-all``: signing out of one team sends a plain bind.revoke, also with multi-team on. Breaks
    阶段 5 bind.revoke "teamId 非空 = 只解绑该 team,空/缺省 = 解绑本设备全部"."""

    def bind_revoke(self, team_id: str | None, pending_only: bool, env: Mapping[str, Any]) -> HookMessage:
        if team_id and not pending_only and self.multi_team:
            return make_bind_revoke(**env)
        return super().bind_revoke(team_id, pending_only, env)


class _PrefsTeamWithoutFeature(SlackSide):
    """``prefs-team-without-feature``: prefs.set names the team the user picked although multi-team is off. Breaks
    阶段 13 "任一侧缺席则整体回落单绑定行为"."""

    def prefs_set(self, request_id: str, workspace: str, changes: Mapping[str, str | None], team_id: str | None,
                  env: Mapping[str, Any]) -> HookMessage:
        on, self.multi_team = self.multi_team, True
        try:
            return super().prefs_set(request_id, workspace, changes, team_id, env)
        finally:
            self.multi_team = on


class _PrefsAnswerIgnored(SlackSide):
    """``prefs-answer-ignored``: a prefs.state answering a prefs.get (replyTo set) is not taken, only pushes are. Breaks
    阶段 11 prefs.get "requestId 由 prefs.state.replyTo 回显配对"."""

    def on_prefs_state(self, p: PrefsStatePayload) -> None:
        if p.reply_to is None:
            super().on_prefs_state(p)


class _UnboundKeepsPrefs(SlackSide):
    """``unbound-keeps-prefs``: a prefs.state with bound false is ignored, the earlier preferences stay shown. Breaks
    阶段 11 prefs.state "联动:bound=false 时 prefs 恒空数组"."""

    def on_prefs_state(self, p: PrefsStatePayload) -> None:
        if p.bound:
            super().on_prefs_state(p)


class _RevokedClearsAll(SlackSide):
    """``revoked-clears-all``: a revoked bind.update removes every binding, whatever its teamId. Breaks 阶段 5 bind.update
    "可选 teamId:事件按 team 定位"."""

    def on_bind_update(self, p: BindUpdatePayload) -> None:
        super().on_bind_update(p)
        if p.state == "revoked":
            self.bindings.clear()


class _StartTeamWithoutFeature(SlackSide):
    """``start-team-without-feature``: re-authorising a team sends ``bind.start {teamId}`` whether or not multi-team is
    on. Breaks 阶段 13 "其余为已有帧的可选 teamId 扩展 … bind.start … 任一侧缺席则整体回落单绑定行为"."""

    def bind_start(self, team_id: str | None, env: Mapping[str, Any]) -> HookMessage:
        return make_bind_start(**({"team_id": team_id} if team_id else {}), **env)


class _ReauthorizeUnpinned(SlackSide):
    """``reauthorize-unpinned``: re-authorising one team sends an empty bind.start (the team is not pinned). Breaks
    阶段 5 bind.start "可选 teamId = 给指定 team 重新授权时 pin 授权页"."""

    def bind_start(self, team_id: str | None, env: Mapping[str, Any]) -> HookMessage:
        return super().bind_start(None, env)


class _BadBindStateApplied(DesktopMachine):
    """``bad-bind-state-applied``: a bind.state the parser refuses is still read, leniently (every entry with a teamId
    is shown). Breaks §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Effect]:
        try:
            data = json.loads(raw)
        except (ValueError, TypeError):
            data = None
        if isinstance(data, dict) and data.get("type") == "bind.state" and isinstance(data.get("payload"), dict):
            entries = data["payload"].get("bindings")
            if isinstance(entries, list):
                self.slack.bindings = {e["teamId"]: {"teamId": e["teamId"], "teamName": e.get("teamName"),
                                                     "slackUserId": e.get("slackUserId"),
                                                     "slackUserName": e.get("slackUserName")}
                                       for e in entries if isinstance(e, dict) and isinstance(e.get("teamId"), str)}
                return []
        return super()._on_bad_frame(raw, now)


def _carrying(side: type[SlackSide]) -> type[DesktopMachine]:
    return type(f"DesktopMachineWith{side.__name__.lstrip('_')}", (DesktopMachine,), {"slack_class": side})


#: The Slack variants, by name (added to ``variants.WRAPPED``).
SLACK_WRAPPED: Final[dict[Variant, type[DesktopMachine]]] = {
    Variant.BIND_START_EMAIL: _carrying(_BindStartEmail),
    Variant.REVOKE_TEAM_WITHOUT_FEATURE: _carrying(_RevokeTeamWithoutFeature),
    Variant.BIND_STATE_MERGED: _carrying(_BindStateMerged),
    Variant.BIND_STATE_WITHOUT_FEATURE: _carrying(_BindStateWithoutFeature),
    Variant.INSTALL_URL_MISSING: _carrying(_InstallUrlMissing),
    Variant.PREFS_SET_FULL_ROW: _carrying(_PrefsSetFullRow),
    Variant.PREFS_STATE_MERGED: _carrying(_PrefsStateMerged),
    Variant.REVOKED_CLEARS_ALL: _carrying(_RevokedClearsAll),
    Variant.AUTHORIZE_URL_HIDDEN: _carrying(_AuthorizeUrlHidden),
    Variant.INSTALL_URL_IGNORED: _carrying(_InstallUrlIgnored),
    Variant.PENDING_ONLY_DROPPED: _carrying(_PendingOnlyDropped),
    Variant.MULTI_TEAM_REVOKE_ALL: _carrying(_MultiTeamRevokeAll),
    Variant.PREFS_TEAM_WITHOUT_FEATURE: _carrying(_PrefsTeamWithoutFeature),
    Variant.PREFS_ANSWER_IGNORED: _carrying(_PrefsAnswerIgnored),
    Variant.UNBOUND_KEEPS_PREFS: _carrying(_UnboundKeepsPrefs),
    Variant.BAD_BIND_STATE_APPLIED: _BadBindStateApplied,
    Variant.REAUTHORIZE_UNPINNED: _carrying(_ReauthorizeUnpinned),
    Variant.START_TEAM_WITHOUT_FEATURE: _carrying(_StartTeamWithoutFeature),
}
