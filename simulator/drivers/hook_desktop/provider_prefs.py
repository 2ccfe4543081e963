"""Provider preferences at a desktop under test (slack-hook-protocol.md §2 provider 偏好隔离 / workspace 是别名, §5
Provider-neutral 绑定与偏好 provider.prefs.*; docs/control-api.md "Bindings and preferences (desktop)":
``provider-prefs-get``, ``provider-prefs-set``, ``state.providerPrefs``).

The harness plays the server (provider.prefs.state, valid or malformed) and the desktop's user; it judges the
provider.prefs.get / set frames (exactly one selector, the workspace's alias, exactly the keys changed) and what the
``state`` shows per selector. A desktop without provider-prefs-v1 in its own hello makes a scenario not applicable.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...hook import MessageType, ProviderWorkspacePrefsEntry, make_provider_prefs_state
from ...roles.hook_conn import from_dict
from .providers import ProviderChecks, checked_providers
from .session import DesktopSession
from .state import StateChecks

__all__ = ["ProviderPrefsChecks"]


@dataclass(eq=False)
class ProviderPrefsChecks:
    """The provider preference operations of a desktop scenario, over the session, its control ``state``
    (``state``) and the provider families' bookkeeping (``providers``)."""

    session: DesktopSession
    state: StateChecks
    providers: ProviderChecks

    def _selector(self, selector: str, name: str) -> dict[str, str]:
        assert selector in ("binding", "scope"), f"unknown selector {selector!r} in the feature"
        return {f"{selector}Id": self.providers.pid(selector, name)}

    def try_provider_prefs_get(self, provider: str, binding: str) -> None:
        self.providers.require_hello("provider-prefs-v1")
        self.providers.user_try("provider-prefs-get", {"provider": provider, **self._selector("binding", binding)})

    def provider_prefs_get(self, provider: str, selector: str, name: str) -> None:
        self.providers.require_hello("provider-prefs-v1")
        self.providers.user_call("provider-prefs-get", {"provider": provider, **self._selector(selector, name)})

    def provider_prefs_set(self, provider: str, binding: str, workspace: str, changes: dict[str, Any]) -> None:
        self.providers.require_hello("provider-prefs-v1")
        self.providers.user_call("provider-prefs-set", {"provider": provider, **self._selector("binding", binding),
                                                        "workspace": workspace, "set": changes})

    def try_provider_prefs_set_path(self, provider: str, binding: str, alias: str, changes: dict[str, Any]) -> None:
        """The user names the folder of ``alias`` by its absolute path (the answer is not judged: what the desktop
        sends is, by ``check_no_local_paths``)."""
        self.providers.require_hello("provider-prefs-v1")
        self.providers.user_try("provider-prefs-set", {"provider": provider, **self._selector("binding", binding),
                                                       "workspace": str(self.session.tmp / alias), "set": changes})

    def push_prefs_state(self, provider: str, binding: str, entry: Mapping[str, Any] | None) -> None:
        """provider.prefs.state for ``binding``: one entry, or ``bound`` false (no entries) when ``entry`` is None."""
        self.providers.require_hello("provider-prefs-v1")
        prefs = () if entry is None else (from_dict(ProviderWorkspacePrefsEntry, dict(entry)),)
        self.session.server.send_message(make_provider_prefs_state(
            provider, entry is not None, self.providers.pid("binding", binding), None, None, prefs))

    def push_malformed_prefs_states(self, binding: str) -> None:
        """provider.prefs.state frames that fail the core's checks and would change what is shown if taken: an entry
        with the Slack ``teamId``, both selectors, bound=false with entries, a workspace that is a path, an unknown
        provider, entries that are not a list."""
        self.providers.require_hello("provider-prefs-v1")
        bid = self.providers.pid("binding", binding)
        entry = {"workspace": "garbage", "model": "m-garbage", "effort": None, "agentKind": None,
                 "permissionMode": None}
        good = {"provider": "telegram", "bindingId": bid, "scopeId": None, "replyTo": None, "bound": True,
                "prefs": [entry]}
        frames = [
            {**good, "prefs": [{**entry, "teamId": "T1"}]},
            {**good, "scopeId": "s-1"},
            {**good, "bound": False},
            {**good, "prefs": [{**entry, "workspace": str(self.session.tmp / "garbage")}]},
            {**good, "provider": "myspace"},
            {**good, "prefs": entry},
        ]
        for i, payload in enumerate(frames):
            self.session.server.send_frame({"v": 1, "type": "provider.prefs.state", "id": f"garbage-{i}", "ts": 1,
                                            "payload": payload})

    def check_provider_prefs_get(self, provider: str, selector: str, name: str) -> None:
        """§5 "用 provider 与且仅一个 bindingId/scopeId 选择偏好域": the named selector, the other one null."""
        rid = self.providers.answered_request_id("provider-prefs-get")
        get = self.providers.expect_sent(MessageType.PROVIDER_PREFS_GET, f"requestId {rid}", request_id=rid)
        want = {"binding": None, "scope": None, selector: self.providers.pid(selector, name)}
        got = {"binding": get.binding_id, "scope": get.scope_id}
        assert get.provider == provider, f"provider.prefs.get names provider {get.provider!r}"
        assert got == want, f"provider.prefs.get selects bindingId {got['binding']!r} / scopeId {got['scope']!r}, " \
                            f"not only the {selector} {name!r}"

    def check_provider_prefs_set(self, provider: str, binding: str, workspace: str, changes: dict[str, Any]) -> None:
        """§5 "set 再按 workspace alias 部分更新，校验器拒绝绝对路径": the alias itself, exactly the keys changed."""
        rid = self.providers.answered_request_id("provider-prefs-set")
        frame = self.providers.expect_sent(MessageType.PROVIDER_PREFS_SET, f"requestId {rid}", request_id=rid)
        assert frame.provider == provider and frame.binding_id == self.providers.pid("binding", binding) \
            and frame.scope_id is None, f"provider.prefs.set selects {frame.to_wire()!r}"
        assert frame.workspace == workspace, f"provider.prefs.set names workspace {frame.workspace!r}, not the alias " \
                                             f"{workspace!r}"
        wire = frame.to_wire()
        got = {k: v for k, v in wire.items() if k not in ("requestId", "provider", "workspace", "bindingId", "scopeId")}
        assert got == changes, f"provider.prefs.set carries {got!r}, not exactly the user's changes {changes!r}"

    def _prefs_entry(self, state: dict[str, Any], provider: str, binding: str) -> dict[str, Any] | None:
        checked_providers(state, provider)
        bid = self.providers.pid("binding", binding)
        return next((e for e in state["providerPrefs"] if isinstance(e, dict) and e.get("provider") == provider
                     and e.get("bindingId") == bid), None)

    def check_prefs_shown(self, provider: str, binding: str, entry: dict[str, Any]) -> None:
        self.state.poll_state(lambda s: (e := self._prefs_entry(s, provider, binding)) is not None
                              and e.get("prefs") == [entry], f"the {provider} preferences of {binding!r} as {entry!r}")

    def check_no_prefs(self, provider: str, binding: str) -> None:
        self.state.poll_state(lambda s: (e := self._prefs_entry(s, provider, binding)) is None or e.get("prefs") == [],
                              f"no {provider} preferences for {binding!r}")

