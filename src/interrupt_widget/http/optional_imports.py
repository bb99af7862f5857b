"""The names that need the `serve` extra (Starlette, uvicorn, httpx, httpx-sse).

With the extra installed these are the real `asgi_app`, `serve` and `AGUIClient`;
without it, stand-ins whose use raises an ImportError that says what to install,
so the kit itself still imports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
                f'(pip install ".[serve]" in the kit\'s clone): {_missing}'
            )

        def asgi_app(*args: Any, **kwargs: Any) -> Any:
            raise _needs_extra("asgi_app")

        def serve(*args: Any, **kwargs: Any) -> None:
            raise _needs_extra("serve")

        class AGUIClient:
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                raise _needs_extra("AGUIClient")


__all__ = ["AGUIClient", "asgi_app", "serve"]
