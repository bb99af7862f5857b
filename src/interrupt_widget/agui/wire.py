"""The one boundary where AG-UI's Python models become camelCase JSON and back.

Everything that leaves Python for the front end, a file or the network goes
through `to_wire`; everything that comes back goes through the `*_from_wire`
parsers, which accept the camelCase wire form, the snake_case form and model
instances alike. The widgets' own custom messages (a prompt, an answer, their
replies) are not AG-UI models: `picker_protocol.py` and `chat_protocol.py` type
those, and carry AG-UI values inside them in this module's form.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from ag_ui.core import BaseEvent, Event, Interrupt, Message, ResumeEntry
from pydantic import BaseModel, TypeAdapter

JsonDict = dict[str, Any]
_M = TypeVar("_M", bound=BaseModel)
_MESSAGE_ADAPTER: TypeAdapter[Message] = TypeAdapter(Message)
_EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def to_wire(model: BaseModel) -> JsonDict:
    """Dump an AG-UI model as the protocol's camelCase JSON, without unset fields."""
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)


def _parse(cls: type[_M], value: _M | Mapping[str, Any]) -> _M:
    if isinstance(value, cls):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"expected a {cls.__name__} or a mapping, got {type(value).__name__}")
    return cls.model_validate(dict(value))


def interrupt_from_wire(value: Interrupt | Mapping[str, Any]) -> Interrupt:
    """An `Interrupt` from a model, or its camelCase or snake_case dict."""
    return _parse(Interrupt, value)


def interrupts_from_wire(values: Iterable[Interrupt | Mapping[str, Any]]) -> list[Interrupt]:
    return [interrupt_from_wire(v) for v in values]


def resume_entry_from_wire(value: ResumeEntry | Mapping[str, Any]) -> ResumeEntry:
    return _parse(ResumeEntry, value)


def message_from_wire(value: Message | Mapping[str, Any]) -> Message:
    """An AG-UI message (any role) from a model or its dict."""
    if isinstance(value, BaseModel):
        return value
    return _MESSAGE_ADAPTER.validate_python(dict(value))


def messages_to_wire(messages: Iterable[Message]) -> list[JsonDict]:
    return [to_wire(m) for m in messages]


def event_from_wire(value: Mapping[str, Any]) -> BaseEvent:
    """An AG-UI event from its wire dict; pydantic's `ValidationError` when it is none."""
    event: BaseEvent = _EVENT_ADAPTER.validate_python(
        value if isinstance(value, dict) else dict(value)
    )
    return event


def event_from_json(data: str | bytes) -> BaseEvent:
    """An AG-UI event from its wire JSON text, parsed and checked in one pass."""
    event: BaseEvent = _EVENT_ADAPTER.validate_json(data)
    return event


def json_pointer(path: Iterable[Any]) -> str:
    """The JSON Pointer (RFC 6901) naming the place at `path` in a JSON document."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)
