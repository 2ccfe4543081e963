"""The provider families of the reference desktop: provider binding (Telegram, X), provider preferences and Telegram
behaviour, as a part of ``DesktopMachine`` (sans-I/O, like it: ``now`` passed in, effects returned).

Spec (slack-hook-protocol.md): §2 provider 能力必须双向协商 / provider 偏好隔离 / workspace 是别名; §5 Provider-neutral
绑定与偏好; 阶段 19 Telegram 行为配置. Contract: docs/control-api.md "Bindings and preferences (desktop)".

``ProviderFamilies`` is mixed into ``DesktopMachine``: the control commands (``provider_bind`` … ``behavior_set``)
build the frames with the core's ``make_*`` builders or raise ``Refused`` (nothing sent); the frame handlers
(``on_provider_status``, ``on_provider_prefs``, ``on_behavior_state``) take a frame only while its family is on
(else it is dropped: "任一能力缺席都隐藏该渠道"). The rules themselves live in the pure modules
``provider_bindings`` and ``behavior``. The small hooks (``_channel_on``, ``_cancel_targets``, ``_prefs_workspace``,
``_behavior_fields``, ``_take_status``) each state one rule, so a subclass can change exactly one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Final

from ...hook import (
    ABSENT,
    Feature,
    HookBuildError,
    make_provider_behavior_get,
    make_provider_behavior_set,
    make_provider_bind_cancel,
    make_provider_bind_revoke,
    make_provider_bind_start,
    make_provider_prefs_get,
    make_provider_prefs_set,
)
from .behavior import BehaviorBook, behavior_on, set_fields
from .effects import Send
from .provider_bindings import PROVIDERS, ProviderBook, Refused, channel_on, prefs_on

__all__ = ["PROVIDER_FEATURES", "PREFS_KEYS", "ProviderFamilies"]

#: The provider features this desktop declares in every hello (part of ``CONSUMED_FEATURES``).
PROVIDER_FEATURES: Final = (Feature.PROVIDER_BIND.value, Feature.PROVIDER_PREFS.value,
                            Feature.PROVIDER_BEHAVIOR.value)
#: prefs-set ``set`` keys → the keyword of ``make_provider_prefs_set``.
PREFS_KEYS: Final = {"model": "model", "effort": "effort", "agentKind": "agent_kind",
                     "permissionMode": "permission_mode"}


class ProviderFamilies:
    """The provider families of ``DesktopMachine`` (which supplies ``welcomed``, ``negotiated_features``, ``ids``,
    ``aliases``, ``workspaces``, ``_frame`` and ``_env``)."""

    welcomed: bool
    ids: Callable[[], str]
    aliases: Callable[[], list[str]]
    _frame: Callable[..., Send]
    _env: Callable[[float], dict[str, Any]]

    if TYPE_CHECKING:
        @property
        def negotiated_features(self) -> frozenset[str]: ...
    workspaces: dict[str, str]

    def _init_providers(self) -> None:
        self.provider_book = ProviderBook()
        self.behavior_book = BehaviorBook()

    # -- gating ---------------------------------------------------------------------------------------------------

    def _channel_on(self, provider: str) -> bool:
        return channel_on(provider, PROVIDER_FEATURES, self.negotiated_features)

    def _prefs_on(self, provider: str) -> bool:
        return prefs_on(provider, PROVIDER_FEATURES, self.negotiated_features)

    def _behavior_on(self) -> bool:
        return behavior_on(PROVIDER_FEATURES, self.negotiated_features)

    def _provider_online(self) -> None:
        if not self.welcomed:
            raise Refused("offline", "the desktop has no welcomed connection")

    def _provider(self, provider: Any) -> str:
        if not isinstance(provider, str) or provider not in PROVIDERS:
            raise Refused("invalid-request", f"provider must be one of {list(PROVIDERS)}")
        return provider

    def _visible(self, provider: Any, on: Any) -> str:
        self._provider_online()
        name = self._provider(provider)
        if not on(name):
            raise Refused("channel-hidden", f"the {name} channel is not offered on this connection")
        return name

    def _send(self, build: Any, *args: Any, **kwargs: Any) -> list[Any]:
        try:
            msg = build(*args, **kwargs)
        except HookBuildError as exc:
            raise Refused("invalid-request", str(exc)) from None
        return [self._frame(msg)]

    # -- control commands -------------------------------------------------------------------------------------------

    def provider_bind(self, provider: Any, scope_id: Any, now: float) -> tuple[str, list[Any]]:
        """The user starts a binding attempt: provider.bind.start (§5: ``requestId`` 配对,``scopeId`` 可选)."""
        provider = self._visible(provider, self._channel_on)
        rid = self.ids()
        scope = ABSENT if scope_id is None else scope_id
        return rid, self._send(make_provider_bind_start, rid, provider, scope, **self._env(now))

    def _cancel_targets(self, provider: str, attempt_id: str) -> list[str]:
        """§5 provider.bind.cancel "只取消指定 attemptId"."""
        return [attempt_id]

    def provider_cancel(self, provider: Any, attempt_id: Any, now: float) -> list[Any]:
        provider = self._visible(provider, self._channel_on)
        effects: list[Any] = []
        for aid in self._cancel_targets(provider, attempt_id):
            effects += self._send(make_provider_bind_cancel, self.ids(), provider, aid,
                                  **self._env(now))
        return effects

    def provider_revoke(self, provider: Any, binding_id: Any, now: float) -> list[Any]:
        """§5 provider.bind.revoke "只解除指定 bindingId"."""
        provider = self._visible(provider, self._channel_on)
        return self._send(make_provider_bind_revoke, self.ids(), provider, binding_id,
                          **self._env(now))

    @staticmethod
    def _selector(binding_id: Any, scope_id: Any) -> tuple[Any, Any]:
        """§5 "用 provider 与且仅一个 bindingId/scopeId 选择偏好域"."""
        if (binding_id is None) == (scope_id is None):
            raise Refused("invalid-request", "exactly one of bindingId and scopeId is required")
        return binding_id, scope_id

    def provider_prefs_get(self, provider: Any, binding_id: Any, scope_id: Any, now: float) -> tuple[str, list[Any]]:
        provider = self._visible(provider, self._prefs_on)
        binding_id, scope_id = self._selector(binding_id, scope_id)
        rid = self.ids()
        return rid, self._send(make_provider_prefs_get, rid, provider, binding_id, scope_id,
                               **self._env(now))

    def _prefs_workspace(self, alias: str) -> str:
        """§2 "workspace 是别名:本地绝对路径只存在于 desktop,永不过网线": the alias itself goes on the wire."""
        return alias

    def provider_prefs_set(self, provider: Any, binding_id: Any, scope_id: Any, workspace: Any,
                           changes: Mapping[str, Any], now: float) -> tuple[str, list[Any]]:
        provider = self._visible(provider, self._prefs_on)
        binding_id, scope_id = self._selector(binding_id, scope_id)
        if workspace not in self.aliases():
            raise Refused("not-found", f"{workspace!r} is not a workspace alias of hello")
        unknown = sorted(set(changes) - set(PREFS_KEYS))
        if unknown:
            raise Refused("invalid-request", f"unknown preference keys {unknown}")
        fields = {PREFS_KEYS[k]: v for k, v in changes.items()}
        rid = self.ids()
        return rid, self._send(make_provider_prefs_set, rid, provider, self._prefs_workspace(workspace), binding_id,
                               scope_id, **fields, **self._env(now))

    def _behavior(self) -> None:
        self._provider_online()
        if not self._behavior_on():
            raise Refused("feature-off", f"{Feature.PROVIDER_BEHAVIOR.value} is not on for this connection")

    def behavior_get(self, binding_id: Any, now: float) -> tuple[str, list[Any]]:
        self._behavior()
        rid = self.ids()
        return rid, self._send(make_provider_behavior_get, rid, binding_id, **self._env(now))

    def _behavior_fields(self, changes: Mapping[str, Any], group_activation: Any) -> dict[str, Any]:
        return set_fields(changes, group_activation)

    def behavior_set(self, binding_id: Any, changes: Mapping[str, Any], group_activation: Any,
                     now: float) -> tuple[str, list[Any]]:
        self._behavior()
        fields = self._behavior_fields(changes, group_activation)
        rid = self.ids()
        return rid, self._send(make_provider_behavior_set, rid, binding_id, **fields,
                               **self._env(now))

    # -- frames from the server -----------------------------------------------------------------------------------

    def _take_status(self, payload: Any) -> None:
        self.provider_book.take_status(payload)

    def on_provider_status(self, msg: Any, now: float) -> list[Any]:
        """provider.bind.update / provider.bind.state: taken only while the channel is on (else dropped)."""
        if msg.payload.provider in PROVIDERS and self._channel_on(msg.payload.provider):
            self._take_status(msg.payload)
        return []

    def on_provider_prefs(self, msg: Any, now: float) -> list[Any]:
        if msg.payload.provider in PROVIDERS and self._prefs_on(msg.payload.provider):
            self.provider_book.take_prefs(msg.payload)
        return []

    def on_behavior_state(self, msg: Any, now: float) -> list[Any]:
        """阶段 19: "任一侧未声明则整条通道不可用,desktop 侧维持旧行为(… 也不渲染 state)"."""
        if self._behavior_on():
            self.behavior_book.take(msg.payload)
        return []

    def provider_state(self) -> dict[str, Any]:
        """The ``providers``, ``providerPrefs`` and ``behavior`` fields of the control ``state``: what the user sees
        now, so a family that is off on the current connection (or offline) shows nothing."""
        visible = {p: self.welcomed and self._channel_on(p) for p in PROVIDERS}
        prefs = [e for e in self.provider_book.prefs_state() if self.welcomed and self._prefs_on(e["provider"])]
        behavior = self.behavior_book.state() if self.welcomed and self._behavior_on() else []
        return {"providers": self.provider_book.state(visible), "providerPrefs": prefs, "behavior": behavior}
