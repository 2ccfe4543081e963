"""The reference hook server's provider families (docs/control-api.md "Bindings and preferences (hook-server)"):
provider.bind.*, provider.prefs.*, provider.behavior.*, through the sans-I/O machine and the pure modules.
Expected values are literals from the spec and the contract."""

from __future__ import annotations

import re

import pytest
from hookserver_rig import Rig

from simulator.hook import (
    make_provider_behavior_get,
    make_provider_behavior_set,
    make_provider_bind_cancel,
    make_provider_bind_revoke,
    make_provider_bind_start,
    make_provider_prefs_get,
    make_provider_prefs_set,
)
from simulator.reference.hookserver.machine import MachineError

PROVIDER = ("turn-delivery-v1", "provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1",
            "provider:telegram", "provider:x")
HELLO = ("turn-delivery-v1", "provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1")


def rig(**kw) -> Rig:
    hello = kw.pop("hello", HELLO)
    r = Rig(features=kw.pop("features", PROVIDER), **kw)
    r.hello("c1", "d1", features=hello)
    return r


def start(r: Rig, conn: str = "c1", rid: str = "b1", provider: str = "telegram", **kw) -> dict:
    r.send(conn, make_provider_bind_start(request_id=rid, provider=provider, **kw))
    return r.frames(conn, "provider.bind.update")[-1]


def token_of(update: dict) -> str:
    return update["connectUrl"].split("=", 1)[1]


def bind_by_start(r: Rig, conn: str = "c1", chat: str = "4242", user: str = "777") -> dict:
    pending = start(r, conn)
    answer = r.inject(provider="telegram", chatId=chat, userId=user, userName="Ann", text=f"/start {token_of(pending)}")
    assert answer == {"ok": True, "kind": "bind", "requestId": None, "messageId": None, "externalKey": None}
    return r.frames(conn, "provider.bind.update")[-1]


def test_pending_carries_the_strict_telegram_url_and_ten_minutes():
    r = rig()
    u = start(r)
    assert u["state"] == "pending" and u["replyTo"] == "b1"
    assert re.fullmatch(r"https://t\.me/[A-Za-z0-9_]+\?start=[A-Za-z0-9_-]{1,64}", u["connectUrl"])
    assert u["expiresAt"] == r.now + 600_000
    assert u["actions"] == ["open_connect_url", "copy_connect_url", "cancel"]


def test_start_token_binds_never_dispatches_and_is_never_echoed():
    r = rig()
    confirmed = bind_by_start(r)
    pending = r.frames("c1", "provider.bind.update")[0]
    token = token_of(pending)
    assert confirmed["state"] == "confirmed"
    assert confirmed["principalId"] == "777" and confirmed["scopeId"] == "4242" and confirmed["bindingId"]
    assert not r.frames("c1", "task.dispatch")
    assert [p for _c, _t, p in r.sent if token in str(p)] == [pending]  # the pending update only
    # the token binds once
    r.inject(provider="telegram", chatId="9", userId="8", text=f"/start {token}")
    assert len(r.m.pbook.bindings) == 1


def test_cancel_ends_only_that_attempt_and_keeps_bindings():
    r = rig()
    confirmed = bind_by_start(r)
    a1, a2 = start(r, rid="b2"), start(r, rid="b3")
    r.send("c1", make_provider_bind_cancel(request_id="c", provider="telegram", attempt_id=a1["attemptId"]))
    failed = r.frames("c1", "provider.bind.update")[-1]
    assert failed["state"] == "failed" and failed["reason"] == "cancelled" and failed["attemptId"] == a1["attemptId"]
    assert confirmed["bindingId"] in r.m.pbook.bindings
    r.inject(provider="telegram", chatId="5", userId="6", text=f"/start {token_of(a2)}")
    assert r.frames("c1", "provider.bind.update")[-1]["state"] == "confirmed"
    # cancel again: unknown-attempt, nothing sent
    n = len(r.sent)
    r.send("c1", make_provider_bind_cancel(request_id="c2", provider="telegram", attempt_id=a1["attemptId"]))
    assert len(r.sent) == n and r.dropped("unknown-attempt")


