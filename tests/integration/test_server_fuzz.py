"""Every endpoint of `/openapi.json`, fuzzed by schemathesis (bounded, on loopback, as one API
key, scripted models): no input may produce a 5xx."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from dure.llm import ModelSet
from dure.server import create_app
from dure.server.database import open_storage
from dure.server.keys import create_key
from dure.settings import Settings
from dure.testing import ScriptedChatModel
from server_support import live_server, server_settings

KEY: dict[str, str] = {}
CALLS: list[int] = []


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[schemathesis.BaseSchema]:
    data = tmp_path_factory.mktemp("fuzz")
    base = Settings(data_dir=data, enable_cache=False, search={"store": "memory"})
    served = server_settings(base, rate_limit_per_minute=0, failed_keys_per_minute=0)

    async def key() -> str:
        async with open_storage(served.effective_database_url) as storage:
            return (await create_key(storage.db, "fuzz"))[1]

    KEY["Authorization"] = f"Bearer {asyncio.run(key())}"
    models = ModelSet(served, ScriptedChatModel(lambda call: "네."))
    with live_server(create_app(served, models=models)) as url:
        yield schemathesis.openapi.from_url(f"{url}/openapi.json")


def test_no_input_makes_a_server_error(api: schemathesis.BaseSchema) -> None:
    """Each operation gets up to 25 valid and 25 invalid generated requests (derandomized: the
    same ones every run)."""
    failures: list[str] = []
    operations = [result.ok() for result in api.get_all_operations()]
    assert len(operations) >= 15

    for operation, mode in itertools.product(operations, list(GenerationMode)):

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=25,
            deadline=None,
            derandomize=True,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def check(case: schemathesis.Case) -> None:
            response = case.call(headers=KEY, timeout=30)
            CALLS.append(response.status_code)
            assert response.status_code < 500, (
                f"{case.method} {case.formatted_path} → {response.status_code}: "
                f"{response.text[:300]}"
            )

        try:
            check()
        except Unsatisfiable:  # no invalid input exists (an operation without parameters)
            assert mode is GenerationMode.NEGATIVE
        except AssertionError as e:
            failures.append(str(e).splitlines()[0])
    assert failures == []
    assert len(CALLS) >= 10 * len(operations) and 422 in CALLS  # it did reach every operation
