"""Binds features/probekit/*.feature, the MCP Probe Kit v2 design (steps: steps/probekit/ over simulator/drivers/probekit/)."""

import pytest_bdd as bdd

bdd.scenarios("probekit")
