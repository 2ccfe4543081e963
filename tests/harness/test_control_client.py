"""``simulator.subjects.control.ControlClient`` over a real HTTP server: one kept-alive connection for many calls, a new one
when the subject closed it between calls, and each answer mapped to its verdict (docs/control-api.md)."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from simulator.subjects.control import ControlClient
from simulator.errors import NotTestable, SubjectRefused, TargetError


class _Subject:
    """A control API on 127.0.0.1 that counts the TCP connections it accepted; ``close_after_answer`` closes each
    connection after its answer without saying so (as a subject whose keep-alive ends)."""

    def __init__(self) -> None:
        self.connections = 0
        self.close_after_answer = False
        subject = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def setup(self) -> None:
                subject.connections += 1
                super().setup()

            def log_message(self, *args: Any) -> None:
                pass

            def _answer(self, status: int, body: bytes) -> None:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
                if subject.close_after_answer:
                    self.close_connection = True

            def do_GET(self) -> None:  # noqa: N802
                self._answer(200, json.dumps({"version": "1", "role": "hook-server",
                                              "capabilities": ["echo", "refuse", "garbled"]}).encode())

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if self.path == "/v1/echo":
                    self._answer(200, json.dumps(body).encode())
                elif self.path == "/v1/refuse":
                    self._answer(409, b'{"error": {"code": "card-closed", "message": "closed"}}')
                elif self.path == "/v1/garbled":
                    self._answer(200, b"not json")
                else:
                    self._answer(404, b'{"error": {"code": "not-found", "message": "no"}}')

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def subject() -> Iterator[_Subject]:
    s = _Subject()
    yield s
    s.stop()


def test_calls_share_one_kept_alive_connection(subject: _Subject) -> None:
    client = ControlClient(subject.url, role="hook-server", timeout=5)
    for n in range(5):
        assert client.call("echo", {"n": n}) == {"n": n}
    assert subject.connections == 1
    client.close()


def test_a_connection_the_subject_closed_between_calls_is_replaced(subject: _Subject) -> None:
    subject.close_after_answer = True
    client = ControlClient(subject.url, role="hook-server", timeout=5)
    for n in range(3):
        assert client.call("echo", {"n": n}) == {"n": n}
        time.sleep(0.05)  # the close has reached the client before the next call
    assert subject.connections == 4  # GET /v1, then one per call
    client.close()


def test_a_close_still_on_its_way_when_the_next_call_goes_out_costs_one_resend(subject: _Subject,
                                                                               monkeypatch) -> None:
    """The subject closes after each answer, and the client does not see the close before its next request (the
    race ``_closed_by_peer`` loses when the FIN is late): the request fails with no answer on the reused
    connection, and goes once more on a new one. A fresh connection that fails is not retried."""
    import simulator.subjects.control as control

    monkeypatch.setattr(control, "_closed_by_peer", lambda sock: False)
    subject.close_after_answer = True
    client = ControlClient(subject.url, role="hook-server", timeout=5)
    for n in range(3):
        assert client.call("echo", {"n": n}) == {"n": n}
    assert subject.connections == 4  # GET /v1, then one per call: each stale connection's request went again
    client.close()


def test_each_answer_keeps_its_verdict(subject: _Subject) -> None:
    client = ControlClient(subject.url, role="hook-server", timeout=5)
    with pytest.raises(SubjectRefused) as refused:
        client.call("refuse")
    assert refused.value.status == 409 and refused.value.code == "card-closed"
    with pytest.raises(AssertionError, match="invalid JSON"):
        client.call("garbled")
    with pytest.raises(NotTestable, match="does not offer the capability"):
        client.call("not-offered")
    assert client.call("echo", {"after": "errors"}) == {"after": "errors"}  # the connection survived them
    assert subject.connections == 1
    client.close()


def test_an_unreachable_control_api_is_a_target_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = ControlClient(f"http://127.0.0.1:{port}", role="hook-server", timeout=2)
    with pytest.raises(TargetError, match="unreachable"):
        client.capabilities()
