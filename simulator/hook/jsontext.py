"""Parse JSON text the way JavaScript's ``JSON.parse`` does.

Why: the slack-hook peers are Node processes, and a WebSocket text frame is
valid exactly when ``JSON.parse`` accepts it (slack-hook-protocol §3 /
UPSTREAM-FACTS.md envelope rule 2).  Python's ``json.loads`` differs from
``JSON.parse`` in three ways that matter here:

1. it recurses, so deep nesting (a few thousand levels) raises
   ``RecursionError`` where V8's iterative parser succeeds;
2. it accepts ``NaN``, ``Infinity`` and ``-Infinity``, which are not JSON;
3. it raises ``ValueError`` on integer literals longer than Python's
   int-string limit (4,300 digits), which ``JSON.parse`` reads as a double
   (``Infinity`` when out of range).

Theory of operation
-------------------
:func:`loads` first tries the C-accelerated ``json.loads`` with
``parse_constant`` rejecting the three non-JSON constants and ``parse_int``
returning ``float(s)`` for integers longer than 4,300 digits (which gives
``inf`` for huge values, as JS does).  A ``JSONDecodeError`` becomes a
:class:`JsonTextError` carrying the same character offset.

When ``json.loads`` runs out of stack (``RecursionError``), or rejects a
constant (whose offset it does not report), the text is re-parsed by
:func:`_loads_iterative`: a non-recursive parser with an explicit stack of
open containers that accepts exactly the grammar ``json.loads`` accepts with
NaN disabled (RFC 8259 strict JSON: whitespace only space/tab/LF/CR, no BOM,
no trailing commas, no leading zeros, no raw U+0000-U+001F in strings, lone
surrogate escapes kept, escaped surrogate pairs joined, duplicate keys:
last value wins at the first key's position) and builds equal values.  It
also reports the same error offsets as the C scanner.  Strings and numbers
are scanned with compiled regexes, never character by character in Python:
one possessive regex match validates a whole string body (so a 48 MiB
string costs one match, one slice), and a body with escapes is decoded in
one go by the ``unicode_escape`` codec, escaped surrogate pairs being
joined by a UTF-16 round trip.  Only containers are walked in Python, one
loop turn per value.

Whatever the text, the only exception raised for bad input is
:class:`JsonTextError` (``MemoryError`` aside).

Known remaining differences from ``JSON.parse`` (by design, documented here):
integers up to 4,300 digits stay exact Python ``int`` (JS rounds to a double
and gives ``Infinity`` above ~1.8e308); ``-0`` parses to ``int`` 0 (JS gives
-0); object keys keep text order (JS lists integer-like keys first).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, cast

__all__ = ["JsonTextError", "loads"]

#: Integers with more digits than this become ``float(s)`` (Python's default
#: int-string conversion limit, ``sys.get_int_max_str_digits()``).
MAX_INT_DIGITS = 4300

_BOM = "\ufeff"


class JsonTextError(ValueError):
    """The text is not JSON that ``JSON.parse`` would accept.

    ``pos`` is the character offset of the problem, ``reason`` a short
    description (the same wording as ``json.JSONDecodeError``).
    """

    def __init__(self, reason: str, pos: int) -> None:
        super().__init__(f"{reason} (char {pos})")
        self.reason = reason
        self.pos = pos

    def __reduce__(self) -> tuple[type[JsonTextError], tuple[str, int]]:  # keep the two-argument constructor picklable
        return (type(self), (self.reason, self.pos))


class _ConstantRejected(Exception):
    """Raised inside ``json.loads`` for NaN / Infinity / -Infinity."""


def _reject_constant(name: str) -> Any:
    raise _ConstantRejected(name)


def _parse_int(s: str) -> int | float:
    """``parse_int`` policy shared by both parsers: exact int, else a double."""
    ndigits = len(s) - (s[:1] == "-")
    if ndigits > MAX_INT_DIGITS:
        return float(s)  # inf / -inf when out of double range, as in JS
    try:
        return int(s)
    except ValueError:  # the process lowered sys.set_int_max_str_digits()
        return float(s)


def loads(text: str) -> Any:
    """Parse ``text`` as ``JSON.parse`` would; raise :class:`JsonTextError` if invalid."""
    if not isinstance(text, str):
        raise TypeError(f"JSON text must be str, not {type(text).__name__}")
    error: tuple[str, int] | None = None
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        # Raised outside the handler so the JsonTextError does not keep the
        # JSONDecodeError (and with it the whole document) as __context__.
        error = (exc.msg, exc.pos)
    except (RecursionError, _ConstantRejected):
        pass
    if error is not None:
        raise JsonTextError(*error)
    # Too deep for the C scanner, or a NaN/Infinity whose offset json.loads
    # does not report: the iterative parser decides (and locates the error).
    return _loads_iterative(text)


# --------------------------------------------------------------------------
# The iterative parser
# --------------------------------------------------------------------------

#: ``pattern.match`` of a pattern that matches the empty string, so it never returns None (typed so).
_AlwaysMatch = Callable[[str, int], "re.Match[str]"]

_ws = cast(_AlwaysMatch, re.compile(r"[ \t\n\r]*").match)
# A whole valid string body, "unrolled loop" style: runs of ordinary
# characters (anything but the quote, the backslash and the C0 controls JSON
# forbids raw) separated by valid escapes.  Possessive quantifiers keep the
# regex engine from recording backtrack state per escape (a 48 MiB body of
# escapes would otherwise cost gigabytes and seconds).
_string_body = cast(_AlwaysMatch, re.compile(
    r'[^"\\\x00-\x1f]*+(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\x00-\x1f]*+)*+'
).match)
_plain_run = cast(_AlwaysMatch, re.compile(r"[^\\]*+").match)  # inside an already validated body
_escape_run = re.compile(r'(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))++').match
_has_surrogate = re.compile(r"[\ud800-\udfff]").search
# ASCII digits only ("\d" would also match other scripts' digits).
_number = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?").match

_LITERALS = {"n": ("null", None), "t": ("true", True), "f": ("false", False)}
_CONSTANTS = {"N": "NaN", "I": "Infinity", "-": "-Infinity"}
_NOT_JSON = "NaN and Infinity are not JSON"


def _decode_body(body: str) -> str:
    """Decode a validated string body that holds no raw surrogate, in C.

    Every backslash in ``body`` starts a valid JSON escape, so replacing
    left to right is token-aligned: first each ``\\\\`` becomes ``\\u005c``,
    after which every remaining backslash starts a token and ``\\/`` can be
    dropped to ``/``.  What is left is valid ``unicode_escape`` input once
    the raw characters above U+00FF are themselves written as escapes
    (``backslashreplace``).
    """
    if "\\/" in body:
        body = body.replace("\\\\", "\\u005c").replace("\\/", "/")
    s = body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    if _has_surrogate(s):
        # All surrogates here came from escapes (raw ones were excluded), and
        # two are adjacent in ``s`` only if their escapes were adjacent in the
        # text: the UTF-16 round trip joins each high+low pair, keeps lone
        # halves, left to right, exactly as json's scanstring does.
        s = s.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    return s


def _decode_body_with_raw_surrogates(body: str) -> str:
    """Decode a validated body that contains raw surrogate code points.

    Raw surrogates are kept as they are and never joined with escapes, so
    only the runs of escapes go through :func:`_decode_body`.  (Text decoded
    from UTF-8 never holds raw surrogates: this path is for completeness.)
    """
    chunks: list[str] = []
    pos, n = 0, len(body)
    while pos < n:
        end = _plain_run(body, pos).end()
        if end > pos:
            chunks.append(body[pos:end])
        if end < n:
            m = _escape_run(body, end)
            assert m is not None  # the body was validated
            chunks.append(_decode_body(m.group()))
            end = m.end()
        pos = end
    return "".join(chunks)


def _string_error(text: str, pos: int, end: int, n: int) -> JsonTextError:
    """The error json.loads reports for a string whose body starts at ``pos``.

    ``text[pos:end]`` is the longest valid body prefix and ``text[end]`` is
    not the closing quote.
    """
    begin = pos - 1
    if end >= n:
        # The C scanner wants a character after each \\uXXXX escape and, at
        # the end of the text, reports its absence at the "u" -- provided
        # that "u" really starts an escape (an odd run of backslashes).
        k = end - 5
        if k - 1 >= pos and text[k] == "u" and text[k - 1] == "\\":
            before = text[pos:k]
            if (len(before) - len(before.rstrip("\\"))) % 2:
                return JsonTextError("Invalid \\uXXXX escape", k)
        return JsonTextError("Unterminated string starting at", begin)
    if text[end] != "\\":
        return JsonTextError("Invalid control character at", end)
    if end + 1 >= n:
        return JsonTextError("Unterminated string starting at", begin)
    if text[end + 1] == "u":
        return JsonTextError("Invalid \\uXXXX escape", end + 1)
    return JsonTextError("Invalid \\escape", end)


def _scan_string(text: str, pos: int, n: int) -> tuple[str, int]:
    """Scan a string whose opening quote is at ``pos - 1``; return (value, end)."""
    end = _string_body(text, pos).end()
    if end >= n or text[end] != '"':
        raise _string_error(text, pos, end, n)
    body = text[pos:end]
    if "\\" not in body:
        return body, end + 1
    if _has_surrogate(body):
        return _decode_body_with_raw_surrogates(body), end + 1
    return _decode_body(body), end + 1


def _loads_iterative(text: str) -> Any:
    """Parse ``text`` without recursion; same grammar and values as ``json.loads``.

    (``json.loads`` here meaning: NaN/Infinity rejected, and integers of more
    than :data:`MAX_INT_DIGITS` digits read as ``float``.)
    """
    if not isinstance(text, str):
        raise TypeError(f"JSON text must be str, not {type(text).__name__}")
    if text.startswith(_BOM):
        raise JsonTextError("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0)
    n = len(text)
    ws = _ws
    # Open containers, innermost last: [container, pending key] for objects,
    # [container, None] for arrays.
    stack: list[list[Any]] = []
    value: Any  # the JSON value just completed
    pos = ws(text, 0).end()
    while True:
        # ---- parse one value starting at pos (or open a container) ----
        if pos >= n:
            raise JsonTextError("Expecting value", pos)
        c = text[pos]
        if c == '"':
            value, pos = _scan_string(text, pos + 1, n)
        elif c == "{":
            pos = ws(text, pos + 1).end()
            if pos < n and text[pos] == "}":
                value, pos = {}, pos + 1
            else:
                if pos >= n or text[pos] != '"':
                    raise JsonTextError("Expecting property name enclosed in double quotes", pos)
                key, pos = _scan_string(text, pos + 1, n)
                pos = ws(text, pos).end()
                if pos >= n or text[pos] != ":":
                    raise JsonTextError("Expecting ':' delimiter", pos)
                pos = ws(text, pos + 1).end()
                stack.append([{}, key])
                continue
        elif c == "[":
            pos = ws(text, pos + 1).end()
            if pos < n and text[pos] == "]":
                value, pos = [], pos + 1
            else:
                stack.append([[], None])
                continue
        elif c in _LITERALS and text.startswith(_LITERALS[c][0], pos):
            word, value = _LITERALS[c]
            pos += len(word)
        elif c in _CONSTANTS and text.startswith(_CONSTANTS[c], pos):
            raise JsonTextError(_NOT_JSON, pos)
        else:
            m = _number(text, pos) if c == "-" or "0" <= c <= "9" else None
            if m is None:
                raise JsonTextError("Expecting value", pos)
            s = m.group()
            if m.group(1) is None and m.group(2) is None:
                value = _parse_int(s)
            else:
                value = float(s)  # "1e400" -> inf, as in JS
            pos = m.end()

        # ---- a value is complete: store it, closing containers as we go ----
        while True:
            if not stack:
                pos = ws(text, pos).end()
                if pos != n:
                    raise JsonTextError("Extra data", pos)
                return value
            frame = stack[-1]
            container, key = frame
            pos = ws(text, pos).end()
            c = text[pos] if pos < n else ""
            if key is None:  # array
                container.append(value)
                if c == "]":
                    stack.pop()
                    value, pos = container, pos + 1
                    continue
                if c != ",":
                    raise JsonTextError("Expecting ',' delimiter", pos)
                pos = ws(text, pos + 1).end()
                break
            container[key] = value  # duplicate key: last value wins
            if c == "}":
                stack.pop()
                value, pos = container, pos + 1
                continue
            if c != ",":
                raise JsonTextError("Expecting ',' delimiter", pos)
            pos = ws(text, pos + 1).end()
            if pos >= n or text[pos] != '"':
                raise JsonTextError("Expecting property name enclosed in double quotes", pos)
            key, pos = _scan_string(text, pos + 1, n)
            pos = ws(text, pos).end()
            if pos >= n or text[pos] != ":":
                raise JsonTextError("Expecting ':' delimiter", pos)
            frame[1] = key
            pos = ws(text, pos + 1).end()
            break
