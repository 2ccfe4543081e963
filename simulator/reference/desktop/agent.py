"""The scripted agent of the reference desktop (docs/desktop-plan.md, control ``script-next-turn``).

A ``Script`` says what the next turn does: progress snapshots (each a whole rendering, spec §5 turn.progress),
an optional interaction card (§5 阶段 10), an optional wait for ``task.cancel``, and the final status, text and
attachments (§7 MIME allowlist). ``Script.steps()`` is the turn as a list of steps; the machine runs them, spaced
``step_ms`` apart. Pure: no clock, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from ...hook import MAX_INTERACTION_BUTTONS, Attachment, is_supported_image_mime, normalize_image_mime

__all__ = ["Script", "InteractionScript", "ScriptButton", "DEFAULT_SCRIPT", "filter_attachments"]

_STATUSES = ("ok", "error", "cancelled")


@dataclass(frozen=True, slots=True)
class ScriptButton:
    id: str
    label: str
    decision: str
    style: str = "default"


@dataclass(frozen=True, slots=True)
class InteractionScript:
    """An interaction card: ``buttons`` map a button id to a local decision (spec §2: decisions stay local)."""

    kind: str = "permission"
    title: str = "Allow the tool call?"
    body: str = "The agent wants to run a command."
    buttons: tuple[ScriptButton, ...] = (
        ScriptButton("allow", "Allow", "allow", "primary"),
        ScriptButton("deny", "Deny", "deny", "danger"),
    )
    timeout_ms: int = 30_000
    #: The safe default applied on timeout (a decision, not a button id).
    default_decision: str = "deny"

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InteractionScript:
        if not isinstance(data, Mapping):
            raise ValueError("interaction: an object is required")
        kw: dict[str, Any] = {}
        for key, attr in (("kind", "kind"), ("title", "title"), ("body", "body")):
            if key in data:
                if not isinstance(data[key], str) or not data[key]:
                    raise ValueError(f"interaction.{key}: a non-empty string is required")
                kw[attr] = data[key]
        if "buttons" in data:
            raw = data["buttons"]
            if not isinstance(raw, list) or not raw:
                raise ValueError("interaction.buttons: a non-empty list is required")
            if len(raw) > MAX_INTERACTION_BUTTONS:
                raise ValueError(f"interaction.buttons: at most {MAX_INTERACTION_BUTTONS} buttons")
            buttons, seen = [], set()
            for i, b in enumerate(raw):
                if not isinstance(b, Mapping) or not isinstance(b.get("id"), str) or not b["id"]:
                    raise ValueError(f"interaction.buttons[{i}].id: a non-empty string is required")
                bid = b["id"]
                if "|" in bid or bid in seen:
                    raise ValueError(f"interaction.buttons[{i}].id: must be unique and contain no '|'")
                seen.add(bid)
                buttons.append(ScriptButton(bid, str(b.get("label") or bid), str(b.get("decision") or bid),
                                            str(b.get("style") or "default")))
            kw["buttons"] = tuple(buttons)
        if "timeoutMs" in data:
            t = data["timeoutMs"]
            if not isinstance(t, int) or isinstance(t, bool) or t < 0:
                raise ValueError("interaction.timeoutMs: a non-negative integer is required")
            kw["timeout_ms"] = t
        if "defaultDecision" in data:
            kw["default_decision"] = str(data["defaultDecision"])
        return cls(**kw)

    def decision_for(self, button_id: str) -> str | None:
        for b in self.buttons:
            if b.id == button_id:
                return b.decision
        return None


@dataclass(frozen=True, slots=True)
class Script:
    progress: tuple[str, ...] = ("working…",)
    final_text: str = "done"
    status: str = "ok"
    error_message: str | None = None
    step_ms: int = 10
    wait_for_cancel: bool = False
    interaction: InteractionScript | None = None
    attachments: tuple[Attachment, ...] = ()
    #: False: turn.end carries ``usage.durationMs: null`` (the agent could not tell).
    measure_duration: bool = True
    extra: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Script:
        """The control API's ``script-next-turn`` body; ``ValueError`` names the bad field."""
        if not isinstance(data, Mapping):
            raise ValueError("the script must be an object")
        kw: dict[str, Any] = {}
        if "progress" in data:
            p = data["progress"]
            if not isinstance(p, list) or not all(isinstance(t, str) and t for t in p):
                raise ValueError("progress: a list of non-empty strings is required")
            kw["progress"] = tuple(p)
        if "finalText" in data:
            if not isinstance(data["finalText"], str):
                raise ValueError("finalText: a string is required")
            kw["final_text"] = data["finalText"]
        status = data.get("status", "ok")
        if status not in _STATUSES:
            raise ValueError(f"status: one of {', '.join(_STATUSES)}")
        kw["status"] = status
        err = data.get("errorMessage")
        if err is not None and not isinstance(err, str):
            raise ValueError("errorMessage: a string or null is required")
        kw["error_message"] = err
        if "stepMs" in data:
            s = data["stepMs"]
            if not isinstance(s, int) or isinstance(s, bool) or s < 0:
                raise ValueError("stepMs: a non-negative integer is required")
            kw["step_ms"] = s
        kw["wait_for_cancel"] = bool(data.get("waitForCancel", False))
        if data.get("interaction") is not None:
            kw["interaction"] = InteractionScript.from_json(data["interaction"])
        if data.get("attachments") is not None:
            atts = data["attachments"]
            if not isinstance(atts, list):
                raise ValueError("attachments: a list is required")
            out = []
            for i, a in enumerate(atts):
                if not isinstance(a, Mapping) or not isinstance(a.get("mimeType"), str) \
                        or not isinstance(a.get("dataBase64"), str):
                    raise ValueError(f"attachments[{i}]: {{name, mimeType, dataBase64}} is required")
                out.append(Attachment(a.get("name"), a["mimeType"], a["dataBase64"]))
            kw["attachments"] = tuple(out)
        if "measureDuration" in data:
            kw["measure_duration"] = bool(data["measureDuration"])
        return cls(**kw)

    def steps(self) -> tuple[tuple[str, Any], ...]:
        """The turn as steps: ("progress", text)…, ("interaction", card)?, ("wait-cancel", None)?, ("end", None)."""
        out: list[tuple[str, Any]] = [("progress", t) for t in self.progress]
        if self.interaction is not None:
            out.append(("interaction", self.interaction))
        if self.wait_for_cancel:
            out.append(("wait-cancel", None))
        out.append(("end", None))
        return tuple(out)

    def end_fields(self, decision: str | None = None) -> tuple[str, str, str | None]:
        """(status, finalText, errorMessage) with the spec §5 linkage: ok → null; error → non-empty."""
        text = self.final_text.replace("{decision}", decision or "")
        if self.status == "ok":
            return "ok", text, None
        if self.status == "error":
            return "error", text, self.error_message or "the agent failed"
        return "cancelled", text, self.error_message


DEFAULT_SCRIPT = Script()


def filter_attachments(attachments: tuple[Attachment, ...]) -> tuple[Attachment, ...]:
    """§7: keep supported images only, ``image/jpg`` normalised to ``image/jpeg``."""
    # cast: is_supported_image_mime() has just checked that normalize_image_mime() gives a str (not None)
    return tuple(Attachment(a.name, cast(str, normalize_image_mime(a.mime_type)), a.data_base64)
                 for a in attachments if is_supported_image_mime(a.mime_type))
