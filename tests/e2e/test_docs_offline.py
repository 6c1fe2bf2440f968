"""`/docs` renders in a real browser with no way out of the machine: Swagger UI's scripts come
from the server itself, under its content security policy."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import Route, expect, sync_playwright

from dure.server import create_app
from dure.settings import Settings
from server_support import live_server

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture
def url(settings: Settings) -> Iterator[str]:
    with live_server(create_app(settings)) as served:
        yield served


def test_docs_render_offline(url: str) -> None:
    outside: list[str] = []

    def offline(route: Route) -> None:  # the machine has no internet: nothing else answers
        if urlsplit(route.request.url).hostname == "127.0.0.1":
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    refused: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox", "--disable-gpu"]
        )
        page = browser.new_page()
        page.route("**/*", offline)
        page.on("console", lambda m: refused.append(m.text) if "Content Security" in m.text else 0)
        page.goto(f"{url}/docs")
        expect(page.locator(".swagger-ui .info .title")).to_contain_text("두레 Dure")
        expect(page.get_by_text("/v1/chat/completions", exact=True)).to_be_visible()
        browser.close()
    assert outside == [] and refused == []
