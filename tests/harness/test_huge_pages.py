"""simulator/subjects/huge_pages.py: `simulator run` starts itself again once with glibc's malloc on transparent huge pages,
where that helps, and hands the subjects it starts the environment it was given."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import textwrap
from pathlib import Path

from simulator.subjects.huge_pages import TUNABLE, plan_restart, restart_if_useful, subject_environment

LINUX = ("Linux", ("glibc", "2.36"), "always [madvise] never")


def test_a_linux_glibc_with_madvise_huge_pages_is_started_again_with_the_tunable():
    env = plan_restart({"PATH": "/bin"}, *LINUX)
    assert env is not None
    assert env["GLIBC_TUNABLES"] == TUNABLE and env["PATH"] == "/bin"
    assert json.loads(env["SIMULATOR_GLIBC_TUNABLES_WAS"]) is None


def test_the_users_own_tunables_are_kept_and_remembered():
    env = plan_restart({"GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}, *LINUX)
    assert env is not None
    assert env["GLIBC_TUNABLES"] == f"glibc.malloc.arena_max=2:{TUNABLE}"
    assert json.loads(env["SIMULATOR_GLIBC_TUNABLES_WAS"]) == "glibc.malloc.arena_max=2"


def test_no_restart_where_it_cannot_help_or_was_done_or_the_user_chose():
    assert plan_restart({}, "Darwin", ("", ""), "") is None
    assert plan_restart({}, "Linux", ("glibc", "2.31"), LINUX[2]) is None  # the tunable came with glibc 2.35
    assert plan_restart({}, "Linux", ("musl", "1.2"), LINUX[2]) is None
    assert plan_restart({}, "Linux", ("glibc", "2.36"), "[always] madvise never") is None
    assert plan_restart({}, "Linux", ("glibc", "2.36"), "always madvise [never]") is None
    assert plan_restart({"GLIBC_TUNABLES": "glibc.malloc.hugetlb=0"}, *LINUX) is None
    assert plan_restart({"SIMULATOR_GLIBC_TUNABLES_WAS": "null"}, *LINUX) is None


def test_a_subject_gets_the_environment_the_user_gave():
    for before in ({"PATH": "/bin"}, {"PATH": "/bin", "GLIBC_TUNABLES": "glibc.malloc.arena_max=2"}):
        restarted = plan_restart(before, *LINUX)
        assert restarted is not None and restarted != before
        assert subject_environment(restarted) == before
    assert subject_environment({"PATH": "/bin"}) == {"PATH": "/bin"}  # never restarted: unchanged


def test_the_cli_is_started_again_at_most_once_and_its_subjects_get_the_environment_it_was_given(tmp_path: Path):
    """The real command line in a subprocess: the script runs once, or twice when this machine qualifies (the same
    process, its image replaced); a subject started by the command line then gets the environment it was given."""
    marks = tmp_path / "starts"
    script = textwrap.dedent(f"""
        import json, os, sys
        with open({str(marks)!r}, "a") as f:
            f.write(str(os.getpid()) + "\\n")
        sys.argv = ["simulator", "run", "--help"]
        from simulator.__main__ import main
        try:
            main()
        except SystemExit:
            pass
        from simulator.subjects.command import CommandSubject
        subject = CommandSubject([sys.executable, "-c", "pass"])
        print("ENV " + json.dumps({{"own": os.environ.get("GLIBC_TUNABLES"),
                                    "subject": subject._env.get("GLIBC_TUNABLES"),
                                    "marker": "SIMULATOR_GLIBC_TUNABLES_WAS" in subject._env}}))
        subject.close()
    """)
    given = {k: v for k, v in os.environ.items() if k not in ("GLIBC_TUNABLES", "SIMULATOR_GLIBC_TUNABLES_WAS")}
    given["GLIBC_TUNABLES"] = "glibc.malloc.arena_max=4"
    done = subprocess.run([sys.executable, "-c", script], env=given, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    starts = marks.read_text().split()
    try:
        thp = Path("/sys/kernel/mm/transparent_hugepage/enabled").read_text()
    except OSError:
        thp = ""
    restarted = plan_restart(given, platform.system(), platform.libc_ver(), thp) is not None
    assert len(starts) == (2 if restarted else 1), (starts, done.stdout[-500:])
    assert len(set(starts)) == 1  # the same process, its image replaced: signals still reach what the user started
    env_line = [line for line in done.stdout.splitlines() if line.startswith("ENV ")][-1]
    seen = json.loads(env_line[4:])
    assert seen["own"] == ("glibc.malloc.arena_max=4:" + TUNABLE if restarted else "glibc.malloc.arena_max=4")
    assert seen["subject"] == "glibc.malloc.arena_max=4" and seen["marker"] is False


def test_a_caller_of_main_is_never_replaced(monkeypatch):
    """``main(argv)`` from a program of the user's (or a test) never starts the process again."""
    from simulator.subjects import huge_pages

    called = []
    monkeypatch.setattr(huge_pages, "restart_if_useful", lambda: called.append(True))
    from simulator.__main__ import main

    assert main(["run", "--help"]) == 0  # argparse's help, then a clean exit
    assert called == []


def _facts(monkeypatch, tmp_path: Path, thp: str | None) -> list[tuple]:
    """A Linux glibc 2.36 machine whose transparent huge page mode reads ``thp`` (None: unreadable); the process's
    ``execve`` is recorded instead of done."""
    from simulator.subjects import huge_pages

    mode = tmp_path / "enabled"
    if thp is not None:
        mode.write_text(thp)
    monkeypatch.setattr(huge_pages, "_THP_MODE", mode)
    monkeypatch.setattr(huge_pages.platform, "system", lambda: "Linux")
    monkeypatch.setattr(huge_pages.platform, "libc_ver", lambda: ("glibc", "2.36"))
    monkeypatch.delenv("SIMULATOR_GLIBC_TUNABLES_WAS", raising=False)
    monkeypatch.delenv("GLIBC_TUNABLES", raising=False)
    execs: list[tuple] = []
    monkeypatch.setattr(huge_pages.os, "execve", lambda *args: execs.append(args))
    return execs


def test_restart_if_useful_starts_the_same_command_again_with_the_tunable(monkeypatch, tmp_path: Path):
    execs = _facts(monkeypatch, tmp_path, "always [madvise] never\n")
    restart_if_useful()
    assert len(execs) == 1
    program, argv, env = execs[0]
    assert program == sys.executable and argv == [sys.executable, *sys.orig_argv[1:]]
    assert env["GLIBC_TUNABLES"] == TUNABLE and json.loads(env["SIMULATOR_GLIBC_TUNABLES_WAS"]) is None


def test_restart_if_useful_goes_on_when_the_facts_cannot_be_read_or_say_no(monkeypatch, tmp_path: Path):
    for thp in (None, "[always] madvise never\n"):
        execs = _facts(monkeypatch, tmp_path, thp)
        restart_if_useful()
        assert execs == [], thp
