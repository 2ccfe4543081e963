"""Deliberately broken variants of the reference (docs/probekit-plan.md), each a tiny switch used as a test
fixture for the conformance features: ``--variant NAME`` or env ``PROBEKIT_REFERENCE_VARIANT``."""

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

    @classmethod
    def subject(cls) -> str:
        return "probekit"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Variant | None:
        return cls.parse((os.environ if env is None else env).get(VARIANT_ENV))