def test_cancel_cancels_all_variant_ends_the_other_attempt_too():
    r = rig(variant="cancel-cancels-all")
    a1, _a2 = start(r, rid="b2"), start(r, rid="b3")
    r.send("c1", make_provider_bind_cancel(request_id="c", provider="telegram", attempt_id=a1["attemptId"]))
    assert [u["state"] for u in r.frames("c1", "provider.bind.update")][-2:] == ["failed", "failed"]


def test_revoke_only_that_binding_superseded_and_state_after_welcome():
    r = rig()
    b1 = bind_by_start(r, chat="100")
    b2 = bind_by_start(r, chat="200")
    r.send("c1", make_provider_bind_revoke(request_id="rv", provider="telegram", binding_id=b1["bindingId"]))
    revoked = r.frames("c1", "provider.bind.update")[-1]
    assert (revoked["state"], revoked["bindingId"], revoked["reason"], revoked["replyTo"]) == \
        ("revoked", b1["bindingId"], "revoked", "rv")
    assert list(r.m.pbook.bindings) == [b2["bindingId"]]
    b3 = bind_by_start(r, chat="200")
    sup = r.frames("c1", "provider.bind.update")[-2]
    assert (sup["state"], sup["bindingId"], sup["reason"]) == ("superseded", b2["bindingId"], "superseded")
    r.hello("c2", "d1", features=HELLO)
    (state,) = r.frames("c2", "provider.bind.state")
    assert state["bindingId"] == b3["bindingId"] and state["state"] == "confirmed"
    r.send("c2", make_provider_bind_revoke(request_id="rv2", provider="telegram", binding_id=b1["bindingId"]))
    assert r.dropped("unknown-binding")


def test_authorize_outcomes_and_expiry():
    r = rig()
    a = start(r)
    answer, eff = r.m.provider_authorize({"attemptId": a["attemptId"], "outcome": "await"}, r.now)
    r.take(eff)
    assert r.frames("c1", "provider.bind.update")[-1]["state"] == "awaiting_confirmation"
    answer, eff = r.m.provider_authorize({"attemptId": a["attemptId"], "outcome": "confirm", "principalId": "p",
                                          "scopeId": "s"}, r.now)
    r.take(eff)
    assert answer["bindingId"] and r.frames("c1", "provider.bind.update")[-1]["bindingId"] == answer["bindingId"]
    with pytest.raises(MachineError) as e:
        r.m.provider_authorize({"attemptId": a["attemptId"], "outcome": "deny"}, r.now)
    assert e.value.status == 409
    for outcome, state in (("deny", "denied"), ("fail", "failed")):
        x = start(r, rid=f"x-{outcome}")
        r.take(r.m.provider_authorize({"attemptId": x["attemptId"], "outcome": outcome}, r.now)[1])
        last = r.frames("c1", "provider.bind.update")[-1]
        assert last["state"] == state and last["reason"]
    y = start(r, rid="y")
    r.advance(600_001)
    last = r.frames("c1", "provider.bind.update")[-1]
    assert (last["state"], last["reason"], last["attemptId"]) == ("expired", "expired", y["attemptId"])


def test_negotiation_off_drops_and_sends_nothing():
    r = rig(hello=("turn-delivery-v1",))
    n = len(r.sent)
    r.send("c1", make_provider_bind_start(request_id="b", provider="telegram"))
    assert len(r.sent) == n and r.dropped("feature-not-declared")
    r2 = rig(features=("provider-bind-v1",))  # no provider:telegram in welcome
    r2.send("c1", make_provider_bind_start(request_id="b", provider="telegram"))
    assert not r2.frames("c1", "provider.bind.update") and r2.dropped("feature-not-declared")


