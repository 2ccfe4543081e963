"""``simulator.drivers.hook_desktop.providers`` / ``behavior``: the judgements of the provider families (slack-hook-
protocol.md §2, §5 Provider-neutral, 阶段 19; docs/control-api.md "Bindings and preferences (desktop)"), on fakes (no
network)."""

from __future__ import annotations

from typing import Any

import pytest
from test_hook_desktop_fakes import FakeControl, FakeServer, documented_state, make_driver

from simulator.drivers.hook_desktop.providers import checked_providers
from simulator.errors import NotApplicable, SubjectRefused
from simulator.hook import (
    make_pong,
    make_provider_behavior_set,
    make_provider_bind_start,
    make_provider_prefs_set,
)

HELLO = ("provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1")


IN_STATE = r"to state does not match docs/desktop-control-api\.schema\.json \(\$defs/state\.response\)"


def _state(telegram: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    state = documented_state(**changes)
    if telegram is not None:
        state["providers"]["telegram"] = telegram
    return state


def _binding(binding_id: str) -> dict[str, Any]:
    return {"bindingId": binding_id, "principalId": "p", "principalName": None, "scopeId": "s", "scopeName": None,
            "state": "confirmed"}


def _driver(answers: dict[str, Any] | None = None, hello: tuple[str, ...] = HELLO):
    server = FakeServer(desktop_features=hello)
    server.answer = lambda what, args, kwargs: [make_pong()] if what == "ping" else []
    return make_driver(server, FakeControl(answers)), server


def _refusal(status: int, code: str) -> Any:
    def refuse(body: Any) -> Any:
        raise SubjectRefused("refused", status=status, body="{}", code=code)
    return refuse


def test_a_desktop_without_the_feature_in_hello_is_not_applicable():
    desk, _ = _driver(hello=())
    with pytest.raises(NotApplicable):
        desk.providers.try_provider_bind("telegram")
    with pytest.raises(NotApplicable):
        desk.behavior.behavior_get("b1")


def test_the_expected_refusal_passes_and_anything_else_fails():
    desk, _ = _driver({"provider-bind": _refusal(409, "channel-hidden")})
    desk.providers.try_provider_bind("telegram")
    desk.providers.check_refused("channel-hidden")
    with pytest.raises(AssertionError, match="not 409 'feature-off'"):
        desk.providers.check_refused("feature-off")
    desk, _ = _driver({"provider-bind": {"ok": True, "requestId": "r1"}})
    desk.providers.try_provider_bind("telegram")
    with pytest.raises(AssertionError, match="accepted provider-bind"):
        desk.providers.check_refused("channel-hidden")


def test_bind_start_is_judged_by_its_request_id_provider_and_scope():
    desk, server = _driver({"provider-bind": {"ok": True, "requestId": "r1"}})
    desk.providers.provider_bind("telegram", "scope-1")
    server.receive(make_provider_bind_start("r1", "telegram", "scope-1"))
    desk.providers.check_provider_bind_start("telegram", "scope-1")
    server.receive(make_provider_bind_start("r1", "telegram"))
    with pytest.raises(AssertionError, match="scopeId None, not 'scope-1'"):
        desk.providers.check_provider_bind_start("telegram", "scope-1")


def test_prefs_set_must_carry_the_alias_and_exactly_the_changes():
    desk, server = _driver({"provider-prefs-set": {"ok": True, "requestId": "r1"}})
    desk.provider_prefs.provider_prefs_set("telegram", "b1", "proj", {"model": "m"})
    bid = desk.providers.pid("binding", "b1")
    server.receive(make_provider_prefs_set("r1", "telegram", "proj", bid, None, model="m", effort=None))
    with pytest.raises(AssertionError, match="not exactly the user's changes"):
        desk.provider_prefs.check_provider_prefs_set("telegram", "b1", "proj", {"model": "m"})
    server.receive(make_provider_prefs_set("r1", "telegram", "/abs/proj", bid, None, model="m", validate=False))
    with pytest.raises(AssertionError, match="invalid"):
        desk.provider_prefs.check_provider_prefs_set("telegram", "b1", "proj", {"model": "m"})


def test_behavior_set_must_keep_an_explicit_default():
    desk, server = _driver({"behavior-set": {"ok": True, "requestId": "r1"}})
    desk.behavior.behavior_set("b1", {"emojiReactions": "minimal", "replyQuoteGroup": None})
    server.receive(make_provider_behavior_set("r1", desk.providers.pid("binding", "b1"), reply_quote_group=None))
    with pytest.raises(AssertionError, match="not exactly the user's change"):
        desk.behavior.check_behavior_set("b1", {"emojiReactions": "minimal", "replyQuoteGroup": None})


def test_a_state_without_the_provider_fields_is_malformed():
    assert checked_providers(_state(), "telegram") == {"visible": False, "attempts": [], "bindings": []}
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /providers: 'telegram' is a required property"):
        checked_providers({"providers": {}, "providerPrefs": [], "behavior": []}, "telegram")
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /providerPrefs: None is not of type 'array'"):
        checked_providers(_state(providerPrefs=None), "telegram")
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /providers/telegram/bindings/0: 'principalId' is a"):
        checked_providers(_state({"visible": True, "attempts": [], "bindings": [{"bindingId": "b1"}]}), "telegram")
    with pytest.raises(AssertionError, match=rf"{IN_STATE} at /: 'behavior' is a required property"):
        checked_providers({k: v for k, v in _state().items() if k != "behavior"}, "telegram")


def test_a_hidden_channel_must_say_so_and_show_nothing_of_the_scenario():
    desk, _ = _driver({"state": _state({"visible": True, "attempts": [], "bindings": []})})
    with pytest.raises(AssertionError, match="shows the telegram channel"):
        desk.providers.check_channel_hidden("telegram")
    desk, _ = _driver()
    bid = desk.providers.pid("binding", "b1")
    desk.session.control.answers["state"] = _state({"visible": False, "attempts": [], "bindings": [_binding(bid)]})
    with pytest.raises(AssertionError, match="hidden telegram channel's frames"):
        desk.providers.check_channel_hidden("telegram")
    desk.session.control.answers["state"] = _state()
    desk.providers.check_channel_hidden("telegram")


def test_a_rejected_link_must_be_null_and_flagged():
    desk, _ = _driver()
    aid = desk.providers.pid("attempt", "a1")
    attempt = {"attemptId": aid, "state": "pending", "connectUrl": "https://t.me/x?start=1&y=2", "linkRejected": False,
               "expiresAt": 1, "actions": []}
    desk.session.control.answers["state"] = _state({"visible": True, "attempts": [attempt], "bindings": []})
    with pytest.raises(AssertionError, match="must not be shown"):
        desk.providers.check_attempt_link_rejected("telegram", "a1")
    with pytest.raises(AssertionError, match="shows the link"):
        desk.providers.check_no_link("telegram", "a1")
