"""One wire contract: the schemas in `widgets/wire/` against the Python side.

The messages between Python and each widget's front end (and the traits that carry
structured data) are described once, as JSON Schema shipped in the package. Here every
shared example in tests/fixtures/wire/ gets the verdict it states from the schema and
from Python's parser, and what Python sends (its builders, and real widgets through a
recording comm) fits the schema. js/wire.test.ts checks the TypeScript side on the same
schemas and examples, so a message one side sends and the other cannot read fails one.
"""

from __future__ import annotations

import dataclasses
import json
import pathlib
import typing
from collections.abc import Callable, Iterator
from functools import cache
from importlib import resources
from typing import Any

import anywidget
import pytest
from ag_ui.core import (
    EventType,
    Message,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
)
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from interrupt_widget import AgentBatch, AgentChat, InterruptPicker, OfflineModel
from interrupt_widget.errors import AnswerError
from interrupt_widget.examples import meeting_agent
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.testing import CommRecorder, RecordingComm, until
from interrupt_widget.widgets import chat_protocol, inbox_protocol, picker_protocol
from interrupt_widget.widgets.attendance import attached_to_wire
from interrupt_widget.widgets.delta_batching import coalesce

WIDGETS = ("chat", "picker", "inbox")
ENTRIES = ("toPython", "toFrontEnd", "traits")
SCHEMAS = resources.files("interrupt_widget.widgets") / "wire"
FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "wire"
PARSERS: dict[str, Callable[[Any], object]] = {
    "chat": chat_protocol.parse_front_end_message,
    "picker": picker_protocol.parse_front_end_message,
    "inbox": inbox_protocol.parse_front_end_message,
}


