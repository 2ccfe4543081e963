"""Hard-kill durability of the reference hook server's bindings and preferences (docs/control-api.md
"Bindings and preferences (hook-server)", **Durability**: "Slack bindings, pending authorizations, provider
bindings and attempts (with their expiry), Slack and provider preference rows and behaviour overrides are in SQLite;
restart and a hard kill lose none").

A desktop (raw websockets, frames from the protocol core) declaring multi-team and the provider features binds two
Slack teams, leaves a third authorization pending, binds Telegram through ``/start <token>``, leaves a second
Telegram attempt open, and sets Slack preferences, provider preferences and behaviour overrides. Every answer it
waits for is sent after the server committed what it answers (store.py: "a frame that follows a Persist leaves only
once its batch is committed"). Then the server process is SIGKILLed (no clean shutdown) and started again on the
same database: ``list-bindings`` shows the same bindings, the pending authorization and the open attempt (its
token still binds), and a reconnecting desktop reads back every preference and override it set.
"""

from __future__ import annotations

import secrets
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from hook_server_process import Desktop, ServerProcess, is_type, wait_until

from simulator.hook import (
    HOOK_FEATURE_MULTI_TEAM,
    HOOK_FEATURE_PROVIDER_BEHAVIOR,
    HOOK_FEATURE_PROVIDER_BIND,
    HOOK_FEATURE_PROVIDER_PREFS,
    parse_hook_message,
    parse_telegram_connect_url,
    serialize_hook_message,
)

pytestmark = pytest.mark.timeout(180)

FEATURES = (HOOK_FEATURE_MULTI_TEAM, HOOK_FEATURE_PROVIDER_BIND, HOOK_FEATURE_PROVIDER_PREFS,
            HOOK_FEATURE_PROVIDER_BEHAVIOR)


def frame(type_: str, payload: dict[str, Any]) -> str:
    """A valid frame of ``type_`` (checked by the protocol core before it goes out)."""
    text = serialize_hook_message({"v": 1, "type": type_, "id": str(uuid.uuid4()), "ts": int(time.time() * 1000),
                                   "payload": payload})
    assert parse_hook_message(text).ok, text
    return text


def bindings_of(server: ServerProcess, device: str) -> dict[str, Any]:
    answer = server.call("list-bindings", {"deviceId": device})
    return {
        "slack": sorted((b["teamId"], b["slackUserId"], b["teamName"]) for b in answer["slack"]),
        "slackPending": sorted(str(p["teamId"]) for p in answer["slackPending"]),
        "provider": sorted((b["provider"], b["bindingId"], b["principalId"], b["scopeId"]) for b in answer["provider"]),
        "attempts": sorted((a["provider"], a["attemptId"], a["token"]) for a in answer["attempts"]),
    }


