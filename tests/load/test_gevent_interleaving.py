"""The load users' WebSocket client (``websockets``' sync client) cooperates under Locust's gevent monkey-patching:
1,000 connections in one process all wait at once. A barrier server answers no one until it holds a message from
every client; a client that blocked the process instead of yielding would keep the others from sending, and the
barrier would never open (every wait here is bounded). Run in a subprocess: gevent never patches pytest's process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
USERS = 1000

SERVER = """
import asyncio, json, sys
from websockets.asyncio.server import serve
N = int(sys.argv[1])
async def main():
    waiting, opened = [], asyncio.Event()
    async def handler(ws):
        message = await ws.recv()
        waiting.append((ws, message))
        if len(waiting) == N:
            opened.set()
        await opened.wait()
        await ws.send(message)
        await ws.wait_closed()
    async with serve(handler, "127.0.0.1", 0, backlog=2048, ping_interval=None) as server:
        print(json.dumps({"port": next(iter(server.sockets)).getsockname()[1]}), flush=True)
        await asyncio.sleep(120)
asyncio.run(main())
"""

CLIENTS = """
from gevent import monkey; monkey.patch_all()
import json, subprocess, sys
import gevent
from websockets.sync.client import connect
N = int(sys.argv[1])
server = subprocess.Popen([sys.executable, "-c", sys.argv[2], str(N)], stdout=subprocess.PIPE, text=True)
port = json.loads(server.stdout.readline())["port"]
answered = []
def user(i):
    ws = connect(f"ws://127.0.0.1:{port}/", open_timeout=60, ping_interval=None).__enter__()
    ws.send(f"m{i}")
    answered.append(ws.recv(timeout=60) == f"m{i}")
    ws.close()
users = [gevent.spawn(user, i) for i in range(N)]
gevent.joinall(users, timeout=90)
server.kill()
print(json.dumps({"answered": sum(answered), "errors": [repr(g.exception) for g in users if g.exception][:3]}))
"""


def test_a_thousand_sync_websocket_clients_interleave_under_gevent() -> None:
    proc = subprocess.run([sys.executable, "-c", CLIENTS, str(USERS), SERVER], cwd=ROOT, capture_output=True,
                          text=True, timeout=150)
    assert proc.returncode == 0, proc.stderr[-2000:]
    tail = proc.stdout[-500:] + proc.stderr[-500:]
    assert proc.stdout.strip().endswith(f'{{"answered": {USERS}, "errors": []}}'), tail
