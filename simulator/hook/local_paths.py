"""Local absolute paths in what a peer sends (slack-hook-protocol.md §2 "workspace 是别名:本地绝对路径只存在于
desktop,永不过网线").

Theory of operation. The parser already refuses an absolute path where a checked field must hold a workspace alias
(query.response sessions, provider.prefs.*; UPSTREAM-FACTS: "leading ``/`` or ``\\``, ``X:\\``, ``X:/``, or
``file:`` in any case"). §2 is wider: no local absolute path crosses the wire, in any frame, in any field.
``find_local_paths`` walks every string of a decoded frame (object keys too, at any depth) and reports each local
path it finds with the JSON pointer (RFC 6901) where it sits. Three rules, from the strictest place to the loosest:

* **alias fields** — a member named ``workspace``, ``defaultWorkspace`` or ``workspaces`` (a string, or a list of
  strings) is where the spec puts an alias (hello, task.dispatch, prefs, query.response): the UPSTREAM rule above
  applies to the whole value (``PathRule.ALIAS_FIELD``);
* **known folders** — an absolute path the caller knows to be local to the peer (the harness registered it as a
  workspace folder), found anywhere inside any string (``PathRule.KNOWN_FOLDER``);
* **path shapes** in free text (titles, final texts, error messages, unknown fields), at the start of the string or
  after a blank, a quote, an opening bracket or one of ``=,;|``:

  - POSIX (``PathRule.POSIX``): ``/`` then a top-level directory that file systems have (FHS: ``/home``, ``/tmp``,
    ``/usr``, ``/var``, …; macOS: ``/Users``, ``/Volumes``, ``/private``, …), e.g. ``/Users/ann/repo``, ``/tmp``.
    Not a path: a slash word that names no such directory (the chat commands ``/new``, ``/stop``) and a JSON
    pointer into a frame (``/payload/buttons/3``: its first segment is a protocol member, not a directory);
  - Windows: a drive ``C:\\…`` or ``C:/…`` (``PathRule.WINDOWS_DRIVE``), a UNC share ``\\\\host\\share``
    (``PathRule.UNC``);
  - a home-relative path ``~/…`` (``PathRule.HOME``): it names a folder of the local user;
  - a ``file:`` URL (``PathRule.FILE_URL``, ``file:/…``): a local file. Other URLs are not paths: their path
    follows a host, never a boundary (``https://example.com/home/x`` is not flagged).

``free_text=False`` keeps the first two rules only: for a peer that forwards other people's free text (a hook
server relays the user's words into prompts and cards), where a path-shaped word is content, not a leak, but an
alias field must still never hold a path.

Pure: no I/O; the caller passes the known folders.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ..jsonpointer import join
from .checks import looks_like_absolute_path

__all__ = ["PathRule", "LocalPath", "ALIAS_MEMBERS", "POSIX_ROOTS", "find_local_paths", "find_local_paths_in_frame",
           "path_shapes"]


class PathRule(StrEnum):
    """Why a string was judged to carry a local absolute path."""

    ALIAS_FIELD = "alias-field"
    KNOWN_FOLDER = "known-folder"
    POSIX = "posix"
    WINDOWS_DRIVE = "windows-drive"
    UNC = "unc"
    HOME = "home"
    FILE_URL = "file-url"


@dataclass(frozen=True, slots=True)
class LocalPath:
    """One local path found: where (``pointer``; ``in_key``: in the member name at that pointer), by which rule,
    and the path-shaped text (at most 200 characters)."""

    pointer: str
    rule: PathRule
    text: str
    in_key: bool = False

    def __str__(self) -> str:
        where = (self.pointer or "(the whole frame)") + (" (member name)" if self.in_key else "")
        return f"{where}: {self.text!r} ({self.rule.value})"


#: Members whose value the spec makes a workspace alias (§2, §5 hello / task.dispatch / query.response / prefs).
ALIAS_MEMBERS = frozenset({"workspace", "defaultWorkspace", "workspaces"})

#: Top-level directories of real file systems: the Filesystem Hierarchy Standard's, macOS's, and a few common others.
POSIX_ROOTS = (
    "bin", "boot", "dev", "etc", "home", "lib", "lib64", "media", "mnt", "opt", "proc", "root", "run", "sbin", "srv",
    "sys", "tmp", "usr", "var",
    "Users", "Volumes", "private", "Library", "System", "Applications", "cores",
    "nix", "snap", "cygdrive", "workspaces",
)

_BOUNDARY = r"(?:^|(?<=[\s\"'`(\[{<=,;|]))"
#: The rest of a path once its start is found: up to a blank, a quote or a closing bracket.
_REST = r"[^\s\"'`)\]}>,;|]*"
_SHAPES: tuple[tuple[PathRule, re.Pattern[str]], ...] = (
    (PathRule.FILE_URL, re.compile(_BOUNDARY + r"(?i:file):/" + _REST)),
    (PathRule.POSIX, re.compile(
        _BOUNDARY + r"/(?:" + "|".join(POSIX_ROOTS) + r")(?=$|[/\s\"'`)\]}>,;:.!?|])" + _REST)),
    (PathRule.WINDOWS_DRIVE, re.compile(_BOUNDARY + r"[A-Za-z]:[\\/]" + _REST)),
    (PathRule.UNC, re.compile(_BOUNDARY + r"\\\\[^\\\s/]+\\[^\\\s/]+" + _REST)),
    (PathRule.HOME, re.compile(_BOUNDARY + r"~[/\\][^\s/\\]" + _REST)),
)
_MAX_SHOWN = 200


def path_shapes(text: str) -> list[tuple[PathRule, str]]:
    """Every path shape in free ``text`` (the third rule above), in order of position, each reported once."""
    found: dict[int, tuple[PathRule, str]] = {}
    for rule, pattern in _SHAPES:
        for m in pattern.finditer(text):
            found.setdefault(m.start(), (rule, m.group(0)[:_MAX_SHOWN]))
    return [found[i] for i in sorted(found)]


def _folder_patterns(known_folders: Iterable[str]) -> list[tuple[str, re.Pattern[str]]]:
    out = []
    for folder in known_folders:
        folder = folder.rstrip("/\\") if len(folder) > 1 else folder
        if len(folder) < 2 or not looks_like_absolute_path(folder):
            continue  # only absolute paths: "/" alone or a relative name would match everywhere
        # the folder itself, or a path below it; not a longer sibling ("/tmp/a" is not in "/tmp/ab")
        out.append((folder, re.compile(re.escape(folder) + r"(?=$|[/\\\s\"'`)\]}>,;:|])")))
    return out


def _check_string(text: str, pointer: str, in_key: bool, alias: bool,
                  folders: list[tuple[str, re.Pattern[str]]], out: list[LocalPath], free_text: bool = True) -> None:
    if alias and not in_key and looks_like_absolute_path(text):
        out.append(LocalPath(pointer, PathRule.ALIAS_FIELD, text[:_MAX_SHOWN], in_key))
        return
    for folder, pattern in folders:
        if pattern.search(text):
            out.append(LocalPath(pointer, PathRule.KNOWN_FOLDER, folder[:_MAX_SHOWN], in_key))
            return
    if not free_text:
        return
    for rule, shown in path_shapes(text):
        out.append(LocalPath(pointer, rule, shown, in_key))


def _walk(value: Any, pointer: str, alias: bool, folders: list[tuple[str, re.Pattern[str]]],
          out: list[LocalPath], free_text: bool) -> None:
    if isinstance(value, str):
        _check_string(value, pointer, False, alias, folders, out, free_text)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            key = str(key)
            member = join(pointer, key)
            _check_string(key, member, True, False, folders, out, free_text)
            _walk(item, member, key in ALIAS_MEMBERS, folders, out, free_text)
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            _walk(item, join(pointer, i), alias, folders, out, free_text)


def find_local_paths(value: Any, known_folders: Iterable[str] = (), *, free_text: bool = True) -> list[LocalPath]:
    """Every local path in a decoded JSON ``value`` (strings, object keys, at any depth), in document order."""
    out: list[LocalPath] = []
    _walk(value, "", False, _folder_patterns(known_folders), out, free_text)
    return out


def find_local_paths_in_frame(raw: str | bytes, known_folders: Iterable[str] = (), *,
                              free_text: bool = True) -> list[LocalPath]:
    """``find_local_paths`` over a frame as received: decoded as JSON when it is JSON, else judged as one free
    text (a broken frame leaks as much as a valid one)."""
    text = raw if isinstance(raw, str) else raw.decode("utf-8", "replace")
    try:
        value = json.loads(text)
    except ValueError:
        out: list[LocalPath] = []
        _check_string(text, "", False, False, _folder_patterns(known_folders), out, free_text)
        return out
    return find_local_paths(value, known_folders, free_text=free_text)
