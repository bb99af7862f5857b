"""For tests that put a model of their own behind the SDK's provider seam (a cassette's
`provider=`, a `RunConfig`), with no cassette mode taken from the caller's environment."""

from __future__ import annotations

import pytest
from agents import Model, ModelProvider

from interrupt_widget.sdk.cassette import CASSETTE_ENV, CASSETTE_MODE_ENV


class OneModel(ModelProvider):
    """A provider that answers every model name with `model`."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def get_model(self, model_name: str | None) -> Model:
        return self.model


@pytest.fixture(autouse=True)
def _no_cassette_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Imported by a test module: its tests set the cassette they mean, none is inherited."""
    monkeypatch.delenv(CASSETTE_MODE_ENV, raising=False)
    monkeypatch.delenv(CASSETTE_ENV, raising=False)
