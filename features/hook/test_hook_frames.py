"""Binds features/hook/frames/*.feature (steps: steps/hook_frames.py)."""

import pytest_bdd as bdd

bdd.scenarios("hook/frames")
