"""Which cc-web reference to serve: ``--variant NAME`` or ``CCWEB_REFERENCE_VARIANT`` (``mcp_select``), as the
reference's ``CcwebParts``. A variant's class is a machine (``CcwebMachine``), a control API (``ControlApi``) or a
wrapper of the MCP server (``mcp_transport.TransportFault``); the other parts stay the correct ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...ccweb.control import ControlApi
from ...ccweb.machine import CcwebMachine
from ...ccweb.parts import CcwebParts
from ..mcp_select import VariantChooser
from ..mcp_transport import TransportFault
from .sends import LegacyNoModeRefused

__all__ = ["CHOOSER", "VARIANT_ENV", "assemble"]

VARIANT_ENV: Final = "CCWEB_REFERENCE_VARIANT"


def assemble(target: Any, identity: Mapping[str, Any]) -> CcwebParts:
    """The parts that run ``target`` in place of the correct class it subclasses (or around the server it wraps)."""
    if isinstance(target, type) and issubclass(target, CcwebMachine):
        return CcwebParts(machine=target, identity=identity)
    if isinstance(target, type) and issubclass(target, ControlApi):
        return CcwebParts(control=target, identity=identity)
    if isinstance(target, type) and issubclass(target, TransportFault):
        fault = target()
        return CcwebParts(wrap_server=fault.wrap, guard_stdout=fault.guard_stdout, identity=identity)
    raise TypeError(f"not a part of the cc-web reference: {target!r}")


CHOOSER: Final = VariantChooser[CcwebParts](
    subject="ccweb-mcp", env=VARIANT_ENV, label="ccweb reference",
    correct=lambda identity: CcwebParts(identity=identity), assemble=assemble,
    alternatives={"legacy-nomode-refused": LegacyNoModeRefused},
)
