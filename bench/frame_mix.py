"""A deterministic, realistic mix of hook-protocol text frames for benchmarking ``parse_hook_message``.

    from bench.frame_mix import build_mix, build_max_frame

    mix = build_mix()                  # seeded: the same frames on every run and machine
    texts = mix.texts()                # list[str], the WebSocket text frames, in stream order
    big = build_max_frame()            # one task.dispatch of exactly HOOK_MAX_FRAME_CHARS UTF-16 units

    python -m bench.frame_mix [--scale S] [--seed N]   # print the composition

Every frame is built as a JSON object and turned into text with ``serialize_hook_message`` (compact JSON,
``ensure_ascii=False``, as a peer sends it), then the frames are shuffled with the same seeded RNG, so the
stream interleaves control traffic with the large frames the way a busy connection does.

What the mix holds (``kind`` tags, used by the benchmark to time subsets):

* ``sample``   every named variant of every one of the 41 types from ``scenarios/hook/samples/<type>.json``
               (129 variants), ``SAMPLE_ROUNDS`` times, each copy with a fresh envelope ``id``/``ts``, fresh
               ``requestId``/``queryId``/``opId`` and, where a non-empty free text exists (``prompt``, ``text``,
               ``finalText``, ``body``), a new text with CJK and emoji mixed in;
* ``control``  small control frames: ``ping``, ``pong``, ``task.ack`` (accepted/queued/rejected),
               ``turn.delivery`` (accepted/delivered/retrying/failed);
* ``progress`` ``turn.progress`` snapshots of 2-8 KB (UTF-8) of markdown with CJK, Hangul and emoji (including
               skin-tone and ZWJ sequences); each simulated turn sends 8 growing snapshots of the same document
               (latest-wins, spec §4);
* ``group``    ``group.message`` relays (Telegram group chats) with 10-2,000 characters of text, some with
               ``fileNames``, some with ``recipient``, some from bots;
* ``task``     ordinary ``task.dispatch`` (with ``source.threadContext``) and ``turn.end`` (markdown
               ``finalText`` of 0.5-4 KB) without large attachments;
* ``big``      three frames with MiB-sized base64 image attachments: a ``task.dispatch`` with a 1 MiB image, a
               ``turn.end`` with a 2 MiB image, a ``task.dispatch`` with two images of 1 and 2 MiB (3 MiB). The
               sizes are of the image bytes; base64 makes the frame 4/3 as large.

Composition of the default mix (``build_mix()``, seed 20260101, scale 1.0), as ``python -m bench.frame_mix``
prints it (bytes are UTF-8 bytes on the wire)::

    type                           frames        bytes
    bind.revoke                         9        1,032
    bind.start                          9        1,044
    bind.state                          6        1,158
    bind.update                        21        4,722
    group.message                     415      450,268
    hello                              12        3,153
    interaction.cancel                  6        1,155
    interaction.decision                3          549
    interaction.request                 9        3,684
    lifecycle.preference                6          765
    msg.op                             18        4,521
    msg.op.result                       9        1,656
    ping                            1,203      116,691
    pong                            1,203      116,691
    prefs.get                           3          390
    prefs.set                           9        1,614
    prefs.state                         9        1,872
    provider.behavior.get               3          555
    provider.behavior.set              18        4,299
    provider.behavior.state             9        2,718
    provider.bind.cancel                3          549
    provider.bind.revoke                3          552
    provider.bind.start                 9        1,521
    provider.bind.state                30       11,883
    provider.bind.update               30       12,018
    provider.prefs.get                  6        1,164
    provider.prefs.set                  6        1,476
    provider.prefs.state                6        1,782
    query.request                       9        1,350
    query.response                     15        4,869
    session.archive                     3          465
    task.ack                          612      139,113
    task.cancel                         3          396
    task.dispatch                      69    5,691,193
    tool.request                        9        1,659
    tool.response                       9        1,647
    turn.delivery                     312       72,281
    turn.end                           69    2,890,656
    turn.progress                     406    2,156,819
    turn.reopen                         6        1,485
    welcome                             6        1,107
    TOTAL                           4,601   11,712,522

    kind                           frames        bytes
    sample                            387       99,945
    control                         3,300      438,953
    progress                          400    2,155,894
    group                             400      445,414
    task                              111      181,782
    big                                 3    8,390,534
    TOTAL                           4,601   11,712,522

    max frame (separate, build_max_frame): one task.dispatch of 50,331,648 UTF-16 units (= HOOK_MAX_FRAME_CHARS)
      'mixed': 50,331,645 characters, 50,331,730 UTF-8 bytes (a CJK+emoji prompt, 4 attachments of ~12 MiB base64)
      'ascii': 50,331,648 characters = UTF-8 bytes

The 48 MiB frame is not part of the mix: ``build_max_frame(variant)`` builds it on demand (a task.dispatch whose
four attachments' base64 fill the frame to exactly ``HOOK_MAX_FRAME_CHARS`` UTF-16 code units, or to ``units``
for smaller test runs). Variant ``mixed`` has a prompt with CJK and emoji, so Python holds the text as UCS-4 and
the parser's exact UTF-16 count runs (an emoji counts 2 units); variant ``ascii`` is pure ASCII.

``scale`` multiplies every count (at least one frame of each generated kind, one round of samples), and
``big_mib`` sets the image sizes of the three big frames, so a test can build a tiny mix quickly.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import random
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from simulator.hook import HOOK_MAX_FRAME_CHARS, serialize_hook_message, utf16_len

__all__ = [
    "DEFAULT_SEED",
    "SAMPLES_DIR",
    "Frame",
    "FrameMix",
    "load_samples",
    "build_mix",
    "build_max_frame",
    "composition_table",
]

DEFAULT_SEED = 20260101
SAMPLES_DIR = Path(__file__).resolve().parent.parent / "scenarios" / "hook" / "samples"
SAMPLE_ROUNDS = 3
BASE_TS = 1_767_225_600_000  # 2026-01-01T00:00:00Z in unix ms
MIB = 1 << 20

#: Frame counts at scale 1.0.
COUNTS = {
    "ping": 1200,
    "pong": 1200,
    "task.ack": 600,
    "turn.delivery": 300,
    "progress_turns": 50,  # x 8 snapshots = 400 turn.progress frames
    "group.message": 400,
    "task.dispatch": 55,
    "turn.end": 56,
}
SNAPSHOTS_PER_TURN = 8
#: Image sizes (MiB of image bytes) of the big frames: (type, sizes of its attachments).
BIG_FRAMES: tuple[tuple[str, tuple[float, ...]], ...] = (
    ("task.dispatch", (1,)),
    ("turn.end", (2,)),
    ("task.dispatch", (1, 2)),
)

_ID_KEYS = ("requestId", "queryId", "opId")
_TEXT_KEYS = ("prompt", "text", "finalText", "body")

# Markdown building blocks; "{n}" is replaced by a number. CJK, Hangul, emoji with skin tone and ZWJ sequences.
_MD_LINES = (
    "## Plan",
    "### 进度 / Progress",
    "Running the test-suite for `simulator/hook`…",
    "- [x] step {n} ✓ compiled",
    "- [ ] step {n}: wire the `task.ack` linkage checks",
    "1. Read `envelope.py` and the spec §{n}",
    "正在分析失败的测试用例，请稍候。共发现 {n} 个问题，其中 2 个与编码有关。",
    "日本語のログ：テストは{n}件成功しました。残りは再試行します。",
    "한국어 메모: 빌드 {n}번이 완료되었습니다.",
    "🚀 Deploying build #{n} 🔥🔥",
    "👍🏽 looks good, 👨‍👩‍👧 approved by the family of reviewers",
    "✅ {n} passed · ⚠️ 2 warnings · ❌ 0 failed",
    "> **Note**: {n} warnings were suppressed (见日志 `run-{n}.log`).",
    "| file | status | 备注 |\n|---|---|---|\n| src/a.py | ✅ | 已修复 |\n| src/b.py | ⏳ | 处理中 |",
    "```python\ndef frame_size(text: str) -> int:\n    return len(text.encode(\"utf-16-le\")) // 2  # {n}\n```",
    "```diff\n- return len(text)\n+ return utf16_len(text)  # emoji count 2 😅\n```",
    "The parser rejects frames over 48 MiB before any JSON work; 表情符号按 2 个 UTF-16 单元计算。",
    "Links: <https://example.com/runs/{n}> and [the spec](https://example.com/spec#sec-{n})",
)
_CHAT_LINES = (
    "Is the deploy done?",
    "部署完成了吗？",
    "デプロイは終わりましたか？🙏",
    "ok 👍",
    "Can someone look at the flaky test in CI? It failed {n} times today 😩",
    "I pushed a fix, please review 🙇‍♀️",
    "回滚到上一个版本吧，日志里有 {n} 条错误。",
    "LGTM 🚀",
    "Meeting moved to 15:{n}",
    "👀",
)
_PROMPTS = (
    "Summarise the failing test",
    "请帮我看看为什么构建失败了",
    "Refactor `parse_hook_message` for speed, keep behaviour identical 🙏",
    "What does this screenshot show? この画面は何ですか？",
    "Continue with step {n}",
)


class Frame(NamedTuple):
    """One text frame of the mix."""

    text: str
    type: str
    kind: str  # sample | control | progress | group | task | big
    nbytes: int  # UTF-8 bytes on the wire


@dataclass(frozen=True)
class FrameMix:
    frames: tuple[Frame, ...]
    seed: int
    scale: float

    def texts(self, kinds: Iterable[str] | None = None) -> list[str]:
        """The frame texts in stream order, optionally only those of the given kinds."""
        if kinds is None:
            return [f.text for f in self.frames]
        wanted = frozenset(kinds)
        return [f.text for f in self.frames if f.kind in wanted]

    def subset(self, kinds: Iterable[str]) -> list[Frame]:
        wanted = frozenset(kinds)
        return [f for f in self.frames if f.kind in wanted]

    @property
    def total_bytes(self) -> int:
        return sum(f.nbytes for f in self.frames)

    def by_type(self) -> dict[str, tuple[int, int]]:
        return _tally(self.frames, lambda f: f.type)

    def by_kind(self) -> dict[str, tuple[int, int]]:
        order = ("sample", "control", "progress", "group", "task", "big")
        tally = _tally(self.frames, lambda f: f.kind)
        return {k: tally[k] for k in order if k in tally}


def _tally(frames: Sequence[Frame], key) -> dict[str, tuple[int, int]]:
    counts: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for f in frames:
        counts[key(f)] += 1
        sizes[key(f)] += f.nbytes
    return {k: (counts[k], sizes[k]) for k in sorted(counts)}


def load_samples(samples_dir: Path = SAMPLES_DIR) -> dict[str, dict[str, dict[str, Any]]]:
    """``{type: {variant: envelope}}`` from ``scenarios/hook/samples/<type>.json``, sorted by type."""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for path in sorted(samples_dir.glob("*.json")):
        out[path.stem] = json.loads(path.read_text(encoding="utf-8"))
    if not out:
        raise FileNotFoundError(f"no samples in {samples_dir}")
    return out


# -- the generator ---------------------------------------------------------------------------------------------


class _Gen:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.ts = BASE_TS

    def uuid(self) -> str:
        return str(uuid.UUID(int=self.rng.getrandbits(128), version=4))

    def req_id(self) -> str:
        return f"req-{self.rng.getrandbits(40):010x}"

    def envelope(self, template: dict[str, Any]) -> dict[str, Any]:
        """A deep copy of ``template`` with a new envelope id and a later ts."""
        env = copy.deepcopy(template)
        self.ts += self.rng.randint(1, 40)
        env["id"] = self.uuid()
        env["ts"] = self.ts
        return env

    def fill(self, line: str) -> str:
        return line.replace("{n}", str(self.rng.randint(1, 999)))

    def markdown(self, target_bytes: int) -> list[str]:
        """Markdown paragraphs adding up to at least ``target_bytes`` UTF-8 bytes."""
        paras: list[str] = []
        size = 0
        while size < target_bytes:
            p = self.fill(self.rng.choice(_MD_LINES))
            paras.append(p)
            size += len(p.encode("utf-8")) + 2
        return paras

    def chat_text(self, max_chars: int) -> str:
        n = self.rng.choice((10, 40, 120, 400, 2000))
        parts: list[str] = []
        while sum(len(p) + 1 for p in parts) < n:
            parts.append(self.fill(self.rng.choice(_CHAT_LINES)))
        text = " ".join(parts)
        return text if utf16_len(text) <= max_chars else text[: max_chars // 2]

    def image_b64(self, mib: float) -> str:
        n = max(3, int(mib * MIB))
        return base64.b64encode(b"\x89PNG\r\n\x1a\n" + self.rng.randbytes(n - 8)).decode("ascii")


def _frame(env: dict[str, Any], kind: str) -> Frame:
    text = serialize_hook_message(env)
    return Frame(text, env["type"], kind, len(text.encode("utf-8")))


def _vary_sample(g: _Gen, template: dict[str, Any]) -> dict[str, Any]:
    env = g.envelope(template)
    payload = env["payload"]
    for key in _ID_KEYS:
        if isinstance(payload.get(key), str) and payload[key]:
            payload[key] = g.req_id()
    for key in _TEXT_KEYS:
        v = payload.get(key)
        if isinstance(v, str) and v:
            payload[key] = g.fill(g.rng.choice(_CHAT_LINES if key == "text" else _PROMPTS))
    return env


def _scaled(n: int, scale: float) -> int:
    return max(1, round(n * scale))


def build_mix(
    seed: int = DEFAULT_SEED,
    scale: float = 1.0,
    big_mib: Sequence[Sequence[float]] | None = None,
    samples: dict[str, dict[str, dict[str, Any]]] | None = None,
) -> FrameMix:
    """The seeded frame mix (see the module docstring). ``big_mib`` overrides the attachment sizes (MiB of image
    bytes) of the three big frames, e.g. ``((0.01,), (0.02,), (0.01, 0.02))`` for a tiny test mix."""
    samples = load_samples() if samples is None else samples
    g = _Gen(seed)
    rng = g.rng
    frames: list[Frame] = []

    # sample: every variant of every type, varied.
    for _ in range(_scaled(SAMPLE_ROUNDS, scale)):
        for variants in samples.values():
            for template in variants.values():
                frames.append(_frame(_vary_sample(g, template), "sample"))

    # control: ping / pong / task.ack / turn.delivery.
    for name in ("ping", "pong"):
        for _ in range(_scaled(COUNTS[name], scale)):
            frames.append(_frame(g.envelope(samples[name]["empty"]), "control"))
    acks = list(samples["task.ack"].values())
    for _ in range(_scaled(COUNTS["task.ack"], scale)):
        env = g.envelope(rng.choice(acks))
        env["payload"]["requestId"] = g.req_id()
        if env["payload"]["sessionId"] is not None:
            env["payload"]["sessionId"] = g.uuid()
        frames.append(_frame(env, "control"))
    deliveries = list(samples["turn.delivery"].values())
    for _ in range(_scaled(COUNTS["turn.delivery"], scale)):
        env = g.envelope(rng.choice(deliveries))
        env["payload"]["requestId"] = g.req_id()
        frames.append(_frame(env, "control"))

    # progress: growing 2-8 KB markdown snapshots, 8 per turn.
    tmpl = samples["turn.progress"]["snapshot"]
    for _ in range(_scaled(COUNTS["progress_turns"], scale)):
        request_id = g.req_id()
        paras = g.markdown(8 * 1024)
        targets = sorted(rng.randint(2 * 1024, 8 * 1024) for _ in range(SNAPSHOTS_PER_TURN))
        for target in targets:
            out: list[str] = []
            size = 0
            for p in paras:  # whole paragraphs, at least ``target`` and at most 8 KiB of text
                n = len(p.encode("utf-8")) + 2
                if out and size + n > 8 * 1024:
                    break
                out.append(p)
                size += n
                if size >= target:
                    break
            env = g.envelope(tmpl)
            env["payload"] = {"requestId": request_id, "text": "\n\n".join(out)}
            frames.append(_frame(env, "progress"))

    # group: group.message relays.
    groups = list(samples["group.message"].values())
    for _ in range(_scaled(COUNTS["group.message"], scale)):
        env = g.envelope(rng.choice(groups))
        p = env["payload"]
        p["messageId"] = str(rng.randint(1, 10**7))
        p["sentAt"] = env["ts"] - rng.randint(0, 5000)
        if p["text"] or rng.random() < 0.8:
            p["text"] = g.chat_text(8192)
        frames.append(_frame(env, "group"))

    # task: ordinary task.dispatch and turn.end.
    dispatches = [samples["task.dispatch"][k] for k in ("basic", "takeover", "full")]
    for _ in range(_scaled(COUNTS["task.dispatch"], scale)):
        env = g.envelope(rng.choice(dispatches))
        p = env["payload"]
        p["requestId"] = g.req_id()
        p["prompt"] = g.fill(rng.choice(_PROMPTS))
        if "source" in p:
            p["source"]["threadContext"] = [
                {"author": rng.choice(("ada", "Cindy", "李雷", "ゆき")), "text": g.chat_text(2000),
                 "isBot": rng.random() < 0.2}
                for _ in range(rng.randint(0, 12))
            ]
        frames.append(_frame(env, "task"))
    ends = list(samples["turn.end"].values())
    for _ in range(_scaled(COUNTS["turn.end"], scale)):
        env = g.envelope(rng.choice(ends))
        p = env["payload"]
        p["requestId"] = g.req_id()
        if p["status"] == "ok":
            p["finalText"] = "\n\n".join(g.markdown(rng.randint(512, 4096)))
        frames.append(_frame(env, "task"))

    # big: MiB-sized base64 image attachments.
    sizes = BIG_FRAMES if big_mib is None else tuple(zip((t for t, _ in BIG_FRAMES), big_mib, strict=False))
    for type_name, mibs in sizes:
        attachments = [
            {"name": f"screenshot-{i + 1}.png", "mimeType": "image/png", "dataBase64": g.image_b64(m)}
            for i, m in enumerate(mibs)
        ]
        if type_name == "task.dispatch":
            env = g.envelope(samples["task.dispatch"]["full"])
            env["payload"]["requestId"] = g.req_id()
            env["payload"]["prompt"] = "What do these screenshots show? 这些截图显示了什么？🖼️"
        else:
            env = g.envelope(samples["turn.end"]["ok"])
            env["payload"]["requestId"] = g.req_id()
            env["payload"]["finalText"] = "Here is the rendered chart 📈 (图表已生成)."
        env["payload"]["attachments"] = attachments
        frames.append(_frame(env, "big"))

    rng.shuffle(frames)
    return FrameMix(tuple(frames), seed, scale)


# -- the 48 MiB frame -------------------------------------------------------------------------------------------

MAX_FRAME_VARIANTS = ("mixed", "ascii")
_MAX_PROMPTS = {
    "ascii": "Please compare these four screenshots and list every visual difference.",
    "mixed": "请比较这四张截图，列出所有视觉差异 🙏 — 4枚のスクリーンショットを比較してください 👀🔍",
}
_MAX_ATTACHMENTS = 4


def build_max_frame(
    variant: str = "mixed", units: int = HOOK_MAX_FRAME_CHARS, seed: int = DEFAULT_SEED
) -> str:
    """A valid task.dispatch of exactly ``units`` UTF-16 code units (default ``HOOK_MAX_FRAME_CHARS``): four
    image attachments whose base64 (no padding, length a multiple of 4) fills the frame; the 0-3 units that
    base64 cannot take go into the first attachment's name."""
    if variant not in MAX_FRAME_VARIANTS:
        raise ValueError(f"variant must be one of {MAX_FRAME_VARIANTS}")
    rng = random.Random(seed)
    env: dict[str, Any] = {
        "v": 1,
        "type": "task.dispatch",
        "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        "ts": BASE_TS,
        "payload": {
            "requestId": "req-max-frame",
            "externalKey": "slack:T01:C01:1767225600.000100",
            "workspace": "repo",
            "sessionId": None,
            "prompt": _MAX_PROMPTS[variant],
            "attachments": [
                {"name": f"screen-{i + 1}.png", "mimeType": "image/png", "dataBase64": ""}
                for i in range(_MAX_ATTACHMENTS)
            ],
            "source": {"im": "slack", "channelName": "ops", "teamId": "T01", "teamName": "Acme"},
        },
    }
    room = units - utf16_len(serialize_hook_message(env, check_size=False))
    each = (room // _MAX_ATTACHMENTS) // 4 * 4
    if each < 4:
        raise ValueError(f"units={units} is too small for a frame with {_MAX_ATTACHMENTS} attachments")
    lengths = [each] * (_MAX_ATTACHMENTS - 1)
    lengths.append((room - sum(lengths)) // 4 * 4)
    pad = room - sum(lengths)  # 0..3
    attachments = env["payload"]["attachments"]
    attachments[0]["name"] = f"screen-1{'_' * pad}.png"
    for a, n in zip(attachments, lengths, strict=False):
        a["dataBase64"] = base64.b64encode(rng.randbytes(n // 4 * 3)).decode("ascii")
    text = serialize_hook_message(env)  # raises if over HOOK_MAX_FRAME_CHARS
    got = utf16_len(text)
    if got != units:  # pragma: no cover - a bug in the arithmetic above
        raise AssertionError(f"max frame has {got} UTF-16 units, wanted {units}")
    return text


# -- reporting --------------------------------------------------------------------------------------------------


def composition_table(mix: FrameMix) -> str:
    lines = [f"{'type':<28}{'frames':>9}{'bytes':>13}"]
    for name, (n, b) in mix.by_type().items():
        lines.append(f"{name:<28}{n:>9,}{b:>13,}")
    lines.append(f"{'TOTAL':<28}{len(mix.frames):>9,}{mix.total_bytes:>13,}")
    lines.append("")
    lines.append(f"{'kind':<28}{'frames':>9}{'bytes':>13}")
    for name, (n, b) in mix.by_kind().items():
        lines.append(f"{name:<28}{n:>9,}{b:>13,}")
    lines.append(f"{'TOTAL':<28}{len(mix.frames):>9,}{mix.total_bytes:>13,}")
    return "\n".join(lines)


def max_frame_summary(variant: str, text: str) -> str:
    return (
        f"max frame '{variant}': task.dispatch, {utf16_len(text):,} UTF-16 units "
        f"(limit {HOOK_MAX_FRAME_CHARS:,}), {len(text):,} characters, {len(text.encode('utf-8')):,} UTF-8 bytes"
    )


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.frame_mix", description="Print the frame mix composition.")
    ap.add_argument("--seed", type=int, default=DEFAULT_SEED)
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--no-max", action="store_true", help="do not build the 48 MiB frames")
    args = ap.parse_args(argv)
    mix = build_mix(seed=args.seed, scale=args.scale)
    print(f"frame mix: seed {mix.seed}, scale {mix.scale}")
    print(composition_table(mix))
    if not args.no_max:
        print()
        for variant in MAX_FRAME_VARIANTS:
            print(max_frame_summary(variant, build_max_frame(variant, seed=args.seed)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
