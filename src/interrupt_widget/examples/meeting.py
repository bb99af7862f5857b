"""The quickstart's meeting scheduler: one tool, `schedule_meeting`, that needs approval.

The human approves with a time (`chosen_time`, ISO 8601) and a label for it
(`chosen_label`), or declines with `{"approved": false}`. The tool reads that
answer with `resume_payload(ctx)` and says what happened; the agent only
confirms what the tool said.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

from agents import Model, function_tool
from agents.tool_context import ToolContext

from interrupt_widget.examples.tool_runs import (
    ExampleAgent,
    ExecutedCall,
    ToolRunLog,
    append_journal,
)
from interrupt_widget.sdk.model_choice import default_model
from interrupt_widget.sdk.response_schema import with_response_schema
from interrupt_widget.sdk.tool_answers import resume_payload

MEETING_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "chosen_time": {"type": "string", "format": "date-time", "title": "Time"},
        "chosen_label": {"type": "string", "title": "Label", "minLength": 1},
    },
    "required": ["chosen_time", "chosen_label"],
}
"""The answer fields `schedule_meeting` adds beside `approved` (required when approved)."""

MEETING_INSTRUCTIONS = (
    "You schedule meetings. When asked to book or schedule a call or meeting, always call "
    "schedule_meeting with the topic and the attendee; never ask for approval yourself, the "
    "user approves in the tool's own form. Afterwards confirm briefly what the tool returned. "
    "Never say a meeting is scheduled unless the tool said so."
)


def meeting_agent(
    model: Model | str | None = None, *, journal: str | os.PathLike[str] | None = None
) -> ExampleAgent:
    """A fresh scheduling agent (its own `executions` log); `default_model()` if no model.

    `journal`, when given, is a file each run of the tool body appends one JSON line to
    (read it back with `read_journal`): a count of real runs another process can read.
    """
    log = ToolRunLog()
    journal_path = pathlib.Path(journal) if journal is not None else None

    @function_tool(needs_approval=True)
    def schedule_meeting(ctx: ToolContext[Any], topic: str, attendee: str = "") -> str:
        """Schedule a meeting about `topic` with `attendee` at a time the user picks."""
        answer = resume_payload(ctx)
        log.record(
            ExecutedCall(
                "schedule_meeting", ctx.tool_call_id, {"topic": topic, "attendee": attendee}, answer
            )
        )
        if journal_path is not None:
            record = {"call_id": ctx.tool_call_id, "topic": topic, "attendee": attendee}
            append_journal(journal_path, {**record, "answer": answer})
        if not isinstance(answer, dict) or answer.get("approved") is not True:
            return f'Not scheduled: no time was chosen for "{topic}".'
        when = answer.get("chosen_label") or answer.get("chosen_time")
        with_whom = f" with {attendee}" if attendee else ""
        return f'Scheduled "{topic}"{with_whom} for {when}.'

    with_response_schema(schedule_meeting, MEETING_RESPONSE_SCHEMA)
    return ExampleAgent(
        name="Meeting scheduler",
        instructions=MEETING_INSTRUCTIONS,
        tools=[schedule_meeting],
        model=model if model is not None else default_model(),
        executions=log,
    )
