"""TaskAttachment, shared by inbound task.dispatch and outbound turn.end (spec §7 附件与图片 MIME 白名单).

``{name, mimeType, dataBase64}``: base64 inline on the authenticated WebSocket. ``name`` is ``string | null`` and
must be present (UPSTREAM-FACTS); at most 16 attachments per frame. The MIME allowlist (§7, ``image/jpg``
normalised to ``image/jpeg``) is a filter both ends apply, not a parse rule: ``is_supported_image_mime`` in
``constants``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import ABSENT, Obj, is_array, is_object
from .constants import MAX_ATTACHMENTS
from .issues import SPEC, UPSTREAM, HookIssue, IssueCode
from .wire import Wire, extra_field

__all__ = ["Attachment", "check_attachments"]

REF_ATTACHMENTS = f"{SPEC} §7 附件与图片 MIME 白名单"


@dataclass(frozen=True, slots=True)
class Attachment(Wire):
    name: str | None
    mime_type: str
    data_base64: str
    extra: Mapping[str, Any] = extra_field()


def check_attachments(p: Obj, key: str = "attachments") -> HookIssue | None:
    """Optional array of at most 16 attachments; each ``name`` string|null (present), ``mimeType`` and
    ``dataBase64`` non-empty strings."""
    v = p.get(key)
    if v is ABSENT:
        return None
    if not is_array(v):
        return p.array(key, ref=REF_ATTACHMENTS)
    if len(v) > MAX_ATTACHMENTS:
        return p.issue(
            key, IssueCode.TOO_MANY, f"{p.label}.{key} must have at most {MAX_ATTACHMENTS} items",
            f"{UPSTREAM} Constants (16 attachments)",
        )
    for i, item in enumerate(v):
        if not is_object(item):
            return p.item_issue(key, i, "an object", REF_ATTACHMENTS)
        a = p.item(key, i, item, REF_ATTACHMENTS)
        issue = a.nullable_str("name") or a.nonempty_str("mimeType") or a.nonempty_str("dataBase64")
        if issue:
            return issue
    return None

