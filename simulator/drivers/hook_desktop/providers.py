"""Provider-neutral binding at a desktop under test (slack-hook-protocol.md §2 provider 能力
必须双向协商 / provider 偏好隔离 / workspace 是别名, §5 Provider-neutral 绑定与偏好; docs/control-api.md "Bindings and
preferences (desktop)").

The harness plays the server (it sends provider.bind.update / state) and the desktop's user (the control capabilities
``provider-bind``, ``provider-cancel``, ``provider-revoke``); it judges the frames the desktop sends and what its
control ``state`` shows (``providers``). The bookkeeping here (names, answers, refusals, the ping barrier) is shared
with ``provider_prefs`` and ``behavior``. Names in the feature ("a1", "b1", "p1") map to
fresh ids per scenario. A scenario concerns a desktop that declares the family in its own hello: without it the
scenario is not applicable (``require_hello``). A refusal the step expects (409 ``channel-hidden``) is judged by its
status and code; any other answer fails. "Nothing shown" checks read ``state`` after a ping answered with a pong,
so the desktop has read every frame sent before.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, cast

from ...errors import NotApplicable, SubjectRefused
from ...hook import (
    ABSENT,
    HookBuildError,
    MessageType,
    make_provider_bind_state,
    make_provider_bind_update,
)
from .answers import checked_fields
from .session import DesktopSession
from .state import StateChecks

__all__ = ["ProviderChecks", "PROVIDER_STATE_FIELDS", "checked_providers"]

#: docs/control-api.md (desktop): the fields ``state`` gains for these families
#: (``$defs/state.response`` of docs/desktop-control-api.schema.json).
PROVIDER_STATE_FIELDS = ("providers", "providerPrefs", "behavior")
#: An hour ahead: the expiry of the attempts the harness announces (unix ms is required, its value is not judged).
_EXPIRES_AT = 4_102_444_800_000
_STATUS_BUILDERS = {"provider.bind.update": make_provider_bind_update, "provider.bind.state": make_provider_bind_state}


def checked_providers(state: dict[str, Any], provider: str) -> dict[str, Any]:
    """``state.providers[provider]`` when the answer's ``providers``, ``providerPrefs`` and ``behavior`` match
    ``$defs/state.response`` (``providers`` holds ``telegram`` and ``x``, each a ``$defs/providerChannel``); else
    ``AssertionError`` naming the schema entry and the JSON pointer."""
    checked_fields(state, "state", PROVIDER_STATE_FIELDS)
    channel = state["providers"].get(provider)
    assert isinstance(channel, dict), (
        f"state.providers has no channel {provider!r}: the feature names a provider the contract does not have")
    return channel


@dataclass(eq=False)
class ProviderChecks:
    """The provider binding operations of a desktop scenario, and the bookkeeping the provider families share, over
    the session and its control ``state`` (``state``)."""

    session: DesktopSession
    state: StateChecks

    # -- scenario bookkeeping ---------------------------------------------------------------------------------------

    #: capability → the desktop's last answer (a dict) or refusal (``SubjectRefused``) in this scenario.
    provider_answers: dict[str, Any] = field(default_factory=dict)

    def pid(self, kind: str, name: str) -> str:
        """The fresh id of the attempt / binding / scope named ``name`` (one per scenario)."""
        return self.session.rid(f"{kind}:{name}")

    def require_hello(self, feature: str) -> None:
        """Not applicable unless the desktop declares ``feature`` in its own hello (§2: a family is used only when
        both sides declare it; this requirement concerns a desktop that offers it)."""
        if feature not in self.session.server.desktop_features:
            raise NotApplicable(f"the desktop does not declare {feature} in hello.features")

    def require_not_hello(self, feature: str) -> None:
        """Not applicable when the desktop declares ``feature`` in its own hello: this requirement concerns a desktop
        that does not (a feature negotiated both ways stays off when either side leaves it out)."""
        if feature in self.session.server.desktop_features:
            raise NotApplicable(f"the desktop declares {feature} in hello.features: this requirement concerns a "
                                f"desktop configured without it")

    def user_call(self, capability: str, body: dict[str, Any]) -> dict[str, Any]:
        """A user action the step expects to be accepted: the answer, which must carry ``ok`` true."""
        answer = self.session.user_action(capability, body)
        assert isinstance(answer, dict) and answer.get("ok") is True, (
            f"the desktop's answer to {capability} is not {{\"ok\": true, …}}: {answer!r}")
        self.provider_answers[capability] = answer
        return answer

    def user_try(self, capability: str, body: dict[str, Any]) -> None:
        """A user action the step expects to be refused: its answer or refusal, judged by ``check_refused``."""
        self.provider_answers.pop("last", None)
        try:
            self.provider_answers["last"] = self.session.user_action(capability, body)
        except SubjectRefused as exc:
            self.provider_answers["last"] = exc
        self.provider_answers["last-capability"] = capability

    def check_refused(self, code: str) -> None:
        """The last attempted action was refused with HTTP 409 and ``code`` (docs/control-api.md "Bindings and
        preferences (desktop)": "409 channel-hidden when the channel is off (nothing sent)" / "409 feature-off")."""
        capability = self.provider_answers.get("last-capability")
        assert capability is not None, "the desktop user tried nothing before this step"
        got = self.provider_answers.get("last")
        assert isinstance(got, SubjectRefused), (
            f"the desktop accepted {capability} ({got!r}): it offers a family the connection did not negotiate")
        assert got.status == 409 and got.code == code, (
            f"the desktop refused {capability} with HTTP {got.status} {got.code!r}, not 409 {code!r}: {got.body[:300]}")

    def answered_request_id(self, capability: str) -> str:
        answer = self.provider_answers.get(capability)
        assert isinstance(answer, dict), f"the desktop user did not {capability} before this step"
        rid = answer.get("requestId")
        assert isinstance(rid, str) and rid, f"the desktop's answer to {capability} lacks requestId: {answer!r}"
        return rid

    # -- the user (control API) -------------------------------------------------------------------------------------

    def try_provider_bind(self, provider: str) -> None:
        self.require_hello("provider-bind-v1")
        self.user_try("provider-bind", {"provider": provider})

    def provider_bind(self, provider: str, scope: str | None) -> None:
        self.require_hello("provider-bind-v1")
        body: dict[str, Any] = {"provider": provider}
        if scope is not None:
            body["scopeId"] = scope
        self.user_call("provider-bind", body)

    def provider_cancel(self, provider: str, attempt: str) -> None:
        self.user_call("provider-cancel", {"provider": provider, "attemptId": self.pid("attempt", attempt)})

    def provider_revoke(self, provider: str, binding: str) -> None:
        self.user_call("provider-revoke", {"provider": provider, "bindingId": self.pid("binding", binding)})

    # -- the harness as the server ----------------------------------------------------------------------------------

    def _send_status(self, frame: str, provider: str, **fields: Any) -> None:
        self.require_hello("provider-bind-v1")
        base: dict[str, Any] = {"reply_to": None, "attempt_id": None, "binding_id": None, "principal_id": None,
                                "principal_name": None, "scope_id": None, "scope_name": None, "connect_url": None,
                                "expires_at": None, "reason": None, "remediation_url": None, "actions": ()}
        base.update(fields)
        self.session.server.send_message(_STATUS_BUILDERS[frame](provider, base.pop("state"), **base))

    def push_attempt(self, frame: str, provider: str, attempt: str, url: str,
                     actions: Iterable[str] = ("open_connect_url", "cancel")) -> None:
        """A pending attempt with ``url`` as its connectUrl (validated by the core where it must: an http URL or one
        with user info is sent unvalidated, as a server that breaks the rule would)."""
        fields = {"state": "pending", "attempt_id": self.pid("attempt", attempt), "connect_url": url,
                  "expires_at": _EXPIRES_AT, "actions": tuple(actions)}
        self.require_hello("provider-bind-v1")
        try:
            self._send_status(frame, provider, **fields)
        except HookBuildError:  # the core refuses to build it: sent as a raw frame
            self._send_raw_status(frame, provider, fields)

    def _send_raw_status(self, frame: str, provider: str, fields: dict[str, Any]) -> None:
        payload = {"provider": provider, "state": fields["state"], "replyTo": None, "attemptId": fields["attempt_id"],
                   "bindingId": None, "principalId": None, "principalName": None, "scopeId": None, "scopeName": None,
                   "connectUrl": fields["connect_url"], "expiresAt": fields["expires_at"], "reason": None,
                   "remediationUrl": None, "actions": list(fields["actions"])}
        self.session.server.send_frame({"v": 1, "type": frame, "id": self.pid("frame", json.dumps(payload)), "ts": 1,
                                        "payload": payload})

    def push_confirmed(self, frame: str, provider: str, binding: str) -> None:
        self._send_status(frame, provider, state="confirmed", binding_id=self.pid("binding", binding),
                          principal_id=self.pid("principal", binding), principal_name="Conformance user",
                          scope_id=self.pid("scope", binding), scope_name="Conformance chat")

    def push_ended(self, frame: str, provider: str, binding: str, state: str) -> None:
        """A revoked / superseded binding (§5: "revoked/superseded 保留 bindingId 但必须清空 attemptId/expiresAt")."""
        self._send_status(frame, provider, state=state, binding_id=self.pid("binding", binding),
                          principal_id=self.pid("principal", binding), scope_id=self.pid("scope", binding),
                          reason="conformance")

    def push_malformed_status(self, binding: str) -> None:
        """Frames of the binding family that fail the core's checks, each of which would change what is shown if it
        were taken: a revocation of ``binding`` without its reason, one for a provider that does not exist, a pending
        attempt without its link, a confirmed binding still naming an attempt, a payload that is not an object."""
        self.require_hello("provider-bind-v1")
        bid = self.pid("binding", binding)
        status: dict[str, Any] = {
            "provider": "telegram", "state": "revoked", "replyTo": None, "attemptId": None, "bindingId": bid,
            "principalId": None, "principalName": None, "scopeId": None, "scopeName": None,
            "connectUrl": None, "expiresAt": None, "reason": None, "remediationUrl": None, "actions": []}
        frames = [
            status,
            {**status, "provider": "myspace", "reason": "conformance"},
            {**status, "state": "pending", "bindingId": None, "attemptId": self.pid("attempt", "garbage-1"),
             "expiresAt": _EXPIRES_AT},
            {**status, "state": "confirmed", "attemptId": self.pid("attempt", "garbage-2"),
             "principalId": "p", "scopeId": "s"},
        ]
        for i, payload in enumerate(frames):
            self.session.server.send_frame({"v": 1, "type": "provider.bind.update", "id": f"garbage-{i}", "ts": 1,
                                            "payload": payload})
        self.session.server.send_frame({"v": 1, "type": "provider.bind.state", "id": "garbage-x", "ts": 1,
                                        "payload": [bid]})
        self.session.server.send_raw('{"v":1,"type":"provider.bind.update","id":"garbage-y","ts":1,"payload":')

    # -- what the desktop sent --------------------------------------------------------------------------------------

    def expect_sent(self, type_: MessageType, what: str, **want: str) -> Any:
        """The desktop's next valid ``type_`` payload whose fields (snake_case) equal ``want`` (``what`` names it in
        a failure)."""
        return self.session.server.expect_payload(
            type_.value, where=lambda p: all(getattr(p, k, None) == v for k, v in want.items()), what=what)

    def check_provider_bind_start(self, provider: str, scope: str | None) -> None:
        """§5 "provider.bind.start … 按 provider 发起一次绑定尝试;requestId 配对,scopeId 可选"."""
        rid = self.answered_request_id("provider-bind")
        start = self.expect_sent(MessageType.PROVIDER_BIND_START, f"requestId {rid}", request_id=rid)
        assert start.provider == provider, f"provider.bind.start names provider {start.provider!r}, not {provider!r}"
        got = None if start.scope_id is ABSENT else start.scope_id
        assert got == scope, f"provider.bind.start carries scopeId {got!r}, not {scope!r}"

    def check_cancel(self, provider: str, attempt: str) -> None:
        aid = self.pid("attempt", attempt)
        cancel = self.expect_sent(MessageType.PROVIDER_BIND_CANCEL, f"attempt {attempt}", attempt_id=aid)
        assert cancel.provider == provider, f"provider.bind.cancel names provider {cancel.provider!r}"

    def check_no_cancel(self, attempt: str) -> None:
        """§5 provider.bind.cancel "只取消指定 attemptId": no cancel names ``attempt`` (``none_answered``)."""
        aid = self.pid("attempt", attempt)
        self.session.none_answered(lambda e: e.type == MessageType.PROVIDER_BIND_CANCEL and e.ok
                                   and e.payload.attempt_id == aid)

    def check_revoke(self, provider: str, binding: str) -> None:
        bid = self.pid("binding", binding)
        revoke = self.expect_sent(MessageType.PROVIDER_BIND_REVOKE, f"binding {binding}", binding_id=bid)
        assert revoke.provider == provider, f"provider.bind.revoke names provider {revoke.provider!r}"

    def check_no_revoke(self, binding: str) -> None:
        bid = self.pid("binding", binding)
        self.session.none_answered(lambda e: e.type == MessageType.PROVIDER_BIND_REVOKE and e.ok
                                   and e.payload.binding_id == bid)

    # -- what the desktop shows (control state) ---------------------------------------------------------------------

    def channel(self, provider: str) -> dict[str, Any]:
        return checked_providers(self.state.state(), provider)

    def _poll_channel(self, provider: str, shows: Any, what: str) -> dict[str, Any]:
        state = self.state.poll_state(lambda s: shows(checked_providers(s, provider)), what)
        return checked_providers(state, provider)

    def _attempt(self, channel: dict[str, Any], attempt: str) -> dict[str, Any] | None:
        aid = self.pid("attempt", attempt)
        return next((a for a in channel["attempts"] if isinstance(a, dict) and a.get("attemptId") == aid), None)

    def _binding(self, channel: dict[str, Any], binding: str) -> dict[str, Any] | None:
        bid = self.pid("binding", binding)
        return next((b for b in channel["bindings"] if isinstance(b, dict) and b.get("bindingId") == bid), None)

    def check_channel_hidden(self, provider: str) -> None:
        """§2 "任一能力缺席都隐藏该渠道": ``visible`` false and nothing of this scenario shown."""
        self.session.barrier()
        channel = self.channel(provider)
        mine = set(self.session.request_ids.values())
        shown = [x for x in channel["attempts"] + channel["bindings"] if isinstance(x, dict)
                 and (x.get("attemptId") in mine or x.get("bindingId") in mine)]
        assert channel["visible"] is False, f"the desktop shows the {provider} channel: {json.dumps(channel)[:400]}"
        assert not shown, f"the desktop shows a hidden {provider} channel's frames: {shown!r}"[:600]

    def check_attempt_state(self, provider: str, attempt: str, state: str) -> None:
        self._poll_channel(provider, lambda c: (a := self._attempt(c, attempt)) is not None and a.get("state") == state,
                           f"{provider} attempt {attempt!r} {state}")

    def _shown_attempt(self, provider: str, attempt: str) -> dict[str, Any]:
        channel = self._poll_channel(provider, lambda c: self._attempt(c, attempt) is not None,
                                     f"{provider} attempt {attempt!r}")
        # the poll ended once the channel showed the attempt: it is there
        return cast("dict[str, Any]", self._attempt(channel, attempt))

    def check_attempt_link(self, provider: str, attempt: str, url: str) -> None:
        shown = self._shown_attempt(provider, attempt)
        assert shown.get("connectUrl") == url and shown.get("linkRejected") is False, (
            f"the desktop shows attempt {attempt!r} with connectUrl {shown.get('connectUrl')!r}, linkRejected "
            f"{shown.get('linkRejected')!r}: a strict https://t.me/<bot>?start=<token> link must be shown")

    def check_attempt_link_rejected(self, provider: str, attempt: str) -> None:
        shown = self._shown_attempt(provider, attempt)
        assert shown.get("connectUrl") is None and shown.get("linkRejected") is True, (
            f"the desktop shows attempt {attempt!r} with connectUrl {shown.get('connectUrl')!r}, linkRejected "
            f"{shown.get('linkRejected')!r}: a link outside the allowlist must not be shown")

    def check_no_link(self, provider: str, attempt: str) -> None:
        self.session.barrier()
        shown = self._attempt(self.channel(provider), attempt) or {}
        assert shown.get("connectUrl") is None, (
            f"the desktop shows the link {shown.get('connectUrl')!r} of attempt {attempt!r}")

    def check_no_attempt(self, provider: str) -> None:
        self.session.barrier()
        mine = set(self.session.request_ids.values())
        shown = [a for a in self.channel(provider)["attempts"] if isinstance(a, dict) and a.get("attemptId") in mine]
        assert not shown, f"the desktop shows attempts of this scenario it must not have taken: {shown!r}"[:600]

    def check_attempt_actions(self, provider: str, attempt: str, actions: list[str]) -> None:
        shown = self._shown_attempt(provider, attempt)
        got = shown.get("actions")
        assert isinstance(got, list) and sorted(got) == sorted(actions), (
            f"the desktop shows the actions {got!r} for attempt {attempt!r}, not {actions!r}")

    def check_binding_state(self, provider: str, binding: str, state: str) -> None:
        self._poll_channel(provider, lambda c: (b := self._binding(c, binding)) is not None and b.get("state") == state,
                           f"{provider} binding {binding!r} {state}")
