"""The offline model's rules: which tools a request names, their arguments, and the reply.

`OfflineModel` hashes the conversation into its ids and streams what `plan_reply` decides;
the rules themselves (what a request names, what is asked for rather than guessed, how a
result is reported) are here, with no SDK stream in sight. `interrupt_widget.sdk.offline_model`
documents them for users.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from agents import FunctionTool

from interrupt_widget.agui.messages import NOT_RUN_PREFIX, REASON_LABEL

MAX_REPLY_WORDS: Final = 20_000
"""The longest reply "reply with N words" gets; a larger N gives this many."""
MAX_READ_CHARS: Final = 8_000
"""How much of the request the rules read (tool names, arguments, "reply with")."""
MAX_ECHO_CHARS: Final = 1_000
"""The most of a request or a tool's output a reply repeats."""

SDK_REJECTION = "Tool execution was not approved."
"""What the SDK tells the model about a call rejected through `RunState.reject`."""

_FILLER = (
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "seven",
    "owls",
)


@dataclass(frozen=True)
class Plan:
    """One reply: its text, or the tool calls it makes."""

    text: str | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, JSON arguments) per call."""


def plan_reply(
    items: list[dict[str, Any]], function_tools: list[FunctionTool], reply_words: int | None
) -> Plan:
    """What the model says to the conversation `items`: text, or the calls the request names."""
    last_user = max((i for i, it in enumerate(items) if it.get("role") == "user"), default=-1)
    said = _text(items[last_user].get("content")) if last_user >= 0 else ""
    request = said[:MAX_READ_CHARS]
    after = items[last_user + 1 :]
    own = {t.name for t in function_tools}
    if after and after[-1].get("type") == "function_call_output":
        report = _report(after, own)
        if report:  # else only a handoff answered: act on the request itself
            return Plan(text=report)
    words = reply_words
    asked = re.search(r"\breply with (\d+) words\b", request, re.IGNORECASE)
    if asked:
        digits = asked.group(1).lstrip("0") or "0"
        words = MAX_REPLY_WORDS if len(digits) > 6 else min(int(digits), MAX_REPLY_WORDS)
    if words is not None:
        return Plan(text=" ".join(_FILLER[i % len(_FILLER)] for i in range(words)))
    calls, missing = _tool_calls(request, function_tools)
    if missing:
        return Plan(text=_asking_for(missing))
    if calls:
        return Plan(calls=calls)
    return Plan(text=f"You said: {_echo(said)}{_no_tool_hint(function_tools)}")


def _echo(text: str) -> str:
    return text if len(text) <= MAX_ECHO_CHARS else text[: MAX_ECHO_CHARS - 1] + "…"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and "text" in part
        )
    return ""


NO_TOOL_HINT: Final = (
    "(The offline model calls a tool only when the request names it, as in "
    "`{example} key=value`{booking}. This request named none, so no tool ran.)"
)
"""The paragraph added to an echo when the agent has tools the request did not name."""


def _no_tool_hint(tools: Sequence[FunctionTool]) -> str:
    if not tools:
        return ""
    booking = ", or asks to book a meeting" if any(_is_scheduler(t.name) for t in tools) else ""
    return "\n\n" + NO_TOOL_HINT.format(example=tools[0].name, booking=booking)


def _is_scheduler(name: str) -> bool:
    return "schedule" in name or "book" in name


def _report(after: list[dict[str, Any]], own: set[str]) -> str:
    """One sentence per result of this agent's own tools since the request."""
    names = {
        it.get("call_id"): str(it.get("name", ""))
        for it in after
        if it.get("type") == "function_call"
    }
    sentences: list[str] = []
    for item in after:
        if item.get("type") != "function_call_output":
            continue
        name = names.get(item.get("call_id"), "")
        if name not in own:
            continue
        output = _text(item.get("output"))
        ran = not (output.startswith(NOT_RUN_PREFIX) or output == SDK_REJECTION)
        if ran:
            sentences.append(f"{name} reported: {_echo(output)}")
        elif _is_scheduler(name):
            sentences.append(f"The meeting was not scheduled.{_because(output)}")
        else:
            sentences.append(f"{name} did not run.{_because(output)}")
    return " ".join(sentences)


def _because(output: str) -> str:
    """The human's reason for a denial, repeated back, when the output carries one."""
    _, found, reason = output.partition(REASON_LABEL)
    return f" You said: {_echo(reason.strip())}" if found and reason.strip() else ""


def _tool_calls(
    request: str, tools: list[FunctionTool]
) -> tuple[list[tuple[str, str]], list[tuple[str, list[str]]]]:
    """The calls the request names, with their arguments, and the calls whose required
    arguments it does not give: (tool name, their names)."""
    mentions: list[tuple[int, int, FunctionTool]] = []
    for tool in tools:
        spoken = re.escape(tool.name).replace("_", "[ _]")
        for match in re.finditer(rf"\b{spoken}\b", request, re.IGNORECASE):
            mentions.append((match.start(), match.end(), tool))
    mentions.sort(key=lambda m: m[0])
    if not mentions:
        scheduler = next((t for t in tools if _is_scheduler(t.name)), None)
        if scheduler is None or not re.search(r"\b(book|schedule)\b", request, re.IGNORECASE):
            return [], []
        mentions = [(0, 0, scheduler)]
    calls: list[tuple[str, str]] = []
    missing: list[tuple[str, list[str]]] = []
    for index, (_, end, tool) in enumerate(mentions):
        stop = mentions[index + 1][0] if index + 1 < len(mentions) else len(request)
        segment = _without_joiner(request[end:stop] if end else request)
        arguments, unsaid = _arguments(tool.params_json_schema, segment)
        calls.append((tool.name, json.dumps(arguments)))
        if unsaid:
            missing.append((tool.name, unsaid))
    return calls, missing


