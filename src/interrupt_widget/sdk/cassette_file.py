"""A cassette's file: JSON Lines, one recorded model call a line, stable and reviewable.

Each line is one object with sorted keys::

    {"digest": "sha256:...", "kind": "stream", "request": {...}, "events": [...], "turn": 1}

`request` is the canonical request (`cassette_requests`); `kind` is `stream` (every
Responses stream event the model yielded, in order, under `events`) or `response` (the
whole `ModelResponse` under `response`). Nothing secret is written: header values, keys
named like credentials, and the values of the OpenAI credential variables set in this
process are replaced by `<redacted>` before a line is written (`scrub`), and a cassette's
`redact` hook may change anything else.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Final, Literal, get_args, get_origin

from agents import ModelResponse, Usage
from agents.items import TResponseStreamEvent
from openai._models import construct_type
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseOutputItem,
    ResponseStreamEvent,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from pydantic import BaseModel, ValidationError

__all__ = ["REDACTED", "Entry", "Redact", "load", "scrub", "write"]

REDACTED: Final = "<redacted>"

Redact = Callable[[dict[str, Any]], dict[str, Any]]
"""A hook that gets each line as a dict before it is written, and returns what to write."""

_SECRET_KEYS = re.compile(
    r"^(authorization|proxy-authorization|api[-_]?key|x-api-key|openai[-_]organization|"
    r"openai[-_]project|organization|organization[-_]id|project[-_]id|cookie|set-cookie)$",
    re.IGNORECASE,
)
_SECRET_ENV: Final = ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID")


@dataclass
class Entry:
    """One recorded model call."""

    turn: int
    """1 for the cassette's first call, in the order they were recorded."""
    digest: str
    """The canonical request's digest, what a replay matches on."""
    request: dict[str, Any]
    """The canonical request (see `cassette_requests`)."""
    kind: Literal["stream", "response"]
    events: list[dict[str, Any]] = field(default_factory=list)
    """For `stream`: every stream event, as JSON."""
    response: dict[str, Any] = field(default_factory=dict)
    """For `response`: the model response, as JSON."""

    def to_json(self) -> dict[str, Any]:
        answer = {"events": self.events} if self.kind == "stream" else {"response": self.response}
        line = {"turn": self.turn, "digest": self.digest, "kind": self.kind}
        return line | {"request": self.request} | answer

    @classmethod
    def from_json(cls, line: Mapping[str, Any]) -> Entry:
        kind = line.get("kind")
        if kind not in ("stream", "response"):
            raise ValueError(f"unknown kind {kind!r}")
        return cls(
            turn=int(line["turn"]),
            digest=str(line["digest"]),
            request=dict(line["request"]),
            kind=kind,
            events=list(line.get("events") or []),
            response=dict(line.get("response") or {}),
        )

    def model_response(self) -> ModelResponse:
        """The recorded answer as `get_response` returns it (a stream's completed event too)."""
        if self.kind == "response":
            return ModelResponse(
                output=[
                    _typed(_ITEMS, ResponseOutputItem, item)
                    for item in self.response.get("output") or []
                ],
                usage=_usage(self.response.get("usage") or {}),
                response_id=self.response.get("response_id"),
            )
        for event in reversed(self.stream_events()):
            if isinstance(event, ResponseCompletedEvent):
                response = event.response
                usage = response.usage.model_dump(mode="json") if response.usage else {}
                return ModelResponse(
                    output=list(response.output),
                    usage=_usage({**usage, "requests": 1}),
                    response_id=response.id,
                )
        raise ValueError(f"turn {self.turn}: the recorded stream has no response.completed")

    def stream_events(self) -> list[TResponseStreamEvent]:
        """The recorded stream events, typed."""
        return [_typed(_EVENTS, ResponseStreamEvent, event) for event in self.events]


