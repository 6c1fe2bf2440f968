"""`pip install 'dure[local]'` works as promised: the built wheel alone, in a fresh virtualenv.

The wheel is built from this checkout (sdist first, then the wheel from the sdist, as an index
would). A new virtualenv outside the repository gets what uv.lock pins for the `local` extra,
then the wheel with its `local` extra, which must need nothing more. Everything then runs from
a directory outside the repository through the installed `dure` command: its `models pull`
finds the model in the user's cache, which every installation and data dir shares (`make test`
has it assembled there; assembling itself is tests/unit/llm/test_weights.py's), `dure doctor`
passes, one scripted turn runs, the web UI is served from the package.

uv installs from its cache (which `make setup` fills) without the network; only what the cache
lacks comes from PyPI. With a warm cache the module takes about 30 s; with none it compiles
llama-cpp-python once (about 10 minutes on 2 cores), which uv then reuses.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from dure.settings import model_cache_dir
from server_support import free_port

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "dure"
UV = Path(sys.executable).with_name("uv")
# A run with a cold uv cache compiles llama-cpp-python inside the first test's setup.
pytestmark = pytest.mark.timeout(1800)


def _cmake_args() -> str:
    """The Makefile's portable llama.cpp build flags, so a wheel built here is the same one."""
    m = re.search(r"^export CMAKE_ARGS \?= (.+)$", (ROOT / "Makefile").read_text(), re.M)
    assert m, "Makefile sets no CMAKE_ARGS"
    return os.environ.get("CMAKE_ARGS") or m.group(1).strip()


def _uv(
    *args: str, cwd: Path, offline: bool = False, venv: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("VIRTUAL_ENV", "UV_PROJECT_ENVIRONMENT", "PYTHONPATH")
    }
    env["CMAKE_ARGS"] = _cmake_args()
    if venv is not None:
        env["UV_PROJECT_ENVIRONMENT"] = str(venv)
    return subprocess.run(
        [str(UV), *args, *(["--offline"] if offline else [])],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,
        check=False,
    )


def _uv_cached(*args: str, cwd: Path, venv: Path | None = None) -> None:
    """`uv ARGS` from uv's cache alone if it can; else fetching from PyPI what the cache lacks.

    Offline first also where the index sends no cache headers: online, uv would fetch
    llama-cpp-python's sdist anew and compile it again.
    """
    if _uv(*args, cwd=cwd, offline=True, venv=venv).returncode == 0:
        return
    result = _uv(*args, cwd=cwd, venv=venv)
    assert result.returncode == 0, f"uv {' '.join(args)} failed:\n{result.stderr[-4000:]}"


def _packages(python: str) -> dict[str, str]:
    """Name and version of every package installed for `python`."""
    result = _uv("pip", "list", "--format", "json", "--python", python, cwd=Path(python).parent)
    assert result.returncode == 0, result.stderr
    return {p["name"]: p["version"] for p in json.loads(result.stdout)}


