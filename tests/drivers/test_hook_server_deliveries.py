"""``simulator.drivers.hook_server.deliveries``: turn.delivery sequences, a safe error, the receipt (fakes)."""

from __future__ import annotations

import pytest
from test_hook_server_fakes import make_driver, task_row

from simulator.drivers.hook_server import check_delivery_error, leaks
from simulator.hook import DeliveryError, make_turn_delivery


def retrying(request_id="r1", attempt=1, retry_at=5_000, code="publish_failed", message="the channel is down"):
    return make_turn_delivery(request_id, "retrying", attempt, retry_at, DeliveryError(code, message, True))


def test_a_safe_error_passes():
    check_delivery_error(retrying().payload, ["the user's question"])


def test_a_delivery_error_that_leaks_user_text_fails():
    payload = retrying(message="could not post: what is the weather in Paris").payload
    with pytest.raises(AssertionError, match="repeats user content or a credential"):
        check_delivery_error(payload, ["what is the weather in Paris today?"])


def test_a_leak_is_any_sixteen_character_piece_of_a_secret():
    assert leaks("a secret token value", "… secret token va …")
    assert not leaks("a secret token value", "secret token v")


def test_a_credential_in_the_error_fails_through_the_drivers_secrets():
    driver, _, _ = make_driver(token="tok-0123456789abcdef")
    with pytest.raises(AssertionError, match="repeats user content or a credential"):
        driver.deliveries.check_error_safe(retrying(message="auth tok-0123456789abcdef refused").payload)


@pytest.mark.parametrize("code", ["publish failed", "<b>x</b>", "x" * 81])
def test_an_error_code_that_is_not_machine_readable_fails(code):
    with pytest.raises(AssertionError, match="is not a machine-readable code"):
        check_delivery_error(retrying(code=code).payload, [])


@pytest.mark.parametrize("message", ["HTTP/1.1 502 Bad Gateway", '{"ok":false}', "Traceback (most recent call)"])
def test_an_error_message_that_looks_like_a_raw_provider_response_fails(message):
    with pytest.raises(AssertionError, match="looks like a raw provider response"):
        check_delivery_error(retrying(message=message).payload, [])


def test_a_blank_message_fails():
    with pytest.raises(AssertionError, match="error.message is blank"):
        check_delivery_error(retrying(message="   ").payload, [])


def test_retries_are_followed_on_the_servers_clock_until_the_state():
    driver, control, _ = make_driver({"advance-clock": {"now": 1_000}})
    driver.scenario.request_ids["first"] = "r1"
    role = driver.scenario.device("A").role
    role.receives(retrying(attempt=1, retry_at=5_000))
    role.receives(make_turn_delivery("r1", "delivered", 2, None, None))
    driver.deliveries.expect_retries_until("first", "delivered")
    assert ("advance-clock", {"ms": 4_001}) in control.calls


def test_a_retry_sequence_that_ends_otherwise_fails():
    driver, _, _ = make_driver({"advance-clock": {"now": 0}})
    driver.scenario.request_ids["first"] = "r1"
    driver.scenario.device("A").role.receives(make_turn_delivery("r1", "failed", 1, None,
                                                                 DeliveryError("gave_up", "no more", False)))
    with pytest.raises(AssertionError, match="turn.delivery 'failed' before 'delivered'"):
        driver.deliveries.expect_retries_until("first", "delivered")


def test_the_next_delivery_must_be_in_the_state_expected():
    driver, _, _ = make_driver()
    driver.scenario.request_ids["first"] = "r1"
    driver.scenario.device("A").role.receives(make_turn_delivery("r1", "accepted", 0, None, None))
    with pytest.raises(AssertionError, match="is 'accepted' \\(attempt 0\\), expected 'delivered'"):
        driver.deliveries.expect_delivery("A", "first", "delivered")


def test_the_retry_time_needs_a_retrying_delivery():
    driver, _, _ = make_driver()
    with pytest.raises(AssertionError, match="no retrying turn.delivery of 'first' to wait for"):
        driver.deliveries.reach_retry_time("first")
    with pytest.raises(AssertionError, match="no retrying/failed turn.delivery of 'first'$"):
        driver.deliveries.expect_error_safe("first")


def receipt_driver(expires_at):
    delivery = {"state": "delivered", "attempt": 1, "retryAt": None, "receiptExpiresAt": expires_at}
    driver, _, _ = make_driver({"advance-clock": {"now": 1_000},
                                "list-tasks": {"tasks": [task_row("r1", delivery=delivery)]}})
    driver.scenario.request_ids["first"] = "r1"
    return driver


def test_a_receipt_with_a_future_expiry_passes():
    driver = receipt_driver(9_000)
    driver.deliveries.expect_receipt_bounded("first")
    assert driver.scenario.receipt_expiry == {"first": 9_000}


@pytest.mark.parametrize(("expires_at", "failure"), [(None, "has no expiry"), (1_000, "not after now 1000")])
def test_a_receipt_without_a_future_expiry_fails(expires_at, failure):
    with pytest.raises(AssertionError, match=failure):
        receipt_driver(expires_at).deliveries.expect_receipt_bounded("first")


def test_a_receipt_kept_after_its_expiry_fails():
    with pytest.raises(AssertionError, match="still holds the delivery receipt of 'first' after its expiry"):
        receipt_driver(9_000).deliveries.expect_no_receipt("first")
