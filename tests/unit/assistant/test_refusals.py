"""Every refusal of a tool reaches the user as a clear Korean message, and the thread goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from dure.settings import Settings
from dure.testing import ScriptedChatModel, tool_call

from .harness import Assistant, tool_messages

REFUSALS = [
    ("calculator", {"expression": "9**9**9"}, "결과가 너무 큰 거듭제곱이라 계산하지 않습니다"),
    ("calculator", {"expression": "(1).__class__"}, "속성 접근(.)은 허용되지 않습니다"),
    ("read_file", {"path": "../secret.txt"}, "허용된 폴더 밖의 파일은 읽을 수 없습니다"),
    ("read_file", {"path": "/etc/passwd"}, "허용된 폴더 밖의 파일은 읽을 수 없습니다"),
    (
        "python_repl",
        {"code": "import socket\nsocket.create_connection(('127.0.0.1', 80))"},
        "샌드박스에는 네트워크가 없습니다.",
    ),
    (
        "python_repl",
        {"code": "open('/usr/lib/evil.txt', 'w')"},
        "작업 폴더(/tmp) 밖에는 쓸 수 없습니다.",
    ),
    ("get_weather", {"city": "서울"}, "API 키가 설정되지 않아"),
]


@pytest.mark.parametrize(("tool", "args", "message"), REFUSALS)
async def test_refusal_then_the_thread_continues(
    settings: Settings,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    tool: str,
    args: dict,
    message: str,
) -> None:
    monkeypatch.delenv("OPENWEATHER_API_KEY", raising=False)
    root = tmp_path / "files"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    settings.assistant.files_root = root
    model = ScriptedChatModel(
        [
            tool_call(tool, **args),
            tool_call("calculator", expression="2 + 3"),
            "2 + 3 = 5입니다.",
        ]
    )
    bot = Assistant(settings, model)
    refused = await bot.turn("이 작업을 해줘: 파이썬 계산")
    (result,) = [e for e in refused.events if e.type == "tool_result"]
    assert not result.ok and message in result.content
    assert "Traceback" not in result.content or tool == "python_repl"
    # Every tool failed: the answer says why, by rule, and guesses nothing (no second call).
    assert message in refused.answer and "추측해서 답하지 않겠습니다" in refused.answer
    assert "TOP SECRET" not in refused.answer
    assert refused.llm_calls == 1
    assert not any(e.type == "error" for e in refused.events)

    after = await bot.turn("2 더하기 3은?")
    assert after.answer == "2 + 3 = 5입니다."
    assert tool_messages(after.calls[1])[-1].content == "5"