def _asking_for(missing: list[tuple[str, list[str]]]) -> str:
    """The reply that calls nothing: what each named tool still needs, and how to say it."""
    asks = [f"To call {tool} I need: {', '.join(names)}." for tool, names in missing]
    tool, names = missing[0]
    example = " ".join(f"{name}=..." for name in names)
    return " ".join(asks) + f" Say it as `{tool} {example}`; nothing was called."


# Words that join one named tool to the next ("... and issue_refund").
_JOINER = re.compile(r"\b(?:and|then|also|plus)$", re.IGNORECASE)
_SEPARATORS = " \t\n\r\f\v,;"


def _without_joiner(segment: str) -> str:
    # Stripped step by step: one pattern anchored at the end backtracks in
    # quadratic time over long runs of spaces.
    trimmed = segment.rstrip(_SEPARATORS)
    tail = trimmed[-8:]  # longer than any joiner, so `\b` sees the character before it
    joiner = _JOINER.search(tail)
    if joiner is None:
        return trimmed
    return trimmed[: len(trimmed) - len(tail) + joiner.start()].rstrip(_SEPARATORS)


_PHRASES: dict[str, str] = {
    "topic": r"\babout\s+(.+?)(?=\s+with\s|$)",
    "subject": r"\babout\s+(.+?)(?=\s+with\s|$)",
    "attendee": r"\bwith\s+(.+?)(?=\s+about\s|[.,;!?]|$)",
    "description": r"\bfor\s+(.+?)(?=[,;]|$)",
    "reason": r"\b(?:for|because)\s+(.+?)(?=[,;]|$)",
}


class _Unsaid:
    """What `_value` finds for an argument the text does not give and the schema fills not."""


_UNSAID: Final = _Unsaid()


def _arguments(schema: Mapping[str, Any], segment: str) -> tuple[dict[str, Any], list[str]]:
    """The arguments `segment` gives (or the schema's defaults), and the required ones it
    leaves unsaid: those are asked for, never guessed."""
    required = schema.get("required")
    needed = {str(n) for n in required} if isinstance(required, list) else set()
    arguments: dict[str, Any] = {}
    unsaid: list[str] = []
    for name, prop in dict(schema.get("properties", {})).items():
        value = _value(name, prop if isinstance(prop, Mapping) else {}, segment)
        if isinstance(value, _Unsaid):
            if name in needed:
                unsaid.append(name)
                continue
            value = _EMPTY.get(_kind(prop if isinstance(prop, Mapping) else {}), "")
        arguments[name] = value
    return arguments, unsaid


_EMPTY: Final[dict[str, Any]] = {
    "number": 0, "integer": 0, "boolean": False, "array": [], "object": {},
}  # fmt: skip
"""What an optional argument the text does not give gets when its schema has no default."""


def _nullable(prop: Mapping[str, Any]) -> bool:
    kind = prop.get("type")
    options = prop.get("anyOf", [])
    return (isinstance(kind, list) and "null" in kind) or any(
        isinstance(o, Mapping) and o.get("type") == "null" for o in options
    )


def _kind(prop: Mapping[str, Any]) -> str:
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None:
        for option in prop.get("anyOf", []):
            if isinstance(option, Mapping) and option.get("type") not in (None, "null"):
                return str(option["type"])
    return str(kind or "string")


def _value(name: str, prop: Mapping[str, Any], segment: str) -> Any:
    kind = _kind(prop)
    explicit = re.search(
        rf"\b{re.escape(name)}\s*[=:]\s*(\"[^\"]*\"|'[^']*'|[^\s,;]+)", segment, re.IGNORECASE
    )
    if explicit:
        return _coerce(explicit.group(1).strip("\"'"), kind, prop)
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        named = [v for v in enum if re.search(rf"\b{re.escape(str(v))}\b", segment, re.IGNORECASE)]
        if named:
            return named[0]
    if kind in ("number", "integer"):
        number = re.search(r"-?\d+(?:\.\d+)?", segment)
        if number:
            return _coerce(number.group(0), kind, prop)
    phrase = _PHRASES.get(name)
    if kind == "string" and phrase:
        found = re.search(phrase, segment.strip(), re.IGNORECASE)
        if found:
            value = found.group(1).strip().rstrip(".!?;,").strip()
            return value[4:] if value.lower().startswith("the ") and len(value) > 4 else value
    if "default" in prop:
        return prop["default"]
    return None if _nullable(prop) else _UNSAID


def _coerce(raw: str, kind: str, prop: Mapping[str, Any]) -> Any:
    try:
        if kind == "integer":  # digits as they are: a float would round beyond 2**53
            return int(raw) if re.fullmatch(r"-?\d+", raw) else int(float(raw))
        if kind == "number":
            # A float, as the schema says: an int would be "changed" by validation,
            # and the SDK then skips a callable `needs_approval`.
            number = float(raw)
            return number if math.isfinite(number) else prop.get("default", _UNSAID)
    except (ValueError, OverflowError):  # not a number, or too large to be one
        return prop.get("default", _UNSAID)
    if kind == "boolean":
        return raw.lower() in ("true", "yes", "1")
    return raw
