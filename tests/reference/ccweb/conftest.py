"""Shared fixtures of the reference ccweb tests: a core on a fresh SQLite file, deterministic ids, and small
helpers to call the control API and to run an MCP client session in-memory."""

from __future__ import annotations

import itertools
import json
import socket
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest

from simulator.reference.ccweb.core import CcwebCore
from simulator.reference.ccweb.parts import CcwebParts
from simulator.reference.ccweb.store import Store


def counting_ids() -> Callable[[str], str]:
    """Deterministic ids: ``req-1``, ``run-2``, … (one counter for every prefix)."""
    counter = itertools.count(1)
    return lambda prefix: f"{prefix}-{next(counter)}"


@pytest.fixture
def state_path(tmp_path):
    return tmp_path / "state.sqlite3"


@pytest.fixture
def make_core(state_path):
    """``make_core(parts=None)`` → a core (with the machine of ``parts``) on the test's state file (the same file every
    time it is called)."""
    stores: list[Store] = []
    ids = counting_ids()  # shared: ids stay unique across "processes" on the same file, as uuids are

    def make(parts: CcwebParts | None = None, **kwargs: Any) -> CcwebCore:
        store = Store(state_path)
        stores.append(store)
        return CcwebCore(store, machine=(parts or CcwebParts()).machine, new_id=kwargs.pop("new_id", ids), **kwargs)

    yield make
    for store in stores:
        store.close()


@pytest.fixture
def core(make_core):
    return make_core()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _post(base: str, capability: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """POST a control capability; (status, decoded JSON), also for error statuses."""
    request = urllib.request.Request(f"{base}/v1/{capability}", data=json.dumps(body or {}).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.fixture
def free_port() -> Callable[[], int]:
    """``free_port()`` → a TCP port that was free a moment ago on 127.0.0.1."""
    return _free_port


@pytest.fixture
def post() -> Callable[..., tuple[int, Any]]:
    """``post(base_url, capability, body)`` → (HTTP status, decoded JSON) of a control API call."""
    return _post
