"""This folder's modules (the stand-in server) on the path, and the stand-in as a fixture."""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Iterator

import pytest

HERE = pathlib.Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from responses_server import ResponsesStandIn  # noqa: E402  (found through the path above)


@pytest.fixture
def openai_stand_in() -> Iterator[ResponsesStandIn]:
    """The stand-in, served from a thread on 127.0.0.1; its URL is `.base_url`."""
    server = ResponsesStandIn()
    with server.running():
        yield server
