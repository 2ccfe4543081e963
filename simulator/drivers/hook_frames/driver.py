"""``FrameDriver``: one frame scenario — the case the Given and When steps build, and its delivery to the subject
under test that every Then step judges.

The probe is asked for only when a Then step delivers the case (``probe()``), so a scenario whose case cannot be
built never reaches the subject, and the parser's unit tests (which judge ``case.parse()`` instead) never do.
"""

from __future__ import annotations

from collections.abc import Callable

from ...roles.frame_probe import DeliveryOutcome, FrameProbe
from ...wirelog import WireLog
from .case import FrameCase, InputForm
from .judgement import check_accepted_frame, check_accepted_ping, check_error_code, check_rejected_at
from .literals import Nesting, integer_literal, json_value, list_like, nested_literal
from .samples import SampleLibrary

__all__ = ["FrameDriver"]


class FrameDriver:
    """The frame case of one scenario over the ``samples`` library; ``probe()`` gives the probe of the subject the
    case is delivered to, and the delivery is recorded in ``wire``."""

    def __init__(self, samples: SampleLibrary, wire: WireLog, probe: Callable[[], FrameProbe]) -> None:
        self.samples, self.wire, self._probe = samples, wire, probe
        self._case: FrameCase | None = None

    @property
    def case(self) -> FrameCase:
        if self._case is None:
            raise ValueError("no frame yet: the scenario starts with 'the text frame:' or 'the sample frame …'")
        return self._case

    # -- Given: the frame ----------------------------------------------------------------------------------------

    def use_text(self, text: str) -> FrameCase:
        """The frame exactly as it would arrive in a WebSocket text frame."""
        self._case = FrameCase(raw_text=text)
        return self._case

    def use_sample(self, name: str) -> FrameCase:
        """The valid sample frame ``<type>/<variant>``."""
        self._case = FrameCase(frame=self.samples.load(name))
        return self._case

    def use_padded_sample(self, name: str, units: int, char: str) -> FrameCase:
        """The sample's text padded to exactly ``units`` UTF-16 code units with ``char`` (sent as written); the
        padding is an unknown envelope key, so the text claims the sample's ``type``."""
        claimed = self.samples.load(name).get("type")
        padded = self.samples.padded(name, units, char)
        self._case = FrameCase.text_claiming(padded.text, claimed if isinstance(claimed, str) else None,
                                             utf8=padded.utf8)
        return self._case

    # -- When: mutations and the input form ---------------------------------------------------------------------

    def set_field(self, pointer: str, value: str) -> None:
        """The field becomes the JSON value ``value``."""
        self.case.set(pointer, json_value(value))

    def remove_field(self, pointer: str) -> None:
        self.case.remove(pointer)

    def set_long_string(self, pointer: str, count: int, char: str) -> None:
        """The field becomes ``count`` times ``char``."""
        self.case.set(pointer, char * count)

    def set_list(self, pointer: str, count: int, template: str) -> None:
        """The field becomes ``count`` items like the JSON ``template`` (``{i}``: the item's index)."""
        self.case.set(pointer, list_like(template, count))

    def set_nested(self, pointer: str, kind: Nesting, depth: int) -> None:
        """The field becomes ``depth`` levels of arrays or objects, written as a literal into the text."""
        self.case.splice(pointer, nested_literal(kind, depth))

    def set_integer_literal(self, pointer: str, digits: int, *, negative: bool = False) -> None:
        """The field becomes an integer literal of ``digits`` digits, written as it is into the text."""
        self.case.splice(pointer, integer_literal(digits, negative=negative))

    def set_nan(self, pointer: str) -> None:
        """The field becomes NaN: a ``NaN`` literal in the text, a float NaN in an object."""
        self.case.set(pointer, float("nan"))

    def put_invalid_utf8(self, pointer: str) -> None:
        """The frame is given as bytes, with a byte that is not UTF-8 as the string at ``pointer``."""
        self.case.put_invalid_utf8(pointer)

    def give_as(self, form: InputForm) -> None:
        """The input form: text, bytes (a binary frame on the wire when not UTF-8) or a decoded object."""
        self.case.give_as(form)

    # -- Then: the subject's answer to the delivered frame ------------------------------------------------------

    def _delivered(self, *, answered: bool = False) -> tuple[str, DeliveryOutcome]:
        probe = self._probe()
        return probe.subject, self.case.delivered(probe, self.wire, answered=answered)

    def expect_rejected_at(self, pointer: str) -> None:
        """The subject dropped the frame (reporting the drop at ``pointer`` where its control API lists drops)."""
        ping_case = self.case.is_ping
        check_rejected_at(*self._delivered(), pointer, ping_case=ping_case)

    def expect_error_code(self, code: str) -> None:
        """The subject dropped the frame (reporting the drop with ``code`` where its control API lists drops)."""
        check_error_code(*self._delivered(), code)

    def expect_accepted(self) -> None:
        """A valid ping must be answered with a pong; any other valid frame (delivered to a hook server only:
        features/hook/conftest.py) must not be dropped by the parser. The connection that carried a valid frame
        other than a ping is not used for later cases: what the subject does with it (a bind flow, a re-hello)
        must not be mistaken for a reaction to the next case."""
        if self.case.is_ping:
            check_accepted_ping(*self._delivered(answered=True))
            return
        probe = self._probe()
        try:
            check_accepted_frame(probe.subject, self.case.delivered(probe, self.wire))
        finally:
            probe.retire()
