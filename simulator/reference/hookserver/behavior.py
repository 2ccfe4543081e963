"""Telegram behaviour of the reference hook server (spec §5 阶段 19 Telegram 行为配置).

Sans-I/O. Per bindingId: overrides of ``emojiReactions`` / ``replyQuoteDm`` / ``replyQuoteGroup`` and the group
activation map. spec: "缺省(undefined)= 不动;显式枚举 = 设置/覆盖(即使等于当前默认值也要保留用户意图,不会被将来默认值
变化悄悄改写);显式 null = 清除 override、回落到 DEFAULT_TELEGRAM_BEHAVIOR"; ``groupActivation {chatId, value}``:
``"always"`` sets, ``null`` clears that chat. The state carries effective values; ``bound`` false: the defaults and an
empty map ("bound=false 时字段联动收敛为默认值 + 空 map").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from ...hook import ABSENT, DEFAULT_TELEGRAM_BEHAVIOR

__all__ = ["BEHAVIOR_KEYS", "BehaviorBook", "Overrides"]

BEHAVIOR_KEYS: Final = ("emojiReactions", "replyQuoteDm", "replyQuoteGroup")


@dataclass(slots=True)
class Overrides:
    values: dict[str, str] = field(default_factory=dict)
    group_activation: dict[str, str] = field(default_factory=dict)

    def row(self, binding_id: str) -> dict[str, Any]:
        return {"binding_id": binding_id, "values": dict(self.values), "group_activation": dict(self.group_activation)}

    def public(self) -> dict[str, Any]:
        """The control API's ``behavior-overrides`` answer: each key's override or null, and the map."""
        return {"overrides": {k: self.values.get(k) for k in BEHAVIOR_KEYS},
                "groupActivation": dict(self.group_activation)}


@dataclass(slots=True)
class BehaviorBook:
    overrides: dict[str, Overrides] = field(default_factory=dict)

    def state(self, binding_id: str, bound: bool) -> dict[str, Any]:
        """The effective values (``provider.behavior.state`` fields without the selector and replyTo)."""
        o = self.overrides.get(binding_id) if bound else None
        values = {k: (o.values.get(k) if o else None) or DEFAULT_TELEGRAM_BEHAVIOR[k] for k in BEHAVIOR_KEYS}
        return {"bound": bound, **values, "groupActivation": dict(o.group_activation) if o else {}}

    def patch(self, binding_id: str, patch: Mapping[str, Any], activation: Mapping[str, Any] | None) -> dict[str, Any]:
        """Apply a set (wire keys; ``ABSENT`` keeps, ``None`` clears, a value is an explicit override); the row."""
        o = self.overrides.setdefault(binding_id, Overrides())
        for key in BEHAVIOR_KEYS:
            v = patch.get(key, ABSENT)
            if v is not ABSENT:
                self._set(o, key, v)
        if activation is not None:
            self._activate(o, activation["chatId"], activation.get("value"))
        return o.row(binding_id)

    def _set(self, o: Overrides, key: str, value: str | None) -> None:
        """"显式枚举 = 设置/覆盖(即使等于当前默认值也要保留用户意图 …);显式 null = 清除 override、回落到
        DEFAULT_TELEGRAM_BEHAVIOR"."""
        if value is None:
            o.values.pop(key, None)
        else:
            o.values[key] = value

    def _activate(self, o: Overrides, chat_id: str, value: str | None) -> None:
        """``groupActivation {chatId, value}``: ``"always"`` sets that chat's entry, ``null`` clears that chat's
        ("value=null 表示清除该群的白名单条目")."""
        if value is None:
            o.group_activation.pop(chat_id, None)
        else:
            o.group_activation[chat_id] = value

    def restore(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for r in rows:
            self.overrides[r["binding_id"]] = Overrides(dict(r["values"]), dict(r["group_activation"]))
