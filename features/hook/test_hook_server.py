"""Binds features/hook/server/*.feature, the hook server's obligations of slack-hook-protocol.md (steps:
steps/hook_server/ over simulator/drivers/hook_server/)."""

import pytest_bdd as bdd

bdd.scenarios("hook/server")
