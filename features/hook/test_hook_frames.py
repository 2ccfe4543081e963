"""Binds features/hook/frames/*.feature as conformance scenarios over the wire (steps: steps/hook_frames.py).

Every case runs once per hook subject (``frame_subject``): the hook server under test and the desktop under test.
Which cases are wire cases is decided in features/hook/conftest.py (rejections, and valid pings).
"""

import pytest
import pytest_bdd as bdd

bdd.scenarios("hook/frames")


@pytest.fixture(params=["hook-server", "desktop"], autouse=True)
def frame_subject(request: pytest.FixtureRequest) -> str:
    """The hook subject a frame case is delivered to."""
    return request.param
