"""The kit's Jupyter Server extension: the sidebar's routes, a thin door onto the board.

`GET  {base}interrupt-widget/questions?rev=N&wait=S`: `{"rev", "me", "items"}`, every
question waiting on the server for the signed-in person (a long poll: with `rev`,
it answers once the board changed, or `{"rev", "unchanged": true}` after `wait`
seconds). `POST {base}interrupt-widget/answer` `{"ids", "status", "payload"}` and
`POST {base}interrupt-widget/settle` `{"id", "ran", "output"}`: `{"results": [...]}`,
what each question got. Who answers is always the server's signed-in user
(`current_user`: JupyterHub's user under JupyterHub), with the roles the server's
configuration gives them; a body that names anyone else is refused with 403
`identity_mismatch`, and any field a body should not have with 400.

Configured as `c.InterruptWidget.<name>` (see `InterruptWidget`). The server names
its board to its kernels in their environment, so every kernel it starts posts there.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from jupyter_server.auth.identity import User
from jupyter_server.base.handlers import APIHandler, FileFindHandler, JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.escape import url_escape
from tornado.ioloop import IOLoop
from traitlets import Bool, Dict, Float, List, Unicode
from traitlets.config import Configurable

from interrupt_widget.errors import ErrorCode
from interrupt_widget.identity import Identity, identity_in, login_identity
from interrupt_widget.lab.board import BOARD_ENV, SERVER_ENV, Board
from interrupt_widget.lab.server_questions import CLOSED_KEPT, ServerQuestions
from interrupt_widget.lab.webhooks import Webhooks
from interrupt_widget.widgets._bundle import SERVED_AT_ENV, STATIC
from interrupt_widget.widgets.inbox_protocol import outcome_to_wire

if TYPE_CHECKING:
    from interrupt_widget.lab.temporal_questions import TemporalQuestions

ROUTE: Final = "interrupt-widget"
MAX_IDS: Final = 1000
"""The most questions one bulk answer names."""
MAX_WAIT: Final = 25.0
"""The longest a list request waits for a change, in seconds."""


class InterruptWidget(Configurable):
    """The kit's server settings: `c.InterruptWidget.board = "postgresql://..."` and so on."""

    board = Unicode(
        "",
        help="Where the questions of this server's kernels are kept: a SQLite file, or a "
        "postgresql:// URL that several servers share (default: a file in the runtime dir).",
    ).tag(config=True)
    roles = Dict(
        value_trait=List(Unicode()),
        help='The roles each signed-in user holds, for rules that ask for roles: {"ann": ["cfo"]}.',
    ).tag(config=True)
    webhooks = List(
        Unicode(),
        help="URLs that receive a JSON message when a question starts waiting, is escalated, "
        "or is about to lapse (Slack's incoming webhooks show it as it is).",
    ).tag(config=True)
    sensitive_tools = List(
        Unicode(), help="Tools whose arguments a webhook's message never carries."
    ).tag(config=True)
    public_url = Unicode(
        "", help="The server's address as people outside reach it, for the webhook's link."
    ).tag(config=True)
    temporal = List(
        Dict(),
        help="Temporal agents whose waiting conversations the sidebar lists and answers with no "
        'kernel: [{"address": "127.0.0.1:7233", "agent": "module:attr", "task_queue": "q", '
        '"namespace": "default"}].',
    ).tag(config=True)
    answer_timeout = Float(
        5.0, help="Seconds a kernel has to take an answer given in the sidebar."
    ).tag(config=True)
    closed_kept = Float(
        CLOSED_KEPT,
        help="Seconds the questions of a kernel that died (without shutting down) stay listed "
        "as closed before they leave the list.",
    ).tag(config=True)
    serve_widget_code = Bool(
        True,
        help="Let the widgets of this server's kernels load their code from the server, so a "
        "saved notebook keeps a few lines a widget rather than the whole bundle. A front end "
        "that opens these kernels from elsewhere (VS Code connected to this server) cannot "
        "reach that code and shows a line saying so: set False there.",
    ).tag(config=True)


