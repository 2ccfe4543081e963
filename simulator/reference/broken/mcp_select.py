"""How the MCP references' command lines and embedded starts pick a broken subject by name: ``--variant NAME``, else
the reference's environment variable; None, empty, ``none`` or ``correct`` pick the correct reference.

``VariantChooser`` is the ``mcp_serving.Chooser`` the references use by default: the names are the registrations of
the subject (``registry.cases``) plus its conformant alternatives (other choices where the spec is silent, which break
nothing and so are not registered); ``assemble(name, target)`` turns the chosen class into the reference's parts,
whose identity reports ``"variant": name`` (None for the correct reference).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from .registry import CORRECT, lookup, names

__all__ = ["VariantChooser"]

P = TypeVar("P")


@dataclass(frozen=True)
class VariantChooser(Generic[P]):
    """The chooser of ``subject`` (a ``registry.SUBJECTS`` name): ``env`` the variable naming the variant, ``label``
    the reference's name in an error, ``correct(identity)`` the correct parts, ``assemble(target, identity)`` the
    parts of a variant's class, ``alternatives`` the conformant ones by name."""

    subject: str
    env: str
    label: str
    correct: Callable[[Mapping[str, Any]], P]
    assemble: Callable[[Any, Mapping[str, Any]], P]
    alternatives: Mapping[str, Any] = field(default_factory=dict)

    def names(self) -> list[str]:
        """Every name ``--variant`` takes, sorted."""
        return sorted([*names(self.subject), *self.alternatives])

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--variant", metavar="NAME", help=f"a deliberately broken variant (or env {self.env}): "
                            + ", ".join(self.names()))

    def target(self, value: str | None) -> tuple[str, Any] | None:
        """(name, class) of the variant ``value`` names; None for the correct reference; ``ValueError`` naming the
        known ones for a name it does not know."""
        if value is None or value.strip() in CORRECT:
            return None
        name = value.strip()
        if name in self.alternatives:
            return name, self.alternatives[name]
        try:
            return name, lookup(self.subject, name).target
        except ValueError:
            raise ValueError(f"unknown {self.label} variant {value!r} (known: {', '.join(self.names())})") from None

    def parts(self, value: str | None) -> P:
        """The parts of the variant ``value`` names (``target``)."""
        chosen = self.target(value)
        if chosen is None:
            return self.correct({"variant": None})
        name, target = chosen
        return self.assemble(target, {"variant": name})

    def from_args(self, args: argparse.Namespace, environ: Mapping[str, str]) -> P:
        return self.parts(args.variant if args.variant else environ.get(self.env))

    def from_env(self, environ: Mapping[str, str], default: P | None = None) -> P:
        value = environ.get(self.env)
        if default is not None and self.target(value) is None:
            return default
        return self.parts(value)
