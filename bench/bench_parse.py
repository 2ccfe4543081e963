"""Benchmark ``parse_hook_message`` against bare ``json.loads`` on the same frames (see bench/README.md).

    python -m bench.bench_parse [--quick] [--json OUT] [--profile]

In one run, on the frames of ``bench.frame_mix``:

1. throughput: ``json.loads(text)`` and ``parse_hook_message(text)`` over the whole mix and over subsets (small
   frames, control frames, turn.progress snapshots, the MiB-attachment frames), and over the 48 MiB frame:
   best of N timed passes (``time.perf_counter_ns``, one untimed warm-up pass first, gc disabled while timing,
   the two functions alternating pass by pass), reported as frames/s, MB/s (10^6 UTF-8 bytes per second) and
   the ratio parse / json.loads (target: at most 1.2x over the mix, the upstream Node parser's ratio to JSON.parse);
2. memory: for the 48 MiB frame, the peak extra memory (``tracemalloc``) of ``json.loads(text)`` and of
   ``parse_hook_message(text)`` with the text already in memory, each in a fresh subprocess (target: parse's
   peak about json.loads's peak, i.e. no more than the decoded object; "met" means at most 1.10x);
3. ``--profile``: cProfile of ``parse_hook_message`` over the small frames, top functions by own time, and the
   split of its time per small frame into decoding (orjson), the payload checks and the rest (envelope, result
   objects, call and free), each timed on its own (best of N passes).

It prints a table and one verdict line per target, and never asserts a timing: the exit code is 0 unless the
benchmark itself failed (a frame of the mix rejected, a memory subprocess crashed).

``main(argv)`` runs in-process, so a test can call it with ``--quick --scale 0.02 --big-scale 0.01
--max-frame-units 200000`` for a tiny, fast run.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import json
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from simulator.hook import HOOK_MAX_FRAME_CHARS, TYPES, parse_hook_message
from simulator.hook.checks import Obj

from . import frame_mix
from .frame_mix import BIG_FRAMES, DEFAULT_SEED, MAX_FRAME_VARIANTS, build_max_frame, build_mix

__all__ = ["main", "run", "time_functions", "measure_memory"]

ROOT = Path(__file__).resolve().parent.parent
MIB = 1 << 20
THROUGHPUT_TARGET = 1.2  # parse / json.loads over the mix (the upstream Node parser's ratio to JSON.parse)
MEMORY_TARGET = 1.10  # parse peak / json.loads peak on the 48 MiB frame ("about equal")

FUNCTIONS: dict[str, Callable[[Any], Any]] = {"json.loads": json.loads, "parse": parse_hook_message}

#: (row name, frame kinds, description); None = every frame of the mix.
SETS: tuple[tuple[str, tuple[str, ...] | None, str], ...] = (
    ("mix", None, "every frame of the mix"),
    ("small", ("sample", "control", "progress", "group", "task"), "all but the MiB-attachment frames"),
    ("  control", ("control",), "ping/pong/task.ack/turn.delivery"),
    ("  progress", ("progress",), "turn.progress 2-8 KB markdown"),
    ("  samples", ("sample",), "all 41 types (sample variants)"),
    ("big", ("big",), "task.dispatch/turn.end with 1-3 MiB images"),
)

REPS = {"full": (15, 5), "quick": (3, 2)}  # (passes over the mix sets, passes over the 48 MiB frame)


# -- throughput ------------------------------------------------------------------------------------------------


def _one_pass(fn: Callable[[Any], Any], texts: Sequence[str]) -> int:
    t0 = time.perf_counter_ns()
    for t in texts:
        fn(t)
    return time.perf_counter_ns() - t0


def time_functions(texts: Sequence[str], reps: int, warmup: int = 1) -> dict[str, list[int]]:
    """Nanoseconds of each timed pass of each function over ``texts`` (gc disabled while timing; the functions
    alternate, and swap order every pass, so they share the machine's state)."""
    names = list(FUNCTIONS)
    for _ in range(warmup):
        for name in names:
            _one_pass(FUNCTIONS[name], texts)
    samples: dict[str, list[int]] = {name: [] for name in names}
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        for r in range(reps):
            for name in names if r % 2 == 0 else reversed(names):
                samples[name].append(_one_pass(FUNCTIONS[name], texts))
    finally:
        if was_enabled:
            gc.enable()
    return samples


def _row(name: str, desc: str, texts: Sequence[str], nbytes: int, reps: int) -> dict[str, Any]:
    samples = time_functions(texts, reps)
    row: dict[str, Any] = {"set": name.strip(), "description": desc, "frames": len(texts), "bytes": nbytes,
                           "reps": reps}
    for fn_name, ns in samples.items():
        best = min(ns)
        row[fn_name] = {
            "best_ns": best,
            "median_ns": int(statistics.median(ns)),
            "frames_per_s": len(texts) / (best / 1e9),
            "mb_per_s": nbytes / 1e6 / (best / 1e9),
            "us_per_frame": best / 1e3 / len(texts),
        }
    row["ratio"] = row["parse"]["best_ns"] / row["json.loads"]["best_ns"]
    row["extra_us_per_frame"] = (row["parse"]["best_ns"] - row["json.loads"]["best_ns"]) / 1e3 / len(texts)
    return row


def _check_frames(texts: Sequence[str]) -> list[str]:
    """Every frame of the mix must be accepted, or the benchmark times the wrong thing."""
    bad = []
    for t in texts:
        r = parse_hook_message(t)
        if not r.ok:
            bad.append(f"{r.error.path} {r.error.code}: {r.error.message} in {t[:120]!r}")
    return bad


# -- memory (one fresh subprocess per measurement) -------------------------------------------------------------


def _memory_child(fn_name: str, variant: str, units: int, seed: int) -> dict[str, Any]:
    fn = FUNCTIONS[fn_name]
    # Build every lazy cache (wire plans, regexes) on a small frame first, so only the big frame is measured.
    warm = build_mix(seed=seed, scale=0.001, big_mib=((0.001,), (0.001,), (0.001, 0.001))).texts()
    for t in warm:
        fn(t)
    text = build_max_frame(variant, units, seed)
    del warm
    gc.collect()
    tracemalloc.start()
    t0 = time.perf_counter_ns()
    result = fn(text)
    elapsed = time.perf_counter_ns() - t0
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    ok = result.ok if fn_name == "parse" else isinstance(result, dict)
    return {
        "function": fn_name, "variant": variant, "units": units, "chars": len(text),
        "utf8_bytes": len(text.encode("utf-8")), "ok": ok, "peak_bytes": peak, "retained_bytes": retained,
        "elapsed_ns_traced": elapsed,
    }


def measure_memory(fn_name: str, variant: str, units: int, seed: int) -> dict[str, Any]:
    """Run ``_memory_child`` in a fresh interpreter and return its figures (or ``{"error": ...}``)."""
    cmd = [sys.executable, "-m", "bench.bench_parse", "--memory-child", fn_name, "--variant", variant,
           "--max-frame-units", str(units), "--seed", str(seed)]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    try:
        proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    except subprocess.TimeoutExpired:
        return {"function": fn_name, "variant": variant, "error": "timed out"}
    if proc.returncode != 0:
        return {"function": fn_name, "variant": variant,
                "error": f"exit {proc.returncode}: {proc.stderr.strip()[-800:]}"}
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"function": fn_name, "variant": variant, "error": f"unreadable output: {proc.stdout[-300:]!r}"}


