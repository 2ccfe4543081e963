"""How the reference hook server picks a broken build by name: ``--variant NAME`` (``python -m simulator serve
hook-server``), else the environment variable ``HOOK_SERVER_REFERENCE_VARIANT`` (the embedded reference reads the
run's ``--subject-env hook-server=HOOK_SERVER_REFERENCE_VARIANT=NAME`` first); None, empty, ``none`` or ``correct``
pick the correct reference.

The names are the registrations of ``hook-server`` (``registry.cases``) and the load-only builds (load.py), which prove
no requirement. A name becomes a ``Build``: the machine class (a subclass of ``HookServerMachine``) and the shell class
(a subclass of ``HookServer``) to start, and what the server reports of itself (``"variant": name``, None for the
correct reference) in its control API's ``config`` and in the run's identity. The correct reference receives these
through ``start_server``'s neutral options (``machine_class``, ``shell``, ``about``) and never sees a name.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from ...hookserver.machine import HookServerMachine
from ...hookserver.server import HookServer
from ..registry import CORRECT, lookup, names as registered
from .load import LOAD_ONLY

__all__ = ["VARIANT_ENV", "Build", "add_option", "build", "build_for_run", "chosen", "machine_class", "names"]

SUBJECT: Final = "hook-server"
VARIANT_ENV: Final = "HOOK_SERVER_REFERENCE_VARIANT"


@dataclass(frozen=True)
class Build:
    """A build of the reference: ``name`` (None: the correct reference), the machine and shell classes to start."""

    name: str | None = None
    machine: type[HookServerMachine] = HookServerMachine
    shell: type[HookServer] = HookServer

    def start_options(self) -> dict[str, Any]:
        """``start_server``'s options for this build."""
        return {"machine_class": self.machine, "shell": self.shell, "about": (("variant", self.name),)}


def names() -> list[str]:
    """Every name ``--variant`` takes, sorted."""
    return sorted({*registered(SUBJECT), *LOAD_ONLY})


def build(value: str | None) -> Build:
    """The build ``value`` names (None: read ``$HOOK_SERVER_REFERENCE_VARIANT``); an unknown name raises
    ``ValueError`` naming the known ones."""
    if value is None:
        value = os.environ.get(VARIANT_ENV)
    if value is None or value.strip() in CORRECT:
        return Build()
    name = value.strip()
    if name in LOAD_ONLY:
        return Build(name, LOAD_ONLY[name][0])
    try:
        target = lookup(SUBJECT, name).target
    except ValueError:
        raise ValueError(f"unknown {SUBJECT} variant {value!r} (known: {', '.join(names())})") from None
    if issubclass(target, HookServer):
        return Build(name, shell=target)
    return Build(name, target)


def machine_class(value: str | None) -> type[HookServerMachine]:
    """The machine class of the build ``value`` names (the correct one for a shell's build)."""
    return build(value).machine if value is not None else HookServerMachine


def add_option(parser: argparse.ArgumentParser) -> None:
    """``--variant NAME`` (read back by ``chosen``)."""
    parser.add_argument("--variant", default=None, help=f"a broken variant ({', '.join(names())}); "
                                                        f"default: ${VARIANT_ENV}")


def chosen(args: argparse.Namespace) -> Build:
    """The build the command line names (``add_option``), else the environment's."""
    return build(args.variant)


def build_for_run(subject_env: Mapping[str, str], variant: str | None = None) -> Build:
    """The embedded reference's build: ``variant`` when given (``start_embedded(variant=…)``), else the run's
    ``--subject-env`` setting when it names one, else the environment's."""
    return build(variant if variant is not None else subject_env.get(VARIANT_ENV) or None)
