"""TaskAttachment, shared by task.dispatch (inbound) and turn.end (outbound) (spec §7 附件与图片 MIME 白名单).

Rules under test: ``{name, mimeType, dataBase64}``; ``name`` is ``string | null`` and must be present
(UPSTREAM-FACTS), ``mimeType`` and ``dataBase64`` non-empty strings; at most 16 attachments. The image MIME
allowlist (png / jpeg / gif / webp, ``image/jpg`` normalised to ``image/jpeg``) is a filter both ends apply with
``isSupportedImageMime()``, not a parse rule, so a non-image MIME still parses.
"""

from __future__ import annotations

import pytest
from hookcase import DELETE, accept, bad, built, edit, expect_issue, good, sample_of

from simulator.hook import (
    SUPPORTED_IMAGE_MIME_TYPES,
    Attachment,
    IssueCode,
    TurnUsage,
    is_supported_image_mime,
    make_task_dispatch,
    make_turn_end,
    normalize_image_mime,
)

DISPATCH = "task.dispatch:full"
END = "turn.end:with-attachments"
ITEM = {"name": "a.png", "mimeType": "image/png", "dataBase64": "iVBORw0KGgo="}


# -- the MIME allowlist (§7) ------------------------------------------------------------------------------------


def test_supported_image_types_are_the_four_of_the_spec():
    assert set(SUPPORTED_IMAGE_MIME_TYPES) == {"image/png", "image/jpeg", "image/gif", "image/webp"}


@pytest.mark.parametrize(
    ("mime", "normalized"),
    [
        pytest.param("image/png", "image/png", id="png"),
        pytest.param("image/jpeg", "image/jpeg", id="jpeg"),
        pytest.param("image/gif", "image/gif", id="gif"),
        pytest.param("image/webp", "image/webp", id="webp"),
        pytest.param("image/jpg", "image/jpeg", id="jpg-alias"),
        pytest.param("IMAGE/JPG", "image/jpeg", id="jpg-alias-upper-case"),
        pytest.param("Image/PNG", "image/png", id="mixed-case"),
        pytest.param("  image/webp\t\n", "image/webp", id="ascii-blanks-trimmed"),
        pytest.param("\u00a0image/gif\ufeff", "image/gif", id="nbsp-and-bom-trimmed-like-js-trim"),
        pytest.param("\u3000image/png\u2028", "image/png", id="ideographic-space-and-line-separator"),
    ],
)
def test_supported_image_mime_is_normalized(mime, normalized):
    assert is_supported_image_mime(mime) is True
    assert normalize_image_mime(mime) == normalized


@pytest.mark.parametrize(
    "mime",
    [
        pytest.param("image/svg+xml", id="svg"),
        pytest.param("image/heic", id="heic"),
        pytest.param("image/bmp", id="bmp"),
        pytest.param("image/avif", id="avif"),
        pytest.param("image/tiff", id="tiff"),
        pytest.param("application/pdf", id="pdf"),
        pytest.param("text/plain", id="text"),
        pytest.param("", id="empty"),
        pytest.param("image/", id="no-subtype"),
        pytest.param("image/jpeg; charset=binary", id="with-parameter"),
        pytest.param("image/jpgx", id="jpg-prefix"),
        pytest.param("image /png", id="inner-blank"),
        pytest.param("\x85image/png", id="next-line-is-not-js-whitespace"),
        pytest.param("\x1cimage/png", id="file-separator-is-not-js-whitespace"),
    ],
)
def test_unsupported_mime_is_filtered(mime):
    assert is_supported_image_mime(mime) is False
    assert normalize_image_mime(mime) is None


@pytest.mark.parametrize("value", [None, 1, b"image/png"], ids=["null", "number", "bytes"])
def test_non_string_mime_is_not_supported(value):
    assert is_supported_image_mime(value) is False


# -- builders ---------------------------------------------------------------------------------------------------


ATTACHMENTS = (
    Attachment(name="shot.png", mime_type="image/png", data_base64="iVBORw0KGgo="),
    Attachment(name=None, mime_type="image/jpg", data_base64="/9j/4AAQ"),
    Attachment(name="", mime_type="application/pdf", data_base64="JVBERi0x"),
)
ATTACHMENTS_WIRE = [
    {"name": "shot.png", "mimeType": "image/png", "dataBase64": "iVBORw0KGgo="},
    {"name": None, "mimeType": "image/jpg", "dataBase64": "/9j/4AAQ"},
    {"name": "", "mimeType": "application/pdf", "dataBase64": "JVBERi0x"},
]


