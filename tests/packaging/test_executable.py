"""The single-file executable dist/hook-conformance passes its smoke check (.ci/check-executable): from an empty
directory with a minimal environment it prints its help, lists, judges the embedded references CONFORMANT with
exit 0 and a report folder, and re-renders the report. It runs only where the executable is built
(.ci/build-executable, minutes): the check itself takes tens of seconds, most of it the run's."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXECUTABLE = ROOT / "dist" / "hook-conformance"
CHECK = ROOT / ".ci" / "check-executable"


@pytest.mark.skipif(not EXECUTABLE.is_file(), reason="the single-file executable is not built (.ci/build-executable)")
def test_the_executable_passes_its_smoke_check():
    check = subprocess.run([str(CHECK), str(EXECUTABLE)], capture_output=True, text=True, timeout=280)
    assert check.returncode == 0, check.stdout[-3000:] + check.stderr[-3000:]
    assert "check-executable: all steps passed" in check.stdout
    for step in ("help", "list", "run", "report", "load"):
        assert f"check-executable: ok  {step} " in check.stdout, check.stdout
