"""AG-UI over HTTP: serve an agent (`asgi_app`, `serve`) and call one (`AGUIClient`, `RemoteAgent`).

These need the `serve` extra (Starlette, uvicorn, httpx, httpx-sse). Without it
the kit still imports; the names below then raise an ImportError that says
what to install.
"""

from __future__ import annotations

from interrupt_widget.http.optional_imports import AGUIClient, asgi_app, serve
from interrupt_widget.http.remote import RemoteAgent

__all__ = ["AGUIClient", "RemoteAgent", "asgi_app", "serve"]
