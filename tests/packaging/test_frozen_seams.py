"""The two seams of the single-file executable, tested without building it: its entry reads a command line as the
interpreter's (``-c`` / ``-m``) or as the harness's (simulator/subjects/frozen_entry.py), and the suite is found
inside the bundle when frozen (simulator/suite.py ``bundled_suite``)."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pytest

from simulator.__main__ import main as harness_main
from simulator.subjects import frozen_entry
from simulator.subjects.frozen_entry import Invocation, InvocationKind, read_command_line
from simulator.suite import SUITE_PACKAGE, bundled_suite, suite_root

ROOT = Path(__file__).resolve().parents[2]
EXECNET_BOOTSTRAP = "import sys;exec(eval(sys.stdin.readline()))"


@pytest.mark.parametrize(("argv", "expected"), [
    (["run", "--req", "X"], Invocation(InvocationKind.HARNESS, "", ("run", "--req", "X"))),
    (["--help"], Invocation(InvocationKind.HARNESS, "", ("--help",))),
    (["-h"], Invocation(InvocationKind.HARNESS, "", ("-h",))),
    ([], Invocation(InvocationKind.HARNESS, "", ())),
    # the embedded references and the fault profile's hook server: sys.executable -m simulator serve NAME
    (["-m", "simulator", "serve", "ccweb-mcp", "--variant", "v"],
     Invocation(InvocationKind.MODULE, "simulator", ("simulator", "serve", "ccweb-mcp", "--variant", "v"))),
    # pytest-xdist's workers, started by execnet
    (["-u", "-c", EXECNET_BOOTSTRAP], Invocation(InvocationKind.CODE, EXECNET_BOOTSTRAP, ("-c",), unbuffered=True)),
    (["-u", "-B", "-c", EXECNET_BOOTSTRAP],
     Invocation(InvocationKind.CODE, EXECNET_BOOTSTRAP, ("-c",), unbuffered=True)),
    # the load profile: python -m locust -f FILE …
    (["-m", "locust", "-f", "l.py"], Invocation(InvocationKind.MODULE, "locust", ("locust", "-f", "l.py"))),
    (["-mlocust", "--version"], Invocation(InvocationKind.MODULE, "locust", ("locust", "--version"))),
    (["-cprint(1)", "a"], Invocation(InvocationKind.CODE, "print(1)", ("-c", "a"))),
    # a flag without -c / -m, or -m without a module, is the harness's (its parser reports the usage error)
    (["-u", "run"], Invocation(InvocationKind.HARNESS, "", ("-u", "run"))),
    (["-m"], Invocation(InvocationKind.HARNESS, "", ("-m",))),
])
def test_the_command_line_is_the_interpreters_only_when_it_opens_with_c_or_m(argv: list[str], expected: Invocation):
    assert read_command_line(argv) == expected


def test_code_runs_with_the_interpreters_argv(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(sys, "argv", ["hook-conformance"])
    with pytest.raises(SystemExit) as stop:
        frozen_entry.main(["-c", "import sys; sys.exit(40 + len(sys.argv) if sys.argv[0] == '-c' else 1)", "a", "b"],
                          harness_main)
    assert stop.value.code == 43


def test_a_module_runs_as_main_with_its_arguments(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]):
    monkeypatch.setattr(sys, "argv", ["hook-conformance"])
    with pytest.raises(SystemExit) as stop:
        frozen_entry.main(["-m", "json.tool", "--help"], harness_main)
    assert stop.value.code == 0
    assert "json.tool" in capsys.readouterr().out


def test_the_harness_command_line_goes_to_the_harness():
    given: list[list[str]] = []
    assert frozen_entry.main(["list", "HOOK-SERVER-*"], lambda argv: given.append(argv) or 7) == 7
    assert given == [["list", "HOOK-SERVER-*"]]


def test_every_start_of_sys_executable_is_one_the_front_door_reads():
    """The harness starts itself as ``sys.executable -m …`` (never a script path, never bare options): the form the
    frozen executable reads as the interpreter's. A start of another form would fail only in the executable."""
    starts = []
    for folder in ("simulator", "steps"):
        for path in (ROOT / folder).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            starts += [(path.relative_to(ROOT), m.group(1)) for m in re.finditer(r"[\[(]sys\.executable,\s*([^,\]\)]+)",
                                                                                   text)]
    assert len(starts) >= 5, starts  # the references, the fault profile, the load profile's three
    assert all(arg.strip() in ('"-m"', '"-c"') for _, arg in starts), starts


def test_the_suite_is_found_in_the_bundle_when_frozen(tmp_path: Path):
    bundle = tmp_path / "_MEI12345"
    suite = bundle / SUITE_PACKAGE
    for folder in ("features", "steps", "scenarios/requirements"):
        (suite / folder).mkdir(parents=True)
    assert bundled_suite(True, str(bundle)) == suite
    assert bundled_suite(False, str(bundle)) is None  # not frozen: the checkout or the installed suite
    assert bundled_suite(True, None) is None
    shutil.rmtree(suite / "steps")
    assert bundled_suite(True, str(bundle)) is None  # a bundle without the suite's steps holds no suite


def test_frozen_the_bundle_comes_before_the_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    suite = tmp_path / SUITE_PACKAGE
    for folder in ("features", "steps", "scenarios/requirements"):
        (suite / folder).mkdir(parents=True)
    assert suite_root() == ROOT
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert suite_root() == suite


def test_the_command_line_names_itself_as_the_executable_when_frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib
    import sys

    import simulator.__main__ as cli

    assert cli.PROG == "python -m simulator" and cli.build_parser().prog == "python -m simulator"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    try:
        frozen = importlib.reload(cli)
        assert frozen.PROG == "hook-conformance" and frozen.build_parser().prog == "hook-conformance"
    finally:
        monkeypatch.undo()
        importlib.reload(cli)