def test_provider_prefs_selector_patch_and_unbound():
    r = rig()
    b = bind_by_start(r)
    r.send("c1", make_provider_prefs_set(request_id="p1", provider="telegram", workspace="chat",
                                         binding_id=b["bindingId"], model="m1", effort="high"))
    r.send("c1", make_provider_prefs_set(request_id="p2", provider="telegram", workspace="chat",
                                         binding_id=b["bindingId"], effort=None))
    s = r.frames("c1", "provider.prefs.state")[-1]
    assert s["replyTo"] == "p2" and s["bound"] is True and s["bindingId"] == b["bindingId"] and s["scopeId"] is None
    assert s["prefs"] == [{"workspace": "chat", "model": "m1", "effort": None, "agentKind": None,
                           "permissionMode": None}]
    r.send("c1", make_provider_prefs_set(request_id="p3", provider="telegram", workspace="chat", scope_id="nope",
                                         model="m2"))
    s = r.frames("c1", "provider.prefs.state")[-1]
    assert s["bound"] is False and s["prefs"] == [] and s["scopeId"] == "nope"
    r.send("c1", make_provider_prefs_get(request_id="p4", provider="telegram", scope_id="4242"))
    assert r.frames("c1", "provider.prefs.state")[-1]["prefs"] == []  # scope rows are not binding rows


def test_behavior_tristate_and_explicit_default():
    r = rig()
    bid = bind_by_start(r)["bindingId"]
    r.send("c1", make_provider_behavior_set(request_id="s1", binding_id=bid, emoji_reactions="minimal",
                                            reply_quote_dm="first"))
    assert r.m.behavior_overrides({"bindingId": bid})["overrides"] == \
        {"emojiReactions": "minimal", "replyQuoteDm": "first", "replyQuoteGroup": None}
    r.send("c1", make_provider_behavior_set(request_id="s2", binding_id=bid, reply_quote_dm=None))
    st = r.frames("c1", "provider.behavior.state")[-1]
    assert (st["emojiReactions"], st["replyQuoteDm"], st["replyQuoteGroup"]) == ("minimal", "off", "first")
    from simulator.hook import GroupActivationPatch
    r.send("c1", make_provider_behavior_set(request_id="s3", binding_id=bid,
                                            group_activation=GroupActivationPatch("-100123", "always")))
    assert r.frames("c1", "provider.behavior.state")[-1]["groupActivation"] == {"-100123": "always"}
    r.send("c1", make_provider_behavior_get(request_id="g", binding_id="other"))
    st = r.frames("c1", "provider.behavior.state")[-1]
    assert st["bound"] is False and st["groupActivation"] == {}


def test_durable_rows_restore():
    r = rig()
    b = bind_by_start(r)
    a = start(r, rid="open")
    r.send("c1", make_provider_behavior_set(request_id="s1", binding_id=b["bindingId"], emoji_reactions="off"))
    fresh = Rig(features=PROVIDER)
    fresh.take(fresh.m.restore({t: list(rows.values()) for t, rows in r.db.items()}, r.now))
    assert b["bindingId"] in fresh.m.pbook.bindings and fresh.m.pbook.attempts[a["attemptId"]].open
    assert fresh.m.behavior_overrides({"bindingId": b["bindingId"]})["overrides"]["emojiReactions"] == "off"


def test_a_control_field_with_a_lone_surrogate_is_refused_before_it_reaches_the_store():
    """The provider commands read their fields as every other control command does (effects.req_str): an id that
    is not well-formed Unicode could be no SQLite text, so it is a 400, not a binding."""
    r = rig()
    a = start(r)
    with pytest.raises(MachineError) as exc:
        r.m.provider_authorize({"attemptId": a["attemptId"], "outcome": "confirm", "principalId": "p\ud800"}, r.now)
    assert exc.value.code == "invalid-request" and "surrogate" in exc.value.message
