"""Frame cases delivered to a hook subject under test (``features/hook/frames``): build a frame, mutate it, send
it, judge the subject's answer.

Theory of operation. The frame features state where the protocol core rejects a frame. As conformance scenarios
(``features/hook/test_hook_frames.py``, once per hook subject: the hook server and the desktop under test) each
rejection case is **sent over the wire** to the subject, which must drop it (spec §2 "两端收帧唯一入口是
parseHookMessage … 坏帧返回 ok:false", §3 "老端收到未知 type 丢帧不断连"): keep the connection open, send nothing in
reaction, keep answering ping (阶段 1 "收到 ping 必须回 pong"), and, where its control API offers ``dropped-frames``,
report the drop at the case's pointer and code. A valid ``ping`` case must be answered with ``pong``. Bytes that
are not UTF-8 go as a binary frame, since a text frame cannot carry them (RFC 6455 §5.6). The parser's own
agreement with the upstream package is a unit test (tests/hook/test_frame_features.py judges ``case.parse()``),
never a conformance result. Frames the subject *sends* are judged against the same requirements by
``simulator.drivers.emitted_frames``.

| module | holds |
|---|---|
| ``case`` | ``FrameCase``: the frame, its mutations by JSON pointer, the parser input per form, the wire form, delivery |
| ``literals`` | step values as JSON, and the literals spliced into a text (deep nesting, long integers) |
| ``samples`` | ``SampleLibrary``: the sample frames of ``scenarios/hook/samples`` (the folder is passed in) |
| ``judgement`` | the subject's answer to a delivered case, judged against the drop rule |
| ``probes`` | ``FrameProbes``: one receive probe per hook subject for the run, and how each is opened |
| ``driver`` | ``FrameDriver``: one scenario's case and its delivery, as named operations |
"""

from .case import FrameCase, InputForm
from .driver import FrameDriver
from .judgement import DROP_RULE, refuses_invalid_dispatch, reported_drop
from .literals import Nesting, integer_literal, json_value, list_like, nested_literal
from .probes import DESKTOP_REDIAL_S, FrameProbes, open_probe
from .samples import PADDING_KEY, SampleLibrary

__all__ = [
    "DESKTOP_REDIAL_S", "DROP_RULE", "PADDING_KEY",
    "FrameCase", "FrameDriver", "FrameProbes", "InputForm", "Nesting", "SampleLibrary",
    "integer_literal", "json_value", "list_like", "nested_literal", "open_probe", "refuses_invalid_dispatch",
    "reported_drop",
]