@dataclass
class Installed:
    """A virtualenv holding only the wheel (and its dependencies), and where to run it."""

    venv: Path
    work: Path  # the working directory: outside the repository, nothing importable in it
    data: Path  # DURE_DATA_DIR
    agents: Path  # on PYTHONPATH for the scripted turn only

    def env(self, **extra: str) -> dict[str, str]:
        """The environment of an installed command: no DURE_*, no repository on any path."""
        drop = ("DURE_", "OPENAI_", "PYTHON", "VIRTUAL_ENV", "UV_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
        env.update(
            PATH=f"{self.venv / 'bin'}{os.pathsep}{env.get('PATH', '')}",
            DURE_DATA_DIR=str(self.data),
            DURE_CONFIG=str(self.work / "absent.toml"),
            DURE_ENABLE_CACHE="false",
            NO_COLOR="1",
            COLUMNS="200",
        )
        env.update(extra)
        return env

    def run(self, *args: str, timeout: float = 300, **env: str) -> subprocess.CompletedProcess[str]:
        """`<venv>/bin/ARGS[0] ARGS[1:]` from the working directory."""
        return subprocess.run(
            [str(self.venv / "bin" / args[0]), *args[1:]],
            cwd=self.work,
            env=self.env(**env),
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Installed]:
    assert UV.is_file(), f"{UV} is missing: `make setup` installs uv into the virtualenv"
    base = tmp_path_factory.mktemp("wheel")
    assert ROOT not in base.parents, "the test virtualenv must live outside the repository"
    dist, venv = base / "dist", base / "venv"
    python = str(venv / "bin" / "python")
    _uv_cached("build", "--out-dir", str(dist), str(ROOT), cwd=base)
    [wheel] = dist.glob("dure-*.whl")

    _uv_cached("venv", "--python", sys.executable, str(venv), cwd=base)
    # First what uv.lock pins for the package and its `local` extra (as `make setup` installs)…
    _uv_cached("sync", "--frozen", "--no-install-project", "--extra", "local", cwd=ROOT, venv=venv)
    locked = _packages(python)
    # …then the wheel with its `local` extra, resolved from its own metadata: it needs nothing
    # the lock does not pin.
    _uv_cached("pip", "install", "--python", python, f"dure[local] @ {wheel.as_uri()}", cwd=base)
    added = {n: v for n, v in _packages(python).items() if locked.get(n) != v}
    assert added == {"dure": wheel.name.split("-")[1]}
    work, data, agents = base / "work", base / "data", base / "agents"
    for d in (work, data, agents):
        d.mkdir()
    shutil.copy(ROOT / "tests" / "demo_agent.py", agents / "demo_agent.py")
    yield Installed(venv=venv, work=work, data=data, agents=agents)
    # The venv is big: leave no copy of it behind.
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def pulled(installed: Installed) -> Path:
    """The local model, as the installed `dure models pull` prepares it."""
    result = installed.run("dure", "models", "pull")
    assert result.returncode == 0, result.stdout + result.stderr
    path = installed.run("dure", "models", "path")
    assert path.returncode == 0, path.stderr
    model = Path(path.stdout.strip())
    assert f"모델 준비 완료: {model}" in result.stdout
    return model


def test_dure_runs_from_the_virtualenv_not_from_the_repository(installed: Installed) -> None:
    code = "import dure, llama_cpp; print(dure.__file__); print(llama_cpp.__file__)"
    result = installed.run("python", "-c", code)
    assert result.returncode == 0, result.stderr
    for line in result.stdout.splitlines():
        assert Path(line).is_relative_to(installed.venv), line
    # Installed as a wheel, not as a link to the checkout.
    site = next((installed.venv / "lib").glob("python3*/site-packages"))
    assert not list(site.glob("__editable__*"))
    assert all(str(ROOT) not in pth.read_text() for pth in site.glob("*.pth"))


def test_every_file_of_the_package_is_installed(installed: Installed) -> None:
    """What pyproject's package-data must carry: every non-Python file under src/dure."""
    wanted = sorted(
        p.relative_to(PACKAGE).as_posix()
        for p in PACKAGE.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc") and "__pycache__" not in p.parts
    )
    assert "data/places.json" in wanted and "server/static/index.html" in wanted
    code = (
        "import sys\nfrom importlib.resources import files\n"
        "for name in sys.argv[1:]:\n"
        "    print(name, len(files('dure').joinpath(name).read_bytes()))"
    )
    result = installed.run("python", "-c", code, *wanted)
    assert result.returncode == 0, result.stderr
    sizes = dict(line.rsplit(" ", 1) for line in result.stdout.splitlines())
    assert sizes == {name: str((PACKAGE / name).stat().st_size) for name in wanted}


def test_models_pull_uses_the_one_model_in_the_user_cache(
    installed: Installed, pulled: Path
) -> None:
    assert pulled == model_cache_dir() / "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
    assert not (installed.data / "models").exists()  # nothing of it in the data dir
    assert pulled.stat().st_size > 1_000_000_000
    assert pulled.read_bytes()[:4] == b"GGUF"
    # A second pull only verifies what is there.
    again = installed.run("dure", "models", "pull")
    assert again.returncode == 0 and f"모델 준비 완료: {pulled}" in again.stdout


def test_doctor_passes_on_the_installed_package(installed: Installed, pulled: Path) -> None:
    result = installed.run("dure", "doctor")
    assert result.returncode == 0, result.stdout + result.stderr
    shown = json.loads(result.stdout[: result.stdout.index("\n✓")])
    assert Path(shown["data_dir"]) == installed.data
    checks = [line for line in result.stdout.splitlines() if line[:1] in "✓✗"]
    assert checks == [
        "✓ 설정",
        "✓ 로컬 모델 파일",
        "✓ llama-cpp-python",
        "✓ 임베딩 (multilingual-e5)",
        "✓ 데이터베이스",
        "✓ Python 샌드박스 (bubblewrap)",
    ]


def test_one_scripted_turn_through_the_installed_command(installed: Installed) -> None:
    result = installed.run(
        "dure",
        "ask",
        "--agent",
        "demo",
        "--json",
        "내 이름은 민수야",
        PYTHONPATH=str(installed.agents),
        DURE_EXTRA_AGENTS="demo=demo_agent:AGENT",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    events = [json.loads(line) for line in result.stdout.splitlines()]
    done = events[-1]
    assert done["type"] == "done" and done["content"] == "반가워요, 민수님!", events
    assert "".join(e["content"] for e in events if e["type"] == "token") == "반가워요, 민수님!"
    assert (installed.data / "dure.sqlite").is_file()  # the thread was checkpointed


def test_the_installed_server_serves_the_web_ui(installed: Installed) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = installed.work / "serve.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [str(installed.venv / "bin" / "dure"), "serve", "--port", str(port)],
            cwd=installed.work,
            env=installed.env(DURE_SERVER__AUTH="false"),
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, log.read_text(errors="replace")
            try:
                page = httpx.get(f"{url}/", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, log.read_text(errors="replace")
                time.sleep(0.3)
        assert page.status_code == 200
        assert page.text == (PACKAGE / "server" / "static" / "index.html").read_text("utf-8")
        for name in ("app.js", "style.css", "markdown.js"):
            asset = httpx.get(f"{url}/static/{name}", timeout=10)
            assert asset.status_code == 200, name
            assert asset.content == (PACKAGE / "server" / "static" / name).read_bytes()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
