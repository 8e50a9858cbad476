"""The deployment files the docs hand to an operator: the systemd units, the Dockerfile and
compose.yaml. Each is checked for what it must do, and run where this machine can run it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

import bot.__main__ as entry
import bot.log_context
import bot.logs
from bot.config import DEFAULT_DATABASE_URL, Settings
from tests.fixtures.packaging import Installed

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
#: Where docs/deploying.md installs the wheel.
INSTALLED_COMMAND = "/opt/pbp-dice/venv/bin/pbp-dice"


def _unit(name: str) -> dict[str, dict[str, list[str]]]:
    """A unit file's sections, each key with every value it is given (keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    section = ""
    for line in (UNITS / name).read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            sections[section] = {}
            continue
        key, _, value = line.partition("=")
        sections[section].setdefault(key, []).append(value)
    return sections


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="no systemd-analyze here")
@pytest.mark.parametrize("name", ["pbp-dice.service", "pbp-dice@.service"])
def test_the_systemd_units_pass_systemd_analyze_verify(
    name: str, installed: Installed, tmp_path: Path
) -> None:
    """The units as shipped, with ExecStart pointing at the wheel this session installed (the
    docs install it at /opt/pbp-dice/venv): no error and no warning."""
    text = (UNITS / name).read_text(encoding="utf-8")
    assert INSTALLED_COMMAND in text
    (tmp_path / name).write_text(text.replace(INSTALLED_COMMAND, str(installed.command)))
    target = tmp_path / name
    if "@" in name:  # verify an instance, as `systemctl start pbp-dice@0` would load it
        instance = tmp_path / name.replace("@", "@0")
        instance.symlink_to(target)
        target = instance
    done = subprocess.run(
        ["systemd-analyze", "verify", str(target)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert [line for line in done.stderr.splitlines() if name.split("@")[0] in line] == []


@pytest.mark.parametrize("name", ["pbp-dice.service", "pbp-dice@.service"])
def test_the_units_write_only_where_systemd_makes_the_folder_for_either_database(
    name: str,
) -> None:
    service = _unit(name)["Service"]
    # systemd creates /var/lib/pbp-dice (owned by User=) before it starts the bot, on SQLite
    # and PostgreSQL alike; ProtectSystem=strict leaves it the only writable place.
    assert service["StateDirectory"] == ["pbp-dice"]
    assert service["WorkingDirectory"] == ["/var/lib/pbp-dice"]
    assert service["ProtectSystem"] == ["strict"]
    # A path listed without "-" that does not exist stops the unit from starting.
    assert all(p.startswith("-") for v in service.get("ReadWritePaths", []) for p in v.split())
    # The default SQLite file lands in that folder (a relative path from WorkingDirectory).
    default = DEFAULT_DATABASE_URL.split("///", 1)[1]
    assert Path("/var/lib/pbp-dice", default).resolve().is_relative_to("/var/lib/pbp-dice")
    assert service["User"] == ["pbp-dice"] and service["Restart"] == ["on-failure"]


def test_the_shard_template_runs_exactly_its_own_shard(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """`pbp-dice@1` with the settings file the docs write (a copy of .env.example: SHARD_IDS=
    left empty), in the unit's working directory: the process runs shard 1 of SHARD_COUNT, and
    no other, even with SHARD_IDS set in the environment too."""
    service = _unit("pbp-dice@.service")["Service"]
    assert not any(v.startswith("SHARD_IDS") for v in service.get("Environment", []))
    [exec_start] = service["ExecStart"]
    argv = exec_start.replace("%i", "1").split()
    assert argv[0] == INSTALLED_COMMAND
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert "\nSHARD_IDS=\n" in example
    settings = example.replace("DISCORD_TOKEN=\n", "DISCORD_TOKEN=not.a.real-token\n")
    settings = settings.replace("SHARD_COUNT=\n", "SHARD_COUNT=2\n")
    settings = re.sub(
        r"^DATABASE_URL=.*$",
        f"DATABASE_URL=sqlite+aiosqlite:///{tmp_path}/pbp.db",
        settings,
        flags=re.M,
    )
    (tmp_path / ".env").write_text(settings, encoding="utf-8")
    monkeypatch.chdir(tmp_path)  # WorkingDirectory=
    monkeypatch.setattr(bot.logs, "setup_logging", lambda *args: None)
    monkeypatch.setattr(bot.log_context, "install_log_context", lambda: None)
    ran: list[Settings] = []

    async def run(settings: Settings) -> None:
        ran.append(settings)

    monkeypatch.setattr(entry, "_run", run)
    assert entry.main(argv[1:]) == 0
    assert (ran[0].shard_count, ran[0].shard_ids) == (2, [1])
    monkeypatch.setenv("SHARD_IDS", "0,1")  # say an EnvironmentFile= set it after all
    assert entry.main(argv[1:]) == 0
    assert ran[1].shard_ids == [1]


# --- the container ------------------------------------------------------------------------------


def _dockerfile() -> str:
    return (ROOT / "Dockerfile").read_text(encoding="utf-8")


def test_the_image_installs_the_wheel_with_the_wheel_tests_commands() -> None:
    """Its steps are the ones tests/fixtures/packaging.py runs on this machine: build the
    wheel with uv, a new venv, install WHEEL[postgres] into it; nothing else installs code."""
    text = _dockerfile()
    conftest = (ROOT / "tests" / "fixtures" / "packaging.py").read_text(encoding="utf-8")
    for step in ('"build"', '"venv"', '"pip", "install"', "[postgres]"):
        assert step in conftest
    assert re.search(r"^RUN uv build --out-dir /dist /src$", text, re.M)
    assert "uv venv --python python3 /opt/pbp-dice/venv" in text
    assert re.search(
        r'uv pip install .*--python /opt/pbp-dice/venv/bin/python .*\[postgres\]"', text
    )
    assert "pip install -e" not in text and "COPY . /src" in text  # the source only in build


def test_the_image_is_built_on_a_base_named_by_a_build_arg_and_keeps_only_the_venv() -> None:
    """Docker Hub's python:3.11-slim unless BASE names another (deploy/container/base-image.sh
    makes one from Debian's packages); the final stage installs nothing and takes none of the
    build stage's download settings (a proxy's CA, a mirror), only the virtual environment."""
    text = _dockerfile()
    assert text.count("\nFROM ${BASE}") == 2
    assert re.search(r"^ARG BASE=python:3\.11-slim$", text.split("\nFROM ")[0], re.M)
    final = text.split("\nFROM ")[-1]
    assert "COPY --from=build /opt/pbp-dice/venv /opt/pbp-dice/venv" in final
    for build_only in ("EXTRA_CA_CERTS", "INDEX", "uv ", "pip install", "COPY . "):
        assert build_only not in final, build_only
    script = (ROOT / "deploy" / "container" / "base-image.sh").read_text(encoding="utf-8")
    assert "debootstrap --variant=minbase" in script and "docker import" in script


def test_the_image_runs_without_privileges_keeps_data_in_a_volume_and_checks_healthz() -> None:
    text = _dockerfile()
    final = text.split("\nFROM ")[-1]
    assert re.search(r"^USER pbp-dice$", final, re.M)
    assert 'VOLUME ["/var/lib/pbp-dice"]' in final and "WORKDIR /var/lib/pbp-dice" in final
    assert "DATABASE_URL=sqlite+aiosqlite:////var/lib/pbp-dice/data/" in final
    health = final[final.index("HEALTHCHECK") :]
    assert "http://127.0.0.1:9108/healthz" in health
    # The endpoint must be reachable from outside the container for an orchestrator's probe.
    assert "METRICS_HOST=0.0.0.0" in final and "METRICS_PORT=9108" in final
    assert "STOPSIGNAL SIGTERM" in final and 'ENTRYPOINT ["pbp-dice"]' in final


def test_compose_runs_the_bot_on_postgresql_with_its_data_in_volumes() -> None:
    text = (ROOT / "compose.yaml").read_text(encoding="utf-8")
    assert re.search(r"^  db:\n    image: postgres:\d+", text, re.M)
    assert re.search(r"^  bot:\n    build: \.", text, re.M)
    assert "DATABASE_URL: postgresql+asyncpg://pbp_dice:${POSTGRES_PASSWORD}@db:5432/pbp_dice" in (
        text
    )
    assert "condition: service_healthy" in text and "pg_isready" in text
    assert "METRICS_HOST: 0.0.0.0" in text  # wins over a .env copied from .env.example
    assert "data:/var/lib/pbp-dice" in text and "db:/var/lib/postgresql/data" in text
    assert '"127.0.0.1:9108:9108"' in text
