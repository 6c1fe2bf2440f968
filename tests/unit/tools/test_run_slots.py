"""The process-wide cap on sandbox runs: first come, first served; a bounded wait; a waiter
cancelled or timed out never keeps a slot."""

from __future__ import annotations

import asyncio

from dure.tools._run_slots import RunSlots


async def test_within_the_limit_no_one_waits() -> None:
    slots = RunSlots()
    assert await slots.acquire(2, wait=0) and await slots.acquire(2, wait=0)
    assert not await slots.acquire(2, wait=0.05)
    assert slots.running == 2
    slots.release()
    assert await slots.acquire(2, wait=0)


async def test_waiters_are_served_in_order() -> None:
    slots = RunSlots()
    assert await slots.acquire(1, wait=0)
    served: list[int] = []

    async def wait_turn(i: int) -> None:
        assert await slots.acquire(1, wait=5)
        served.append(i)
        await asyncio.sleep(0.01)
        slots.release()

    waiting = [asyncio.ensure_future(wait_turn(i)) for i in range(4)]
    await asyncio.sleep(0.05)
    slots.release()
    await asyncio.gather(*waiting)
    assert served == [0, 1, 2, 3]
    assert slots.running == 0


async def test_a_cancelled_waiter_gives_its_place_away() -> None:
    slots = RunSlots()
    assert await slots.acquire(1, wait=0)
    first = asyncio.ensure_future(slots.acquire(1, wait=5))
    second = asyncio.ensure_future(slots.acquire(1, wait=5))
    await asyncio.sleep(0.01)
    slots.release()  # handed to `first`, which is cancelled before it runs
    first.cancel()
    assert await second
    assert slots.running == 1


async def test_a_timed_out_waiter_leaves_the_line() -> None:
    slots = RunSlots()
    assert await slots.acquire(1, wait=0)
    assert not await slots.acquire(1, wait=0.05)
    slots.release()
    assert slots.running == 0
    assert await slots.acquire(1, wait=0)
