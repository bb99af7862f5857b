"""The once-only core every call ledger shares: claim, run, record, replay.

An approved call runs at most once per key, (thread id, tool call id), never
the run id (some clients reuse a run id when they resume). `OnceOnlyLedger`
does the bookkeeping every ledger needs, in one place:

- askers in one process that want the same key share one settlement (a
  future), so only one of them claims;
- the call runs in its own task, so a cancelled asker never stops a tool
  halfway, and its output is still recorded for the next resume;
- a claim held by someone else is waited on (polling with back-off) until
  its result is recorded, its claim is dropped (the call raised: claim it
  again), or it is found in doubt (`CallInDoubt`);
- a call that raises drops its claim, so a later resume may try it again;
- a call whose run was cut off once it may have started (`MayHaveRun`: a worker
  shut down, a run cancelled mid-tool) keeps its claim, given up by this process
  (`_abandon`), so every asker, here or in another process, finds it in doubt at
  once rather than waiting for a holder that will never finish.

When the ledger's own storage fails (its hooks raise `LedgerUnavailable`
once their retries are spent), nothing runs unrecorded and nothing runs
twice: a claim that could not be taken runs nothing; a call that ran but
whose result could not be stored (or that raised and whose claim could not
be dropped) stays claimed, *in doubt*, and this ledger answers every later
ask for it with `CallInDoubt`, as for a crash, until an operator settles it.

A ledger supplies only where the record lives: `_claim` (take the key, or
say who holds it), `_look` (the same without taking it), `_store` (the
result), `_unclaim` (after a failure). `MemoryLedger` keeps it in memory,
`SQLiteLedger` in a file, `PostgresLedger` in a database.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from concurrent.futures import Future
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar, Final, Protocol, TypedDict, TypeGuard, runtime_checkable

from interrupt_widget.errors import CallInDoubt, LedgerUnavailable

Key = tuple[str, str]
"""(thread id, tool call id)."""

DEFAULT_RETENTION: Final = timedelta(days=365)
"""How long a ledger keeps a call's record after it ran, by default (see `prune`)."""


class WouldWait(Exception):
    """A hook tried on the event loop would have waited for its storage (another writer
    holds it): it did nothing, and runs on a worker thread instead."""


@dataclass(frozen=True)
class Recorded:
    """What a ledger holds for a call that ran."""

    output: str
    """The tool's output, as the model saw it."""
    answer: Any = None
    """The answer payload the call ran with (None when it is not known)."""
    at: float | None = None
    """When its result was recorded (seconds since the epoch; None when not known)."""
    by: str | None = None
    """Who gave the answer that settled it, as the audit notes say (None when not noted)."""


@dataclass(frozen=True)
class HeldByLiveRun:
    """The key is claimed by a run that is still going (here or elsewhere): wait for it."""


@dataclass(frozen=True)
class InDoubt:
    """The key is claimed by a run that ended before recording a result."""

    owner: str
    """Who held the claim (host and process), for the operator's log, not for clients."""


class MayHaveRun(Exception):
    """What a claimed call's `invoke` raises when its run was cut off after the call may have
    started and before its output came: the claim is kept, in doubt, never run again."""


class _ClaimedHere:
    """The claim succeeded: this ledger took the key and runs the call."""


CLAIMED_HERE: Final = _ClaimedHere()
"""What `_claim` returns when it took the key (the one `_ClaimedHere`)."""
Claim = Recorded | HeldByLiveRun | InDoubt | _ClaimedHere
"""What `_claim` finds: the key taken here, or what held it."""
KeyState = Recorded | HeldByLiveRun | InDoubt | None
"""What holds a key, as `_look` reads it without taking it (None: nobody claimed it)."""


@dataclass
class ClaimNote:
    """An audit note to write with the claim of `key` when the claim is this run's."""

    key: Key
    note: Any
    """The note (the answer that settles the call, `noting_ledger.Answered`)."""
    written: bool = False
    """Set by a ledger that wrote it (or tried to: notes are best effort) with the claim."""


