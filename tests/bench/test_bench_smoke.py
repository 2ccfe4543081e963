"""Smoke test of the parse benchmark: the generator's frames are valid, and the benchmark runs end to end.

Correctness only: no timing is asserted (the figures of a benchmark depend on the machine).
"""

from __future__ import annotations

import io
import json
import math

from bench import bench_parse, frame_mix
from simulator.hook import TYPES, parse_hook_message, utf16_len

TINY_BIG = ((0.01,), (0.02,), (0.01, 0.01))  # MiB of image bytes per attachment of the three big frames


def test_every_frame_of_a_small_mix_is_accepted() -> None:
    mix = frame_mix.build_mix(scale=0.02, big_mib=TINY_BIG)
    rejected = []
    for f in mix.frames:
        result = parse_hook_message(f.text)
        if not result.ok:
            rejected.append((f.type, f.kind, result.error))
        elif result.message.type.value != f.type:
            rejected.append((f.type, f.kind, f"parsed as {result.message.type.value}"))
        assert f.nbytes == len(f.text.encode("utf-8"))
    assert rejected == []
    assert {f.type for f in mix.frames} == {t.value for t in TYPES}  # all 41 types
    assert set(mix.by_kind()) == {"sample", "control", "progress", "group", "task", "big"}


def test_mix_is_deterministic() -> None:
    a = frame_mix.build_mix(scale=0.01, big_mib=TINY_BIG)
    b = frame_mix.build_mix(scale=0.01, big_mib=TINY_BIG)
    c = frame_mix.build_mix(seed=frame_mix.DEFAULT_SEED + 1, scale=0.01, big_mib=TINY_BIG)
    assert a.texts() == b.texts()
    assert a.texts() != c.texts()


def test_max_frame_is_exactly_at_the_limit_and_accepted() -> None:
    for variant in frame_mix.MAX_FRAME_VARIANTS:
        text = frame_mix.build_max_frame(variant, units=100_000)
        assert utf16_len(text) == 100_000
        result = parse_hook_message(text)
        assert result.ok, result.error
        assert result.message.type.value == "task.dispatch"
        # The builder fills to the exact unit count (no rounding to base64 quanta).
        assert utf16_len(frame_mix.build_max_frame(variant, units=100_003)) == 100_003


def test_bench_runs_quick_in_process(tmp_path) -> None:
    out_path = tmp_path / "bench.json"
    out = io.StringIO()
    status = bench_parse.main(
        ["--quick", "--scale", "0.02", "--big-scale", "0.01", "--max-frame-units", "200000",
         "--variants", "mixed", "--json", str(out_path)],
        out=out,
    )
    assert status == 0, out.getvalue()
    data = json.loads(out_path.read_text(encoding="utf-8"))
    assert data["mix"]["rejected"] == 0
    sets = {row["set"] for row in data["throughput"]}
    assert {"mix", "small", "big", "max/mixed"} <= sets
    for row in data["throughput"]:
        assert row["json.loads"]["best_ns"] > 0 and row["parse"]["best_ns"] > 0
    mem = data["memory"]["mixed"]
    assert mem["parse"]["ok"] and mem["parse"]["units"] == 200_000
    assert len(data["verdicts"]) == 2
    assert "verdicts" in out.getvalue()


def test_profile_prints_and_records_the_split_of_a_frames_time(tmp_path) -> None:
    out_path = tmp_path / "bench.json"
    out = io.StringIO()
    status = bench_parse.main(
        ["--quick", "--scale", "0.02", "--big-scale", "0.01", "--max-frame-units", "200000", "--variants", "ascii",
         "--no-memory", "--profile", "--json", str(out_path)],
        out=out,
    )
    assert status == 0, out.getvalue()
    split = json.loads(out_path.read_text(encoding="utf-8"))["split_small_us_per_frame"]
    assert set(split) == {"json.loads", "parse", "decode", "checks", "rest"}
    assert split["rest"] == split["parse"] - split["decode"] - split["checks"]
    assert all(isinstance(v, float) and math.isfinite(v) for v in split.values())  # figures, not a timing check
    assert "payload checks" in out.getvalue() and "cProfile of parse_hook_message" in out.getvalue()
