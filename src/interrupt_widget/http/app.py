"""The ASGI app: `POST /` runs the agent and streams AG-UI events as SSE; `GET /health`.

Every request carries its whole conversation and its resume entries, so the
server keeps nothing between requests and can be restarted or replicated
between a pause and its resume. Bad requests get a 4xx JSON error before
anything runs; problems found once the run has started (a bad resume, a
forged call) end the stream in RUN_ERROR.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Unpack

from ag_ui.core import RunAgentInput
from ag_ui.encoder import EventEncoder
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from interrupt_widget.agui.answers import prepare_checks_soon
from interrupt_widget.agui.run_handle import AGUIAgent
from interrupt_widget.agui.wire import json_pointer
from interrupt_widget.errors import ErrorCode, IdentityMismatch
from interrupt_widget.http.detached_run import DetachedRun
from interrupt_widget.http.error_response import error_response
from interrupt_widget.http.fingerprint import Fingerprinter, random_secret, secret_from_env
from interrupt_widget.http.fingerprint_guard import FingerprintGuard
from interrupt_widget.http.health import health_of
from interrupt_widget.http.limits import DEFAULT_BODY_TIMEOUT_SECONDS
from interrupt_widget.http.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from interrupt_widget.http.metrics import ServeMetrics, attach_ledger, metered
from interrupt_widget.http.principals import Principals, as_principal
from interrupt_widget.identity import Identity
from interrupt_widget.ledger.once_only import CallLedger
from interrupt_widget.sdk.agent_options import AgentOptions, OptionsBesidePolicy, resolve_agent

logger = logging.getLogger(__name__)

DEFAULT_MAX_BODY_BYTES = 2 * 1024 * 1024
"""The default cap on a request body: a long conversation fits, a flood does not."""


class AppOptions(OptionsBesidePolicy, total=False):
    """The options `serve` passes on to `asgi_app` as they are: the agent's (`AgentOptions`,
    but the policy, which `serve` also takes by name) and the server's (documented there)."""

    token: str | None
    secret: str | bytes | None
    max_body_bytes: int
    body_timeout: float
    cors_origins: Sequence[str]
    metrics: bool
    principals: str | os.PathLike[str] | Principals | None


DEFAULT_KEEPALIVE_SECONDS = 15.0
"""How long a stream may stay silent before the server sends an SSE comment."""

_KEEPALIVE = b": keep-alive\n\n"


@dataclass
class _Server:
    agent: AGUIAgent
    token: bytes | None
    max_body_bytes: int
    body_timeout: float
    keepalive: float | None
    shutdown_grace: float
    ledger: CallLedger | None = None
    """The served agent's ledger, which `/health` checks (None: it has none)."""
    metrics: ServeMetrics | None = None
    runs: set[DetachedRun] = field(default_factory=set)
    principals: Principals | None = None
    """Token digests and who they stand for (`serve --principals`); None: one shared token."""


def _caller(server: _Server, request: Request) -> Identity | Response | None:
    """The principal the bearer token names (None without principals), or a 401 response."""
    if server.token is None and server.principals is None:
        return None
    scheme, _, credentials = request.headers.get("authorization", "").partition(" ")
    given = credentials.strip()
    if scheme.lower() == "bearer" and given:
        if server.principals is not None:
            principal = server.principals.identify(given)
            if principal is not None:
                return principal
        elif server.token is not None and hmac.compare_digest(given.encode(), server.token):
            return None
    message = (
        "the bearer token is not this server's"
        if scheme.lower() == "bearer" and given
        else "this server needs `Authorization: Bearer <token>`"
    )
    return error_response(
        401, ErrorCode.UNAUTHORIZED, message, headers={"WWW-Authenticate": 'Bearer realm="agent"'}
    )


def _unauthorized(server: _Server, request: Request) -> Response | None:
    caller = _caller(server, request)
    return caller if isinstance(caller, Response) else None


async def _read_body(request: Request, limit: int, seconds: float) -> bytes | Response:
    too_large = error_response(
        413,
        ErrorCode.BODY_TOO_LARGE,
        f"the request body is over this server's limit of {limit} bytes",
    )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return too_large
    chunks: list[bytes] = []
    size = 0
    try:
        # One deadline for the whole body: a client trickling bytes cannot hold
        # the connection any longer than one that sends nothing.
        async with asyncio.timeout(seconds):
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    return too_large
                chunks.append(chunk)
    except TimeoutError:
        return error_response(
            408,
            ErrorCode.BODY_TIMEOUT,
            f"the request body did not arrive within this server's {seconds:g} s",
            headers={"Connection": "close"},
        )
    return b"".join(chunks)