_claim_note: ContextVar[ClaimNote | None] = ContextVar("claim_note", default=None)


@contextlib.contextmanager
def noting_claim(note: ClaimNote) -> Iterator[None]:
    """Inside, a `run_once` (or a `record_not_run`) of `note.key` started here writes `note`
    with its claim (or record), when the ledger can (one trip to its storage, in SQLite one
    commit); else `note.written` stays unset and the asker notes it after. A context, not a
    parameter, so a ledger that wraps `run_once` passes it on untouched."""
    token = _claim_note.set(note)
    try:
        yield
    finally:
        _claim_note.reset(token)


_unsynced_record: ContextVar[Key | None] = ContextVar("unsynced_record", default=None)


def record_synced(key: Key) -> bool:
    """Whether the record of `key` being written now asks for a sync of its own (the default;
    `keep_first(..., synced=False)` says not), for a ledger whose storage can skip one."""
    return _unsynced_record.get() != key


class CallLedger(Protocol):
    """Runs each approved call at most once per key, and hands its output to every asker."""

    async def run_once(
        self, key: Key, invoke: Callable[[], Awaitable[str]], *, answer: Any = None
    ) -> str:
        """`invoke()`'s output: run now if nobody claimed `key`, else the recorded output.

        `answer` (JSON) is kept beside the claim, to show later which answer ran.
        A call that raised may be tried again by a later resume; a waiter that is
        cancelled never stops a call halfway. Raises `CallInDoubt` for a call that may
        have run, and `LedgerUnavailable` when the ledger's storage fails (see the
        module docs).
        """
        ...

    async def recorded(self, key: Key) -> Recorded | None:
        """The record of `key` if it ran (waiting for a run in flight); None if never run.

        Raises `CallInDoubt` when its run ended before recording a result, and
        `LedgerUnavailable` when the record cannot be read.
        """
        ...


async def all_settled(ledger: CallLedger, keys: Sequence[Key]) -> bool:
    """Whether every one of `keys` has its record in `ledger`, or is held in doubt: settled as
    far as a resume goes (it reports the doubt and runs nothing)."""
    for key in keys:
        try:
            if await ledger.recorded(key) is None:
                return False
        except CallInDoubt:
            continue
    return True


@runtime_checkable
class RecordsNotRun(Protocol):
    """A ledger that records a call that does not run in one write (`OnceOnlyLedger`'s)."""

    async def record_not_run(self, key: Key, output: str, *, answer: Any = None) -> Recorded | None:
        """`output` as the record of `key`: None when it stands, else the record that stood
        first (see `OnceOnlyLedger.record_not_run`)."""
        ...


def records_not_run(ledger: object) -> TypeGuard[RecordsNotRun]:
    """Whether `ledger` is a `RecordsNotRun` (the check of `conforms`)."""
    return conforms(ledger, RecordsNotRun)


def conforms(value: object, protocol: type) -> bool:
    """`isinstance(value, protocol)` for a runtime-checkable protocol of methods alone, its
    yes decided once for each class.

    Python 3.11 looks every member of the protocol up again on each check (10-20 us, and a
    run makes several); a ledger's methods are its class's. A class without them is checked
    each time, as an object may still carry them as attributes of its own.
    """
    kind = type(value)
    found = _conforming.get((kind, protocol))
    if found is None:
        found = _conforming[kind, protocol] = issubclass(kind, protocol)
    return found or isinstance(value, protocol)


_conforming: dict[tuple[type, type], bool] = {}
"""`conforms`'s answers by (class, protocol)."""


@runtime_checkable
class PlacedLedger(Protocol):
    """A ledger that says where it keeps its records (`ledger_place`)."""

    @property
    def place(self) -> str:
        """Where the records are: the same text in every process that shares them, and a
        different one in a process that does not."""
        ...


