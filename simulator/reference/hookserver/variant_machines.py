"""Which machine class runs a broken variant (docs/hook-server-plan.md "Broken variants"): the variants that subclass
``HookServerMachine`` (``relay_variants``: group relay and message operations; ``gateway_variants``: queries,
gateway tools, the rest of interactions, the default workspace; ``core_variants``: the protocol core;
``load_variants``: the load profile's load-only variants) are picked
here by name, so the correct machine's code paths know nothing about them; every other variant runs the correct class (its switch lives in the family it
breaks). ``server.HookServer`` builds its machine with ``machine_class(settings.variant)``.
"""

from __future__ import annotations

from typing import Final

from .core_variants import CORE_WRAPPED
from .fault_variants import FAULTS_WRAPPED
from .gateway_variants import GATEWAY_WRAPPED
from .load_variants import LOAD_WRAPPED
from .machine import HookServerMachine
from .relay_variants import RELAY_WRAPPED
from .robustness_variants import ROBUSTNESS_WRAPPED
from .variants import Variant

__all__ = ["WRAPPED", "machine_class"]

#: variant → the subclass of the machine that breaks its rule
WRAPPED: Final[dict[Variant, type[HookServerMachine]]] = {**RELAY_WRAPPED, **GATEWAY_WRAPPED, **CORE_WRAPPED,
                                                          **ROBUSTNESS_WRAPPED, **FAULTS_WRAPPED,
                                                          **LOAD_WRAPPED}


def machine_class(variant: Variant | None) -> type[HookServerMachine]:
    """The class to run for ``variant`` (None: the correct server)."""
    return WRAPPED.get(variant, HookServerMachine) if variant is not None else HookServerMachine
