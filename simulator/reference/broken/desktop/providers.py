"""Broken variants of the reference desktop's provider families (slack-hook-protocol.md §2, §5 Provider-neutral,
阶段 19): each is the correct ``DesktopMachine`` with one hook of ``providers.ProviderFamilies`` overridden (or one pure
book swapped) so that exactly one rule is broken. The features of features/hook/desktop/provider_*.feature and
behavior.feature must catch each one (tests/hook_desktop/test_desktop_variants.py).
"""

from __future__ import annotations

import json
from dataclasses import replace
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ....hook import (
    ABSENT,
    DEFAULT_TELEGRAM_BEHAVIOR,
    PROVIDER_BIND_ACTIONS,
    HookBuildError,
    MessageType,
    ProviderBindUpdatePayload,
    make_provider_behavior_get,
    make_provider_prefs_get,
    parse_hook_message,
)
from ...desktop.behavior import GLOBAL_KEYS, BehaviorBook
from ...desktop.machine import DesktopMachine
from ...desktop.provider_bindings import ProviderBook, Refused, link_ok
from ..registry import broken

__all__ = ["ProviderWithoutFeature", "TelegramUrlUnchecked", "UnknownActionDropsFrame", "CancelAllAttempts",
    "PrefsPathInsteadOfAlias", "BehaviorOmitsDefault", "BehaviorWithoutFeature", "ProviderPrefsStateMerged",
    "LenientProviderFrames", "ProviderStartScopeDropped", "RevokeAllBindings", "TelegramLinkHidden",
    "TelegramLinkSchemeUnchecked", "BindingEndIgnored", "ProviderPrefsWithoutFeature", "PrefsSelectorBoth",
    "LenientProviderPrefs", "BehaviorGetWithoutBinding", "GroupActivationAsMap", "BehaviorStateFirstKept",
    "LenientBehaviorStates"]


@broken("provider-without-feature", subject="desktop",
        breaks=["HOOK-DESKTOP-PROVIDER-HIDDEN-01", "HOOK-DESKTOP-PROVIDER-OFF-01"],
        clause='§2 "任一能力缺席都隐藏该渠道并完整回落现有 Slack 路径"')
class ProviderWithoutFeature(DesktopMachine):
    """Every provider channel is offered whatever welcome declares."""

    def _channel_on(self, provider: str) -> bool:
        return True


class _UncheckedBook(ProviderBook):
    def checked_link(self, provider: str, url: str | None) -> tuple[str | None, bool]:
        return url, False


@broken("telegram-url-unchecked", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-LINK-02"],
        clause='§5 "链接仍需由 host 做 provider-specific allowlist 校验,例如 Telegram 客户端只接受严格的 '
               'https://t.me/<bot>?start=<token>"')
class TelegramUrlUnchecked(DesktopMachine):
    """Any https connectUrl is shown."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _UncheckedBook()


@broken("unknown-action-drops-frame", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-ACTIONS-01"],
        clause='§5 "消费者必须忽略未来未知 action"')
class UnknownActionDropsFrame(DesktopMachine):
    """A provider.bind frame naming an action it does not know is dropped whole."""

    def _take_status(self, payload: Any) -> None:
        if all(a in PROVIDER_BIND_ACTIONS for a in payload.actions):
            super()._take_status(payload)


@broken("cancel-all-attempts", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-CANCEL-01"],
        clause='§5 provider.bind.cancel "只取消指定 attemptId"')
class CancelAllAttempts(DesktopMachine):
    """Cancelling one attempt cancels every open attempt of that provider."""

    def _cancel_targets(self, provider: str, attempt_id: str) -> list[str]:
        others = [a.attempt_id for a in self.provider_book.attempts[provider].values()
                  if a.state in ("pending", "awaiting_confirmation") and a.attempt_id != attempt_id]
        return [attempt_id, *others]


class _Unchecked(DesktopMachine):
    """The frames the user's commands build go out unchecked (the broken shapes below would not pass the core)."""

    def _send(self, build: Any, *args: Any, **kwargs: Any) -> list[Any]:
        try:
            msg = build(*args, validate=False, **kwargs)
        except HookBuildError as exc:
            raise Refused("invalid-request", str(exc)) from None
        return [self._frame(msg)]


