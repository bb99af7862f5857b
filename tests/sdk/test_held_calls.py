"""A claim whose run is cancelled while it is being taken is given up, never left held."""

from __future__ import annotations

import asyncio
import pathlib

from interrupt_widget import SQLiteLedger
from interrupt_widget.sdk import held_calls


async def test_a_claim_cancelled_while_taken_is_dropped_and_the_next_run_may_claim_it(
    tmp_path: pathlib.Path,
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    key = ("thread", "call-1")
    first = asyncio.ensure_future(held_calls.claim(ledger, key, answer={"approved": True}))
    await asyncio.sleep(0)  # the claim is under way in the ledger
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    # Without giving it up, this would wait for ever on a claim nobody holds any more.
    assert await asyncio.wait_for(ledger.recorded(key), timeout=10) is None
    second = await asyncio.wait_for(held_calls.claim(ledger, key, answer=None), timeout=10)
    assert isinstance(second, held_calls.Claim)
    second.ran("done")
    await second.recorded()
    found = await ledger.recorded(key)
    assert found is not None
    assert found.output == "done"
