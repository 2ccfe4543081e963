"""Telegram behaviour, driven from the desktop side (spec §5 阶段 19 Telegram 行为配置): provider.behavior.get / set
and the server's provider.behavior.state, with the server's stored overrides read through the control capability
``behavior-overrides`` (docs/control-api.md "Telegram behaviour": the wire shows only effective values, so whether an
explicit value equal to the default was kept is observable only there)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from ...hook import (
    MessageType,
    ProviderBehaviorSetPayload,
    build_hook_message,
    make_provider_behavior_get,
)
from .provider_bindings import ProviderBindingOps
from .scenario import HookServerScenario

__all__ = ["BehaviorOps"]


@dataclass(eq=False)
class BehaviorOps:
    """Telegram behaviour (spec §5 阶段 19), over the scenario (``scenario``) and the provider bindings it names
    (``provider_bindings``)."""

    scenario: HookServerScenario
    provider_bindings: ProviderBindingOps

    def _behavior_id(self, ref: str) -> str:
        """A binding the scenario named, else a bindingId the device never held (``ref`` itself)."""
        return self.provider_bindings.pstate.bindings.get(ref, f"sim-unbound-{ref}")

    def _behavior_state(self, dev: str, rid: str) -> Any:
        entry = self.scenario.device(dev).role.expect(lambda e: e.type == MessageType.PROVIDER_BEHAVIOR_STATE.value
                                                      and (not e.ok or e.payload.reply_to == rid))
        assert entry.ok, f"the server's provider.behavior.state is invalid: {entry.issue}"
        return entry.payload

    def set_behavior(self, dev: str, ref: str, patch: dict[str, Any]) -> None:
        """provider.behavior.set with the wire ``patch`` (absent keys stay absent); the state answering it."""
        rid = f"sim-{uuid.uuid4()}"
        wire = {"requestId": rid, "provider": "telegram", "bindingId": self._behavior_id(ref), **patch}
        msg = build_hook_message(ProviderBehaviorSetPayload.from_wire(wire))
        self.scenario.device(dev).role.send_message(msg)
        self.provider_bindings.pstate.behavior[dev] = (ref, self._behavior_state(dev, rid))

    def send_empty_behavior_set(self, dev: str, ref: str) -> None:
        """A provider.behavior.set that changes nothing (invalid: "空 set 被拒收")."""
        wire = {"requestId": f"sim-{uuid.uuid4()}", "provider": "telegram", "bindingId": self._behavior_id(ref)}
        msg = build_hook_message(ProviderBehaviorSetPayload.from_wire(wire), validate=False)
        self.scenario.device(dev).role.send_message(msg)
        self.scenario.barrier()

    def ask_behavior_unannounced(self, dev: str, ref: str) -> None:
        """``provider.behavior.get`` from a device whose family is off: nothing is waited for."""
        msg = make_provider_behavior_get(request_id=f"sim-{uuid.uuid4()}", binding_id=self._behavior_id(ref))
        self.scenario.device(dev).role.send_message(msg)
        self.scenario.barrier()

    def get_behavior(self, dev: str, ref: str) -> None:
        rid = f"sim-{uuid.uuid4()}"
        msg = make_provider_behavior_get(request_id=rid, binding_id=self._behavior_id(ref))
        self.scenario.device(dev).role.send_message(msg)
        self.provider_bindings.pstate.behavior[dev] = (ref, self._behavior_state(dev, rid))

    def expect_behavior(self, dev: str, expected: dict[str, Any]) -> None:
        """The last provider.behavior.state answering the device echoes the bindingId and carries ``expected``
        (wire keys: ``bound``, the three values, ``groupActivation``; the keys it names only)."""
        if dev not in self.provider_bindings.pstate.behavior:
            raise AssertionError(f"device {dev!r} asked for no behaviour in this scenario")
        ref, p = self.provider_bindings.pstate.behavior[dev]
        assert p.binding_id == self._behavior_id(ref), f"provider.behavior.state bindingId {p.binding_id!r}"
        wire = p.to_wire()
        got = {k: wire.get(k) for k in expected}
        assert got == expected, f"provider.behavior.state {got!r}, expected {expected!r}"

    def expect_overrides(self, ref: str, overrides: dict[str, Any]) -> None:
        """The server's stored overrides (``behavior-overrides``): ``overrides`` (each key an override or null;
        ``groupActivation`` the map)."""
        self.scenario.answers.require("behavior-overrides")
        self.scenario.barrier()
        answer = self.scenario.ctl("behavior-overrides", {"bindingId": self.provider_bindings.binding_id(ref)})
        got = {**answer["overrides"], "groupActivation": answer["groupActivation"]}
        want = {"emojiReactions": None, "replyQuoteDm": None, "replyQuoteGroup": None, "groupActivation": {},
                **overrides}
        assert got == want, f"the server keeps the overrides {got!r}, expected {want!r}"
