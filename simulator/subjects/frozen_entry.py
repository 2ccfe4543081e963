"""How a process the harness starts of itself runs when the harness is the single-file executable
``hook-conformance`` (packaging/hook-conformance.spec, whose entry script calls ``main``; docs/executable.md).

Frozen, ``sys.executable`` is the executable itself, not a Python interpreter, yet the harness and its libraries
start ``sys.executable`` as one: the embedded references as ``sys.executable -m simulator serve NAME`` (the MCP
references over stdio, the fault profile's hook server), the load profile as ``-m locust`` and ``-m
simulator.profiles.load.echo``, and pytest-xdist's workers through execnet as ``sys.executable -u -c "import
sys;exec(eval(sys.stdin.readline()))"``. The executable therefore reads its command line as the interpreter's
when it opens with the interpreter's options (``-c CODE`` or ``-m MODULE``, after any of the flags in
``PYTHON_FLAGS``), and as the harness's otherwise: one seam, here, serves every such start, the third-party ones
included, and the callers keep their ordinary ``sys.executable`` command.

``read_command_line`` is the pure part (argv in, an ``Invocation`` out); ``main`` carries it out, handing the
harness's own command lines to the harness's ``main``, which it is given (this layer does not import the command
line's).
"""

from __future__ import annotations

import enum
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = ["PYTHON_FLAGS", "Invocation", "InvocationKind", "read_command_line", "main"]

#: The interpreter's flags that may precede ``-c`` / ``-m`` (execnet passes ``-u`` and ``-B``): read and ignored
#: but for ``-u``, which asks for unbuffered standard streams.
PYTHON_FLAGS = frozenset({"-u", "-B", "-E", "-s", "-S", "-I", "-O", "-OO", "-q"})


class InvocationKind(enum.Enum):
    HARNESS = "harness"  # the harness's own command line: hook-conformance run …
    MODULE = "module"  # python -m MODULE ARGS…
    CODE = "code"  # python -c CODE ARGS…


@dataclass(frozen=True, slots=True)
class Invocation:
    """What a command line asks for: ``target`` is the module or the code (empty for the harness), ``argv`` what
    ``sys.argv`` is while it runs (the interpreter's convention: ``-c`` or the module's name first)."""

    kind: InvocationKind
    target: str
    argv: tuple[str, ...]
    unbuffered: bool = False


def read_command_line(args: Sequence[str]) -> Invocation:
    """Read ``args`` (``sys.argv[1:]``) as the interpreter's options when they open with ``-c``/``-m`` (after any
    of ``PYTHON_FLAGS``), else as the harness's. A flag not followed by ``-c``/``-m`` leaves the whole line to the
    harness, whose parser reports it; the harness's own commands never start with one of these flags."""
    i = 0
    while i < len(args) and args[i] in PYTHON_FLAGS:
        i += 1
    unbuffered = "-u" in args[:i]
    if i < len(args):
        option, rest = args[i], list(args[i + 1:])
        for flag, kind in (("-c", InvocationKind.CODE), ("-m", InvocationKind.MODULE)):
            if option == flag and rest:
                target = rest.pop(0)
                return Invocation(kind, target, ("-c" if kind is InvocationKind.CODE else target, *rest), unbuffered)
            if option.startswith(flag) and len(option) > 2:  # -cCODE, -mMODULE: the interpreter accepts these too
                target = option[2:]
                return Invocation(kind, target, ("-c" if kind is InvocationKind.CODE else target, *rest), unbuffered)
    return Invocation(InvocationKind.HARNESS, "", tuple(args))


def main(args: Sequence[str], harness: Callable[[list[str]], int]) -> int:
    """Run what the command line ``args`` (``sys.argv[1:]``) asks for and return the exit code: ``harness`` (the
    harness's ``main``) for its own command lines, the module or the code as ``__main__`` for the interpreter's (a
    ``SystemExit`` they raise goes through, as from the interpreter)."""
    invocation = read_command_line(args)
    if invocation.kind is InvocationKind.HARNESS:
        return harness(list(invocation.argv))
    if invocation.unbuffered:
        for stream in (sys.stdout, sys.stderr):
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(write_through=True)
    sys.argv = list(invocation.argv)
    if invocation.kind is InvocationKind.MODULE:
        import runpy

        runpy.run_module(invocation.target, run_name="__main__", alter_sys=True)
    else:
        exec(compile(invocation.target, "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})
    return 0
