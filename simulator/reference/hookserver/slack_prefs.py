"""Slack workspace preferences, the server's side: pure rows and rules, no frames, no I/O (spec slack-hook-protocol.md
§5 阶段 11 prefs.get / prefs.set / prefs.state, 阶段 13 "prefs.set 与 prefs.state 条目" teamId; docs/control-api.md
"Slack preferences").

Rows ``(teamId, slackUserId, workspace) → {model, effort, agentKind, permissionMode}`` belong to a bound Slack user
(durable: table ``slack_prefs``). A patch is partial ("部分更新某目录偏好(undefined 不动、null 显式清空)"): an absent
key keeps its value, ``null`` clears it, a string is stored as given ("server 只做 shape 校验不校验值合法性"). A
snapshot lists every row of the given bindings ("全量快照"), with ``teamId`` on each entry when multi-team is on;
unbound means no entries ("bound=false 时 prefs 恒空数组").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

import orjson

__all__ = ["PREF_KEYS", "PrefsRow", "SlackPrefs"]

#: the patchable keys, wire name → ``WorkspacePrefsEntry`` attribute
PREF_KEYS: Final = {"model": "model", "effort": "effort", "agentKind": "agent_kind",
                    "permissionMode": "permission_mode"}


@dataclass(slots=True)
class PrefsRow:
    team_id: str
    slack_user_id: str
    workspace: str
    values: dict[str, str | None]
    seq: int

    @property
    def key(self) -> str:
        return orjson.dumps([self.team_id, self.slack_user_id, self.workspace]).decode()

    def row(self) -> dict[str, Any]:
        return {"team_id": self.team_id, "slack_user_id": self.slack_user_id, "workspace": self.workspace,
                "values": dict(self.values), "seq": self.seq}

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> PrefsRow:
        return cls(row["team_id"], row["slack_user_id"], row["workspace"], dict(row["values"]), row["seq"])

    def entry(self, with_team: bool) -> dict[str, Any]:
        """A ``prefs.state.prefs[]`` item (wire form): the four keys always present (``string | null``)."""
        out: dict[str, Any] = {"workspace": self.workspace}
        out.update({k: self.values.get(k) for k in PREF_KEYS})
        if with_team:
            out["teamId"] = self.team_id
        return out


class SlackPrefs:
    """Every bound user's rows."""

    def __init__(self) -> None:
        self.rows: dict[str, PrefsRow] = {}
        self._seq = 0

    def patch(self, team_id: str, slack_user_id: str, workspace: str,
              patch: Mapping[str, str | None]) -> tuple[str, str, dict[str, Any]]:
        """Apply ``patch`` (wire keys of ``PREF_KEYS`` present in the request) to one row; the row to write."""
        probe = PrefsRow(team_id, slack_user_id, workspace, {}, 0)
        row = self.rows.get(probe.key)
        if row is None:
            self._seq += 1
            row = PrefsRow(team_id, slack_user_id, workspace, dict.fromkeys(PREF_KEYS), self._seq)
            self.rows[probe.key] = row
        for key in PREF_KEYS:
            if key in patch:
                row.values[key] = patch[key]
        return "slack_prefs", row.key, row.row()

    def entries(self, users: Iterable[tuple[str, str]], with_team: bool) -> list[dict[str, Any]]:
        """Every row of the given ``(teamId, slackUserId)`` users, oldest first."""
        wanted = set(users)
        return [r.entry(with_team) for r in sorted(self.rows.values(), key=lambda r: r.seq)
                if (r.team_id, r.slack_user_id) in wanted]

    def restore(self, rows: Iterable[Mapping[str, Any]]) -> None:
        for data in rows:
            r = PrefsRow.from_row(data)
            self.rows[r.key] = r
            self._seq = max(self._seq, r.seq)