def _by_type(union: Any) -> dict[str, type[BaseModel]]:
    """The members of an openai union discriminated on `type`, by their `type` value."""
    members = get_args(get_args(union)[0]) if get_origin(union) is Annotated else get_args(union)
    found: dict[str, type[BaseModel]] = {}
    for member in members:
        for value in get_args(member.model_fields["type"].annotation):
            found[value] = member
    return found


_EVENTS = _by_type(ResponseStreamEvent)
_ITEMS = _by_type(ResponseOutputItem)


def _typed(members: Mapping[str, type[BaseModel]], union: Any, data: Any) -> Any:
    """`data` as the openai type it was recorded from: validated as the member its `type`
    names (7x quicker than validating against the whole union), else built as the openai
    client itself builds what the API sends (`construct_type`: no validation), so a
    replay reads whatever the client read when it recorded."""
    member = members.get(str(data.get("type"))) if isinstance(data, Mapping) else None
    if member is not None:
        try:
            return member.model_validate(data)
        except ValidationError:
            pass
    return construct_type(type_=union, value=data)


def response_json(response: ModelResponse) -> dict[str, Any]:
    """A `ModelResponse` as a line's `response`."""
    usage = response.usage
    return {
        "output": [
            item.model_dump(mode="json", by_alias=True, exclude_none=True, warnings=False)
            for item in response.output
        ],
        "usage": {
            "requests": usage.requests,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
            "input_tokens_details": usage.input_tokens_details.model_dump(mode="json"),
            "output_tokens_details": usage.output_tokens_details.model_dump(mode="json"),
        },
        "response_id": response.response_id,
    }


def event_json(event: TResponseStreamEvent) -> dict[str, Any]:
    """A stream event as JSON, spelled as the API spells it."""
    dumped: dict[str, Any] = event.model_dump(
        mode="json", by_alias=True, exclude_none=True, warnings=False
    )
    return dumped


def _usage(data: Mapping[str, Any]) -> Usage:
    inputs = data.get("input_tokens_details") or {}
    outputs = data.get("output_tokens_details") or {}
    return Usage(
        requests=int(data.get("requests") or 1),
        input_tokens=int(data.get("input_tokens") or 0),
        output_tokens=int(data.get("output_tokens") or 0),
        total_tokens=int(data.get("total_tokens") or 0),
        input_tokens_details=InputTokensDetails(
            cached_tokens=int(inputs.get("cached_tokens") or 0),
            cache_write_tokens=int(inputs.get("cache_write_tokens") or 0),
        ),
        output_tokens_details=OutputTokensDetails(
            reasoning_tokens=int(outputs.get("reasoning_tokens") or 0)
        ),
    )


def load(path: Path) -> list[Entry]:
    """Every entry of the file, in order; a line that is not an entry names its line number."""
    entries: list[Entry] = []
    with path.open(encoding="utf-8") as lines:
        for number, text in enumerate(lines, start=1):
            if not text.strip():
                continue
            try:
                entries.append(Entry.from_json(json.loads(text)))
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"{path}, line {number}: not a cassette entry ({error})") from None
    return entries


def write(path: Path, entry: Entry, *, redact: Redact | None, truncate: bool) -> None:
    """Append `entry` (scrubbed, then redacted) as one line; `truncate` starts the file anew."""
    line = scrub(entry.to_json())
    if redact is not None:
        line = redact(line)
    text = json.dumps(line, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    text = _without_secret_values(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w" if truncate else "a", encoding="utf-8") as out:
        out.write(text + "\n")


def scrub(value: Any) -> Any:
    """`value` with every credential-like key's value replaced by `<redacted>`."""
    if isinstance(value, Mapping):
        return {
            k: REDACTED if _SECRET_KEYS.match(str(k)) and v is not None else scrub(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [scrub(v) for v in value]
    return value


def _without_secret_values(text: str) -> str:
    # A key pasted into a prompt or echoed by a tool is still a key.
    for name in _SECRET_ENV:
        secret = os.environ.get(name, "")
        if len(secret) >= 8:
            text = text.replace(json.dumps(secret)[1:-1], REDACTED)
    return text
