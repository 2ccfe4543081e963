"""The control capabilities of the provider families (docs/control-api.md "Bindings and preferences (desktop)"): request
bodies read here, the commands run on the machine (``providers.ProviderFamilies``) under the client's lock. A refusal
(``Refused``) answers its code: 409 ``offline`` / ``channel-hidden`` / ``feature-off``, 400 ``invalid-request`` /
``not-found``; nothing is sent then.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from ..control_http import BadRequest
from .client import DesktopClient

__all__ = ["PROVIDER_CAPABILITIES", "PROVIDER_STATUS", "provider_routes"]

PROVIDER_CAPABILITIES: Final = (
    "provider-bind", "provider-cancel", "provider-revoke", "provider-prefs-get", "provider-prefs-set",
    "behavior-get", "behavior-set",
)
PROVIDER_STATUS: Final = {"offline": 409, "channel-hidden": 409, "feature-off": 409}


def _str(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value:
        raise BadRequest(f"{key}: a non-empty string is required")
    return value


def _opt_str(body: dict[str, Any], key: str) -> str | None:
    value = body.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise BadRequest(f"{key}: a non-empty string or nothing is required")
    return value


def _obj(body: dict[str, Any], key: str, *, required: bool) -> dict[str, Any] | None:
    value = body.get(key)
    if value is None and not required:
        return None
    if not isinstance(value, dict):
        raise BadRequest(f"{key}: an object is required")
    return value


def provider_routes(client: DesktopClient) -> dict[str, Callable[[dict[str, Any]], dict[str, Any]]]:
    """capability → handler, in the order of ``PROVIDER_CAPABILITIES``."""
    m = client.machine

    def with_id(fn: Callable[[float], Any]) -> dict[str, Any]:
        return {"ok": True, "requestId": client.call(fn)}

    def ok(fn: Callable[[float], Any]) -> dict[str, Any]:
        client.call(fn)
        return {"ok": True}

    def prefs_set(b: dict[str, Any]) -> dict[str, Any]:
        changes = _obj(b, "set", required=True) or {}
        return with_id(lambda now: m.provider_prefs_set(_str(b, "provider"), _opt_str(b, "bindingId"),
                                                        _opt_str(b, "scopeId"), _str(b, "workspace"), changes, now))

    def behavior_set(b: dict[str, Any]) -> dict[str, Any]:
        changes = _obj(b, "set", required=False) or {}
        activation = _obj(b, "groupActivation", required=False)
        return with_id(lambda now: m.behavior_set(_str(b, "bindingId"), changes, activation, now))

    routes: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
        "provider-bind": lambda b: with_id(lambda now: m.provider_bind(_str(b, "provider"), _opt_str(b, "scopeId"),
                                                                       now)),
        "provider-cancel": lambda b: ok(lambda now: m.provider_cancel(_str(b, "provider"), _str(b, "attemptId"),
                                                                      now)),
        "provider-revoke": lambda b: ok(lambda now: m.provider_revoke(_str(b, "provider"), _str(b, "bindingId"),
                                                                      now)),
        "provider-prefs-get": lambda b: with_id(lambda now: m.provider_prefs_get(
            _str(b, "provider"), _opt_str(b, "bindingId"), _opt_str(b, "scopeId"), now)),
        "provider-prefs-set": prefs_set,
        "behavior-get": lambda b: with_id(lambda now: m.behavior_get(_str(b, "bindingId"), now)),
        "behavior-set": behavior_set,
    }
    assert tuple(routes) == PROVIDER_CAPABILITIES
    return routes
