"""What a model is asked, as a cassette stores and matches it, and how two requests differ.

A request is everything the model sees: the instructions, the input items, the
tools' and handoffs' schemas, the output schema and the model settings. Its
canonical form is plain JSON with the volatile parts normalised, so that the
same question asked in another process, thread or run has the same digest:

- ids (`id`, `call_id`, `item_id`, response and conversation ids) become
  `<id 1>`, `<id 2>`, ... in order of first appearance, so a call and its output
  still pair up while the values themselves may differ;
- `None` values are dropped (a field left out and a field set to null read alike);
- the model settings' extra headers are left out (they carry keys, not questions).

`explain` says, in words, the first way a request differs from a recorded one.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agents import AgentOutputSchemaBase, FunctionTool, Handoff, ModelSettings, Tool
from pydantic import BaseModel

__all__ = ["Request", "canonical_request", "digest", "explain"]

Request = dict[str, Any]
"""A canonical request: plain JSON, see the module docs."""

_ID_KEYS = frozenset(
    {"id", "call_id", "item_id", "response_id", "previous_response_id", "conversation_id"}
)
"""Keys whose values are ids the model's provider or the kit makes, not what was said."""


def canonical_request(
    system_instructions: str | None,
    input: str | Sequence[Any],
    model_settings: ModelSettings,
    tools: Sequence[Tool],
    output_schema: AgentOutputSchemaBase | None,
    handoffs: Sequence[Handoff[Any, Any]],
    *,
    previous_response_id: str | None = None,
    conversation_id: str | None = None,
    prompt: Any = None,
) -> Request:
    """The canonical form of one model call's arguments (see the module docs)."""
    items = [{"role": "user", "content": input}] if isinstance(input, str) else list(input)
    ids = _Ids()
    request: Request = {
        "instructions": system_instructions,
        "input": ids.normalise(_plain(items)),
        "tools": [_tool(t) for t in tools],
        "handoffs": [_handoff(h) for h in handoffs],
        "output_schema": _output_schema(output_schema),
        "model_settings": _settings(model_settings),
        "previous_response_id": ids.value(previous_response_id),
        "conversation_id": ids.value(conversation_id),
        "prompt": _plain(prompt),
    }
    return _without_none(request)


def digest(request: Request) -> str:
    """A SHA-256 of the request's canonical JSON."""
    text = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


class _Ids:
    """Ids replaced by `<id n>` in order of first appearance (see the module docs)."""

    def __init__(self) -> None:
        self._seen: dict[str, str] = {}

    def value(self, value: str | None) -> str | None:
        return (
            None if value is None else self._seen.setdefault(value, f"<id {len(self._seen) + 1}>")
        )

    def normalise(self, tree: Any) -> Any:
        if isinstance(tree, Mapping):
            return {
                k: self.value(v) if k in _ID_KEYS and isinstance(v, str) else self.normalise(v)
                for k, v in tree.items()
            }
        if isinstance(tree, list):
            return [self.normalise(v) for v in tree]
        return tree


def _plain(value: Any) -> Any:
    """JSON values only: pydantic models and dataclasses dumped, `None` fields dropped."""
    if isinstance(value, BaseModel):
        return _plain(value.model_dump(mode="json", exclude_none=True, warnings=False))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return repr(value)


def _without_none(request: Request) -> Request:
    return {k: v for k, v in request.items() if v is not None}


def _tool(tool: Tool) -> dict[str, Any]:
    if isinstance(tool, FunctionTool):
        return {
            "type": "function",
            "name": tool.name,
            "description": tool.description,
            "parameters": _plain(tool.params_json_schema),
            "strict": tool.strict_json_schema,
        }
    # A hosted tool (web search, file search, MCP...): its configuration as the SDK holds it.
    fields: dict[str, Any] = {"type": type(tool).__name__, "name": getattr(tool, "name", "")}
    if dataclasses.is_dataclass(tool):
        for f in dataclasses.fields(tool):
            value = getattr(tool, f.name)
            if not callable(value) and not f.name.startswith("_"):
                fields[f.name] = _plain(value)
    return fields


def _handoff(handoff: Handoff[Any, Any]) -> dict[str, Any]:
    return {
        "name": handoff.tool_name,
        "description": handoff.tool_description,
        "parameters": _plain(handoff.input_json_schema),
        "agent": handoff.agent_name,
    }


def _output_schema(schema: AgentOutputSchemaBase | None) -> dict[str, Any] | None:
    if schema is None or schema.is_plain_text():
        return None
    return {
        "name": schema.name(),
        "schema": _plain(schema.json_schema()),
        "strict": schema.is_strict_json_schema(),
    }


