"""The local-path detector (spec §2 "本地绝对路径只存在于 desktop,永不过网线"; simulator/hook/local_paths.py).

Every string of a frame is judged: alias fields by the UPSTREAM rule, known folders anywhere, path shapes in free
text. URLs, JSON pointers and chat commands are not paths.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from simulator.hook.local_paths import (
    POSIX_ROOTS,
    LocalPath,
    PathRule,
    find_local_paths,
    find_local_paths_in_frame,
    path_shapes,
)


@pytest.mark.parametrize(("text", "rule", "shown"), [
    ("/Users/ann/repo", PathRule.POSIX, "/Users/ann/repo"),
    ("/home/ann/work/app", PathRule.POSIX, "/home/ann/work/app"),
    ("/tmp", PathRule.POSIX, "/tmp"),
    ("done in /tmp/pytest-1/repo.", PathRule.POSIX, "/tmp/pytest-1/repo."),
    ('cwd="/var/folders/x"', PathRule.POSIX, "/var/folders/x"),
    ("(/private/tmp/a)", PathRule.POSIX, "/private/tmp/a"),
    ("x=/opt/tool", PathRule.POSIX, "/opt/tool"),
    ("C:\\Users\\ann\\repo", PathRule.WINDOWS_DRIVE, "C:\\Users\\ann\\repo"),
    ("open d:/src/app now", PathRule.WINDOWS_DRIVE, "d:/src/app"),
    ("\\\\fileserver\\share\\repo", PathRule.UNC, "\\\\fileserver\\share\\repo"),
    ("~/code/app", PathRule.HOME, "~/code/app"),
    ("see ~\\code", PathRule.HOME, "~\\code"),
    ("file:///Users/ann/a.txt", PathRule.FILE_URL, "file:///Users/ann/a.txt"),
    ("FILE:/etc/hosts", PathRule.FILE_URL, "FILE:/etc/hosts"),
])
def test_path_shapes_are_found(text, rule, shown):
    assert path_shapes(text) == [(rule, shown)]


@pytest.mark.parametrize("text", [
    "/new", "/stop", "/model", "/bind",                         # chat commands: one segment, no directory
    "/payload/buttons/3/id", "/payload/workspace", "/v", "",     # JSON pointers into a frame
    "https://example.com/home/ann", "http://host/tmp/x",         # URLs: the path follows a host
    "wss://hook.example/Users/x", "see https://t.me/bot?start=1",
    "a/tmp/b", "src/home/x", "/homework/a", "/tmpfile",          # relative paths, words that only start like a root
    "ratio 3:/4", "chat", "repo", "Step 1\nStep 2", "**Working** 2/4",
    "file: notes.txt", "~user", "C:", "12:30",
])
def test_not_paths(text):
    assert path_shapes(text) == []
    assert find_local_paths({"payload": {"text": text}}) == []


def test_alias_fields_follow_the_upstream_rule_whole_value():
    frame = {"type": "hello", "payload": {
        "workspaces": ["chat", "/srv-like/repo", "repo"], "defaultWorkspace": "D:\\w",
        "sessions": [{"id": "s1", "title": "t", "workspace": "file:x"}],
        "workspace": "\\w"}}
    found = find_local_paths(frame)
    assert [(p.pointer, p.rule) for p in found] == [
        ("/payload/workspaces/1", PathRule.ALIAS_FIELD),
        ("/payload/defaultWorkspace", PathRule.ALIAS_FIELD),
        ("/payload/sessions/0/workspace", PathRule.ALIAS_FIELD),
        ("/payload/workspace", PathRule.ALIAS_FIELD),
    ]


def test_known_folders_are_found_anywhere_but_not_longer_siblings():
    known = ["/work/main/tmp/repo/"]
    assert find_local_paths({"a": "ran in /work/main/tmp/repo/src ok"}, known) == [
        LocalPath("/a", PathRule.KNOWN_FOLDER, "/work/main/tmp/repo")]
    assert find_local_paths({"a": "x:/work/main/tmp/repo"}, known)[0].rule is PathRule.KNOWN_FOLDER
    assert find_local_paths({"a": "/work/main/tmp/repository"}, known) == []
    assert find_local_paths({"a": "repo"}, ["repo", "/"]) == []  # relative names and "/" are never "known folders"


def test_member_names_are_judged_too_with_escaped_pointers():
    found = find_local_paths({"payload": {"map": {"/Users/ann/x": 1}}})
    assert found == [LocalPath("/payload/map/~1Users~1ann~1x", PathRule.POSIX, "/Users/ann/x", in_key=True)]
    assert "member name" in str(found[0])


def test_frames_as_received_json_or_not():
    text = json.dumps({"v": 1, "type": "query.response", "payload": {"workspaces": ["chat", "/tmp/x/repo"]}})
    assert [p.pointer for p in find_local_paths_in_frame(text)] == ["/payload/workspaces/1"]
    assert [p.pointer for p in find_local_paths_in_frame(text.encode())] == ["/payload/workspaces/1"]
    broken = '{"type": "turn.end", "payload": {"finalText": "in /home/ann/repo"'  # not JSON: one free text
    assert [(p.pointer, p.rule) for p in find_local_paths_in_frame(broken)] == [("", PathRule.POSIX)]


_SEGMENT = st.text(alphabet=st.characters(whitelist_categories=("Ll", "Lu", "Nd")), min_size=1, max_size=8)


@given(root=st.sampled_from(POSIX_ROOTS), rest=st.lists(_SEGMENT, max_size=4),
       before=st.sampled_from(["", " ", "\n", "(", '"', "="]))
def test_any_path_under_a_root_after_a_boundary_is_found(root, rest, before):
    path = "/" + "/".join([root, *rest])
    assert path_shapes(f"text{before}{path} more" if before else path)[0] == (PathRule.POSIX, path)


@given(host=_SEGMENT, root=st.sampled_from(POSIX_ROOTS), rest=st.lists(_SEGMENT, max_size=3))
def test_url_paths_are_never_found(host, root, rest):
    assert path_shapes(f"https://{host}.example/" + "/".join([root, *rest])) == []
