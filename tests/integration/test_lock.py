"""uv.lock, which `make setup` installs from, is in step with pyproject.toml."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UV = Path(sys.executable).with_name("uv")


def _name(requirement: str) -> str:
    """The normalized project name of a PEP 508 requirement."""
    m = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
    assert m, requirement
    return re.sub(r"[-_.]+", "-", m.group(0)).lower()


def test_the_lock_matches_pyproject() -> None:
    """`uv lock --check`: the lock resolves exactly pyproject's requirements (`make lock` if not)."""
    assert UV.is_file(), f"{UV} is missing: `make setup` installs uv into the virtualenv"
    result = subprocess.run(
        [str(UV), "lock", "--check", "--offline"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, (
        f"uv.lock is out of date with pyproject.toml: run `make lock`\n{result.stderr}"
    )


def test_every_dependency_is_pinned_with_hashes() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]
    lock = tomllib.loads((ROOT / "uv.lock").read_text("utf-8"))
    packages = {p["name"]: p for p in lock["package"]}
    extras = project["optional-dependencies"]
    wanted = {_name(r) for r in [*project["dependencies"], *extras["local"], *extras["test"]]}
    assert wanted - packages.keys() == set()
    for name, package in packages.items():
        if package["source"].get("registry"):
            files = [
                *package.get("wheels", []),
                *([package["sdist"]] if "sdist" in package else []),
            ]
            assert files and all(f["hash"].startswith("sha256:") for f in files), name
