"""Binds features/hook/desktop/*.feature, the desktop's obligations of slack-hook-protocol.md (steps:
steps/hook_desktop.py)."""

import pytest_bdd as bdd

bdd.scenarios("hook/desktop")
