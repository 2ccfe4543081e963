"""The pure modules of the reference hook server's provider families, without the machine: the connect URL and the
snapshot shape (provider_binding), the prefs patch (provider_prefs) and the behaviour overrides (behavior). Expected
values are literals from the spec and the contract."""

from __future__ import annotations

import itertools

from simulator.hook import ABSENT, build_hook_message, parse_hook_message, serialize_hook_message
from simulator.hook import ProviderBindUpdatePayload
from simulator.reference.hookserver.behavior import BehaviorBook
from simulator.reference.hookserver.provider_binding import ProviderBook, connect_url, snapshot
from simulator.reference.hookserver.provider_prefs import ProviderPrefs


def ids():
    n = itertools.count(1)
    return lambda: f"id-{next(n)}"


def parses(payload: dict) -> bool:
    msg = build_hook_message(ProviderBindUpdatePayload.from_wire(payload), validate=False)
    return parse_hook_message(serialize_hook_message(msg)).ok


def test_connect_urls():
    assert connect_url("telegram", "tok-1") == "https://t.me/simulator_hook_bot?start=tok-1"
    assert connect_url("x", "tok-1") == "https://x.com/messages/compose?text=tok-1"


def test_every_change_is_a_valid_snapshot_and_supersede_comes_first():
    book, new_id = ProviderBook(), ids()
    a, pending = book.start("d1", "telegram", None, "r1", 1000, new_id)
    assert parses(pending.payload) and pending.payload["expiresAt"] == 601_000
    _b, changes = book.confirm(a, "u1", None, "chat-1", None, new_id)
    a2, _ = book.start("d1", "telegram", None, "r2", 2000, new_id)
    _b2, changes2 = book.confirm(a2, "u1", None, "chat-1", None, new_id)
    assert [c.payload["state"] for c in changes2] == ["superseded", "confirmed"]
    a3, _ = book.start("d1", "telegram", "s", "r3", 3000, new_id)
    for c in [*changes, *changes2, book.await_confirmation(a3), book.end(a3, "failed", "cancelled", "r4")]:
        assert parses(c.payload), c.payload
    assert book.open_attempt_by_token(a3.token, 3001) is None


def test_open_attempt_by_token_respects_expiry():
    book = ProviderBook()
    a, _ = book.start("d1", "telegram", None, "r1", 0, ids())
    assert book.open_attempt_by_token(a.token, 599_999) is a
    assert book.open_attempt_by_token(a.token, 600_000) is None


def test_snapshot_has_every_field():
    s = snapshot("x", "none", None)
    assert set(s) == {"provider", "state", "replyTo", "attemptId", "bindingId", "principalId", "principalName",
                      "scopeId", "scopeName", "connectUrl", "expiresAt", "reason", "remediationUrl", "actions"}


def test_prefs_patch_keeps_absent_and_clears_null():
    prefs = ProviderPrefs()
    sel = ("telegram", "binding", "b1")
    prefs.patch(sel, "chat", {"model": "m", "effort": "e"})
    prefs.patch(sel, "chat", {"model": ABSENT, "effort": None})
    assert prefs.entries(sel) == [{"workspace": "chat", "model": "m", "effort": None, "agentKind": None,
                                   "permissionMode": None}]
    assert prefs.entries(("telegram", "scope", "b1")) == []


def test_behavior_tristate_explicit_default_and_unbound():
    book = BehaviorBook()
    book.patch("b1", {"emojiReactions": "minimal"}, {"chatId": "-1", "value": "always"})
    assert book.overrides["b1"].public() == {
        "overrides": {"emojiReactions": "minimal", "replyQuoteDm": None, "replyQuoteGroup": None},
        "groupActivation": {"-1": "always"}}
    book.patch("b1", {"emojiReactions": None}, {"chatId": "-1", "value": None})
    assert book.overrides["b1"].public()["overrides"]["emojiReactions"] is None
    assert book.state("b1", False) == {"bound": False, "emojiReactions": "minimal", "replyQuoteDm": "off",
                                       "replyQuoteGroup": "first", "groupActivation": {}}
    kept = BehaviorBook()
    kept.patch("b", {"replyQuoteDm": "off"}, None)  # "即使等于当前默认值也要保留用户意图"
    assert kept.overrides["b"].values == {"replyQuoteDm": "off"}
