"""Provider connect links and the one-time token they carry (spec §5 "Provider-neutral 绑定与偏好", 阶段 14).

Theory of operation. A pending ``provider.bind.update`` / ``provider.bind.state`` carries a ``connectUrl`` the user
opens to finish binding. The parser only asks for a safe https URL; the spec adds that the host checks each link
against a provider-specific allowlist: "链接仍需由 host 做 provider-specific allowlist 校验,例如 Telegram 客户端只
接受严格的 https://t.me/<bot>?start=<token>". ``parse_telegram_connect_url`` is that strict form, with Telegram's own
limits (Bot API deep linking): a bot username of 5–32 characters ``[A-Za-z0-9_]`` starting with a letter and ending
in ``bot``, and a start parameter of 1–64 characters ``[A-Za-z0-9_-]``; nothing else — no port, user info, other
query parameter, fragment or trailing slash.

The start parameter is a one-time credential: "一次性凭证(如绑定深链 /start <token>)由 server 过滤,不转发" (阶段 14).
``pending_connect_tokens`` reads the tokens a frame hands out (only where it may: the ``connectUrl`` of a pending
update or state), ``token_leaks`` finds a known token anywhere else in a frame. Pure: texts and values in, findings
out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["TelegramLink", "parse_telegram_connect_url", "pending_connect_tokens", "token_leaks", "TOKEN_TYPES",
           "MIN_SCANNED_TOKEN"]

_TELEGRAM = re.compile(r"https://t\.me/(?P<bot>[A-Za-z][A-Za-z0-9_]{1,28}(?i:bot))\?start=(?P<token>[A-Za-z0-9_-]{1,64})")
#: The frame types whose pending ``connectUrl`` may carry a token.
TOKEN_TYPES = frozenset({"provider.bind.update", "provider.bind.state"})
#: Tokens shorter than this are not looked for elsewhere: a one- or two-letter start parameter occurs in any text,
#: so finding it proves nothing (a real one-time credential is far longer).
MIN_SCANNED_TOKEN = 8


@dataclass(frozen=True, slots=True)
class TelegramLink:
    bot: str
    token: str


def parse_telegram_connect_url(url: object) -> TelegramLink | None:
    """The bot and token of a strict Telegram deep link, else None (the host must not offer the link)."""
    if not isinstance(url, str):
        return None
    m = _TELEGRAM.fullmatch(url)
    return TelegramLink(m["bot"], m["token"]) if m else None


def _decoded(raw: str | Mapping[str, Any]) -> Mapping[str, Any] | None:
    if isinstance(raw, Mapping):
        return raw
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def pending_connect_tokens(raw: str | Mapping[str, Any]) -> list[str]:
    """The one-time token a frame hands out: the start parameter of the strict Telegram ``connectUrl`` of a pending
    provider.bind.update / provider.bind.state for Telegram (an empty list for any other frame)."""
    frame = _decoded(raw)
    if frame is None or frame.get("type") not in TOKEN_TYPES:
        return []
    payload = frame.get("payload")
    if not isinstance(payload, Mapping) or payload.get("state") != "pending" or payload.get("provider") != "telegram":
        return []
    link = parse_telegram_connect_url(payload.get("connectUrl"))
    return [link.token] if link else []


def token_leaks(raw: str, tokens: Iterable[str]) -> list[str]:
    """The known ``tokens`` that ``raw`` (a frame as sent) carries anywhere but where it may: in a pending update's
    ``connectUrl`` that hands the token out, the token may appear once; every other occurrence is a leak. Tokens
    shorter than ``MIN_SCANNED_TOKEN`` are not looked for."""
    allowed = set(pending_connect_tokens(raw))
    leaked = []
    for token in tokens:
        if len(token) < MIN_SCANNED_TOKEN:
            continue
        n = raw.count(token)
        if n > (1 if token in allowed else 0):
            leaked.append(token)
    return leaked