# -- profile ---------------------------------------------------------------------------------------------------


def profile_small(texts: Sequence[str], passes: int, top: int) -> str:
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(passes):
        for t in texts:
            parse_hook_message(t)
    prof.disable()
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out)
    stats.sort_stats("tottime").print_stats(top)
    out.write("\n")
    stats.sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def split_small(texts: Sequence[str], passes: int) -> dict[str, float]:
    """µs per frame of ``parse_hook_message`` split into its parts, each part timed on its own (best of ``passes``,
    gc disabled): ``decode`` (``orjson.loads``, what the parser runs on frames below 4 MiB), ``checks`` (each type's
    payload check on the decoded payload, skipped on ``{}`` where the type accepts it, as the parser does) and
    ``rest`` = parse - decode - checks (the envelope rules, the ``HookMessage`` and ``HookParseResult``, the call
    and freeing the decoded frame). ``json.loads`` is timed alongside for scale."""
    decoded = [orjson.loads(t) for t in texts]
    calls = [(TYPES[d["type"]], d["payload"], d["type"]) for d in decoded]

    def checks() -> None:
        for spec, payload, name in calls:
            if payload or not spec.empty_ok:
                spec.check(Obj(payload, "/payload", spec.ref, name))

    parts: dict[str, Callable[[], Any]] = {
        "json.loads": lambda: [json.loads(t) for t in texts],
        "parse": lambda: [parse_hook_message(t) for t in texts],
        "decode": lambda: [orjson.loads(t) for t in texts],
        "checks": checks,
    }
    best = dict.fromkeys(parts, float("inf"))
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(passes):
            for name, fn in parts.items():
                t0 = time.perf_counter_ns()
                fn()
                best[name] = min(best[name], time.perf_counter_ns() - t0)
    finally:
        if gc_was_enabled:
            gc.enable()
    us = {name: ns / len(texts) / 1000 for name, ns in best.items()}
    us["rest"] = us["parse"] - us["decode"] - us["checks"]
    return us


