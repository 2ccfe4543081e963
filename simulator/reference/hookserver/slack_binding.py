"""Slack binding (Sign in with Slack OIDC) and multi-team, the server's side: pure state and rules, no frames, no I/O
(spec slack-hook-protocol.md §5 阶段 5 bind.*, 阶段 13 multi-team; docs/control-api.md "Bindings and preferences
(hook-server)").

Theory of operation. ``SlackBindings`` holds every device's confirmed bindings ``(teamId, slackUserId)`` and its
pending authorization. Each operation returns an ``Outcome``: the ``bind.update`` payloads to send (device, fields),
the devices whose binding list changed (the machine sends them ``bind.state`` when multi-team is on for their
connection) and the rows to write (``slack_bindings``, ``slack_pending``). The machine (machine.py) decides whether
multi-team is on ("desktop 在 hello.features、server 在 welcome.features 各自声明 HOOK_FEATURE_MULTI_TEAM,任一侧缺席
则整体回落单绑定行为") and passes it in; nonces are arguments too.

* ``bind.start`` creates the device's pending authorization (replacing an older one) → ``pending`` with
  ``authorizeUrl`` ("pending 时 authorizeUrl 非空"), ``teamId`` the pinned team or null ("pending 期团队未知为 null").
* The identity provider's outcome (control ``slack-authorize``) ends the pending authorization: ``confirmed``
  (a binding; with multi-team on one per team, off: the device's only one), ``denied``, ``expired``, ``failed``
  (``message``; ``reason: not-installed`` with ``installUrl``). A (teamId, slackUserId) bound elsewhere is taken
  from that device ("被顶"): ``revoked`` there.
* ``bind.revoke``: ``pendingOnly`` ends only the pending authorization ("只作废在途授权、不动已确认绑定"); ``teamId``
  (multi-team on) removes that team's binding; otherwise every binding of the device and its pending authorization
  ("空/缺省 = 解绑本设备全部").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast
from urllib.parse import urlencode

import orjson

__all__ = ["AUTHORIZE_URL", "DEFAULT_INSTALL_URL", "DEFAULT_FAIL_MESSAGE", "OUTCOMES", "BindingRefusal",
           "Outcome", "Pending", "SlackBinding", "SlackBindings"]

#: The identity provider's authorization endpoint (Sign in with Slack, OpenID Connect).
AUTHORIZE_URL: Final = "https://slack.com/openid/connect/authorize"
DEFAULT_INSTALL_URL: Final = "https://slack.com/apps"
DEFAULT_FAIL_MESSAGE: Final = "authorization failed"
#: control ``slack-authorize`` outcome → bind.update state
OUTCOMES: Final = {"confirm": "confirmed", "deny": "denied", "expire": "expired", "fail": "failed",
                   "not-installed": "failed"}


class BindingRefusal(Exception):
    """A control request that does not apply (the machine turns it into its control error)."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.message, self.status = code, message, status


@dataclass(slots=True)
class SlackBinding:
    device_id: str
    team_id: str
    slack_user_id: str
    team_name: str | None
    slack_user_name: str | None
    seq: int

    @property
    def key(self) -> str:
        return binding_key(self.team_id, self.slack_user_id)

    def row(self) -> dict[str, Any]:
        return {"device_id": self.device_id, "team_id": self.team_id, "slack_user_id": self.slack_user_id,
                "team_name": self.team_name, "slack_user_name": self.slack_user_name, "seq": self.seq}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> SlackBinding:
        return cls(**row)

    def entry(self) -> dict[str, Any]:
        """A ``bind.state.bindings[]`` item (spec 阶段 5 "{ teamId, teamName, slackUserId, slackUserName }")."""
        return {"teamId": self.team_id, "teamName": self.team_name, "slackUserId": self.slack_user_id,
                "slackUserName": self.slack_user_name}

    def public(self) -> dict[str, Any]:
        return {"deviceId": self.device_id, **self.entry()}


@dataclass(slots=True)
class Pending:
    device_id: str
    team_id: str | None
    nonce: str
    multi_team: bool

    def row(self) -> dict[str, Any]:
        return {"device_id": self.device_id, "team_id": self.team_id, "nonce": self.nonce,
                "multi_team": self.multi_team}

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Pending:
        return cls(**row)

    def authorize_url(self) -> str:
        query = {"response_type": "code", "scope": "openid profile", "client_id": "simulator-hook-server",
                 "state": self.nonce}
        if self.team_id:
            query["team"] = self.team_id
        return f"{AUTHORIZE_URL}?{urlencode(query)}"


