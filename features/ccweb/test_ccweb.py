"""Binds features/ccweb/*.feature, the ccweb reply-mode contract (steps: steps/ccweb.py)."""

import pytest_bdd as bdd

bdd.scenarios("ccweb")
