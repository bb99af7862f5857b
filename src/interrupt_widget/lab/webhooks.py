"""Telling people outside Jupyter: a JSON message to each webhook when a question starts
waiting, is escalated, or is about to lapse.

The message is shaped for Slack's incoming webhooks (`text` plus `blocks`, which
Slack shows as they are) and carries the same facts as plain JSON under
`interruptWidget` for any other receiver. Its link opens the question in JupyterLab
after the usual sign-in: it names the question and grants nothing. A tool listed
as sensitive never has its arguments in a message.

More than `ONE_BY_ONE` questions with the same news at once (a batch asking its rows)
are told in one message: how many, their tools and notebooks, a link to the list.

Delivery never blocks a run (it happens in the server, apart from every kernel),
is retried with backoff (or after the wait a receiver's 429 asks for), at most
`AT_ONCE` messages in flight per receiver, and a failure is written to the server's log.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol
from urllib.parse import quote, urlsplit

from interrupt_widget.agui.interrupts import arguments_line
from interrupt_widget.clock import parse_instant
from interrupt_widget.identity import Identity

Item = dict[str, Any]
"""A question as the sidebar lists it (the inbox's wire item, with `where` and `askedBy`)."""


class Listing(Protocol):
    """Where the questions come from: the server's list (`ServerQuestions`)."""

    async def listing_for(self, person: Identity) -> dict[str, Any]: ...


NOBODY: Final = Identity("webhooks")
"""Whom the list is read for: a message goes to whoever the receiver is, so no person's view."""

Event = Literal["waiting", "escalated", "lapsing"]

LAPSING_BEFORE: Final = 60.0
"""Seconds before its deadline at which a question counts as about to lapse."""
RETRIES: Final = 5
"""Tries of one message before it is given up (and logged)."""
FIRST_BACKOFF: Final = 0.5
"""Seconds before the second try; each further wait doubles."""
AT_ONCE: Final = 2
"""Messages in flight to one receiver at a time; the rest wait their turn (Slack's incoming
webhooks take about one a second and answer a burst with 429)."""
LONGEST_RETRY_AFTER: Final = 60.0
"""The longest wait a receiver's `Retry-After` gets; a longer one is cut to this."""

_log = logging.getLogger(__name__)

_HEADLINES: Final[Mapping[Event, str]] = {
    "waiting": "waits for an answer",
    "escalated": "was escalated",
    "lapsing": "is about to lapse",
}
_PLURAL_HEADLINES: Final[Mapping[Event, str]] = {
    "waiting": "wait for an answer",
    "escalated": "were escalated",
    "lapsing": "are about to lapse",
}


@dataclass(frozen=True)
class Notice:
    """One thing to tell: which event, about which question."""

    event: Event
    item: Item

    @property
    def about(self) -> str:
        """What it tells of, for the log."""
        return str(self.item["id"])


@dataclass(frozen=True)
class Digest:
    """One event of many questions at once (a batch asking its rows), told in one message."""

    event: Event
    items: list[Item]

    @property
    def about(self) -> str:
        return f"{len(self.items)} questions"


ONE_BY_ONE: Final = 5
"""The most questions one look tells of an event one by one; more are told in one `Digest`."""


class Webhooks:
    """Watches the board and posts a message per event to every URL (see the module docs)."""

    def __init__(
        self,
        questions: Listing,
        urls: Iterable[str],
        server_url: str,
        *,
        sensitive: set[str] | frozenset[str] = frozenset(),
        tick: float = 1.0,
    ) -> None:
        self.questions = questions
        self.urls = list(urls)
        self.server_url = server_url.rstrip("/") + "/"
        self.sensitive = frozenset(sensitive)
        self.tick = tick
        self._told: set[tuple[Event, str]] = set()
        self._sending: set[asyncio.Task[None]] = set()
        self._turns: dict[str, asyncio.Semaphore] = {}

    async def run(self) -> None:
        """Look at the board every `tick` seconds, for ever; send what is new."""
        while True:
            try:
                listed = await self.questions.listing_for(NOBODY)
                for told in digested(self.notices(listed["items"], time.time())):
                    self.send(told)
            except Exception:  # the board unreachable for a moment: look again later
                _log.warning("webhooks: the questions could not be read", exc_info=True)
            await asyncio.sleep(self.tick)

    def notices(self, items: Iterable[Item], now: float) -> list[Notice]:
        """What to tell about `items`, the whole list at `now`, that was not told before.

        Each event once while its question stays listed: what is told of a question that
        left the list is forgotten (the set stays as small as the list), so one asked again
        is told again."""
        found: list[Notice] = []
        listed: set[str] = set()
        for item in items:
            listed.add(item["id"])
            for event in _events(item, now):
                if (event, item["id"]) not in self._told:
                    self._told.add((event, item["id"]))
                    found.append(Notice(event, item))
        self._told = {told for told in self._told if told[1] in listed}
        return found

    def send(self, notice: Notice | Digest) -> None:
        """Post `notice` to every URL in the background."""
        body = json.dumps(self.message(notice)).encode()
        for url in self.urls:
            turns = self._turns.setdefault(url, asyncio.Semaphore(AT_ONCE))
            task = asyncio.get_running_loop().create_task(_deliver(url, body, notice, turns))
            self._sending.add(task)
            task.add_done_callback(self._sending.discard)

    async def delivered(self) -> None:
        """Return once every message sent so far was delivered or given up."""
        await asyncio.gather(*self._sending)

    def link(self, question: str | None) -> str:
        """Where a person opens `question`, or the list of them all (after signing in; the
        link grants nothing)."""
        opened = f"{self.server_url}interrupt-widget/open"
        return opened if question is None else f"{opened}?question={quote(question, safe='')}"

    def message(self, notice: Notice | Digest) -> dict[str, Any]:
        """The JSON a webhook receives (see the module docs)."""
        if isinstance(notice, Digest):
            return self._digest_message(notice)
        item = notice.item
        tool = str(item.get("tool", ""))
        where = str(item.get("where", {}).get("label", ""))
        metadata = item.get("interrupt", {}).get("metadata") or {}
        arguments = None if tool in self.sensitive else metadata.get("tool_input")
        link = self.link(item["id"])
        headline = f"{tool} {_HEADLINES[notice.event]} in {where}"
        shown = "" if arguments is None else f"\n{arguments_line(arguments)}"
        return {
            "text": f"{headline}: {link}",
            "blocks": _blocks(headline + shown, link),
            "interruptWidget": {
                "event": notice.event,
                "question": item["id"],
                "tool": tool,
                "arguments": arguments,
                "where": where,
                "askedBy": item.get("askedBy"),
                "expiresAt": item.get("expiresAt"),
                "link": link,
            },
        }

    def _digest_message(self, digest: Digest) -> dict[str, Any]:
        """One message for many questions: how many, their tools and notebooks, and a link to
        the list of them all (no arguments: a digest never shows them)."""
        items = digest.items
        tools = [str(item.get("tool", "")) for item in items]
        places = [str(item.get("where", {}).get("label", "")) for item in items]
        link = self.link(None)
        where = ", ".join(dict.fromkeys(places))
        headline = f"{len(items)} questions {_PLURAL_HEADLINES[digest.event]} in {where}"
        shown = f"{headline}\n{_counted(tools)}"
        return {
            "text": f"{headline}: {link}",
            "blocks": _blocks(shown, link),
            "interruptWidget": {
                "event": digest.event,
                "questions": [item["id"] for item in items],
                "tools": tools,
                "where": places,
                "link": link,
            },
        }


def digested(notices: list[Notice]) -> list[Notice | Digest]:
    """`notices` as sent: each event of up to `ONE_BY_ONE` questions one by one, of more in
    one `Digest` (in the order the events came)."""
    by_event: dict[Event, list[Notice]] = {}
    for notice in notices:
        by_event.setdefault(notice.event, []).append(notice)
    told: list[Notice | Digest] = []
    for event, group in by_event.items():
        if len(group) > ONE_BY_ONE:
            told.append(Digest(event, [n.item for n in group]))
        else:
            told.extend(group)
    return told


def _events(item: Item, now: float) -> list[Event]:
    events: list[Event] = ["waiting"]
    metadata = item.get("interrupt", {}).get("metadata")
    approvals = metadata.get("approvals") if isinstance(metadata, Mapping) else None
    if isinstance(approvals, Mapping) and approvals.get("escalated") is True:
        events.append("escalated")
    deadline = _instant(item.get("expiresAt"))
    if deadline is not None and deadline - now <= LAPSING_BEFORE:
        events.append("lapsing")
    return events


def _instant(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        return parse_instant(text).timestamp()
    except ValueError:
        return None


def _blocks(text: str, link: str) -> list[dict[str, Any]]:
    """Slack's blocks of a message: `text` as Slack shows it literally, and a button to `link`."""
    button = {
        "type": "button",
        "text": {"type": "plain_text", "text": "Open in JupyterLab"},
        "url": link,
    }
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": _slack(text)}},
        {"type": "actions", "elements": [button]},
    ]


def _counted(names: Iterable[str]) -> str:
    """`send_money ×10, wire_funds ×2`: each name once, with how often it came."""
    counts: dict[str, int] = {}
    for name in names:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{name} ×{n}" if n > 1 else name for name, n in counts.items())


def _slack(text: str) -> str:
    """Text as Slack's mrkdwn shows it literally (its three control characters escaped)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


async def _deliver(
    url: str, body: bytes, notice: Notice | Digest, turns: asyncio.Semaphore
) -> None:
    """POST `body` to `url` in one of its `turns`, retried with backoff; a failure is logged,
    never raised."""
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError

    client = AsyncHTTPClient()
    wait = FIRST_BACKOFF
    for attempt in range(1, RETRIES + 1):
        try:
            async with turns:
                await client.fetch(
                    url,
                    method="POST",
                    body=body,
                    headers={"Content-Type": "application/json"},
                    request_timeout=10,
                )
            return
        except (HTTPClientError, OSError) as exc:
            if attempt == RETRIES:
                _log.warning(
                    "webhook %s: the %s message for %s failed %d times (%s); given up",
                    _receiver(url),
                    notice.event,
                    notice.about,
                    RETRIES,
                    exc,
                )
                return
            asked = _retry_after(exc)
            await asyncio.sleep(wait if asked is None else asked)
            wait *= 2


def _retry_after(error: Exception) -> float | None:
    """The wait a 429 (or 503) asks for in seconds (`Retry-After`), at most
    `LONGEST_RETRY_AFTER`; None when it asks none (a date is read as none)."""
    from tornado.httpclient import HTTPClientError

    if not isinstance(error, HTTPClientError) or error.code not in (429, 503):
        return None
    if error.response is None:
        return None
    try:
        seconds = float(error.response.headers.get("Retry-After", ""))
    except ValueError:
        return None
    if not seconds >= 0:  # NaN, negative
        return None
    return min(seconds, LONGEST_RETRY_AFTER)


def _receiver(url: str) -> str:
    """`url` as a log may show it: its scheme, host and port. A webhook's path and query are
    often its secret (Slack's incoming webhooks are a bearer token in the path)."""
    parts = urlsplit(url)
    host = parts.hostname or "?"
    port = f":{parts.port}" if parts.port is not None else ""
    return f"{parts.scheme}://{host}{port} (its path left out)"
