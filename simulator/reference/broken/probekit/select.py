"""Which probe-kit reference to serve: ``--variant NAME`` or ``PROBEKIT_REFERENCE_VARIANT`` (``mcp_select``), as the
reference's ``ProbekitParts``. A variant's class is a ``ProbeKit`` or a wrapper of the MCP server
(``mcp_transport.TransportFault``); the other parts stay the correct ones."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ...probekit.kit import ProbeKit
from ...probekit.parts import ProbekitParts
from ..mcp_select import VariantChooser
from ..mcp_transport import TransportFault
from .inputs import StrictInputs

__all__ = ["CHOOSER", "VARIANT_ENV", "assemble"]

VARIANT_ENV: Final = "PROBEKIT_REFERENCE_VARIANT"


def assemble(target: Any, identity: Mapping[str, Any]) -> ProbekitParts:
    """The parts that run ``target`` in place of ``ProbeKit`` (or around the server it wraps)."""
    if isinstance(target, type) and issubclass(target, ProbeKit):
        return ProbekitParts(kit=target, identity=identity)
    if isinstance(target, type) and issubclass(target, TransportFault):
        fault = target()
        return ProbekitParts(wrap_server=fault.wrap, guard_stdout=fault.guard_stdout, identity=identity)
    raise TypeError(f"not a part of the probe-kit reference: {target!r}")


CHOOSER: Final = VariantChooser[ProbekitParts](
    subject="probekit-mcp", env=VARIANT_ENV, label="probekit",
    correct=lambda identity: ProbekitParts(identity=identity), assemble=assemble,
    alternatives={"strict-inputs": StrictInputs},
)