def _settings(settings: ModelSettings) -> dict[str, Any]:
    plain: dict[str, Any] = _plain(settings.to_json_dict())
    # Headers carry keys and organisation ids, and do not change what the model is asked.
    plain.pop("extra_headers", None)
    return plain


def explain(recorded: Request, asked: Request) -> str:
    """The first way `asked` differs from `recorded`, in words; "" when they are equal."""
    for field, describe in _FIELDS:
        before, after = recorded.get(field), asked.get(field)
        if before != after:
            return describe(before, after)
    return ""


def _instructions(before: Any, after: Any) -> str:
    return f"instructions changed: {_short(before)} -> {_short(after)}"


def _input(before: Any, after: Any) -> str:
    old, new = list(before or []), list(after or [])
    for index, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            return f"input item {index + 1} ({_kind(b)}) changed: {_short(_said(a))} -> " + _short(
                _said(b)
            )
    if len(new) > len(old):
        return f"input item {len(old) + 1} ({_kind(new[len(old)])}) added"
    return f"input item {len(new) + 1} ({_kind(old[len(new)])}) removed"


def _named(kind: str) -> Any:
    def describe(before: Any, after: Any) -> str:
        old = {str(t.get("name")): t for t in before or []}
        new = {str(t.get("name")): t for t in after or []}
        change = _first_by_name(kind, old, new, lambda a, b: f": {_schema_change(a, b)}")
        return change or f"the order of the {kind}s changed"

    return describe


def _first_by_name(
    kind: str, old: Mapping[str, Any], new: Mapping[str, Any], changed: Callable[[Any, Any], str]
) -> str:
    """The first `kind` added, removed, or changed (told by `changed`) from `old` to `new`,
    by name, in words; "" when each name holds the same."""
    for name in new.keys() - old.keys():
        return f"{kind} {name} added"
    for name in old.keys() - new.keys():
        return f"{kind} {name} removed"
    for name, was in old.items():
        if was != new[name]:
            return f"{kind} {name}{changed(was, new[name])}"
    return ""


def _schema_change(before: Mapping[str, Any], after: Mapping[str, Any]) -> str:
    old_params, new_params = before.get("parameters") or {}, after.get("parameters") or {}
    old_props = dict(old_params.get("properties") or {})
    new_props = dict(new_params.get("properties") or {})
    change = _first_by_name(
        "parameter", old_props, new_props, lambda a, b: f" changed: {_short(a)} -> {_short(b)}"
    )
    if change:
        return change
    if old_params.get("required") != new_params.get("required"):
        return (
            f"required parameters changed: {old_params.get('required')} -> "
            f"{new_params.get('required')}"
        )
    for key in sorted(set(before) | set(after)):
        if before.get(key) != after.get(key):
            return f"{key} changed: {_short(before.get(key))} -> {_short(after.get(key))}"
    return "schema changed"


def _output(before: Any, after: Any) -> str:
    return f"output schema changed: {_short(before)} -> {_short(after)}"


def _settings_change(before: Any, after: Any) -> str:
    old, new = dict(before or {}), dict(after or {})
    for key in sorted(set(old) | set(new)):
        if old.get(key) != new.get(key):
            return f"model setting {key}: {_short(old.get(key))} -> {_short(new.get(key))}"
    return "model settings changed"


def _other(field: str) -> Any:
    def describe(before: Any, after: Any) -> str:
        return f"{field.replace('_', ' ')} changed: {_short(before)} -> {_short(after)}"

    return describe


_FIELDS = (
    ("instructions", _instructions),
    ("tools", _named("tool")),
    ("handoffs", _named("handoff")),
    ("output_schema", _output),
    ("model_settings", _settings_change),
    ("input", _input),
    ("previous_response_id", _other("previous_response_id")),
    ("conversation_id", _other("conversation_id")),
    ("prompt", _other("prompt")),
)
"""In the order a reader checks them: what the agent is, then what was said."""


def _kind(item: Any) -> str:
    if not isinstance(item, Mapping):
        return "item"
    if item.get("role"):
        return f"{item['role']} message"
    return str(item.get("type") or "item")


def _said(item: Any) -> Any:
    if isinstance(item, Mapping):
        for key in ("content", "arguments", "output"):
            if key in item:
                return item[key]
    return item


def _short(value: Any, limit: int = 80) -> str:
    if value is None:
        return "(none)"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")