def schema_of(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((SCHEMAS / f"{name}.schema.json").read_text("utf-8"))
    return loaded


REGISTRY: Registry[Any] = Registry().with_resources(
    (f"urn:interrupt-widget:wire:{name}", Resource.from_contents(schema_of(name)))
    for name in ("common", *WIDGETS)
)


@cache
def checker(ref: str) -> Draft202012Validator:
    """The validator of one definition, by its URI (`urn:...:picker#/$defs/answer`)."""
    return Draft202012Validator({"$ref": ref}, registry=REGISTRY)


def validator(widget: str, entry: str) -> Draft202012Validator:
    """The validator of one entry (`toPython`, `toFrontEnd`, `traits`) of a widget's schema."""
    return checker(f"urn:interrupt-widget:wire:{widget}#/$defs/{entry}")


def fits(widget: str, entry: str, value: Any) -> None:
    """Fail naming every way `value` (as JSON, the way the wire carries it) breaks the schema."""
    wired = json.loads(json.dumps(value))
    problems = [e.message for e in validator(widget, entry).iter_errors(wired)]
    assert not problems, f"{widget} {entry}: {problems}\n{json.dumps(wired, indent=1)[:2000]}"


def examples() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for path in sorted(FIXTURES.glob("*/*.json")):
        yield path.parent.name, path.stem, json.loads(path.read_text("utf-8"))


EXAMPLES = list(examples())
TO_PYTHON = [e for e in EXAMPLES if e[2]["entry"] == "toPython"]


def test_the_schemas_are_json_schema_and_every_example_names_a_real_entry() -> None:
    for name in ("common", *WIDGETS):
        schema = schema_of(name)
        Draft202012Validator.check_schema(schema)
        assert schema["$id"] == f"urn:interrupt-widget:wire:{name}"
    for widget in WIDGETS:
        assert set(ENTRIES) <= set(schema_of(widget)["$defs"])
    assert {w for w, _, _ in EXAMPLES} == set(WIDGETS)
    for widget, name, example in EXAMPLES:
        assert example["entry"] in ENTRIES, (widget, name)
        assert isinstance(example["valid"], bool), (widget, name)
        assert example["about"], (widget, name)


@pytest.mark.parametrize(("widget", "name", "example"), EXAMPLES, ids=lambda v: str(v)[:40])
def test_each_example_gets_its_verdict_from_the_schema(
    widget: str, name: str, example: dict[str, Any]
) -> None:
    errors = [e.message for e in validator(widget, example["entry"]).iter_errors(example["value"])]
    assert (not errors) == example["valid"], f"{widget}/{name}: {example['about']} {errors}"


def _wire_name(widget: str, field: str) -> str:
    if (widget, field) == ("picker", "id"):
        return "interruptId"  # one `Settle`: a picker settles an interrupt, an inbox an item
    head, *rest = field.split("_")
    return head + "".join(part.title() for part in rest)


@pytest.mark.parametrize(("widget", "name", "example"), TO_PYTHON, ids=lambda v: str(v)[:40])
def test_each_message_to_python_gets_its_verdict_from_the_parser(
    widget: str, name: str, example: dict[str, Any]
) -> None:
    content = example["value"]
    if not example["valid"]:
        with pytest.raises(picker_protocol.ProtocolError) as refused:
            PARSERS[widget](content)
        assert example["refusal"] in str(refused.value), f"{widget}/{name}"
        assert refused.value.request_id == example["replyTo"], f"{widget}/{name}"
        return
    parsed = PARSERS[widget](content)
    assert dataclasses.is_dataclass(parsed)
    for field in dataclasses.fields(parsed):  # every field read, none lost
        wired = content.get(_wire_name(widget, field.name), field.default)
        if field.name == "payload" and content.get("status") == "cancelled":
            wired = None  # a cancel's payload is ignored
        got = getattr(parsed, field.name)
        assert (list(got) if isinstance(got, tuple) else got) == wired, (widget, name, field)


def _kinds(widget: str, entry: str) -> list[str]:
    """The alternatives of an entry, by URI: each branch of its `oneOf`, or the entry itself."""
    base = f"urn:interrupt-widget:wire:{widget}"
    branches = schema_of(widget)["$defs"][entry].get("oneOf", [])
    refs = [str(b["$ref"]) for b in branches]
    return [r if r.startswith("urn:") else base + r for r in refs] or [f"{base}#/$defs/{entry}"]


@pytest.mark.parametrize("widget", WIDGETS)
def test_every_kind_of_message_and_the_traits_have_a_valid_example(widget: str) -> None:
    for entry in ENTRIES:
        valid = [
            e["value"]
            for w, _, e in EXAMPLES
            if (w, e["entry"], e["valid"]) == (widget, entry, True)
        ]
        for ref in _kinds(widget, entry):
            assert any(checker(ref).is_valid(v) for v in valid), f"no valid example of {ref}"


def test_the_events_and_messages_are_ag_ui_s() -> None:
    defs = schema_of("common")["$defs"]
    assert defs["event"]["properties"]["type"]["enum"] == [e.value for e in EventType]
    roles = [typing.get_args(m.model_fields["role"].annotation)[0] for m in _message_types()]
    assert sorted(defs["message"]["properties"]["role"]["enum"]) == sorted(roles)


def _message_types() -> tuple[Any, ...]:
    union = typing.get_args(Message)[0] if typing.get_origin(Message) else Message
    return typing.get_args(union)


def test_what_python_builds_fits_the_schemas() -> None:
    for widget in WIDGETS:  # every widget's front end announces itself the same way
        fits(widget, "toPython", attached_to_wire())
    events = [
        RunStartedEvent(thread_id="t", run_id="r"),
        TextMessageStartEvent(message_id="m", role="assistant"),
        *(TextMessageContentEvent(message_id="m", delta=d) for d in ("Hel", "lo")),
        TextMessageEndEvent(message_id="m"),
    ]
    for kind in ("events", "catchup"):
        fits("chat", "toFrontEnd", chat_protocol.events_to_wire(kind, coalesce(events)))
    for result in (
        chat_protocol.PromptResult("p1", ok=True),
        chat_protocol.PromptResult("p2", ok=False, error="a run is going"),
    ):
        fits("chat", "toFrontEnd", chat_protocol.prompt_result_to_wire(result))
    refused = [AnswerError("/approved", "is required"), AnswerError("", "no")]
    for reply in (
        picker_protocol.AnswerResult("r1", ok=True),
        picker_protocol.AnswerResult("r2", ok=False, error="no", errors=refused),
    ):
        fits("picker", "toFrontEnd", picker_protocol.answer_result_to_wire(reply))
    outcomes = [
        inbox_protocol.AnswerOutcome("0:a:int-1", True, "approved"),
        inbox_protocol.AnswerOutcome("0:b:int-2", False, "", "no", refused),
    ]
    fits("inbox", "toFrontEnd", inbox_protocol.answer_result_to_wire("r3", outcomes))
    items = example("inbox", "snapshot")["items"]
    fits("inbox", "toFrontEnd", inbox_protocol.snapshot_to_wire(items))
    fits("inbox", "toFrontEnd", inbox_protocol.delta_to_wire(items[:1], [items[1]["id"]]))


def kit_traits(widget: anywidget.AnyWidget) -> set[str]:
    """The synced traits a widget of the kit adds to anywidget's own (`_esm`, `_css` and
    `_anywidget_id` are anywidget's, though each class sets them)."""
    base = set(anywidget.AnyWidget.class_trait_names(sync=True))
    names = set(type(widget).class_trait_names(sync=True)) - base
    return {name for name in names if not name.startswith("_")}


def sent(channel: RecordingComm) -> tuple[list[Any], list[dict[str, Any]]]:
    """What a front end received: the custom messages, and the widget's traits as it held
    them after the opening message and each update."""
    states: list[dict[str, Any]] = []
    state: dict[str, Any] = {}
    for message in channel.messages:
        update = message.data.get("state")
        if message.msg_type == "comm_open" or message.data.get("method") == "update":
            state = {**state, **(update or {})}
            states.append(state)
    return channel.custom_messages(), states


def all_fit(widget: str, channel: RecordingComm, traits: set[str]) -> int:
    """Check everything `channel` carried to the front end; how many custom messages."""
    messages, states = sent(channel)
    for message in messages:
        fits(widget, "toFrontEnd", message)
    for state in states:
        fits(widget, "traits", {k: v for k, v in state.items() if k in traits})
    return len(messages)


def example(widget: str, name: str) -> Any:
    path = FIXTURES / widget / f"{name}.json"
    return json.loads(path.read_text("utf-8"))["value"]


def test_a_picker_sends_and_holds_what_its_schema_describes(recorder: CommRecorder) -> None:
    [interrupt] = example("picker", "traits_waiting")["interrupts"]
    picker = InterruptPicker([interrupt])
    channel = recorder.of(picker)
    for name in ("answer_with_a_misspelt_field", "answer_unknown_status", "settle_not_run"):
        channel.deliver(example("picker", name))  # refused, each with a reply
    channel.deliver({**example("picker", "answer_approved"), "payload": {"approved": "yes"}})
    assert picker.errors  # the field error, on the card
    channel.deliver(example("picker", "attached"))
    channel.deliver(example("picker", "answer_approved"))
    assert picker.status == "submitted"
    assert all_fit("picker", channel, kit_traits(picker)) == 5


def test_an_expired_picker_holds_what_its_schema_describes(recorder: CommRecorder) -> None:
    [interrupt] = example("picker", "traits_waiting")["interrupts"]
    picker = InterruptPicker([{**interrupt, "expiresAt": "2020-01-01T00:00:00Z"}])
    assert picker.status == "expired"
    channel = recorder.of(picker)
    channel.deliver(example("picker", "answer_approved"))  # too late: refused, saying so
    assert all_fit("picker", channel, kit_traits(picker)) == 1


async def test_a_chat_sends_and_holds_what_its_schema_describes(recorder: CommRecorder) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    channel = recorder.of(chat)
    channel.deliver(example("chat", "attached"))
    channel.deliver(example("chat", "prompt_with_an_unknown_field"))  # refused, answered
    channel.deliver(example("chat", "prompt"))
    await until(chat, lambda: chat.status == "waiting")
    channel.deliver(example("chat", "hello"))  # a view opened while it waits
    channel.deliver(example("chat", "prompt"))  # refused: a question is open
    picker_channel = recorder.of(chat.picker)
    [interrupt] = chat.picker.interrupts
    denial = example("picker", "answer_denied_without_view")
    picker_channel.deliver({**denial, "interruptId": interrupt["id"]})
    await until(chat, lambda: chat.status == "done")
    assert all_fit("chat", channel, kit_traits(chat)) >= 5
    assert all_fit("picker", picker_channel, kit_traits(chat.picker)) == 1


async def test_an_inbox_sends_and_holds_what_its_schema_describes(
    tmp_path: pathlib.Path, recorder: CommRecorder
) -> None:
    rows = [{"invoice": f"INV-{n}", "amount": 100 * n, "account": "ACME-1"} for n in (1, 2, 3)]
    agent = bank_agent(OfflineModel(), journal=tmp_path / "transfers.jsonl")
    prompt = "transfer_funds amount={amount} to_account={account} memo={invoice}"
    batch = AgentBatch(agent, rows, prompt=prompt, key="invoice").start()
    inbox = batch.inbox
    channel = recorder.of(inbox)
    await until(inbox, lambda: inbox.counts.get("waiting") == 3, names=["counts"])
    channel.deliver(example("inbox", "hello"))
    [snapshot] = [m for m in channel.custom_messages() if m["type"] == "snapshot"]
    first, second, _ = (item["id"] for item in snapshot["items"])
    for name in ("unknown_type", "settle_naming_an_interrupt", "forget_with_a_view_id"):
        channel.deliver(example("inbox", name))  # refused, each with a reply
    channel.deliver({**example("inbox", "settle_not_run"), "id": first})  # not in doubt
    channel.deliver({**example("inbox", "remember_at_most"), "id": first})
    channel.deliver({**example("inbox", "answer_cancel"), "ids": [second]})
    inbox.cancel()
    await batch
    await until(inbox, lambda: inbox.counts.get("waiting") == 0, names=["counts"])
    assert all_fit("inbox", channel, kit_traits(inbox)) >= 7


async def test_each_widget_answers_a_code_request_with_its_own_bundle(
    tmp_path: pathlib.Path, recorder: CommRecorder
) -> None:
    """The served loader's request (a page that cannot reach the server's copy): each widget
    sends the files the server would have served, in a reply its schema describes."""
    from interrupt_widget.widgets._bundle import CSS, ESM, INBOX_CSS, INBOX_ESM

    [interrupt] = example("picker", "traits_waiting")["interrupts"]
    chat = AgentChat(meeting_agent(OfflineModel()))
    agent = bank_agent(OfflineModel(), journal=tmp_path / "transfers.jsonl")
    batch = AgentBatch(agent, ["transfer_funds amount=1 to_account=A memo=m"])
    widgets = {
        "picker": (InterruptPicker([interrupt]), ESM, CSS),
        "chat": (chat, ESM, CSS),
        "inbox": (batch.inbox, INBOX_ESM, INBOX_CSS),
    }
    for name, (widget, esm, css) in widgets.items():
        channel = recorder.of(widget)
        channel.deliver(example(name, "widget_code_request"))  # answered as it is handled
        [reply] = channel.custom_messages()
        fits(name, "toFrontEnd", reply)
        assert reply == {"type": "widget_code", "esm": esm.read_text(), "css": css.read_text()}
