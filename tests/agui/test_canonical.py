"""`canonical`: one reading of a call's JSON, whichever client wrote it back.

The JavaScript side of these tests is real: Node's own `JSON.parse` and
`JSON.stringify`, the pair every JavaScript AG-UI client runs the interrupt
record through.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import unicodedata
from typing import Any

import pytest
from ag_ui.core import FunctionCall, ToolCall

from interrupt_widget.agui.call_agreement import disagreement
from interrupt_widget.agui.canonical import agrees, js_number, spell, spell_as_double
from interrupt_widget.agui.interrupts import approval_message, tool_call_interrupt
from interrupt_widget.agui.wire import interrupt_from_wire, to_wire
from interrupt_widget.http.fingerprint import Fingerprinter, canonical_arguments

BEYOND_DOUBLES = 9007199254740993
"""2**53 + 1: the first integer no double holds; `JSON.parse` reads it as 2**53."""

NODE = shutil.which("node")


def through_javascript(values: list[Any]) -> list[Any]:
    """Each value after `JSON.stringify(JSON.parse(...))` in Node, read back by Python."""
    assert NODE is not None
    script = (
        "const input = require('fs').readFileSync(0, 'utf8');"
        "process.stdout.write(JSON.stringify(JSON.parse(input)));"
    )
    done = subprocess.run(
        [NODE, "-e", script],
        input=json.dumps(values, ensure_ascii=False),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=True,
    )
    parsed: list[Any] = json.loads(done.stdout)
    return parsed


@pytest.mark.parametrize(
    ("value", "spelled"),
    [
        (42.0, "42"),
        (-0.0, "0"),
        (1e3, "1000"),
        (1.5e-7, "1.5e-7"),
        (1e-6, "0.000001"),
        (1e21, "1e+21"),
        (1e20, "100000000000000000000"),
        (0.1, "0.1"),
        (-123.456, "-123.456"),
        (2.0**60, "1152921504606847000"),
        (5e-324, "5e-324"),
    ],
)
def test_numbers_are_spelled_as_javascript_spells_them(value: float, spelled: str) -> None:
    assert js_number(value) == spelled


def test_one_spelling_for_keys_spaces_and_numbers() -> None:
    assert spell({"b": [1.0, 2.5], "a": "é"}) == '{"a":"é","b":[1,2.5]}'
    assert spell(BEYOND_DOUBLES) == "9007199254740993"  # never rounded
    assert spell("\ud800") == '"\\ud800"'  # a lone surrogate escaped, as JSON.stringify does
    with pytest.raises(TypeError):
        spell({1, 2})


def test_escaped_and_raw_unicode_read_the_same_but_nfc_and_nfd_do_not() -> None:
    assert canonical_arguments('{"to": "Zo\\u00eb"}') == canonical_arguments('{"to": "Zoë"}')
    nfd = unicodedata.normalize("NFD", "Zoë")
    assert not agrees({"to": "Zoë"}, {"to": nfd})


def test_a_shown_copy_may_be_a_doubles_reading_of_the_call_never_the_reverse() -> None:
    assert agrees({"n": BEYOND_DOUBLES}, {"n": BEYOND_DOUBLES - 1})
    assert agrees({"n": 10**21}, {"n": 1e21})
    # What runs is `actual`: a call whose own value moved is refused.
    assert not agrees({"n": BEYOND_DOUBLES - 1}, {"n": BEYOND_DOUBLES})
    assert not agrees({"n": BEYOND_DOUBLES}, {"n": BEYOND_DOUBLES + 1})
    assert not agrees({"n": 5}, {"n": 6})
    assert not agrees({"flag": True}, {"flag": 1})
    assert not agrees({"a": 1}, {"a": 1, "b": 2})
    assert spell_as_double({"n": BEYOND_DOUBLES}) == '{"n":9007199254740992}'


ARGUMENTS = [
    '{"amount": 42.0, "to": "bob"}',
    '{"amount": 5000.5, "to": "bob"}',
    '{"amount": -0.0, "rate": 1e3, "tiny": 1.5e-07}',
    f'{{"account": {BEYOND_DOUBLES}, "big": 123456789012345678901234}}',
    '{"to": "Zo\\u00eb", "memo": "' + unicodedata.normalize("NFD", "café ☕ 𝄞") + '"}',
    '{"nested": {"b": [1.0, {"x": 2e0}], "a": null}, "flags": [true, false]}',
]


@pytest.mark.skipif(NODE is None, reason="needs node")
@pytest.mark.parametrize("arguments", ARGUMENTS)
def test_a_record_written_back_by_javascript_still_agrees_and_signs(arguments: str) -> None:
    interrupt = tool_call_interrupt(
        tool_call_id="c1",
        tool_name="transfer_funds",
        arguments=arguments,
        response_schema=None,
        expires_at=None,
    )
    record = to_wire(interrupt)
    [returned] = through_javascript([record])
    call = ToolCall(id="c1", function=FunctionCall(name="transfer_funds", arguments=arguments))
    assert disagreement(call, interrupt_from_wire(returned)) is None
    signer = Fingerprinter("s" * 32)
    signed = signer.sign(
        thread_id="t",
        call_id="c1",
        tool_name="transfer_funds",
        arguments=arguments,
        interrupt=record,
    )
    assert signer.verify(
        signed,
        thread_id="t",
        call_id="c1",
        tool_name="transfer_funds",
        arguments=arguments,
        interrupt=returned,
    )


@pytest.mark.skipif(NODE is None, reason="needs node")
def test_the_message_shows_what_a_javascript_table_shows() -> None:
    proposal = {"amount": 5000.0, "rate": 1.5e-7, "zero": -0.0, "to": "Zoë"}
    [table] = through_javascript([proposal])
    message = approval_message("transfer_funds", proposal)
    assert message == 'Allow transfer_funds to run with amount=5000, rate=1.5e-7, zero=0, to="Zoë"?'
    for name, value in table.items():
        assert f"{name}={spell(value)}" in message


def test_a_changed_call_is_refused_by_its_signature_to_the_last_digit() -> None:
    signer = Fingerprinter("s" * 32)
    proposed = json.dumps({"account": BEYOND_DOUBLES})
    changed = json.dumps({"account": BEYOND_DOUBLES - 1})
    signed = signer.sign(thread_id="t", call_id="c1", tool_name="pay", arguments=proposed)
    assert not signer.verify(
        signed, thread_id="t", call_id="c1", tool_name="pay", arguments=changed
    )
