"""`RemoteAgent`: an AG-UI agent served elsewhere, with the adapter's `run(input)` shape.

`AgentChat.remote(url)` drives one of these exactly as it drives the local
adapter: each run POSTs the thread's messages (those of the last
MESSAGES_SNAPSHOT, exactly as received, so the server's fingerprints travel
back in their metadata) and its resume entries, and streams the events back.

Failures never escape as exceptions from the stream: an HTTP error, a
connection that breaks, or a stream that is not AG-UI ends the run with a
RUN_ERROR whose message says what happened, so the chat shows it in its status
line and raises it from the awaited handle, and the conversation keeps what
arrived before it.

A run that ends paused without AG-UI 1.0's interrupt outcome is never shown as
done: LangGraph's legacy `CUSTOM` `on_interrupt` becomes the interrupt the chat
asks (see `legacy_pauses`), and a tool call left without a result ends in
RUN_ERROR (`unanswerable_pause`) naming the server option that fixes it.

Stopping closes the connection: an AG-UI server then stops the run at its next
safe point (this kit's server never cuts a running tool off; its result is
recorded and replayed to the next resume).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable

from ag_ui.core import BaseEvent, Interrupt, RunAgentInput, RunErrorEvent

from interrupt_widget.agui.run_handle import EventIteratorHandle, RunHandle
from interrupt_widget.errors import ErrorCode

__all__ = ["RemoteAgent"]


class RemoteAgent:
    """An AG-UI agent at `url` (`POST url` with a RunAgentInput, SSE back).

    Every run opens its own connection, so the agent can be used from any
    event loop (a kernel's, a test's) and a stopped run closes only its own.
    Needs the `serve` extra (httpx); without it, construction says what to install.
    """

    def __init__(self, url: str, *, token: str | None = None) -> None:
        # Imported here so that the kit imports without the `serve` extra.
        from interrupt_widget.http.langgraph_pauses import LegacyPauses
        from interrupt_widget.http.optional_imports import AGUIClient

        self.url = url
        """The endpoint runs are POSTed to."""
        self._client = AGUIClient(url, token=token)
        self._pauses = LegacyPauses(url)

    def adopt(self, interrupts: Iterable[Interrupt]) -> None:
        """Answer these open interrupts (from a saved chat) in the shape their server expects."""
        self._pauses.adopt(interrupts)

    def run(self, input: RunAgentInput) -> RunHandle:
        """The run's events; a failure ends them with a RUN_ERROR instead of raising.

        The run cannot stop itself: closing it closes the connection (see the module docs).
        """
        return EventIteratorHandle(self._events(input))

    async def _events(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        from interrupt_widget.http.client import AGUIConnectionError, AGUIHTTPError, AGUIStreamError

        # A server that pauses without the 1.0 outcome (LangGraph's legacy `on_interrupt`)
        # gets its answers back in the shape its graph expects.
        input = input.model_copy(update={"resume": self._pauses.shaped(input.resume)})
        watch = self._pauses.watch()
        try:
            async for event in self._client.run(input):
                yield watch.see(event)
        except AGUIHTTPError as exc:
            yield RunErrorEvent(
                message=f"The agent at {self.url} refused the request: {exc}",
                code=exc.code or ErrorCode.HTTP_ERROR,
            )
        except AGUIConnectionError as exc:
            yield RunErrorEvent(message=f"Lost the agent: {exc}", code=ErrorCode.CONNECTION_FAILED)
        except AGUIStreamError as exc:
            yield RunErrorEvent(
                message=f"The agent at {self.url} sent a broken stream: {exc}",
                code=ErrorCode.INVALID_STREAM,
            )

    def __repr__(self) -> str:
        return f"RemoteAgent({self.url!r})"
