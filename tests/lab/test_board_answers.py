"""The board between kernels and the server: a question posted by a kernel's desk is listed
for each person as its rules let them answer, and an answer given there runs through the
kernel's one answer path, once, as the signed-in person, or is refused with nothing changed.

No JupyterLab here: the desk and the server's questions meet on a real board file, and
the chat, its picker and the ledger are the real ones (the tool's own file counts runs).
"""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from interrupt_widget import AgentChat, Policy, as_identity, require
from interrupt_widget.identity import Identity
from interrupt_widget.lab.board import Board, Owner
from interrupt_widget.lab.kernel_desk import KernelDesk
from interrupt_widget.lab.server_questions import CLOSED_NOTE, ServerQuestions
from interrupt_widget.testing import CommRecorder, until
from payment_agents import payment_agent, runs_in

PAY = "send_money amount=5000 to=Bob"
FOUR_EYES = Policy(require("send_money", approvals=2, when=lambda a: a["amount"] > 1000))
ANN, BOB, CARL = Identity("ann"), Identity("bob"), Identity("carl")
RAN = {"tool": "send_money", "amount": 5000.0, "to": "Bob"}


class Desk:
    """A kernel's desk that keeps ticking while a test awaits answers."""

    def __init__(self, board: Board, server: str = "lab-a") -> None:
        self.desk = KernelDesk(board, Owner("k1", "kernel k1", "pay.ipynb", server))
        self.task: asyncio.Task[None] | None = None

    async def ticking(self) -> None:
        while True:
            await self.desk.tick()
            await asyncio.sleep(0.02)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self.ticking())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


@pytest.fixture
def board(tmp_path: Path) -> Board:
    return Board(tmp_path / "board.sqlite")


def questions(board: Board, server: str = "lab-a", running: tuple[str, ...] = ("k1",)) -> Any:
    return ServerQuestions(board, server, lambda: running, answer_timeout=2.0)


async def waiting_chat(tmp_path: Path, policy: Policy | None = None) -> tuple[AgentChat, Any]:
    chat = AgentChat(payment_agent(tmp_path / "runs.jsonl"), policy=policy)
    with as_identity("carl"):
        handle = chat.send(PAY)
    await until(chat, lambda: chat.status == "waiting")
    return chat, handle


async def posted(board: Board, tmp_path: Path) -> tuple[AgentChat, Any, Desk]:
    """A chat waiting on its question, and its kernel's desk having posted it once."""
    chat, handle = await waiting_chat(tmp_path)
    desk = Desk(board)
    desk.desk.adopt(chat, None)
    await desk.desk.tick()
    return chat, handle, desk


def queued_answers(board: Board) -> list[Any]:
    """The answers queued for kernel k1, once there are some (the board is a file: looked at)."""
    while not (found := board.queued_for("k1")):
        time.sleep(0.01)
    return found