@broken("prefs-path-instead-of-alias", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-PREFS-ALIAS-01"],
        clause='§2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线" (§5 provider.prefs.set "按 workspace alias")')
class PrefsPathInsteadOfAlias(_Unchecked):
    """``provider.prefs.set`` carries the workspace's folder path (sent unchecked)."""

    def _prefs_workspace(self, alias: str) -> str:
        return self.workspaces.get(alias, alias)


@broken("behavior-omits-default", subject="desktop", breaks=["HOOK-DESKTOP-BEHAVIOR-SET-01"],
        clause='阶段 19 "显式枚举 = 设置/覆盖(即使等于当前默认值也要保留用户意图…)"')
class BehaviorOmitsDefault(DesktopMachine):
    """A behaviour value equal to the factory default is left out of provider.behavior.set."""

    def _behavior_fields(self, changes: Mapping[str, Any], group_activation: Any) -> dict[str, Any]:
        fields = super()._behavior_fields(changes, group_activation)
        for key, attr in GLOBAL_KEYS.items():
            if key in changes and changes[key] == DEFAULT_TELEGRAM_BEHAVIOR[key]:
                fields.pop(attr, None)
        return fields


@broken("behavior-without-feature", subject="desktop",
        breaks=["HOOK-DESKTOP-BEHAVIOR-GATE-01", "HOOK-DESKTOP-BEHAVIOR-STATE-01"],
        clause='阶段 19 "任一侧未声明则整条通道不可用,desktop 侧维持旧行为(不发 get/set,也不渲染 state)"')
class BehaviorWithoutFeature(DesktopMachine):
    """The behaviour channel is used whatever welcome declares (get/set sent, state rendered)."""

    def _behavior_on(self) -> bool:
        return True


class _MergingBook(ProviderBook):
    def take_prefs(self, p: Any) -> None:
        before = self.prefs.get((p.provider, p.binding_id, p.scope_id))
        super().take_prefs(p)
        if before is not None:
            entry = self.prefs[(p.provider, p.binding_id, p.scope_id)]
            merged = {e["workspace"]: e for e in before["prefs"]}
            merged.update({e["workspace"]: e for e in entry["prefs"]})
            entry["prefs"] = list(merged.values())


@broken("provider-prefs-state-merged", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-PREFS-STATE-01"],
        clause='§5 "provider.prefs.state … 同一偏好域的全量快照"')
class ProviderPrefsStateMerged(DesktopMachine):
    """A provider.prefs.state is merged into what is shown for its selector (by workspace) instead of replacing it."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _MergingBook()


@broken("lenient-provider-frames", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-GARBAGE-01"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (a bad frame is dropped)')
class LenientProviderFrames(DesktopMachine):
    """A provider.bind.update / state that fails the core's checks is taken anyway when its payload is an object."""

    _TYPES = (MessageType.PROVIDER_BIND_UPDATE.value, MessageType.PROVIDER_BIND_STATE.value)

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        try:
            data = json.loads(raw)
            if isinstance(data, dict) and data.get("type") in self._TYPES and isinstance(data.get("payload"), dict):
                payload = ProviderBindUpdatePayload.from_wire(data["payload"])
                return self.on_provider_status(SimpleNamespace(payload=payload), now)
        except (ValueError, TypeError, AttributeError):
            pass
        return super()._on_bad_frame(raw, now)


@broken("provider-start-scope-dropped", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-START-01"],
        clause="§5 provider.bind.start \"按 provider 发起一次绑定尝试;requestId 配对,scopeId 可选\" (the optional scopeId is "
               "the user's)")
class ProviderStartScopeDropped(DesktopMachine):
    """``provider.bind.start`` leaves out the scope the user chose."""

    def provider_bind(self, provider: Any, scope_id: Any, now: float) -> tuple[str, list[Any]]:
        return super().provider_bind(provider, None, now)


@broken("revoke-all-bindings", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-REVOKE-01"],
        clause='§5 provider.bind.revoke "只解除指定 bindingId"')