def test_sigkill_loses_no_binding_attempt_or_preference(tmp_path: Path) -> None:
    db, token, log = tmp_path / "hook.sqlite3", secrets.token_urlsafe(12), tmp_path / "server.log"
    device = f"dur-{secrets.token_hex(4)}"
    server = ServerProcess(db, token, log)
    desk: Desktop | None = None
    try:
        desk = Desktop(server.url, token, device, FEATURES)
        for team, user in (("T-one", "U-one"), ("T-two", "U-two")):
            desk.send(frame("bind.start", {"teamId": team}))
            desk.expect(is_type("bind.update", "pending"), f"bind.update(pending) for {team}")
            assert server.call("slack-authorize", {"deviceId": device, "outcome": "confirm", "teamId": team,
                                                   "teamName": f"{team} team", "slackUserId": user}) == {"ok": True}
            desk.expect(is_type("bind.update", "confirmed"), f"bind.update(confirmed) for {team}")
        desk.send(frame("bind.start", {"teamId": "T-three"}))
        desk.expect(is_type("bind.update", "pending"), "bind.update(pending) for T-three")

        desk.send(frame("provider.bind.start", {"requestId": "pb-1", "provider": "telegram", "scopeId": None}))
        first = desk.expect(is_type("provider.bind.update", "pending"), "the first Telegram attempt")
        link = parse_telegram_connect_url(first.payload.connect_url)
        assert link is not None, first.payload.connect_url
        answer = server.call("inject-message", {"provider": "telegram", "chatId": "4242", "userId": "4242",
                                                "userName": "ann", "text": f"/start {link.token}"})
        assert answer["kind"] == "bind"
        confirmed = desk.expect(is_type("provider.bind.update", "confirmed"), "the Telegram binding")
        binding = confirmed.payload.binding_id
        desk.send(frame("provider.bind.start", {"requestId": "pb-2", "provider": "telegram", "scopeId": None}))
        second = desk.expect(is_type("provider.bind.update", "pending"), "the second Telegram attempt")

        desk.send(frame("prefs.set", {"requestId": "ps-1", "workspace": "repo", "model": "opus", "effort": "high",
                                      "teamId": "T-two"}))
        desk.expect(lambda m: m.type.value == "prefs.state" and m.payload.reply_to == "ps-1", "prefs.state for ps-1")
        desk.send(frame("provider.prefs.set", {"requestId": "pp-1", "provider": "telegram", "bindingId": binding,
                                               "scopeId": None, "workspace": "repo", "model": "sonnet"}))
        desk.expect(lambda m: m.type.value == "provider.prefs.state" and m.payload.reply_to == "pp-1",
                    "provider.prefs.state for pp-1")
        desk.send(frame("provider.behavior.set", {"requestId": "bs-1", "provider": "telegram", "bindingId": binding,
                                                  "emojiReactions": "minimal",
                                                  "groupActivation": {"chatId": "-100123", "value": "always"}}))
        desk.expect(lambda m: m.type.value == "provider.behavior.state" and m.payload.reply_to == "bs-1",
                    "provider.behavior.state for bs-1")
        overrides = server.call("behavior-overrides", {"bindingId": binding})
        before = bindings_of(server, device)
        assert len(before["slack"]) == 2 and before["slackPending"] == ["T-three"], before
        assert len(before["provider"]) == 1 and [a[1] for a in before["attempts"]] == [second.payload.attempt_id]

        server.sigkill()
        desk.close()
        server = ServerProcess(db, token, log)  # same db, new ports

        assert bindings_of(server, device) == before
        assert server.call("behavior-overrides", {"bindingId": binding}) == overrides
        desk = Desktop(server.url, token, device, FEATURES)
        state = desk.expect(is_type("bind.state"), "bind.state after the welcome")
        assert sorted(b.team_id for b in state.payload.bindings) == ["T-one", "T-two"]
        desk.send(frame("prefs.get", {"requestId": "pg-1"}))
        prefs = desk.expect(lambda m: m.type.value == "prefs.state" and m.payload.reply_to == "pg-1", "prefs.state")
        rows = {(e.team_id, e.workspace): (e.model, e.effort) for e in prefs.payload.prefs}
        assert rows.get(("T-two", "repo")) == ("opus", "high"), rows
        desk.send(frame("provider.prefs.get", {"requestId": "pg-2", "provider": "telegram", "bindingId": binding,
                                               "scopeId": None}))
        pprefs = desk.expect(lambda m: m.type.value == "provider.prefs.state" and m.payload.reply_to == "pg-2",
                             "provider.prefs.state")
        assert pprefs.payload.bound and [(e.workspace, e.model) for e in pprefs.payload.prefs] == [("repo", "sonnet")]
        desk.send(frame("provider.behavior.get", {"requestId": "bg-1", "provider": "telegram", "bindingId": binding}))
        behavior = desk.expect(lambda m: m.type.value == "provider.behavior.state" and m.payload.reply_to == "bg-1",
                               "provider.behavior.state")
        assert behavior.payload.bound and dict(behavior.payload.group_activation) == {"-100123": "always"}

        # the open attempt survived with its token: it still binds
        token2 = next(a[2] for a in before["attempts"])
        server.call("inject-message", {"provider": "telegram", "chatId": "5151", "userId": "5151", "text": f"/start {token2}"})
        wait_until(lambda: len(bindings_of(server, device)["provider"]) == 2, "the surviving attempt's token binds")
    finally:
        if desk is not None:
            desk.close()
        server.stop()
