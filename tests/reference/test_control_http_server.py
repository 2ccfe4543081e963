"""The references' control HTTP server (simulator/reference/control_http.py): it answers while it runs, and
``stop()`` ends its serving thread by waking it (a connection of its own) instead of waiting out its poll interval,
also when it listens on a wildcard address, and closes the listening socket."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import threading

import pytest

import simulator.reference.control_http as control_http
from simulator.reference.control_http import JsonControlServer


def _server(host: str) -> JsonControlServer:
    def handle(method: str, path: str, body: bytes) -> tuple[int, dict]:
        return 200, {"method": method, "path": path}

    server = JsonControlServer(handle, host=host, port=0, name="test-control", log=logging.getLogger("test"))
    server.start()
    return server


def _get(host: str, port: int) -> dict:
    conn = http.client.HTTPConnection(host, port, timeout=5)
    try:
        conn.request("GET", "/v1")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


@pytest.mark.parametrize("host", ["127.0.0.1", "0.0.0.0"])
def test_stop_wakes_the_serving_thread_instead_of_waiting_out_the_poll(host: str, monkeypatch) -> None:
    """With a 60 s poll, only the wake-up can end the thread within seconds."""
    monkeypatch.setattr(control_http, "SHUTDOWN_POLL_S", 60.0)
    server = _server(host)
    port = server._httpd.server_address[1]
    assert _get("127.0.0.1", port) == {"method": "GET", "path": "/v1"}
    thread = server._thread
    stopping = threading.Thread(target=server.stop, daemon=True)
    stopping.start()
    stopping.join(10)  # a liveness bound far from the 60 s poll, not a speed figure
    assert not stopping.is_alive() and not thread.is_alive(), "the serving thread was not woken by stop()"
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass
    server.stop()  # twice: nothing left to stop


def test_a_stop_whose_wake_up_cannot_connect_still_ends_within_the_poll(monkeypatch) -> None:
    monkeypatch.setattr(control_http, "_wake", lambda address, family: None)
    server = _server("127.0.0.1")
    thread = server._thread
    server.stop()
    assert not thread.is_alive()
