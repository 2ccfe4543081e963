"""Provider-neutral binding of the reference hook server: attempts and bindings (spec §5 Provider-neutral 绑定与偏好;
§2 provider 能力必须双向协商; 阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发"; contract:
docs/control-api.md "Bindings and preferences (hook-server)").

Sans-I/O: ``ProviderBook`` holds the attempts and bindings and answers what changed as ``Change`` records (the
snapshot fields of the ``provider.bind.update`` to send, the device it goes to, the rows to persist); the machine
turns them into frames and ``Persist`` effects. The clock (``now``) and the ids (``ids()``) are arguments.

* An attempt carries a one-time token; the connect URL is ``https://t.me/<bot>?start=<token>`` (Telegram) or
  ``https://x.com/messages/compose?text=<token>`` (X). The token leaves the server only in the pending update and in
  the control API's ``list-bindings`` (the identity provider's side).
* An attempt ends by confirmation (``/start <token>`` or ``provider-authorize``), denial, failure, cancel (that
  attempt only), or expiry (``expiresAt`` on the server clock); an ended attempt's token binds nothing.
* A confirmation for a (provider, scopeId) the device already holds supersedes the older binding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Final

__all__ = [
    "ATTEMPT_TTL_MS", "TELEGRAM_BOT", "Attempt", "Binding", "Change", "ProviderBook", "connect_url", "snapshot",
]

#: spec: pending carries expiresAt; the contract fixes now + 10 minutes.
ATTEMPT_TTL_MS: Final = 600_000
#: The reference's Telegram bot username (the connect URL names it).
TELEGRAM_BOT: Final = "simulator_hook_bot"
PENDING_ACTIONS: Final = ("open_connect_url", "copy_connect_url", "cancel")
CONFIRMED_ACTIONS: Final = ("revoke",)
OPEN_STATES: Final = frozenset({"pending", "awaiting_confirmation"})
#: The snapshot fields (spec: update and state share one complete shape), all present, null unless set.
_FIELDS: Final = ("attemptId", "bindingId", "principalId", "principalName", "scopeId", "scopeName", "connectUrl",
                  "expiresAt", "reason", "remediationUrl")


def connect_url(provider: str, token: str) -> str:
    """The connect URL of an attempt (spec: "Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>")."""
    if provider == "telegram":
        return f"https://t.me/{TELEGRAM_BOT}?start={token}"
    return f"https://x.com/messages/compose?text={token}"


def snapshot(provider: str, state: str, reply_to: str | None, actions: Iterable[str] = (),
             **fields: Any) -> dict[str, Any]:
    """A ``provider.bind.update`` / ``.state`` payload: every field present, null unless given."""
    unknown = set(fields) - set(_FIELDS)
    if unknown:
        raise ValueError(f"not snapshot fields: {sorted(unknown)}")
    return {"provider": provider, "state": state, "replyTo": reply_to, **{k: fields.get(k) for k in _FIELDS},
            "actions": list(actions)}


@dataclass(slots=True)
class Attempt:
    attempt_id: str
    device_id: str
    provider: str
    scope_id: str | None
    token: str
    expires_at: int
    request_id: str
    state: str = "pending"  # pending | awaiting_confirmation | ended

    @property
    def open(self) -> bool:
        return self.state in OPEN_STATES

    def row(self) -> dict[str, Any]:
        return asdict(self)

    def public(self) -> dict[str, Any]:
        return {"deviceId": self.device_id, "provider": self.provider, "attemptId": self.attempt_id,
                "state": self.state, "expiresAt": self.expires_at, "token": self.token}


@dataclass(slots=True)
class Binding:
    binding_id: str
    device_id: str
    provider: str
    principal_id: str
    principal_name: str | None
    scope_id: str
    scope_name: str | None

    def row(self) -> dict[str, Any]:
        return asdict(self)

    def public(self) -> dict[str, Any]:
        return {"deviceId": self.device_id, "provider": self.provider, "bindingId": self.binding_id,
                "principalId": self.principal_id, "principalName": self.principal_name, "scopeId": self.scope_id,
                "scopeName": self.scope_name}

    def fields(self) -> dict[str, Any]:
        return {"bindingId": self.binding_id, "principalId": self.principal_id, "principalName": self.principal_name,
                "scopeId": self.scope_id, "scopeName": self.scope_name}


@dataclass(frozen=True, slots=True)
class Change:
    """One ``provider.bind.update`` for ``device_id`` (``payload``) and the rows it writes: ``(table, key, row or
    None)``."""

    device_id: str
    payload: Mapping[str, Any]
    rows: tuple[tuple[str, str, Mapping[str, Any] | None], ...] = ()


@dataclass(slots=True)
class ProviderBook:
    attempts: dict[str, Attempt] = field(default_factory=dict)
    bindings: dict[str, Binding] = field(default_factory=dict)

    # -- queries ------------------------------------------------------------------------------------------------

    def bindings_of(self, device_id: str, provider: str | None = None) -> list[Binding]:
        return [b for b in self.bindings.values()
                if b.device_id == device_id and (provider is None or b.provider == provider)]

    def open_attempt_by_token(self, token: str, now: int) -> Attempt | None:
        """The open, unexpired attempt with ``token`` (an ended attempt's token binds nothing)."""
        for a in self.attempts.values():
            if a.token == token and a.open and a.expires_at > now:
                return a
        return None

    # -- changes ------------------------------------------------------------------------------------------------

    def start(self, device_id: str, provider: str, scope_id: str | None, request_id: str, now: int,
              ids: Callable[[], str]) -> tuple[Attempt, Change]:
        """``provider.bind.start``: a new attempt (older open attempts stay open: each is cancelled on its own)."""
        a = Attempt(ids(), device_id, provider, scope_id, ids(), now + ATTEMPT_TTL_MS, request_id)
        self.attempts[a.attempt_id] = a
        url = self.connect_url(a)
        payload = snapshot(provider, "pending", request_id, PENDING_ACTIONS, attemptId=a.attempt_id,
                           connectUrl=url, expiresAt=a.expires_at)
        return a, Change(device_id, payload, (("provider_attempts", a.attempt_id, a.row()),))

    def connect_url(self, a: Attempt) -> str:
        """The pending attempt's connect URL, carrying its one-time token (§5 "pending 必带 HTTPS connectUrl")."""
        return connect_url(a.provider, a.token)

    def end(self, a: Attempt, state: str, reason: str, reply_to: str | None = None) -> Change:
        """The attempt ends unconfirmed: ``denied`` / ``expired`` / ``failed`` with ``reason``."""
        a.state = "ended"
        payload = snapshot(a.provider, state, reply_to, ("retry",), attemptId=a.attempt_id, scopeId=a.scope_id,
                           reason=reason)
        return Change(a.device_id, payload, (("provider_attempts", a.attempt_id, a.row()),))

    def await_confirmation(self, a: Attempt) -> Change:
        """The provider waits for the user: the attempt stays open ("none → pending → awaiting_confirmation? →
        confirmed")."""
        a.state = "awaiting_confirmation"
        payload = snapshot(a.provider, "awaiting_confirmation", None, ("cancel",), attemptId=a.attempt_id,
                           scopeId=a.scope_id, expiresAt=a.expires_at)
        return Change(a.device_id, payload, (("provider_attempts", a.attempt_id, a.row()),))

    def confirm(self, a: Attempt, principal_id: str, principal_name: str | None, scope_id: str,
                scope_name: str | None, ids: Callable[[], str]) -> tuple[Binding, list[Change]]:
        """The attempt is confirmed: a new binding; an older one of the device for the same (provider, scopeId) is
        superseded (its own update first)."""
        a.state = "ended"
        changes: list[Change] = []
        for old in self._superseded(a, scope_id):
            del self.bindings[old.binding_id]
            changes.append(Change(old.device_id, snapshot(old.provider, "superseded", None, (), **old.fields(),
                                                          reason="superseded"),
                                  (("provider_bindings", old.binding_id, None),)))
        b = Binding(ids(), a.device_id, a.provider, principal_id, principal_name, scope_id, scope_name)
        self.bindings[b.binding_id] = b
        changes.append(Change(b.device_id, self.confirmed(b, None),
                              (("provider_attempts", a.attempt_id, a.row()),
                               ("provider_bindings", b.binding_id, b.row()))))
        return b, changes

    def _superseded(self, a: Attempt, scope_id: str) -> list[Binding]:
        """The device's bindings a confirmation for ``scope_id`` supersedes: those of the same provider and scope
        (§5 终态 "superseded")."""
        return [old for old in self.bindings_of(a.device_id, a.provider) if old.scope_id == scope_id]

    def revoke(self, b: Binding, reply_to: str | None) -> Change:
        del self.bindings[b.binding_id]
        payload = snapshot(b.provider, "revoked", reply_to, ("retry",), **b.fields(), reason="revoked")
        return Change(b.device_id, payload, (("provider_bindings", b.binding_id, None),))

    @staticmethod
    def confirmed(b: Binding, reply_to: str | None) -> dict[str, Any]:
        """The snapshot of a confirmed binding (a ``provider.bind.update`` or the ``provider.bind.state`` after
        welcome)."""
        return snapshot(b.provider, "confirmed", reply_to, CONFIRMED_ACTIONS, **b.fields())

    # -- durable state ------------------------------------------------------------------------------------------

    def restore(self, attempts: Iterable[Mapping[str, Any]], bindings: Iterable[Mapping[str, Any]]) -> None:
        for row in attempts:
            a = Attempt(**dict(row))
            self.attempts[a.attempt_id] = a
        for row in bindings:
            b = Binding(**dict(row))
            self.bindings[b.binding_id] = b