def test_dispatch_builder_carries_attachments():
    message = built(make_task_dispatch, request_id="r", external_key="k", workspace="chat", session_id=None,
                    prompt="see", attachments=ATTACHMENTS)
    assert message.to_wire()["payload"]["attachments"] == ATTACHMENTS_WIRE
    assert message.payload.attachments == ATTACHMENTS


def test_turn_end_builder_carries_attachments():
    message = built(make_turn_end, request_id="r", external_key="k", session_id="s", status="ok", final_text="",
                    error_message=None, usage=TurnUsage(duration_ms=None), attachments=ATTACHMENTS)
    assert message.to_wire()["payload"]["attachments"] == ATTACHMENTS_WIRE


def test_builder_accepts_exactly_sixteen_attachments():
    many = tuple(Attachment(name=f"{i}.png", mime_type="image/png", data_base64="AA==") for i in range(16))
    message = built(make_turn_end, request_id="r", external_key="k", session_id=None, status="ok", final_text="x",
                    error_message=None, attachments=many)
    assert len(message.payload.attachments) == 16


def test_filtering_parsed_attachments_with_the_allowlist():
    payload = accept(sample_of(DISPATCH)).payload
    kept = [a.name for a in payload.attachments if is_supported_image_mime(a.mime_type)]
    assert kept == ["shot.png", None]


# -- valid and invalid attachment lists -------------------------------------------------------------------------

ACCEPTED = [
    *[
        good(f"{where} name null", base, {"attachments/0/name": None})
        for where, base in (("dispatch", DISPATCH), ("turn.end", END))
    ],
    good("turn.end name empty string", END, {"attachments/0/name": ""}),
    good("dispatch non-image MIME still parses (filter, not parse rule)", DISPATCH,
         {"attachments/0/mimeType": "application/pdf"}),
    good("turn.end image/jpg alias parses", END, {"attachments/0/mimeType": "image/jpg"}),
    good("dispatch 16 attachments", DISPATCH, {"attachments": [ITEM] * 16}),
    good("turn.end 16 attachments", END, {"attachments": [ITEM] * 16}),
    good("turn.end attachments absent", END, {"attachments": DELETE}),
    good("turn.end attachments empty", END, {"attachments": []}),
    good("dispatch attachment unknown field kept", DISPATCH, {"attachments/0/sizeBytes": 1024}),
    good("dispatch base64 is not decoded by the parser", DISPATCH, {"attachments/0/dataBase64": "not base64!"}),
]


@pytest.mark.parametrize(("base", "changes"), ACCEPTED)
def test_allowed_edge_is_accepted(base, changes):
    accept(edit(sample_of(base), changes))


def _rejections(label: str, base: str) -> list:
    return [
        bad(f"{label} 17 attachments", base, {"attachments": [ITEM] * 17}, "/payload/attachments",
            IssueCode.TOO_MANY),
        bad(f"{label} attachments not an array", base, {"attachments": ITEM}, "/payload/attachments",
            IssueCode.WRONG_TYPE),
        bad(f"{label} attachments null", base, {"attachments": None}, "/payload/attachments", IssueCode.WRONG_TYPE),
        bad(f"{label} item not an object", base, {"attachments/1": "x.png"}, "/payload/attachments/1",
            IssueCode.WRONG_TYPE),
        bad(f"{label} name absent (present-but-null rule)", base, {"attachments/0/name": DELETE},
            "/payload/attachments/0/name", IssueCode.MISSING),
        bad(f"{label} name number", base, {"attachments/1/name": 3}, "/payload/attachments/1/name",
            IssueCode.WRONG_TYPE),
        bad(f"{label} mimeType empty", base, {"attachments/0/mimeType": ""}, "/payload/attachments/0/mimeType",
            IssueCode.EMPTY),
        bad(f"{label} mimeType absent", base, {"attachments/1/mimeType": DELETE}, "/payload/attachments/1/mimeType",
            IssueCode.MISSING),
        bad(f"{label} dataBase64 empty", base, {"attachments/0/dataBase64": ""}, "/payload/attachments/0/dataBase64",
            IssueCode.EMPTY),
        bad(f"{label} dataBase64 null", base, {"attachments/0/dataBase64": None},
            "/payload/attachments/0/dataBase64", IssueCode.WRONG_TYPE),
    ]


REJECTED = [*_rejections("dispatch", DISPATCH), *_rejections("turn.end", END)]


@pytest.mark.parametrize(("base", "changes", "path", "code"), REJECTED)
def test_broken_rule_is_rejected_at_its_path(base, changes, path, code):
    expect_issue(edit(sample_of(base), changes), path, code)
