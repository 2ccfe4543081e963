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
    # Each of these is a subclass of ProbeKit (variant_kits.py), one method overridden.
    FULL_MISSING_TOOL = "full-missing-tool"          # the full toolset lists 48 tools (genchangelog missing)
    DEFAULT_CORE = "default-core"                    # MCP_TOOLSET unset runs core, not full
    UI_MISSING_TOOL = "ui-missing-tool"              # the ui toolset lists 5 tools (sync_ui_data missing)
    WORKFLOW_MISSING_TOOL = "workflow-missing-tool"  # the workflow toolset lists 29 tools (gen_mock missing)
    UI_LISTS_INTERNAL_STEPS = "ui-lists-internal-steps"    # the ui toolset also lists start_ui's internal steps
    UI_STEPS_OUTSIDE_TOOLSET = "ui-steps-outside-toolset"  # start_ui's internal steps pass the toolset check: fails
    #                                                        under ui
    SHOW_ALL_ONLY_TRUE = "show-all-only-true"        # MCP_SHOW_ALL is honoured only as "true", not as "1"
    ERROR_AS_PROTOCOL_ERROR = "error-as-protocol-error"  # a failing call answers a JSON-RPC error, not isError
    COMMIT_GITMOJI = "commit-gitmoji"                # gencommit's finalMessage starts with a gitmoji, not the type
    COMMIT_TEXT_SUMMARY = "commit-text-summary"      # gencommit's text is a summary without the finalMessage
    WORKFLOW_NAME_WITHOUT_PREFIX = "workflow-name-without-prefix"  # a start_* report's workflowName lacks "start_"
    OPTIONS_AS_BULLETS = "options-as-bullets"        # the text question lists its options as bullets, not numbered
    FORM_ANSWER_DROPPED = "form-answer-dropped"      # an accepted form's answer is not in the result text
    FORM_FOR_ANY_ELICITATION = "form-for-any-elicitation"  # a url-only client gets form elicitations
    TASK_CREATED_SUBMITTED = "task-created-submitted"      # a created task has the status "submitted"
    TASK_WITHOUT_POLL_INTERVAL = "task-without-poll-interval"  # a created task has no pollInterval
    TASK_GET_WITHOUT_UPDATE_TIME = "task-get-without-update-time"  # tasks/get answers no lastUpdatedAt
    TASK_RESULT_IS_TASK = "task-result-is-task"      # tasks/result answers the task object, not the tool's result
    TASK_RESULT_WITHOUT_RELATED = "task-result-without-related"  # tasks/result lacks the related-task _meta
    TASK_LIST_ONLY_FINISHED = "task-list-only-finished"    # tasks/list holds only finished tasks
    TASK_CANCEL_NOT_RECORDED = "task-cancel-not-recorded"  # tasks/cancel answers cancelled, the task runs on
    TASK_NEVER_EXPIRES = "task-never-expires"        # a task's ttl is never enforced

    # The robustness profile: one server middleware each (simulator/reference/mcp_robustness_variants.py).
    #: A ``tools/call`` with params over 1 MB of JSON ends the process.
    CRASH_ON_HUGE_ARGUMENT = "crash-on-huge-argument"
    #: A request for a method the server does not serve is never answered.
    SILENT_UNKNOWN_METHOD = "silent-unknown-method"
    #: A request for a method the server does not serve is answered with the error code -32000, not -32601.
    UNKNOWN_METHOD_WRONG_CODE = "unknown-method-wrong-code"
    #: Every tools/call prints a plain line to stdout (the stdio rule; simulator/reference/mcp_stdout_variants.py).
    STDOUT_CHATTER = "stdout-chatter"

    @property
    def requires_main_argument(self) -> bool:
        return self in (Variant.STRICT_INPUTS, Variant.TOOLSET_LEAK)

    @classmethod
    def subject(cls) -> str:
        return "probekit"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Variant | None:
        return cls.parse((os.environ if env is None else env).get(VARIANT_ENV))