class _Door(APIHandler):
    """What the routes share: who the signed-in person is, and errors with a code."""

    def initialize(self, questions: ServerQuestions, roles: Mapping[str, list[str]]) -> None:
        self.questions = questions
        self.roles = roles

    def person(self) -> Identity:
        """The signed-in person: JupyterHub's user (or another identity provider's); on a
        server signed into with its one shared token or password, whose users are anonymous,
        the person the server runs for (`login_identity`)."""
        user: User = self.current_user
        name = login_identity().name if _anonymous(user) else user.username
        return Identity(name, tuple(self.roles.get(name, ())))

    def refuse(self, status: int, code: ErrorCode, message: str) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": {"code": code.value, "message": message}}))

    def body(self, allowed: frozenset[str]) -> dict[str, Any] | None:
        """The request's JSON object, or None once refused (not JSON, not an object, a field
        it should not have, or a name other than the signed-in person's)."""
        try:
            body = json.loads(self.request.body or b"null")
        except (ValueError, RecursionError):
            self.refuse(400, ErrorCode.MALFORMED_JSON, "the request body is not JSON")
            return None
        if not isinstance(body, dict):
            self.refuse(400, ErrorCode.INVALID_INPUT, "the request body must be a JSON object")
            return None
        claimed = identity_in(body) or identity_in({"identity": body.get("by")})
        person = self.person()
        if claimed is not None and claimed.name != person.name:
            self.refuse(
                403,
                ErrorCode.IDENTITY_MISMATCH,
                f"you are signed in as {person.name!r}, not {claimed.name!r}: an answer is "
                "always given as the signed-in user",
            )
            return None
        unknown = sorted(set(body) - allowed - {"identity", "by"})
        if unknown:
            self.refuse(400, ErrorCode.INVALID_INPUT, f"unknown field(s) {', '.join(unknown)}")
            return None
        return body


class QuestionsHandler(_Door):
    @web.authenticated
    async def get(self) -> None:
        try:
            rev = self.get_query_argument("rev", None)
            wait = min(float(self.get_query_argument("wait", "0")), MAX_WAIT)
            known = None if rev is None else int(rev)
        except ValueError:
            self.refuse(400, ErrorCode.INVALID_INPUT, "rev is a whole number, wait seconds")
            return
        if known is not None and wait > 0:
            now = await self.questions.changed_since(known, wait)
            if now == known:
                self.finish(json.dumps({"rev": now, "unchanged": True}))
                return
        self.finish(json.dumps(await self.questions.listing_for(self.person())))


class AnswerHandler(_Door):
    @web.authenticated
    async def post(self) -> None:
        body = self.body(frozenset({"ids", "status", "payload"}))
        if body is None:
            return
        ids, status = body.get("ids"), body.get("status")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) and i for i in ids):
            self.refuse(
                400, ErrorCode.INVALID_INPUT, "ids must be a non-empty list of question ids"
            )
            return
        if len(ids) > MAX_IDS or len(set(ids)) != len(ids):
            self.refuse(400, ErrorCode.INVALID_INPUT, f"ids must be at most {MAX_IDS}, each once")
            return
        if status not in ("resolved", "cancelled"):
            self.refuse(400, ErrorCode.INVALID_INPUT, "status must be 'resolved' or 'cancelled'")
            return
        payload = body.get("payload") if status == "resolved" else None
        verdicts = await self.questions.answer(self.person(), ids, status, payload)
        self.finish(json.dumps({"results": [outcome_to_wire(v) for v in verdicts]}))


class SettleHandler(_Door):
    @web.authenticated
    async def post(self) -> None:
        body = self.body(frozenset({"id", "ran", "output"}))
        if body is None:
            return
        question, ran, output = body.get("id"), body.get("ran"), body.get("output")
        if not isinstance(question, str) or not question or not isinstance(ran, bool):
            self.refuse(400, ErrorCode.INVALID_INPUT, "settle needs an id and ran (true or false)")
            return
        if output is not None and not isinstance(output, str):
            self.refuse(400, ErrorCode.INVALID_INPUT, "output must be a string")
            return
        verdict = await self.questions.settle(self.person(), question, ran, output)
        self.finish(json.dumps({"results": [outcome_to_wire(verdict)]}))


class OpenHandler(JupyterHandler):
    """`{base}interrupt-widget/open?question=ID`, the webhook's link: JupyterLab with the
    sidebar at that question, after the usual sign-in (the link itself grants nothing)."""

    @web.authenticated
    def get(self) -> None:
        question = self.get_query_argument("question", "")
        lab = url_path_join(self.base_url, "lab")
        self.redirect(f"{lab}?{ROUTE}={url_escape(question, plus=False)}")


class BundleHandler(FileFindHandler):
    """`{base}interrupt-widget/static/<file>`: the widgets' code, which the kernels' widgets
    load from here rather than carry (see `interrupt_widget.widgets._bundle.served`). Public,
    as JupyterLab's own code is; a `?v=` digest in the URL makes it cacheable for good."""

    # Its own cache of found files: the base class keeps one by file name for all its users.
    _static_paths: dict[str, str] = {}  # noqa: RUF012 (a class-wide cache, as on the base)


