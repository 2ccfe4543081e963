"""Which build of the reference desktop runs: the correct one, or a broken variant picked by name (test fixtures).

The name comes from ``--variant NAME`` on ``python -m simulator serve desktop`` or from the environment variable
``DESKTOP_REFERENCE_VARIANT`` (a run's ``--subject-env desktop=…`` first, then the process's); ``none``,
``correct`` or nothing picks the correct desktop, an unknown name is a ``ValueError`` naming the known ones. A
variant's registration (``registry.broken``) names its class: a ``DesktopMachine`` subclass, or a ``DesktopClient``
subclass for a rule of the dialling shell. The desktop's CLI and embedded start reach this module by name
(``simulator.reference.desktop.BUILDS_MODULE``).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any, Final

from ...desktop import Build
from ...desktop.client import DesktopClient
from ...desktop.machine import DesktopMachine
from ..registry import names, parse

__all__ = ["ENV", "add_options", "build", "from_environment", "from_options", "machine_class", "make_machine"]

#: The environment variable that names the variant of an embedded desktop (and of a served one without --variant).
ENV: Final = "DESKTOP_REFERENCE_VARIANT"


def build(name: str | None) -> Build:
    """The build of variant ``name`` (None, empty, ``none``, ``correct``: the correct desktop); the identity of a run
    says which (``"variant"``)."""
    case = parse("desktop", name)
    if case is None:
        return Build(identity={"variant": None})
    if isinstance(case.target, type) and issubclass(case.target, DesktopClient):
        return Build(client_class=case.target, identity={"variant": case.name})
    return Build(machine_class=case.target, identity={"variant": case.name})


def from_environment(*environments: Mapping[str, str]) -> Build:
    """The build the first of ``environments`` that sets ``ENV`` (to a non-empty value) names."""
    return build(next((env[ENV] for env in environments if env.get(ENV)), None))


def add_options(parser: argparse.ArgumentParser) -> None:
    """``--variant NAME`` (default: ``$DESKTOP_REFERENCE_VARIANT``)."""
    parser.add_argument("--variant", default=None, help=f"a broken variant ({', '.join(names('desktop'))}); "
                                                       f"default: ${ENV}")


def from_options(args: argparse.Namespace) -> Build | None:
    """The build ``--variant`` names; None when it is not given (the environment decides)."""
    return None if args.variant is None else build(args.variant)


def machine_class(name: str | None) -> type[DesktopMachine]:
    """The machine class variant ``name`` runs (``DesktopMachine`` for the correct desktop and for a variant of the
    dialling shell)."""
    return build(name).machine_class


def make_machine(name: str | None, **kwargs: Any) -> DesktopMachine:
    """A machine of variant ``name`` built with ``kwargs``, to drive without a socket (the unit tests)."""
    return machine_class(name)(**kwargs)
