"""OpenTelemetry across Temporal: a run's update, its workflow, its activity and the kit's
decision spans in one trace.

When the OpenTelemetry API is installed (the `[otel]` extra), the kit's clients (`connect`)
and workers (`build_worker`) carry Temporal's own `TracingInterceptor`. The activity's run
emits each decision span in the activity's span context (`sdk/decision_spans.py` opens it
under the current span), so a decision joins the trace the notebook's update started, beside
the workflow's and the activity's spans, wherever the worker runs. Without OpenTelemetry
nothing is added.
"""

from __future__ import annotations

from typing import Any


def _tracing_interceptor() -> Any | None:
    try:
        from temporalio.contrib.opentelemetry import TracingInterceptor
    except ImportError:  # no OpenTelemetry: nothing to join
        return None
    return TracingInterceptor()


def client_interceptors() -> list[Any]:
    """What a client the kit connects carries: the tracing interceptor, when it can."""
    found = _tracing_interceptor()
    return [] if found is None else [found]


def worker_interceptors(client: Any) -> list[Any]:
    """What a worker adds to `client`'s interceptors: the tracing one, unless the client has
    it already (a client's interceptors reach its workers too, and twice would nest)."""
    found = _tracing_interceptor()
    if found is None:
        return []
    have = client.config().get("interceptors", ())
    return [] if any(isinstance(i, type(found)) for i in have) else [found]