def _parse_input(body: bytes) -> RunAgentInput | Response:
    # One pass (pydantic's own JSON parser) where json.loads + model_validate took two;
    # its nesting limit turns a 10,000-deep body into a parse error, not a RecursionError.
    try:
        return RunAgentInput.model_validate_json(body)
    except ValidationError as exc:
        errors = exc.errors(include_url=False, include_input=False)
    if errors and errors[0]["type"] == "json_invalid":
        reason = str(errors[0]["msg"]).removeprefix("Invalid JSON: ")
        return error_response(
            400, ErrorCode.MALFORMED_JSON, f"the request body is not valid JSON ({reason})"
        )
    if errors and errors[0]["type"] == "model_type" and not errors[0]["loc"]:
        return error_response(
            422, ErrorCode.INVALID_INPUT, "the request body must be a RunAgentInput JSON object"
        )
    details = [{"path": json_pointer(e["loc"]), "message": e["msg"]} for e in errors]
    fields = ", ".join(d["path"] or "/" for d in details[:5])
    return error_response(
        422,
        ErrorCode.INVALID_INPUT,
        f"the RunAgentInput is not valid at {fields}",
        details=details,
    )


class _EventStreamResponse(StreamingResponse):
    """SSE for one detached run; a client that leaves abandons the run, never cancels it."""

    def __init__(self, run: DetachedRun, *, keepalive: float | None) -> None:
        # The base class only sets the headers (no Content-Length); __call__ does the rest.
        super().__init__(
            content=iter(()),
            headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
            media_type="text/event-stream",
        )
        self._run = run
        self._keepalive = keepalive
        self._encoder = EventEncoder()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def watch_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            self._run.abandon()

        watcher = asyncio.create_task(watch_disconnect())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
            encode = self._encoder.encode
            async for batch in self._run.batches(idle=self._keepalive):
                # A comment line while the agent is quiet (a long tool), so proxies and
                # clients do not take the connection for dead. Events ready together
                # go out in one write.
                body = "".join(map(encode, batch)).encode() if batch else _KEEPALIVE
                await send({"type": "http.response.body", "body": body, "more_body": True})
            if not self._run.abandoned:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
        except OSError:
            pass  # the client is gone: abandoned below
        finally:
            watcher.cancel()
            if not self._run.task.done():
                self._run.abandon()


def _ledger_of(served: AGUIAgent) -> CallLedger | None:
    """The ledger `/health` reads: an SDK agent's adapter has one, another AG-UI agent none."""
    from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter

    return served.ledger if isinstance(served, OpenAIAgentsAdapter) else None


def _warn_at_start(
    served: AGUIAgent, *, lasting_secret: bool, principals: Principals | None
) -> None:
    """Say what the options given leave unsafe, before the server listens."""
    if lasting_secret:
        _warn_if_forgetful(served)
    if principals is None:
        _warn_if_people_unproven(served)


def _warn_if_forgetful(served: AGUIAgent) -> None:
    # A lasting secret keeps open interrupts answerable across a restart; a ledger
    # in memory forgets what ran, so the same resume would run its call again.
    from interrupt_widget.ledger.memory import MemoryLedger
    from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter

    if isinstance(served, OpenAIAgentsAdapter) and isinstance(served.ledger, MemoryLedger):
        logger.warning(
            "open interrupts survive a restart (the fingerprint secret is kept) but the record "
            "of the calls already run is in memory: after a restart, the same resume runs its "
            "call again; use a ledger that lasts (the default per-user file, or --ledger FILE)"
        )


SHARED_TOKEN_WARNING = (
    "the policy has rules about people (require, escalate), but every client shares one token "
    "(or none): who starts a run and who answers is taken on the client's word "
    "(metadata.identity), so anyone with the token can approve as anyone, their own calls "
    "included. Give each person a token of their own: `python -m interrupt_widget principals "
    "add FILE NAME --role ROLE`, then serve with --principals FILE"
)
"""What `asgi_app` logs at start when rules about people meet no principals."""


def _warn_if_people_unproven(served: AGUIAgent) -> None:
    # Without principals an identity is whatever the client writes in its answer.
    from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter

    policy = served.policy if isinstance(served, OpenAIAgentsAdapter) else None
    if policy is not None and policy.people:
        logger.warning(SHARED_TOKEN_WARNING)


_ORIGIN = re.compile(r"https?://[^\s/?#]+")


def cors_allowed_origins(origins: Sequence[str]) -> list[str]:
    """`origins` checked as a browser sends them (`scheme://host[:port]`, no path), or a
    ValueError naming the first that is not; `"*"` (any origin) is allowed as itself."""
    if isinstance(origins, str):
        raise ValueError("cors_origins takes a list of origins, not one string")
    checked: list[str] = []
    for origin in origins:
        if origin != "*" and not _ORIGIN.fullmatch(origin):
            raise ValueError(
                f"CORS origin {origin!r} is not an origin: give scheme://host[:port] "
                "with no path or trailing slash, e.g. http://localhost:5173"
            )
        checked.append(origin)
    return checked


