"""Telegram behaviour: provider.behavior.get / set / state (spec §5 阶段 19 Telegram 行为配置).

Rules under test:
* selector: provider only ``telegram``; "本选择器只认 bindingId,不接受 scopeId 代替".
* set: emojiReactions / replyQuoteDm / replyQuoteGroup "均为 枚举 | null 三态 patch: 缺省 = 不动; 显式枚举 = 设置
  (即使等于当前默认值也要保留); 显式 null = 清除 override"; groupActivation one ``{chatId, value: 'always' | null}``
  with chatId "Bot API 52-bit 范围内的规范负整数" (−(2^52−1) accepted, −2^52 rejected, no leading zeros, no '-0',
  nothing around it); "至少要有一个实际改动(显式 null 也算)才是合法 patch,空 set 被拒收".
* state: resolved non-null enums; groupActivation a map ``{chatId: 'always'}`` with the same key rule and no
  entry limit below the frame limit; "bound=false 时 ... 收敛为默认值 + 空 map".
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    DEFAULT_TELEGRAM_BEHAVIOR,
    TELEGRAM_EMOJI_REACTIONS,
    TELEGRAM_REPLY_QUOTE_DM,
    TELEGRAM_REPLY_QUOTE_GROUP,
    GroupActivationPatch,
    HookBuildError,
    IssueCode,
    make_provider_behavior_get,
    make_provider_behavior_set,
    make_provider_behavior_state,
)

TYPES = ("provider.behavior.get", "provider.behavior.set", "provider.behavior.state")
SET = "provider.behavior.set:emoji-only"
SET_GA = "provider.behavior.set:group-activation"
STATE = "provider.behavior.state:configured"
UNBOUND = "provider.behavior.state:unbound"
GLOBALS = (
    ("emojiReactions", "emoji_reactions", TELEGRAM_EMOJI_REACTIONS),
    ("replyQuoteDm", "reply_quote_dm", TELEGRAM_REPLY_QUOTE_DM),
    ("replyQuoteGroup", "reply_quote_group", TELEGRAM_REPLY_QUOTE_GROUP),
)

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
LINKAGE = IssueCode.LINKAGE
NOT_ALLOWED = IssueCode.NOT_ALLOWED_VALUE
BAD_FORMAT = IssueCode.BAD_FORMAT

MIN_CHAT_ID = str(-(2**52 - 1))  # "-4503599627370495"


def test_constants():
    assert dict(DEFAULT_TELEGRAM_BEHAVIOR) == {"emojiReactions": "minimal", "replyQuoteDm": "off",
                                               "replyQuoteGroup": "first"}
    assert set(TELEGRAM_EMOJI_REACTIONS) == {"off", "minimal", "expressive"}
    assert set(TELEGRAM_REPLY_QUOTE_DM) == {"off", "first"}
    assert set(TELEGRAM_REPLY_QUOTE_GROUP) == {"off", "first", "all"}


BUILDS = [
    pytest.param(make_provider_behavior_get, dict(request_id="b1", binding_id="bind-1"),
                 {"requestId": "b1", "bindingId": "bind-1", "provider": "telegram"}, id="get"),
    pytest.param(make_provider_behavior_set, dict(request_id="b2", binding_id="bind-1", emoji_reactions="expressive"),
                 {"requestId": "b2", "bindingId": "bind-1", "provider": "telegram", "emojiReactions": "expressive"},
                 id="set-override"),
    pytest.param(make_provider_behavior_set, dict(request_id="b3", binding_id="bind-1", emoji_reactions="minimal"),
                 {"requestId": "b3", "bindingId": "bind-1", "provider": "telegram", "emojiReactions": "minimal"},
                 id="set-explicit-default-kept"),
    pytest.param(make_provider_behavior_set, dict(request_id="b4", binding_id="bind-1", reply_quote_dm=None),
                 {"requestId": "b4", "bindingId": "bind-1", "provider": "telegram", "replyQuoteDm": None},
                 id="set-clear-null"),
    pytest.param(make_provider_behavior_set,
                 dict(request_id="b5", binding_id="bind-1",
                      group_activation=GroupActivationPatch(chat_id="-1001234567890", value="always")),
                 {"requestId": "b5", "bindingId": "bind-1", "provider": "telegram",
                  "groupActivation": {"chatId": "-1001234567890", "value": "always"}}, id="set-group-activation"),
    pytest.param(make_provider_behavior_set,
                 dict(request_id="b6", binding_id="bind-1", group_activation=GroupActivationPatch(chat_id=MIN_CHAT_ID)),
                 {"requestId": "b6", "bindingId": "bind-1", "provider": "telegram",
                  "groupActivation": {"chatId": MIN_CHAT_ID, "value": None}}, id="set-group-activation-clear"),
    pytest.param(make_provider_behavior_state, dict(binding_id="bind-1", bound=False),
                 {"bindingId": "bind-1", "bound": False, "provider": "telegram", "replyTo": None,
                  "emojiReactions": "minimal", "replyQuoteDm": "off", "replyQuoteGroup": "first",
                  "groupActivation": {}}, id="state-unbound-defaults"),
    pytest.param(make_provider_behavior_state,
                 dict(binding_id="bind-1", bound=True, reply_to="b2", emoji_reactions="off", reply_quote_dm="first",
                      reply_quote_group="all", group_activation={"-42": "always", MIN_CHAT_ID: "always"}),
                 {"bindingId": "bind-1", "bound": True, "provider": "telegram", "replyTo": "b2",
                  "emojiReactions": "off", "replyQuoteDm": "first", "replyQuoteGroup": "all",
                  "groupActivation": {"-42": "always", MIN_CHAT_ID: "always"}}, id="state-configured"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


def test_set_builder_refuses_an_empty_patch():
    with pytest.raises(HookBuildError) as info:
        make_provider_behavior_set(request_id="b", binding_id="bind-1")
    assert (info.value.issue.path, info.value.issue.code) == ("/payload", IssueCode.EMPTY_PATCH)


def test_state_builder_refuses_non_default_unbound():
    with pytest.raises(HookBuildError) as info:
        make_provider_behavior_state(binding_id="bind-1", bound=False, reply_quote_group="all")
    assert (info.value.issue.path, info.value.issue.code) == ("/payload/replyQuoteGroup", LINKAGE)


@pytest.mark.parametrize("fr", sample_cases(*TYPES))
def test_sample_is_valid(fr):
    accept(fr)


# -- the tri-state patch ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("wire", "attr", "allowed"), GLOBALS, ids=[g[0] for g in GLOBALS])
def test_set_global_field_tri_state(wire, attr, allowed):
    base = edit(sample_of(SET), {"emojiReactions": DELETE, "groupActivation": {"chatId": "-42", "value": None}})
    absent = accept(base).payload
    assert getattr(absent, attr) is ABSENT and wire not in absent.to_wire()
    cleared = accept(edit(base, {wire: None})).payload
    assert getattr(cleared, attr) is None and cleared.to_wire()[wire] is None
    for value in allowed:
        assert getattr(accept(edit(base, {wire: value})).payload, attr) == value


@pytest.mark.parametrize(("wire", "attr", "allowed"), GLOBALS, ids=[g[0] for g in GLOBALS])
def test_set_with_only_one_explicit_null_is_a_change(wire, attr, allowed):
    fr = edit(sample_of(SET), {"emojiReactions": DELETE, wire: None})
    assert getattr(accept(fr).payload, attr) is None


@pytest.mark.parametrize(
    "extra",
    [
        pytest.param({}, id="nothing"),
        pytest.param({"scopeId": "cindy_bot"}, id="only-a-scope-id"),
        pytest.param({"futureToggle": True}, id="only-an-unknown-field"),
    ],
)
def test_set_without_any_change_is_rejected(extra):
    fr = edit(sample_of(SET), {"emojiReactions": DELETE, **extra})
    expect_issue(fr, "/payload", IssueCode.EMPTY_PATCH)


# -- chat ids ---------------------------------------------------------------------------------------------------

CHAT_IDS_OK = [
    pytest.param(MIN_CHAT_ID, id="minus-2^52-plus-1"),
    pytest.param("-1001234567890", id="supergroup"),
    pytest.param("-1", id="minus-one"),
    pytest.param("-42", id="small-group"),
]
CHAT_IDS_BAD = [
    pytest.param(str(-(2**52)), id="minus-2^52"),
    pytest.param("-99999999999999999999", id="far-out-of-range"),
    pytest.param("-0", id="minus-zero"),
    pytest.param("-042", id="leading-zero"),
    pytest.param("-00", id="double-zero"),
    pytest.param("42", id="positive"),
    pytest.param("0", id="zero"),
    pytest.param("-", id="sign-only"),
    pytest.param("+42", id="plus-sign"),
    pytest.param("-42\n", id="trailing-newline"),
    pytest.param(" -42", id="leading-space"),
    pytest.param("-4.2", id="decimal-point"),
    pytest.param("-1e3", id="exponent"),
    pytest.param("\u221242", id="unicode-minus"),
    pytest.param("-\u0661\u0662", id="arabic-indic-digits"),
    pytest.param("-\uff14\uff12", id="fullwidth-digits"),
    pytest.param("-" + "9" * 32, id="longer-than-32"),
]


@pytest.mark.parametrize("chat_id", CHAT_IDS_OK)
def test_set_group_chat_id_accepted(chat_id):
    assert accept(edit(sample_of(SET_GA), {"groupActivation/chatId": chat_id})).payload.group_activation.chat_id == chat_id


@pytest.mark.parametrize("chat_id", CHAT_IDS_BAD)
def test_set_group_chat_id_rejected(chat_id):
    expect_issue(edit(sample_of(SET_GA), {"groupActivation/chatId": chat_id}), "/payload/groupActivation/chatId",
                 BAD_FORMAT)


@pytest.mark.parametrize("chat_id", CHAT_IDS_OK)
def test_state_map_key_accepted(chat_id):
    accept(edit(sample_of(STATE), {"groupActivation": {chat_id: "always"}}))


@pytest.mark.parametrize("chat_id", CHAT_IDS_BAD)
def test_state_map_key_rejected(chat_id):
    pointer = "/payload/groupActivation/" + chat_id.replace("~", "~0").replace("/", "~1")
    expect_issue(edit(sample_of(STATE), {"groupActivation": {"-42": "always", chat_id: "always"}}), pointer,
                 BAD_FORMAT)


def test_state_map_key_pointer_is_escaped():
    expect_issue(edit(sample_of(STATE), {"groupActivation": {"-1/2~3": "always"}}), "/payload/groupActivation/-1~12~03",
                 BAD_FORMAT)


def test_state_map_has_no_entry_limit_below_the_frame():
    many = {str(-(10**12) - i): "always" for i in range(5000)}
    message = accept(edit(sample_of(STATE), {"groupActivation": many}))
    assert len(message.payload.group_activation) == 5000


# -- other edges and broken rules -------------------------------------------------------------------------------

ACCEPTED = [
    good("get unknown field kept", "provider.behavior.get:basic", {"locale": "en"}),
    good("set explicit default value kept", SET, {"emojiReactions": "minimal"}),
    good("set all three nulls", SET, {"emojiReactions": None, "replyQuoteDm": None, "replyQuoteGroup": None}),
    good("set group activation clear only", SET_GA, {"groupActivation/value": None}),
    good("set group activation plus globals", SET_GA, {"replyQuoteGroup": "off"}),
    good("set group activation unknown key kept", SET_GA, {"groupActivation/note": "x"}),
    good("state replyTo null (push)", STATE, {"replyTo": None}),
    good("state bound with default values", STATE, {"emojiReactions": "minimal", "replyQuoteDm": "off",
                                                     "replyQuoteGroup": "first", "groupActivation": {}}),
    good("state unknown field kept", STATE, {"revision": 3}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


def _selector(label: str, base: str) -> list:
    return [
        bad(f"{label} provider slack", base, {"provider": "slack"}, "/payload/provider", NOT_ALLOWED),
        bad(f"{label} provider x", base, {"provider": "x"}, "/payload/provider", NOT_ALLOWED),
        bad(f"{label} provider absent", base, {"provider": DELETE}, "/payload/provider", MISSING),
        bad(f"{label} bindingId absent", base, {"bindingId": DELETE}, "/payload/bindingId", MISSING),
        bad(f"{label} scopeId instead of bindingId", base, {"bindingId": DELETE, "scopeId": "cindy_bot"},
            "/payload/bindingId", MISSING),
        bad(f"{label} bindingId null", base, {"bindingId": None}, "/payload/bindingId", WRONG_TYPE),
        bad(f"{label} bindingId empty", base, {"bindingId": ""}, "/payload/bindingId", EMPTY),
    ]


REJECTED = [
    *_selector("get", "provider.behavior.get:basic"),
    *_selector("set", SET),
    *_selector("state", STATE),
    bad("get requestId empty", "provider.behavior.get:basic", {"requestId": ""}, "/payload/requestId", EMPTY),
    bad("set requestId absent", SET, {"requestId": DELETE}, "/payload/requestId", MISSING),
    # set: global fields
    bad("set emojiReactions unknown", SET, {"emojiReactions": "max"}, "/payload/emojiReactions", NOT_ALLOWED),
    bad("set emojiReactions number", SET, {"emojiReactions": 1}, "/payload/emojiReactions", NOT_ALLOWED),
    bad("set emojiReactions case matters", SET, {"emojiReactions": "Minimal"}, "/payload/emojiReactions", NOT_ALLOWED),
    bad("set replyQuoteDm all (group-only value)", SET, {"replyQuoteDm": "all"}, "/payload/replyQuoteDm",
        NOT_ALLOWED),
    bad("set replyQuoteGroup unknown", SET, {"replyQuoteGroup": "last"}, "/payload/replyQuoteGroup", NOT_ALLOWED),
    bad("set replyQuoteGroup empty string", SET, {"replyQuoteGroup": ""}, "/payload/replyQuoteGroup", NOT_ALLOWED),
    # set: group activation patch
    bad("set groupActivation null", SET_GA, {"groupActivation": None}, "/payload/groupActivation", WRONG_TYPE),
    bad("set groupActivation list", SET_GA, {"groupActivation": [["-42", "always"]]}, "/payload/groupActivation",
        WRONG_TYPE),
    bad("set groupActivation chatId absent", SET_GA, {"groupActivation/chatId": DELETE},
        "/payload/groupActivation/chatId", MISSING),
    bad("set groupActivation chatId number", SET_GA, {"groupActivation/chatId": -42},
        "/payload/groupActivation/chatId", WRONG_TYPE),
    bad("set groupActivation chatId empty", SET_GA, {"groupActivation/chatId": ""},
        "/payload/groupActivation/chatId", EMPTY),
    bad("set groupActivation value unknown", SET_GA, {"groupActivation/value": "never"},
        "/payload/groupActivation/value", NOT_ALLOWED),
    bad("set groupActivation value true", SET_GA, {"groupActivation/value": True},
        "/payload/groupActivation/value", NOT_ALLOWED),
    bad("set groupActivation value absent", SET_GA, {"groupActivation/value": DELETE},
        "/payload/groupActivation/value", MISSING),
    # state
    bad("state replyTo absent", STATE, {"replyTo": DELETE}, "/payload/replyTo", MISSING),
    bad("state replyTo empty", STATE, {"replyTo": ""}, "/payload/replyTo", EMPTY),
    bad("state bound absent", STATE, {"bound": DELETE}, "/payload/bound", MISSING),
    bad("state bound 0 is not false", UNBOUND, {"bound": 0}, "/payload/bound", WRONG_TYPE),
    *[bad(f"state {w} null (state is resolved, not a patch)", STATE, {w: None}, f"/payload/{w}", NOT_ALLOWED)
      for w, _, _ in GLOBALS],
    *[bad(f"state {w} absent", STATE, {w: DELETE}, f"/payload/{w}", MISSING) for w, _, _ in GLOBALS],
    bad("state replyQuoteDm all", STATE, {"replyQuoteDm": "all"}, "/payload/replyQuoteDm", NOT_ALLOWED),
    bad("state groupActivation absent", STATE, {"groupActivation": DELETE}, "/payload/groupActivation", MISSING),
    bad("state groupActivation list", STATE, {"groupActivation": []}, "/payload/groupActivation", WRONG_TYPE),
    bad("state groupActivation null", STATE, {"groupActivation": None}, "/payload/groupActivation", WRONG_TYPE),
    bad("state map value null", STATE, {"groupActivation": {"-42": None}}, "/payload/groupActivation/-42",
        NOT_ALLOWED),
    bad("state map value other", STATE, {"groupActivation": {"-42": "mention"}}, "/payload/groupActivation/-42",
        NOT_ALLOWED),
    *[bad(f"unbound state non-default {w}", UNBOUND, {w: v}, f"/payload/{w}", LINKAGE)
      for w, v in (("emojiReactions", "off"), ("replyQuoteDm", "first"), ("replyQuoteGroup", "all"))],
    bad("unbound state with a map entry", UNBOUND, {"groupActivation": {"-42": "always"}}, "/payload/groupActivation",
        LINKAGE),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)
