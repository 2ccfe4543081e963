"""Smoke test of the hook-server benchmark: a tiny run (5 desktops x 2 tasks) completes every lifecycle.

Correctness only: no timing is asserted (the figures of a benchmark depend on the machine).
"""

from __future__ import annotations

import io
import json

import pytest

from bench import bench_hook_server

pytestmark = pytest.mark.timeout(180)

DESKTOPS, TASKS = 5, 2


def test_echo_sizes_pair_the_lifecycle_slots() -> None:
    means = {slot: 100.0 * (i + 1) for i, slot in enumerate(bench_hook_server.SLOTS)}
    sizes = bench_hook_server.echo_sizes(means)
    assert len(sizes) * 2 == bench_hook_server.FRAMES_PER_TASK
    assert sum(sizes) * 2 == sum(means.values())  # an echoed task carries the lifecycle's bytes


def test_bench_runs_tiny_in_process(tmp_path) -> None:
    out_path = tmp_path / "bench.json"
    out = io.StringIO()
    status = bench_hook_server.main(
        ["--desktops", str(DESKTOPS), "--tasks-per-desktop", str(TASKS), "--echo-passes", "1",
         "--timeout", "90", "--stall-timeout", "20", "--json", str(out_path)],
        out=out,
    )
    assert status == 0, out.getvalue()
    data = json.loads(out_path.read_text(encoding="utf-8"))
    assert data["meta"]["status"] == 0 and data["meta"]["error"] is None
    [run] = data["runs"]
    total = DESKTOPS * TASKS
    lc = run["lifecycle"]
    assert lc["desktops"] == DESKTOPS and lc["tasks"] == total
    assert lc["completed"] == lc["dispatched"] == lc["accepted"] == total
    assert lc["failed"] == 0 and lc["redelivered"] == 0 and lc["duplicate_terminal"] == 0
    assert lc["frames_received"] == {"task.dispatch": total, "turn.delivery": 2 * total}
    assert lc["frames_sent"] == {"task.ack": total, "turn.progress": 3 * total, "turn.end": total}
    assert lc["frames"] == bench_hook_server.FRAMES_PER_TASK * total
    assert lc["latency_ms"]["samples"] == total
    assert lc["verify"]["delivered"] == lc["verify"]["done"] == total
    for key in ("tasks_per_s", "frames_per_s", "elapsed_s", "bytes", "server_cpu_s", "client_cpu_s"):
        assert key in lc
    assert lc["latency_ms"]["p50"] is not None and lc["latency_ms"]["p99"] >= lc["latency_ms"]["p50"]
    echo = run["echo"]
    assert echo["frames"] == bench_hook_server.FRAMES_PER_TASK * total and echo["frames_per_s"] > 0
    assert 2 * sum(echo["frame_sizes"]) == pytest.approx(sum(lc["slot_mean_bytes"].values()), abs=4)
    assert run["ratio"] == pytest.approx(lc["frames_per_s"] / echo["frames_per_s"])
    assert len(data["verdicts"]) == 1
    assert "verdicts" in out.getvalue()
