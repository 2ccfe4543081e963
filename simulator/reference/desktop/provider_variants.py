"""Broken variants of the reference desktop's provider families (docs/desktop-plan.md "Broken variants"): each is
the correct ``DesktopMachine`` with one hook of ``providers.ProviderFamilies`` overridden so that exactly one rule of
slack-hook-protocol.md §2 / §5 Provider-neutral / 阶段 19 is broken. Test fixtures, picked by ``variants.py``; the
features of features/hook/desktop/provider_*.feature and behavior.feature must catch each one
(tests/hook_desktop/test_desktop_variants.py).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any, Final

from ...hook import (
    DEFAULT_TELEGRAM_BEHAVIOR,
    PROVIDER_BIND_ACTIONS,
    HookBuildError,
    MessageType,
    ProviderBindUpdatePayload,
)
from .behavior import GLOBAL_KEYS
from .machine import DesktopMachine, Variant
from .provider_bindings import ProviderBook, Refused

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


class PrefsPathInsteadOfAlias(DesktopMachine):
    """``prefs-path-instead-of-alias``: provider.prefs.set carries the workspace's folder path (sent unchecked).
    Breaks §2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线" (§5 provider.prefs.set "按 workspace alias")."""

    def _prefs_workspace(self, alias: str) -> str:
        return self.workspaces.get(alias, alias)

    def _send(self, build: Any, *args: Any, **kwargs: Any) -> list[Any]:
        try:
            msg = build(*args, validate=False, **kwargs)
        except HookBuildError as exc:
            raise Refused("invalid-request", str(exc)) from None
        return [self._frame(msg)]


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
}
