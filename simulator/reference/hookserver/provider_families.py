"""The provider families of the reference hook server, wired to the machine: provider.bind.*, provider.prefs.*,
provider.behavior.* and their control commands (docs/control-api.md "Bindings and preferences (hook-server)").

Spec: §2 "provider 能力必须双向协商:只有 hello 与 welcome 同时包含 provider-bind-v1 / provider-prefs-v1 … 时才可使用对应
新增帧;每个 provider-neutral 渠道还要求 server 的 welcome 包含对应的 provider:<id> 标识" (a family that is off: the
server sends none of its frames and drops the desktop's, reason ``feature-not-declared``); §5 Provider-neutral 绑定与
偏好; 阶段 19 Telegram 行为配置; 阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发".

``ProviderFamilies`` is a mixin of ``HookServerMachine`` (sans-I/O like it): the state and its rules are the pure
modules ``provider_binding`` (attempts, bindings), ``provider_prefs`` (rows) and ``behavior`` (overrides); this module
routes frames to them and turns their answers into frames (``make``-built from the core's payload classes) and
``Persist`` effects (tables ``provider_attempts``, ``provider_bindings``, ``provider_prefs``, ``provider_behavior``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, TypeGuard, cast

from ...hook import (ABSENT, TYPES, Feature, HookMessage, MessageType, ProviderBehaviorGetPayload,
                     ProviderBehaviorSetPayload, ProviderBindCancelPayload, ProviderBindRevokePayload,
                     ProviderBindStartPayload, ProviderPrefsGetPayload, ProviderPrefsSetPayload, build_hook_message)
from .behavior import BEHAVIOR_KEYS, BehaviorBook, Overrides
from .effects import Effect, MachineError, Persist, opt_str, req_str
from .host import MachineHost
from .provider_binding import Attempt, Binding, Change, ProviderBook
from .provider_prefs import PREF_KEYS, ProviderPrefs, Selector
from .state import hello_device
from .wire import payload_as

if TYPE_CHECKING:
    from .state import Connection

__all__ = ["ProviderFamilies", "PROVIDER_TABLES"]

PROVIDER_TABLES: Final = ("provider_attempts", "provider_bindings", "provider_prefs", "provider_behavior")
_CHANNEL: Final = {"telegram": Feature.PROVIDER_TELEGRAM.value, "x": Feature.PROVIDER_X.value}
_EXPIRY: Final = "attempt-expiry"


def _missing(message: str) -> MachineError:
    return MachineError("invalid-request", message)


class ProviderFamilies(MachineHost):
    """Mixin: needs the machine's ``_frame``, ``_log``, ``_open_conn_of``, ``_timer``, ``_ids``."""

    def _provider_init(self) -> None:
        self.pbook = ProviderBook()
        self.pprefs = ProviderPrefs()
        self.behavior = BehaviorBook()

    # -- negotiation ----------------------------------------------------------------------------------------------

    def _family_on(self, conn: Connection | None, feature: str,
                   provider: str | None = None) -> TypeGuard[Connection]:
        """spec §2: the family's feature in both the connection's hello and the welcome it was sent; a provider
        channel also needs ``provider:<id>`` in welcome."""
        if conn is None:
            return False
        if feature not in conn.features or feature not in conn.welcome_features:
            return False
        return provider is None or _CHANNEL.get(provider, "") in conn.welcome_features

    def _gate(self, conn: Connection, message: HookMessage, feature: str, now: int) -> bool:
        provider = getattr(message.payload, "provider", None)
        if self._family_on(conn, feature, provider):
            return True
        self._log(conn.conn_id, now, "feature-not-declared", type_=message.type.value,
                  request_id=getattr(message.payload, "request_id", None))
        return False

    def _send(self, out: list[Effect], device_id: str, type_: MessageType, payload: Mapping[str, Any], feature: str,
              now: int) -> bool:
        """Send one frame of a provider family to the device's open connection, if the family is on there."""
        conn = self._open_conn_of(device_id)
        if not self._family_on(conn, feature, payload.get("provider")):
            return False
        message = build_hook_message(TYPES[type_].payload.from_wire(payload), ids=self._ids, ts=now, validate=False)
        out.append(self._frame(conn.conn_id, message))
        return True

    def _persist(self, out: list[Effect], table: str, key: str, row: Mapping[str, Any] | None) -> None:
        """One row of a provider table to the store (docs/control-api.md Durability)."""
        out.append(Persist(table, key, row))

    def _apply(self, out: list[Effect], changes: Iterable[Change], now: int) -> None:
        for c in changes:
            for table, key, row in c.rows:
                self._persist(out, table, key, row)
            self._send(out, c.device_id, MessageType.PROVIDER_BIND_UPDATE, c.payload, Feature.PROVIDER_BIND.value, now)

    # -- provider.bind.* ------------------------------------------------------------------------------------------

    def _on_provider_bind_start(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if not self._gate(conn, message, Feature.PROVIDER_BIND.value, now):
            return
        p = payload_as(message, ProviderBindStartPayload)
        scope = p.scope_id if isinstance(p.scope_id, str) else None
        attempt, change = self.pbook.start(hello_device(conn), p.provider, scope, p.request_id, now, self._ids)
        self._timer(out, attempt.expires_at, _EXPIRY, attempt.attempt_id)
        self._apply(out, [change], now)

    def _on_provider_bind_cancel(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec: "只取消指定 attemptId,不影响任何 confirmed binding"."""
        if not self._gate(conn, message, Feature.PROVIDER_BIND.value, now):
            return
        p = payload_as(message, ProviderBindCancelPayload)
        a = self.pbook.attempts.get(p.attempt_id)
        if a is None or not a.open or a.device_id != conn.device_id or a.provider != p.provider:
            self._log(conn.conn_id, now, "unknown-attempt", type_=message.type.value, request_id=p.request_id)
            return
        self._apply(out, [self.pbook.end(v, "failed", "cancelled", p.request_id) for v in self._cancelled(a)], now)

    def _cancelled(self, a: Attempt) -> list[Attempt]:
        """The attempts a provider.bind.cancel ends: "只取消指定 attemptId"."""
        return [a]

    def _on_provider_bind_revoke(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """spec: "只解除指定 bindingId"."""
        if not self._gate(conn, message, Feature.PROVIDER_BIND.value, now):
            return
        p = payload_as(message, ProviderBindRevokePayload)
        b = self.pbook.bindings.get(p.binding_id)
        if b is None or not self._revocable_by(conn, b) or b.provider != p.provider:
            self._log(conn.conn_id, now, "unknown-binding", type_=message.type.value, request_id=p.request_id)
            return
        self._apply(out, [self.pbook.revoke(v, p.request_id) for v in self._revoked(b)], now)

    def _revocable_by(self, conn: Connection, b: Binding) -> bool:
        """A device revokes its own bindings only (another device's bindingId is dropped: §3 丢帧不断连)."""
        return b.device_id == conn.device_id

    def _revoked(self, b: Binding) -> list[Binding]:
        """The bindings a provider.bind.revoke ends: "只解除指定 bindingId"."""
        return [b]

    def _provider_after_welcome(self, conn: Connection, now: int, out: list[Effect]) -> None:
        """One provider.bind.state per confirmed binding of the device, after welcome (provider-bind-v1 on)."""
        for b in self.pbook.bindings_of(hello_device(conn)):
            self._send(out, hello_device(conn), MessageType.PROVIDER_BIND_STATE, self.pbook.confirmed(b, None),
                       Feature.PROVIDER_BIND.value, now)

    def _confirm(self, a: Attempt, principal_id: str, principal_name: str | None, scope_id: str,
                 scope_name: str | None, now: int, out: list[Effect]) -> str:
        binding, changes = self.pbook.confirm(a, principal_id, principal_name, scope_id, scope_name, self._ids)
        self._apply(out, changes, now)
        return binding.binding_id

    def _expire_attempt(self, attempt_id: str, now: int, out: list[Effect]) -> None:
        a = self.pbook.attempts.get(attempt_id)
        if a is not None and a.open and a.expires_at <= now:
            self._apply(out, [self.pbook.end(a, "expired", "expired")], now)

    def inject_bind(self, body: Mapping[str, Any], token: str, now: int) -> list[Effect]:
        """``/start <token>`` to the Telegram bot: confirms the open attempt with that token (principal = the user,
        scope = the start's scopeId, else the chat); an unknown, ended or expired token binds nothing. Never a task,
        never relayed (阶段 14 "一次性凭证由 server 过滤,不转发")."""
        out: list[Effect] = []
        self._expire_due(now, out)
        a = self.pbook.open_attempt_by_token(token, now) if token else None
        if a is not None and a.provider == "telegram":
            user_name = body.get("userName")
            self._confirm(a, body["userId"], user_name if isinstance(user_name, str) else None,
                          a.scope_id or self._start_scope(body), None, now, out)
        return out

    def _start_scope(self, body: Mapping[str, Any]) -> str:
        """The scope a ``/start <token>`` confirms without a scopeId of its own: the chat it was sent in (§5
        "confirmed 必带 bindingId、principalId、scopeId")."""
        chat_id: str = body["chatId"]  # raw control JSON: the caller checked it is a string
        return chat_id

    def _expire_due(self, now: int, out: list[Effect]) -> None:
        for a in list(self.pbook.attempts.values()):
            if a.open and a.expires_at <= now:
                self._apply(out, [self.pbook.end(a, "expired", "expired")], now)

    # -- provider.prefs.* -----------------------------------------------------------------------------------------

    def _selector(self, device_id: str, provider: str, binding_id: Any, scope_id: Any) -> tuple[Selector, bool]:
        """The selector of a provider.prefs frame and ``bound``: a confirmed binding of the device matches it."""
        mine = self.pbook.bindings_of(device_id, provider)
        if isinstance(binding_id, str):
            return (provider, "binding", binding_id), any(b.binding_id == binding_id for b in mine)
        return (provider, "scope", scope_id), any(b.scope_id == scope_id for b in mine)

    def _provider_prefs_state(self, provider: str, selector: Selector, bound: bool, reply_to: str | None) -> dict[str, Any]:
        kind, id_ = selector[1], selector[2]
        return {"provider": provider, "bindingId": id_ if kind == "binding" else None,
                "scopeId": id_ if kind == "scope" else None, "replyTo": reply_to, "bound": bound,
                "prefs": self.pprefs.entries(selector) if bound else []}

    def _on_provider_prefs_get(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if not self._gate(conn, message, Feature.PROVIDER_PREFS.value, now):
            return
        p = payload_as(message, ProviderPrefsGetPayload)
        selector, bound = self._selector(hello_device(conn), p.provider, p.binding_id, p.scope_id)
        self._send(out, hello_device(conn), MessageType.PROVIDER_PREFS_STATE,
                   self._provider_prefs_state(p.provider, selector, bound, p.request_id), Feature.PROVIDER_PREFS.value, now)

    def _on_provider_prefs_set(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        """Patch one row (absent keeps, null clears); unbound: nothing stored, answered ``bound: false``."""
        if not self._gate(conn, message, Feature.PROVIDER_PREFS.value, now):
            return
        p = payload_as(message, ProviderPrefsSetPayload)
        selector, bound = self._selector(hello_device(conn), p.provider, p.binding_id, p.scope_id)
        if bound:
            self._store_provider_prefs(conn, selector, p.workspace, p.to_wire(), out)
        self._send(out, hello_device(conn), MessageType.PROVIDER_PREFS_STATE,
                   self._provider_prefs_state(p.provider, selector, bound, p.request_id), Feature.PROVIDER_PREFS.value, now)

    def _store_provider_prefs(self, conn: Connection, selector: Selector, workspace: str, wire: Mapping[str, Any],
                              out: list[Effect]) -> None:
        """Patch the selector's row of ``workspace`` with the keys the frame names (§5 "set 再按 workspace alias 部分
        更新"); the Slack rows are prefs.*'s alone (§2 "不会读取或覆写旧 prefs.* 的 Slack 行")."""
        key, row = self.pprefs.patch(selector, workspace, self._named(wire, PREF_KEYS))
        self._persist(out, "provider_prefs", key, row)

    def _named(self, wire: Mapping[str, Any], keys: Iterable[str]) -> dict[str, Any]:
        """A set's patch: each key as the frame gives it, ``ABSENT`` when it does not name it ("缺省(undefined)=
        不动")."""
        return {k: wire.get(k, ABSENT) for k in keys}

    # -- provider.behavior.* --------------------------------------------------------------------------------------

    def _behavior_bound(self, device_id: str, binding_id: str) -> bool:
        """A Telegram binding of the device ("bound=false 时字段联动收敛为默认值 + 空 map")."""
        b = self.pbook.bindings.get(binding_id)
        return b is not None and b.device_id == device_id and b.provider == "telegram"

    def _behavior_state(self, binding_id: str, bound: bool, reply_to: str | None) -> dict[str, Any]:
        return {"provider": "telegram", "bindingId": binding_id, "replyTo": reply_to,
                **self.behavior.state(binding_id, bound)}

    def _on_provider_behavior_get(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if not self._gate(conn, message, Feature.PROVIDER_BEHAVIOR.value, now):
            return
        p = payload_as(message, ProviderBehaviorGetPayload)
        bound = self._behavior_bound(hello_device(conn), p.binding_id)
        self._send(out, hello_device(conn), MessageType.PROVIDER_BEHAVIOR_STATE,
                   self._behavior_state(p.binding_id, bound, p.request_id), Feature.PROVIDER_BEHAVIOR.value, now)

    def _on_provider_behavior_set(self, conn: Connection, message: HookMessage, now: int, out: list[Effect]) -> None:
        if not self._gate(conn, message, Feature.PROVIDER_BEHAVIOR.value, now):
            return
        p = payload_as(message, ProviderBehaviorSetPayload)
        bound = self._behavior_bound(hello_device(conn), p.binding_id)
        if bound:
            wire = p.to_wire()
            activation = wire.get("groupActivation")
            row = self.behavior.patch(p.binding_id, self._named(wire, BEHAVIOR_KEYS),
                                      activation if isinstance(activation, dict) else None)
            self._persist(out, "provider_behavior", p.binding_id, row)
        self._send(out, hello_device(conn), MessageType.PROVIDER_BEHAVIOR_STATE,
                   self._behavior_state(p.binding_id, bound, p.request_id), Feature.PROVIDER_BEHAVIOR.value, now)

    # -- control commands -----------------------------------------------------------------------------------------

    def provider_authorize(self, body: Mapping[str, Any], now: int) -> tuple[dict[str, Any], list[Effect]]:
        """Control ``provider-authorize``: the provider's answer to an open attempt."""
        out: list[Effect] = []
        self._expire_due(now, out)
        attempt_id = req_str(body, "attemptId")
        outcome = body.get("outcome")
        if outcome not in ("confirm", "await", "deny", "expire", "fail"):
            raise _missing("outcome: one of confirm, await, deny, expire, fail")
        a = self.pbook.attempts.get(attempt_id)
        if a is None:
            raise MachineError("not-found", f"attemptId: no attempt {attempt_id!r}")
        if not a.open:
            raise MachineError("attempt-ended", f"attempt {attempt_id!r} has ended", 409)
        reason = opt_str(body, "reason")
        binding_id = None
        if outcome == "confirm":
            principal = req_str(body, "principalId")
            binding_id = self._confirm(a, principal, opt_str(body, "principalName"),
                                       opt_str(body, "scopeId") or a.scope_id or principal, opt_str(body, "scopeName"),
                                       now, out)
        elif outcome == "await":
            self._apply(out, [self.pbook.await_confirmation(a)], now)
        else:
            state = {"deny": "denied", "expire": "expired", "fail": "failed"}[outcome]
            self._apply(out, [self.pbook.end(a, state, reason or state)], now)
        return {"ok": True, "bindingId": binding_id}, out

    def list_provider_bindings(self, device_id: str | None) -> dict[str, Any]:
        """The ``provider`` and ``attempts`` parts of ``list-bindings`` (open attempts only, with their token)."""
        return {"provider": [b.public() for b in self.pbook.bindings.values()
                             if device_id is None or b.device_id == device_id],
                "attempts": [a.public() for a in self.pbook.attempts.values()
                             if a.open and (device_id is None or a.device_id == device_id)]}

    def channel_set_provider_prefs(self, body: Mapping[str, Any], now: int) -> tuple[int, list[Effect]]:
        """The provider branch of ``channel-set-prefs``: patch the row of a bound selector, push
        ``provider.prefs.state {replyTo: null}`` to each bound device's open connection."""
        # a string: channel_set_prefs (commands.py) chose this branch by it
        provider = cast(str, body.get("provider"))
        binding_id, scope_id = opt_str(body, "bindingId"), opt_str(body, "scopeId")
        if (binding_id is None) == (scope_id is None):
            raise _missing("exactly one of bindingId, scopeId is required")
        workspace = req_str(body, "workspace")
        for k in PREF_KEYS:
            if k in body and body[k] is not None and not isinstance(body[k], str):
                raise _missing(f"{k}: a string or null is expected")
        devices = sorted({b.device_id for b in self.pbook.bindings.values() if b.provider == provider
                          and (b.binding_id == binding_id if binding_id else b.scope_id == scope_id)})
        if not devices:
            raise MachineError("not-bound", f"no {provider} binding matches the selector", 409)
        out: list[Effect] = []
        # exactly one of them is set (checked above): without a bindingId, the scopeId is a string
        selector: Selector = ((provider, "binding", binding_id) if binding_id
                              else (provider, "scope", cast(str, scope_id)))
        key, row = self.pprefs.patch(selector, workspace, {k: body[k] for k in PREF_KEYS if k in body})
        self._persist(out, "provider_prefs", key, row)
        return self._push_provider_prefs(devices, provider, selector, now, out), out

    def _push_provider_prefs(self, devices: Iterable[str], provider: str, selector: Selector, now: int,
                             out: list[Effect]) -> int:
        """``provider.prefs.state {replyTo: null}`` to each bound device's open connection (§3 latest-wins
        "prefs.state 主动推送"); the number sent."""
        return sum(self._send(out, d, MessageType.PROVIDER_PREFS_STATE,
                              self._provider_prefs_state(provider, selector, True, None), Feature.PROVIDER_PREFS.value,
                              now)
                   for d in devices)

    def behavior_overrides(self, body: Mapping[str, Any]) -> dict[str, Any]:
        binding_id = req_str(body, "bindingId")
        b = self.pbook.bindings.get(binding_id)
        if b is None or b.provider != "telegram":
            raise MachineError("not-found", f"bindingId: no telegram binding {binding_id!r}")
        return self.behavior.overrides.get(binding_id, Overrides()).public()

    # -- time, restore --------------------------------------------------------------------------------------------

    def _provider_restore(self, tables: Mapping[str, Iterable[Mapping[str, Any]]], out: list[Effect]) -> None:
        self.pbook.restore(tables.get("provider_attempts", ()), tables.get("provider_bindings", ()))
        self.pprefs.restore(tables.get("provider_prefs", ()))
        self.behavior.restore(tables.get("provider_behavior", ()))
        for a in self.pbook.attempts.values():
            if a.open:
                self._timer(out, a.expires_at, _EXPIRY, a.attempt_id)