def _cors_middleware(origins: list[str]) -> list[Middleware]:
    if not origins:
        return []
    # No credentials mode: the bearer token travels in a header the preflight allows,
    # never in a cookie, so "*" stays safe to offer.
    return [
        Middleware(
            CORSMiddleware,
            allow_origins=origins,
            allow_methods=["GET", "POST"],
            allow_headers=["Authorization", "Content-Type"],
            max_age=600,
        )
    ]


def _check_limits(token: str | None, max_body_bytes: int, body_timeout: float) -> None:
    if max_body_bytes <= 0:
        raise ValueError("max_body_bytes must be positive")
    if not body_timeout > 0:
        raise ValueError("body_timeout must be a positive number of seconds")
    if token is not None and not token.strip():
        raise ValueError("token must not be blank; pass None for no authentication")


def _fingerprint_secret(secret: str | bytes | None) -> tuple[str | bytes, bool]:
    """The secret that keys the fingerprints, and whether it outlives this process."""
    if secret is None:
        secret = secret_from_env()
    if secret is not None:
        return secret, True
    logger.warning(
        "no fingerprint secret (INTERRUPT_WIDGET_SECRET or --secret-file): using a random "
        "one, so a restart voids every open interrupt"
    )
    return random_secret(), False


def _routes(server: _Server) -> list[Route]:
    """`POST /` runs the agent and streams its events; `GET /health` says "ok";
    `GET /metrics` shows the metrics when the server counts them."""

    async def run(request: Request) -> Response:
        caller = _caller(server, request)
        if isinstance(caller, Response):
            return caller
        content_type = request.headers.get("content-type", "application/json")
        if "json" not in content_type.lower():
            return error_response(
                415, ErrorCode.UNSUPPORTED_MEDIA_TYPE, "send the RunAgentInput as application/json"
            )
        try:
            body = await _read_body(request, server.max_body_bytes, server.body_timeout)
        except ClientDisconnect:
            return Response(status_code=400)
        if isinstance(body, Response):
            return body
        parsed = _parse_input(body)
        if isinstance(parsed, Response):
            return parsed
        if caller is not None:
            try:
                parsed = as_principal(parsed, caller)
            except IdentityMismatch as error:
                return error_response(403, ErrorCode.IDENTITY_MISMATCH, str(error))
        detached = DetachedRun(server.agent, parsed)
        server.runs.add(detached)
        detached.task.add_done_callback(lambda _: server.runs.discard(detached))
        return _EventStreamResponse(detached, keepalive=server.keepalive)

    async def health(request: Request) -> Response:
        status, body = await health_of(server.ledger)
        return JSONResponse(body, status_code=status)

    routes = [Route("/", run, methods=["POST"]), Route("/health", health, methods=["GET"])]
    counted = server.metrics
    if counted is not None:

        async def scrape(request: Request) -> Response:
            refused = _unauthorized(server, request)
            if refused is not None:
                return refused
            return Response(counted.exposition(), media_type=METRICS_CONTENT_TYPE)

        routes.append(Route("/metrics", scrape, methods=["GET"]))
    return routes


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    codes = {404: ErrorCode.NOT_FOUND, 405: ErrorCode.METHOD_NOT_ALLOWED}
    return error_response(
        exc.status_code,
        codes.get(exc.status_code, ErrorCode.HTTP_ERROR),
        f"{request.method} {request.url.path}: {exc.detail}",
        headers=exc.headers,
    )


async def _internal_error(request: Request, exc: Exception) -> Response:
    logger.error("unhandled error on %s %s", request.method, request.url.path, exc_info=exc)
    return error_response(
        500, ErrorCode.INTERNAL_ERROR, "the server failed; its log has the details"
    )


_EXCEPTION_HANDLERS: dict[Any, Callable[[Request, Exception], Awaitable[Response]]] = {
    HTTPException: _http_error,
    Exception: _internal_error,
}
"""Every error the app answers itself is a JSON body with an `ErrorCode`."""


