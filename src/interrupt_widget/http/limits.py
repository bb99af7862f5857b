"""What one request may cost the server, with the defaults `serve` and `asgi_app` share."""

from __future__ import annotations

DEFAULT_BODY_TIMEOUT_SECONDS = 30.0
"""How long a request body may take to arrive in full before the server answers 408."""
