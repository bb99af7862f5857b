"""AG-UI over HTTP: serve an agent (`asgi_app`, `serve`) and call one (`AGUIClient`, `RemoteAgent`).

These need the `serve` extra (Starlette, uvicorn, httpx, httpx-sse). Without it
the kit still imports; the names below then raise an ImportError that says
what to install.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from interrupt_widget.http.remote import RemoteAgent

if TYPE_CHECKING:
    from interrupt_widget.http.app import asgi_app
    from interrupt_widget.http.client import AGUIClient
    from interrupt_widget.http.serve import serve
else:
    _SERVE_EXTRA = {"starlette", "uvicorn", "httpx", "httpx_sse"}
    try:
        from interrupt_widget.http.app import asgi_app
        from interrupt_widget.http.client import AGUIClient
        from interrupt_widget.http.serve import serve
    except ModuleNotFoundError as exc:
        if exc.name not in _SERVE_EXTRA:
            raise
        _missing = exc

        def _needs_extra(name: str) -> ImportError:
            return ImportError(
                f"interrupt_widget.{name} needs the `serve` extra "
                f"(pip install 'interrupt-widget[serve]'): {_missing}"
            )

        def asgi_app(*args: Any, **kwargs: Any) -> Any:
            raise _needs_extra("asgi_app")

        def serve(*args: Any, **kwargs: Any) -> None:
            raise _needs_extra("serve")

        class AGUIClient:
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                raise _needs_extra("AGUIClient")


__all__ = ["AGUIClient", "RemoteAgent", "asgi_app", "serve"]
