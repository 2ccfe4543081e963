"""The desktop's view of the provider-neutral channels (Telegram, X): pure, no I/O.

Spec (slack-hook-protocol.md): §2 "provider 能力必须双向协商 … 每个 provider-neutral 渠道还要求 server 的 welcome 包含对应的
provider:<id> 标识 … 任一能力缺席都隐藏该渠道并完整回落现有 Slack 路径"; §5 Provider-neutral 绑定与偏好 (provider.bind.*,
provider.prefs.*, the ``actions`` hints: "消费者必须忽略未来未知 action。链接仍需由 host 做 provider-specific allowlist 校验,
例如 Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>"). Contract: docs/control-api.md "Bindings and
preferences (desktop)".

* ``channel_on`` / ``prefs_on``: whether a provider's binding / preference frames may be used on this connection;
* ``link_ok``: the provider-specific allowlist of a ``connectUrl`` (Telegram strict, X https on x.com/twitter.com);
* ``ProviderBook``: the attempts, bindings and preference snapshots the desktop shows its user, replaced by the
  frames the server sends (``take_status``, ``take_prefs``), rendered by ``state``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import urlsplit

from ...hook import HOOK_PROVIDERS, PROVIDER_BIND_ACTIONS, Feature, parse_telegram_connect_url

__all__ = [
    "PROVIDERS", "Refused", "channel_on", "prefs_on", "link_ok", "Attempt", "Binding",
    "ProviderBook", "SHOWN_ATTEMPT_STATES",
]

#: The provider-neutral channels (Slack keeps its own frames).
PROVIDERS: Final = tuple(p for p in HOOK_PROVIDERS if p != "slack")
_X_HOSTS: Final = frozenset({"x.com", "twitter.com"})
#: The attempt states an attempt is shown in: the open ones and the failed terminal ones (contract).
SHOWN_ATTEMPT_STATES: Final = frozenset({"pending", "awaiting_confirmation", "denied", "expired", "failed"})
_BINDING_STATES: Final = frozenset({"confirmed", "revoked", "superseded"})


class Refused(Exception):
    """A control command the desktop refuses (nothing sent): ``code`` is the control API's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code, self.message = code, message


def _both(feature: Feature, hello: Iterable[str], welcome: Iterable[str]) -> bool:
    return feature.value in set(hello) and feature.value in set(welcome)


def channel_on(provider: str, hello: Iterable[str], welcome: Iterable[str]) -> bool:
    """§2: provider.bind.* of ``provider`` are used only with provider-bind-v1 on both sides and ``provider:<id>`` in
    welcome."""
    welcome = frozenset(welcome)
    return _both(Feature.PROVIDER_BIND, hello, welcome) and f"provider:{provider}" in welcome


def prefs_on(provider: str, hello: Iterable[str], welcome: Iterable[str]) -> bool:
    """§2: provider.prefs.* of ``provider`` are used only with provider-prefs-v1 on both sides and ``provider:<id>``
    in welcome."""
    welcome = frozenset(welcome)
    return _both(Feature.PROVIDER_PREFS, hello, welcome) and f"provider:{provider}" in welcome


def link_ok(provider: str, url: str | None) -> bool:
    """The host's provider-specific allowlist (§5 actions paragraph): Telegram exactly ``https://t.me/<bot>?start=
    <token>``; X an https URL on x.com or twitter.com without user info or port."""
    if not isinstance(url, str):
        return False
    if provider == "telegram":
        return parse_telegram_connect_url(url) is not None  # the protocol core's strict form
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    return parts.scheme == "https" and parts.netloc in _X_HOSTS


@dataclass
class Attempt:
    attempt_id: str
    state: str
    connect_url: str | None
    link_rejected: bool
    expires_at: int | None
    actions: tuple[str, ...]
    reply_to: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"attemptId": self.attempt_id, "state": self.state, "connectUrl": self.connect_url,
                "linkRejected": self.link_rejected, "expiresAt": self.expires_at, "actions": list(self.actions)}


@dataclass
class Binding:
    binding_id: str
    principal_id: str | None
    principal_name: str | None
    scope_id: str | None
    scope_name: str | None
    state: str

    def to_json(self) -> dict[str, Any]:
        return {"bindingId": self.binding_id, "principalId": self.principal_id, "principalName": self.principal_name,
                "scopeId": self.scope_id, "scopeName": self.scope_name, "state": self.state}


@dataclass
class ProviderBook:
    """What the desktop shows of the provider channels. ``take_*`` are called only for a channel that is on."""

    attempts: dict[str, dict[str, Attempt]] = field(default_factory=lambda: {p: {} for p in PROVIDERS})
    bindings: dict[str, dict[str, Binding]] = field(default_factory=lambda: {p: {} for p in PROVIDERS})
    #: (provider, bindingId, scopeId) → the latest provider.prefs.state of that selector, as shown
    prefs: dict[tuple[str, str | None, str | None], dict[str, Any]] = field(default_factory=dict)

    def shown_actions(self, actions: Iterable[str]) -> tuple[str, ...]:
        """§5 "消费者必须忽略未来未知 action": only the known ones are shown."""
        return tuple(a for a in actions if a in PROVIDER_BIND_ACTIONS)

    def checked_link(self, provider: str, url: str | None) -> tuple[str | None, bool]:
        """(the link shown, whether a link was rejected)."""
        if url is None:
            return None, False
        return (url, False) if link_ok(provider, url) else (None, True)

    def take_status(self, p: Any) -> None:
        """provider.bind.update / provider.bind.state: replace the attempt (by attemptId) or the binding (by
        bindingId) it describes (§5 "共用完整快照形状")."""
        provider = p.provider
        if provider not in self.attempts:
            return
        attempts, bindings = self.attempts[provider], self.bindings[provider]
        if p.state in SHOWN_ATTEMPT_STATES and p.attempt_id is not None:
            url, rejected = self.checked_link(provider, p.connect_url)
            attempts[p.attempt_id] = Attempt(p.attempt_id, p.state, url, rejected, p.expires_at,
                                             self.shown_actions(p.actions), p.reply_to)
        elif p.state in _BINDING_STATES and p.binding_id is not None:
            bindings[p.binding_id] = Binding(p.binding_id, p.principal_id, p.principal_name, p.scope_id,
                                             p.scope_name, p.state)
            if p.state == "confirmed" and p.reply_to is not None:  # the attempt that led here is over
                for aid in [a.attempt_id for a in attempts.values() if a.reply_to == p.reply_to]:
                    del attempts[aid]

    def take_prefs(self, p: Any) -> None:
        """provider.prefs.state: replaces the entry of its selector (a full snapshot; ``bound`` false: no prefs)."""
        self.prefs[(p.provider, p.binding_id, p.scope_id)] = {
            "provider": p.provider, "bindingId": p.binding_id, "scopeId": p.scope_id, "bound": p.bound,
            "prefs": [e.to_wire() for e in p.prefs] if p.bound else [], "replyTo": p.reply_to,
        }

    def state(self, visible: dict[str, bool]) -> dict[str, Any]:
        """The ``providers`` field of the control ``state``; a hidden channel shows nothing."""
        return {p: {"visible": visible[p],
                    "attempts": [a.to_json() for a in self.attempts[p].values()] if visible[p] else [],
                    "bindings": [b.to_json() for b in self.bindings[p].values()] if visible[p] else []}
                for p in PROVIDERS}

    def prefs_state(self) -> list[dict[str, Any]]:
        return list(self.prefs.values())
