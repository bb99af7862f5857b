"""Webhooks: a message per question waiting, escalated and about to lapse, each once, shaped
for Slack and plain JSON alike, with a link that names the question and no arguments of a
sensitive tool; delivery retried, and a receiver that is down costs a run nothing."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from webhook_receiver import Receiver

from interrupt_widget.lab import webhooks
from interrupt_widget.lab.board import Board, Owner
from interrupt_widget.lab.server_questions import ServerQuestions
from interrupt_widget.lab.webhooks import NOBODY, Webhooks

OWNER = Owner("k1", "kernel k1", "pay.ipynb", "lab-a")


def item(question: str, tool: str, *, escalated: bool = False, due: float | None = None) -> Any:
    metadata: dict[str, Any] = {
        "tool_name": tool,
        "tool_input": {"amount": 5000.0, "to": "<b>Bob</b>"},
    }
    if escalated:
        metadata["approvals"] = {"needed": 1, "escalated": True, "escalated_to": ["cfo"]}
    expires = None
    if due is not None:
        expires = (datetime.now(UTC) + timedelta(seconds=due)).isoformat()
    interrupt = {"id": question, "reason": "tool_call", "metadata": metadata}
    return (
        {"id": question, "tool": tool, "interrupt": interrupt, "expiresAt": expires},
        None,
        "carl",
    )


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    found = Receiver()
    yield found
    found.close()


async def test_each_event_is_told_once_with_a_link_and_no_sensitive_arguments(
    receiver: Receiver, tmp_path: Path
) -> None:
    board = Board(tmp_path / "board.sqlite")
    board.post(
        OWNER,
        {
            "k1/a/1": item("k1/a/1", "send_money"),
            "k1/b/2": item("k1/b/2", "wire_funds", escalated=True),
            "k1/c/3": item("k1/c/3", "send_money", due=30),
        },
        [],
    )
    listing = ServerQuestions(board, "lab-a", lambda: ("k1",))
    hooks = Webhooks(listing, [receiver.url], "http://127.0.0.1:8888/", sensitive={"wire_funds"})
    posted = (await listing.listing_for(NOBODY))["items"]
    told = hooks.notices(posted, time.time())
    assert sorted((n.event, n.item["id"]) for n in told) == [
        ("escalated", "k1/b/2"),
        ("lapsing", "k1/c/3"),
        ("waiting", "k1/a/1"),
        ("waiting", "k1/b/2"),
        ("waiting", "k1/c/3"),
    ]
    assert hooks.notices(posted, time.time()) == []  # each once
    for notice in told:
        hooks.send(notice)
    bodies = await asyncio.to_thread(receiver.wait_for, 5)
    by_event = {
        (b["interruptWidget"]["event"], b["interruptWidget"]["question"]): b for b in bodies
    }
    plain = by_event[("waiting", "k1/a/1")]
    assert plain["interruptWidget"]["arguments"] == {"amount": 5000, "to": "<b>Bob</b>"}
    assert plain["interruptWidget"]["link"] == (
        "http://127.0.0.1:8888/interrupt-widget/open?question=k1%2Fa%2F1"
    )
    assert plain["text"].startswith("send_money waits for an answer in pay.ipynb")
    section = plain["blocks"][0]["text"]["text"]
    assert "&lt;b&gt;Bob&lt;/b&gt;" in section  # Slack shows the text as it is, never as markup
    # The arguments as the question and the sidebar say them: 5000, not Python's 5000.0.
    assert section.endswith('\namount=5000, to="&lt;b&gt;Bob&lt;/b&gt;"')
    assert plain["blocks"][1]["elements"][0]["url"] == plain["interruptWidget"]["link"]
    secret = by_event[("escalated", "k1/b/2")]
    assert secret["interruptWidget"]["arguments"] is None
    assert "Bob" not in str(secret)
    assert by_event[("lapsing", "k1/c/3")]["text"].startswith("send_money is about to lapse")


async def test_a_failing_receiver_is_retried_and_one_that_is_down_is_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(webhooks, "FIRST_BACKOFF", 0.01)
    board = Board(tmp_path / "board.sqlite")
    board.post(OWNER, {"k1/a/1": item("k1/a/1", "send_money")}, [])
    flaky = Receiver(failures=2)
    try:
        down = "http://127.0.0.1:9/nobody-listens"
        listing = ServerQuestions(board, "lab-a", lambda: ("k1",))
        hooks = Webhooks(listing, [flaky.url, down], "http://127.0.0.1:8888/")
        items = (await listing.listing_for(NOBODY))["items"]
        with caplog.at_level(logging.WARNING, logger=webhooks.__name__):
            for notice in hooks.notices(items, time.time()):
                hooks.send(notice)
            # Sending never waits for a receiver: it returned before any request was made.
            assert flaky.arrivals == []
            await hooks.delivered()
            bodies = flaky.wait_for(1)
    finally:
        flaky.close()
    assert bodies[0]["interruptWidget"]["event"] == "waiting"
    said = [r.getMessage() for r in caplog.records]
    gave_up = "webhook http://127.0.0.1:9 (its path left out): the waiting message for k1/a/1"
    assert any(m.startswith(f"{gave_up} failed 5 times") for m in said)
    # A webhook's path is its secret (Slack's carry the token there): never in the log.
    assert not any("nobody-listens" in m for m in said)


async def test_a_question_that_left_the_list_is_forgotten_and_told_again_when_asked_again(
    tmp_path: Path,
) -> None:
    board = Board(tmp_path / "board.sqlite")
    listing = ServerQuestions(board, "lab-a", lambda: ("k1",))
    hooks = Webhooks(listing, [], "http://127.0.0.1:8888/")
    posted: set[str] = set()

    async def told_now(*questions: str) -> list[tuple[str, str]]:
        """What is told once the kernel lists `questions` alone."""
        gone = sorted(posted - set(questions))
        board.post(OWNER, {q: item(q, "send_money") for q in questions}, gone)
        posted.clear()
        posted.update(questions)
        items = (await listing.listing_for(NOBODY))["items"]
        return sorted((n.event, n.item["id"]) for n in hooks.notices(items, time.time()))

    assert await told_now("k1/a/1", "k1/b/2") == [("waiting", "k1/a/1"), ("waiting", "k1/b/2")]
    assert await told_now("k1/a/1") == []  # still listed: told once
    assert await told_now() == []  # both answered
    assert await told_now("k1/a/1") == [("waiting", "k1/a/1")]  # asked again: a new wait
    # A day of questions coming and going keeps no more than the list in memory.
    for n in range(300):
        await told_now(f"k1/day/{n}")
    assert await told_now("k1/day/299") == []
    assert await told_now("k1/day/0") == [("waiting", "k1/day/0")]


async def test_a_receiver_gets_at_most_two_messages_at_once_the_rest_wait_their_turn(
    tmp_path: Path,
) -> None:
    slow = Receiver(delay=0.1)
    try:
        board = Board(tmp_path / "board.sqlite")
        board.post(OWNER, {f"k1/t/{n}": item(f"k1/t/{n}", "send_money") for n in range(8)}, [])
        listing = ServerQuestions(board, "lab-a", lambda: ("k1",))
        hooks = Webhooks(listing, [slow.url], "http://127.0.0.1:8888/")
        for notice in hooks.notices((await listing.listing_for(NOBODY))["items"], time.time()):
            hooks.send(notice)
        await hooks.delivered()
        assert len(slow.wait_for(8)) == 8
    finally:
        slow.close()
    assert slow.most_at_once == webhooks.AT_ONCE == 2


async def test_a_receiver_that_answers_429_is_tried_again_after_the_wait_it_asks_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webhooks, "FIRST_BACKOFF", 0.01)
    busy = Receiver(failures=1, status=429, retry_after="1")
    try:
        board = Board(tmp_path / "board.sqlite")
        board.post(OWNER, {"k1/a/1": item("k1/a/1", "send_money")}, [])
        listing = ServerQuestions(board, "lab-a", lambda: ("k1",))
        hooks = Webhooks(listing, [busy.url], "http://127.0.0.1:8888/")
        [notice] = hooks.notices((await listing.listing_for(NOBODY))["items"], time.time())
        hooks.send(notice)
        await hooks.delivered()
        [body] = busy.wait_for(1)
    finally:
        busy.close()
    assert body["interruptWidget"]["question"] == "k1/a/1"
    first, second = busy.arrivals
    assert second - first >= 1.0  # the receiver's wait, not the 0.01 s backoff


class Looks:
    """Counts the looks the webhooks take at `listing`, so a test waits for looks, not time."""

    def __init__(self, listing: ServerQuestions, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self._changed = asyncio.Condition()
        real = listing.listing_for

        async def counted(who: Any) -> Any:
            found = await real(who)
            async with self._changed:
                self.count += 1
                self._changed.notify_all()
            return found

        monkeypatch.setattr(listing, "listing_for", counted)

    async def more(self, looks: int) -> None:
        """Wait until `looks` more looks than so far have been taken."""
        target = self.count + looks
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: self.count >= target), 30)


async def test_many_questions_with_the_same_news_are_told_in_one_message_a_few_one_by_one(
    receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    board = Board(tmp_path / "board.sqlite")
    rows = {
        f"k1/row/{n}": item(f"k1/row/{n}", "send_money" if n < 6 else "wire_funds")
        for n in range(9)
    }
    board.post(OWNER, {**rows, "k1/x/1": item("k1/x/1", "send_money", escalated=True)}, [])
    listing = ServerQuestions(board, "lab-a", lambda: ("k1",))
    looks = Looks(listing, monkeypatch)
    hooks = Webhooks(
        listing, [receiver.url], "http://127.0.0.1:8888/", sensitive={"wire_funds"}, tick=0.05
    )
    watching = asyncio.ensure_future(hooks.run())
    try:
        bodies = await asyncio.to_thread(receiver.wait_for, 2)
        await looks.more(3)  # three more looks at the board: nothing is told twice
        await hooks.delivered()
        assert len(receiver.bodies) == 2
    finally:
        watching.cancel()
    facts = [b["interruptWidget"] for b in bodies]
    [digest] = [f for f in facts if "questions" in f]
    assert digest["event"] == "waiting"
    assert sorted(digest["questions"]) == sorted([*rows, "k1/x/1"])
    assert digest["link"] == "http://127.0.0.1:8888/interrupt-widget/open"
    [body] = [b for b in bodies if "questions" in b["interruptWidget"]]
    assert body["text"] == (
        "10 questions wait for an answer in pay.ipynb: http://127.0.0.1:8888/interrupt-widget/open"
    )
    assert "send_money ×7, wire_funds ×3" in body["blocks"][0]["text"]["text"]
    assert "Bob" not in str(body)  # a digest shows no arguments, sensitive or not
    one_by_one = sorted((f["event"], f["question"]) for f in facts if "question" in f)
    assert one_by_one == [("escalated", "k1/x/1")]


def test_a_huge_call_is_told_in_one_short_line_and_its_arguments_whole() -> None:
    # Slack refuses a section longer than 3,000 characters, so a call with a megabyte of
    # arguments would never be told: the message says them as the sidebar's row does, cut,
    # and the JSON beside it carries them whole for a receiver that reads them.
    hooks = Webhooks(
        ServerQuestions(Board(":memory:"), "lab-a", tuple), [], "http://127.0.0.1:8888/"
    )
    arguments = {"amount": 5000.0, "memo": "x" * 1_000_000}
    posted = {
        "id": "k1/a/1",
        "tool": "send_money",
        "where": {"label": "pay.ipynb"},
        "interrupt": {"id": "a", "metadata": {"tool_input": arguments}},
    }
    message = hooks.message(webhooks.Notice("waiting", posted))
    section = message["blocks"][0]["text"]["text"]
    assert len(section) < 3000
    assert section.endswith("…")
    assert section.split("\n")[1].startswith('amount=5000, memo="xxx')
    assert message["interruptWidget"]["arguments"] == arguments
