"""The Hypothesis profiles of the test suite: ``default`` (fast, CI) and ``fuzz`` (at least one million inputs
across the fuzz tests), chosen with ``HYPOTHESIS_PROFILE=fuzz`` or ``--hypothesis-profile fuzz``.

Here rather than in the root conftest, so that a conformance run (``features/`` alone, every child run of a
broken variant) never pays for importing Hypothesis.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=200, deadline=None)
settings.register_profile("fuzz", max_examples=250_000, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
