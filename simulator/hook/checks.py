"""Field checks with JavaScript value semantics, shared by every message family.

Real peers validate with the upstream TypeScript package, so "a number", "an integer", "a string's length" and
"a URL" must mean what they mean in JavaScript (UPSTREAM-FACTS.md):

* numbers are IEEE doubles: ``1.0`` is the integer 1, an integer literal too big for a double is ``Infinity``,
  and booleans are never numbers (Python's ``True == 1`` must not leak in);
* string lengths count UTF-16 code units (an emoji counts 2);
* ``^…$`` patterns match the whole string (Python's ``$`` would also match before a final newline);
* URLs are parsed with WHATWG rules (``ada-url``, the parser Node uses).

``Obj`` wraps one decoded JSON object at a JSON pointer and offers one method per kind of field rule. Each
method returns ``None`` when the rule holds, else the ``HookIssue`` for it, so a validator is a chain of
``a or b or c`` whose first failure wins, in the order the upstream validator checks (the reported error is the
first one, as upstream reports it).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

import ada_url

from ..jsonpointer import join
from .issues import HookIssue, IssueCode

__all__ = [
    "ABSENT",
    "Obj",
    "is_array",
    "is_object",
    "is_number",
    "is_nonempty_str",
    "is_safe_integer",
    "is_positive_timestamp",
    "js_number",
    "has_lone_surrogate",
    "utf16_len",
    "utf16_len_over",
    "looks_like_absolute_path",
    "is_safe_https_url",
    "is_telegram_group_chat_id",
    "is_telegram_user_id",
]


class _Absent:
    """The value of a key that is not there (JavaScript's ``undefined``), distinct from JSON ``null``."""

    __slots__ = ()
    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()

MAX_SAFE_INTEGER: Final = (1 << 53) - 1
_SURROGATE = re.compile("[\ud800-\udfff]")
_DRIVE_PATH = re.compile(r"[A-Za-z]:[\\/]")
_FILE_SCHEME = re.compile(r"file:", re.IGNORECASE | re.ASCII)
_NEGATIVE_DECIMAL = re.compile(r"-[1-9][0-9]*")
_POSITIVE_DECIMAL = re.compile(r"[1-9][0-9]*")
_TELEGRAM_ID_DIGITS_MAX: Final = len(str((1 << 52) - 1))


# -- value predicates (JavaScript semantics) -------------------------------------------------------------------


def is_object(v: Any) -> bool:
    """``isPlainObject``: a JSON object (not null, not an array)."""
    return type(v) is dict or isinstance(v, Mapping)  # the exact type first: an ABC check costs ~0.1 µs


def is_array(v: Any) -> bool:
    return isinstance(v, (list, tuple))


def is_number(v: Any) -> bool:
    """``typeof v === 'number'``: a JSON number; booleans are not numbers."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def js_number(v: int | float) -> float:
    """The double JavaScript holds for a JSON number (huge integers become ``inf``)."""
    if isinstance(v, float):
        return v
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf


def is_finite_number(v: Any) -> bool:
    return is_number(v) and math.isfinite(js_number(v))


def is_integer(v: Any) -> bool:
    """``Number.isInteger``."""
    if not is_number(v):
        return False
    f = js_number(v)
    return math.isfinite(f) and f.is_integer()


def is_safe_integer(v: Any) -> bool:
    """``Number.isSafeInteger``."""
    return is_integer(v) and abs(js_number(v)) <= MAX_SAFE_INTEGER


def is_positive_timestamp(v: Any) -> bool:
    """UPSTREAM-FACTS: "positive" timestamps are safe integers > 0."""
    return is_safe_integer(v) and js_number(v) > 0


def is_nonempty_str(v: Any) -> bool:
    return isinstance(v, str) and len(v) > 0


def utf16_len(s: str) -> int:
    """``String.prototype.length``: UTF-16 code units (a code point above U+FFFF counts 2)."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


#: A surrogate code point, which only a lone surrogate can be in a Python string.
_SURROGATE = re.compile("[\ud800-\udfff]")


def has_lone_surrogate(s: str) -> bool:
    """Whether ``s`` holds a code point U+D800–U+DFFF: a JavaScript string may, UTF-8 cannot carry one (so
    ``s.encode("utf-8")`` fails exactly then). Scans without encoding."""
    return not s.isascii() and _SURROGATE.search(s) is not None


def utf16_len_over(s: str, limit: int) -> bool:
    """``s.length > limit`` in JavaScript, without counting when the code-point length decides it (each code point
    is 1 or 2 UTF-16 units, so ``len(s) <= units <= 2 * len(s)``)."""
    n = len(s)
    if n > limit:
        return True
    if 2 * n <= limit:
        return False
    return utf16_len(s) > limit


def looks_like_absolute_path(v: str) -> bool:
    """UPSTREAM-FACTS: a leading ``/`` or ``\\``, ``X:\\``, ``X:/``, or ``file:`` in any case is a local path."""
    return v.startswith(("/", "\\")) or bool(_DRIVE_PATH.match(v)) or bool(_FILE_SCHEME.match(v))


def is_safe_https_url(v: Any) -> bool:
    """UPSTREAM-FACTS: an https URL (WHATWG parsing) with a host and without user name or password."""
    if not is_nonempty_str(v):
        return False
    # A JavaScript string reaches the URL parser as a USVString: lone surrogates become U+FFFD.
    text = _SURROGATE.sub("\ufffd", v)
    try:
        url = ada_url.URL(text)
    except (ValueError, UnicodeError):
        return False
    return url.protocol == "https:" and bool(url.hostname) and not url.username and not url.password


def is_telegram_group_chat_id(v: Any) -> bool:
    """§5 阶段 19: a canonical negative decimal within the Bot API's 52-bit range, at most 32 characters."""
    return (
        isinstance(v, str)
        and 0 < len(v) <= 32
        and _NEGATIVE_DECIMAL.fullmatch(v) is not None
        and len(v) - 1 <= _TELEGRAM_ID_DIGITS_MAX
        and int(v) >= -((1 << 52) - 1)
    )


def is_telegram_user_id(v: Any) -> bool:
    """§5 阶段 19: group.message.author.id, a canonical positive decimal ≤ 2^52 − 1."""
    return (
        isinstance(v, str)
        and _POSITIVE_DECIMAL.fullmatch(v) is not None
        and len(v) <= _TELEGRAM_ID_DIGITS_MAX
        and int(v) <= (1 << 52) - 1
    )


def _kind(v: Any) -> str:
    if v is ABSENT:
        return "absent"
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if is_number(v):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if is_array(v):
        return "an array"
    if is_object(v):
        return "an object"
    return f"a {type(v).__name__}"


# -- the object wrapper ----------------------------------------------------------------------------------------


class Obj:
    """One JSON object at ``path``; each method checks one rule of one member and returns the issue or None.

    Cost model (the parser runs a chain of these per received frame, bench/README.md): a rule that holds reads
    its member once and returns; the JSON pointer and the label of a nested object (``sub``/``item``) are only
    built when a rule fails and an issue needs them.
    """

    __slots__ = ("data", "ref", "_path", "_label", "_parent", "_tail")

    def __init__(self, data: Mapping[str, Any], path: str, ref: str, label: str) -> None:
        self.data = data
        self.ref = ref
        #: None until first use on a nested object (derived from ``_parent`` and ``_tail``).
        self._path: str | None = path
        #: How messages name this object, e.g. "task.ack" or "task.dispatch.source".
        self._label: str | None = label
        self._parent: Obj | None = None
        self._tail: tuple[Any, ...] = ()

    @classmethod
    def _nested(cls, parent: Obj, value: Mapping[str, Any], ref: str, tail: tuple[Any, ...], label: str | None) -> Obj:
        """A nested object whose path and label are derived from ``parent`` and ``tail`` on first use."""
        o = cls.__new__(cls)
        o.data = value
        o.ref = ref
        o._path = None
        o._label = label
        o._parent = parent
        o._tail = tail
        return o

    @property
    def path(self) -> str:
        path = self._path
        if path is None:
            # only a nested object starts without a path, and a nested object always has a parent
            path = self._path = join(cast(Obj, self._parent).path, *self._tail)
        return path

    @property
    def label(self) -> str:
        label = self._label
        if label is None:
            key, *index = self._tail
            # only a nested object starts without a label, and a nested object always has a parent
            label = f"{cast(Obj, self._parent).label}.{key}" + "".join(f"[{i}]" for i in index)
            self._label = label
        return label

    def get(self, key: str) -> Any:
        return self.data.get(key, ABSENT)

    def at(self, key: str | int) -> str:
        return join(self.path, key)

    def sub(self, key: str | int, value: Mapping[str, Any], label: str | None = None) -> Obj:
        return Obj._nested(self, value, self.ref, (key,), label or None)

    def item(self, key: str, i: int, value: Mapping[str, Any], ref: str | None = None) -> Obj:
        """The object at ``key[i]`` (e.g. ``/payload/buttons/3``, labelled ``interaction.request.buttons[3]``)."""
        return Obj._nested(self, value, ref or self.ref, (key, i), None)

    def item_issue(self, key: str, i: int, want: str, ref: str | None = None) -> HookIssue:
        v = self.get(key)[i]
        code = IssueCode.EMPTY if v == "" else IssueCode.WRONG_TYPE
        return HookIssue(
            join(self.path, key, i), code, f"{self.label}.{key}[{i}] must be {want} (got {_kind(v)})", ref or self.ref
        )

    def issue(self, key: str | int | None, code: IssueCode, message: str, ref: str | None = None) -> HookIssue:
        path = self.path if key is None else join(self.path, key)
        return HookIssue(path, code, message, ref or self.ref)

    def _type_issue(self, key: str, want: str, ref: str | None = None) -> HookIssue:
        v = self.get(key)
        code = IssueCode.MISSING if v is ABSENT else IssueCode.WRONG_TYPE
        return self.issue(key, code, f"{self.label}.{key} must be {want} (got {_kind(v)})", ref)

    # strings

    def nonempty_str(self, key: str, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if isinstance(v, str):
            if v:
                return None
            return self.issue(key, IssueCode.EMPTY, f"{self.label}.{key} must be a non-empty string", ref)
        return self._type_issue(key, "a non-empty string", ref)

    def string(self, key: str, ref: str | None = None) -> HookIssue | None:
        if isinstance(self.data.get(key, ABSENT), str):
            return None
        return self._type_issue(key, "a string", ref)

    def nullable_str(self, key: str, ref: str | None = None) -> HookIssue | None:
        """``string | null`` declared without ``?``: must be present (UPSTREAM-FACTS)."""
        v = self.data.get(key, ABSENT)
        if v is None or isinstance(v, str):
            return None
        return self._type_issue(key, "a string or null (present)", ref)

    def nullable_nonempty_str(self, key: str, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if v is None or (isinstance(v, str) and v):
            return None
        if v == "":
            return self.issue(key, IssueCode.EMPTY, f"{self.label}.{key} must be a non-empty string or null", ref)
        return self._type_issue(key, "a non-empty string or null (present)", ref)

    def opt_str(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is ABSENT else self.string(key, ref)

    def opt_nonempty_str(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is ABSENT else self.nonempty_str(key, ref)

    def opt_nullable_str(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is ABSENT else self.nullable_str(key, ref)

    def opt_nullable_nonempty_str(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is ABSENT else self.nullable_nonempty_str(key, ref)

    # closed sets

    def enum(self, key: str, allowed: Iterable[str], ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if type(allowed) is not tuple:
            allowed = tuple(allowed)
        if isinstance(v, str) and v in allowed:
            return None
        if v is ABSENT:
            return self._type_issue(key, f"one of: {', '.join(allowed)}", ref)
        return self.issue(
            key, IssueCode.NOT_ALLOWED_VALUE, f"{self.label}.{key} must be one of: {', '.join(allowed)}", ref
        )

    def nullable_enum(self, key: str, allowed: Iterable[str], ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is None else self.enum(key, allowed, ref)

    def opt_nullable_enum(self, key: str, allowed: Iterable[str], ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        return None if v is ABSENT or v is None else self.enum(key, allowed, ref)

    # booleans and numbers

    def boolean(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if isinstance(self.data.get(key, ABSENT), bool) else self._type_issue(key, "a boolean", ref)

    def opt_boolean(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is ABSENT else self.boolean(key, ref)

    def number(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if is_number(self.data.get(key, ABSENT)) else self._type_issue(key, "a number", ref)

    def _numeric(self, key: str, ok: bool, want: str, ref: str | None) -> HookIssue | None:
        if ok:
            return None
        if not is_number(self.get(key)):
            return self._type_issue(key, want, ref)
        return self.issue(key, IssueCode.OUT_OF_RANGE, f"{self.label}.{key} must be {want}", ref)

    # Each numeric rule first accepts a plain ``int`` within the safe range (where the double JavaScript holds is
    # the same number) by comparison alone; anything else goes through the exact JavaScript-number predicates.

    def positive_timestamp(self, key: str, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if type(v) is int and 0 < v <= MAX_SAFE_INTEGER:
            return None
        return self._numeric(key, is_positive_timestamp(v), "a positive safe-integer unix-ms timestamp", ref)

    def nullable_positive_timestamp(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is None else self.positive_timestamp(key, ref)

    def safe_integer_at_least(self, key: str, low: int, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if type(v) is int and low <= v <= MAX_SAFE_INTEGER and -MAX_SAFE_INTEGER <= v:
            return None
        return self._numeric(key, is_safe_integer(v) and js_number(v) >= low, f"a safe integer ≥ {low}", ref)

    def integer_at_least(self, key: str, low: int, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if type(v) is int and low <= v <= MAX_SAFE_INTEGER:
            return None
        return self._numeric(key, is_integer(v) and js_number(v) >= low, f"an integer ≥ {low}", ref)

    def finite_at_least(self, key: str, low: float, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if (type(v) is int and low <= v <= MAX_SAFE_INTEGER) or (type(v) is float and low <= v < math.inf):
            return None
        return self._numeric(
            key, is_finite_number(v) and js_number(v) >= low, f"a finite number ≥ {low}", ref
        )

    # containers

    def obj(self, key: str, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        return None if type(v) is dict or is_object(v) else self._type_issue(key, "an object", ref)

    def array(self, key: str, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        return None if type(v) is list or is_array(v) else self._type_issue(key, "an array", ref)

    def str_array(self, key: str, ref: str | None = None) -> HookIssue | None:
        """``isStringArray``: an array (maybe empty) whose items are all non-empty strings."""
        v = self.data.get(key, ABSENT)
        if not (type(v) is list or is_array(v)):
            return self._type_issue(key, "an array of non-empty strings", ref)
        for i, item in enumerate(v):
            if not (isinstance(item, str) and item):
                code = IssueCode.EMPTY if item == "" else IssueCode.WRONG_TYPE
                return HookIssue(
                    join(self.path, key, i), code, f"{self.label}.{key}[{i}] must be a non-empty string",
                    ref or self.ref,
                )
        return None

    def opt_str_array(self, key: str, ref: str | None = None) -> HookIssue | None:
        return None if self.data.get(key, ABSENT) is ABSENT else self.str_array(key, ref)

    def max_items(self, key: str, limit: int, ref: str | None = None) -> HookIssue | None:
        v = self.get(key)
        if len(v) <= limit:
            return None
        return self.issue(key, IssueCode.TOO_MANY, f"{self.label}.{key} must have at most {limit} items", ref)

    def unique_strings(self, key: str, ref: str | None = None) -> HookIssue | None:
        seen: set[str] = set()
        for i, item in enumerate(self.get(key)):
            if item in seen:
                return HookIssue(
                    join(self.path, key, i), IssueCode.DUPLICATE,
                    f"{self.label}.{key} must not contain duplicates ({item!r} repeats)", ref or self.ref,
                )
            seen.add(item)
        return None

    def only_keys(self, allowed: frozenset[str], ref: str | None = None) -> HookIssue | None:
        """UPSTREAM-FACTS: some objects reject every key they do not declare."""
        for key in self.data:
            if key not in allowed:
                return self.issue(
                    str(key), IssueCode.UNKNOWN_FIELD, f"{self.label}.{key} is not allowed here", ref
                )
        return None

    # linkage

    def must_be_null(self, key: str, when: str, ref: str | None = None) -> HookIssue | None:
        v = self.data.get(key, ABSENT)
        if v is None:
            return None
        code = IssueCode.MISSING if v is ABSENT else IssueCode.LINKAGE
        return self.issue(key, code, f"{self.label}.{key} must be null when {when} (got {_kind(v)})", ref)

    def linkage(self, key: str, message: str, ref: str | None = None) -> HookIssue:
        """A rule that ties ``key`` to another field; an absent ``key`` is reported as ``MISSING``."""
        code = IssueCode.MISSING if self.get(key) is ABSENT else IssueCode.LINKAGE
        return self.issue(key, code, f"{self.label}.{key} {message}", ref)
