"""What the server never puts on the wire, over every frame it sent in the scenario (spec §2)."""

from __future__ import annotations

import pytest_bdd as bdd

from simulator.drivers.hook_server import HookServerDriver


@bdd.then("no frame the server sent in this scenario carries a local absolute path in an alias field")
def no_local_path(hook_srv: HookServerDriver) -> None:
    hook_srv.privacy.check_no_local_path()

