"""Golden files: each format rendered from the fixed record must equal, byte for byte, its file under
``golden/``. After an intended change, rewrite them with ``UPDATE_GOLDEN=1 pytest tests/reports`` and review the
diff like code."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

from reports import FILENAMES, FORMATS

GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def golden_mismatch(expected: bytes, actual: bytes, name: str) -> str | None:
    """None when equal, else a readable description (a unified diff, cut to 80 lines) of how they differ."""
    if expected == actual:
        return None
    old = expected.decode("utf-8", "replace").splitlines(keepends=True)
    new = actual.decode("utf-8", "replace").splitlines(keepends=True)
    diff = list(difflib.unified_diff(old, new, f"golden/{name}", f"rendered {name}", n=2))
    if not diff:  # differs only in bytes the decoding hides (line endings, invalid UTF-8)
        diff = [f"same text, different bytes ({len(expected)} vs {len(actual)})\n"]
    cut = diff[:80] + ([f"… {len(diff) - 80} more diff lines\n"] if len(diff) > 80 else [])
    return (
        f"{name} differs from its golden file (if intended: UPDATE_GOLDEN=1 pytest tests/reports):\n" + "".join(cut)
    )


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_matches_golden_file(record, fmt):
    name = FILENAMES[fmt]
    path = GOLDEN / name
    actual = FORMATS[fmt](record).encode("utf-8")
    if UPDATE:
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(actual)
    assert path.is_file(), f"no golden file {path} (create it: UPDATE_GOLDEN=1 pytest tests/reports)"
    problem = golden_mismatch(path.read_bytes(), actual, name)
    assert problem is None, problem


@pytest.mark.parametrize(
    "change",
    [
        lambda b: b.replace(b"fail", b"Fail", 1),
        lambda b: b + b"\n",
        lambda b: b.replace(b"\n", b"\r\n", 1),
        lambda b: b[:-2] + b[-1:],
    ],
    ids=["one-letter", "trailing-newline", "line-ending", "one-byte-less"],
)
def test_the_comparison_fails_on_any_change(record, change):
    actual = FORMATS["json"](record).encode("utf-8")
    assert golden_mismatch(actual, actual, "report.json") is None
    problem = golden_mismatch(change(actual), actual, "report.json")
    assert problem is not None and "differs from its golden file" in problem
