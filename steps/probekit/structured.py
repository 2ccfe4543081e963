"""Probe-kit structured results: ``structuredContent`` against its schemas, gencommit's commit message and the
WorkflowReport's name (``simulator.drivers.probekit.structured`` and ``commits``)."""

from __future__ import annotations

import pytest_bdd as bdd
from pytest_bdd import parsers

from simulator.drivers.probekit import (
    ProbeKitDriver, check_conventional_header, check_design_schema, check_every_structured, check_field_non_empty,
    check_meta_schema, check_meta_schema_requires, check_structured, check_text_carries_final_message,
    check_workflow_name,
)

from .values import json_value, quoted_names


@bdd.then("at least one call answered a structured result, and every structured result is valid against its "
          "_meta.schema, the tool's outputSchema and the design's schema for that tool")
def then_every_structured(probekit: ProbeKitDriver) -> None:
    check_every_structured(probekit.calls, probekit.listed_by_name(), probekit.design)


@bdd.then("the structured content is valid against its _meta.schema, the tool's outputSchema and the design's "
          "schema for that tool")
def then_structured(probekit: ProbeKitDriver) -> None:
    check_structured(probekit.call, probekit.listed_tool(probekit.call.tool), probekit.design)


@bdd.then("the structured content is valid against the schema in its _meta.schema")
def then_meta_schema(probekit: ProbeKitDriver) -> None:
    check_meta_schema(probekit.call)


@bdd.then("the structured content is valid against the design's schema:")
def then_design_schema(probekit: ProbeKitDriver, docstring: str) -> None:
    check_design_schema(probekit.call, json_value(docstring))


@bdd.then(parsers.parse('the schema in _meta.schema requires "{fields}"'))
def then_meta_schema_requires(probekit: ProbeKitDriver, fields: str) -> None:
    check_meta_schema_requires(probekit.call, quoted_names(fields))


@bdd.then(parsers.parse('the structured content field "{name}" is a non-empty string'))
def then_field_non_empty(probekit: ProbeKitDriver, name: str) -> None:
    check_field_non_empty(probekit.call, name)


@bdd.then(parsers.parse('the final message starts with a Conventional Commits header of type "{kind}"'))
def then_conventional(probekit: ProbeKitDriver, kind: str) -> None:
    check_conventional_header(probekit.call, kind)


@bdd.then("the result text contains the final message")
def then_text_has_final(probekit: ProbeKitDriver) -> None:
    check_text_carries_final_message(probekit.call)


@bdd.then("the structured content field \"workflowName\" names the called tool")
def then_workflow_name(probekit: ProbeKitDriver) -> None:
    check_workflow_name(probekit.call)
