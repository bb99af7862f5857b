"""One reading of a call's JSON arguments, whichever client wrote them back.

A gated call's arguments travel twice: as the text the model wrote
(`function.arguments`, which every client passes on untouched) and as the
value the interrupt record shows (`tool_input`), which every client parses
and writes again. Python writes `42.0`, `1e-07` and `-0.0`; JavaScript (the
official `@ag-ui/client`, CopilotKit, the picker itself) reads every number
as an IEEE-754 double and writes `42`, `1e-7` and `0`. This module is the one
home of what counts as the same value, used for the interrupt's message,
every comparison made on a resume (agreement, fingerprints, edits) and what
the card shows:

- Numbers are spelled as JavaScript spells them (ECMAScript's
  `Number::toString`, what `JSON.stringify` writes), so a value written back by
  either language reads the same, and the message shows what a JavaScript
  table shows: `5000.0` reads `5000`, `-0.0` reads `0`, `1e3` reads `1000`.
- An integer beyond 2**53 keeps all its digits: the canonical reading never
  rounds what the model proposed, and the tool runs with exactly that. A
  JavaScript client cannot hold such a number (`JSON.parse` reads
  9007199254740993 as 9007199254740992), so `agrees` lets a *shown* copy be
  the double nearest the call's value; never the other way round, so a call
  whose own value changed is still refused.
- Strings are compared code point by code point: `"\\u00e9"` and `"é"` are
  the same text, but NFC and NFD spellings are not (a tool may tell them
  apart, and no JSON client converts one into the other). Lone surrogates are
  escaped, as `JSON.stringify` escapes them.
- Object key order and whitespace never count.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_TEXT = json.JSONEncoder(ensure_ascii=False).encode
"""A string as JSON. Built once: `json.dumps` with an option builds an encoder every call."""
_REPR = re.compile(r"(?P<int>\d+)(?:\.(?P<frac>\d+))?(?:e(?P<exp>[+-]?\d+))?")


def js_number(value: float) -> str:
    """`value` as JavaScript's `JSON.stringify` spells it (non-finite values as Python does)."""
    if not math.isfinite(value):
        return json.dumps(value)
    if value == 0:
        return "0"  # -0.0 included, as JavaScript writes it
    sign = "-" if value < 0 else ""
    # Python's repr and ECMAScript pick the same shortest round-trip digits; the layout differs.
    match = _REPR.fullmatch(repr(abs(value)))
    assert match is not None, repr(value)
    whole, frac = match["int"], match["frac"] or ""
    digits = (whole + frac).lstrip("0")
    point = len(whole) + int(match["exp"] or 0) - (len(whole + frac) - len(digits))
    digits = digits.rstrip("0")
    return sign + _layout(digits, point)


def _layout(digits: str, point: int) -> str:
    # `digits` (no leading or trailing zeros) times 10**(point - len(digits)), laid out as
    # ECMAScript's Number::toString does: plain from 1e-6 up to 1e21, else an exponent.
    count = len(digits)
    if count <= point <= 21:
        return digits + "0" * (point - count)
    if 0 < point <= 21:
        return f"{digits[:point]}.{digits[point:]}"
    if -6 < point <= 0:
        return "0." + "0" * -point + digits
    exponent = point - 1
    mantissa = digits if count == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{mantissa}e{'+' if exponent >= 0 else '-'}{abs(exponent)}"


def _string(text: str) -> str:
    spelled = _TEXT(text)
    if spelled.isascii():  # no surrogate to escape: the common case needs no scan
        return spelled
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", spelled)


def spell(value: Any) -> str:
    """`value` as canonical JSON: sorted keys, no spaces, numbers as JavaScript writes them."""
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return js_number(value)
    if isinstance(value, str):
        return _string(value)
    # A dict first: the abstract `Mapping` check costs several times the concrete one.
    if isinstance(value, dict | Mapping):
        items = sorted((str(k), v) for k, v in value.items())
        return "{" + ",".join(f"{_string(k)}:{spell(v)}" for k, v in items) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(spell(v) for v in value) + "]"
    raise TypeError(f"{type(value).__name__} is not a JSON value")


def double_reading(value: Any) -> Any:
    """`value` as a client that holds every number in a double reads it (JavaScript)."""
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return float(value)
        except OverflowError:  # no double holds it: such a client cannot read it at all
            return value
    if isinstance(value, Mapping):
        return {str(k): double_reading(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [double_reading(v) for v in value]
    return value


def spell_as_double(value: Any) -> str:
    """The canonical spelling of what a JavaScript client makes of `value`."""
    return spell(double_reading(value))


def agrees(actual: Any, shown: Any) -> bool:
    """Whether `shown` is `actual`, as any client may have written it back.

    Equal canonical spellings agree; so does a `shown` copy in which an integer
    beyond 2**53 became the double nearest it (what `JSON.parse` gives). The rule
    is one way: `actual` is what runs, and its own value is never rounded.
    """
    if isinstance(actual, Mapping) and isinstance(shown, Mapping):
        return actual.keys() == shown.keys() and all(agrees(actual[k], shown[k]) for k in actual)
    if isinstance(actual, list | tuple) and isinstance(shown, list | tuple):
        return len(actual) == len(shown) and all(map(agrees, actual, shown))
    if type(actual) is type(shown) and type(actual) in (str, int) and actual == shown:
        return True  # the same text or integer: one spelling, without writing either
    try:
        exact = spell(actual)
        given = spell(shown)
    except TypeError:
        return False
    integer = isinstance(actual, int) and not isinstance(actual, bool)
    return given == exact or (integer and given == spell_as_double(actual))


def shown_arguments(arguments: Any) -> list[list[str]]:
    """The rows a card shows for a call's arguments: `[name, text]`, strings as they are.

    Built here rather than in the browser, which would round a large integer
    before it could show it.
    """
    if not isinstance(arguments, Mapping):
        return []
    return [[str(k), v if isinstance(v, str) else spell(v)] for k, v in arguments.items()]