def _lifespan(
    server: _Server,
) -> Callable[[Starlette], contextlib.AbstractAsyncContextManager[None]]:
    """At start-up, the answer checks are prepared on a thread of their own (importing
    `jsonschema` takes over a second, which the first resume would otherwise spend on the
    server's loop, every client waiting). At shutdown, runs whose client has left get
    `shutdown_grace` seconds, then are cancelled."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        prepare_checks_soon()
        yield
        if server.runs:
            tasks = {run.task for run in server.runs}
            _, still_running = await asyncio.wait(tasks, timeout=server.shutdown_grace)
            for task in still_running:
                task.cancel()

    return lifespan


def asgi_app(
    agent: Any,
    *,
    token: str | None = None,
    secret: str | bytes | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    body_timeout: float = DEFAULT_BODY_TIMEOUT_SECONDS,
    keepalive: float | None = DEFAULT_KEEPALIVE_SECONDS,
    shutdown_grace: float = 30.0,
    cors_origins: Sequence[str] = (),
    metrics: bool = False,
    principals: str | os.PathLike[str] | Principals | None = None,
    **options: Unpack[AgentOptions],
) -> Starlette:
    """An ASGI app serving `agent` over AG-UI: mount it anywhere, or run it with `serve`.

    `agent` is an Agents SDK `Agent`, run in an `OpenAIAgentsAdapter` made with
    `options` (`model`, `run_config`, `expires_in`, `response_schemas`, `policy`,
    `ledger`, `hooks`, `cassette`: see `AgentOptions`, as for `AgentChat`), or any AG-UI
    agent with `run(RunAgentInput)`, which refuses them (they belong where it runs).
    `token`, when set, is required as `Authorization: Bearer <token>` on `POST /`
    (`GET /health` stays open and says only whether the server and its ledger are up:
    see `interrupt_widget.http.health`). `secret` keys the fingerprints on gated tool
    calls; without one it is read from `INTERRUPT_WIDGET_SECRET`,
    and failing that a random one is made (interrupts then die with the process).
    `ledger` records the approved calls already run (see `interrupt_widget.ledger.opening`): by
    default the per-user SQLite file (or `$INTERRUPT_WIDGET_LEDGER`), so a restart does
    not run a call again; replicas share one (the same file on one host, a
    `postgresql://` URL across hosts, with the same `secret`), so the call runs once
    whichever replica gets it; `"memory"` keeps it in this process only.
    `max_body_bytes` caps a request body (413 over it); `body_timeout` is how
    many seconds a body may take to arrive in full (408 after it, so a slow
    client cannot hold a connection). A body that is not JSON, or is nested
    too deeply to parse, gets 400 `malformed_json`.
    `keepalive` is how many silent seconds pass before an SSE comment is sent
    (None: never). `shutdown_grace` is how long shutdown waits for runs whose
    client has left. `policy` settles the calls its rules cover without a person
    (`Policy`; an SDK agent only). `hooks` (the SDK's `RunHooks`) go to every run of
    an SDK agent, resumed ones included.
    `cors_origins` lists the web origins (`https://app.example.com`,
    `http://localhost:5173`) whose pages may call this server from a browser:
    their preflight is answered, `Authorization` and `Content-Type` are allowed
    and the event stream is readable; any other origin gets no CORS header, so
    its browser refuses.
    `metrics` adds `GET /metrics`: Prometheus counters of the interrupts, the
    decisions, the time to answer, the tool runs, the calls in doubt and the
    ledger's errors (`interrupt_widget.http.metrics`), behind the same token as
    `POST /`.
    `principals` (a file's path, or `Principals`) replaces the one `token` with one
    token per person (`interrupt_widget.http.principals`): the token names who starts
    each run and who gives each answer, roles included, and a request naming anyone
    else is refused with 403 `identity_mismatch`.
    """
    origins = cors_allowed_origins(cors_origins)
    _check_limits(token, max_body_bytes, body_timeout)
    if token is not None and principals is not None:
        raise ValueError("give a token or principals, not both: each principal has its own")
    known = principals if isinstance(principals, Principals | None) else Principals.load(principals)
    secret, lasting_secret = _fingerprint_secret(secret)
    served = resolve_agent(agent, **options).runs_on  # a ledger that cannot open fails here
    _warn_at_start(served, lasting_secret=lasting_secret, principals=known)
    guarded = FingerprintGuard(served, Fingerprinter(secret))
    counted = ServeMetrics() if metrics else None
    if counted is not None:
        attach_ledger(counted, _ledger_of(served))
    server = _Server(
        agent=metered(guarded, counted),
        token=token.strip().encode() if token is not None else None,
        max_body_bytes=max_body_bytes,
        body_timeout=body_timeout,
        keepalive=keepalive,
        shutdown_grace=shutdown_grace,
        ledger=_ledger_of(served),
        metrics=counted,
        principals=known,
    )
    app = Starlette(
        routes=_routes(server),
        exception_handlers=_EXCEPTION_HANDLERS,
        lifespan=_lifespan(server),
        middleware=_cors_middleware(origins),
    )
    app.state.runs = server.runs  # the runs in flight, for monitoring and tests
    app.state.metrics = counted  # what GET /metrics shows (None without metrics)
    return app
