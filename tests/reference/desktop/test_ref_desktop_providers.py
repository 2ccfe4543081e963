"""Unit tests of the reference desktop's provider families (pure modules and the machine's routing): provider binding,
provider preferences, Telegram behaviour (slack-hook-protocol.md §2, §5 Provider-neutral, 阶段 19)."""

from __future__ import annotations

import json
import uuid
from itertools import count

import pytest

from simulator.hook import (
    make_provider_behavior_state,
    make_provider_bind_state,
    make_provider_bind_update,
    make_provider_prefs_state,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.hook import ProviderWorkspacePrefsEntry
from simulator.reference.desktop.behavior import behavior_on, set_fields
from simulator.reference.desktop.machine import CONSUMED_FEATURES, DesktopMachine, Send
from simulator.reference.desktop.provider_bindings import Refused, channel_on, link_ok, prefs_on
from simulator.reference.broken import cases
from simulator.reference.broken.desktop.select import make_machine

#: The variants of simulator/reference/broken/desktop/providers.py.
PROVIDER_VARIANTS = sorted({c.name for c in cases("desktop")
                            if c.target.__module__.endswith(".broken.desktop.providers")})

ALL = ("provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1", "provider:telegram", "provider:x")
HELLO = ("provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1")
GOOD = "https://t.me/conformance_bot?start=tok-1"


def machine(features=ALL, variant=None) -> DesktopMachine:
    ids = count()
    m = make_machine(variant, workspaces={"proj": "/abs/proj"}, ids=lambda: str(uuid.UUID(int=next(ids), version=4)))
    m.on_connected(0)
    assert m.on_frame(serialize_hook_message(make_welcome("s", tuple(features))), 1) == []
    return m


def sent(effects) -> list[tuple[str, dict]]:
    out = []
    for e in effects:
        assert isinstance(e, Send)
        frame = json.loads(e.text)
        assert parse_hook_message(e.text).ok, e.text
        out.append((frame["type"], frame["payload"]))
    return out


def status(frame=make_provider_bind_update, provider="telegram", state="pending", **kw) -> str:
    fields = {"reply_to": None, "attempt_id": None, "binding_id": None, "principal_id": None, "principal_name": None,
              "scope_id": None, "scope_name": None, "connect_url": None, "expires_at": None, "reason": None,
              "remediation_url": None, "actions": ()}
    fields.update(kw)
    return serialize_hook_message(frame(provider, state, **fields))


def pending(aid="a1", url=GOOD, actions=("cancel",)) -> str:
    return status(attempt_id=aid, connect_url=url, expires_at=5_000, actions=actions)


def confirmed(bid="b1", frame=make_provider_bind_update) -> str:
    return status(frame, state="confirmed", binding_id=bid, principal_id="p", scope_id="s")


# -- pure rules ------------------------------------------------------------------------------------------------------


def test_the_hello_declares_the_provider_features():
    assert set(HELLO) <= set(CONSUMED_FEATURES)


@pytest.mark.parametrize("welcome, on", [
    (ALL, True), (("provider-bind-v1",), False), (("provider:telegram",), False),
    (("provider-bind-v1", "provider:x"), False), (("provider-bind-v1", "provider:telegram"), True),
])
def test_the_channel_needs_the_feature_and_the_provider(welcome, on):
    assert channel_on("telegram", HELLO, welcome) is on
    assert channel_on("telegram", (), welcome) is False  # hello side missing


def test_prefs_need_their_own_feature_and_the_provider():
    assert prefs_on("x", HELLO, ("provider-prefs-v1", "provider:x"))
    assert not prefs_on("x", HELLO, ("provider-bind-v1", "provider:x"))
    assert not prefs_on("x", HELLO, ("provider-prefs-v1", "provider:telegram"))


@pytest.mark.parametrize("url, ok", [
    (GOOD, True), ("https://t.me/abcde?start=-_x", False), ("https://t.me/AbcBot?start=-_x", True),
    ("https://t.me/abcd?start=tok", False),                    # bot too short
    ("https://t.me/conformance_bot?start=tok&x=1", False),
    ("https://t.me/conformance_bot?start=tok#f", False),
    ("https://t.me:443/conformance_bot?start=tok", False),
    ("https://u@t.me/conformance_bot?start=tok", False),
    ("http://t.me/conformance_bot?start=tok", False),
    ("https://telegram.me/conformance_bot?start=tok", False),
    ("https://t.me/conformance_bot?start=tok\n", False),
    ("https://t.me/conformance_bot?start=" + "a" * 65, False),
])
def test_the_telegram_allowlist(url, ok):
    assert link_ok("telegram", url) is ok


@pytest.mark.parametrize("url, ok", [
    ("https://x.com/i/oauth?x=1", True), ("https://twitter.com/a", True), ("http://x.com/a", False),
    ("https://x.com:8443/a", False), ("https://u@x.com/a", False), ("https://evil.com/x.com", False),
])
def test_the_x_allowlist(url, ok):
    assert link_ok("x", url) is ok


def test_behavior_needs_both_sides():
    assert behavior_on(HELLO, ("provider-behavior-v1",))
    assert not behavior_on((), ("provider-behavior-v1",))
    assert not behavior_on(HELLO, ())


def test_set_fields_keeps_explicit_values_and_nulls_and_nothing_else():
    assert set_fields({"emojiReactions": "minimal", "replyQuoteGroup": None}, None) == {
        "emoji_reactions": "minimal", "reply_quote_group": None}
    with pytest.raises(Refused):
        set_fields({}, None)
    with pytest.raises(Refused):
        set_fields({"colour": "red"}, None)


# -- the machine -------------------------------------------------------------------------------------------------------


def test_bind_start_cancel_revoke_frames():
    m = machine()
    rid, eff = m.provider_bind("telegram", "scope-1", 2)
    assert sent(eff) == [("provider.bind.start", {"requestId": rid, "provider": "telegram", "scopeId": "scope-1"})]
    _, eff = m.provider_bind("x", None, 2)
    assert "scopeId" not in sent(eff)[0][1]
    m.on_frame(pending("a1"), 3)
    m.on_frame(pending("a2"), 3)
    (kind, payload), = sent(m.provider_cancel("telegram", "a1", 4))
    assert kind == "provider.bind.cancel" and payload["attemptId"] == "a1"
    (kind, payload), = sent(m.provider_revoke("telegram", "b1", 4))
    assert kind == "provider.bind.revoke" and payload["bindingId"] == "b1"


@pytest.mark.parametrize("features", [("provider-bind-v1",), ("provider:telegram",), ()])
def test_a_hidden_channel_refuses_and_takes_nothing(features):
    m = machine(features)
    with pytest.raises(Refused) as exc:
        m.provider_bind("telegram", None, 2)
    assert exc.value.code == "channel-hidden"
    m.on_frame(confirmed(), 3)
    assert m.state(4)["providers"]["telegram"] == {"visible": False, "attempts": [], "bindings": []}
    assert m.provider_book.bindings["telegram"] == {}


def test_offline_is_refused_first():
    m = machine()
    m.on_disconnected(5)
    for call in (lambda: m.provider_bind("telegram", None, 6), lambda: m.behavior_get("b1", 6)):
        with pytest.raises(Refused) as exc:
            call()
        assert exc.value.code == "offline"


def test_attempts_links_and_actions_are_shown_as_the_rules_say():
    m = machine()
    m.on_frame(pending("a1", actions=("cancel", "summon_dragon")), 2)
    m.on_frame(pending("a2", url=GOOD + "&x=1"), 2)
    shown = {a["attemptId"]: a for a in m.state(3)["providers"]["telegram"]["attempts"]}
    assert shown["a1"]["connectUrl"] == GOOD and shown["a1"]["linkRejected"] is False
    assert shown["a1"]["actions"] == ["cancel"]
    assert shown["a2"]["connectUrl"] is None and shown["a2"]["linkRejected"] is True


def test_bindings_take_the_latest_snapshot():
    m = machine()
    m.on_frame(confirmed("b1"), 2)
    m.on_frame(status(make_provider_bind_state, state="superseded", binding_id="b1", reason="r"), 3)
    (b,) = m.state(4)["providers"]["telegram"]["bindings"]
    assert b["bindingId"] == "b1" and b["state"] == "superseded"


def test_malformed_frames_change_nothing():
    m = machine()
    m.on_frame(confirmed("b1"), 2)
    before = m.state(3)
    bad = json.loads(confirmed("b1"))
    bad["payload"].update(state="revoked", principalId=None, scopeId=None)  # revoked without its reason
    assert m.on_frame(json.dumps(bad), 4) == []
    assert m.on_frame("{", 4) == []
    assert m.state(5) == before


def test_prefs_selector_alias_and_state():
    m = machine()
    with pytest.raises(Refused):
        m.provider_prefs_get("telegram", "b1", "s1", 2)
    with pytest.raises(Refused) as exc:
        m.provider_prefs_set("telegram", "b1", None, "/abs/proj", {"model": "m"}, 2)
    assert exc.value.code == "not-found"
    _, eff = m.provider_prefs_set("telegram", "b1", None, "proj", {"model": "m", "effort": None}, 2)
    (_, payload), = sent(eff)
    assert payload["workspace"] == "proj" and payload["model"] == "m" and payload["effort"] is None
    assert "agentKind" not in payload
    entry = ProviderWorkspacePrefsEntry("chat", "m")
    m.on_frame(serialize_hook_message(make_provider_prefs_state("telegram", True, "b1", None, None, (entry,))), 3)
    m.on_frame(serialize_hook_message(make_provider_prefs_state("telegram", False, "b1", None, None, ())), 4)
    (shown,) = m.state(5)["providerPrefs"]
    assert shown["bound"] is False and shown["prefs"] == []


def behavior_state(emoji="off") -> str:
    return serialize_hook_message(make_provider_behavior_state("b1", True, "telegram", None, emoji, "off", "first", {}))


def test_behavior_off_sends_nothing_and_renders_nothing():
    m = machine(("provider-bind-v1", "provider:telegram"))
    with pytest.raises(Refused) as exc:
        m.behavior_set("b1", {"emojiReactions": "off"}, None, 2)
    assert exc.value.code == "feature-off"
    m.on_frame(behavior_state(), 3)
    assert m.state(4)["behavior"] == []


def test_behavior_on_get_set_and_state():
    m = machine()
    _, eff = m.behavior_set("b1", {"emojiReactions": "minimal"}, {"chatId": "-100123", "value": None}, 2)
    (_, payload), = sent(eff)
    assert payload["emojiReactions"] == "minimal" and payload["groupActivation"] == {"chatId": "-100123",
                                                                                     "value": None}
    assert "replyQuoteDm" not in payload
    with pytest.raises(Refused):
        m.behavior_set("b1", {}, {"chatId": "42", "value": "always"}, 2)  # not a group id: the check refuses it
    m.on_frame(behavior_state("expressive"), 3)
    (shown,) = m.state(4)["behavior"]
    assert shown["emojiReactions"] == "expressive" and shown["groupActivation"] == {}


@pytest.mark.parametrize("variant", PROVIDER_VARIANTS)
def test_each_provider_variant_breaks_its_rule(variant):
    m = machine(("provider-bind-v1", "provider:telegram") if variant == "behavior-without-feature"
                else ("provider:x",) if variant == "provider-without-feature" else ALL, variant)
    if variant == "provider-without-feature":
        assert sent(m.provider_bind("telegram", None, 2)[1])
    elif variant == "telegram-url-unchecked":
        m.on_frame(pending(url=GOOD + "&x=1"), 2)
        assert m.state(3)["providers"]["telegram"]["attempts"][0]["connectUrl"] == GOOD + "&x=1"
    elif variant == "unknown-action-drops-frame":
        m.on_frame(pending(actions=("summon_dragon",)), 2)
        assert m.state(3)["providers"]["telegram"]["attempts"] == []
    elif variant == "cancel-all-attempts":
        m.on_frame(pending("a1"), 2)
        m.on_frame(pending("a2"), 2)
        assert len(m.provider_cancel("telegram", "a1", 3)) == 2
    elif variant == "prefs-path-instead-of-alias":
        (eff,) = m.provider_prefs_set("telegram", "b1", None, "proj", {"model": "m"}, 2)[1]
        assert json.loads(eff.text)["payload"]["workspace"] == "/abs/proj"
    elif variant == "behavior-omits-default":
        (_, payload), = sent(m.behavior_set("b1", {"emojiReactions": "minimal", "replyQuoteDm": "first"}, None, 2)[1])
        assert "emojiReactions" not in payload
    elif variant == "provider-prefs-state-merged":
        for ws in ("chat", "other"):
            entry = ProviderWorkspacePrefsEntry(ws, "m")
            m.on_frame(serialize_hook_message(make_provider_prefs_state("telegram", True, "b1", None, None, (entry,))),
                       2)
        assert len(m.state(3)["providerPrefs"][0]["prefs"]) == 2
    elif variant == "lenient-provider-frames":
        bad = json.loads(confirmed("b1"))
        bad["payload"]["attemptId"] = "a9"  # confirmed naming an attempt: the core refuses it
        m.on_frame(json.dumps(bad), 2)
        assert m.state(3)["providers"]["telegram"]["bindings"]
    elif variant == "provider-start-scope-dropped":
        (_, payload), = sent(m.provider_bind("telegram", "group-42", 2)[1])
        assert payload.get("scopeId") is None
    elif variant == "revoke-all-bindings":
        m.on_frame(confirmed("b1"), 2)
        m.on_frame(confirmed("b2"), 2)
        assert [p["bindingId"] for _, p in sent(m.provider_revoke("telegram", "b1", 3))] == ["b1", "b2"]
    elif variant == "telegram-link-hidden":
        m.on_frame(pending(), 2)
        (attempt,) = m.state(3)["providers"]["telegram"]["attempts"]
        assert (attempt["connectUrl"], attempt["linkRejected"]) == (None, True)
    elif variant == "telegram-link-scheme-unchecked":
        bad = json.loads(pending())
        bad["payload"]["connectUrl"] = "http://t.me/conformance_bot?start=tok-1"  # the core refuses http
        m.on_frame(json.dumps(bad), 2)
        (attempt,) = m.state(3)["providers"]["telegram"]["attempts"]
        assert attempt["connectUrl"] == "http://t.me/conformance_bot?start=tok-1"
    elif variant == "binding-end-ignored":
        m.on_frame(confirmed("b1"), 2)
        m.on_frame(status(state="revoked", binding_id="b1", principal_id="p", scope_id="s", reason="user"), 3)
        assert m.state(4)["providers"]["telegram"]["bindings"][0]["state"] == "confirmed"
    elif variant == "provider-prefs-without-feature":
        m = machine(("provider-bind-v1", "provider:telegram"), variant)  # no provider-prefs-v1 in welcome
        (eff,) = m.provider_prefs_get("telegram", "b1", None, 2)[1]
        assert json.loads(eff.text)["type"] == "provider.prefs.get"
    elif variant == "prefs-selector-both":
        (eff,) = m.provider_prefs_get("telegram", "b1", None, 2)[1]
        payload = json.loads(eff.text)["payload"]
        assert (payload["bindingId"], payload["scopeId"]) == ("b1", "b1") and not parse_hook_message(eff.text).ok
    elif variant == "lenient-provider-prefs":
        bad = json.loads(serialize_hook_message(make_provider_prefs_state(
            "telegram", True, "b1", None, None, (ProviderWorkspacePrefsEntry("chat", "m"),))))
        bad["payload"]["prefs"][0]["teamId"] = "T1"  # provider-neutral entries carry no teamId: the core refuses it
        m.on_frame(json.dumps(bad), 2)
        assert m.state(3)["providerPrefs"][0]["prefs"][0]["teamId"] == "T1"
    elif variant == "behavior-get-without-binding":
        (eff,) = m.behavior_get("b1", 2)[1]
        assert "bindingId" not in json.loads(eff.text)["payload"] and not parse_hook_message(eff.text).ok
    elif variant == "group-activation-as-map":
        (eff,) = m.behavior_set("b1", {}, {"chatId": "-100123", "value": "always"}, 2)[1]
        assert json.loads(eff.text)["payload"]["groupActivation"] == {"-100123": "always"}
    elif variant == "behavior-state-first-kept":
        m.on_frame(behavior_state("off"), 2)
        m.on_frame(behavior_state("expressive"), 3)
        assert m.state(4)["behavior"][0]["emojiReactions"] == "off"
    elif variant == "lenient-behavior-states":
        bad = json.loads(behavior_state("off"))
        bad["payload"]["emojiReactions"] = None  # an effective value is never null: the core refuses it
        m.on_frame(json.dumps(bad), 2)
        assert m.state(3)["behavior"][0]["emojiReactions"] is None
    else:
        assert variant == "behavior-without-feature"
        assert sent(m.behavior_get("b1", 2)[1])
