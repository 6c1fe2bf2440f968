"""Settings from `DURE_*` variables, nested sections, `dure.toml`, and masked secrets."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from pydantic import ValidationError

from dure.settings import Settings, get_settings


@pytest.fixture(autouse=True)
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No inherited `DURE_*` variable, and a working directory without a `dure.toml`."""
    for name in list(os.environ):
        if name.startswith("DURE_"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))


def test_defaults(tmp_path: Path) -> None:
    s = Settings()
    assert s.provider == "local"
    assert s.data_dir == tmp_path / "xdg" / "dure"
    assert s.effective_database_url == f"sqlite:///{tmp_path / 'xdg' / 'dure' / 'dure.sqlite'}"
    assert s.contract.max_iterations == 4
    assert (s.assistant.max_messages, s.assistant.keep_recent, s.assistant.max_summaries) == (
        10,
        5,
        3,
    )
    assert s.model_name("fast") == s.model_fast and s.model_name("smart") == s.model_smart


def test_environment_variables(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DURE_PROVIDER", "openai")
    monkeypatch.setenv("DURE_BASE_URL", "http://127.0.0.1:8080/v1")
    monkeypatch.setenv("DURE_MODEL_FAST", "qwen-small")
    monkeypatch.setenv("DURE_MAX_LLM_CALLS_PER_TURN", "7")
    monkeypatch.setenv("DURE_DATA_DIR", str(tmp_path / "d"))
    monkeypatch.setenv("DURE_DATABASE_URL", "memory")
    s = Settings()
    assert (s.provider, s.base_url, s.model_name("fast")) == (
        "openai",
        "http://127.0.0.1:8080/v1",
        "qwen-small",
    )
    assert s.max_llm_calls_per_turn == 7
    # The model is not in the data dir: every data dir shares the one in the user's cache.
    model = tmp_path / "xdg-cache" / "dure" / "models" / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert s.model_path == model
    assert s.effective_database_url == "memory"


def test_nested_sections_use_double_underscore(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DURE_CONTRACT__MAX_ITERATIONS", "3")
    monkeypatch.setenv("DURE_LOCAL__N_THREADS", "4")
    monkeypatch.setenv("DURE_LOCAL__PATH", "/models/other.gguf")
    s = Settings()
    assert s.contract.max_iterations == 3
    assert s.local.n_threads == 4
    assert s.model_path == Path("/models/other.gguf")
    assert s.contract.max_parallel_tools == 4  # the rest of the section keeps its defaults


def test_toml_file_named_by_dure_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    config = tmp_path / "conf" / "my.toml"
    config.parent.mkdir()
    config.write_text(
        'provider = "openai"\nmax_message_chars = 500\n\n[contract]\nmax_iterations = 2\n',
        encoding="utf-8",
    )
    monkeypatch.setenv("DURE_CONFIG", str(config))
    s = Settings()
    assert (s.provider, s.max_message_chars, s.contract.max_iterations) == ("openai", 500, 2)


def test_environment_wins_over_toml(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "dure.toml").write_text("max_message_chars = 500\n", encoding="utf-8")
    assert Settings().max_message_chars == 500  # ./dure.toml by default
    monkeypatch.setenv("DURE_MAX_MESSAGE_CHARS", "900")
    assert Settings().max_message_chars == 900


def test_bad_value_is_a_validation_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DURE_PROVIDER", "telepathy")
    with pytest.raises(ValidationError, match="provider"):
        Settings()


def test_masked_hides_every_secret(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DURE_API_KEY", "sk-top-secret")
    monkeypatch.setenv("DURE_ASSISTANT__TAVILY_API_KEY", "tvly-top-secret")
    monkeypatch.setenv("DURE_DATABASE_URL", "postgresql://dure:pg-top-secret@db.internal:5432/dure")
    monkeypatch.setenv("DURE_BASE_URL", "https://proxy.example/v1?password=url-top-secret&x=1")
    s = Settings()
    assert s.api_key is not None and s.api_key.get_secret_value() == "sk-top-secret"
    masked = s.masked()
    text = json.dumps(masked, ensure_ascii=False)
    assert "top-secret" not in text
    assert masked["api_key"] == "**********"
    assert masked["database_url"] == "postgresql://dure:**********@db.internal:5432/dure"
    assert masked["base_url"] == "https://proxy.example/v1?password=**********&x=1"
    assert masked["max_llm_calls_per_turn"] == s.max_llm_calls_per_turn  # the rest is shown
    assert s.database_url == "postgresql://dure:pg-top-secret@db.internal:5432/dure"  # unchanged


def test_get_settings_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    get_settings.cache_clear()
    try:
        monkeypatch.setenv("DURE_MAX_MESSAGE_CHARS", "123")
        assert get_settings().max_message_chars == 123
        monkeypatch.setenv("DURE_MAX_MESSAGE_CHARS", "456")
        assert get_settings() is get_settings()
        assert get_settings().max_message_chars == 123
    finally:
        get_settings.cache_clear()


def test_conventional_key_variables_are_read_through_settings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-conventional")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-conventional")
    monkeypatch.setenv("OPENWEATHER_API_KEY", "ow-conventional")
    monkeypatch.setenv("DURE_ASSISTANT__HTTP_TIMEOUT", "3")  # a sibling in the same section
    s = Settings()
    assert s.api_key is not None and s.api_key.get_secret_value() == "sk-conventional"
    assert s.assistant.tavily_api_key is not None
    assert s.assistant.tavily_api_key.get_secret_value() == "tvly-conventional"
    assert s.assistant.openweather_api_key is not None
    assert s.assistant.http_timeout == 3  # merged, not replaced
    monkeypatch.setenv("DURE_API_KEY", "sk-dure")  # Dure's own variable wins
    own = Settings()
    assert own.api_key is not None and own.api_key.get_secret_value() == "sk-dure"


def test_extra_agents_is_a_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DURE_EXTRA_AGENTS", "demo=demo_agent:AGENT")
    assert Settings().extra_agents == "demo=demo_agent:AGENT"
