"""A whole session of the reference desktop over every binding and preference family (Slack sign-in with multi-team,
Slack preferences, a Telegram binding through its one-time link, provider preferences, Telegram behaviour, a reconnect):
no frame it sends carries the one-time token it was handed (阶段 14 "一次性凭证 … 不转发": the desktop shows the link to its user,
it never passes the token on) nor a local folder path (§2 "本地绝对路径只存在于 desktop,永不过网线"). Every frame it sends is also
valid for the protocol core. The machine is driven directly (sans-I/O)."""

from __future__ import annotations

import json
import uuid
from itertools import count

from simulator.hook import (
    BindStateEntry,
    find_local_paths_in_frame,
    make_bind_state,
    make_bind_update,
    make_prefs_state,
    make_provider_behavior_state,
    make_provider_bind_update,
    make_provider_prefs_state,
    make_welcome,
    parse_hook_message,
    serialize_hook_message,
)
from simulator.reference.desktop.machine import Send
from simulator.reference.broken.desktop.select import make_machine

FEATURES = ("multi-team", "provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1", "provider:telegram",
            "provider:x", "turn-delivery-v1")
TOKEN = "Tk_one-time_5c1f0a9e7d2b"
FOLDER = "/Users/ann/work/secret-repo"
NULLS = {"reply_to": None, "attempt_id": None, "binding_id": None, "principal_id": None, "principal_name": None,
         "scope_id": None, "scope_name": None, "connect_url": None, "expires_at": None, "reason": None,
         "remediation_url": None, "actions": ()}


def text(message) -> str:
    return serialize_hook_message(message)


def test_no_frame_of_a_whole_session_carries_the_token_or_a_folder_path():
    ids = count()
    m = make_machine(None, workspaces={"repo": FOLDER}, ids=lambda: str(uuid.UUID(int=next(ids), version=4)))
    out: list = []
    now = iter(range(1, 10_000))

    def welcome() -> None:
        out.extend(m.on_connected(next(now)))
        out.extend(m.on_frame(text(make_welcome("harness", FEATURES)), next(now)))

    welcome()
    out.extend(m.slack_bind(None, next(now)))
    out.extend(m.on_frame(text(make_bind_update("pending", None, None, None,
                                                authorize_url="https://slack.com/openid/connect/authorize?state=n1")),
                          next(now)))
    out.extend(m.on_frame(text(make_bind_update("confirmed", "U1", "ann", None, team_id="T1", team_name="Acme")),
                          next(now)))
    out.extend(m.on_frame(text(make_bind_state((BindStateEntry("T1", "U1", "Acme", "ann"),))), next(now)))
    out.extend(m.prefs_set("repo", {"model": "opus"}, "T1", next(now))[1])
    out.extend(m.on_frame(text(make_prefs_state(True, None, ())), next(now)))

    rid, effects = m.provider_bind("telegram", None, next(now))
    out.extend(effects)
    link = f"https://t.me/conformance_bot?start={TOKEN}"
    out.extend(m.on_frame(text(make_provider_bind_update("telegram", "pending", **{
        **NULLS, "reply_to": rid, "attempt_id": "a1", "connect_url": link, "expires_at": 99_999_999,
        "actions": ("open_connect_url", "copy_connect_url", "cancel")})), next(now)))
    assert any(a.get("connectUrl") == link for a in m.state(next(now))["providers"]["telegram"]["attempts"])
    out.extend(m.on_frame(text(make_provider_bind_update("telegram", "confirmed", **{
        **NULLS, "binding_id": "b1", "principal_id": "42", "principal_name": "ann", "scope_id": "42",
        "actions": ("revoke",)})), next(now)))
    out.extend(m.provider_prefs_set("telegram", "b1", None, "repo", {"model": "sonnet"}, next(now))[1])
    out.extend(m.on_frame(text(make_provider_prefs_state("telegram", True, "b1", None, None, ())), next(now)))
    out.extend(m.behavior_set("b1", {"emojiReactions": "minimal"}, None, next(now))[1])
    out.extend(m.on_frame(text(make_provider_behavior_state("b1", True, "telegram", None, "minimal", "off", "first",
                                                            {})), next(now)))
    out.extend(m.on_disconnected(next(now)))
    welcome()
    out.extend(m.provider_prefs_get("telegram", None, "42", next(now))[1])
    out.extend(m.behavior_get("b1", next(now))[1])

    frames = [e.text for e in out if isinstance(e, Send)]
    assert len(frames) == 9, frames  # two hellos and the seven frames the user asked for
    types = {json.loads(f)["type"] for f in frames}
    assert {"hello", "bind.start", "prefs.set", "provider.bind.start", "provider.prefs.set", "provider.prefs.get",
            "provider.behavior.set", "provider.behavior.get"} <= types, types
    for f in frames:
        assert parse_hook_message(f).ok, f
        assert TOKEN not in f, f"the desktop passed the one-time token on: {f}"
        assert not find_local_paths_in_frame(f, [FOLDER]), f"a local path on the wire: {f}"
