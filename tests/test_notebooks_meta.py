"""The tutorial notebooks: committed in a form nbval can check, and usable by a person.

Two kinds of check. The first reads the files: kernelspec set, outputs kept only on
`# NBVAL_CHECK_OUTPUT` cells and free of ids or addresses, decision files readable
by `responders.replay`. The second runs each notebook as JupyterLab's "Run All"
does, on a real kernel with no responder, and answers each picker the person is
asked to answer with the comm message a click sends (while a later cell awaits the
run). A cell that blocked the kernel before its picker showed would hang there;
the deadline turns that into a failure naming the notebook.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from interrupt_widget import responders

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PINNED = "# NBVAL_CHECK_OUTPUT"
DEADLINE = 120.0
"""Upper bound on a whole notebook run, so a blocked kernel fails instead of hanging."""

Msg = dict[str, Any]
Payload = dict[str, Any]

# What a person clicks, per notebook: for the n-th picker that opens, a payload per tool
# name, or None for a picker the notebook answers itself (from Python or a responder).
# Pickers after the listed ones are left to the notebook too.
CLICKS: dict[str, list[dict[str, Payload] | None]] = {
    "01_quickstart.ipynb": [
        {
            "schedule_meeting": {
                "approved": True,
                "chosen_time": "2031-03-04T09:30:00Z",
                "chosen_label": "Tue 4 Mar 09:30",
            }
        }
    ],
    "02_approvals.ipynb": [
        {
            "submit_expense": {"approved": True, "category": "meals"},
            "issue_refund": {"approved": False},
        },
        None,  # denied with a reason from Python
        None,  # left to expire
        None,  # stopped
    ],
    "03_headless_and_ci.ipynb": [],
    "08_your_own_runner.ipynb": [
        {"transfer_funds": {"approved": True}},
        {"transfer_funds": {"approved": True}},
    ],
    "04_custom_forms.ipynb": [
        {"launch_training": {"approved": True, "gpu": "a100", "max_hours": 4}},
        None,  # the standalone question, answered from Python
        {
            "schedule_meeting": {
                "approved": True,
                "chosen_time": "2031-03-05T14:00:00Z",
                "chosen_label": "Wed 5 Mar 14:00",
            }
        },
        {"launch_training": {"approved": True, "gpu": "t4", "max_hours": 2}},
    ],
    "05_agui_events.ipynb": [],
    "06_approval_policies.ipynb": [
        {
            "transfer_funds": {
                "approved": True,
                "editedArgs": {"amount": 2500, "to_account": "ACME-1", "memo": "rent"},
            }
        },
        {"transfer_funds": {"approved": True}},  # the invoice the policy leaves to a person
    ],
    "07_batch_approvals.ipynb": [],  # answered from Python through the inbox
    "09_operations.ipynb": [
        {"send_invoice": {"approved": True}},
        None,  # approved by the notebook once another process died in the call
    ],
    "10_regression_runs.ipynb": [{"delete_rows": {"approved": True}}],
    "11_temporal.ipynb": [],  # answered from Python through the inbox
    "12_four_eyes.ipynb": [],  # two approvers and a CFO answer from Python
    "13_answer_from_anywhere.ipynb": [],  # answered through a Jupyter server's routes
}

# Facts checked in the kernel once every cell ran: expression -> expected value.
AFTERWARDS: dict[str, dict[str, Any]] = {
    "01_quickstart.ipynb": {
        "agent.executions.count()": 1,
        "[d.by for d in chat.decisions]": ["user"],
        "'Tue 4 Mar 09:30' in chat.text": True,
    },
    "02_approvals.ipynb": {
        "agent.executions.count('submit_expense')": 1,
        "agent.executions.count('issue_refund')": 0,
        "[d.verdict for d in chat.decisions]": ["approved", "denied"],
        "meetings.executions.count()": 0,
    },
    "06_approval_policies.ipynb": {
        "[t['amount'] for t in read_journal(journal)]": [2500.0, 60.0, 1200.0],
        "[d.by for d in live.decisions]": ["policy:small transfers to known payees", "user"],
        "chat.decisions[0].executed_arguments['amount']": 2500,
    },
    "09_operations.ipynb": {
        "ran()": ["ACME", "Hooli"],
        "[d.settled for d in chat.decisions][-1]": "ran",
        "ledger.in_doubt()": [],
    },
    "04_custom_forms.ipynb": {
        "[dataset for dataset, _ in launched]": ["churn", "fraud"],
        "meetings.executions.count()": 1,
    },
    "10_regression_runs.ipynb": {
        "TABLES": {"staging_orders": 1245},
        "cassette.records": False,
    },
    "11_temporal.ipynb": {
        "[t['memo'] for t in read_journal(journal)]": ["rent", "INV-7"],
        "worker.returncode": 0,
    },
    "13_answer_from_anywhere.ipynb": {"stopped": 0},
    "12_four_eyes.ipynb": {
        "[t['amount'] for t in read_journal(journal)]": [5000.0, 2500.0],
        "[d.approvers for d in chat.decisions if d.approvers]": [["ann", "bob"], ["ann", "cleo"]],
    },
}


def notebook_paths() -> list[Path]:
    return sorted(NOTEBOOKS.glob("*.ipynb"))


def load(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def source(cell: dict[str, Any]) -> str:
    text = cell["source"]
    return text if isinstance(text, str) else "".join(text)


def test_every_notebook_is_listed_here() -> None:
    assert sorted(p.name for p in notebook_paths()) == sorted(CLICKS)


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_committed_with_a_kernelspec_and_only_pinned_outputs(path: Path) -> None:
    document = load(path)
    assert document["metadata"]["kernelspec"]["name"] == "python3"
    pinned = 0
    for index, cell in enumerate(document["cells"]):
        if cell["cell_type"] != "code":
            continue
        where = f"{path.name} cell {index}"
        if not source(cell).startswith(PINNED):
            assert cell["outputs"] == [], f"{where}: unpinned outputs must be stripped"
            assert cell["execution_count"] is None, f"{where}: stale execution count"
            continue
        pinned += 1
        assert cell["outputs"], f"{where}: a pinned cell must keep its expected output"
        # nbval skips the comparison for a cell it thinks never ran.
        assert cell["execution_count"] is not None, f"{where}: pinned output without a count"
        for output in cell["outputs"]:
            assert output["output_type"] == "stream", f"{where}: pin printed text only"
            text = output["text"] if isinstance(output["text"], str) else "".join(output["text"])
            assert not re.search(r"0x[0-9a-f]{6,}", text), f"{where}: a memory address"
            assert not re.search(r"call_[0-9a-f]{8,}|run-[0-9a-f]{8,}", text), f"{where}: an id"
            # The kit stamps answers to the millisecond; fixed times in examples do not.
            assert not re.search(r"\d\d:\d\d:\d\d\.\d{3}Z", text), f"{where}: a changing time"
    assert pinned, f"{path.name} pins no output"


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.decisions.json")), ids=lambda p: p.name)
def test_decision_files_belong_to_a_notebook_and_replay(path: Path) -> None:
    assert (NOTEBOOKS / path.name.replace(".decisions.json", ".ipynb")).is_file()
    responders.replay(path)  # raises on anything that is not a decision file


# -- Run All, with a person clicking ---------------------------------------------------------


@pytest.fixture
def kernel() -> Iterator[KernelManager]:
    env = {k: v for k, v in os.environ.items() if k not in (responders.ENV_VAR, "OPENAI_API_KEY")}
    env.update(INTERRUPT_WIDGET_MODEL="offline", OPENAI_AGENTS_DISABLE_TRACING="1")
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(
        extra_arguments=["--HistoryManager.enabled=False"], env=env, cwd=str(NOTEBOOKS)
    )
    try:
        yield manager
    finally:
        manager.shutdown_kernel(now=True)


class Person:
    """Runs every cell at once, as Run All does, and clicks the pickers it is asked to.

    A picker is clicked only once it is on screen: displayed itself, or shown inside a
    displayed chat. The answer goes out as the comm message a click sends. Each of the kit's
    widgets is announced as it opens, as JupyterLab's front end does.
    """

    def __init__(self, kernel: KernelManager, clicks: list[dict[str, Payload] | None]):
        self.kernel = kernel
        self.client: BlockingKernelClient = kernel.blocking_client()
        self.clicks = list(clicks)
        self.pickers_seen = 0
        self.replies: dict[str, Msg] = {}
        self.idle: set[str] = set()
        """Requests iopub went idle for, by the parent the idle status names."""
        self.cells_idle = 0
        """Idle statuses for cells, whichever cell they name. ipykernel 7.4 can name the cell
        before: a widget's message handled while a cell awaits, the cell ending meanwhile,
        leaves that cell's parent on the next cell's idle (3 runs of 6 of notebook 03 under
        load). Each cell still ends with one idle, after its output."""
        self.errors: list[str] = []
        self.verdicts: dict[str, Msg] = {}
        """The picker's reply to each click, by request id."""
        self._displayed: set[str] = set()
        self._pickers: set[str] = set()
        self._chat_picker: dict[str, str] = {}
        self._to_click: list[tuple[str, int, list[dict[str, Any]], dict[str, Payload]]] = []
        self._printed: list[str] = []

    def run_all(self, cells: list[str], *, name: str) -> None:
        self.client.start_channels()
        self.client.wait_for_ready(timeout=60)
        pending = [self.client.execute(code, allow_stdin=False) for code in cells]
        deadline = time.monotonic() + DEADLINE
        while not (all(m in self.replies for m in pending) and self.cells_idle >= len(pending)):
            if time.monotonic() > deadline:
                self._fail_stuck(name, pending)
            self._read_once()
        assert not self.errors, f"{name}: " + "\n".join(self.errors)
        assert self.pickers_seen >= len(self.clicks), (
            f"{name}: {self.pickers_seen} picker(s) opened, at least {len(self.clicks)} expected"
        )
        assert not self._to_click, f"{name}: a picker to answer was never shown"
        refused = {r: v["error"] for r, v in self.verdicts.items() if not v["ok"]}
        assert not refused, f"{name}: clicks refused: {refused}"
        failed = {m: r for m, r in self.replies.items() if r["content"]["status"] != "ok"}
        assert not failed, f"{name}: cells failed: {failed}"

    def _read_once(self) -> None:
        """Everything that has come on either channel, as a front end takes it; when nothing
        has, a short wait for the next output. (Reading one message a channel and then waiting
        for the other held every output up to 50 ms: about 15 a second.)"""
        came = self._drain(self.client.get_iopub_msg, self._on_iopub)
        came += self._drain(self.client.get_shell_msg, self._on_shell)
        if not came:
            with contextlib.suppress(queue.Empty):
                self._on_iopub(self.client.get_iopub_msg(timeout=0.05))

    @staticmethod
    def _drain(get: Callable[..., Msg], handle: Callable[[Msg], None]) -> int:
        taken = 0
        with contextlib.suppress(queue.Empty):
            while True:
                handle(get(timeout=0))
                taken += 1
        return taken

    def _fail_stuck(self, name: str, pending: list[str]) -> NoReturn:
        """Fail naming the cells that did not finish, with where the kernel was waiting: an
        interrupt makes the stuck cell end with its traceback."""
        said = {True: "in", False: "missing"}
        stuck = {
            n: f"reply {said[m in self.replies]}, idle {said[m in self.idle]}"
            for n, m in enumerate(pending)
            if not (m in self.replies and m in self.idle)
        }
        before = len(self.errors)
        self.kernel.interrupt_kernel()
        until = time.monotonic() + 10
        while time.monotonic() < until and len(self.errors) == before:
            self._read_once()
        where = self.errors[-1] if len(self.errors) > before else "(no traceback came)"
        where = re.sub(r"\x1b\[[0-9;]*m", "", where)  # the terminal's colours
        pytest.fail(
            f"{name}: cells {stuck} did not finish within {DEADLINE} s (of {len(pending)}); "
            f"{self.cells_idle} idle statuses for cells; "
            f"{self.pickers_seen} picker(s) opened, {len(self._to_click)} never shown; "
            f"interrupted, the kernel was at:\n{where}"
        )

    def _on_shell(self, msg: Msg) -> None:
        if msg["msg_type"] == "execute_reply":
            self.replies[msg["parent_header"]["msg_id"]] = msg

    def _on_iopub(self, msg: Msg) -> None:
        kind, content = msg["msg_type"], msg["content"]
        if kind == "status" and content["execution_state"] == "idle":
            self.idle.add(msg["parent_header"].get("msg_id", ""))
            self.cells_idle += msg["parent_header"].get("msg_type") == "execute_request"
        elif kind == "error":
            self.errors.append("\n".join(content["traceback"]))
        elif kind in ("display_data", "execute_result"):
            view = content["data"].get("application/vnd.jupyter.widget-view+json")
            if view:
                self._displayed.add(view["model_id"])
        elif kind == "comm_open":
            self._on_open(content["comm_id"], content["data"].get("state", {}))
        elif kind == "comm_msg":
            data = content["data"]
            state = data.get("state", {}) if data.get("method") == "update" else {}
            if content["comm_id"] in self._pickers and state.get("interrupts"):
                # A chat reuses one picker: each new set of questions is the next turn.
                self._ask(content["comm_id"], state["interrupts"])
            if data.get("method") == "update" and "picker" in data.get("state", {}):
                picker = data["state"]["picker"] or ""
                self._chat_picker[content["comm_id"]] = picker.removeprefix("IPY_MODEL_")
            reply = data.get("content") if data.get("method") == "custom" else None
            if isinstance(reply, dict) and reply.get("type") == "answer_result":
                self.verdicts[reply["requestId"]] = reply
        self._click_what_is_shown()

    def _on_open(self, comm_id: str, state: dict[str, Any]) -> None:
        if str(state.get("_anywidget_id", "")).startswith("interrupt_widget."):
            # JupyterLab creates the model as the comm opens, shown or not, and the bundle's
            # `initialize` says so; else a wait would count as unattended (UnattendedWait).
            self._send(comm_id, {"type": "attached"})
        if state.get("kind") == "chat":
            self._chat_picker[comm_id] = (state.get("picker") or "").removeprefix("IPY_MODEL_")
        if state.get("kind") != "picker":
            return
        self._pickers.add(comm_id)
        if state.get("interrupts"):  # a chat's picker opens empty and asks later
            self._ask(comm_id, state["interrupts"])

    def _ask(self, comm_id: str, interrupts: list[dict[str, Any]]) -> None:
        turn = self.pickers_seen
        self.pickers_seen += 1
        answers = self.clicks[turn] if turn < len(self.clicks) else None
        if answers is not None:
            self._to_click.append((comm_id, turn, interrupts, answers))

    def _shown(self, picker_id: str) -> bool:
        return picker_id in self._displayed or any(
            chat in self._displayed and shown == picker_id
            for chat, shown in self._chat_picker.items()
        )

    def _click_what_is_shown(self) -> None:
        waiting = []
        for comm_id, turn, interrupts, answers in self._to_click:
            if not self._shown(comm_id):
                waiting.append((comm_id, turn, interrupts, answers))
                continue
            for number, interrupt in enumerate(interrupts):
                tool = interrupt.get("metadata", {}).get("tool_name", interrupt["reason"])
                self._click(comm_id, f"click-{turn}-{number}", interrupt["id"], answers[tool])
        self._to_click = waiting

    def _click(self, comm_id: str, request_id: str, interrupt_id: str, payload: Payload) -> None:
        answer = {
            "type": "answer",
            "requestId": request_id,
            "interruptId": interrupt_id,
            "status": "resolved",
            "payload": payload,
        }
        self._send(comm_id, answer)

    def _send(self, comm_id: str, content: dict[str, Any]) -> None:
        """A custom message from the front end (`model.send(content)`)."""
        data = {"method": "custom", "content": content}
        self.client.shell_channel.send(
            self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        )

    def evaluate(self, expression: str) -> Any:
        reply = self.client.execute_interactive(
            f"import json as _json\nprint(_json.dumps({expression}))",
            timeout=30,
            output_hook=self._collect,
        )
        assert reply["content"]["status"] == "ok", reply["content"]
        return json.loads(self._printed.pop().strip())

    def _collect(self, msg: Msg) -> None:
        if msg["msg_type"] == "stream":
            self._printed.append(msg["content"]["text"])


@pytest.mark.parametrize("path", notebook_paths(), ids=lambda p: p.name)
def test_run_all_with_a_person_clicking(path: Path, kernel: KernelManager) -> None:
    cells = [source(c) for c in load(path)["cells"] if c["cell_type"] == "code"]
    person = Person(kernel, CLICKS[path.name])
    try:
        person.run_all(cells, name=path.name)
        for expression, expected in AFTERWARDS.get(path.name, {}).items():
            assert person.evaluate(expression) == expected, f"{path.name}: {expression}"
    finally:
        person.client.stop_channels()
