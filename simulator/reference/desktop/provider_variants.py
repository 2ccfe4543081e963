"""Broken variants of the reference desktop's provider families (docs/desktop-plan.md "Broken variants"): each is
the correct ``DesktopMachine`` with one hook of ``providers.ProviderFamilies`` overridden so that exactly one rule of
slack-hook-protocol.md §2 / §5 Provider-neutral / 阶段 19 is broken. Test fixtures, picked by ``variants.py``; the
features of features/hook/desktop/provider_*.feature and behavior.feature must catch each one
(tests/hook_desktop/test_desktop_variants.py).
"""

from __future__ import annotations

import json
from dataclasses import replace
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any, Final
from urllib.parse import urlsplit, urlunsplit

from ...hook import (
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
from .behavior import GLOBAL_KEYS, BehaviorBook
from .machine import DesktopMachine, Variant
from .provider_bindings import ProviderBook, Refused, link_ok

__all__ = ["PROVIDER_WRAPPED"]


class ProviderWithoutFeature(DesktopMachine):
    """``provider-without-feature``: every provider channel is offered whatever welcome declares. Breaks §2 "任一能力
    缺席都隐藏该渠道并完整回落现有 Slack 路径"."""

    def _channel_on(self, provider: str) -> bool:
        return True


class _UncheckedBook(ProviderBook):
    def checked_link(self, provider: str, url: str | None) -> tuple[str | None, bool]:
        return url, False


class TelegramUrlUnchecked(DesktopMachine):
    """``telegram-url-unchecked``: any https connectUrl is shown. Breaks §5 "链接仍需由 host 做 provider-specific
    allowlist 校验,例如 Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>"."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _UncheckedBook()


class UnknownActionDropsFrame(DesktopMachine):
    """``unknown-action-drops-frame``: a provider.bind frame naming an action it does not know is dropped whole.
    Breaks §5 "消费者必须忽略未来未知 action"."""

    def _take_status(self, payload: Any) -> None:
        if all(a in PROVIDER_BIND_ACTIONS for a in payload.actions):
            super()._take_status(payload)


class CancelAllAttempts(DesktopMachine):
    """``cancel-all-attempts``: cancelling one attempt cancels every open attempt of that provider. Breaks §5
    provider.bind.cancel "只取消指定 attemptId"."""

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


class PrefsPathInsteadOfAlias(_Unchecked):
    """``prefs-path-instead-of-alias``: provider.prefs.set carries the workspace's folder path (sent unchecked).
    Breaks §2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线" (§5 provider.prefs.set "按 workspace alias")."""

    def _prefs_workspace(self, alias: str) -> str:
        return self.workspaces.get(alias, alias)


class BehaviorOmitsDefault(DesktopMachine):
    """``behavior-omits-default``: a behaviour value equal to the factory default is left out of provider.behavior.set.
    Breaks 阶段 19 "显式枚举 = 设置/覆盖(即使等于当前默认值也要保留用户意图…)"."""

    def _behavior_fields(self, changes: Mapping[str, Any], group_activation: Any) -> dict[str, Any]:
        fields = super()._behavior_fields(changes, group_activation)
        for key, attr in GLOBAL_KEYS.items():
            if key in changes and changes[key] == DEFAULT_TELEGRAM_BEHAVIOR[key]:
                fields.pop(attr, None)
        return fields


class BehaviorWithoutFeature(DesktopMachine):
    """``behavior-without-feature``: the behaviour channel is used whatever welcome declares (get/set sent, state
    rendered). Breaks 阶段 19 "任一侧未声明则整条通道不可用,desktop 侧维持旧行为(不发 get/set,也不渲染 state)"."""

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


class PrefsStateMerged(DesktopMachine):
    """``provider-prefs-state-merged``: a provider.prefs.state is merged into what is shown for its selector (by workspace)
    instead of replacing it. Breaks §5 "provider.prefs.state … 同一偏好域的全量快照"."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _MergingBook()


class LenientProviderFrames(DesktopMachine):
    """``lenient-provider-frames``: a provider.bind.update / state that fails the core's checks is taken anyway when
    its payload is an object. Breaks §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (a bad frame is dropped)."""

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


class ProviderStartScopeDropped(DesktopMachine):
    """``provider-start-scope-dropped``: provider.bind.start leaves out the scope the user chose. Breaks §5
    provider.bind.start "按 provider 发起一次绑定尝试;requestId 配对,scopeId 可选" (the optional scopeId is the user's)."""

    def provider_bind(self, provider: Any, scope_id: Any, now: float) -> tuple[str, list[Any]]:
        return super().provider_bind(provider, None, now)


class RevokeAllBindings(DesktopMachine):
    """``revoke-all-bindings``: revoking one binding also revokes every other confirmed binding of that provider.
    Breaks §5 provider.bind.revoke "只解除指定 bindingId"."""

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


class TelegramLinkHidden(DesktopMachine):
    """``telegram-link-hidden``: every Telegram connectUrl is rejected, also a strict one. Breaks §5 "Telegram 客户端
    只接受严格的 https://t.me/<bot>?start=<token>" (that strict link is the one to show)."""

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


class TelegramLinkSchemeUnchecked(DesktopMachine):
    """``telegram-link-scheme-unchecked``: the desktop checks a Telegram connectUrl's host, path and query but not its
    scheme or user info, so an http:// or user@ link is taken and shown (a frame refused only for that is read with
    the link seen as https). Breaks §5 "pending 必带 HTTPS connectUrl" / "Telegram 客户端只接受严格的
    https://t.me/<bot>?start=<token>"."""

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


class BindingEndIgnored(DesktopMachine):
    """``binding-end-ignored``: a confirmed binding stays shown confirmed; a later revoked / superseded snapshot of it
    is dropped. Breaks §5 "provider.bind.update / provider.bind.state server → desktop 共用完整快照形状" (the latest
    snapshot is what is shown)."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.provider_book = _StickyBook()


class ProviderPrefsWithoutFeature(DesktopMachine):
    """``provider-prefs-without-feature``: provider.prefs.* are used whatever welcome declares. Breaks §2 "只有 hello 与
    welcome 同时包含 provider-bind-v1 / provider-prefs-v1 / session-picker-v1 时才可使用对应新增帧"."""

    def _prefs_on(self, provider: str) -> bool:
        return True


class PrefsSelectorBoth(_Unchecked):
    """``prefs-selector-both``: provider.prefs.get names the user's selector as both bindingId and scopeId. Breaks §5
    "用 provider 与且仅一个 bindingId/scopeId 选择偏好域"."""

    def provider_prefs_get(self, provider: Any, binding_id: Any, scope_id: Any, now: float) -> tuple[str, list[Any]]:
        provider = self._visible(provider, self._prefs_on)
        binding_id, scope_id = self._selector(binding_id, scope_id)
        both = binding_id if binding_id is not None else scope_id
        rid = self.ids()
        return rid, self._send(make_provider_prefs_get, rid, provider, both, both, **self._env(now))


class LenientProviderPrefs(DesktopMachine):
    """``lenient-provider-prefs``: a provider.prefs.state that fails the core's checks is shown anyway when its payload
    is an object with a list of entries. Breaks §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (§5
    "provider-neutral 条目刻意不含 teamId"; "bound=false 时 prefs 必为空")."""

    def _on_bad_frame(self, raw: str | bytes, now: float) -> list[Any]:
        try:
            data = json.loads(raw)
        except (ValueError, TypeError):
            data = None
        p = data.get("payload") if isinstance(data, dict) and data.get("type") == "provider.prefs.state" else None
        if isinstance(p, dict) and isinstance(p.get("prefs"), list):
            key = (p.get("provider"), p.get("bindingId"), p.get("scopeId"))
            self.provider_book.prefs[key] = {"provider": key[0], "bindingId": key[1], "scopeId": key[2],
                                             "bound": p.get("bound"), "prefs": p["prefs"], "replyTo": None}
            return []
        return super()._on_bad_frame(raw, now)


class BehaviorGetWithoutBinding(_Unchecked):
    """``behavior-get-without-binding``: provider.behavior.get leaves out the bindingId. Breaks 阶段 19
    "provider.behavior.get desktop → server 按 provider(目前仅 telegram)+ 必填 bindingId 拉取"."""

    def behavior_get(self, binding_id: Any, now: float) -> tuple[str, list[Any]]:
        self._behavior()
        rid = self.ids()
        return rid, self._send(make_provider_behavior_get, rid, ABSENT, **self._env(now))


class GroupActivationAsMap(_Unchecked):
    """``group-activation-as-map``: a group activation change goes out as a {chatId: value} map (the state's shape)
    instead of one patch. Breaks 阶段 19 "可选 groupActivation(单条 {chatId, value: TELEGRAM_GROUP_ACTIVATION_ALWAYS |
    null} patch …)"."""

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


class BehaviorStateFirstKept(DesktopMachine):
    """``behavior-state-first-kept``: the first provider.behavior.state of a binding stays shown; later ones are
    dropped. Breaks 阶段 19 "provider.behavior.state server → desktop 全量快照" (each snapshot replaces the last)."""

    def _init_providers(self) -> None:
        super()._init_providers()
        self.behavior_book = _FirstKeptBook()


class LenientBehaviorStates(DesktopMachine):
    """``lenient-behavior-states``: a provider.behavior.state that fails the core's checks is shown anyway when its
    payload is an object naming a bindingId. Breaks §2 "两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false" (阶段 19
    "三个全局字段是已解析的 effective 非空枚举值")."""

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


PROVIDER_WRAPPED: Final[dict[Variant, type[DesktopMachine]]] = {
    Variant.PROVIDER_WITHOUT_FEATURE: ProviderWithoutFeature,
    Variant.TELEGRAM_URL_UNCHECKED: TelegramUrlUnchecked,
    Variant.UNKNOWN_ACTION_DROPS_FRAME: UnknownActionDropsFrame,
    Variant.CANCEL_ALL_ATTEMPTS: CancelAllAttempts,
    Variant.PREFS_PATH_INSTEAD_OF_ALIAS: PrefsPathInsteadOfAlias,
    Variant.BEHAVIOR_OMITS_DEFAULT: BehaviorOmitsDefault,
    Variant.BEHAVIOR_WITHOUT_FEATURE: BehaviorWithoutFeature,
    Variant.PROVIDER_PREFS_STATE_MERGED: PrefsStateMerged,
    Variant.LENIENT_PROVIDER_FRAMES: LenientProviderFrames,
    Variant.PROVIDER_START_SCOPE_DROPPED: ProviderStartScopeDropped,
    Variant.REVOKE_ALL_BINDINGS: RevokeAllBindings,
    Variant.TELEGRAM_LINK_HIDDEN: TelegramLinkHidden,
    Variant.TELEGRAM_LINK_SCHEME_UNCHECKED: TelegramLinkSchemeUnchecked,
    Variant.BINDING_END_IGNORED: BindingEndIgnored,
    Variant.PROVIDER_PREFS_WITHOUT_FEATURE: ProviderPrefsWithoutFeature,
    Variant.PREFS_SELECTOR_BOTH: PrefsSelectorBoth,
    Variant.LENIENT_PROVIDER_PREFS: LenientProviderPrefs,
    Variant.BEHAVIOR_GET_WITHOUT_BINDING: BehaviorGetWithoutBinding,
    Variant.GROUP_ACTIVATION_AS_MAP: GroupActivationAsMap,
    Variant.BEHAVIOR_STATE_FIRST_KEPT: BehaviorStateFirstKept,
    Variant.LENIENT_BEHAVIOR_STATES: LenientBehaviorStates,
}