# -- the run ---------------------------------------------------------------------------------------------------


def _fmt_rate(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.1f}"


def _table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'set':<16}{'frames':>7}{'MB':>9} |{'json ms':>9}{'frames/s':>11}{'MB/s':>8} |"
            f"{'parse ms':>9}{'frames/s':>11}{'MB/s':>8} |{'parse/json':>11}{'+us/frame':>10}")
    lines = [head, "-" * len(head)]
    for r in rows:
        j, p = r["json.loads"], r["parse"]
        lines.append(
            f"{r['label']:<16}{r['frames']:>7,}{r['bytes'] / 1e6:>9.2f} |"
            f"{j['best_ns'] / 1e6:>9.2f}{_fmt_rate(j['frames_per_s']):>11}{_fmt_rate(j['mb_per_s']):>8} |"
            f"{p['best_ns'] / 1e6:>9.2f}{_fmt_rate(p['frames_per_s']):>11}{_fmt_rate(p['mb_per_s']):>8} |"
            f"{r['ratio']:>10.2f}x{r['extra_us_per_frame']:>10.2f}"
        )
    return "\n".join(lines)


def run(args: argparse.Namespace, out=sys.stdout) -> tuple[dict[str, Any], int]:
    def say(*a: Any) -> None:
        print(*a, file=out, flush=True)

    mode = "quick" if args.quick else "full"
    reps, max_reps = REPS[mode]
    reps = args.reps or reps
    max_reps = args.max_reps or max_reps
    big_mib = None
    if args.big_scale != 1.0:
        big_mib = tuple(tuple(m * args.big_scale for m in mibs) for _, mibs in BIG_FRAMES)
    status = 0
    t_start = time.perf_counter()

    mix = build_mix(seed=args.seed, scale=args.scale, big_mib=big_mib)
    say(f"bench.bench_parse ({mode}): Python {platform.python_version()} on {platform.machine()} "
        f"{platform.system()}, {os.cpu_count()} CPUs; seed {args.seed}, scale {args.scale}, "
        f"best of {reps} passes ({max_reps} for the 48 MiB frame), gc disabled while timing")
    say()
    say(frame_mix.composition_table(mix))
    say()

    bad = _check_frames(mix.texts())
    if bad:
        status = 1
        say(f"ERROR: {len(bad)} frame(s) of the mix rejected by parse_hook_message; first: {bad[0]}")

    rows: list[dict[str, Any]] = []
    for label, kinds, desc in SETS:
        frames = mix.frames if kinds is None else mix.subset(kinds)
        if not frames:
            continue
        row = _row(label, desc, [f.text for f in frames], sum(f.nbytes for f in frames), reps)
        row["label"] = label
        rows.append(row)

    variants = [v for v in MAX_FRAME_VARIANTS if v in args.variants]
    for variant in variants:
        text = build_max_frame(variant, args.max_frame_units, args.seed)
        label = f"max/{variant}"
        row = _row(label, f"one task.dispatch of {args.max_frame_units:,} UTF-16 units ({variant})", [text],
                   len(text.encode("utf-8")), max_reps)
        row["label"] = label
        rows.append(row)
        del text
    gc.collect()

    say("throughput (best pass; MB = 10^6 UTF-8 bytes; +us/frame = parse time minus json.loads time per frame)")
    say(_table(rows))
    say()

    memory: dict[str, dict[str, Any]] = {}
    if not args.no_memory:
        say(f"memory: peak extra bytes (tracemalloc) of one call on the max frame ({args.max_frame_units:,} "
            f"UTF-16 units), text already in memory, fresh subprocess per measurement")
        say(f"{'variant':<10}{'function':<12}{'peak MiB':>12}{'retained MiB':>14}{'peak - json.loads peak':>24}")
        for variant in variants:
            memory[variant] = {}
            for fn_name in FUNCTIONS:
                m = measure_memory(fn_name, variant, args.max_frame_units, args.seed)
                memory[variant][fn_name] = m
                if "error" in m:
                    status = 1
                    say(f"{variant:<10}{fn_name:<12}  FAILED: {m['error']}")
                    continue
                if not m["ok"]:
                    status = 1
                base = memory[variant].get("json.loads", {}).get("peak_bytes")
                diff = f"{(m['peak_bytes'] - base) / 1024:+,.1f} KiB" if base is not None else "-"
                say(f"{variant:<10}{fn_name:<12}{m['peak_bytes'] / MIB:>12.3f}{m['retained_bytes'] / MIB:>14.3f}"
                    f"{diff:>24}" + ("" if m["ok"] else "  (frame REJECTED)"))
            j, p = memory[variant].get("json.loads", {}), memory[variant].get("parse", {})
            if "peak_bytes" in j and "peak_bytes" in p and j["peak_bytes"]:
                memory[variant]["ratio"] = p["peak_bytes"] / j["peak_bytes"]
        say()

    # verdicts
    verdicts: list[dict[str, Any]] = []
    mix_row = rows[0]
    ratio = mix_row["ratio"]
    small = next((r for r in rows if r["set"] == "small"), None)
    big = next((r for r in rows if r["set"] == "big"), None)
    detail = (f"{ratio:.2f}x over the mix" + (f"; small frames {small['ratio']:.2f}x" if small else "")
              + (f", big frames {big['ratio']:.2f}x" if big else ""))
    verdicts.append({"target": f"throughput: parse <= {THROUGHPUT_TARGET}x json.loads over the mix",
                     "met": ratio <= THROUGHPUT_TARGET, "value": ratio, "detail": detail})
    for variant, m in memory.items():
        j, p = m.get("json.loads", {}), m.get("parse", {})
        target = f"memory ({variant} max frame): parse peak ~ json.loads peak (<= {MEMORY_TARGET:.2f}x)"
        if "ratio" not in m:
            verdicts.append({"target": target, "met": None, "value": None, "detail": "not measured (see above)"})
            continue
        verdicts.append({
            "target": target, "met": m["ratio"] <= MEMORY_TARGET, "value": m["ratio"],
            "detail": (f"{m['ratio']:.4f}x: parse {p['peak_bytes'] / MIB:.3f} MiB vs json.loads "
                       f"{j['peak_bytes'] / MIB:.3f} MiB, decoded object {j['retained_bytes'] / MIB:.3f} MiB"),
        })
    say("verdicts")
    for v in verdicts:
        word = "not measured" if v["met"] is None else ("MET" if v["met"] else "NOT MET")
        say(f"  {v['target']}: {word} ({v['detail']})")

    profile = split = None
    if args.profile:
        small_texts = mix.texts(kinds=SETS[1][1])
        profile = profile_small(small_texts, max(1, reps // 3), args.profile_top)
        say()
        say(f"cProfile of parse_hook_message over the small frames ({len(small_texts):,} frames x "
            f"{max(1, reps // 3)} passes)")
        say(profile)
        split = split_small(small_texts, reps)
        say(f"parse_hook_message per small frame, parts timed on their own (best of {reps} passes, us/frame): "
            f"{split['parse']:.2f} = decode (orjson) {split['decode']:.2f} + payload checks {split['checks']:.2f} "
            f"+ rest (envelope, result objects, call, free) {split['rest']:.2f}; json.loads {split['json.loads']:.2f}")

    elapsed = time.perf_counter() - t_start
    say(f"\ndone in {elapsed:.1f} s")
    result = {
        "meta": {
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "machine": platform.machine(), "system": platform.system(), "cpus": os.cpu_count(),
            "mode": mode, "reps": reps, "max_reps": max_reps, "seed": args.seed, "scale": args.scale,
            "big_scale": args.big_scale, "max_frame_units": args.max_frame_units,
            "hook_max_frame_chars": HOOK_MAX_FRAME_CHARS, "timer": "time.perf_counter_ns, best pass",
            "elapsed_s": elapsed, "status": status,
        },
        "mix": {
            "frames": len(mix.frames), "bytes": mix.total_bytes,
            "by_type": {k: {"frames": n, "bytes": b} for k, (n, b) in mix.by_type().items()},
            "by_kind": {k: {"frames": n, "bytes": b} for k, (n, b) in mix.by_kind().items()},
            "rejected": len(bad),
        },
        "throughput": [{k: v for k, v in r.items() if k != "label"} for r in rows],
        "memory": memory,
        "verdicts": verdicts,
    }
    if profile is not None:
        result["profile_small"] = profile
        result["split_small_us_per_frame"] = split
    return result, status


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bench.bench_parse", description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer passes (CI smoke run, < 30 s)")
    ap.add_argument("--json", metavar="OUT", help="write the figures as JSON to OUT")
    ap.add_argument("--profile", action="store_true", help="cProfile parse_hook_message over the small frames")
    ap.add_argument("--profile-top", type=int, default=20, metavar="N")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the mix's frame counts")
    ap.add_argument("--big-scale", type=float, default=1.0, help="multiply the big frames' attachment sizes")
    ap.add_argument("--max-frame-units", type=int, default=HOOK_MAX_FRAME_CHARS,
                    help="UTF-16 units of the max frame (default HOOK_MAX_FRAME_CHARS)")
    ap.add_argument("--variants", nargs="+", default=list(MAX_FRAME_VARIANTS), choices=MAX_FRAME_VARIANTS,
                    help="max-frame variants to measure")
    ap.add_argument("--reps", type=int, default=0, help="timed passes over the mix (overrides the mode)")
    ap.add_argument("--max-reps", type=int, default=0, help="timed passes over the max frame")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory subprocesses")
    ap.add_argument("--memory-child", choices=list(FUNCTIONS), help=argparse.SUPPRESS)
    ap.add_argument("--variant", default="mixed", choices=MAX_FRAME_VARIANTS, help=argparse.SUPPRESS)
    return ap


def main(argv: Sequence[str] | None = None, out=None) -> int:
    args = _parser().parse_args(argv)
    if args.memory_child:
        print(json.dumps(_memory_child(args.memory_child, args.variant, args.max_frame_units, args.seed)))
        return 0
    result, status = run(args, out=out or sys.stdout)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
