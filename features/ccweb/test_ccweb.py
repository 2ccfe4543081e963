"""Binds features/ccweb/*.feature, the ccweb reply-mode contract (steps: steps/ccweb/ over simulator/drivers/ccweb/)."""

import pytest_bdd as bdd

bdd.scenarios("ccweb")
