"""Smoke test of the harness-overhead benchmark: a tiny run measures every unit on every transport.

Correctness only: no timing is asserted (the figures of a benchmark depend on the machine); the test checks that
each figure is there and positive, and that the bench counts as failed when it cannot measure.
"""

from __future__ import annotations

import io
import json

import pytest

from bench import bench_overhead

pytestmark = pytest.mark.timeout(180)

CLIENTS = ("bare", "role", "role.loop", "hop")


def test_alternate_swaps_the_order_every_pass() -> None:
    order: list[str] = []

    def client(name: str):
        def one_pass() -> int:
            order.append(name)
            return 1000 + len(order)
        return one_pass

    samples = bench_overhead.alternate({"a": client("a"), "b": client("b")}, reps=3, warmup=1)
    assert order == ["a", "b", "a", "b", "b", "a", "a", "b"]  # warm-up, then a-b, b-a, a-b
    assert {k: len(v) for k, v in samples.items()} == {"a": 3, "b": 3}
    row = bench_overhead.ratio_row("u", "t", 10, {"bare": [2000, 1000], "role": [3000, 1500]})
    assert row["bare"]["us"] == pytest.approx(0.1) and row["role"]["us"] == pytest.approx(0.15)
    assert row["ratio"] == pytest.approx(1.5) and row["extra_us"] == pytest.approx(0.05)


def test_bench_runs_quick_in_process(tmp_path) -> None:
    out_path = tmp_path / "overhead.json"
    out = io.StringIO()
    status = bench_overhead.main(["--quick", "--scale", "0.1", "--reps", "1", "--json", str(out_path)], out=out)
    assert status == 0, out.getvalue()
    data = json.loads(out_path.read_text(encoding="utf-8"))
    assert "error" not in data
    rows = {(r["unit"], r["transport"]): r for r in data["rows"]}
    assert set(rows) == {("tools/call", "memory"), ("tools/call", "stdio"), ("tools/call", "http"),
                         ("hook rtt", "websocket"), ("hook burst", "websocket")}
    for key, row in rows.items():
        for client in CLIENTS:
            assert row[client]["best_ns"] > 0, (key, client)
            assert row[client]["us"] > 0, (key, client)
        assert row["ratio"] > 0 and row["loop_ratio"] > 0, key
        assert row["hops_per_unit"] >= 1, key
        if bench_overhead.sched_counters() is not None:  # Linux: the scheduler counters of each pass
            assert row["role"]["ctx_switches_per_unit"] >= 0 and row["role"]["runq_wait_us_per_unit"] >= 0, key
    assert rows[("hook burst", "websocket")]["frames_per_pass"] > rows[("hook burst", "websocket")]["n"]
    assert len(data["verdicts"]) == len(rows)
    assert all(isinstance(v["met"], bool) for v in data["verdicts"])
    text = out.getvalue()
    assert "role/bare" in text and "tools/call" in text and "hook burst" in text


def test_a_subject_that_cannot_start_fails_the_bench(monkeypatch) -> None:
    monkeypatch.setattr(bench_overhead, "_probekit_cmd",
                        lambda http=False: [bench_overhead.sys.executable, "-c", "print('not ready')"])
    out = io.StringIO()
    status = bench_overhead.main(["--quick", "--scale", "0.1", "--reps", "1", "--transports", "http", "--no-hook"],
                                 out=out)
    assert status == 1
    assert "did not start" in out.getvalue()
