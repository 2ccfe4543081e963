"""Running the harness with glibc's malloc on transparent huge pages (bench/README "Page faults").

The size-limit cases send 48 MiB frames (up to 96 MiB of UTF-8). Each copy of such a frame (built, encoded, framed,
masked, read, decoded, parsed: by the harness and by an embedded reference in the same process) is a fresh ``mmap``
that glibc returns to the kernel when it is freed, so every copy costs one page fault per 4 KiB page: millions of
faults in a run, a third of the frame family's time on this machine. With the glibc tunable
``glibc.malloc.hugetlb=1`` (glibc ≥ 2.35) malloc asks for transparent huge pages (``madvise``), and a copy costs one
fault per 2 MiB. A tunable is read when the process starts, so ``simulator run`` (and ``judge``, ``replay``) starts
itself again once with it set, where that helps: Linux, glibc ≥ 2.35, transparent huge pages in ``madvise`` mode (in
``always`` mode malloc gets them anyway; in ``never`` it cannot). The user's own ``GLIBC_TUNABLES`` is kept, and one
that names ``glibc.malloc.hugetlb`` already (``=0`` to opt out) is left alone. The harness's own children (pytest-xdist
workers) inherit the tunable; a subject the harness starts gets ``subject_environment()``, the environment as the user
gave it.

``plan_restart`` and ``subject_environment`` are pure (an environment in, one out); ``restart_if_useful`` is the edge.
"""

from __future__ import annotations

import json
import os
import platform
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["TUNABLE", "plan_restart", "restart_if_useful", "subject_environment"]

#: The glibc tunable (GLIBC_TUNABLES syntax) the harness restarts with.
TUNABLE = "glibc.malloc.hugetlb=1"
#: Set for the restarted process: the ``GLIBC_TUNABLES`` value before the restart, as JSON (``null``: unset).
_WAS = "SIMULATOR_GLIBC_TUNABLES_WAS"
#: Where Linux says how it hands out transparent huge pages: ``always [madvise] never``.
_THP_MODE = Path("/sys/kernel/mm/transparent_hugepage/enabled")


def plan_restart(environ: Mapping[str, str], system: str, libc: tuple[str, str],
                 thp_mode: str) -> dict[str, str] | None:
    """The environment to start again with, or None to go on as is: not on Linux with glibc ≥ 2.35 and transparent
    huge pages on ``madvise``; already restarted; or a ``GLIBC_TUNABLES`` that sets ``glibc.malloc.hugetlb`` itself."""
    if _WAS in environ or system != "Linux" or libc[0] != "glibc" or "[madvise]" not in thp_mode:
        return None
    try:
        major, minor = (int(part) for part in libc[1].split(".")[:2])
    except ValueError:
        return None
    if (major, minor) < (2, 35):
        return None
    current = environ.get("GLIBC_TUNABLES")
    if current is not None and "glibc.malloc.hugetlb" in current:
        return None
    env = dict(environ)
    env["GLIBC_TUNABLES"] = f"{current}:{TUNABLE}" if current else TUNABLE
    env[_WAS] = json.dumps(current)
    return env


def restart_if_useful() -> None:
    """Replace this process by the same command with the tunable set (``plan_restart``); returns when there is
    nothing to gain or the facts cannot be read. Call it before anything is started: the process image is replaced."""
    try:
        thp_mode = _THP_MODE.read_text(encoding="ascii")
    except OSError:
        return
    env = plan_restart(os.environ, platform.system(), platform.libc_ver(), thp_mode)
    if env is None or not sys.executable or not getattr(sys, "orig_argv", None):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(sys.executable, [sys.executable, *sys.orig_argv[1:]], env)
    except OSError:
        return  # the interpreter could not be started again: go on without the tunable


def subject_environment(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """``environ`` (default: this process's) as the user gave it: without what ``plan_restart`` added."""
    env = dict(os.environ if environ is None else environ)
    was = env.pop(_WAS, None)
    if was is None:
        return env
    try:
        before = json.loads(was)
    except ValueError:
        before = None
    if isinstance(before, str):
        env["GLIBC_TUNABLES"] = before
    else:
        env.pop("GLIBC_TUNABLES", None)
    return env
