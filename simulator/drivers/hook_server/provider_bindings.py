"""Provider-neutral binding and provider preferences, driven from the desktop side (spec §5 Provider-neutral 绑定与偏好;
§2 provider 能力必须双向协商, provider 偏好隔离; 阶段 14 "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发"),
with the channel side played through the control API (docs/control-api.md "Bindings and preferences (hook-server)":
``inject-message`` ``/start <token>``, ``provider-authorize``, ``list-bindings``, ``channel-set-prefs``).

Names: an *attempt* is named by the feature when it starts ("tg1"); the binding it confirms carries the same name.
Every provider frame a device receives is parsed by the core (``parse_hook_message``): an invalid one fails the step
that meets it. Expected values come from the feature; the harness never reads the reference.
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from ...errors import NotTestable
from ...hook import (
    MIN_SCANNED_TOKEN,
    MessageType,
    ProviderBindUpdatePayload,
    build_hook_message,
    make_provider_bind_cancel,
    make_provider_bind_revoke,
    make_provider_bind_start,
    make_provider_prefs_get,
    make_provider_prefs_set,
    parse_telegram_connect_url,
)
from .channel import ChannelOps
from .connections import ConnectionOps
from .scenario import HookServerScenario

__all__ = ["PROVIDER_FRAME_TYPES", "ProviderBindingOps", "ProviderState"]

#: The server → desktop frames of the provider families.
PROVIDER_FRAME_TYPES = frozenset({
    MessageType.PROVIDER_BIND_UPDATE.value, MessageType.PROVIDER_BIND_STATE.value,
    MessageType.PROVIDER_PREFS_STATE.value, MessageType.PROVIDER_BEHAVIOR_STATE.value,
})


@dataclass
class ProviderState:
    """What a scenario learnt of the provider families: attempt name → its pending update (and the device that
    started it), binding name → bindingId, the provider of each name, the tokens seen, the last states."""

    pending: dict[str, Any] = field(default_factory=dict)
    starter: dict[str, str] = field(default_factory=dict)
    providers: dict[str, str] = field(default_factory=dict)
    bindings: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str] = field(default_factory=dict)
    #: token → the text of the one frame allowed to carry it (the attempt's pending update)
    token_frames: dict[str, str] = field(default_factory=dict)
    prefs: dict[str, Any] = field(default_factory=dict)
    behavior: dict[str, Any] = field(default_factory=dict)


@dataclass(eq=False)
class ProviderBindingOps:
    """Provider-neutral binding and provider preferences (spec §5 Provider-neutral 绑定与偏好), over the
    scenario (``scenario``), the device connections (``connections``) and the server's clock (``channel``)."""

    scenario: HookServerScenario
    connections: ConnectionOps
    channel: ChannelOps

    #: What the scenario learnt of the provider families.
    pstate: ProviderState = field(default_factory=ProviderState)

    def _new_request(self) -> str:
        return f"sim-{uuid.uuid4()}"

    def attempt_id(self, name: str) -> str:
        if name not in self.pstate.pending:
            raise AssertionError(f"no binding attempt named {name!r} in this scenario")
        attempt_id: str = self.pstate.pending[name].attempt_id
        return attempt_id

    def binding_id(self, name: str) -> str:
        if name not in self.pstate.bindings:
            raise AssertionError(f"no binding named {name!r} in this scenario (never confirmed)")
        return self.pstate.bindings[name]

    # -- Given / When: the desktop ---------------------------------------------------------------------------------

    def online_declaring(self, dev: str, features: list[str]) -> None:
        """The device says hello with its default features plus ``features``."""
        hello = dict(self.scenario.device(dev).hello)
        self.connections.online(dev, {"features": [*hello.get("features", []), *features]})

    def start_binding(self, dev: str, provider: str, name: str, scope: str | None = None) -> None:
        """``provider.bind.start``; the pending update answering it (replyTo = its requestId) is recorded."""
        rid = self._new_request()
        role = self.scenario.device(dev).role
        role.send_message(make_provider_bind_start(request_id=rid, provider=provider, scope_id=scope))
        entry = role.expect(lambda e: e.type == MessageType.PROVIDER_BIND_UPDATE.value
                            and (not e.ok or e.payload.reply_to == rid))
        assert entry.ok, f"the server's provider.bind.update is invalid: {entry.issue}"
        p = entry.payload
        assert p.state == "pending", f"provider.bind.start was answered with state {p.state!r}: {entry.text}"
        assert p.provider == provider, f"the pending update names provider {p.provider!r}, the start {provider!r}"
        self.pstate.pending[name], self.pstate.starter[name], self.pstate.providers[name] = p, dev, provider
        token = self._token_from_listing(name)
        self.pstate.tokens[name] = token
        self.pstate.token_frames[token] = entry.text

    def _token_from_listing(self, name: str) -> str:
        """The attempt's one-time token as the identity provider sees it (``list-bindings`` ``attempts[].token``)."""
        aid = self.attempt_id(name)
        starter = self.scenario.device(self.pstate.starter[name])
        answer = self.scenario.ctl("list-bindings", {"deviceId": starter.role.device_id})
        tokens = [a["token"] for a in answer["attempts"] if a["attemptId"] == aid]
        assert tokens, f"list-bindings does not list the open attempt {aid!r}: {answer['attempts']!r}"[:600]
        token: str = tokens[0]
        return token

    def start_binding_unannounced(self, dev: str, provider: str) -> None:
        """``provider.bind.start`` from a device whose family is off: nothing is waited for."""
        self.scenario.device(dev).role.send_message(make_provider_bind_start(request_id=self._new_request(),
                                                                             provider=provider))
        self.scenario.barrier()

    def ask_prefs_unannounced(self, dev: str, provider: str, scope: str) -> None:
        """``provider.prefs.get`` from a device whose family is off: nothing is waited for."""
        self.scenario.device(dev).role.send_message(make_provider_prefs_get(
            request_id=self._new_request(), provider=provider, binding_id=None,
            scope_id=self.scenario.chats.get(scope, scope)))
        self.scenario.barrier()

    def send_server_update(self, dev: str) -> None:
        """A ``provider.bind.update`` sent by the desktop: a server → desktop type (dropped ``unhandled-type``)."""
        msg = build_hook_message(ProviderBindUpdatePayload.from_wire(
            {"provider": "telegram", "state": "none", "replyTo": None, "attemptId": None, "bindingId": None,
             "principalId": None, "principalName": None, "scopeId": None, "scopeName": None, "connectUrl": None,
             "expiresAt": None, "reason": None, "remediationUrl": None, "actions": []}))
        self.scenario.device(dev).role.send_message(msg)
        self.scenario.barrier()

    def cancel_attempt(self, dev: str, name: str) -> None:
        self.scenario.device(dev).role.send_message(make_provider_bind_cancel(
            request_id=self._new_request(), provider=self.pstate.providers[name], attempt_id=self.attempt_id(name)))
        self.scenario.barrier()

    def revoke_binding(self, dev: str, name: str) -> None:
        self.scenario.device(dev).role.send_message(make_provider_bind_revoke(
            request_id=self._new_request(), provider=self.pstate.providers[name], binding_id=self.binding_id(name)))
        self.scenario.barrier()

    # -- When: the channel and the identity provider ---------------------------------------------------------------

    def send_start(self, name: str, chat: str, user: str) -> None:
        """The user sends ``/start <token>`` to the Telegram bot; the server answers ``kind: "bind"``."""
        self.scenario.providers[chat] = "telegram"
        body = {"provider": "telegram", "chatId": self.scenario.chat(chat), "threadId": None, "userId": user,
                "userName": f"{user} name", "text": f"/start {self.pstate.tokens[name]}"}
        answer = self.scenario.ctl("inject-message", body)
        assert answer["kind"] == "bind", f"the server did not take /start <token> as a binding: {answer!r}"

    def authorize(self, name: str, outcome: str, principal: str | None = None, scope: str | None = None) -> None:
        body: dict[str, Any] = {"attemptId": self.attempt_id(name), "outcome": outcome}
        if principal:
            body["principalId"] = principal
        if scope:
            body["scopeId"] = self.scenario.chats.get(scope, scope)  # a chat the scenario named, else the name itself
        self.scenario.answers.require("provider-authorize")
        self.scenario.ctl("provider-authorize", body)

    def pass_expiry(self, name: str) -> None:
        """The server's clock passes the attempt's ``expiresAt``."""
        self.channel.advance_to(self.pstate.pending[name].expires_at)

    # -- Then: updates ---------------------------------------------------------------------------------------------

    def _update(self, dev: str, pred: Any) -> Any:
        role = self.scenario.device(dev).role
        entry = role.expect(lambda e: e.type == MessageType.PROVIDER_BIND_UPDATE.value
                            and (not e.ok or pred(e.payload)))
        assert entry.ok, f"the server's provider.bind.update is invalid: {entry.issue}"
        return entry.payload

    def expect_connect_url(self, name: str) -> None:
        """spec: "pending 必带 HTTPS connectUrl、attemptId、expiresAt": an https URL carrying the attempt's one-time
        token (the attemptId and expiresAt linkage is the core's parse of the update)."""
        url = self.pstate.pending[name].connect_url
        assert isinstance(url, str) and urlsplit(url).scheme == "https", f"connectUrl {url!r} is not an https URL"
        assert self.pstate.tokens[name] in url, f"connectUrl {url!r} does not carry the attempt's one-time token"

    def expect_strict_telegram_url(self, name: str) -> None:
        """spec: "Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>": exactly that, with the attempt's token."""
        url = self.pstate.pending[name].connect_url
        token = self.pstate.tokens[name]
        link = parse_telegram_connect_url(url)
        assert link, f"connectUrl {url!r} is not exactly https://t.me/<bot>?start=<token> (simulator.hook.connect_links)"
        assert link.token == token, f"connectUrl {url!r} carries {link.token!r}, the attempt's token is {token!r}"

    def expect_provider_confirmed(self, dev: str, name: str, principal: str, scope: str | None = None) -> None:
        """spec: "confirmed 必带 bindingId、principalId、scopeId"; the binding gets the attempt's name."""
        provider = self.pstate.providers[name]
        p = self._update(dev, lambda q: q.state == "confirmed" and q.provider == provider)
        assert p.principal_id == principal, f"confirmed principalId {p.principal_id!r}, expected {principal!r}"
        if scope is not None:
            want = self.scenario.chats.get(scope, scope)
            assert p.scope_id == want, f"confirmed scopeId {p.scope_id!r}, expected {want!r}"
        assert p.binding_id not in self.pstate.bindings.values(), f"the confirmation reuses bindingId {p.binding_id!r}"
        self.pstate.bindings[name] = p.binding_id
        self.pstate.providers.setdefault(name, provider)

    def expect_attempt_state(self, dev: str, name: str, state: str, reason: str | None = None) -> None:
        """An update of the attempt (by attemptId): ``state``, with ``reason`` when given."""
        aid = self.attempt_id(name)
        p = self._update(dev, lambda q: q.attempt_id == aid and q.state != "pending")
        assert p.state == state, f"attempt {name!r}: state {p.state!r}, expected {state!r}"
        if reason is not None:
            assert p.reason == reason, f"attempt {name!r}: reason {p.reason!r}, expected {reason!r}"

    def expect_binding_state(self, dev: str, name: str, state: str, reason: str) -> None:
        """``revoked`` / ``superseded`` of the binding (by bindingId), with ``reason``."""
        bid = self.binding_id(name)
        p = self._update(dev, lambda q: q.binding_id == bid and q.state != "confirmed")
        assert (p.state, p.reason) == (state, reason), \
            f"binding {name!r}: {p.state!r} / {p.reason!r}, expected {state!r} / {reason!r}"

    def expect_binding_after_welcome(self, dev: str, name: str) -> None:
        """After welcome: a provider.bind.state of the confirmed binding."""
        bid = self.binding_id(name)
        entry = self.scenario.device(dev).role.expect(lambda e: e.type == MessageType.PROVIDER_BIND_STATE.value
                                                      and (not e.ok or e.payload.binding_id == bid))
        assert entry.ok, f"the server's provider.bind.state is invalid: {entry.issue}"
        assert entry.payload.state == "confirmed", f"provider.bind.state of {name!r}: {entry.payload.state!r}"

    def expect_no_binding_update(self, dev: str, name: str) -> None:
        """Nothing more about the attempt or binding ``name`` arrives (quiet window, connection alive)."""
        aid = self.pstate.pending[name].attempt_id if name in self.pstate.pending else None
        bid = self.pstate.bindings.get(name)

        def about(e: Any) -> bool:
            if e.type not in (MessageType.PROVIDER_BIND_UPDATE.value, MessageType.PROVIDER_BIND_STATE.value):
                return False
            return not e.ok or e.payload.attempt_id == aid or (bid is not None and e.payload.binding_id == bid)

        self.scenario.none_arrives(self.scenario.device(dev).role, about, include_pending=False)

    def expect_no_provider_frame(self, dev: str) -> None:
        """spec §2: with a family off the server sends none of its frames on the device's current connection (since
        it opened, and for the quiet window, the connection alive)."""
        role = self.scenario.device(dev).role
        self.scenario.none_arrives(role, lambda e: e.type in PROVIDER_FRAME_TYPES)
        sent = [e.text for e in role.connection.received if e.type in PROVIDER_FRAME_TYPES]
        assert not sent, f"the server sent provider frames to device {dev!r}: {sent!r}"[:600]

    def expect_token_contained(self, name: str) -> None:
        """阶段 14 "一次性凭证 … 由 server 过滤,不转发": the token appears in no frame any device received in the
        scenario except the attempt's pending update, and in none of the server's message, task or log answers."""
        token = self.pstate.tokens[name]
        if len(token) < MIN_SCANNED_TOKEN:
            raise NotTestable(f"the one-time token of {name!r} ({token!r}) is shorter than {MIN_SCANNED_TOKEN} "
                              f"characters: finding it elsewhere would prove nothing, so whether it was forwarded "
                              f"cannot be seen")
        allowed = self.pstate.token_frames[token]
        self.scenario.settle()
        for dev in self.scenario.devices.values():
            for conn in dev.role.connections:
                leaked = [e.text for e in conn.received
                          if token in e.text and (e.text != allowed or e.text.count(token) > 1)]
                assert not leaked, f"the one-time token of {name!r} reached device {dev.name!r} again: {leaked!r}"[:600]
        for capability, body in (("list-messages", {"provider": "telegram"}), ("list-tasks", {}),
                                  ("dropped-frames", {})):
            answer = self.scenario.ctl(capability, body)
            assert token not in repr(answer), f"the one-time token of {name!r} shows in the {capability} answer"

    def expect_start_not_a_task(self, chat: str) -> None:
        """The /start message became no task: no device receives a task.dispatch, the chat holds no message."""
        for dev in self.scenario.devices.values():
            if dev.role.conn is not None and dev.role.conn.is_open:
                self.scenario.none_arrives(dev.role, MessageType.TASK_DISPATCH)
        rows = self.scenario.rows("list-messages", {"provider": "telegram", "chatId": self.scenario.chat(chat)})
        assert not rows, f"the /start message became a channel message (a task): {rows!r}"[:600]

    def expect_listed_binding(self, dev: str, name: str) -> None:
        device_id = self.scenario.device(dev).role.device_id
        answer = self.scenario.ctl("list-bindings", {"deviceId": device_id})
        ids = [b["bindingId"] for b in answer["provider"]]
        assert self.binding_id(name) in ids, f"list-bindings does not list binding {name!r}: {answer['provider']!r}"

    def expect_no_listed_binding(self, dev: str) -> None:
        """``list-bindings`` lists no provider binding of the device (an ended attempt's token bound nothing: its
        confirmation would carry no attemptId, so only the listing shows it)."""
        device_id = self.scenario.device(dev).role.device_id
        self.scenario.settle()
        answer = self.scenario.ctl("list-bindings", {"deviceId": device_id})
        assert not answer["provider"], f"list-bindings lists provider bindings of device {dev!r}: {answer['provider']!r}"

    # -- provider preferences --------------------------------------------------------------------------------------

    def _selector(self, kind: str, ref: str) -> dict[str, Any]:
        if kind == "binding":
            return {"binding_id": self.binding_id(ref), "scope_id": None}
        return {"binding_id": None, "scope_id": self.scenario.chats.get(ref, ref)}

    def _prefs_state(self, dev: str, rid: str) -> Any:
        role = self.scenario.device(dev).role
        entry = role.expect(lambda e: e.type == MessageType.PROVIDER_PREFS_STATE.value
                            and (not e.ok or e.payload.reply_to == rid))
        assert entry.ok, f"the server's provider.prefs.state is invalid: {entry.issue}"
        assert "teamId" not in entry.text, f"provider.prefs.state carries a teamId: {entry.text[:300]}"
        return entry.payload

    def set_provider_prefs(self, dev: str, provider: str, kind: str, ref: str, workspace: str,
                           patch: dict[str, Any]) -> None:
        rid = self._new_request()
        self.scenario.device(dev).role.send_message(make_provider_prefs_set(
            request_id=rid, provider=provider, workspace=workspace, **self._selector(kind, ref),
            **{_snake(k): v for k, v in patch.items()}))
        self.pstate.prefs[dev] = (rid, provider, kind, ref, self._prefs_state(dev, rid))

    def get_provider_prefs(self, dev: str, provider: str, kind: str, ref: str) -> None:
        rid = self._new_request()
        self.scenario.device(dev).role.send_message(make_provider_prefs_get(request_id=rid, provider=provider,
                                                                            **self._selector(kind, ref)))
        self.pstate.prefs[dev] = (rid, provider, kind, ref, self._prefs_state(dev, rid))

    def set_prefs_absolute_path(self, dev: str, provider: str, kind: str, ref: str, path: str) -> None:
        """A provider.prefs.set whose workspace is an absolute path (invalid: "校验器拒绝绝对路径")."""
        msg = make_provider_prefs_set(request_id=self._new_request(), provider=provider, workspace=path,
                                      model="path-model", validate=False, **self._selector(kind, ref))
        self.scenario.device(dev).role.send_message(msg)
        self.scenario.barrier()

    def channel_sets_provider_prefs(self, provider: str, kind: str, ref: str, workspace: str, patch: dict[str, Any]) -> None:
        self.scenario.answers.require("channel-set-prefs")
        sel = self._selector(kind, ref)
        body = {"provider": provider, "workspace": workspace, **patch,
                **({"bindingId": sel["binding_id"]} if kind == "binding" else {"scopeId": sel["scope_id"]})}
        answer = self.scenario.ctl("channel-set-prefs", body)
        assert answer["pushed"] >= 1, f"channel-set-prefs pushed no provider.prefs.state to the device: {answer!r}"

    def expect_pushed_prefs(self, dev: str, kind: str, ref: str, prefs: list[dict[str, Any]]) -> None:
        """A pushed provider.prefs.state (replyTo null) of the selector with ``prefs``."""
        sel = self._selector(kind, ref)
        role = self.scenario.device(dev).role
        entry = role.expect(lambda e: e.type == MessageType.PROVIDER_PREFS_STATE.value
                            and (not e.ok or e.payload.reply_to is None))
        assert entry.ok, f"the server's provider.prefs.state is invalid: {entry.issue}"
        p = entry.payload
        assert (p.binding_id, p.scope_id) == (sel["binding_id"], sel["scope_id"]), \
            f"the pushed provider.prefs.state selects {(p.binding_id, p.scope_id)!r}, expected {sel!r}"
        _same_prefs(p, prefs)

    def expect_prefs(self, dev: str, bound: bool, prefs: list[dict[str, Any]]) -> None:
        """The last provider.prefs.state answering the device: replyTo, provider and selector echoed, ``bound``,
        and exactly ``prefs`` (bound false ⇒ empty)."""
        if dev not in self.pstate.prefs:
            raise AssertionError(f"device {dev!r} asked for no provider prefs in this scenario")
        rid, provider, kind, ref, p = self.pstate.prefs[dev]
        sel = self._selector(kind, ref)
        assert p.provider == provider, f"provider.prefs.state provider {p.provider!r}, asked {provider!r}"
        assert (p.binding_id, p.scope_id) == (sel["binding_id"], sel["scope_id"]), \
            f"provider.prefs.state selects {(p.binding_id, p.scope_id)!r}, asked {sel!r}"
        assert p.bound is bound, f"provider.prefs.state bound {p.bound!r}, expected {bound!r}"
        _same_prefs(p, prefs)


def _snake(key: str) -> str:
    return re.sub(r"[A-Z]", lambda m: "_" + m[0].lower(), key)


def _same_prefs(p: Any, prefs: list[dict[str, Any]]) -> None:
    got = sorted((e.to_wire() for e in p.prefs), key=lambda e: e["workspace"])
    want = sorted(({"model": None, "effort": None, "agentKind": None, "permissionMode": None, **e} for e in prefs),
                  key=lambda e: e["workspace"])
    got = [{k: e.get(k) for k in ("workspace", "model", "effort", "agentKind", "permissionMode")} for e in got]
    assert got == want, f"provider.prefs.state prefs {got!r}, expected {want!r}"