def ledger_place(ledger: object) -> str:
    """Where `ledger` keeps its records, for telling processes that share a ledger from
    processes that do not: a SQLite file's resolved path and host, a PostgreSQL database's
    host, port and name (never its user or password), the memory of one process. A ledger
    that does not say (`PlacedLedger`) is named by its class."""
    if isinstance(ledger, PlacedLedger):
        return ledger.place
    kind = type(ledger)
    return f"a {kind.__module__}.{kind.__qualname__} (it does not say where it keeps its records)"


class WaitOptions(TypedDict, total=False):
    """The options of how a ledger waits for a call another run holds (the keywords of
    `OnceOnlyLedger`, see its fields)."""

    poll_interval: float
    max_poll_interval: float
    wait_timeout: float | None


class OnceOnlyLedger:
    """The shared core; subclasses supply `_claim`, `_look`, `_store` and `_unclaim`."""

    blocking: ClassVar[bool] = True
    """Whether the hooks do blocking I/O (then they run in a worker thread, unless the
    ledger takes them at once on the event loop: `_without_waiting`)."""

    def __init__(
        self,
        *,
        poll_interval: float = 0.02,
        max_poll_interval: float = 0.5,
        wait_timeout: float | None = None,
    ) -> None:
        if poll_interval <= 0 or max_poll_interval < poll_interval:
            raise ValueError("need 0 < poll_interval <= max_poll_interval")
        self.poll_interval = poll_interval
        """First pause between two looks at a call another run holds (doubles each time)."""
        self.max_poll_interval = max_poll_interval
        """The longest pause between two looks."""
        self.wait_timeout = wait_timeout
        """How long to wait for another live run's call before giving up (None: as long
        as it lives); giving up raises `CallInDoubt` and runs nothing."""
        self._lock = threading.Lock()
        # Keys being settled by this ledger, so askers in this process share one claim.
        self._settling: dict[Key, Future[str]] = {}
        # Keys this ledger claimed whose outcome it could not write (the storage failed):
        # their claim stays, and no run of this process is on them any more.
        self._abandoned: set[Key] = set()

    # -- CallLedger --------------------------------------------------------------------------

    async def run_once(
        self, key: Key, invoke: Callable[[], Awaitable[str]], *, answer: Any = None
    ) -> str:
        """`invoke()`'s output, running it only if no run claimed `key` before.

        Under `noting_claim` for `key`, a ledger that keeps audit notes writes the note with
        the claim, in the same trip to its storage, when the claim is this run's.
        """
        return await asyncio.shield(self.settlement(key, invoke, answer=answer))

    def settlement(
        self, key: Key, invoke: Callable[[], Awaitable[str]], *, answer: Any = None
    ) -> asyncio.Future[str]:
        """`run_once` begun now, as the future of its output: for an asker that goes on
        meanwhile (a claim held while the SDK runs the call) without a task to await it.

        Must be called on the event loop that awaits it.
        """
        note = _claim_note.get()
        if note is not None and note.key != key:
            note = None
        with self._lock:
            future = self._settling.get(key)
            first = future is None
            if future is None:
                future = Future()
                self._settling[key] = future
        if not first:  # another asker's settlement, maybe on another thread's loop
            return asyncio.wrap_future(future)
        # Its own task: a cancelled asker never leaves a claim half-settled. The first asker
        # waits on a future of its own loop: a thread-safe one would wake the loop through
        # its self-pipe (a write and a read) on every settled call.
        here: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        task = asyncio.ensure_future(self._settle(key, invoke, answer, note))
        task.add_done_callback(lambda t: self._finish(key, (future, here), t))
        return here

    async def recorded(self, key: Key) -> Recorded | None:
        """The record of `key` if it ran, waiting for a run in flight (see `CallLedger`)."""
        with self._lock:
            future = self._settling.get(key)
        if future is not None:
            # A failed run recorded nothing (or left a doubt the look below reports).
            with contextlib.suppress(Exception):
                await asyncio.shield(asyncio.wrap_future(future))
        try:
            found = await self._waited(key, self._look)
        except LedgerUnavailable as error:
            raise LedgerUnavailable(_unread_message(key, error), key=key) from error
        return found if isinstance(found, Recorded) else None

    async def unclaimed(self, keys: Sequence[Key]) -> bool:
        """Whether nothing holds any of `keys` (no record, no claim, none being settled here),
        read in one trip to the storage: the quick answer for records usually not there yet.

        Raises `LedgerUnavailable` when the storage cannot be read.
        """
        return all(await self.unclaimed_each(keys))

    async def unclaimed_each(self, keys: Sequence[Key]) -> list[bool]:
        """For each of `keys`, whether nothing holds it (see `unclaimed`), all read in one
        trip to the storage.

        Raises `LedgerUnavailable` when the storage cannot be read.
        """
        with self._lock:
            settling = [key in self._settling for key in keys]
        found = await self._io(self._look_all, list(keys))
        return [look is None and not held for look, held in zip(found, settling, strict=True)]

    async def keep_first(self, key: Key, output: str, *, synced: bool = True) -> str:
        """`output` as the record of `key` unless one is there (or claimed): the record that
        stands.

        For a record that runs nothing (a batch row's outcome): one write where `run_once`
        makes two (a claim, then its result), so a crash between them cannot leave it in
        doubt either. A key taken meanwhile is settled by `run_once`, which waits for it or
        replays it, and raises as it does. `synced=False`, for a record whose loss in a power
        cut costs a repeat of work that runs no tool twice: a ledger that can commits it
        without a sync of its own, and the next synced commit puts it on the disk.
        """
        token = None if synced else _unsynced_record.set(key)
        try:  # through `record_not_run`, as ever: a ledger that adds to it is not passed by
            first = await self.record_not_run(key, output)
        finally:
            if token is not None:
                _unsynced_record.reset(token)
        return output if first is None else first.output

    async def record_not_run(self, key: Key, output: str, *, answer: Any = None) -> Recorded | None:
        """`output` as the record of `key`, a call that does not run (a denial, a cancel), in
        one write: None when this record stands, else the record that stood first.

        No claim goes first, so a crash cannot leave a call that never ran in doubt. Under
        `noting_claim` for `key`, the answer's note goes with the write (in SQLite, its
        commit) when this record stands. A key taken meanwhile is settled by `run_once`,
        which waits for it or replays it, and raises as it does.
        """
        note = _claim_note.get()
        if note is not None and note.key != key:
            note = None
        with self._lock:
            settling = key in self._settling
        if not settling and await self._io(self._insert_first_noting, key, output, answer, note):
            return None
        ran = False

        async def invoke() -> str:
            nonlocal ran
            ran = True
            return output

        kept = await self.run_once(key, invoke, answer=answer)
        return None if ran else (await self.recorded(key) or Recorded(kept))

    async def check(self) -> None:
        """Raise `LedgerUnavailable` if the ledger's storage cannot be reached right now.

        One quick try, no retries: for a health check (`GET /health`).
        """
        await self._io(self._ping)

    # -- hooks -------------------------------------------------------------------------------

    def _claim(self, key: Key, answer: Any) -> Claim:
        """Take `key` (`CLAIMED_HERE`), or report what holds it."""
        raise NotImplementedError

    def _claim_noting(self, key: Key, answer: Any, note: ClaimNote | None) -> Claim:
        """`_claim`, and with a claim that is `CLAIMED_HERE` the note made under `noting_claim` (a
        ledger without notes leaves it to the asker, `note.written` unset)."""
        return self._claim(key, answer)

    def _look(self, key: Key) -> KeyState:
        """What holds `key`, without taking it."""
        raise NotImplementedError

    def _look_all(self, keys: list[Key]) -> list[KeyState]:
        """`_look` of each key (a ledger may read them together)."""
        return [self._look(key) for key in keys]

    def _store(self, key: Key, output: str) -> None:
        """Record the output of a call this ledger claimed."""
        raise NotImplementedError

    def _unclaim(self, key: Key) -> None:
        """Drop this ledger's claim on `key` (its call raised)."""
        raise NotImplementedError

    def _abandon(self, key: Key) -> None:
        """Mark this ledger's claim on `key` as held by no live run, so other processes read it
        in doubt now rather than once this one exits (a ledger of one process: nothing)."""

    def _insert_first(self, key: Key, output: str, answer: Any = None) -> bool:
        """Record `output` (and `answer`) under `key` in one write if nothing holds the key;
        True if it did.

        False when the key is held, or when the ledger has no such write (`record_not_run`
        then goes through `run_once`)."""
        return False

    def _insert_first_noting(
        self, key: Key, output: str, answer: Any, note: ClaimNote | None
    ) -> bool:
        """`_insert_first`, and when it wrote, the note made under `noting_claim` (a ledger
        without notes leaves it to the asker, `note.written` unset)."""
        return self._insert_first(key, output, answer)

    def _ping(self) -> None:
        """Reach the storage once, raising `LedgerUnavailable` if it cannot (memory: nothing)."""

    def _in_doubt_message(self, key: Key, found: InDoubt) -> str:
        return (
            f"{_the_call(key, 'Tool')} was claimed by a run that ended before recording "
            "its result: it may have run, so it is not run again. Check whether its effect "
            f"happened, then on the server's ledger call {_release_or_record(key)}."
        )

    # -- internals ---------------------------------------------------------------------------

    async def _io(self, hook: Callable[..., Any], *args: Any) -> Any:
        if not self.blocking:
            return hook(*args)
        try:
            return self._without_waiting(hook, *args)
        except WouldWait:
            return await asyncio.to_thread(hook, *args)

    def _without_waiting(self, hook: Callable[..., Any], *args: Any) -> Any:
        """`hook(*args)` on the calling thread (the event loop's) when its storage lets it
        finish without waiting; `WouldWait`, having done nothing, when it would wait (then
        it runs on a worker thread). A blocking ledger's hooks always would, by default."""
        raise WouldWait

    async def _settle(
        self, key: Key, invoke: Callable[[], Awaitable[str]], answer: Any, note: ClaimNote | None
    ) -> str:
        while True:
            try:
                found = await self._waited(key, lambda k: self._claim_noting(k, answer, note))
            except LedgerUnavailable as error:
                raise LedgerUnavailable(_unclaimed_message(key, error), key=key) from error
            if isinstance(found, Recorded):
                return found.output
            if found is CLAIMED_HERE:
                return await self._run_claimed(key, invoke)
            # None: the holder's call raised and its claim went; claim it again.

    async def _waited(self, key: Key, probe: Callable[[Key], Claim | None]) -> Claim | None:
        """`probe(key)` until it finds something other than a live holder."""
        delay = self.poll_interval
        deadline = None if self.wait_timeout is None else time.monotonic() + self.wait_timeout
        while True:
            found: Claim | None = await self._io(probe, key)
            if isinstance(found, HeldByLiveRun) and key in self._abandoned:
                found = InDoubt("this process")  # held by a claim no run here is on
            if isinstance(found, InDoubt):
                raise CallInDoubt(key, self._in_doubt_message(key, found))
            if not isinstance(found, HeldByLiveRun):
                self._abandoned.discard(key)  # settled (recorded or released) meanwhile
                return found
            if deadline is not None and time.monotonic() > deadline:
                raise CallInDoubt(key, _still_held_message(key, self.wait_timeout))
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.max_poll_interval)

    async def _run_claimed(self, key: Key, invoke: Callable[[], Awaitable[str]]) -> str:
        try:
            output = await invoke()
        except MayHaveRun as cut:
            await self._give_up(key)
            message = self._in_doubt_message(key, InDoubt("this process"))
            raise CallInDoubt(key, message) from cut
        except BaseException as failure:
            try:
                await self._io(self._unclaim, key)
            except BaseException as error:
                self._abandoned.add(key)  # it raised, maybe halfway: it stays claimed
                if isinstance(error, LedgerUnavailable) and isinstance(failure, Exception):
                    message = _undropped_message(key, failure, error)
                    raise LedgerUnavailable(message, key=key, in_doubt=True) from failure
                raise
            raise
        try:
            await self._io(self._store, key, output)
        except BaseException as error:
            self._abandoned.add(key)  # it ran: it stays claimed, never run again
            if isinstance(error, LedgerUnavailable):
                message = _unstored_message(key, error)
                raise LedgerUnavailable(message, key=key, in_doubt=True) from error
            raise
        return output

    async def _give_up(self, key: Key) -> None:
        """Leave this process's claim on `key` in doubt: no run here is on it any more."""
        self._abandoned.add(key)
        # Best effort: if the storage cannot say so now, the owner's exit says it later.
        with contextlib.suppress(Exception):
            await self._io(self._abandon, key)

    def _finish(
        self,
        key: Key,
        futures: tuple[Future[str], asyncio.Future[str]],
        task: asyncio.Task[str],
    ) -> None:
        """The settling `task`'s outcome, to the askers' `futures` (every thread's, the first
        asker's own)."""
        with self._lock:
            if self._settling.get(key) is futures[0]:
                del self._settling[key]  # the record holds the result from now on
        for future in futures:
            if future.done():  # the first asker's loop future, cancelled at shutdown
                continue
            if task.cancelled():
                message = "the tool call was cancelled before it finished"
                future.set_exception(RuntimeError(message))
            elif (error := task.exception()) is not None:
                future.set_exception(error)
            else:
                future.set_result(task.result())


