"""The `get_weather` tool: current weather from OpenWeather (`OPENWEATHER_API_KEY`)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from dure.settings import Settings
from dure.tools._http import ServiceError, api_key, missing_key_message, request_json
from dure.tools.base import Tool, ToolResult

SERVICE = "날씨 서비스(OpenWeather)"

# OpenWeather knows cities by their English names; Korean users type them in Korean.
KOREAN_CITIES = {
    "서울": "Seoul",
    "부산": "Busan",
    "인천": "Incheon",
    "대구": "Daegu",
    "대전": "Daejeon",
    "광주": "Gwangju",
    "울산": "Ulsan",
    "세종": "Sejong",
    "수원": "Suwon",
    "성남": "Seongnam",
    "고양": "Goyang",
    "용인": "Yongin",
    "창원": "Changwon",
    "청주": "Cheongju",
    "전주": "Jeonju",
    "천안": "Cheonan",
    "포항": "Pohang",
    "춘천": "Chuncheon",
    "강릉": "Gangneung",
    "여수": "Yeosu",
    "목포": "Mokpo",
    "제주": "Jeju City",
    "서귀포": "Seogwipo",
    "도쿄": "Tokyo",
    "오사카": "Osaka",
    "베이징": "Beijing",
    "상하이": "Shanghai",
    "뉴욕": "New York",
    "런던": "London",
    "파리": "Paris",
}
_SUFFIXES = ("특별자치시", "특별자치도", "특별시", "광역시", "시")


def city_query(city: str) -> str:
    """The name OpenWeather understands for what the user typed ("서울시" → "Seoul")."""
    name = city.strip()
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and name[: -len(suffix)] in KOREAN_CITIES:
            name = name[: -len(suffix)]
            break
    return KOREAN_CITIES.get(name, name)


def describe(city: str, data: dict[str, Any]) -> str:
    """One Korean sentence from OpenWeather's current-weather response."""
    main = data.get("main") or {}
    weather = (data.get("weather") or [{}])[0]
    parts = [f"{city}의 현재 날씨: {weather.get('description', '정보 없음')}"]
    if "temp" in main:
        feels = f" (체감 {main['feels_like']:.1f}°C)" if "feels_like" in main else ""
        parts.append(f"기온 {main['temp']:.1f}°C{feels}")
    if "temp_min" in main and "temp_max" in main:
        parts.append(f"최저 {main['temp_min']:.1f}°C / 최고 {main['temp_max']:.1f}°C")
    if "humidity" in main:
        parts.append(f"습도 {main['humidity']}%")
    wind = (data.get("wind") or {}).get("speed")
    if wind is not None:
        parts.append(f"바람 {wind}m/s")
    return ", ".join(parts)


class WeatherArgs(BaseModel):
    """Arguments of `get_weather`."""

    city: str = Field(description="도시 이름 (예: 서울, 부산, Tokyo)")


def weather_tool(settings: Settings) -> Tool:
    """The `get_weather` tool (OpenWeather current weather, metric units, Korean text)."""
    cfg = settings.assistant

    async def get_weather(city: str) -> ToolResult:
        key = api_key(cfg.openweather_api_key)
        if key is None:
            return ToolResult.fail(
                missing_key_message(
                    SERVICE, "OPENWEATHER_API_KEY", "DURE_ASSISTANT__OPENWEATHER_API_KEY"
                )
            )
        if not city.strip():
            return ToolResult.fail("날씨를 알고 싶은 도시 이름을 알려 주세요.")
        try:
            data = await request_json(
                "GET",
                f"{cfg.openweather_base_url.rstrip('/')}/data/2.5/weather",
                service=SERVICE,
                timeout=cfg.http_timeout,
                params={"q": city_query(city), "appid": key, "units": "metric", "lang": "kr"},
                not_found=f"'{city}' 도시를 찾을 수 없습니다. 도시 이름을 확인해 주세요.",
            )
        except ServiceError as e:
            return ToolResult.fail(str(e))
        return ToolResult(ok=True, content=describe(city.strip(), data), data=data)

    return Tool(
        name="get_weather",
        description="도시의 현재 날씨(날씨 상태, 기온, 습도, 바람)를 조회합니다.",
        args_schema=WeatherArgs,
        func=get_weather,
        timeout=cfg.http_timeout + 5,
    )