async def test_a_question_is_listed_and_an_answer_from_the_board_runs_it_once(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat, handle = await waiting_chat(tmp_path)
    desk = Desk(board)
    desk.desk.adopt(chat, "cell-7")
    await desk.desk.tick()
    listing = await questions(board).listing_for(ANN)
    [item] = listing["items"]
    assert item["tool"] == "send_money"
    # The row says the arguments as its question does: 5000, not Python's 5000.0.
    assert item["args"] == 'amount=5000, to="Bob"'
    assert item["interrupt"]["message"] == f"Allow send_money to run with {item['args']}?"
    assert item["where"] == {
        "label": "pay.ipynb",
        "path": "pay.ipynb",
        "cellId": "cell-7",
        "state": "running",
        "source": "kernel",
        "note": "",
    }
    assert item["mayAnswer"] is True
    assert listing["me"] == {"name": "ann", "roles": []}

    desk.start()
    try:
        [verdict] = await questions(board).answer(ANN, [item["id"]], "resolved", {"approved": True})
        assert (verdict.ok, verdict.verdict, verdict.error) == (True, "approved", "")
        await handle
        await desk.desk.tick()  # the desk's next post: the board no longer lists it
        again = await questions(board).answer(ANN, [item["id"]], "resolved", {"approved": True})
        assert not again[0].ok
        assert "unknown question" in again[0].error
    finally:
        desk.stop()
    assert runs_in(tmp_path / "runs.jsonl") == [
        {"tool": "send_money", "amount": 5000.0, "to": "Bob"}
    ]
    last = chat.decisions[-1]
    assert (last.verdict, last.identity, last.by) == ("approved", "ann", "sidebar:ann")
    await desk.desk.tick()
    assert (await questions(board).listing_for(ANN))["items"] == []


async def test_a_chat_is_listed_from_before_it_asks_until_after_it_is_answered(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat = AgentChat(payment_agent(tmp_path / "runs.jsonl"))
    desk = Desk(board)
    desk.desk.adopt(chat, None)
    await desk.desk.tick()  # nothing asked yet: nothing listed, nothing fails
    assert board.listing()[1] == []
    handle = chat.send(PAY)
    await until(chat, lambda: chat.status == "waiting")
    await desk.desk.tick()
    assert len(board.listing()[1]) == 1
    chat.picker.cancel()  # answered in the cell: it leaves the board on the next tick
    await handle
    await desk.desk.tick()
    assert board.listing()[1] == []


def test_a_notebook_named_by_its_whole_path_is_listed_relative_to_the_servers_root(
    board: Board, tmp_path: Path
) -> None:
    whole = str(tmp_path / "root" / "team" / "pay.ipynb")
    board.post(
        Owner("k1", "kernel k1", whole, "lab-a"), {"k1/r/1": ({"tool": "t"}, None, None)}, []
    )
    board.post(
        Owner("k2", "kernel k2", "/elsewhere/x.ipynb", "lab-a"), {"k2/r/1": ({}, None, None)}, []
    )
    server = ServerQuestions(board, "lab-a", lambda: ("k1", "k2"), root_dir=str(tmp_path / "root"))
    listing = asyncio.run(server.listing_for(ANN))
    assert [i["where"]["path"] for i in listing["items"]] == [
        "team/pay.ipynb",
        "/elsewhere/x.ipynb",
    ]


async def test_a_bad_answer_is_refused_before_it_reaches_the_kernel_and_nothing_runs(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat, handle, _desk = await posted(board, tmp_path)
    [item] = (await questions(board).listing_for(ANN))["items"]
    nasty: list[Any] = [
        {"approved": "yes"},
        {"approved": True, "arguments": {"amount": 1}},
        {"aproved": True},
        None,
        [],
        {"approved": True, "editedArgs": {"amount": 1}},
    ]
    for payload in nasty:
        [verdict] = await questions(board).answer(ANN, [item["id"]], "resolved", payload)
        assert not verdict.ok, payload
        assert verdict.error.startswith("send_money"), verdict.error
    assert board.queued_for("k1") == []  # none of them was even queued
    unknown = await questions(board).answer(ANN, ["k1/nope/x"], "resolved", {"approved": True})
    assert "unknown question 'k1/nope/x'" in unknown[0].error
    assert chat.status == "waiting"
    assert runs_in(tmp_path / "runs.jsonl") == []
    chat.picker.cancel()  # type: ignore[union-attr]
    await handle


async def test_an_answer_its_kernel_does_not_take_in_time_is_withdrawn_and_never_applies(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat, handle, desk = await posted(board, tmp_path)  # then the kernel is busy: no tick
    [item] = (await questions(board).listing_for(ANN))["items"]
    slow = ServerQuestions(board, "lab-a", lambda: ("k1",), answer_timeout=0.3)
    [verdict] = await slow.answer(ANN, [item["id"]], "resolved", {"approved": True})
    assert not verdict.ok
    assert "did not take the answer within 0.3 s" in verdict.error
    assert "nothing was changed" in verdict.error
    await desk.desk.tick()  # the kernel is free again: the withdrawn answer stays withdrawn
    assert chat.status == "waiting"
    assert runs_in(tmp_path / "runs.jsonl") == []
    chat.picker.cancel()  # type: ignore[union-attr]
    await handle


async def test_an_answer_its_kernel_took_without_a_verdict_is_reported_not_awaited_for_ever(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat, handle, _desk = await posted(board, tmp_path)
    [item] = (await questions(board).listing_for(ANN))["items"]
    stuck = ServerQuestions(board, "lab-a", lambda: ("k1",), verdict_timeout=0.3)
    asked = asyncio.ensure_future(stuck.answer(ANN, [item["id"]], "resolved", {"approved": True}))
    # The kernel takes the answer, then stops before its verdict (killed, restarted).
    [queued] = await asyncio.wait_for(asyncio.to_thread(queued_answers, board), 10)
    assert board.take(queued.seq)
    [verdict] = await asyncio.wait_for(asked, 10)
    assert not verdict.ok
    assert "took the answer but gave no verdict within 0.3 s" in verdict.error
    assert "look at the notebook" in verdict.error
    chat.picker.cancel()  # type: ignore[union-attr]
    await handle


async def test_a_view_that_raises_while_applying_an_answer_gives_the_person_its_error(
    recorder: CommRecorder, board: Board, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat, handle, desk = await posted(board, tmp_path)
    [item] = (await questions(board).listing_for(ANN))["items"]

    def raising(queued: Any) -> Any:
        raise RuntimeError("a listener of the view failed")

    monkeypatch.setattr(desk.desk, "apply", raising)
    desk.start()
    try:
        [verdict] = await questions(board).answer(ANN, [item["id"]], "resolved", {"approved": True})
    finally:
        desk.stop()
    assert not verdict.ok
    assert "the kernel raised while applying the answer (RuntimeError: a listener" in verdict.error
    assert runs_in(tmp_path / "runs.jsonl") == []
    chat.picker.cancel()  # type: ignore[union-attr]
    await handle


async def test_a_bulk_answer_that_fails_for_one_question_gives_each_question_its_own_verdict(
    recorder: CommRecorder, board: Board, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chats = []
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        chats.append(await waiting_chat(tmp_path / name))
    desk = Desk(board)
    for chat, _handle in chats:
        desk.desk.adopt(chat, None)
    await desk.desk.tick()
    items = (await questions(board).listing_for(ANN))["items"]
    ids = [item["id"] for item in items]
    assert len(ids) == 2
    queue = board.queue

    def failing(question: str, *rest: Any) -> int:
        if question == ids[1]:
            raise sqlite3.OperationalError("database is locked")
        return queue(question, *rest)

    monkeypatch.setattr(board, "queue", failing)
    desk.start()
    try:
        first, second = await questions(board).answer(ANN, ids, "resolved", {"approved": True})
    finally:
        desk.stop()
    assert (first.id, first.ok, first.verdict) == (ids[0], True, "approved")
    assert (second.id, second.ok) == (ids[1], False)
    assert second.error == (
        "the answer could not be delivered (OperationalError: database is locked); nothing was "
        "changed: answer again"
    )
    # The verdict says the answer was taken; its run goes on in the chat: each run ends first
    # (the one whose answer was not delivered still waits, and is cancelled).
    for chat, handle in chats:
        if chat.thread.thread_id in ids[1]:
            chat.picker.cancel()  # type: ignore[union-attr]
        await handle
    ran = [runs_in(tmp_path / name / "runs.jsonl") for name in ("a", "b")]
    assert sorted(ran, key=len) == [[], [RAN]]  # the one answered ran once, the other not


async def test_an_answer_whose_verdict_cannot_be_read_says_it_may_have_been_applied(
    recorder: CommRecorder, board: Board, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat, handle, _desk = await posted(board, tmp_path)
    [item] = (await questions(board).listing_for(ANN))["items"]

    def unreadable(seq: int) -> Any:
        raise sqlite3.DatabaseError("database disk image is malformed")

    monkeypatch.setattr(board, "outcome", unreadable)
    [verdict] = await questions(board).answer(ANN, [item["id"]], "resolved", {"approved": True})
    assert not verdict.ok
    assert verdict.error == (
        "send_money: the kernel of pay.ipynb was sent the answer, and its verdict could not be "
        "read (the questions' board failed); the answer may have been applied: look at the "
        "notebook before answering again"
    )
    assert len(board.queued_for("k1")) == 1  # queued: the kernel may yet take it
    chat.picker.cancel()  # type: ignore[union-attr]
    await handle


async def test_an_unreadable_board_gives_each_answer_and_settling_an_error_and_changes_nothing(
    board: Board, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unreadable() -> Any:
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(board, "listing", unreadable)
    said = "the answer could not be delivered (OperationalError: unable to open database file)"
    verdicts = await questions(board).answer(ANN, ["k1/t/1", "k1/t/2"], "cancelled", None)
    assert [(v.id, v.ok, v.error) for v in verdicts] == [
        (question, False, f"{said}; nothing was changed: answer again")
        for question in ("k1/t/1", "k1/t/2")
    ]
    settled = await questions(board).settle(CARL, "k1/t/1", False, None)
    assert (settled.ok, settled.error) == (False, f"{said}; nothing was changed: settle it again")
    assert board.queued_for("k1") == []


class BrokenElsewhere:
    """Questions held beside the kernels' whose answering raises (a lost connection)."""

    generation = 0

    def holds(self, question: str) -> bool:
        return question.startswith("temporal:")

    def items(self, person: Identity, now: Any) -> list[dict[str, Any]]:
        return []

    async def answer(self, person: Identity, question: str, status: str, payload: Any) -> Any:
        raise ConnectionError("the Temporal server went away")


async def test_an_answer_to_a_question_held_elsewhere_that_raises_is_told_as_maybe_taken(
    board: Board,
) -> None:
    beside = ServerQuestions(board, "lab-a", lambda: (), elsewhere=BrokenElsewhere())
    [verdict] = await beside.answer(ANN, ["temporal:t/approve-c1"], "cancelled", None)
    assert not verdict.ok
    assert verdict.error == (
        "the answer could not be delivered (ConnectionError: the Temporal server went away); "
        "it may have been taken: look at the question"
    )


async def test_a_call_in_doubt_is_settled_from_the_sidebar_only_by_whom_its_rules_let_answer(
    board: Board,
) -> None:
    rules = {"needed": 1, "roles": ["treasury"], "given": []}
    metadata = {"tool_name": "send_money", "tool_input": {"amount": 5}, "approvals": rules}
    interrupt = {"id": "approve-c1", "reason": "tool_call", "metadata": metadata}
    question = {"id": "k1/t/approve-c1", "tool": "send_money", "interrupt": interrupt}
    board.post(
        Owner("k1", "kernel k1", "pay.ipynb", "lab-a"), {question["id"]: (question, None, None)}, []
    )
    verdict = await questions(board).settle(CARL, question["id"], False, None)
    assert not verdict.ok
    assert "carl (no roles) may not answer this call: it needs treasury" in verdict.error
    assert board.queued_for("k1") == []  # refused on the server: nothing reached the kernel


async def test_a_closed_notebook_stays_listed_as_such_and_its_answers_are_refused(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat, handle, _desk = await posted(board, tmp_path)
    stopped = questions(board, running=())  # the server runs no kernel k1 any more
    [item] = (await stopped.listing_for(ANN))["items"]
    assert (item["where"]["state"], item["where"]["note"]) == ("closed", CLOSED_NOTE)
    assert item["mayAnswer"] is False
    [verdict] = await stopped.answer(ANN, [item["id"]], "resolved", {"approved": True})
    assert not verdict.ok
    assert CLOSED_NOTE in verdict.error
    assert board.queued_for("k1") == []
    chat.picker.cancel()  # type: ignore[union-attr]
    await handle


async def test_a_kernel_closed_for_long_or_shutting_down_takes_its_questions_off_the_list(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat, handle, desk = await posted(board, tmp_path)
    kept = ServerQuestions(board, "lab-a", lambda: (), closed_kept=3600)
    assert len((await kept.listing_for(ANN))["items"]) == 1  # died a moment ago: listed
    forgetting = ServerQuestions(board, "lab-a", lambda: (), closed_kept=0)
    rev = board.rev()
    assert (await forgetting.listing_for(ANN))["items"] == []
    assert board.listing() == (rev + 1, [])  # off the board, and the sidebars told
    await desk.desk.tick()  # no heartbeat due yet: nothing posted again
    assert (await questions(board).listing_for(ANN))["items"] == []
    desk.desk.heartbeat = 0  # alive after all (a long cell ended): its heartbeat lists it again
    await desk.desk.tick()
    assert len((await questions(board).listing_for(ANN))["items"]) == 1
    rev = board.rev()
    await desk.desk.tick()  # posted again as it was: no sidebar is woken for nothing
    assert board.rev() == rev
    desk.desk.leave()  # what a kernel shutting down does at exit
    assert (await questions(board).listing_for(ANN))["items"] == []
    chat.picker.cancel()  # type: ignore[union-attr]
    await handle


async def test_four_eyes_across_two_servers_sharing_one_board(
    recorder: CommRecorder, board: Board, tmp_path: Path
) -> None:
    chat, handle = await waiting_chat(tmp_path, FOUR_EYES)
    desk = Desk(board, server="lab-a")
    desk.desk.adopt(chat, None)
    await desk.desk.tick()
    ann_server = questions(board, "lab-a")
    bob_server = questions(board, "lab-b", running=())  # bob's server runs none of ann's kernels
    [for_carl] = (await ann_server.listing_for(CARL))["items"]
    assert for_carl["mayAnswer"] is False  # carl started the run: no self-approval
    [for_bob] = (await bob_server.listing_for(BOB))["items"]
    assert (for_bob["mayAnswer"], for_bob["where"]["state"]) == (True, "remote")
    assert for_bob["where"]["path"] is None  # another server's notebook cannot be opened here
    desk.start()
    try:
        [refused] = await ann_server.answer(CARL, [for_carl["id"]], "resolved", {"approved": True})
        assert not refused.ok
        assert "carl started this run" in refused.error
        [first] = await ann_server.answer(ANN, [for_carl["id"]], "resolved", {"approved": True})
        assert first.ok, first.error

        async def asked_again() -> dict[str, Any]:
            while True:
                items = (await bob_server.listing_for(ANN))["items"]
                if items and items[0]["interrupt"]["metadata"]["approvals"]["given"]:
                    return items[0]
                await asyncio.sleep(0.02)

        second_round = await asyncio.wait_for(asked_again(), 10)
        assert second_round["mayAnswer"] is False  # ann already approved
        twice = await bob_server.answer(ANN, [second_round["id"]], "resolved", {"approved": True})
        assert not twice[0].ok
        assert "ann already approved" in twice[0].error
        assert runs_in(tmp_path / "runs.jsonl") == []
        done = await bob_server.answer(BOB, [second_round["id"]], "resolved", {"approved": True})
        assert done[0].ok, done[0].error
        await handle
    finally:
        desk.stop()
    assert runs_in(tmp_path / "runs.jsonl") == [
        {"tool": "send_money", "amount": 5000.0, "to": "Bob"}
    ]
    assert chat.decisions[-1].approvers == ["ann", "bob"]


def test_an_answer_from_the_sidebar_reads_as_the_person_in_the_sidebar() -> None:
    from interrupt_widget.decisions import answerer_words

    assert answerer_words("sidebar:ann") == "by ann in the sidebar"
    assert answerer_words("responder:approve_all") == "by responder approve_all"
