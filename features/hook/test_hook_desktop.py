"""Binds features/hook/desktop/*.feature, the desktop's obligations of slack-hook-protocol.md (steps:
steps/hook_desktop/ over simulator/drivers/hook_desktop/)."""

import pytest_bdd as bdd

bdd.scenarios("hook/desktop")
