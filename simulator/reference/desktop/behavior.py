"""Telegram behaviour at the desktop (spec slack-hook-protocol.md §5 阶段 19): pure, no I/O.

* ``behavior_on``: "能力协商靠双向 HOOK_FEATURE_PROVIDER_BEHAVIOR='provider-behavior-v1';任一侧未声明则整条通道不可用,
  desktop 侧维持旧行为(不发 get/set,也不渲染 state)";
* ``set_fields``: the provider.behavior.set patch of what the user changed: "缺省(undefined)= 不动;显式枚举 = 设置/覆盖
  (即使等于当前默认值也要保留用户意图…);显式 null = 清除 override", one ``groupActivation`` patch, "空 set 被拒收";
* ``BehaviorBook``: the latest provider.behavior.state per bindingId, as shown.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ...hook import ABSENT, Feature, GroupActivationPatch
from .provider_bindings import Refused

__all__ = ["GLOBAL_KEYS", "behavior_on", "set_fields", "BehaviorBook"]

#: The three global settings, wire name → the keyword of ``make_provider_behavior_set``.
GLOBAL_KEYS: Final = {"emojiReactions": "emoji_reactions", "replyQuoteDm": "reply_quote_dm",
                      "replyQuoteGroup": "reply_quote_group"}


def behavior_on(hello: Iterable[str], welcome: Iterable[str]) -> bool:
    feature = Feature.PROVIDER_BEHAVIOR.value
    return feature in set(hello) and feature in set(welcome)


def set_fields(changes: Mapping[str, Any], group_activation: Mapping[str, Any] | None) -> dict[str, Any]:
    """The keyword fields of provider.behavior.set for what the user changed: each key given, with its value kept
    as given (an explicit value, even the default; null resets); keys not given stay absent. ``Refused``
    ``invalid-request`` when nothing would change or a key is unknown."""
    unknown = sorted(set(changes) - set(GLOBAL_KEYS))
    if unknown:
        raise Refused("invalid-request", f"unknown behaviour settings {unknown}")
    fields: dict[str, Any] = {GLOBAL_KEYS[k]: v for k, v in changes.items()}
    if group_activation is not None:
        if not isinstance(group_activation, Mapping) or "chatId" not in group_activation:
            raise Refused("invalid-request", "groupActivation: {chatId, value} is required")
        fields["group_activation"] = GroupActivationPatch(group_activation["chatId"],
                                                          group_activation.get("value"))
    if not fields:
        raise Refused("invalid-request", "nothing would change (空 set 被拒收)")
    return fields


@dataclass
class BehaviorBook:
    """bindingId → the latest provider.behavior.state shown (taken only while the family is on)."""

    entries: dict[str, dict[str, Any]] = field(default_factory=dict)

    def take(self, p: Any) -> None:
        activation = p.group_activation
        self.entries[p.binding_id] = {
            "bindingId": p.binding_id, "bound": p.bound, "emojiReactions": p.emoji_reactions,
            "replyQuoteDm": p.reply_quote_dm, "replyQuoteGroup": p.reply_quote_group,
            "groupActivation": {} if activation is ABSENT else dict(activation),
        }

    def state(self) -> list[dict[str, Any]]:
        return list(self.entries.values())
