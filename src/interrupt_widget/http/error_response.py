"""The JSON error bodies the server answers bad requests with."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from starlette.responses import JSONResponse

from interrupt_widget.errors import ErrorCode


def error_response(
    status: int,
    code: ErrorCode,
    message: str,
    *,
    details: Sequence[Mapping[str, Any]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> JSONResponse:
    """`{"error": {"code", "message", "details"?}}` with `status`; never a traceback."""
    error: dict[str, Any] = {"code": code, "message": message}
    if details:
        error["details"] = list(details)
    return JSONResponse({"error": error}, status_code=status, headers=dict(headers or {}))
