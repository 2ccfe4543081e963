"""A falsifying subject for the frame requirements: a control-API proxy that hides some drops.

    python tests/frames/drop_hiding_proxy.py --upstream http://127.0.0.1:Q --hide HOOK-FRAME-A-01,HOOK-FRAME-B-01

It listens on 127.0.0.1 (a port of its own), prints one readiness line ``{"ready": true, "control": "http://…"}``
and forwards every request to the real control API of a hook subject unchanged, except the answer of
``dropped-frames`` (docs/control-api.md): an entry is left out when every rejection case of the frame features that
it could be the drop of (same message type, unless the case breaks the type or the whole frame or the entry names
none; same pointer, with array indices as ``*``, where the case names one; same code where the case names one)
belongs to a ``--hide`` requirement. An entry that could also be the drop of a case
of another requirement stays, so that requirement still passes.

Put in front of a correct reference, it makes a subject that accepts the frames those requirements say must be
rejected, without a reaction: what a parser that lets those rules through looks like from outside (spec §2
"两端收帧唯一入口是 parseHookMessage … 坏帧返回 ok:false"); nothing else changes. It never imports a reference.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.error
import urllib.request
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from simulator.harness.frame_cases import FrameCase, load_frame_cases, normalise_pointer  # noqa: E402 - the path above first

#: Headers never forwarded as they are (the proxy's own connection, the body's length).
HOP_HEADERS = frozenset({"host", "content-length", "connection", "transfer-encoding"})


def rejection_cases(features: Path) -> list[FrameCase]:
    """The cases of the frame features that a subject must drop (they name a pointer or a code)."""
    return [c for c in load_frame_cases(features) if c.pointer is not None or c.code is not None]


def loose(case: FrameCase) -> bool:
    """Whether a drop of ``case`` may be reported under another message type: the case breaks the frame's type
    itself or the whole frame (pointer ``/type`` or the root, or only a code), or names no type."""
    return case.type == "" or case.pointer in (None, "", "/type")


def could_be(case: FrameCase, type_: str, path: str | None, code: str | None) -> bool:
    """Whether a drop of ``type_`` reported at ``path`` with ``code`` could be the drop of ``case``."""
    return ((case.type == type_ or not type_ or loose(case))
            and (case.pointer is None or normalise_pointer(case.pointer) == normalise_pointer(path or ""))
            and (case.code is None or case.code == code))


def owners(cases: Iterable[FrameCase], type_: str, path: str | None, code: str | None) -> frozenset[str]:
    """The requirements with a rejection case that a drop of ``type_`` at ``path`` with ``code`` could be the drop
    of."""
    return frozenset(c.requirement for c in cases if could_be(c, type_, path, code))


class Owners:
    """``owners`` of one ``dropped`` entry, remembered per (type, path, code): a subject reports the same few kinds
    of drop again and again, and every ``dropped-frames`` answer lists all the drops of its connection so far."""

    def __init__(self, cases: list[FrameCase]) -> None:
        self.cases = cases
        self._seen: dict[tuple[str, str | None, str | None], frozenset[str]] = {}

    def __call__(self, entry: dict) -> frozenset[str]:
        def text(key: str) -> str | None:
            value = entry.get(key)
            return value if isinstance(value, str) else None

        key = (text("type") or "", text("path"), text("code"))
        if key not in self._seen:
            self._seen[key] = owners(self.cases, *key)
        return self._seen[key]


def conflict_groups(cases: list[FrameCase]) -> list[frozenset[str]]:
    """The requirements of ``cases`` in groups, largest first: two requirements are in one group when a drop could
    be the drop of a case of each (``could_be``), directly or through others. Hiding whole groups, a run breaks
    exactly the requirements it hides: every other requirement's drops stay (``rewrite``). A drop reported
    without a type (which ``could_be`` matches to a case of any type) comes only from a frame whose type or whole
    text is broken, and such cases are ``loose`` here too."""
    keys = sorted({(c.requirement, c.type, loose(c), c.pointer and normalise_pointer(c.pointer), c.code)
                   for c in cases}, key=repr)
    group = {key[0]: key[0] for key in keys}

    def root(rid: str) -> str:
        while group[rid] != rid:
            group[rid] = group[group[rid]]
            rid = group[rid]
        return rid

    for i, (rid_a, type_a, loose_a, pointer_a, code_a) in enumerate(keys):
        for rid_b, type_b, loose_b, pointer_b, code_b in keys[i + 1:]:
            if (rid_a != rid_b and (type_a == type_b or loose_a or loose_b)
                    and (pointer_a is None or pointer_b is None or pointer_a == pointer_b)
                    and (code_a is None or code_b is None or code_a == code_b)):
                group[root(rid_a)] = root(rid_b)
    out: dict[str, set[str]] = {}
    for rid in group:
        out.setdefault(root(rid), set()).add(rid)
    return sorted((frozenset(g) for g in out.values()), key=lambda g: (-len(g), sorted(g)))


def rewrite(capability: str, body: bytes, owners_of: Owners, hide: frozenset[str]) -> bytes:
    """The answer the proxy gives for ``capability``: ``body`` itself, or for ``dropped-frames`` without the
    entries owned by ``hide`` requirements only (a body that is not the documented object passes as it came)."""
    if capability != "dropped-frames":
        return body
    try:
        answer = json.loads(body)
    except ValueError:
        return body
    if not isinstance(answer, dict) or not isinstance(answer.get("dropped"), list):
        return body

    def kept(entry: object) -> bool:
        if not isinstance(entry, dict):
            return True
        found = owners_of(entry)
        return not found or not found <= hide

    answer["dropped"] = [e for e in answer["dropped"] if kept(e)]
    return json.dumps(answer).encode()


def handler(upstream: str, owners_of: Owners, hide: frozenset[str]) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _forward(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            request = urllib.request.Request(upstream.rstrip("/") + self.path, data=body, method=self.command)
            for name, value in self.headers.items():
                if name.lower() not in HOP_HEADERS:
                    request.add_header(name, value)
            try:
                with urllib.request.urlopen(request, timeout=30) as response:
                    status, content_type, data = response.status, response.headers.get("Content-Type"), response.read()
            except urllib.error.HTTPError as exc:  # the subject's own 4xx/5xx: passed on
                status, content_type, data = exc.code, exc.headers.get("Content-Type"), exc.read()
            except OSError as exc:
                status, content_type = 502, None
                data = json.dumps({"error": "upstream", "message": str(exc)}).encode()
            if status == 200:
                data = rewrite(self.path.rstrip("/").rsplit("/", 1)[-1], data, owners_of, hide)
            self.send_response(status)
            self.send_header("Content-Type", content_type or "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = _forward  # noqa: N815 - http.server's names

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - quiet
            pass

    return Forward


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--upstream", required=True, help="the subject's control API base URL")
    parser.add_argument("--hide", required=True, help="comma-separated requirement ids whose drops are hidden")
    parser.add_argument("--features", default=str(ROOT / "features"), help="the features directory")
    args = parser.parse_args(argv)
    hide = frozenset(r for r in args.hide.split(",") if r)
    owners_of = Owners(rejection_cases(Path(args.features)))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler(args.upstream, owners_of, hide))
    print(json.dumps({"ready": True, "control": f"http://127.0.0.1:{server.server_address[1]}"}), flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