@dataclass(slots=True)
class Outcome:
    #: (deviceId, the ``make_bind_update`` keyword arguments)
    updates: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: devices whose binding list changed (added, removed, taken): ``bind.state`` when multi-team is on
    changed: list[str] = field(default_factory=list)
    #: (table, key, row or None to delete)
    writes: list[tuple[str, str, dict[str, Any] | None]] = field(default_factory=list)

    def touch(self, device_id: str) -> None:
        if device_id not in self.changed:
            self.changed.append(device_id)


def binding_key(team_id: str, slack_user_id: str) -> str:
    return orjson.dumps([team_id, slack_user_id]).decode()


def _update(state: str, team_id: str | None, **fields: Any) -> dict[str, Any]:
    base: dict[str, Any] = {"state": state, "slack_user_id": None, "slack_user_name": None, "message": None,
                            "team_id": team_id}
    base.update(fields)
    return base


class SlackBindings:
    """Every device's Slack bindings and pending authorization."""

    def __init__(self) -> None:
        self.bindings: dict[str, SlackBinding] = {}
        self.pending: dict[str, Pending] = {}
        self._seq = 0

    # -- reads -----------------------------------------------------------------------------------------------------

    def of(self, device_id: str) -> list[SlackBinding]:
        """The device's bindings, oldest first."""
        return sorted((b for b in self.bindings.values() if b.device_id == device_id), key=lambda b: b.seq)

    def team(self, device_id: str, team_id: str) -> SlackBinding | None:
        return next((b for b in self.of(device_id) if b.team_id == team_id), None)

    def by_user(self, team_id: str, slack_user_id: str) -> SlackBinding | None:
        return self.bindings.get(binding_key(team_id, slack_user_id))

    def listing(self, device_id: str | None = None) -> dict[str, list[dict[str, Any]]]:
        """The ``slack`` and ``slackPending`` parts of control ``list-bindings``."""
        bound = sorted(self.bindings.values(), key=lambda b: b.seq)
        return {"slack": [b.public() for b in bound if device_id is None or b.device_id == device_id],
                "slackPending": [{"deviceId": p.device_id, "teamId": p.team_id} for p in self.pending.values()
                                 if device_id is None or p.device_id == device_id]}

    # -- desktop frames -------------------------------------------------------------------------------------------

    def start(self, device_id: str, team_id: str | None, nonce: str, multi_team: bool) -> Outcome:
        """``bind.start``: a fresh pending authorization replaces the device's older one; answered ``pending``."""
        pending = Pending(device_id, team_id or None, nonce, multi_team)
        self.pending[device_id] = pending
        out = Outcome(writes=[("slack_pending", device_id, pending.row())])
        # "pending 时 authorizeUrl 非空", "pending 期团队未知为 null"
        out.updates.append((device_id, _update("pending", pending.team_id, authorize_url=pending.authorize_url())))
        return out

    def revoke(self, device_id: str, team_id: str | None, pending_only: bool, multi_team: bool) -> Outcome:
        """``bind.revoke``: pendingOnly ends the pending authorization only (nothing is sent); ``teamId`` with
        multi-team on removes that team's binding; else every binding and the pending authorization."""
        out = Outcome()
        if pending_only:
            self._end_pending(device_id, out)  # "只作废在途授权、不动已确认绑定"
            return out
        if team_id and multi_team:
            for binding in self._team_bindings(device_id, team_id):
                self._remove(binding, out)
            out.updates.append((device_id, _update("revoked", team_id)))
            return out
        self._end_pending(device_id, out)
        for binding in self._all_bindings(device_id):
            self._remove(binding, out)
        out.updates.append((device_id, _update("revoked", None)))
        return out

    def _team_bindings(self, device_id: str, team_id: str) -> list[SlackBinding]:
        """What ``bind.revoke {teamId}`` removes: "teamId 非空 = 只解绑该 team"."""
        return [b for b in [self.team(device_id, team_id)] if b is not None]

    def _all_bindings(self, device_id: str) -> list[SlackBinding]:
        """What ``bind.revoke`` without a team removes: "空/缺省 = 解绑本设备全部"."""
        return self.of(device_id)

    # -- the identity provider (control slack-authorize) ----------------------------------------------------------

    def pending_device(self, device_id: str | None) -> Pending:
        """The pending authorization ``slack-authorize`` answers: the device's, or the only one."""
        if device_id is not None:
            pending = self.pending.get(device_id)
            if pending is None:
                raise BindingRefusal("no-pending", f"device {device_id!r} has no pending authorization", 409)
            return pending
        if not self.pending:
            raise BindingRefusal("no-pending", "no device has a pending authorization", 409)
        if len(self.pending) > 1:
            raise BindingRefusal("invalid-request", "deviceId: several devices have a pending authorization")
        return next(iter(self.pending.values()))

    def authorize(self, device_id: str | None, outcome: str, body: dict[str, Any]) -> Outcome:
        """The outcome of the device's pending authorization; every outcome ends it."""
        if outcome not in OUTCOMES:
            raise BindingRefusal("invalid-request", f"outcome: one of {', '.join(OUTCOMES)} (got {outcome!r})")
        pending = self.pending_device(device_id)
        team_id = body.get("teamId") or None
        if outcome == "confirm":
            user = body.get("slackUserId")
            if not isinstance(user, str) or not user:
                raise BindingRefusal("invalid-request", "slackUserId: confirm needs the Slack user")
            if pending.team_id is not None and team_id not in (None, pending.team_id):
                raise BindingRefusal("invalid-request",
                                     f"teamId: the authorization was pinned to {pending.team_id!r}, not {team_id!r}")
            team_id = team_id or pending.team_id
            if not team_id:
                raise BindingRefusal("invalid-request", "teamId: confirm needs the team")
        out = Outcome()
        self._end_authorization(pending, outcome, out)
        if outcome == "confirm":
            self._confirm(pending, cast(str, team_id), body, out)  # confirm: a team, checked above
        else:
            out.updates.append((pending.device_id, self._ended(outcome, team_id or pending.team_id, body)))
        return out

    def _end_authorization(self, pending: Pending, outcome: str, out: Outcome) -> None:
        """Every outcome ends the pending authorization (bind.update "none / pending / confirmed …" is one state)."""
        self._end_pending(pending.device_id, out)

    def _ended(self, outcome: str, team_id: str | None, body: dict[str, Any]) -> dict[str, Any]:
        """The bind.update of an unconfirmed outcome: ``denied`` / ``expired`` as they are, ``failed`` with a
        message ("failed 时 message 非空"; not-installed: ``reason`` and ``installUrl``)."""
        if outcome in ("deny", "expire"):
            return _update(OUTCOMES[outcome], team_id)
        if outcome == "fail":
            return _update("failed", team_id, message=body.get("message") or DEFAULT_FAIL_MESSAGE)
        extra: dict[str, Any] = {"reason": "not-installed"}
        install = body.get("installUrl", DEFAULT_INSTALL_URL)
        if install is not None:
            extra["install_url"] = install
        return _update("failed", team_id,
                       message=body.get("message") or "the Slack app is not installed in this workspace", **extra)

    def _confirm(self, pending: Pending, team_id: str, body: dict[str, Any], out: Outcome) -> None:
        dev, user = pending.device_id, body["slackUserId"]
        team_name, user_name = body.get("teamName"), body.get("slackUserName")
        taken = self.by_user(team_id, user)
        if taken is not None and taken.device_id != dev:
            self._remove(taken, out)  # "被顶": the other device loses it
            out.updates.append((taken.device_id, _update("revoked", team_id)))
        # multi-team on: one binding per team (a newer one for the same team replaces it); off: one binding at all
        for old in self.of(dev):
            if old.team_id == team_id or not pending.multi_team:
                self._remove(old, out)
        self._seq = max([self._seq] + [b.seq for b in self.bindings.values()]) + 1
        binding = SlackBinding(dev, team_id, user, team_name, user_name, self._seq)
        self.bindings[binding.key] = binding
        out.writes.append(("slack_bindings", binding.key, binding.row()))
        out.touch(dev)
        out.updates.append((dev, _update("confirmed", team_id, slack_user_id=user, slack_user_name=user_name,
                                         team_name=team_name)))

    # -- helpers --------------------------------------------------------------------------------------------------

    def _end_pending(self, device_id: str, out: Outcome) -> None:
        if self.pending.pop(device_id, None) is not None:
            out.writes.append(("slack_pending", device_id, None))

    def _remove(self, binding: SlackBinding, out: Outcome) -> None:
        if self.bindings.pop(binding.key, None) is not None:
            out.writes.append(("slack_bindings", binding.key, None))
            out.touch(binding.device_id)

    def restore(self, bindings: Iterable[Mapping[str, Any]], pending: Iterable[Mapping[str, Any]]) -> None:
        for row in bindings:
            b = SlackBinding.from_row(dict(row))
            self.bindings[b.key] = b
            self._seq = max(self._seq, b.seq)
        for row in pending:
            p = Pending.from_row(dict(row))
            self.pending[p.device_id] = p