class RevokeAllBindings(DesktopMachine):
    """Revoking one binding also revokes every other confirmed binding of that provider."""

    def provider_revoke(self, provider: Any, binding_id: Any, now: float) -> list[Any]:
        effects = super().provider_revoke(provider, binding_id, now)
        for other in [b.binding_id for b in self.provider_book.bindings.get(provider, {}).values()
                      if b.state == "confirmed" and b.binding_id != binding_id]:
            effects += super().provider_revoke(provider, other, now)
        return effects


class _HidingBook(ProviderBook):
    def checked_link(self, provider: str, url: str | None) -> tuple[str | None, bool]:
        if provider == "telegram" and url is not None:
            return None, True
        return super().checked_link(provider, url)


@broken("telegram-link-hidden", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-LINK-01"],
        clause='§5 "Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>" (that strict link is the one to show)')
class TelegramLinkHidden(DesktopMachine):
    """Every Telegram connectUrl is rejected, also a strict one."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _HidingBook()


def _as_https(url: str) -> str:
    """``url`` with the https scheme and without user info (what a scheme-blind check looks at)."""
    parts = urlsplit(url)
    return urlunsplit(("https", parts.netloc.rpartition("@")[2], parts.path, parts.query, parts.fragment))


class _SchemeBlindBook(ProviderBook):
    def checked_link(self, provider: str, url: str | None) -> tuple[str | None, bool]:
        if provider != "telegram" or url is None:
            return super().checked_link(provider, url)
        return (url, False) if link_ok(provider, _as_https(url)) else (None, True)


@broken("telegram-link-scheme-unchecked", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-LINK-03"],
        clause='§5 "pending 必带 HTTPS connectUrl" / "Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>"')
class TelegramLinkSchemeUnchecked(DesktopMachine):
    """The desktop checks a Telegram connectUrl's host, path and query but not its scheme or user info, so an http:// or
    user@ link is taken and shown (a frame refused only for that is read with the link seen as https)."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _SchemeBlindBook()

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        try:
            data = json.loads(raw)
            payload = data["payload"]
            url = payload["connectUrl"]
            seen = parse_hook_message(json.dumps({**data, "payload": {**payload, "connectUrl": _as_https(url)}}))
        except (ValueError, TypeError, KeyError, AttributeError):
            seen = None
        if seen is not None and seen.ok and seen.message.type in LenientProviderFrames._TYPES:
            return self.on_provider_status(SimpleNamespace(payload=replace(seen.message.payload, connect_url=url)),
                                           now)
        return super()._on_bad_frame(raw, now)


class _StickyBook(ProviderBook):
    def take_status(self, p: Any) -> None:
        shown = self.bindings.get(p.provider, {}).get(p.binding_id) if p.binding_id is not None else None
        if shown is not None and shown.state == "confirmed" and p.state in ("revoked", "superseded"):
            return
        super().take_status(p)


@broken("binding-end-ignored", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-SHOWN-01"],
        clause='§5 "provider.bind.update / provider.bind.state server → desktop 共用完整快照形状" (the latest snapshot is '
               'what is shown)')
class BindingEndIgnored(DesktopMachine):
    """A confirmed binding stays shown confirmed; a later revoked / superseded snapshot of it is dropped."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _StickyBook()


@broken("provider-prefs-without-feature", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-PREFS-HIDDEN-01"],
        clause='§2 "只有 hello 与 welcome 同时包含 provider-bind-v1 / provider-prefs-v1 / session-picker-v1 时才可使用对应新增帧"')
class ProviderPrefsWithoutFeature(DesktopMachine):
    """``provider.prefs.*`` are used whatever welcome declares."""

    def _prefs_on(self, provider: str) -> bool:
        return True


@broken("prefs-selector-both", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-PREFS-SELECTOR-01"],
        clause='§5 "用 provider 与且仅一个 bindingId/scopeId 选择偏好域"')
class PrefsSelectorBoth(_Unchecked):
    """``provider.prefs.get`` names the user's selector as both bindingId and scopeId."""

    def provider_prefs_get(self, provider: Any, binding_id: Any, scope_id: Any, now: float) -> tuple[str, list[Any]]:
        provider = self._visible(provider, self._prefs_on)
        binding_id, scope_id = self._selector(binding_id, scope_id)
        both = binding_id if binding_id is not None else scope_id
        rid = self.ids()
        return rid, self._send(make_provider_prefs_get, rid, provider, both, both, **self._env(now))


