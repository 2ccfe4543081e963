"""The reference desktop's provider control capabilities over HTTP (docs/control-api.md "Bindings and preferences
(desktop)"): the status and code of each refusal, nothing sent then, and the frame sent when accepted."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from simulator.reference.desktop import start_embedded
from simulator.reference.desktop.provider_control import PROVIDER_CAPABILITIES
from simulator.roles import ServerRole

FEATURES = ["provider-bind-v1", "provider-prefs-v1", "provider:telegram"]


def control(handle, capability, body=None, method="POST"):
    path = "/v1" if method == "GET" else f"/v1/{capability}"
    data = None if method == "GET" else json.dumps(body or {}).encode()
    req = urllib.request.Request(f"{handle.control_url}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.loads(resp.read())


def refused(handle, capability, body) -> tuple[int, str]:
    with pytest.raises(urllib.error.HTTPError) as info:
        control(handle, capability, body)
    return info.value.code, json.loads(info.value.read())["error"]["code"]


@pytest.fixture
def setup():
    server = ServerRole(step_timeout=5.0)
    url = server.listen()
    ref = start_embedded()
    handle = ref.dial(url, None)
    server.accept()
    hello = server.expect_hello()
    yield server, handle, hello
    handle.stop()
    ref.stop()
    server.close()


def test_the_capabilities_are_listed_and_the_features_declared(setup):
    _, handle, hello = setup
    assert set(PROVIDER_CAPABILITIES) <= set(control(handle, "", method="GET")["capabilities"])
    assert {"provider-bind-v1", "provider-prefs-v1", "provider-behavior-v1", "session-picker-v1"} <= set(
        hello.features)


def test_refusals_send_nothing(setup):
    server, handle, _ = setup
    assert refused(handle, "provider-bind", {"provider": "telegram"}) == (409, "offline")  # no welcome yet
    server.welcome(FEATURES)
    control(handle, "set-workspaces", {"workspaces": {"proj": "/"}, "defaultWorkspace": None})
    server.expect_hello()
    assert refused(handle, "provider-bind", {"provider": "x"}) == (409, "channel-hidden")
    assert refused(handle, "provider-bind", {"provider": "slack"}) == (400, "invalid-request")
    assert refused(handle, "provider-prefs-get", {"provider": "telegram", "bindingId": "b", "scopeId": "s"}) == (
        400, "invalid-request")
    assert refused(handle, "provider-prefs-set", {"provider": "telegram", "bindingId": "b", "workspace": "/",
                                                  "set": {"model": "m"}}) == (400, "not-found")
    assert refused(handle, "behavior-get", {"bindingId": "b"}) == (409, "feature-off")
    server.expect_none(lambda e: e.type.startswith("provider."), within=0.3)
    answer = control(handle, "provider-prefs-set", {"provider": "telegram", "scopeId": "s", "workspace": "proj",
                                                    "set": {"model": "m"}})
    frame = server.expect_payload("provider.prefs.set")
    assert frame.request_id == answer["requestId"] and frame.workspace == "proj" and frame.scope_id == "s"
