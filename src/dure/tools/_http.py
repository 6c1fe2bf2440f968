"""What the HTTP tools share: one JSON request with timeouts, and Korean messages for failures.

A missing key, a wrong key, a refused connection, a timeout or a server error all end as
`ServiceError` with a sentence the agent can pass on to the user; the API key never appears
in a message (it may sit in the URL's query string).
"""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import SecretStr

USER_AGENT = "Dure/0.1 (https://github.com/dure; assistant tools)"


class ServiceError(Exception):
    """A remote service could not answer; the message is Korean, for the user."""


def api_key(configured: SecretStr | None) -> str | None:
    """The key from the settings (which also read the conventional variable), or None."""
    if configured is not None and configured.get_secret_value().strip():
        return configured.get_secret_value().strip()
    return None


def missing_key_message(service: str, env_var: str, setting: str) -> str:
    """The sentence for a tool whose API key is not configured."""
    return (
        f"{service} API 키가 설정되지 않아 이 기능을 쓸 수 없습니다. "
        f"환경 변수 {env_var} 또는 설정 {setting}에 키를 넣어 주세요."
    )


async def request_json(
    method: str,
    url: str,
    *,
    service: str,
    timeout: float,
    params: dict[str, Any] | None = None,
    json: Any = None,
    headers: dict[str, str] | None = None,
    not_found: str | None = None,
) -> Any:
    """One request; the decoded JSON body, or `ServiceError` with a Korean reason."""
    try:
        async with httpx.AsyncClient(
            timeout=timeout, headers={"User-Agent": USER_AGENT, **(headers or {})}
        ) as client:
            response = await client.request(method, url, params=params, json=json)
    except httpx.TimeoutException:
        raise ServiceError(
            f"{service}이(가) {timeout:g}초 안에 응답하지 않았습니다. 잠시 후 다시 시도해 주세요."
        ) from None
    except (httpx.TransportError, OSError):
        raise ServiceError(
            f"{service}에 연결할 수 없습니다. 네트워크 상태를 확인하거나 잠시 후 다시 시도해 주세요."
        ) from None
    status = response.status_code
    if status == 404 and not_found:
        raise ServiceError(not_found)
    if status in (401, 403):
        raise ServiceError(f"{service} API 키가 올바르지 않거나 권한이 없습니다 (HTTP {status}).")
    if status == 429:
        raise ServiceError(f"{service}의 요청 한도를 넘었습니다. 잠시 후 다시 시도해 주세요.")
    if status >= 500:
        raise ServiceError(f"{service}에 일시적인 오류가 있습니다 (HTTP {status}).")
    if status >= 400:
        raise ServiceError(f"{service}이(가) 요청을 거절했습니다 (HTTP {status}).")
    try:
        return response.json()
    except ValueError:
        raise ServiceError(f"{service}의 응답을 해석할 수 없습니다.") from None


def clip(text: str, limit: int) -> str:
    """`text` cut to `limit` characters, marked when cut."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
