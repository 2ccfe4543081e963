"""Group relay: group.message (spec §5 阶段 14, author fields of 阶段 19; UPSTREAM-FACTS limits).

Rules under test: provider (open set), chatId, messageId non-empty; threadId / chatName present, non-empty or null
(UPSTREAM-FACTS); author.name required, isBot boolean; author.id "无前导零、Bot API 52-bit 范围内的规范十进制正整数"
(2^52 − 1 accepted, 2^52 rejected); author.username "仅 [A-Za-z0-9_] 1-32 位"; text ≤ 8,192 UTF-16 code units
(UPSTREAM-FACTS; the spec says 4k; an emoji counts 2); fileNames ≤ 20 names of ≤ 256 UTF-16 units; text or
fileNames must carry something; sentAt a positive safe integer; recipient (when present) has non-empty
bindingId and principalId.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_cases, sample_of

from simulator.hook import (
    ABSENT,
    GroupMessageAuthor,
    GroupMessageRecipient,
    HookBuildError,
    IssueCode,
    make_group_message,
    utf16_len,
)

TEXT = "group.message:text"
FILES = "group.message:files-only"
TG = "group.message:telegram-author"
RECIPIENT = "group.message:with-recipient"

MISSING = IssueCode.MISSING
WRONG_TYPE = IssueCode.WRONG_TYPE
EMPTY = IssueCode.EMPTY
BAD_FORMAT = IssueCode.BAD_FORMAT
TOO_LONG = IssueCode.TOO_LONG

EMOJI = "\U0001f600"  # 😀: one code point, two UTF-16 code units
MAX_ID = str(2**52 - 1)  # "4503599627370495"


def test_utf16_length_counts_an_emoji_as_two():
    assert utf16_len(EMOJI) == 2
    assert utf16_len("a" * 3 + EMOJI + "é") == 6


_BASE = dict(provider="telegram", chat_id="-1001234567890", message_id="4242", author=GroupMessageAuthor(name="Ada"),
             sent_at=1767225590000)
_BASE_WIRE = {"provider": "telegram", "chatId": "-1001234567890", "messageId": "4242", "author": {"name": "Ada"},
              "sentAt": 1767225590000, "threadId": None, "chatName": None}

BUILDS = [
    pytest.param(make_group_message, dict(_BASE, text="deploy done?"), {**_BASE_WIRE, "text": "deploy done?"},
                 id="text"),
    pytest.param(make_group_message, dict(_BASE, file_names=("a.png", "b.txt")),
                 {**_BASE_WIRE, "text": "", "fileNames": ["a.png", "b.txt"]}, id="files-only"),
    pytest.param(
        make_group_message,
        dict(_BASE, text="hi", thread_id="77", chat_name="Ops",
             author=GroupMessageAuthor(name="Ada L.", is_bot=False, id=MAX_ID, username="a" * 32),
             recipient=GroupMessageRecipient(binding_id="bind-1", principal_id="tg:1")),
        {**_BASE_WIRE, "text": "hi", "threadId": "77", "chatName": "Ops",
         "author": {"name": "Ada L.", "isBot": False, "id": MAX_ID, "username": "a" * 32},
         "recipient": {"bindingId": "bind-1", "principalId": "tg:1"}},
        id="full",
    ),
    pytest.param(make_group_message, dict(_BASE, text=EMOJI * 4096), {**_BASE_WIRE, "text": EMOJI * 4096},
                 id="text-8192-units-of-emoji"),
]


@pytest.mark.parametrize(("builder", "fields", "payload"), BUILDS)
def test_builder_round_trip(builder, fields, payload):
    message = built(builder, **fields)
    assert message.to_wire()["payload"] == payload


@pytest.mark.parametrize(
    ("fields", "path", "code"),
    [
        pytest.param(dict(_BASE), "/payload/text", EMPTY, id="nothing-to-carry"),
        pytest.param(dict(_BASE, text="x", sent_at=0), "/payload/sentAt", IssueCode.OUT_OF_RANGE, id="sent-at-zero"),
        pytest.param(dict(_BASE, text="a" * 8191 + EMOJI), "/payload/text", TOO_LONG, id="text-8193-units"),
        pytest.param(dict(_BASE, text="x", author=GroupMessageAuthor(name="Ada", id="0123")), "/payload/author/id",
                     BAD_FORMAT, id="author-id-leading-zero"),
    ],
)
def test_builder_refuses_invalid(fields, path, code):
    with pytest.raises(HookBuildError) as info:
        make_group_message(**fields)
    assert (info.value.issue.path, info.value.issue.code) == (path, code)


@pytest.mark.parametrize("fr", sample_cases("group.message"))
def test_sample_is_valid(fr):
    accept(fr)


# -- UTF-16 length limits ---------------------------------------------------------------------------------------

TEXT_OK = [
    pytest.param("a" * 8192, id="8192-ascii"),
    pytest.param(EMOJI * 4096, id="4096-emoji-is-8192-units"),
    pytest.param("a" * 8190 + EMOJI, id="8190-ascii-plus-emoji"),
    pytest.param("é" * 8192, id="8192-bmp-non-ascii"),
]
TEXT_TOO_LONG = [
    pytest.param("a" * 8193, id="8193-ascii"),
    pytest.param("a" * 8191 + EMOJI, id="8191-ascii-plus-emoji-is-8193-units"),
    pytest.param(EMOJI * 4096 + "a", id="4096-emoji-plus-one"),
    pytest.param(EMOJI * 4097, id="4097-emoji"),
]


@pytest.mark.parametrize("text", TEXT_OK)
def test_text_within_8192_utf16_units_is_accepted(text):
    assert utf16_len(text) <= 8192
    accept(edit(sample_of(TEXT), {"text": text}))


@pytest.mark.parametrize("text", TEXT_TOO_LONG)
def test_text_over_8192_utf16_units_is_rejected(text):
    assert utf16_len(text) > 8192
    expect_issue(edit(sample_of(TEXT), {"text": text}), "/payload/text", TOO_LONG)


def test_text_over_the_spec_4k_is_accepted():
    # §5 says "≤4k"; the upstream parser (UPSTREAM-FACTS) enforces 8,192, which is what real peers do.
    accept(edit(sample_of(TEXT), {"text": "a" * 5000}))


NAME_OK = [
    pytest.param("a" * 256, id="256-ascii"),
    pytest.param("a" * 254 + EMOJI, id="254-ascii-plus-emoji-is-256-units"),
    pytest.param(EMOJI * 128, id="128-emoji"),
]
NAME_TOO_LONG = [
    pytest.param("a" * 257, id="257-ascii"),
    pytest.param("a" * 255 + EMOJI, id="255-ascii-plus-emoji-is-257-units"),
    pytest.param(EMOJI * 129, id="129-emoji"),
]


@pytest.mark.parametrize("name", NAME_OK)
def test_file_name_within_256_utf16_units_is_accepted(name):
    accept(edit(sample_of(FILES), {"fileNames": ["log.txt", name]}))


@pytest.mark.parametrize("name", NAME_TOO_LONG)
def test_file_name_over_256_utf16_units_is_rejected(name):
    expect_issue(edit(sample_of(FILES), {"fileNames": ["log.txt", name]}), "/payload/fileNames/1", TOO_LONG)


# -- author.id / author.username (Telegram contract) -------------------------------------------------------------

AUTHOR_IDS_OK = [
    pytest.param("1", id="one"),
    pytest.param("123456789", id="typical"),
    pytest.param(MAX_ID, id="2^52-minus-1"),
]
AUTHOR_IDS_BAD = [
    pytest.param(str(2**52), id="2^52"),
    pytest.param("99999999999999999999", id="20-digits"),
    pytest.param("0", id="zero"),
    pytest.param("0123", id="leading-zero"),
    pytest.param("00000000000000000001", id="padded"),
    pytest.param("-0", id="minus-zero"),
    pytest.param("-5", id="negative"),
    pytest.param("+5", id="plus-sign"),
    pytest.param("123\n", id="trailing-newline"),
    pytest.param(" 123", id="leading-space"),
    pytest.param("12.0", id="decimal"),
    pytest.param("1e3", id="exponent"),
    pytest.param("\uff11\uff12\uff13", id="fullwidth-digits"),
    pytest.param("", id="empty"),
]


@pytest.mark.parametrize("author_id", AUTHOR_IDS_OK)
def test_author_id_accepted(author_id):
    assert accept(edit(sample_of(TG), {"author/id": author_id})).payload.author.id == author_id


@pytest.mark.parametrize("author_id", AUTHOR_IDS_BAD)
def test_author_id_rejected(author_id):
    expect_issue(edit(sample_of(TG), {"author/id": author_id}), "/payload/author/id", BAD_FORMAT)


USERNAMES_OK = [
    pytest.param("a", id="one-char"),
    pytest.param("A" * 32, id="32-chars"),
    pytest.param("ada_L0velace", id="mixed"),
    pytest.param("_", id="underscore"),
    pytest.param("123", id="digits"),
]
USERNAMES_BAD = [
    pytest.param("a" * 33, id="33-chars"),
    pytest.param("@ada", id="at-prefix"),
    pytest.param("ada\n", id="trailing-newline"),
    pytest.param("ada l", id="space"),
    pytest.param("ada-l", id="hyphen"),
    pytest.param("ada.l", id="dot"),
    pytest.param("\u0430da", id="cyrillic-a"),
    pytest.param("", id="empty"),
]


@pytest.mark.parametrize("username", USERNAMES_OK)
def test_author_username_accepted(username):
    accept(edit(sample_of(TG), {"author/username": username}))


@pytest.mark.parametrize("username", USERNAMES_BAD)
def test_author_username_rejected(username):
    expect_issue(edit(sample_of(TG), {"author/username": username}), "/payload/author/username", BAD_FORMAT)


# -- other edges and broken rules -------------------------------------------------------------------------------

ACCEPTED = [
    good("provider is an open set", TEXT, {"provider": "discord"}),
    good("chatId not Telegram-checked (open provider)", TEXT, {"chatId": "C0123"}),
    good("threadId non-empty", TEXT, {"threadId": "77"}),
    good("chatName null", TEXT, {"chatName": None}),
    good("text empty with a file", FILES, {"fileNames": ["a.png"]}),
    good("text and files", TEXT, {"fileNames": ["a.png"]}),
    good("20 file names", FILES, {"fileNames": [f"f{i}.png" for i in range(20)]}),
    good("empty fileNames with text", TEXT, {"fileNames": []}),
    good("author isBot true", TEXT, {"author/isBot": True}),
    good("author without id or username", TG, {"author/id": DELETE, "author/username": DELETE}),
    good("author unknown field kept", TEXT, {"author/avatar": "x"}),
    good("sentAt 1.0", TEXT, {"sentAt": 1.0}),
    good("sentAt 1", TEXT, {"sentAt": 1}),
    good("sentAt max safe integer", TEXT, {"sentAt": 2**53 - 1}),
    good("recipient unknown field kept", RECIPIENT, {"recipient/generation": 2}),
    good("unknown payload field kept", TEXT, {"replyToMessageId": "4100"}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


REJECTED = [
    bad("provider empty", TEXT, {"provider": ""}, "/payload/provider", EMPTY),
    bad("provider absent", TEXT, {"provider": DELETE}, "/payload/provider", MISSING),
    bad("chatId empty", TEXT, {"chatId": ""}, "/payload/chatId", EMPTY),
    bad("chatId number", TEXT, {"chatId": -1001234567890}, "/payload/chatId", WRONG_TYPE),
    bad("threadId absent (present-but-null)", TEXT, {"threadId": DELETE}, "/payload/threadId", MISSING),
    bad("threadId empty", TEXT, {"threadId": ""}, "/payload/threadId", EMPTY),
    bad("threadId number", TEXT, {"threadId": 77}, "/payload/threadId", WRONG_TYPE),
    bad("messageId empty", TEXT, {"messageId": ""}, "/payload/messageId", EMPTY),
    bad("chatName absent (present-but-null)", TEXT, {"chatName": DELETE}, "/payload/chatName", MISSING),
    bad("chatName empty", TEXT, {"chatName": ""}, "/payload/chatName", EMPTY),
    bad("author absent", TEXT, {"author": DELETE}, "/payload/author", MISSING),
    bad("author a string", TEXT, {"author": "Ada"}, "/payload/author", WRONG_TYPE),
    bad("author name empty", TEXT, {"author/name": ""}, "/payload/author/name", EMPTY),
    bad("author name absent", TEXT, {"author/name": DELETE}, "/payload/author/name", MISSING),
    bad("author isBot 1 is not true", TEXT, {"author/isBot": 1}, "/payload/author/isBot", WRONG_TYPE),
    bad("author isBot null", TEXT, {"author/isBot": None}, "/payload/author/isBot", WRONG_TYPE),
    bad("author id a number", TG, {"author/id": 123456789}, "/payload/author/id", WRONG_TYPE),
    bad("author id null", TG, {"author/id": None}, "/payload/author/id", WRONG_TYPE),
    bad("author username null", TG, {"author/username": None}, "/payload/author/username", WRONG_TYPE),
    bad("text absent", TEXT, {"text": DELETE}, "/payload/text", MISSING),
    bad("text null", TEXT, {"text": None}, "/payload/text", WRONG_TYPE),
    bad("nothing to carry: empty text, no files", TEXT, {"text": ""}, "/payload/text", EMPTY),
    bad("nothing to carry: empty text, empty files", FILES, {"fileNames": []}, "/payload/text", EMPTY),
    bad("fileNames not an array", FILES, {"fileNames": "a.png"}, "/payload/fileNames", WRONG_TYPE),
    bad("fileNames empty name", FILES, {"fileNames": ["a.png", ""]}, "/payload/fileNames/1", EMPTY),
    bad("fileNames non-string", FILES, {"fileNames": [1]}, "/payload/fileNames/0", WRONG_TYPE),
    bad("21 file names", FILES, {"fileNames": [f"f{i}.png" for i in range(21)]}, "/payload/fileNames",
        IssueCode.TOO_MANY),
    bad("sentAt absent", TEXT, {"sentAt": DELETE}, "/payload/sentAt", MISSING),
    bad("sentAt 0", TEXT, {"sentAt": 0}, "/payload/sentAt", IssueCode.OUT_OF_RANGE),
    bad("sentAt negative", TEXT, {"sentAt": -1}, "/payload/sentAt", IssueCode.OUT_OF_RANGE),
    bad("sentAt fractional", TEXT, {"sentAt": 1767225590000.5}, "/payload/sentAt", IssueCode.OUT_OF_RANGE),
    bad("sentAt beyond safe integers", TEXT, {"sentAt": 2**53}, "/payload/sentAt", IssueCode.OUT_OF_RANGE),
    bad("sentAt boolean", TEXT, {"sentAt": True}, "/payload/sentAt", WRONG_TYPE),
    bad("sentAt string", TEXT, {"sentAt": "1767225590000"}, "/payload/sentAt", WRONG_TYPE),
    bad("recipient null", RECIPIENT, {"recipient": None}, "/payload/recipient", WRONG_TYPE),
    bad("recipient bindingId empty", RECIPIENT, {"recipient/bindingId": ""}, "/payload/recipient/bindingId", EMPTY),
    bad("recipient principalId absent", RECIPIENT, {"recipient/principalId": DELETE},
        "/payload/recipient/principalId", MISSING),
]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)


def test_typed_author_and_recipient():
    payload = accept(sample_of(TG)).payload
    assert payload.author == GroupMessageAuthor(name="Ada L.", is_bot=False, id="123456789", username="ada_l")
    assert payload.recipient is ABSENT and payload.file_names is ABSENT
    with_recipient = accept(sample_of(RECIPIENT)).payload
    assert with_recipient.recipient == GroupMessageRecipient(binding_id="bind-1", principal_id="tg:123456789")
