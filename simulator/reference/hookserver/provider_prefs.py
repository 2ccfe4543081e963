"""Provider preferences of the reference hook server (spec §2 "provider 偏好隔离:provider.prefs.* 用 provider +
bindingId/scopeId + workspace 定位,不会读取或覆写旧 prefs.* 的 Slack 行。provider-neutral 条目刻意不含 teamId"; §5
Provider-neutral 绑定与偏好; 阶段 11 for the patch rules).

Sans-I/O. Rows ``(provider, "binding"|"scope", id, workspace) → {model, effort, agentKind, permissionMode}`` in their
own table (``provider_prefs``), never the Slack rows. A patch: an absent key keeps its value, ``None`` clears it, a
string is stored as given (shape only: "server 只做 shape 校验不校验值合法性").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

import orjson

from ...hook import ABSENT

__all__ = ["PREF_KEYS", "ProviderPrefs", "Selector"]

PREF_KEYS: Final = ("model", "effort", "agentKind", "permissionMode")

#: (provider, "binding" | "scope", id)
Selector = tuple[str, str, str]


def _key(selector: Selector, workspace: str) -> str:
    return orjson.dumps([*selector, workspace]).decode()


@dataclass(slots=True)
class ProviderPrefs:
    #: selector → workspace → the four values (insertion order = creation order)
    rows: dict[Selector, dict[str, dict[str, str | None]]] = field(default_factory=dict)

    def entries(self, selector: Selector) -> list[dict[str, Any]]:
        """The ``provider.prefs.state`` entries of one selector (no ``teamId``: provider-neutral)."""
        return [{"workspace": ws, **values} for ws, values in self.rows.get(selector, {}).items()]

    def patch(self, selector: Selector, workspace: str, patch: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        """Apply ``patch`` (wire keys; ``ABSENT`` or missing keeps) to one row; the row's store key and row."""
        row = self.rows.setdefault(selector, {}).setdefault(workspace, dict.fromkeys(PREF_KEYS))
        for key in PREF_KEYS:
            v = patch.get(key, ABSENT)
            if v is not ABSENT:
                row[key] = v
        provider, kind, id_ = selector
        return _key(selector, workspace), {"provider": provider, "kind": kind, "id": id_, "workspace": workspace,
                                           "values": dict(row)}

    def restore(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for r in rows:
            self.rows.setdefault((r["provider"], r["kind"], r["id"]), {})[r["workspace"]] = dict(r["values"])
