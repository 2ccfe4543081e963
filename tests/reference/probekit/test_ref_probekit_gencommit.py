"""gencommit.py: diff → Conventional Commits message, valid against CommitMessageSchema; git staged changes."""

import shutil
import subprocess

import pytest

from simulator.reference.probekit.gencommit import GitError, build_commit, classify, parse_diff, staged_diff
from simulator.reference.probekit.schemas import errors_of

FIX = """diff --git a/src/auth/login.py b/src/auth/login.py
--- a/src/auth/login.py
+++ b/src/auth/login.py
@@ -1,2 +1,3 @@
-    return user.name
+    if user is None:
+        return None
+    return user.name
"""
NEW = """diff --git a/src/billing/invoice.py b/src/billing/invoice.py
new file mode 100644
--- /dev/null
+++ b/src/billing/invoice.py
@@ -0,0 +1 @@
+def total(items): return sum(items)
"""
DOCS = """diff --git a/README.md b/README.md
--- a/README.md
+++ b/README.md
@@ -1 +1 @@
-old
+new
"""


def test_parse_diff():
    files = parse_diff(NEW + FIX)
    assert [(f.path, f.status) for f in files] == [("src/billing/invoice.py", "added"),
                                                   ("src/auth/login.py", "modified")]
    assert parse_diff("not a diff") == []


@pytest.mark.parametrize(("diff", "kind", "scope"), [(FIX, "fix", "auth"), (NEW, "feat", "billing"),
                                                      (DOCS, "docs", None)])
def test_type_and_scope(diff, kind, scope):
    data = build_commit(diff)
    assert data["type"] == kind and data.get("scope") == scope
    assert errors_of("CommitMessage", data) == []
    assert data["finalMessage"].startswith(f"{kind}{f'({scope})' if scope else ''}: ")


def test_overrides_breaking_and_footers():
    data = build_commit(FIX, type_="refactor", scope="core", issue="42", breaking=True)
    assert data["finalMessage"].splitlines()[0].startswith("refactor(core)!: ")
    assert data["footers"][-1] == "Closes #42" and data["breaking"] is True
    assert errors_of("CommitMessage", data) == []


def test_deterministic():
    assert build_commit(FIX) == build_commit(FIX)
    assert classify([]) == "chore"


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_staged_diff(tmp_path):
    run = lambda *a: subprocess.run(["git", "-C", str(tmp_path), *a], check=True, capture_output=True)  # noqa
    run("init", "-q")
    (tmp_path / "app.py").write_text("print('hi')\n")
    run("add", "app.py")
    diff = staged_diff(str(tmp_path))
    assert "app.py" in diff and build_commit(diff)["type"] == "feat"
    with pytest.raises(GitError):
        staged_diff(str(tmp_path / "missing"))