@broken("lenient-provider-prefs", subject="desktop", breaks=["HOOK-DESKTOP-PROVIDER-PREFS-GARBAGE-01"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (§5 "provider-neutral 条目刻意不含 teamId"; "bound=false '
               '时 prefs 必为空")')
class LenientProviderPrefs(DesktopMachine):
    """A provider.prefs.state that fails the core's checks is shown anyway when its payload is an object with a list of
    entries."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        try:
            data = json.loads(raw)
        except (ValueError, TypeError):
            data = None
        p: Any = data.get("payload") if isinstance(data, dict) and data.get("type") == "provider.prefs.state" else None
        if isinstance(p, dict) and isinstance(p.get("prefs"), list):
            # read leniently: the key holds whatever the (invalid) frame carried, as decoded
            key: tuple[Any, Any, Any] = (p.get("provider"), p.get("bindingId"), p.get("scopeId"))
            self.provider_book.prefs[key] = {"provider": key[0], "bindingId": key[1], "scopeId": key[2],
                                             "bound": p.get("bound"), "prefs": p["prefs"], "replyTo": None}
            return []
        return super()._on_bad_frame(raw, now)


@broken("behavior-get-without-binding", subject="desktop", breaks=["HOOK-DESKTOP-BEHAVIOR-GET-01"],
        clause='阶段 19 "provider.behavior.get desktop → server 按 provider(目前仅 telegram)+ 必填 bindingId 拉取"')
class BehaviorGetWithoutBinding(_Unchecked):
    """``provider.behavior.get`` leaves out the bindingId."""

    def behavior_get(self, binding_id: Any, now: float) -> tuple[str, list[Any]]:
        self._behavior()
        rid = self.ids()
        return rid, self._send(make_provider_behavior_get, rid, ABSENT, **self._env(now))


@broken("group-activation-as-map", subject="desktop", breaks=["HOOK-DESKTOP-BEHAVIOR-SET-02"],
        clause='阶段 19 "可选 groupActivation(单条 {chatId, value: TELEGRAM_GROUP_ACTIVATION_ALWAYS | null} patch …)"')
class GroupActivationAsMap(_Unchecked):
    """A group activation change goes out as a {chatId: value} map (the state's shape) instead of one patch."""

    def _behavior_fields(self, changes: Mapping[str, Any], group_activation: Any) -> dict[str, Any]:
        fields = super()._behavior_fields(changes, group_activation)
        patch = fields.pop("group_activation", None)
        if patch is not None:
            fields["extra"] = {"groupActivation": {patch.chat_id: patch.value}}
        return fields


class _FirstKeptBook(BehaviorBook):
    def take(self, p: Any) -> None:
        if p.binding_id not in self.entries:
            super().take(p)


@broken("behavior-state-first-kept", subject="desktop", breaks=["HOOK-DESKTOP-BEHAVIOR-STATE-02"],
        clause='阶段 19 "provider.behavior.state server → desktop 全量快照" (each snapshot replaces the last)')
class BehaviorStateFirstKept(DesktopMachine):
    """The first provider.behavior.state of a binding stays shown; later ones are dropped."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.behavior_book = _FirstKeptBook()


@broken("lenient-behavior-states", subject="desktop", breaks=["HOOK-DESKTOP-BEHAVIOR-GARBAGE-01"],
        clause='§2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (阶段 19 "三个全局字段是已解析的 effective 非空枚举值")')
class LenientBehaviorStates(DesktopMachine):
    """A provider.behavior.state that fails the core's checks is shown anyway when its payload is an object naming a
    bindingId."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        try:
            data = json.loads(raw)
        except (ValueError, TypeError):
            data = None
        p = data.get("payload") if isinstance(data, dict) and data.get("type") == "provider.behavior.state" else None
        if isinstance(p, dict) and isinstance(p.get("bindingId"), str) and self._behavior_on():
            self.behavior_book.entries[p["bindingId"]] = {
                "bindingId": p["bindingId"], "bound": p.get("bound"), "emojiReactions": p.get("emojiReactions"),
                "replyQuoteDm": p.get("replyQuoteDm"), "replyQuoteGroup": p.get("replyQuoteGroup"),
                "groupActivation": p.get("groupActivation")}
            return []
        return super()._on_bad_frame(raw, now)
