"""Binds features/robustness/*.feature, the robustness profile (off unless ``-m robustness``; steps:
steps/robustness.py over simulator/drivers/robustness/)."""

import pytest_bdd as bdd

bdd.scenarios("robustness")
