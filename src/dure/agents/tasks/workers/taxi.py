"""The third task's worker (the schema is `intents.TAXI`): how many taxis, from where, when.

No dispatch service is connected, so it calls nothing and says so; what it prepares is what a
taxi app needs (four passengers a car).
"""

from __future__ import annotations

from dure.agents.tasks import prompts
from dure.agents.tasks.schema import display_value
from dure.agents.tasks.workers.base import WorkerInput, WorkerResult, register_worker

SEATS = 4


@register_worker("taxi_agent", "택시 호출 준비")
async def prepare_taxi(inp: WorkerInput) -> WorkerResult:
    """Cars for the party (four seats each), pickup place and time."""
    slots = inp.conversation.slots
    party = int(slots["party_size"])
    cars = -(-party // SEATS)
    split = " + ".join(f"{min(SEATS, party - i * SEATS)}명" for i in range(cars))
    when = display_value("datetime", slots["datetime"])
    return WorkerResult(
        summary=f"택시 {cars}대 ({split}): {when}, {slots['pickup']}에서 출발",
        data={"cars": cars, "pickup": slots["pickup"], "datetime": slots["datetime"]},
        notices=[prompts.TAXI_NOT_CONNECTED],
    )
