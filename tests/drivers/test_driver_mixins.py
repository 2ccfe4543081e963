"""The role drivers are assembled from one mixin per family (``simulator/drivers/hook_server/driver.py``,
``simulator/drivers/hook_desktop/driver.py``). Two mixins defining the same method name would silently hand one
family's operation to the other (the method resolution order picks one), and only a failing scenario would show it.
This pins that no name is defined by two mixins of a driver."""

from __future__ import annotations

from collections import defaultdict

import pytest

from simulator.drivers.hook_desktop.driver import DesktopDriver
from simulator.drivers.hook_server.driver import HookServerDriver


def _clashes(driver: type) -> dict[str, list[str]]:
    owners: dict[str, list[str]] = defaultdict(list)
    for base in driver.__mro__[1:]:
        if base is object:
            continue
        for name in vars(base):
            if not (name.startswith("__") and name.endswith("__")):
                owners[name].append(base.__name__)
    return {name: classes for name, classes in owners.items() if len(classes) > 1}


@pytest.mark.parametrize("driver", [DesktopDriver, HookServerDriver], ids=lambda d: d.__name__)
def test_no_two_mixins_of_a_driver_define_the_same_name(driver: type) -> None:
    clashes = _clashes(driver)
    assert not clashes, f"{driver.__name__}: names defined by more than one mixin: {clashes}"


def test_the_check_sees_a_clash() -> None:
    class A:
        def op(self) -> None: ...

    class B:
        def op(self) -> None: ...

    class D(A, B):
        pass

    assert _clashes(D) == {"op": ["A", "B"]}
