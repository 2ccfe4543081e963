"""gencommit: a unified diff (or a repository's staged changes) → a Conventional Commits message.

Offline and deterministic: the type comes from the changed paths and the added lines (rules in
``classify``), the scope from the common directory of the changed files, the subject from what was added,
modified or deleted. ``staged_diff`` runs ``git diff --cached`` with a timeout (the only I/O here).
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

__all__ = ["FileChange", "parse_diff", "classify", "build_commit", "staged_diff", "GitError", "GIT_TIMEOUT"]

GIT_TIMEOUT = 10.0


class GitError(Exception):
    """``git diff --cached`` could not run (not a repository, git missing, timeout)."""


@dataclass
class FileChange:
    path: str
    status: str = "modified"  # added | deleted | modified | renamed
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


_DIFF_HEADER = re.compile(r"^diff --git a/(.+?) b/(.+)$")


def parse_diff(text: str) -> list[FileChange]:
    """Files of a unified diff (``git diff`` form; a bare ``---``/``+++`` diff works too). Never raises."""
    files: list[FileChange] = []
    current: FileChange | None = None
    for line in text.splitlines():
        m = _DIFF_HEADER.match(line)
        if m:
            current = FileChange(m.group(2))
            if m.group(1) != m.group(2):
                current.status = "renamed"
            files.append(current)
        elif line.startswith("new file mode") and current:
            current.status = "added"
        elif line.startswith("deleted file mode") and current:
            current.status = "deleted"
        elif line.startswith("+++ "):
            target = line[4:].strip()
            if current is None:
                current = FileChange(target[2:] if target.startswith("b/") else target)
                files.append(current)
        elif line.startswith("--- "):
            if line[4:].strip() == "/dev/null" and current is not None:
                current.status = "added"
            continue
        elif current is not None and line.startswith("+"):
            current.added.append(line[1:])
        elif current is not None and line.startswith("-"):
            current.removed.append(line[1:])
    for f in files:
        if f.path == "/dev/null":
            f.status = "deleted"
    return files


def _kind(path: str) -> str:
    p = PurePosixPath(path)
    name, parts = p.name.lower(), [x.lower() for x in p.parts]
    if ".github" in parts and "workflows" in parts or name in (".gitlab-ci.yml", ".travis.yml", "jenkinsfile"):
        return "ci"
    if p.suffix.lower() in (".md", ".rst", ".txt", ".adoc") or "docs" in parts[:-1] or "doc" in parts[:-1]:
        return "docs"
    if ("tests" in parts[:-1] or "test" in parts[:-1] or "__tests__" in parts[:-1] or name.startswith("test_")
            or re.search(r"[._](test|spec)\.[a-z]+$", name)):
        return "test"
    if name in ("package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock", "pyproject.toml", "setup.py",
                "setup.cfg", "requirements.txt", "dockerfile", "makefile", "cargo.toml", "go.mod", "tsconfig.json"):
        return "build"
    if p.suffix.lower() in (".css", ".scss", ".less"):
        return "style"
    return "code"


_FIX_WORDS = re.compile(r"\b(fix(e[sd])?|bug|crash|error|null|undefined|none|guard|handle|issue)\b", re.I)
_PERF_WORDS = re.compile(r"\b(cache|memo(ize)?|perf(ormance)?|faster|optimi[sz]e|lru_cache)\b", re.I)


def classify(files: list[FileChange]) -> str:
    """The Conventional Commits type: one kind shared by all files wins (docs, test, ci, build, style); else a new
    code file → feat, fix-like added lines → fix, perf-like → perf, only removals → refactor, else feat/refactor."""
    if not files:
        return "chore"
    kinds = {_kind(f.path) for f in files}
    if len(kinds) == 1 and (only := next(iter(kinds))) != "code":
        return only
    code = [f for f in files if _kind(f.path) == "code"] or files
    added = "\n".join(line for f in code for line in f.added)
    if any(f.status == "added" for f in code):
        return "feat"
    if _FIX_WORDS.search(added) or _FIX_WORDS.search("\n".join(line for f in code for line in f.removed)):
        return "fix"
    if _PERF_WORDS.search(added):
        return "perf"
    if any(f.status == "renamed" for f in code) or all(not f.added for f in code):
        return "refactor"
    return "feat" if sum(len(f.added) for f in code) > sum(len(f.removed) for f in code) else "refactor"


def _scope(files: list[FileChange]) -> str | None:
    dirs = [PurePosixPath(f.path).parts[:-1] for f in files]
    if not dirs or any(not d for d in dirs):
        return None
    common: list[str] = []
    for level in zip(*dirs, strict=False):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    generic = {"src", "lib", "app", "pkg", "packages", "tests", "test", "docs", "doc", ".github", "workflows"}
    meaningful = [c for c in common if c.lower() not in generic]
    return re.sub(r"[^a-z0-9_-]+", "-", meaningful[-1].lower()).strip("-") or None if meaningful else None


_VERB = {"feat": "add", "fix": "fix", "docs": "update", "style": "restyle", "refactor": "refactor", "test": "test",
         "chore": "update", "perf": "speed up", "build": "update", "ci": "update", "revert": "revert"}


def _subject(kind: str, files: list[FileChange]) -> str:
    if not files:
        return "update project files"
    names = [PurePosixPath(f.path).stem or PurePosixPath(f.path).name for f in files]
    shown = ", ".join(dict.fromkeys(names[:3])) + (f" and {len(files) - 3} more" if len(files) > 3 else "")
    statuses = {f.status for f in files}
    verb = {frozenset({"added"}): "add", frozenset({"deleted"}): "remove"}.get(frozenset(statuses), _VERB[kind])
    if kind == "test" and verb == "add":
        return f"add tests for {shown}"
    return f"{verb} {shown}"[:72]


def build_commit(diff: str, *, type_: str | None = None, scope: str | None = None, issue: str | None = None,
                 breaking: bool | None = None, description: str | None = None) -> dict[str, Any]:
    """The CommitMessage (design §3.2) for ``diff``; explicit arguments override what the diff suggests."""
    files = parse_diff(diff)
    kind = type_ or classify(files)
    scope = scope if scope is not None else _scope(files)
    subject = (description or _subject(kind, files)).strip().rstrip(".")
    subject = subject[:1].lower() + subject[1:]
    is_breaking = bool(breaking) if breaking is not None else bool(
        re.search(r"BREAKING[ -]CHANGE", diff))
    body_lines = [f"- {f.status} {f.path} (+{len(f.added)} -{len(f.removed)})" for f in files[:20]]
    if len(files) > 20:
        body_lines.append(f"- … and {len(files) - 20} more files")
    body = "\n".join(body_lines)
    footers: list[str] = []
    if is_breaking:
        footers.append("BREAKING CHANGE: behaviour changed incompatibly; see the diff")
    if issue:
        ref = str(issue).strip()
        footers.append(f"Closes {ref if ref.startswith('#') or not ref.isdigit() else '#' + ref}")
    header = f"{kind}{f'({scope})' if scope else ''}{'!' if is_breaking else ''}: {subject}"
    final = header + (f"\n\n{body}" if body else "") + (("\n\n" + "\n".join(footers)) if footers else "")
    data: dict[str, Any] = {"type": kind, "subject": subject, "breaking": is_breaking, "footers": footers,
                            "finalMessage": final}
    if scope:
        data["scope"] = scope
    if body:
        data["body"] = body
    return data


def staged_diff(path: str, timeout: float = GIT_TIMEOUT) -> str:
    """``git diff --cached`` of the repository at ``path``; ``GitError`` when it cannot run."""
    try:
        done = subprocess.run(["git", "-C", path, "diff", "--cached", "--no-color", "--no-ext-diff"],
                              capture_output=True, text=True, timeout=timeout, check=False,
                              stdin=subprocess.DEVNULL)
    except FileNotFoundError as exc:
        raise GitError("git is not installed") from exc
    except subprocess.TimeoutExpired as exc:
        raise GitError(f"git diff --cached took longer than {timeout:g} s") from exc
    if done.returncode != 0:
        raise GitError(done.stderr.strip() or f"git exited with {done.returncode}")
    return done.stdout
