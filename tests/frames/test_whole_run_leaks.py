"""The whole-run privacy scan of tests/wire_types_plugin.py finds what it must: a local path in free
text or an alias field, a one-time token outside the link that hands it out; the link itself is no leak."""

import json

from wire_types_plugin import frame_leaks

TOKEN = "Tk_one-time_5c1f0a9e7d2b"
LINK = {"type": "provider.bind.update", "payload": {"provider": "telegram", "attemptId": "a1", "state": "pending",
                                                     "connectUrl": f"https://t.me/conformance_bot?start={TOKEN}"}}


def frame(payload: dict) -> str:
    return json.dumps({"v": 1, "id": "f1", "ts": 1, "type": "turn.end", "payload": payload})


def test_a_path_in_free_text_is_found():
    leaks = frame_leaks(frame({"finalText": "done in /Users/ann/repo"}), set())
    assert [(leak["type"], leak["kind"]) for leak in leaks] == [("turn.end", "path")]


def test_a_path_in_an_alias_field_is_found():
    assert [leak["kind"] for leak in frame_leaks(frame({"workspace": "C:\\\\work\\\\repo"}), set())] == ["path"]


def test_a_token_outside_its_link_is_found_and_the_link_is_not():
    assert frame_leaks(json.dumps(LINK), {TOKEN}) == []
    leaks = frame_leaks(frame({"finalText": f"your code is {TOKEN}"}), {TOKEN})
    assert [(leak["kind"], leak["detail"]) for leak in leaks] == [("token", TOKEN)]


def test_a_clean_frame_has_no_leak():
    assert frame_leaks(frame({"finalText": "ok /stop https://example.com/home/x"}), {TOKEN}) == []


def test_a_users_own_words_relayed_are_no_leak_but_an_alias_field_path_always_is():
    """A hook server passes on what a user wrote in the channel, path-shaped words included (the harness handed it
    those words); a path in an alias field is a leak whoever wrote it."""
    given = ["please read /Users/ann/repo/NOTES.md"]
    assert frame_leaks(frame({"prompt": "please read /Users/ann/repo/NOTES.md"}), set(), given) == []
    assert [leak["kind"] for leak in frame_leaks(frame({"prompt": "/Users/bob/secret"}), set(), given)] == ["path"]
    leaks = frame_leaks(frame({"workspace": "/Users/ann/repo/NOTES.md"}), set(), given)
    assert [leak["kind"] for leak in leaks] == ["path"]
