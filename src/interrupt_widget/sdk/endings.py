"""How the way the Agents SDK ended a run reaches the person, as its `RunResult` reports it.

A run ends with a final output or with an exception. A final output that the
model streamed as its last message is in the AG-UI stream already. One that no
streamed message carried (a tool's output under `tool_use_behavior=
"stop_on_first_tool"` or `StopAtTools`, the value of a custom
`ToolsToFinalOutputFunction`) becomes an assistant text message of its own,
built from `final_output`: its text, or for structured output (a Pydantic
model, a dataclass) its JSON. A message holding structured output names its
type in its metadata (`OUTPUT_TYPE_KEY`), so a view can lay it out.

An exception that is the SDK's own way of ending (max turns, a refusal, a
guardrail's tripwire) becomes a RUN_ERROR whose code says which ending it was
and whose message keeps the SDK's words and the guardrail's reason. A reply an
output guardrail refused streamed before the guardrail ran; the run's last
snapshot leaves it out, as the SDK's result has no final output.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ag_ui.core import BaseEvent
from agents import (
    InputGuardrailTripwireTriggered,
    ItemHelpers,
    MaxTurnsExceeded,
    MessageOutputItem,
    ModelRefusalError,
    OutputGuardrailTripwireTriggered,
    RunResultStreaming,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
)
from pydantic import BaseModel

from interrupt_widget.agui.messages import OUTPUT_TYPE_KEY, Transcript, final_output_text
from interrupt_widget.errors import ErrorCode
from interrupt_widget.sdk.events import EventTranslator

_WRAPPER_KEY = "response"
"""Where the SDK asks the model to put an output type that is not an object (a dataclass)."""


def is_structured(output: Any) -> bool:
    """Whether a final output is structured data (read as JSON) rather than a plain value."""
    if isinstance(output, type):
        return False
    return isinstance(output, BaseModel | Mapping | list | tuple) or dataclasses.is_dataclass(
        output
    )


def final_reply(
    result: RunResultStreaming, translator: EventTranslator, transcript: Transcript
) -> list[BaseEvent]:
    """The events that show a finished SDK run's final output, if its stream did not.

    A structured output the model streamed is marked as such in `transcript`.
    """
    output = result.final_output
    if output is None:
        return []
    metadata = {OUTPUT_TYPE_KEY: type(output).__name__} if is_structured(output) else None
    carried = _streamed_final_message(result.new_items, translator, transcript)
    if carried is not None:
        if metadata:
            transcript.mark(carried, metadata)
        return []
    text = final_output_text(output)
    return translator.reply(text, metadata) if text else []


def _streamed_final_message(
    items: Sequence[Any], translator: EventTranslator, transcript: Transcript
) -> str | None:
    """The AG-UI id of the streamed message the final output came from, if it came from one.

    The SDK takes a model's final output from the last item of the run, a message;
    that message reached the person if the model streamed all of its text in this run.
    """
    last = items[-1] if items else None
    if not isinstance(last, MessageOutputItem):
        return None
    message_id = translator.streamed_messages.get(last.raw_item.id)
    said = ItemHelpers.extract_text(last.raw_item)
    if message_id is None or said is None or transcript.text(message_id) != said:
        return None
    return message_id


def refused_reply(
    error: Exception, translator: EventTranslator, transcript: Transcript
) -> str | None:
    """The AG-UI id of the reply an output guardrail refused, if the model streamed it.

    The SDK checks its final output, which it took from the model's last message; that
    message streamed last, and says what the guardrail was shown.
    """
    if not isinstance(error, OutputGuardrailTripwireTriggered):
        return None
    streamed = list(translator.streamed_messages.values())
    said = transcript.text(streamed[-1]) if streamed else None
    if said is None or not _says(said, error.guardrail_result.agent_output):
        return None
    return streamed[-1]


def _says(text: str, output: Any) -> bool:
    """Whether a message's text is `output`: the same text, or JSON of the same value."""
    if isinstance(output, str):
        return text == output
    try:
        said, value = json.loads(text), json.loads(final_output_text(output))
    except ValueError:
        return False
    return said in (value, {_WRAPPER_KEY: value})


def ending_error(error: Exception) -> tuple[ErrorCode, str] | None:
    """The RUN_ERROR code and message of an SDK ending that raised; None for other errors."""
    if isinstance(error, MaxTurnsExceeded):
        return ErrorCode.MAX_TURNS, str(error)
    if isinstance(error, ModelRefusalError):
        return ErrorCode.MODEL_REFUSAL, str(error)
    if isinstance(error, InputGuardrailTripwireTriggered | OutputGuardrailTripwireTriggered):
        tripped = error.guardrail_result
        name = tripped.guardrail.get_name()
        return ErrorCode.GUARDRAIL_TRIPWIRE, _tripped(error, name, tripped.output.output_info)
    if isinstance(
        error, ToolInputGuardrailTripwireTriggered | ToolOutputGuardrailTripwireTriggered
    ):
        name = error.guardrail.get_name()
        return ErrorCode.GUARDRAIL_TRIPWIRE, _tripped(error, name, error.output.output_info)
    return None


def _tripped(error: Exception, name: str, info: Any) -> str:
    """The SDK's sentence, then which guardrail tripped and why it says it did."""
    reason = "" if info is None else f": {info}"
    return f"{error} ({name}{reason})"
