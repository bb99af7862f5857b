"""A new conversation that repeats an old one's words in the same thread is a new call."""

from __future__ import annotations

import pathlib

from bank import bank_agent, runs
from steps import ask, events_of, paused, resume

from interrupt_widget import OpenAIAgentsAdapter


async def test_the_same_words_in_a_new_conversation_run_their_own_approved_call(
    runs_file: pathlib.Path,
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))  # one ledger for both conversations
    first_messages, first = paused(await events_of(adapter, ask(message_id="user-1")))
    await events_of(adapter, resume(first_messages, first))
    assert len(runs(runs_file)) == 1

    # Same thread, same words, a new user message: not the first call again.
    second_messages, second = paused(await events_of(adapter, ask(message_id="user-9")))
    assert second[0].tool_call_id != first[0].tool_call_id
    resumed = await events_of(adapter, resume(second_messages, second))

    assert resumed[-1].type.value == "RUN_FINISHED"
    assert len(runs(runs_file)) == 2


async def test_the_same_conversation_gets_the_same_call_ids(runs_file: pathlib.Path) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    _, once = paused(await events_of(adapter, ask(message_id="user-1")))
    _, again = paused(await events_of(adapter, ask(message_id="user-1")))
    assert [i.tool_call_id for i in once] == [i.tool_call_id for i in again]
    assert runs(runs_file) == []
