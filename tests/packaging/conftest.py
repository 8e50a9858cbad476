"""The wheel built and installed once per session, for every packaging test."""

from __future__ import annotations

import fcntl
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: uv (a dev dependency) builds and installs in seconds and caches what it downloads.
UV = Path(sys.executable).with_name("uv")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    venv: Path

    @property
    def command(self) -> Path:
        return self.venv / "bin" / "pbp-dice"


def _uv(*args: str | Path) -> None:
    done = subprocess.run([str(UV), *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """The wheel built from this checkout (via its sdist, as an index would get it) and
    installed with the PostgreSQL extra into a new virtual environment; once per session."""
    assert UV.exists(), "uv is a dev dependency: run `make install`"
    out = tmp_path_factory.mktemp("dist")
    # Building writes metadata into the checkout: one build at a time across xdist workers
    # (their temp folders share this parent).
    lock = tmp_path_factory.getbasetemp().parent / "pbp-dice-build.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        _uv("build", "--quiet", "--out-dir", out, ROOT)
    [wheel] = out.glob("*.whl")
    venv = tmp_path_factory.mktemp("site") / "venv"
    _uv("venv", "--quiet", "--python", sys.executable, venv)
    _uv("pip", "install", "--quiet", "--python", venv / "bin" / "python", f"{wheel}[postgres]")
    return Installed(wheel, venv)