def _anonymous(user: User) -> bool:
    """Whether `user` is one jupyter_server makes up for a shared token or password."""
    name = user.username
    return user.name.startswith("Anonymous ") and len(name) == 32 and name.isalnum()


def load(serverapp: Any) -> None:
    """Start the extension in `serverapp` (see `interrupt_widget.lab`)."""
    config = InterruptWidget(parent=serverapp)
    where = config.board or os.path.join(serverapp.runtime_dir, "interrupt-widget-board.sqlite")
    board = Board(where)
    server = f"{socket.gethostname()}:{serverapp.port}{serverapp.base_url}"
    # Kernels the server starts from now on inherit these, and post to this board.
    os.environ[BOARD_ENV], os.environ[SERVER_ENV] = board.where, server
    kernels = serverapp.kernel_manager
    elsewhere = _temporal(config.temporal) if config.temporal else None
    questions = ServerQuestions(
        board,
        server,
        lambda: kernels.list_kernel_ids(),
        answer_timeout=config.answer_timeout,
        closed_kept=config.closed_kept,
        elsewhere=elsewhere,
        root_dir=serverapp.root_dir,
    )
    shared = {"questions": questions, "roles": dict(config.roles)}
    base = serverapp.web_app.settings["base_url"]
    serverapp.web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, ROUTE, "questions"), QuestionsHandler, shared),
            (url_path_join(base, ROUTE, "answer"), AnswerHandler, shared),
            (url_path_join(base, ROUTE, "settle"), SettleHandler, shared),
            (url_path_join(base, ROUTE, "open"), OpenHandler),
            (url_path_join(base, ROUTE, "static", "(.*)"), BundleHandler, {"path": str(STATIC)}),
        ],
    )
    if config.serve_widget_code:
        os.environ[SERVED_AT_ENV] = f"{ROUTE}/static/"  # under the base URL, as the page reads it
    _forget_restarted_kernels(serverapp, board)
    if config.webhooks:
        link = config.public_url or serverapp.connection_url
        hooks = Webhooks(questions, config.webhooks, link, sensitive=set(config.sensitive_tools))
        IOLoop.current().spawn_callback(hooks.run)
    if elsewhere is not None:
        IOLoop.current().spawn_callback(elsewhere.run)
    serverapp.log.info("interrupt-widget: questions on the board at %s", board.where)


KERNEL_ACTIONS: Final = "https://events.jupyter.org/jupyter_server/kernel_actions/v1"


def _forget_restarted_kernels(serverapp: Any, board: Board) -> None:
    """Take a kernel's questions off the board once the server restarted or shut it down.

    A kernel that exits takes its own off; one that died (killed, out of memory) cannot, and
    the server restarts it under the same id, so it would look alive while the runs that
    asked are gone and no answer could reach them."""

    async def on_action(logger: Any, schema_id: str, data: dict[str, Any]) -> None:
        kernel = data.get("kernel_id")
        if data.get("action") in ("restart", "shutdown") and isinstance(kernel, str):
            try:
                await asyncio.to_thread(board.leave, kernel)
            except Exception:  # the board is a view: a kernel's restart must not fail on it
                serverapp.log.warning("interrupt-widget: the board %s cannot be reached",
                                      board.where, exc_info=True)  # fmt: skip

    serverapp.event_logger.add_listener(schema_id=KERNEL_ACTIONS, listener=on_action)


def _temporal(named: list[dict[str, Any]]) -> TemporalQuestions:
    """The Temporal agents `c.InterruptWidget.temporal` names, held by this server."""
    from interrupt_widget.lab.temporal_questions import TemporalQuestions
    from interrupt_widget.temporal import TemporalAgent

    agents = []
    for entry in named:
        unknown = set(entry) - {"address", "agent", "task_queue", "namespace"}
        if unknown or not {"address", "agent", "task_queue"} <= set(entry):
            raise ValueError(
                "each c.InterruptWidget.temporal entry takes address, agent and task_queue "
                f"(and namespace), got {sorted(entry)}"
            )
        agents.append(
            TemporalAgent(
                entry["address"],
                agent=entry["agent"],
                task_queue=entry["task_queue"],
                namespace=entry.get("namespace", "default"),
            )
        )
    return TemporalQuestions(agents)
