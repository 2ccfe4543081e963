"""Telegram behaviour: provider.behavior.get/set/state (spec §5 阶段 19).

* The selector is ``provider`` (only ``telegram``) and a non-empty ``bindingId`` (no ``scopeId`` substitute).
* set: the three global fields are tri-state patches (absent = untouched, an enum value = explicit override,
  null = clear); ``groupActivation`` patches one chat ``{chatId, value: "always" | null}``; a set with nothing to
  change is rejected ("空 set 被拒收"; an explicit null counts as a change).
* state: resolved values (no null), ``groupActivation`` a map ``{chatId: "always"}``; ``bound`` false collapses to
  ``DEFAULT_TELEGRAM_BEHAVIOR`` and an empty map. Chat ids are canonical negative decimals ≥ −(2^52−1).
  The map is checked in one pass without building a second list of its entries (§5: "以常量额外内存单遍校验").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .checks import ABSENT, Obj, is_object, is_telegram_group_chat_id
from .constants import (
    DEFAULT_TELEGRAM_BEHAVIOR,
    PROVIDER_BEHAVIOR_PROVIDERS,
    TELEGRAM_EMOJI_REACTIONS,
    TELEGRAM_GROUP_ACTIVATION_ALWAYS,
    TELEGRAM_REPLY_QUOTE_DM,
    TELEGRAM_REPLY_QUOTE_GROUP,
    MessageType,
)
from .issues import SPEC, HookIssue, IssueCode
from .registry import define
from .wire import Wire, extra_field, nested, opt

__all__ = [
    "ProviderBehaviorGetPayload",
    "GroupActivationPatch",
    "ProviderBehaviorSetPayload",
    "ProviderBehaviorStatePayload",
]

REF = f"{SPEC} §5 阶段 19 Telegram 行为配置"
_GLOBALS = (
    ("emojiReactions", TELEGRAM_EMOJI_REACTIONS),
    ("replyQuoteDm", TELEGRAM_REPLY_QUOTE_DM),
    ("replyQuoteGroup", TELEGRAM_REPLY_QUOTE_GROUP),
)


def _selector(p: Obj) -> HookIssue | None:
    return p.enum("provider", PROVIDER_BEHAVIOR_PROVIDERS) or p.nonempty_str("bindingId")


@dataclass(frozen=True, slots=True)
class ProviderBehaviorGetPayload(Wire):
    request_id: str
    binding_id: str
    provider: str = "telegram"
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class GroupActivationPatch(Wire):
    chat_id: str
    value: str | None = None
    extra: Mapping[str, Any] = extra_field()


@dataclass(frozen=True, slots=True)
class ProviderBehaviorSetPayload(Wire):
    request_id: str
    binding_id: str
    provider: str = "telegram"
    emoji_reactions: str | None = opt()
    reply_quote_dm: str | None = opt()
    reply_quote_group: str | None = opt()
    group_activation: GroupActivationPatch = nested(GroupActivationPatch, optional=True)
    extra: Mapping[str, Any] = extra_field()


def _chat_id_issue(p: Obj, key: str) -> HookIssue:
    return p.issue(
        key, IssueCode.BAD_FORMAT,
        f"{p.label}.{key} must be a canonical negative Telegram group chat id within the 52-bit Bot API range",
    )


def check_set(p: Obj) -> HookIssue | None:
    issue = p.nonempty_str("requestId") or _selector(p)
    if issue:
        return issue
    for key, allowed in _GLOBALS:
        if issue := p.opt_nullable_enum(key, allowed):
            return issue
    patch = p.get("groupActivation")
    if patch is not ABSENT:
        if not is_object(patch):
            return p.obj("groupActivation")
        g = p.sub("groupActivation", patch)
        if not is_telegram_group_chat_id(g.get("chatId")):
            return g.nonempty_str("chatId") or _chat_id_issue(g, "chatId")
        value = g.get("value")
        if value is not None and value != TELEGRAM_GROUP_ACTIVATION_ALWAYS:
            if value is ABSENT:
                return g._type_issue("value", "'always' or null (present)")
            return g.issue("value", IssueCode.NOT_ALLOWED_VALUE, f"{g.label}.value must be 'always' or null")
        return None
    if all(p.get(key) is ABSENT for key, _ in _GLOBALS):
        return p.issue(None, IssueCode.EMPTY_PATCH, "provider.behavior.set must change at least one setting")
    return None


@dataclass(frozen=True, slots=True)
class ProviderBehaviorStatePayload(Wire):
    binding_id: str
    bound: bool
    provider: str = "telegram"
    reply_to: str | None = None
    emoji_reactions: str = DEFAULT_TELEGRAM_BEHAVIOR["emojiReactions"]
    reply_quote_dm: str = DEFAULT_TELEGRAM_BEHAVIOR["replyQuoteDm"]
    reply_quote_group: str = DEFAULT_TELEGRAM_BEHAVIOR["replyQuoteGroup"]
    group_activation: Mapping[str, str] = field(default_factory=dict)
    extra: Mapping[str, Any] = extra_field()


def check_state(p: Obj) -> HookIssue | None:
    issue = _selector(p) or p.nullable_nonempty_str("replyTo") or p.boolean("bound")
    if issue:
        return issue
    for key, allowed in _GLOBALS:
        if issue := p.enum(key, allowed):
            return issue
    activation = p.get("groupActivation")
    if not is_object(activation):
        return p.obj("groupActivation")
    g = p.sub("groupActivation", activation)
    for chat_id in activation:  # one pass, no second list (see module docstring)
        if not is_telegram_group_chat_id(chat_id):
            return _chat_id_issue(g, str(chat_id))
        if activation[chat_id] != TELEGRAM_GROUP_ACTIVATION_ALWAYS:
            return g.issue(str(chat_id), IssueCode.NOT_ALLOWED_VALUE, f"{g.label}[{chat_id}] must be 'always'")
    if p.get("bound") is False:
        for key, _ in _GLOBALS:
            if p.get(key) != DEFAULT_TELEGRAM_BEHAVIOR[key]:
                return p.linkage(key, f"must be the default {DEFAULT_TELEGRAM_BEHAVIOR[key]!r} when bound is false")
        if activation:
            return p.linkage("groupActivation", "must be empty when bound is false")
    return None


define(
    MessageType.PROVIDER_BEHAVIOR_GET, ProviderBehaviorGetPayload,
    lambda p: p.nonempty_str("requestId") or _selector(p), f"{REF} provider.behavior.get",
)
define(MessageType.PROVIDER_BEHAVIOR_SET, ProviderBehaviorSetPayload, check_set, f"{REF} provider.behavior.set")
define(MessageType.PROVIDER_BEHAVIOR_STATE, ProviderBehaviorStatePayload, check_state, f"{REF} provider.behavior.state")
