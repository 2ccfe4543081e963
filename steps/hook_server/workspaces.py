"""The default workspace's membership rule (spec 默认工作目录 "defaultWorkspace 必须是 workspaces 的成员,校验器据此拒收").
One phrase → one ``HookServerDriver`` operation (``simulator.drivers.hook_server.workspaces``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.hook_server import HookServerDriver


@bdd.when(parsers.parse('device "{dev}" says hello again with a defaultWorkspace outside its workspaces'))
def foreign_default(hook_srv: HookServerDriver, dev: str) -> None:
    hook_srv.workspaces.say_hello_with_foreign_default(dev)
