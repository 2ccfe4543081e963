"""Binds features/faults/*.feature, the fault profile (off unless ``-m faults``; steps: steps/faults_hook_server.py
and steps/faults_desktop.py over simulator/drivers/faults/)."""

import pytest_bdd as bdd

bdd.scenarios("faults")
