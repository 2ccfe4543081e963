"""Client for a subject's control API (ARCHITECTURE "Observing and driving a subject"; docs/control-api.md).

The control API is small, versioned HTTP + JSON that a subject exposes in test mode so the harness can drive and
observe its far side (the IM channel behind a hook server, the scripted agent behind a desktop, the
conversations behind a ccweb server):

    GET  {base}/v1                    → {"version": "1", "role": "...", "capabilities": ["inject-message", ...]}
    POST {base}/v1/{capability}       → JSON in, JSON out; errors as {"error": {"code": ..., "message": ...}}

``ControlClient.require(capability)`` raises ``NotTestable`` when the subject has no control API or lacks the
capability: a requirement that needs it is then reported *not testable* (a failure), never passed. Any other
HTTP error status is the subject's answer: ``SubjectRefused`` (a failure, with the status and the body's
``error.code``); a step that expects a documented refusal catches exactly that status or code. An answer that is
not the documented JSON is the subject's malformed answer (``AssertionError``, a failure). An unreachable control
API is the harness's ``TargetError`` (error), a silent one ``SubjectTimeout``.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

from .errors import NotTestable, SubjectRefused, SubjectTimeout, TargetError
from .wirelog import Direction, WireLog

__all__ = ["ControlClient", "no_control"]

CONTROL_VERSION = "1"


class ControlClient:
    def __init__(self, base_url: str | None, *, role: str, timeout: float = 5.0, wire: WireLog | None = None) -> None:
        self.base_url = base_url.rstrip("/") if base_url else None
        self.role = role
        self.timeout = timeout
        self.wire = wire
        self._capabilities: frozenset[str] | None = None

    def _http(self, method: str, path: str, body: Any = None) -> Any:
        if self.base_url is None:
            raise NotTestable(f"the {self.role} subject has no control API (give --control {self.role}=URL)")
        url = f"{self.base_url}{path}"
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        if self.wire is not None:
            self.wire.record("control", Direction.SENT, "control", data.decode() if data else "", summary=f"{method} {path}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as exc:
            payload = exc.read()
            text = payload.decode("utf-8", "replace")
            if self.wire is not None:
                self.wire.record("control", Direction.RECEIVED, "control", text, summary=f"HTTP {exc.code}")
            if exc.code == 404:
                raise NotTestable(f"the {self.role} control API has no {path} (HTTP 404)") from None
            raise SubjectRefused(f"control API {method} {url} answered HTTP {exc.code}: {text[:300]}",
                                 status=exc.code, body=text, code=_error_code(text)) from None
        except TimeoutError:
            raise SubjectTimeout(f"control API {method} {url} did not answer within {self.timeout} s",
                                 waited_s=self.timeout) from None
        except (urllib.error.URLError, OSError) as exc:
            raise TargetError(f"control API {method} {url} unreachable: {exc}") from None
        text = payload.decode("utf-8", "replace")
        if self.wire is not None:
            self.wire.record("control", Direction.RECEIVED, "control", text, summary=f"{method} {path} → 200")
        try:
            return json.loads(text) if text else None
        except ValueError:
            raise AssertionError(f"control API {method} {url} answered with invalid JSON (the subject's malformed "
                                 f"answer, docs/control-api.md \"Common shape\"): {text[:200]}") from None

    def capabilities(self) -> frozenset[str]:
        if self._capabilities is None:
            info = self._http("GET", "/v1")
            if not isinstance(info, dict) or not isinstance(info.get("capabilities"), list):
                raise AssertionError(f"control API {self.base_url}/v1 did not describe its capabilities (docs/"
                                     f"control-api.md \"Common shape\"): {info!r}"[:300])
            self._capabilities = frozenset(str(c) for c in info["capabilities"])
        return self._capabilities

    def require(self, capability: str) -> None:
        if capability not in self.capabilities():
            raise NotTestable(f"the {self.role} control API lacks the capability {capability!r}")

    def call(self, capability: str, body: dict[str, Any] | None = None) -> Any:
        self.require(capability)
        return self._http("POST", f"/v1/{capability}", body or {})


def _error_code(text: str) -> str | None:
    """``error.code`` of a control-API error body (docs/control-api.md "Errors"), if it has one."""
    try:
        body = json.loads(text)
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    code = error.get("code") if isinstance(error, dict) else None
    return code if isinstance(code, str) else None


def no_control(role: str) -> ControlClient:
    """The client of a subject without a control API: every use reports *not testable*."""
    return ControlClient(None, role=role)
