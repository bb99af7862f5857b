"""A gated tool's extra answer fields, declared on the Agents SDK tool itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from agents import FunctionTool

_SCHEMA_ATTR = "__interrupt_widget_response_schema__"


def with_response_schema(tool: FunctionTool, schema: Mapping[str, Any]) -> FunctionTool:
    """Declare the extra answer fields of a gated tool on the tool itself.

    The adapter adds them beside `approved` in the tool's interrupts, so an
    agent built with such tools needs no `response_schemas=` argument.
    """
    setattr(tool, _SCHEMA_ATTR, dict(schema))
    return tool


def declared_response_schema(tool: Any) -> Mapping[str, Any] | None:
    """The schema `with_response_schema` declared on `tool`, if any."""
    schema = getattr(tool, _SCHEMA_ATTR, None)
    return schema if isinstance(schema, Mapping) else None
