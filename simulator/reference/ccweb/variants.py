"""Deliberately broken behaviours of the reference cc-web (README.md "Broken variants"), one per requirement family.

Each variant is one switch, in the code path it breaks; the conformance features must catch every one of them
(``tests/ccweb``). Selected with ``--variant NAME`` or the environment variable ``CCWEB_REFERENCE_VARIANT``;
``None`` (or "", "none", "correct") is the correct reference.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final

from ..broken_variants import BrokenVariant

__all__ = ["Variant", "VARIANT_ENV"]

VARIANT_ENV: Final = "CCWEB_REFERENCE_VARIANT"


class Variant(BrokenVariant):
    """Deliberately broken behaviours, one per requirement family (``--variant`` / ``CCWEB_REFERENCE_VARIANT``)."""

    #: The tool definitions give ``replyMode`` a ``"default": "one_way"`` (machine.py, ``tool_definitions``).
    REPLYMODE_DEFAULT = "replymode-default"
    #: ``tools/list`` also lists ``ccweb_request_reply`` (server.py, listing).
    ALIAS_LISTED = "alias-listed"
    #: ``tools/call`` rejects ``ccweb_request_reply`` with an allowlist before the dispatcher (server.py, call).
    ALIAS_REJECTED = "alias-rejected"
    #: The fallback list carries a hand-copied, drifted send tool (machine.py, ``fallback_tools``).
    FALLBACK_COPIED_DRIFT = "fallback-copied-drift"
    #: The source continuation prompt omits the request id (machine.py, ``_reply_records``).
    CONTINUATION_WITHOUT_REQUEST_ID = "continuation-without-request-id"
    #: A legacy ``ccweb_send_message`` without ``replyMode`` fails for a reason unrelated to the field (machine.py,
    #: ``dispatch``): an answer to judge, never a declared absence of the optional behaviour.
    LEGACY_NOMODE_BROKEN = "legacy-nomode-broken"
    #: Conformant: a legacy call without ``replyMode`` is refused, the refusal naming the field (PRD §2 可继续: the
    #: one_way handling is optional).
    LEGACY_NOMODE_REFUSED = "legacy-nomode-refused"
    #: A finished return_and_continue target run is never delivered: no write-back, no continuation (machine.py,
    #: ``complete_run``); the control API keeps answering.
    NO_DELIVERY = "no-delivery"
    #: The control API's ``pending-replies`` answers a JSON array instead of an object (control.py).
    CONTROL_MALFORMED = "control-malformed"
    #: The send tool's description names only one_way (machine.py, ``tool_definitions``).
    DESCRIPTION_ONE_MODE = "description-one-mode"
    #: The control API lists the continuation run without its request id (machine.py, ``runs``).
    CONTINUATION_UNLINKED = "continuation-unlinked"

    # Each of these is a subclass of the machine (variant_machines.py), one method overridden.
    #: ``tools/list`` lists ccweb_send_message twice (a leftover second registration of the shared definition).
    SEND_LISTED_TWICE = "send-listed-twice"
    #: The send tool's schema declares ``targetConversationId`` as a string or an integer (numeric ids too).
    TARGET_ID_NUMBER_OR_STRING = "target-id-number-or-string"
    #: The send tool's schema types ``replyMode`` as a plain string: its values only in the description, no enum.
    REPLYMODE_NO_ENUM = "replymode-no-enum"
    #: The send tool's schema keeps the legacy ``required`` list, without ``replyMode``.
    REPLYMODE_OPTIONAL = "replymode-optional"
    #: The fallback list still carries ``ccweb_request_reply`` (its allowlist names the old tool).
    ALIAS_IN_FALLBACK = "alias-in-fallback"
    #: The fallback list lost ``ccweb_send_message`` (its allowlist lacks the send tool); the dispatcher still
    #: takes it.
    FALLBACK_WITHOUT_SEND = "fallback-without-send"
    #: The fallback list is every formal tool with a namespace: no communication-tool allowlist.
    FALLBACK_ALL_TOOLS = "fallback-all-tools"
    #: The legacy dynamic call refuses ``ccweb_request_reply``: an allowlist of the fallback names before the
    #: dispatcher.
    DYNAMIC_ALIAS_REJECTED = "dynamic-alias-rejected"
    #: A send waits for the target run: the run has ended when the call returns.
    SEND_WAITS_FOR_TARGET = "send-waits-for-target"
    #: A ``ccweb_send_message`` return_and_continue result lacks ``replyDelivery`` and ``sourceAutoRun`` (the alias
    #: keeps the old result).
    RESULT_WITHOUT_DELIVERY_FIELDS = "result-without-delivery-fields"
    #: The target run prompt names the source by its title only, not its id.
    TARGET_PROMPT_WITHOUT_SOURCE_ID = "target-prompt-without-source-id"
    #: The one_way target run prompt carries only its header and notice, not the message.
    ONEWAY_PROMPT_WITHOUT_CONTENT = "oneway-prompt-without-content"
    #: The return_and_continue target run prompt carries only its header and notices, not the message.
    RETURN_PROMPT_WITHOUT_CONTENT = "return-prompt-without-content"

    # The robustness profile: one server middleware each (simulator/reference/mcp_robustness_variants.py).
    #: A ``tools/call`` with params over 1 MB of JSON ends the process.
    CRASH_ON_HUGE_ARGUMENT = "crash-on-huge-argument"
    #: A request for a method the server does not serve is never answered.
    SILENT_UNKNOWN_METHOD = "silent-unknown-method"
    #: A request for a method the server does not serve is answered with the error code -32000, not -32601.
    UNKNOWN_METHOD_WRONG_CODE = "unknown-method-wrong-code"
    #: Every tools/call prints a plain line to stdout (the stdio rule; simulator/reference/mcp_stdout_variants.py).
    STDOUT_CHATTER = "stdout-chatter"

    @classmethod
    def subject(cls) -> str:
        return "ccweb reference"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Variant | None:
        return cls.parse((os.environ if environ is None else environ).get(VARIANT_ENV))
