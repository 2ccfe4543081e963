"""Group relay: group.message (spec §5 阶段 14, author fields of 阶段 19).

Fire-and-forget relay of one group message. ``threadId`` and ``chatName`` are present, non-empty or null;
``author.name`` is required, ``author.id`` (when present) is a canonical positive decimal ≤ 2^52 − 1 and
``author.username`` matches ``[A-Za-z0-9_]{1,32}`` (Telegram's contract); ``text`` is at most 8,192 UTF-16 units
(the spec says 4k; upstream enforces 8,192); ``fileNames`` at most 20 names of at most 256 units; the message
carries text or file names; ``sentAt`` is a positive timestamp; ``recipient`` (when present) has non-empty
``bindingId`` and ``principalId``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..jsonpointer import join
from .checks import ABSENT, Obj, is_object, is_telegram_user_id, utf16_len_over
from .constants import (
    GROUP_MESSAGE_FILE_NAME_CHARS_MAX,
    GROUP_MESSAGE_FILE_NAMES_MAX,
    GROUP_MESSAGE_TEXT_MAX,
    MessageType,
)
from .issues import SPEC, UPSTREAM, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested, opt, strings

__all__ = ["GroupMessageAuthor", "GroupMessageRecipient", "GroupMessagePayload"]

REF = f"{SPEC} §5 阶段 14 group.message"
REF_AUTHOR = f"{SPEC} §5 阶段 19 group.message.author"
_USERNAME = re.compile(r"[A-Za-z0-9_]{1,32}")


@dataclass(frozen=True, slots=True)
class GroupMessageAuthor(Wire):
    name: str
    is_bot: bool = opt()
    id: str = opt()
    username: str = opt()
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class GroupMessageRecipient(Wire):
    binding_id: str
    principal_id: str
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class GroupMessagePayload(Wire):
    provider: str
    chat_id: str
    message_id: str
    author: GroupMessageAuthor = nested(GroupMessageAuthor)
    text: str = ""
    sent_at: int = 0
    thread_id: str | None = None
    chat_name: str | None = None
    recipient: GroupMessageRecipient = nested(GroupMessageRecipient, optional=True)
    file_names: tuple[str, ...] = strings(optional=True)
    extra: Mapping[str, Any] = extra_field()


def _check_author(p: Obj) -> HookIssue | None:
    author = p.get("author")
    if not is_object(author):
        return p.obj("author")
    a = p.sub("author", author, "group.message.author")
    issue = a.nonempty_str("name") or a.opt_boolean("isBot")
    if issue:
        return issue
    if a.get("id") is not ABSENT and not is_telegram_user_id(a.get("id")):
        return a.string("id", ref=REF_AUTHOR) or a.issue(
            "id", IssueCode.BAD_FORMAT,
            "group.message.author.id must be a canonical positive Telegram user id within the 52-bit range", REF_AUTHOR,
        )
    username = a.get("username")
    if username is not ABSENT and not (isinstance(username, str) and _USERNAME.fullmatch(username)):
        return a.string("username", ref=REF_AUTHOR) or a.issue(
            "username", IssueCode.BAD_FORMAT, "group.message.author.username must match [A-Za-z0-9_]{1,32}", REF_AUTHOR
        )
    return None


def _check_file_names(p: Obj) -> HookIssue | None:
    names = p.get("fileNames")
    if names is ABSENT:
        return None
    issue = p.str_array("fileNames") or p.max_items("fileNames", GROUP_MESSAGE_FILE_NAMES_MAX, ref=UPSTREAM)
    if issue:
        return issue
    for i, name in enumerate(names):
        if utf16_len_over(name, GROUP_MESSAGE_FILE_NAME_CHARS_MAX):
            return HookIssue(
                join(p.at("fileNames"), i), IssueCode.TOO_LONG,
                f"group.message.fileNames[{i}] must be at most {GROUP_MESSAGE_FILE_NAME_CHARS_MAX} UTF-16 units",
                UPSTREAM,
            )
    return None


def check_group_message(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("provider")
    if issue:
        return issue
    recipient = p.get("recipient")
    if recipient is not ABSENT:
        if not is_object(recipient):
            return p.obj("recipient")
        r = p.sub("recipient", recipient)
        if issue := r.nonempty_str("bindingId") or r.nonempty_str("principalId"):
            return issue
    issue = (
        p.nonempty_str("chatId")
        or p.nullable_nonempty_str("threadId")
        or p.nonempty_str("messageId")
        or p.nullable_nonempty_str("chatName")
        or _check_author(p)
        or p.string("text")
    )
    if issue:
        return issue
    text = p.get("text")
    if utf16_len_over(text, GROUP_MESSAGE_TEXT_MAX):
        return p.issue(
            "text", IssueCode.TOO_LONG, f"group.message.text must be at most {GROUP_MESSAGE_TEXT_MAX} UTF-16 units",
            f"{REF}; {UPSTREAM} (8,192)",
        )
    if issue := _check_file_names(p):
        return issue
    if not text and not p.get("fileNames"):
        return p.issue("text", IssueCode.EMPTY, "group.message must carry text or fileNames")
    return p.positive_timestamp("sentAt")


define(MessageType.GROUP_MESSAGE, GroupMessagePayload, check_group_message, REF)
