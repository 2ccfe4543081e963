"""Provider connect links (simulator/hook/connect_links.py): the strict Telegram form of the spec's allowlist example
("Telegram 客户端只接受严格的 https://t.me/<bot>?start=<token>") and the one-time token it hands out."""

from __future__ import annotations

import json

import pytest

from simulator.hook import TelegramLink, parse_telegram_connect_url, pending_connect_tokens, token_leaks


@pytest.mark.parametrize("url", [
    "https://t.me/simulator_hook_bot?start=abc-DEF_123",
    "https://t.me/HookBot?start=x",
    "https://t.me/a_very_long_name_for_some_Bot?start=" + "a" * 64,
])
def test_the_strict_form_is_read(url):
    link = parse_telegram_connect_url(url)
    assert isinstance(link, TelegramLink) and url.endswith(link.token) and f"/{link.bot}?" in url


@pytest.mark.parametrize("url, why", [
    ("http://t.me/HookBot?start=x", "not https"),
    ("https://t.me/HookBot?start=x&ref=1", "another query parameter"),
    ("https://t.me/HookBot?start=x#top", "a fragment"),
    ("https://t.me:443/HookBot?start=x", "a port"),
    ("https://u@t.me/HookBot?start=x", "user info"),
    ("https://telegram.me/HookBot?start=x", "another host"),
    ("https://t.me.evil.example/HookBot?start=x", "a host that only starts like t.me"),
    ("https://t.me/HookBot/?start=x", "a trailing slash"),
    ("https://t.me/Hook?start=x", "not a bot username (no 'bot' suffix)"),
    ("https://t.me/1HookBot?start=x", "a username starting with a digit"),
    ("https://t.me/HookBot?start=", "an empty start parameter"),
    ("https://t.me/HookBot?start=a+b", "a start parameter outside [A-Za-z0-9_-]"),
    ("https://t.me/HookBot?start=" + "a" * 65, "a start parameter over 64 characters"),
    ("https://t.me/HookBot?startgroup=x", "another deep-link kind"),
    (None, "not a string"),
])
def test_anything_else_is_refused(url, why):
    assert parse_telegram_connect_url(url) is None, why


def frame(state: str, url: str | None, provider: str = "telegram", type_: str = "provider.bind.update") -> str:
    return json.dumps({"v": 1, "type": type_, "id": "f", "ts": 1, "payload": {
        "provider": provider, "state": state, "connectUrl": url}})


def test_only_a_pending_telegram_update_or_state_hands_a_token_out():
    url = "https://t.me/HookBot?start=Tk_0123456789"
    assert pending_connect_tokens(frame("pending", url)) == ["Tk_0123456789"]
    assert pending_connect_tokens(frame("pending", url, type_="provider.bind.state")) == ["Tk_0123456789"]
    assert pending_connect_tokens(frame("confirmed", url)) == []
    assert pending_connect_tokens(frame("pending", url, provider="x")) == []
    assert pending_connect_tokens(frame("pending", url, type_="turn.progress")) == []
    assert pending_connect_tokens("not json") == []


def test_a_token_may_appear_once_in_the_frame_that_hands_it_out_and_nowhere_else():
    token = "Tk_0123456789"
    handing = frame("pending", f"https://t.me/HookBot?start={token}")
    assert token_leaks(handing, [token]) == []
    assert token_leaks(handing.replace('"f"', json.dumps(token)), [token]) == [token]
    assert token_leaks(json.dumps({"type": "task.dispatch", "payload": {"prompt": f"/start {token}"}}), [token]) == [token]
    assert token_leaks(json.dumps({"prompt": "/start ab"}), ["ab"]) == []  # too short to prove anything
