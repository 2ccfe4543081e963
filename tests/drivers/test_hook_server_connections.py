"""``simulator.drivers.hook_server`` connections and the hook token: handshake judging and refusals (fakes)."""

from __future__ import annotations

import pytest
from test_hook_server_fakes import FakeRole, make_driver

from simulator.drivers.hook_server import BadToken, RefusalStage, hello_kwargs
from simulator.errors import NotApplicable, NotTestable
from simulator.hook import WelcomePayload, make_pong, make_welcome
from simulator.roles.hook_conn import CloseInfo, HandshakeRejected, HookConnectionClosed


def test_hello_overrides_become_role_arguments_and_an_unknown_one_is_our_misuse():
    assert hello_kwargs({"workspaces": ["chat"], "lifecycleAnnouncement": False}) == \
        {"workspaces": ["chat"], "lifecycle_announcement": False}
    with pytest.raises(ValueError, match=r"hello overrides \['deviceName'\] are not supported"):
        hello_kwargs({"deviceName": "x"})


def test_online_says_the_default_hello_updated_by_the_feature():
    driver, _, _ = make_driver()
    driver.connections.online("A", {"features": []})
    role = driver.scenario.device("A").role
    assert role.sent[0] == ("connect", ("ws://hook.invalid/hook", "hook-token"))
    assert role.sent[1] == ("hello", ({"workspaces": ["chat"], "features": []},))


def with_welcome(features=("turn-delivery-v1",)):
    driver, control, _ = make_driver({"config": {"serverName": "hs", "features": list(features), "maxFrameChars": 1,
                                                 "delivery": {"maxAttempts": 1, "backoffMs": 0}, "receiptTtlMs": 1,
                                                 "tokenRequired": True}})
    role = driver.scenario.device("A").role
    role.welcome_payload = make_welcome("hs", tuple(features)).payload
    role.server_features = tuple(features)
    role.require_feature = lambda name: None if name in features else (_ for _ in ()).throw(NotApplicable(name))
    return driver


def test_a_feature_the_server_declares_makes_a_without_requirement_not_applicable():
    driver = with_welcome()
    with pytest.raises(NotApplicable, match="the server declares turn-delivery-v1 in welcome.features"):
        driver.connections.require_not_declared("turn-delivery-v1")
    driver.connections.require_not_declared("turn-reopen-v1")


def test_the_welcome_must_match_the_configuration():
    with_welcome().connections.expect_welcome_matches_config("A")
    driver = with_welcome()
    driver.scenario.device("A").role.welcome_payload = WelcomePayload("hs", ("turn-reopen-v1",))
    with pytest.raises(AssertionError, match="welcome.features \\['turn-reopen-v1'\\], configured"):
        driver.connections.expect_welcome_matches_config("A")


def test_a_pong_with_a_payload_fails():
    driver, _, _ = make_driver()
    driver.scenario.device("A").role.receives(make_pong(extra={"note": "x"}, validate=False))
    with pytest.raises(AssertionError, match="the pong payload is not an empty object"):
        driver.connections.expect_pong("A")


def test_a_server_that_cannot_be_made_to_ping_is_not_testable():
    driver, _, _ = make_driver()
    with pytest.raises(NotTestable, match="ping-desktops"):
        driver.connections.ping_desktops()
    driver, _, _ = make_driver({"ping-desktops": {"ok": True, "sent": 0}})
    with pytest.raises(AssertionError, match="ping-desktops sent no ping"):
        driver.connections.ping_desktops()


def test_no_hook_token_is_not_testable():
    driver, _, _ = make_driver(token=None)
    with pytest.raises(NotTestable, match="--hook-token"):
        driver.auth.require_token()


class RefusedAtUpgrade(FakeRole):
    def connect(self, url, token=None):
        raise HandshakeRejected(url, 401, "missing bearer token\n")


class ClosedAfterHello(FakeRole):
    def expect(self, match, timeout=None):
        raise HookConnectionClosed("closed", CloseInfo(4401, "unauthorized", "peer", 0.1))


class Welcomed(FakeRole):
    def hello(self, **kwargs):
        self.receives(make_welcome("hs", ()))


def test_a_refusal_at_the_upgrade_passes_with_its_reason():
    driver, _, _ = make_driver(role_factory=RefusedAtUpgrade)
    refusal = driver.auth.connect_badly(BadToken.MISSING)
    assert (refusal.stage, refusal.status, refusal.reason) == (RefusalStage.UPGRADE, 401, "missing bearer token")
    driver.auth.expect_refused_with_reason()


def test_a_close_after_the_hello_is_a_refusal():
    driver, _, _ = make_driver(role_factory=ClosedAfterHello)
    refusal = driver.auth.connect_badly(BadToken.WRONG)
    assert (refusal.stage, refusal.status, refusal.reason) == (RefusalStage.CLOSED, 4401, "unauthorized")
    driver.auth.expect_refused_with_reason()


@pytest.mark.parametrize(("role", "stage"), [(Welcomed, RefusalStage.WELCOMED), (FakeRole, RefusalStage.OPEN)])
def test_a_stranger_welcomed_or_left_open_was_not_refused(role, stage):
    driver, _, _ = make_driver(role_factory=role)
    assert driver.auth.connect_badly(BadToken.MISSING).stage is stage
    with pytest.raises(AssertionError, match="a desktop without a token was not refused"):
        driver.auth.expect_refused()


def test_a_refused_upgrade_with_a_server_error_is_no_refusal_of_a_stranger():
    class ServerError(FakeRole):
        def connect(self, url, token=None):
            raise HandshakeRejected(url, 500, "boom")

    driver, _, _ = make_driver(role_factory=ServerError)
    driver.auth.connect_badly(BadToken.MISSING)
    with pytest.raises(AssertionError, match="refused with HTTP 500, not a 4xx"):
        driver.auth.expect_refused()


def test_a_refusal_without_a_reason_fails_the_reason_check():
    class Silent(FakeRole):
        def connect(self, url, token=None):
            raise HandshakeRejected(url, 401, "  ")

    driver, _, _ = make_driver(role_factory=Silent)
    driver.auth.connect_badly(BadToken.WRONG)
    driver.auth.expect_refused()
    with pytest.raises(AssertionError, match="gives no reason"):
        driver.auth.expect_refused_with_reason()

