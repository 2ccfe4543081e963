"""Variants of the reference (docs/probekit-plan.md), each a tiny switch used as a test fixture for the conformance
features: ``--variant NAME`` or env ``PROBEKIT_REFERENCE_VARIANT``. All are deliberately broken except
``strict-inputs``, a conformant alternative the features must pass too (docs/probekit-decisions.md "Variants")."""

from __future__ import annotations

import os
from collections.abc import Mapping

from ..broken_variants import BrokenVariant

__all__ = ["Variant", "VARIANT_ENV"]

VARIANT_ENV = "PROBEKIT_REFERENCE_VARIANT"


class Variant(BrokenVariant):
    CORE_MISSING_TOOL = "core-missing-tool"          # gencommit missing from core
    ERROR_WITHOUT_ISERROR = "error-without-iserror"  # a failing call returns error text without isError
    INVALID_STRUCTURED = "invalid-structured"        # gencommit's structuredContent violates its outputSchema
    CANCEL_AFTER_COMPLETE = "cancel-after-complete"  # tasks/cancel of a completed task succeeds
    SECRET_IN_FORM = "secret-in-form"                # a token/password is asked for in a form
    ALL_CALLS_FAIL = "all-calls-fail"                # every tools/call answers an errorResponse
    NO_SECRET_ELICITATION = "no-secret-elicitation"  # a token question is asked in text, never through a url
    UNKNOWN_TOOL_ERROR = "unknown-tool-error"        # detect_shell is listed but answers "unknown tool"
    NO_META_SCHEMA = "no-meta-schema"                # structured results lack _meta.schema
    LAX_INPUT = "lax-input"                          # arguments are never validated against the inputSchema
    TOOLSET_LEAK = "toolset-leak"                    # tools outside the toolset are callable (the list is filtered);
    #                                                  start_* require their main argument (as strict-inputs)
    STRICT_INPUTS = "strict-inputs"                  # conformant: start_* require their main argument; ask_user
    #                                                  answers guidance to {} (as the 1.x tool did)

    @property
    def requires_main_argument(self) -> bool:
        return self in (Variant.STRICT_INPUTS, Variant.TOOLSET_LEAK)

    @classmethod
    def subject(cls) -> str:
        return "probekit"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Variant | None:
        return cls.parse((os.environ if env is None else env).get(VARIANT_ENV))