def seconds(older_than: timedelta | float) -> float:
    """`older_than` in seconds (a timedelta or a number of seconds), checked positive."""
    value = older_than.total_seconds() if isinstance(older_than, timedelta) else older_than
    if value < 0:
        raise ValueError("older_than must not be negative")
    return float(value)


def _the_call(key: Key, word: str = "tool") -> str:
    thread_id, call_id = key
    return f"{word} call {call_id!r} in thread {thread_id!r}"


def _release_or_record(key: Key) -> str:
    thread_id, call_id = key
    return (
        f"release({thread_id!r}, {call_id!r}) to let the next resume run it, or "
        f"record({thread_id!r}, {call_id!r}, output) to give the next resume that output"
    )


def _unavailable(error: LedgerUnavailable, what: str) -> str:
    return f"The call ledger is unavailable ({error}): {what}"


def _still_held_message(key: Key, timeout: float | None) -> str:
    return (
        f"{_the_call(key, 'Tool')} is still running elsewhere after {timeout} s; it is "
        "not run again here. Resume again once it has finished."
    )


def _unclaimed_message(key: Key, error: LedgerUnavailable) -> str:
    return _unavailable(
        error,
        f"{_the_call(key)} could not be claimed, so it was not run. Resume again once the "
        "ledger is back.",
    )


def _unread_message(key: Key, error: LedgerUnavailable) -> str:
    return _unavailable(
        error,
        f"whether {_the_call(key)} already ran cannot be read, so nothing was run. Resume "
        "again once the ledger is back.",
    )


def _settle_hint(key: Key) -> str:
    return (
        "Once the ledger is back, check whether its effect happened, then on the server's "
        f"ledger call {_release_or_record(key)}."
    )


def _unstored_message(key: Key, error: LedgerUnavailable) -> str:
    return _unavailable(
        error,
        f"{_the_call(key)} ran, but its result could not be recorded. It is left in doubt "
        f"and is not run again. {_settle_hint(key)}",
    )


def _undropped_message(key: Key, failure: Exception, error: LedgerUnavailable) -> str:
    raised = str(failure) or type(failure).__name__
    return _unavailable(
        error,
        f"{_the_call(key)} raised ({raised}) and its claim could not be dropped. It is left "
        f"in doubt and is not run again. {_settle_hint(key)}",
    )
