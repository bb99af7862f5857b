"""Old module paths still import, warn where the name lives now, and give the same object."""

from __future__ import annotations

import importlib

import pytest

from interrupt_widget.errors import ErrorCode
from interrupt_widget.http.client import AGUIClient, AGUIHTTPError
from interrupt_widget.http.remote import RemoteAgent
from interrupt_widget.http.serve import running_server
from interrupt_widget.offline_model import DEFAULT_OPENAI_MODEL, default_model

MOVED = [
    ("interrupt_widget.client", "AGUIClient", AGUIClient, "interrupt_widget.http.client"),
    ("interrupt_widget.client", "AGUIHTTPError", AGUIHTTPError, "interrupt_widget.http.client"),
    ("interrupt_widget.remote", "RemoteAgent", RemoteAgent, "interrupt_widget.http.remote"),
    (
        "interrupt_widget.remote",
        "CONNECTION_FAILED",
        ErrorCode.CONNECTION_FAILED,
        "interrupt_widget.http.remote",
    ),
    ("interrupt_widget.models", "default_model", default_model, "interrupt_widget.offline_model"),
    (
        "interrupt_widget.models",
        "DEFAULT_OPENAI_MODEL",
        DEFAULT_OPENAI_MODEL,
        "interrupt_widget.offline_model",
    ),
    (
        "interrupt_widget.http.background",
        "running_server",
        running_server,
        "interrupt_widget.http.serve",
    ),
]


@pytest.mark.parametrize(("old", "name", "value", "new"), MOVED)
def test_an_old_path_warns_and_gives_the_same_object(
    old: str, name: str, value: object, new: str
) -> None:
    module = importlib.import_module(old)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}: import {name} from {new}"):
        got = getattr(module, name)
    assert got is value


def test_a_from_import_of_an_old_path_points_at_the_importing_line() -> None:
    with pytest.warns(DeprecationWarning, match="interrupt_widget.http.remote") as caught:
        from interrupt_widget.remote import RemoteAgent as Old
    assert Old is RemoteAgent
    assert caught[0].filename == __file__


@pytest.mark.parametrize("old", ["interrupt_widget.client", "interrupt_widget.http.background"])
def test_a_name_the_old_path_never_had_is_an_attribute_error(old: str) -> None:
    module = importlib.import_module(old)
    with pytest.raises(AttributeError, match="has no attribute 'serve'"):
        module.serve  # noqa: B018
