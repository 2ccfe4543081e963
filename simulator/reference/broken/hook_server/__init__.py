"""Broken variants of the reference hook server (docs/hook-server-plan.md "Broken variants"), by family: each module
registers its classes with ``registry.broken``; importing this package imports them all. ``select`` turns a name
(``--variant``, ``$HOOK_SERVER_REFERENCE_VARIANT``) into the classes to start; ``load`` holds the load-only builds,
which prove no requirement and are not registered.
"""

from __future__ import annotations

from . import bindings, core, delivery, faults, gateway, providers, relay, reopen, robustness, shell

__all__ = ["bindings", "core", "delivery", "faults", "gateway", "providers", "relay", "reopen", "robustness", "shell"]
