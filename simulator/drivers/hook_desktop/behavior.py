"""Telegram behaviour at a desktop under test (slack-hook-protocol.md §5 阶段 19; docs/control-api.md "Bindings and
preferences (desktop)": ``behavior-get``, ``behavior-set``, ``state.behavior``).

The harness plays the server (provider.behavior.state, valid or malformed) and the desktop's user (the control
capabilities); it judges the provider.behavior.get / set frames the desktop sends and what its ``state`` shows. A
scenario concerns a desktop that declares provider-behavior-v1 in its own hello (else not applicable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...hook import DEFAULT_TELEGRAM_BEHAVIOR, MessageType, make_provider_behavior_state
from .providers import ProviderChecks, checked_providers
from .session import DesktopSession
from .state import StateChecks

__all__ = ["BehaviorChecks"]

_FEATURE = "provider-behavior-v1"
#: provider.behavior.set keys that select, not change (§5 阶段 19): the rest is the patch.
_SELECTOR_KEYS = ("requestId", "bindingId", "provider")


def _body(binding_id: str, change: dict[str, Any]) -> dict[str, Any]:
    """The ``behavior-set`` body of a change written in wire form (the globals under ``set``)."""
    body: dict[str, Any] = {"bindingId": binding_id, "set": {k: v for k, v in change.items() if k != "groupActivation"}}
    if "groupActivation" in change:
        body["groupActivation"] = change["groupActivation"]
    return body


@dataclass(eq=False)
class BehaviorChecks:
    """The Telegram behaviour operations of a desktop scenario, over the session, its control ``state`` (``state``)
    and the provider families' bookkeeping (``providers``)."""

    session: DesktopSession
    state: StateChecks
    providers: ProviderChecks

    def try_behavior_get(self, binding: str) -> None:
        self.providers.require_hello(_FEATURE)
        self.providers.user_try("behavior-get", {"bindingId": self.providers.pid("binding", binding)})

    def try_behavior_set(self, binding: str, change: dict[str, Any]) -> None:
        self.providers.require_hello(_FEATURE)
        self.providers.user_try("behavior-set", _body(self.providers.pid("binding", binding), change))

    def behavior_get(self, binding: str) -> None:
        self.providers.require_hello(_FEATURE)
        self.providers.user_call("behavior-get", {"bindingId": self.providers.pid("binding", binding)})

    def behavior_set(self, binding: str, change: dict[str, Any]) -> None:
        self.providers.require_hello(_FEATURE)
        self.providers.user_call("behavior-set", _body(self.providers.pid("binding", binding), change))

    def push_behavior_state(self, binding: str, emoji: str) -> None:
        """A bound provider.behavior.state whose emoji reactions are ``emoji`` (the rest the factory default)."""
        self.providers.require_hello(_FEATURE)
        self.session.server.send_message(make_provider_behavior_state(
            self.providers.pid("binding", binding), True, "telegram", None, emoji,
            DEFAULT_TELEGRAM_BEHAVIOR["replyQuoteDm"], DEFAULT_TELEGRAM_BEHAVIOR["replyQuoteGroup"], {}))

    def push_malformed_behavior_states(self, binding: str) -> None:
        """States that fail the core's checks (§5 阶段 19) and would change what is shown if taken: a null global
        field, an unknown value, bound=false with a non-default value, a group map with a positive chat id, a
        scopeId in place of the bindingId, a payload that is not an object."""
        self.providers.require_hello(_FEATURE)
        bid = self.providers.pid("binding", binding)
        good: dict[str, Any] = {"provider": "telegram", "bindingId": bid, "replyTo": None, "bound": True,
                                "emojiReactions": "expressive", "replyQuoteDm": "first", "replyQuoteGroup": "all",
                                "groupActivation": {}}
        frames = [
            {**good, "emojiReactions": None},
            {**good, "replyQuoteGroup": "sometimes"},
            {**good, "bound": False},
            {**good, "groupActivation": {"1001234567890": "always"}},
            {**{k: v for k, v in good.items() if k != "bindingId"}, "scopeId": bid},
            {**good, "provider": "x"},
        ]
        for i, payload in enumerate(frames):
            self.session.server.send_frame({"v": 1, "type": "provider.behavior.state", "id": f"garbage-{i}", "ts": 1,
                                            "payload": payload})
        self.session.server.send_frame({"v": 1, "type": "provider.behavior.state", "id": "garbage-x", "ts": 1,
                                        "payload": "expressive"})

    def check_behavior_get(self, binding: str) -> None:
        """§5 阶段 19 "按 provider(目前仅 telegram)+ 必填 bindingId 拉取一份 Telegram 行为配置;requestId 配对"."""
        rid = self.providers.answered_request_id("behavior-get")
        get = self.session.server.expect_payload(MessageType.PROVIDER_BEHAVIOR_GET.value,
                                                 where=lambda p: p.request_id == rid, what=f"requestId {rid}")
        assert get.binding_id == self.providers.pid("binding", binding) and get.provider == "telegram", (
            f"provider.behavior.get selects {get.to_wire()!r}")

    def check_behavior_set(self, binding: str, change: dict[str, Any]) -> None:
        """§5 阶段 19: the patch is exactly what the user changed: explicit values kept (even the default), null for a
        reset, untouched keys absent."""
        rid = self.providers.answered_request_id("behavior-set")
        frame = self.session.server.expect_payload(MessageType.PROVIDER_BEHAVIOR_SET.value,
                                                   where=lambda p: p.request_id == rid, what=f"requestId {rid}")
        assert frame.binding_id == self.providers.pid("binding", binding) and frame.provider == "telegram", (
            f"provider.behavior.set selects {frame.to_wire()!r}")
        got = {k: v for k, v in frame.to_wire().items() if k not in _SELECTOR_KEYS}
        assert got == change, f"provider.behavior.set carries {got!r}, not exactly the user's change {change!r}"

    def _behavior_entry(self, state: dict[str, Any], binding: str) -> dict[str, Any] | None:
        checked_providers(state, "telegram")
        bid = self.providers.pid("binding", binding)
        return next((e for e in state["behavior"] if isinstance(e, dict) and e.get("bindingId") == bid), None)

    def check_behavior_shown(self, binding: str, emoji: str) -> None:
        self.state.poll_state(lambda s: (e := self._behavior_entry(s, binding)) is not None
                              and e.get("emojiReactions") == emoji,
                              f"the behaviour of {binding!r} with emoji {emoji!r}")

    def check_no_behavior(self, binding: str) -> None:
        """阶段 19 "desktop 侧维持旧行为(… 也不渲染 state)": after a pong, no entry for ``binding``."""
        self.session.barrier()
        entry = self._behavior_entry(self.state.state(), binding)
        assert entry is None, f"the desktop renders a behaviour state the connection did not negotiate: {entry!r}"
